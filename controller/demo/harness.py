"""What both demos (backgammon and Mangala) stand on: simulated time, the loopback clock running
the firmware core, LEDs on gpiozero's mock pins, the journal, the live log and the executor, all
in one output folder and closed in reverse order (closing twice is safe)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Generic, Protocol, Self, TextIO, TypeVar

from gpiozero.pins.mock import MockFactory

from controller.clock.messages import ClockEvent
from controller.clock.sim import LoopbackClock
from controller.clock.timebase import FakeTime
from controller.records.journal import Journal
from controller.runtime.effects import Executor, LiveLog
from controller.signals import SignalPins, Signals
from engine.errors import HakemError


class DemoStalled(HakemError, RuntimeError):
    """The referee did not say what the simulated players waited for."""


class ClockSink(Protocol):
    """A pipeline as the harness sees it: it takes the clock's events."""

    def on_clock(self, event: ClockEvent) -> None: ...


P = TypeVar("P", bound=ClockSink)


class SimulatedTable(Generic[P]):
    """The devices and records of a demo table; a demo adds its camera, referee and pipeline
    (of type ``P``)."""

    pipeline: P

    def __init__(self, out: Path, *, pins: SignalPins | None = None, log: TextIO | None = None,
                 progress: TextIO | None = None, keep: int = 0) -> None:
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

    def close(self) -> None:
        """Close everything; safe to call twice."""
        while self._closers:
            self._closers.pop()()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _connect(self) -> None:
        for _ in range(400):
            self.time.advance(5)
            self._deliver(self.clock.poll())
            if self.clock.host.connected:
                return
        raise DemoStalled("the simulated clock did not answer the host")

    def _deliver(self, events: list[ClockEvent]) -> None:
        for event in events:
            self.pipeline.on_clock(event)
