"""``hakem clock sim`` (the firmware's core as a clock on a serial port) and ``hakem clock
status`` (the clock's state as the host sees it)."""

from __future__ import annotations

import argparse
import contextlib
import queue
import signal
import sys
import threading
from typing import Any

from controller.cli.common import add_command, add_group, emit_json, number_in, wants_json
from controller.clock.host import HostClock, wait_for
from controller.clock.messages import Button
from controller.clock.sim import SimulatedClock
from controller.clock.timebase import MonotonicTime
from controller.clock.transport import PtyPair, SerialTransport, Transport
from engine.errors import DeviceError
from firmware.clock_core import (
    DEFAULT_COUNTDOWN_MS,
    DEFAULT_DELAY_MS,
    DEFAULT_RESERVE_MS,
    MAX_TIME_MS,
    format_time,
)
from firmware.device import FIRMWARE_VERSION

# Times the firmware can hold (its limit, 100 hours); checked while parsing, so a bad value is
# refused before a port is opened or anything printed.
CLOCK_SECONDS = number_in(0, MAX_TIME_MS / 1000)
POSITIVE_SECONDS = number_in(0, MAX_TIME_MS / 1000, above_low=True)
MAX_TIMEOUT_S = 3600

KEYS: dict[str, Button] = {
    "l": "left",
    "left": "left",
    "r": "right",
    "right": "right",
    "h": "hold",
    "hold": "hold",
}


def register(subparsers: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``hakem clock sim`` and ``hakem clock status``."""
    group = add_group(subparsers, "clock", "the match clock: simulator and status")
    sim = add_command(
        group, "sim", parents, "run the clock firmware's core as a simulated clock on a port"
    )
    sim.add_argument(
        "--port",
        required=True,
        help="serial port or pyserial URL to serve, or 'pty' for a new pseudo-terminal "
        "(its name is printed)",
    )
    sim.add_argument("--mode", choices=("delay", "countdown"), default="delay",
                     help="delay: a delay per move, then a reserve (backgammon); countdown: a "
                     "time per player per set (Mangala) (default %(default)s)")
    sim.add_argument(
        "--delay-s", type=CLOCK_SECONDS, default=DEFAULT_DELAY_MS / 1000,
        help="delay per move in seconds, delay mode (default %(default)g)",
    )
    sim.add_argument(
        "--reserve-s",
        type=CLOCK_SECONDS,
        default=DEFAULT_RESERVE_MS / 1000,
        help="reserve per player in seconds, delay mode (default %(default)g)",
    )
    sim.add_argument(
        "--time-s",
        type=POSITIVE_SECONDS,
        default=DEFAULT_COUNTDOWN_MS / 1000,
        help="countdown per player per set in seconds, countdown mode (MG-CLOCK-1; default "
        "%(default)g)",
    )
    sim.add_argument(
        "--duration", type=POSITIVE_SECONDS, default=None,
        help="stop after this many seconds (default: run until q or Ctrl-C)",
    )
    sim.set_defaults(func=run_sim)

    status = add_command(group, "status", parents, "the clock's state as the host sees it")
    status.add_argument("--port", required=True, help="serial port or pyserial URL of the clock")
    status.add_argument(
        "--timeout",
        type=number_in(0, MAX_TIMEOUT_S, above_low=True),
        default=3.0,
        help=f"seconds to wait for an answer (default %(default)g, at most {MAX_TIMEOUT_S})",
    )
    status.set_defaults(func=run_status)


def _ms(seconds: float) -> int:
    """Seconds (already checked while parsing) as the firmware's milliseconds."""
    return round(seconds * 1000)


def run_sim(args: argparse.Namespace) -> int:
    """Serve the simulated clock until interrupted; buttons from stdin (l, r, h; q quits)."""
    delay, reserve, total = _ms(args.delay_s), _ms(args.reserve_s), _ms(args.time_s)
    pair: PtyPair | None = None
    transport: Transport
    if args.port == "pty":
        pair = PtyPair()
        transport = pair.clock_side
        port_name = pair.port_name
    else:
        transport = SerialTransport(args.port)
        transport.open()
        port_name = args.port
    time = MonotonicTime()
    sim = SimulatedClock(transport, time)
    if args.mode == "delay":
        sim.device.core.configure_delay(delay, reserve, time.now_ms())
    else:
        sim.device.core.configure_countdown(total, time.now_ms())
    if wants_json(args):
        emit_json({"port": port_name, "mode": args.mode, "firmware": FIRMWARE_VERSION})
    else:
        print(f"simulated clock on {port_name} ({args.mode}); buttons: l, r, h; q quits")
        sys.stdout.flush()

    stop = threading.Event()
    presses: queue.Queue[str] = queue.Queue()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    threading.Thread(target=_read_buttons, args=(presses, stop), daemon=True).start()
    deadline = None if args.duration is None else time.now_ms() + _ms(args.duration)
    try:
        while not stop.is_set():
            while not presses.empty():
                key = presses.get()
                if key == "q":
                    stop.set()
                elif key in KEYS:
                    sim.press(KEYS[key])
            sim.step()
            if deadline is not None and time.now_ms() >= deadline:
                break
            transport.wait(0.002)
    except KeyboardInterrupt:
        pass
    finally:
        transport.close()
        if pair is not None:
            pair.close()
    return 0


def _read_buttons(presses: queue.Queue[str], stop: threading.Event) -> None:
    """Queue the keys typed on stdin; none when stdin is closed or is not text."""
    if sys.stdin is None:  # started with stdin closed (``<&-``): no buttons
        return
    with contextlib.suppress(UnicodeDecodeError, OSError, ValueError):
        for line in sys.stdin:
            presses.put(line.strip().lower())
            if stop.is_set():
                return


def run_status(args: argparse.Namespace) -> int:
    """Ask the clock on ``--port`` for its state; one line of JSON with ``--json``."""
    transport = SerialTransport(args.port)
    transport.open()  # no such port: DeviceError, one line, exit 2
    with HostClock(transport) as clock:
        answered = wait_for(
            clock, lambda: clock.connected and clock.status is not None, args.timeout
        )
        if not answered:
            raise DeviceError(f"no answer from a clock on {args.port} within {args.timeout:g} s")
        state = clock.state()
        presses = clock.status.presses if clock.status is not None else 0
    if wants_json(args):
        emit_json(state.as_json())
        return 0
    times = state.times_ms or (0, 0)
    running = state.running or "nobody (on hold)"
    print(
        f"clock on {args.port}: firmware {state.firmware}, mode {state.mode}, "
        f"left {format_time(times[0]).strip()}, right {format_time(times[1]).strip()}, "
        f"running {running}, presses since power-on: {presses}"
        + (f", {state.flagged} flagged" if state.flagged else "")
    )
    return 0
