"""What both demos (backgammon and Mangala) stand on: simulated time, the loopback clock running
the firmware core, LEDs on gpiozero's mock pins, the journal, the live log and the executor, all
in one output folder and closed in reverse order (closing twice is safe); and what the simulated
players do alike in both: show the camera a frame, press a clock button, read the journal's new
entries, stop after a number of entries (tests of a restart), print the progress line."""

from __future__ import annotations

import random
import time as systime
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TextIO, TypeVar

import numpy as np
from gpiozero.pins.mock import MockFactory

from controller.clock.messages import Button, ClockEvent, PressEvent
from controller.clock.sim import LoopbackClock
from controller.clock.timebase import FakeTime
from controller.closing import ClosedOnExit
from controller.records.journal import Journal
from controller.runtime.effects import Executor, LiveLog
from controller.runtime.pipeline import FrameSink
from controller.signals import SignalPins, Signals
from engine.errors import HakemError


class DemoStalled(HakemError, RuntimeError):
    """The referee did not say what the simulated players waited for."""


class StopNow(Exception):
    """Internal: the demo's ``stop_after`` journal entries are reached (a demo's ``run`` ends
    quietly on it, as a killed table would)."""


P = TypeVar("P", bound=FrameSink)


class SimulatedTable(ClosedOnExit, Generic[P]):
    """The devices and records of a demo table; a demo adds its camera, referee and pipeline
    (of type ``P``)."""

    pipeline: P

    def __init__(self, out: Path, *, pins: SignalPins | None = None, log: TextIO | None = None,
                 progress: TextIO | None = None, keep: int = 0, seed: int = 0,
                 stop_after: int | None = None) -> None:
        """``stop_after``: stop (:class:`StopNow`) once the journal holds this many entries."""
        self.out = out
        self.out.mkdir(parents=True, exist_ok=True)
        self.progress = progress
        self.time = FakeTime(0)
        self._closers: list[Callable[[], None]] = []
        self.journal = Journal(self.out / "journal.jsonl")
        self._closers.append(self.journal.close)
        self.clock = LoopbackClock(self.time, boot_id=1 + len(self.journal.entries) % 60000)
        self._closers.append(self.clock.close)
        self.signals = Signals(pins, time=self.time, pin_factory=MockFactory())
        self._closers.append(self.signals.close)
        self.log = LiveLog(stream=log, file=self.out / "live.log", keep=keep,
                           clear_line=bool(log is not None and progress is not None
                                           and log.isatty() and progress.isatty()))
        self.executor = Executor(self.journal, self.clock, self.signals, self.out / "snapshots",
                                 self.log, frame_jpeg=lambda: None)
        self.resumed = bool(self.journal.entries)
        self.seed = seed
        self.stop_after = stop_after
        self.frames = 0  # frames shown to the camera
        self._seen = len(self.journal.entries)
        self._t0 = systime.perf_counter()

    def close(self) -> None:
        """Close everything; safe to call twice."""
        while self._closers:
            self._closers.pop()()

    def _connect(self) -> None:
        for _ in range(400):
            self.time.advance(5)
            self._deliver(self.clock.poll())
            if self.clock.host.connected:
                return
        raise DemoStalled("the simulated clock did not answer the host")

    def _started(self) -> None:
        """The referee's start-up is carried out: what the journal holds now is not news."""
        self._seen = len(self.journal.entries)
        self._t0 = systime.perf_counter()

    def _deliver(self, events: list[ClockEvent]) -> None:
        for event in events:
            self.pipeline.on_clock(event)

    def _stop_check(self) -> None:
        limit = self.stop_after
        if limit is not None and len(self.journal.entries) >= limit:
            raise StopNow()

    def frame(self, image: np.ndarray, step_ms: int, *, jpeg: bytes | None = None,
              key: str | None = None) -> None:
        """One camera frame ``step_ms`` after the last; the clock's news first, then the frame,
        then the LEDs' timers."""
        self.time.advance(step_ms)
        self._deliver(self.clock.poll())
        self.pipeline.on_frame(image, jpeg=jpeg, key=key)
        self.signals.tick()
        self.frames += 1
        self._stop_check()

    def press_button(self, button: Button, who: str) -> None:
        """``who`` presses a clock button; the press reaches the pipeline over the link."""
        self.clock.press(button)
        for _ in range(200):
            self.time.advance(5)
            events = self.clock.poll()
            self._deliver(events)
            if any(isinstance(e, PressEvent) for e in events):
                self._stop_check()
                return
        raise DemoStalled(f"{who} press never reached the host")

    def new_entries(self) -> list[dict[str, Any]]:
        """Journal entries written since the last call."""
        entries = self.journal.entries
        fresh = entries[self._seen:]
        self._seen = len(entries)
        return fresh

    def _rng(self, *parts: object) -> random.Random:
        """The random source of one act, the same on every run with the same seed."""
        return random.Random("-".join(str(p) for p in (self.seed, *parts)))

    def _show_progress(self, where: str, done: int, total: int) -> None:
        """The progress line: rewritten in place on a terminal, every tenth step otherwise."""
        out = self.progress
        if out is None:
            return
        text = f"{where}  frames {self.frames}  {systime.perf_counter() - self._t0:5.1f} s"
        if out.isatty():
            out.write(f"\r\033[K{text}")
        elif done % 10 == 0 or done == total:
            out.write(text + "\n")
        out.flush()
