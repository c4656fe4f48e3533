"""Benchmark of the clock link over a pty pair: press-to-host-event latency and throughput.

The simulated clock (the real firmware logic) runs in its own thread on the pty's clock side;
the host's clock object polls the other side with pyserial, as ``hakem run`` would. Latency is
from the moment the firmware takes the press to the moment the host's ``poll()`` returns it.

    .venv/bin/python -m tests.bench.clock_link [--presses 200] [--commands 1000]
"""

from __future__ import annotations

import argparse
import queue
import statistics
import threading
import time

from controller.clock import HostClock, MonotonicTime, PressEvent, SerialTransport, SimulatedClock
from controller.clock.messages import Button
from controller.clock.transport import PtyPair
from firmware.protocol import Decoder, Frame, encode


def _clock_thread(
    sim: SimulatedClock,
    presses: queue.Queue[Button],
    taken: dict[int, float],
    stop: threading.Event,
) -> None:
    while not stop.is_set():
        while not presses.empty():
            button = presses.get()
            at = time.perf_counter()
            taken[sim.device.core.presses + 1] = at  # before the press goes out on the wire
            sim.press(button)
        sim.step()
        sim.transport.wait(0.001)


def measure(presses: int, commands: int) -> dict[str, float]:
    pair = PtyPair()
    clock_time = MonotonicTime()
    sim = SimulatedClock(pair.clock_side, clock_time, boot_id=1)
    sim.device.core.configure_countdown(3_600_000, clock_time.now_ms())
    press_queue: queue.Queue[Button] = queue.Queue()
    taken: dict[int, float] = {}
    stop = threading.Event()
    thread = threading.Thread(target=_clock_thread, args=(sim, press_queue, taken, stop))
    thread.start()
    host = HostClock(SerialTransport(pair.port_name), MonotonicTime())
    latencies: list[float] = []
    try:
        deadline = time.monotonic() + 10
        while not host.connected:
            host.poll()
            host.transport.wait(0.001)
            if time.monotonic() > deadline:
                raise SystemExit("the simulated clock did not answer")
        side: Button = "left"
        for _ in range(presses):
            press_queue.put(side)
            got: list[PressEvent] = []
            while not got:
                got = [e for e in host.poll() if isinstance(e, PressEvent)]
                if not got:
                    host.transport.wait(0.001)
            arrived = time.perf_counter()
            latencies.append((arrived - taken[got[0].number]) * 1000)
            side = "right" if side == "left" else "left"
        started = time.perf_counter()
        for i in range(commands):
            host.beep(1 + i % 50)
        while host.backlog():
            host.poll()
            host.transport.wait(0.001)
        elapsed = time.perf_counter() - started
    finally:
        stop.set()
        thread.join()
        host.close()
        pair.close()

    frame = Frame(123, 45, "PR", ["17", "L", "3600000", "R", "839000", "812345", "12000", "run"])
    data = encode(frame)
    decoder = Decoder()
    n = 5000
    t0 = time.perf_counter()
    for _ in range(n):
        decoder.feed(encode(frame))
    codec_s = time.perf_counter() - t0
    latencies.sort()
    return {
        "presses": float(presses),
        "latency_median_ms": statistics.median(latencies),
        "latency_p95_ms": latencies[int(0.95 * (len(latencies) - 1))],
        "latency_max_ms": latencies[-1],
        "commands": float(commands),
        "commands_per_s": commands / elapsed,
        "frame_bytes": float(len(data)),
        "codec_frames_per_s": n / codec_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--commands", type=int, default=1000)
    args = parser.parse_args()
    figures = measure(args.presses, args.commands)
    print(f"clock link over a pty pair, {int(figures['presses'])} presses:")
    print(
        f"  press to host event: median {figures['latency_median_ms']:.2f} ms, "
        f"p95 {figures['latency_p95_ms']:.2f} ms, max {figures['latency_max_ms']:.2f} ms"
    )
    print(
        f"  acknowledged commands (stop-and-wait): {figures['commands_per_s']:.0f} per second "
        f"({int(figures['commands'])} sent)"
    )
    print(
        f"  codec: {figures['codec_frames_per_s']:.0f} frames per second encoded and decoded "
        f"on this CPU ({int(figures['frame_bytes'])}-byte press frame)"
    )


if __name__ == "__main__":
    main()
