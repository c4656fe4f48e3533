"""Benchmark of the tournament hub through a real Mosquitto on a loopback port.

Prints (1) events per second from 100 tables through the broker into the hub's database, each
table publishing its whole match at once, and (2) the time from a table publishing an event to
the dashboard's live stream (Server-Sent Events, read over HTTP as a browser would) showing it,
median and worst, with 100 tables playing live. Run: ``.venv/bin/python -m tests.bench.hub``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

from controller.hub.link import LinkConfig, parse_broker_url
from controller.hub.publisher import TablePublisher
from controller.hub.server import HubApp
from tests.controller.hub.broker import Broker, wait_for
from tests.controller.hub.matches import simulated_match


def _publishers(broker: Broker, work: Path, tables: int, tag: str) -> list[TablePublisher]:
    out = []
    for n in range(1, tables + 1):
        link = replace(parse_broker_url(broker.url, LinkConfig()), tournament=tag, table=str(n),
                       outbox=str(work / f"{tag}-{n}.db"))
        out.append(TablePublisher(link).start())
    wait_for(lambda: all(p.connected for p in out), 60, "tables connected")
    return out


def throughput(broker: Broker, hub: HubApp, work: Path, tables: int) -> tuple[int, float]:
    """Every table publishes a whole match at once; time until the hub has stored them all."""
    publishers = _publishers(broker, work, tables, "throughput")
    matches = [simulated_match(n, seed=n, length=5) for n in range(1, tables + 1)]
    total = sum(len(m) for m in matches)
    before = hub.service.stats["stored"]
    start = time.perf_counter()
    threads = [threading.Thread(target=p.publish_many, args=(m,))
               for p, m in zip(publishers, matches, strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wait_for(lambda: hub.service.stats["stored"] - before >= total, 300, "all events stored",
             interval_s=0.005)
    elapsed = time.perf_counter() - start
    for p in publishers:
        p.close()
    return total, elapsed


def latency(broker: Broker, hub: HubApp, work: Path, tables: int, rounds: int) -> list[float]:
    """Each round every table publishes its next event; measure until the SSE stream shows it."""
    publishers = _publishers(broker, work, tables, "live")
    matches = [simulated_match(n, seed=1000 + n, length=5) for n in range(1, tables + 1)]
    sent: dict[tuple[str, int], float] = {}
    seen: dict[tuple[str, int], float] = {}
    lock = threading.Lock()
    host, port = hub.url.split("//")[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    conn.request("GET", "/api/stream")
    response = conn.getresponse()
    stop = threading.Event()

    def read() -> None:
        event = ""
        while not stop.is_set():
            line = response.readline()
            if not line:
                return
            text = line.decode().rstrip("\n")
            if text.startswith("event: "):
                event = text[7:]
            elif text.startswith("data: ") and event == "table":
                card = json.loads(text[6:])
                if card["tournament"] == "live":
                    now = time.perf_counter()
                    with lock:
                        for seq in range(1, card["seq"] + 1):
                            seen.setdefault((card["table"], seq), now)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    for r in range(rounds):
        for n, publisher in enumerate(publishers, start=1):
            entry = matches[n - 1][r % len(matches[n - 1])]
            if r >= len(matches[n - 1]):
                continue
            sent[(str(n), entry["seq"])] = time.perf_counter()
            publisher.publish(entry)
        wait_for(lambda: all(k in seen for k in sent), 60, "the dashboard stream",
                 interval_s=0.002)
    stop.set()
    conn.close()
    for p in publishers:
        p.close()
    return [seen[k] - sent[k] for k in sent]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=20, help="live events per table")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hakem-bench-") as tmp:
        work = Path(tmp)
        with Broker(work / "broker") as broker:
            link = parse_broker_url(broker.url, LinkConfig())
            with HubApp(str(work / "hub.db"), link) as hub:
                wait_for(hub.service.connected.is_set, 30, "hub connected")
                total, elapsed = throughput(broker, hub, work, args.tables)
                print(f"throughput: {total} events from {args.tables} tables (whole matches at "
                      f"once) stored by the hub in {elapsed:.2f} s = {total / elapsed:.0f} "
                      "events/s")
                delays = latency(broker, hub, work, args.tables, args.rounds)
                ms = sorted(d * 1000 for d in delays)
                print(f"event to dashboard (SSE), {args.tables} tables, {len(ms)} events: "
                      f"median {statistics.median(ms):.1f} ms, p95 "
                      f"{ms[int(0.95 * (len(ms) - 1))]:.1f} ms, worst {ms[-1]:.1f} ms")


if __name__ == "__main__":
    main()
