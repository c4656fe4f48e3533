"""An in-memory serial cable between the host and a simulated clock, with injectable faults:
corrupted, dropped and duplicated bytes (seeded), a cable pulled and put back. Used by the demo
and by the fault-injection tests; no real time involved."""

from __future__ import annotations

import math
import random
from collections import deque

from controller.clock.timebase import TimeSource
from engine.errors import DeviceError


class _Channel:
    """One direction of the cable: bytes pass through the fault injector into a queue."""

    def __init__(
        self,
        rng: random.Random,
        rates: tuple[float, float, float],
        time: TimeSource | None,
        latency: tuple[int, int],
    ) -> None:
        self.rng = rng
        self.rates = rates
        self.total = sum(rates)
        self.time = time
        self.latency = latency
        self.queue: deque[tuple[int, bytes]] = deque()
        self._last_ready = 0
        self.faults = [0, 0, 0]
        self._gap = self._next_gap()

    def _next_gap(self) -> int:
        """Bytes until the next fault (geometric), so faults cost nothing per clean byte."""
        if self.total <= 0:
            return 1 << 62
        u = 1.0 - self.rng.random()
        return int(math.log(u) / math.log(1.0 - self.total))

    def push(self, data: bytes) -> None:
        if not data:
            return
        out = bytearray()
        pos = 0
        while pos + self._gap < len(data):
            pos += self._gap
            out += data[pos - self._gap : pos]
            byte = data[pos]
            pick = self.rng.random() * self.total
            if pick < self.rates[0]:
                out.append(byte ^ (1 << self.rng.randrange(8)))
                self.faults[0] += 1
            elif pick < self.rates[0] + self.rates[1]:
                self.faults[1] += 1
            else:
                out += bytes((byte, byte))
                self.faults[2] += 1
            pos += 1
            self._gap = self._next_gap()
        self._gap -= len(data) - pos
        out += data[pos:]
        ready = 0
        if self.time is not None:
            base, jitter = self.latency
            ready = self.time.now_ms() + base + (self.rng.randrange(jitter + 1) if jitter else 0)
            ready = max(ready, self._last_ready)  # a serial line keeps the order of bytes
            self._last_ready = ready
        self.queue.append((ready, bytes(out)))

    def pull(self) -> bytes:
        """The bytes that have arrived by now."""
        now = self.time.now_ms() if self.time is not None else 0
        chunks = []
        while self.queue and self.queue[0][0] <= now:
            chunks.append(self.queue.popleft()[1])
        return b"".join(chunks)

    def clear(self) -> None:
        self.queue.clear()


class WireEnd:
    """One end of the cable, usable wherever a ``Transport`` is."""

    def __init__(self, wire: Wire, name: str, incoming: _Channel, outgoing: _Channel) -> None:
        self._wire = wire
        self.name = name
        self._in = incoming
        self._out = outgoing
        self._open = False

    @property
    def is_open(self) -> bool:
        return self._open

    def open(self) -> None:
        if not self._wire.plugged and self._wire.usb_side is self:
            raise DeviceError(f"cannot open clock port {self.name}: no such device")
        self._open = True

    def close(self) -> None:
        self._open = False

    def _check(self) -> bool:
        if not self._open:
            raise DeviceError(f"clock port {self.name} is not open")
        if self._wire.plugged:
            return True
        if self._wire.usb_side is self:
            self._open = False
            raise DeviceError(f"clock port {self.name} lost: device disconnected")
        return False

    def read(self) -> bytes:
        if not self._check():
            self._in.clear()
            return b""
        return self._in.pull()

    def write(self, data: bytes) -> None:
        if self._check():
            self._out.push(data)

    def wait(self, timeout_s: float) -> None:
        """Nothing to wait for in memory: the caller's loop advances simulated time."""


class Wire:
    """The cable: ``host_end`` and ``clock_end``; ``unplug()`` makes the host's port vanish
    (a USB unplug) while the clock, on its own power, keeps going and hears nothing."""

    def __init__(
        self,
        seed: int = 0,
        corrupt: float = 0.0,
        drop: float = 0.0,
        duplicate: float = 0.0,
        *,
        time: TimeSource | None = None,
        latency_ms: int = 0,
        jitter_ms: int = 0,
    ) -> None:
        """Fault rates are per byte; with a ``time`` source, bytes arrive ``latency_ms`` plus
        up to ``jitter_ms`` after they were written, in order."""
        rng = random.Random(seed)
        rates = (corrupt, drop, duplicate)
        self.to_clock = _Channel(rng, rates, time, (latency_ms, jitter_ms))
        self.to_host = _Channel(rng, rates, time, (latency_ms, jitter_ms))
        self.host_end = WireEnd(self, "sim-host", self.to_host, self.to_clock)
        self.clock_end = WireEnd(self, "sim-clock", self.to_clock, self.to_host)
        # The end whose port vanishes on unplug (a USB device node); None: a data line that
        # breaks while both ports stay open (a loose UART wire).
        self.usb_side: WireEnd | None = self.host_end
        self.plugged = True

    def unplug(self) -> None:
        """Pull the cable: bytes in flight are lost."""
        self.plugged = False
        self.to_clock.clear()
        self.to_host.clear()

    def plug(self) -> None:
        """Put the cable back."""
        self.plugged = True

    def faults(self) -> dict[str, int]:
        """How many bytes were corrupted, dropped and duplicated, both directions together."""
        both = [a + b for a, b in zip(self.to_clock.faults, self.to_host.faults, strict=True)]
        return {"corrupted": both[0], "dropped": both[1], "duplicated": both[2]}
