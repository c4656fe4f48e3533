"""A Mangala table for the referee's tests: the real referee, journal, executor and simulated
clock (the firmware core in-process) on a fake time source; frames are synthetic readings."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controller.cli import main
from controller.clock.messages import PressEvent
from controller.clock.sim import LoopbackClock
from controller.clock.timebase import FakeTime
from controller.mangala.pipeline import MangalaPipeline
from controller.mangala.reading import MangalaFrameReader
from controller.mangala.referee import MangalaConfig, MangalaEvent, start_referee
from controller.records.journal import Journal
from controller.referee.api import MotionSeen
from controller.runtime.director_inbox import DirectorInbox
from controller.runtime.effects import Executor, LiveLog
from tests.controller.mangala.synthetic import frame

CORNERS = (100.0, 100.0, 1180.0, 100.0, 1180.0, 500.0, 100.0, 500.0)


class Table:
    """One table in a test: ``show`` puts a board in view, ``press`` presses a clock button."""

    def __init__(self, folder: Path, config: MangalaConfig | None = None,
                 start_ms: int = 0) -> None:
        self.time = FakeTime(start_ms)
        self.journal = Journal(folder / "journal.jsonl")
        self.clock = LoopbackClock(self.time)
        self.log = LiveLog(keep=5000)
        self.executor = Executor(self.journal, self.clock, None, None, self.log,
                                 frame_jpeg=lambda: None)
        cfg = config if config is not None else MangalaConfig(players=("Ayşe", "Mehmet"))
        self.referee, startup = start_referee(cfg, self.journal.entries)
        self.pipeline = MangalaPipeline(self.referee, MangalaFrameReader(CORNERS),
                                        self.executor, self.time)
        for _ in range(400):
            self.time.advance(5)
            self._deliver()
            if self.clock.host.connected:
                break
        self.executor.run(startup)
        self.tick(50)

    def close(self) -> None:
        self.clock.close()
        self.journal.close()

    def _deliver(self) -> list[Any]:
        events = self.clock.poll()
        for event in events:
            self.pipeline.on_clock(event)
        return events

    def send(self, event: MangalaEvent) -> None:
        self.pipeline.handle(event)

    def tick(self, ms: int) -> None:
        """Let ``ms`` pass, the clock link running."""
        step = 50
        while ms > 0:
            self.time.advance(min(step, ms))
            ms -= step
            self._deliver()

    def show(self, board: Sequence[int], frames: int = 3, **kw: object) -> None:
        """Hands move, then ``board`` lies still for ``frames`` readings."""
        self.tick(100)
        self.send(MotionSeen(self.time.now_ms()))
        for _ in range(frames):
            self.tick(250)
            self.send(frame(self.time.now_ms(), board, **kw))

    def press(self, player: str) -> None:
        """The player presses their clock button; the press reaches the referee."""
        side = self.referee.side_of("a" if player == "a" else "b")
        self.clock.press(side)
        for _ in range(200):
            self.time.advance(5)
            if any(isinstance(e, PressEvent) for e in self._deliver()):
                return
        raise AssertionError("the press never reached the host")

    def types(self) -> list[str]:
        return [e["type"] for e in self.journal.entries]

    def last(self, kind: str) -> dict[str, Any]:
        return [e for e in self.journal.entries if e["type"] == kind][-1]

    def count(self, kind: str) -> int:
        return sum(1 for e in self.journal.entries if e["type"] == kind)


def director_command(table: Table, folder: Path, argv: list[str]) -> tuple[int, int, list[str]]:
    """``hakem director ARGV --folder FOLDER`` while the table's loop takes the requests between
    frames, as ``hakem run`` does: the command's exit code, how many requests the table took
    and the refusals it said (in its live log too)."""
    inbox = DirectorInbox(folder)
    taken: list[int] = []
    said: list[str] = []

    def say(text: str) -> None:
        said.append(text)
        table.log.say(text)

    def loop() -> None:  # until the request is answered, taken or refused
        for _ in range(400):
            taken.append(inbox.take(table.pipeline.handle, table.time.now_ms(), say))
            if sum(taken) or said:
                return
            threading.Event().wait(0.02)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    code = main(["director", *argv, "--folder", str(folder)])
    thread.join()
    return code, sum(taken), said
