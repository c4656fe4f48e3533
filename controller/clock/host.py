"""The match clock as the host sees it: the link over any transport, with handshake,
reconnection after a pulled cable, and both times re-read from the clock.

Non-blocking: the caller calls :meth:`HostClock.poll` often (every few ms in real time, every
simulated step in tests) and gets the new presses and flags back. Presses are exactly-once:
the link resends until acknowledged, and each press carries the clock's own number, so a press
resent to a new host session (a host restart) is recognised by ``(boot, number)``.
"""

from __future__ import annotations

import secrets
import time as systime
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from controller.clock import messages as m
from controller.clock.timebase import MonotonicTime, TimeSource
from controller.clock.transport import Transport
from controller.closing import ClosedOnExit
from engine.errors import DeviceError, ProtocolError
from firmware.link import Link
from firmware.protocol import Frame

HELLO_MS = 250  # hello again this often until the clock answers
REOPEN_MS = 500  # try to reopen a lost port this often
OFFSET_SAMPLES = 8
SESSION_MAX = 2**31 - 1  # a restarted host draws a new session; a repeat is improbable


@dataclass(frozen=True)
class ClockState:
    """What ``hakem clock status`` prints, plus the clock's state word and a flag if any."""

    connected: bool
    mode: str | None
    times_ms: tuple[int, int] | None
    running: m.Side | None
    firmware: str | None
    state: str | None
    flagged: m.Side | None

    def as_json(self) -> dict[str, object]:
        """The contract's JSON fields, in order."""
        return {
            "connected": self.connected,
            "mode": self.mode,
            "times_ms": list(self.times_ms) if self.times_ms is not None else None,
            "running": self.running,
            "firmware": self.firmware,
        }


class HostClock(ClosedOnExit):
    """The host's end of the clock link; usable as a context manager."""

    def __init__(
        self,
        transport: Transport,
        time: TimeSource | None = None,
        *,
        session: int | None = None,
        last_press: tuple[int, int] | None = None,
    ) -> None:
        """``last_press`` is ``(boot, number)`` of the last press already acted on (from the
        journal after a restart): presses up to it are not reported again."""
        self.transport = transport
        self.time: TimeSource = time if time is not None else MonotonicTime()
        now = self.time.now_ms()
        self._link = Link(now)
        self._link.paused = True
        self.session = session if session is not None else secrets.randbelow(SESSION_MAX) + 1
        self.hello: m.Hello | None = None
        self.status: m.Status | None = None
        self.errors: list[m.ErrorReport] = []
        self.last_press = last_press
        self.reconnects = 0
        # why the port could not be opened or was lost last (None once it is open and heard)
        self.last_error: str | None = None
        self._snapshot: m.Status | None = None
        self._offsets: deque[int] = deque(maxlen=OFFSET_SAMPLES)
        self._events: list[m.ClockEvent] = []
        self._flags_seen: set[tuple[int, int]] = set()
        self._handshaken = False
        self._last_hello_ms = -(1 << 62)
        self._next_open_ms = now
        self._closed = False

    # the loop ------------------------------------------------------------------------------
    def poll(self) -> list[m.ClockEvent]:
        """Move bytes, resend, heartbeat, reconnect; return the presses and flags since last."""
        if self._closed:
            raise DeviceError(f"clock on {self.transport.name} is closed")
        now = self.time.now_ms()
        if not self.transport.is_open and now >= self._next_open_ms:
            try:
                self.transport.open()
            except DeviceError as exc:
                self.last_error = str(exc)
                self._next_open_ms = now + REOPEN_MS
            else:
                self.reconnects += 1
                self._drop_handshake()
        if self.transport.is_open:
            try:
                self._receive(self.transport.read(), now)
                self._drive(now)
                self.transport.write(self._link.take_output())
            except DeviceError as exc:
                self.last_error = str(exc)
                self._drop_handshake()
                self._link.take_output()
                self._next_open_ms = now
        events, self._events = self._events, []
        return events

    def _drop_handshake(self) -> None:
        self._handshaken = False
        self._link.paused = True
        self._last_hello_ms = -(1 << 62)

    def _drive(self, now: int) -> None:
        if self._handshaken and not self._link.connected(now):
            self._drop_handshake()  # silent line: hello again until the clock answers
        if not self._handshaken and now - self._last_hello_ms >= HELLO_MS:
            self._link.send_hello("HELO", [str(self.session)], now)
            self._last_hello_ms = now
        self._link.poll(now)

    def _receive(self, data: bytes, now: int) -> None:
        for frame in self._link.decoder.feed(data):
            if frame.kind == "HI":
                self._on_hello(frame)
            if self._link.accept(frame, now):
                try:
                    message = m.parse_message(frame)
                except ProtocolError as exc:
                    self.errors.append(m.ErrorReport(frame.seq, str(exc)))
                    continue
                self._on_message(message, now)

    def _on_hello(self, frame: Frame) -> None:
        try:
            hello = m.parse_message(frame)
        except ProtocolError:
            return
        if not isinstance(hello, m.Hello) or hello.session != self.session:
            return  # an answer to another host's hello
        if self.hello is None or hello.boot != self.hello.boot:
            self._link.reset_rx()  # a clock we have not heard since it booted
            self._offsets.clear()
            self._snapshot = None
        self.hello = hello
        self._handshaken = True
        self.last_error = None
        self._link.paused = False
        self._link.resend_soon()

    def _on_message(self, message: m.Message | None, now: int) -> None:
        if self.hello is None:
            return  # nothing is acted on before the clock has said who it is
        boot = self.hello.boot
        if isinstance(message, m.Status):
            if message.session != self.session:
                self._drop_handshake()  # the clock rebooted, or another host took it over
                return
            self.status = message
            self._offsets.append(now - message.clock_ms)
            self._take_snapshot(message)
        elif isinstance(message, m.PressEvent):
            last = self.last_press
            if last is None or last[0] != boot or message.number > last[1]:
                self.last_press = (boot, message.number)
                self._events.append(replace(message, boot=boot))
                self._take_snapshot(
                    m.Status(
                        message.clock_ms,
                        self._snapshot.mode if self._snapshot else self.hello.mode,
                        message.state,
                        message.running,
                        message.times_ms,
                        message.delay_left_ms,
                        message.number,
                        None,
                        self.session,
                    )
                )
        elif isinstance(message, m.FlagEvent):
            key = (boot, message.clock_ms)
            if key not in self._flags_seen:
                self._flags_seen.add(key)
                self._events.append(replace(message, boot=boot))
        elif isinstance(message, m.ErrorReport):
            self.errors.append(message)

    def _take_snapshot(self, status: m.Status) -> None:
        if self._snapshot is None or status.clock_ms >= self._snapshot.clock_ms:
            self._snapshot = status

    # what the clock shows -------------------------------------------------------------------
    @property
    def connected(self) -> bool:
        """True while the port is open, the clock has answered and is heard (heartbeat)."""
        return (
            self.transport.is_open and self._handshaken and self._link.connected(self.time.now_ms())
        )

    def clock_now_ms(self) -> int | None:
        """The clock's own time now, from the offsets seen in its status messages."""
        if not self._offsets:
            return None
        return self.time.now_ms() - min(self._offsets)

    def times_ms(self) -> tuple[int, int] | None:
        """Both times now: the clock's last report run forward by the time since (delay
        first, as the clock does); None before the clock was ever heard."""
        snap = self._snapshot
        if snap is None:
            return None
        clock_now = self.clock_now_ms()
        if snap.state != "run" or snap.running is None or clock_now is None:
            return snap.times_ms
        elapsed = max(0, clock_now - snap.clock_ms)
        elapsed -= min(elapsed, snap.delay_left_ms)
        times = list(snap.times_ms)
        i = 0 if snap.running == "left" else 1
        times[i] = max(0, times[i] - elapsed)
        return (times[0], times[1])

    def state(self) -> ClockState:
        """Connection, mode, both times, the side running and the firmware version."""
        snap = self._snapshot
        running = snap.running if snap is not None and snap.state == "run" else None
        return ClockState(
            connected=self.connected,
            mode=snap.mode if snap is not None else (self.hello.mode if self.hello else None),
            times_ms=self.times_ms(),
            running=running,
            firmware=self.hello.firmware if self.hello is not None else None,
            state=snap.state if snap is not None else None,
            flagged=self.status.flagged if self.status is not None else None,
        )

    def backlog(self) -> int:
        """Commands not yet acknowledged by the clock."""
        return self._link.backlog()

    # commands (queued; sent in order, exactly once, as soon as the clock is there) -------------
    def _send(self, command: m.Command) -> None:
        self._link.send(*command)

    def configure_delay(self, delay_ms: int, reserve_ms: int) -> None:
        """Backgammon delay then reserve (TTB-CLOCK-4); the clock goes on hold."""
        self._send(m.configure_delay(delay_ms, reserve_ms))

    def configure_countdown(self, total_ms: int) -> None:
        """Mangala: a countdown per player per set (MG-CLOCK-1); on hold."""
        self._send(m.configure_countdown(total_ms))

    def set_times(self, left_ms: int, right_ms: int) -> None:
        """Both reserves (restoring them after a restart, a director's ruling)."""
        self._send(m.set_times(left_ms, right_ms))

    def start(self, side: m.Side) -> None:
        """Start ``side``'s time with a fresh turn (BG-OPEN-3, TTB-4.5)."""
        self._send(m.start(side))

    def hold(self) -> None:
        """Hold both times (TTB-CLOCK-4 between games, TTB-4.5 during a correction)."""
        self._send(m.HOLD)

    def resume(self) -> None:
        """Continue the held turn."""
        self._send(m.RESUME)

    def reset(self) -> None:
        """Both times back to the configured start, on hold (a new set, MG-CLOCK-1)."""
        self._send(m.RESET)

    def beep(self, on_ms: int, off_ms: int = 0, count: int = 1) -> None:
        """Sound the clock's buzzer."""
        self._send(m.beep(on_ms, off_ms, count))

    def show(self, text: str, duration_ms: int) -> None:
        """Show up to 8 characters across both displays for ``duration_ms``."""
        self._send(m.show(text, duration_ms))

    # lifetime --------------------------------------------------------------------------------
    def close(self) -> None:
        """Close the port; safe to call twice."""
        self._closed = True
        self.transport.close()



def wait_for(
    clock: HostClock,
    done: Callable[[], bool],
    timeout_s: float,
    events: list[m.ClockEvent] | None = None,
) -> bool:
    """Poll ``clock`` in real time until ``done()`` or ``timeout_s``; True if done. The
    events polled meanwhile are appended to ``events`` (dropped if it is None)."""
    timer = MonotonicTime()
    deadline = timer.now_ms() + int(timeout_s * 1000)
    while True:
        got = clock.poll()
        if events is not None:
            events.extend(got)
        if done():
            return True
        if timer.now_ms() >= deadline:
            return False
        if clock.transport.is_open:
            clock.transport.wait(0.005)
        else:
            systime.sleep(0.005)
