"""``hakem demo --publish`` to a broker that takes the connection and never answers: at its end
the demo waits for the broker (:data:`controller.demo.harness.HUB_WAIT_S`, 30 s, made short
here), then exits 2 with one line on stderr naming the outbox where the entries wait, for
either game. The players stop after a few journal entries, as the resume tests stop them."""

from __future__ import annotations

import functools
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import main
from controller.demo.table import DemoOptions
from controller.mangala.demo import MangalaDemoOptions


@pytest.fixture
def silent_broker() -> Iterator[int]:
    """A local port that accepts connections and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


@pytest.mark.parametrize("game", ["backgammon", "mangala"])
def test_a_demo_whose_broker_never_answers_exits_2_naming_the_outbox(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        silent_broker: int, game: str) -> None:
    monkeypatch.setattr("controller.demo.harness.HUB_WAIT_S", 1.5)
    monkeypatch.setattr("controller.demo.table.DemoOptions",
                        functools.partial(DemoOptions, record=False, stop_after=6))
    monkeypatch.setattr("controller.mangala.cli.MangalaDemoOptions",
                        functools.partial(MangalaDemoOptions, stop_after=6))
    out = tmp_path / "demo"
    code = main(["demo", "--game", game, "--out", str(out), "--quiet",
                 "--publish", f"mqtt://127.0.0.1:{silent_broker}", "--table", "7"])
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert code == 2, err
    assert last.startswith("hakem") and "not confirmed by the broker within" in last
    assert f"they wait in {out / 'hub-outbox.sqlite'}" in last
    assert (out / "journal.jsonl").exists()
