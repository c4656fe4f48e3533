"""The shared table pipeline (``controller.runtime.pipeline``) that both games run on: when a
still scene is read and re-read, a reading reused for the very same picture and restamped,
clock presses and flags as referee events (press numbers kept, for either game), the JPEG of
the frame in view for a flag's snapshot, and the observer a recording hangs on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from controller.clock.messages import FlagEvent, PressEvent
from controller.clock.sim import LoopbackClock
from controller.clock.timebase import FakeTime
from controller.mangala.pipeline import MangalaPipeline
from controller.mangala.view import MangalaFrameSeen
from controller.records.journal import Journal
from controller.referee.api import (
    ClockHoldPressed,
    ClockPressed,
    Command,
    FlagFell,
    MotionSeen,
    TakeSnapshot,
)
from controller.runtime.effects import Executor, LiveLog
from controller.runtime.loop import Pipeline
from controller.runtime.pipeline import TablePipeline
from vision.config import StillnessConfig
from vision.stillness import StillnessGate

STEP_MS = 250


@dataclass(frozen=True)
class Seen:
    """A game's still-frame event, as a test game defines it."""

    t_ms: int
    view: object


class Reader:
    """Counts how often it is asked; its reading names the call."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def read(self, image: np.ndarray, t_ms: int) -> Seen:
        self.calls.append(t_ms)
        return Seen(t_ms, ("reading", len(self.calls)))


class Referee:
    """Keeps every event; answers a press with a snapshot, as a flag would."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.stage = "roll"

    def handle(self, event: Any) -> list[Command]:
        self.events.append(event)
        if isinstance(event, ClockPressed):
            return [TakeSnapshot("flag.jpg")]
        return []

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


class Bench:
    """A journal, the simulated clock (the firmware core) and the executor on fake time."""

    def __init__(self, folder: Path) -> None:
        self.time = FakeTime(0)
        self.journal = Journal(folder / "journal.jsonl")
        self.clock = LoopbackClock(self.time)
        self.executor = Executor(self.journal, self.clock, None, folder / "snapshots",
                                 LiveLog(keep=100), frame_jpeg=lambda: None)

    def close(self) -> None:
        self.clock.close()
        self.journal.close()

    def connect(self, pipeline: Any) -> None:
        for _ in range(400):
            self.time.advance(5)
            for event in self.clock.poll():
                pipeline.on_clock(event)
            if self.clock.host.connected:
                return
        raise AssertionError("the simulated clock did not answer")


@pytest.fixture
def bench(tmp_path: Path) -> Any:
    b = Bench(tmp_path)
    yield b
    b.close()


def picture(seed: int) -> np.ndarray:
    """A textured picture; another seed is another scene (the gate sees motion)."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)


def make(bench: Bench, reader: Reader | None = None, referee: Referee | None = None,
         **kw: Any) -> tuple[TablePipeline[Seen, Any], Reader, Referee]:
    reader = reader if reader is not None else Reader()
    referee = referee if referee is not None else Referee()
    pipeline: TablePipeline[Seen, Any] = TablePipeline(
        referee, reader, bench.executor, bench.time,
        gate=StillnessGate(StillnessConfig()), **kw)
    return pipeline, reader, referee


def show(bench: Bench, pipeline: Any, image: np.ndarray, frames: int,
         key: str | None = None) -> None:
    for _ in range(frames):
        bench.time.advance(STEP_MS)
        pipeline.on_frame(image, key=key)


def test_a_still_scene_is_read_when_still_then_every_reread_ms(bench: Bench) -> None:
    pipeline, reader, referee = make(bench, reread_ms=1000)
    show(bench, pipeline, picture(1), 12)
    # the gate passes the 4th frame (3 still comparisons); then one reading a second
    assert reader.calls == [1000, 2000, 3000]
    seen = referee.of(Seen)
    assert [s.t_ms for s in seen] == [1000, 2000, 3000]
    motion_before = len(referee.of(MotionSeen))
    assert motion_before >= 1
    show(bench, pipeline, picture(2), 1)  # a hand: one motion event, and no reading
    assert len(referee.of(MotionSeen)) == motion_before + 1
    show(bench, pipeline, picture(2), 4)  # still again: read as soon as the gate passes
    assert reader.calls == [1000, 2000, 3000, 4000]  # (3 still comparisons after 3250)
    assert pipeline.timings.frames == 17
    assert pipeline.timings.reads == len(reader.calls) == 4


def test_the_same_picture_is_read_once_and_each_reading_restamped(bench: Bench) -> None:
    pipeline, reader, referee = make(bench, reread_ms=1000)
    image = picture(3)
    show(bench, pipeline, image, 12, key="board-1")
    assert reader.calls == [1000]
    seen = referee.of(Seen)
    assert [s.t_ms for s in seen] == [1000, 2000, 3000]
    assert {s.view for s in seen} == {("reading", 1)}
    assert pipeline.timings.reads == 3 and pipeline.timings.reused == 2
    assert pipeline.timings.computed == 1
    # another picture's name (the same pixels, so the gate stays still): read at once
    show(bench, pipeline, image, 1, key="board-2")
    assert reader.calls == [1000, 3250]
    # no name (a live camera): read every reread_ms, never reused
    show(bench, pipeline, image, 8)
    assert reader.calls == [1000, 3250, 4250, 5250]


def test_a_reading_is_reused_only_for_the_same_dice_wish(bench: Bench) -> None:
    """Backgammon's pipeline reads dice only while a throw may be due (the referee's stage);
    a reading without dice does not stand in for one that wants them."""

    class DiceReader:
        def __init__(self) -> None:
            self.calls: list[bool] = []

        def read(self, image: np.ndarray, t_ms: int, *, with_dice: bool = True) -> Seen:
            self.calls.append(with_dice)
            return Seen(t_ms, with_dice)

    reader, referee = DiceReader(), Referee()
    pipeline = Pipeline(referee, reader, bench.executor, bench.time,  # type: ignore[arg-type]
                        gate=StillnessGate(StillnessConfig()))
    image = picture(4)
    referee.stage = "move"
    show(bench, pipeline, image, 8, key="k")
    assert reader.calls == [False]
    referee.stage = "roll"  # a throw is due: the same picture is read again, with its dice
    show(bench, pipeline, image, 4, key="k")
    assert reader.calls == [False, True]
    assert [s.view for s in referee.of(Seen)][-1] is True


def test_presses_and_flags_reach_either_games_referee_with_their_numbers(
        bench: Bench) -> None:
    referee = Referee()
    pipeline = MangalaPipeline(referee, Reader(), bench.executor,  # type: ignore[arg-type]
                               bench.time)
    bench.connect(pipeline)
    bench.clock.press("left")
    bench.clock.press("hold")
    sent: list[PressEvent] = []
    for _ in range(200):
        bench.time.advance(5)
        for event in bench.clock.poll():
            if isinstance(event, PressEvent):
                sent.append(event)
            pipeline.on_clock(event)
    presses = referee.of(ClockPressed) + referee.of(ClockHoldPressed)
    assert len(sent) == 2 and len(presses) == 2
    by_number = {p.press[1]: p for p in presses}
    for event in sent:
        got = by_number[event.number]
        assert got.press == (event.boot, event.number)
        assert got.times_ms == tuple(event.times_ms)
    assert isinstance(by_number[sent[0].number], ClockPressed)
    assert by_number[sent[0].number].side == "left"
    assert isinstance(by_number[sent[1].number], ClockHoldPressed)
    assert len(pipeline.timings.press_ms) == 2
    pipeline.on_clock(FlagEvent(side="right", clock_ms=5))
    flags = referee.of(FlagFell)
    assert len(flags) == 1 and flags[0].side == "right"
    assert flags[0].t_ms == bench.time.now_ms()


def test_a_flags_snapshot_is_the_frame_in_view(bench: Bench, tmp_path: Path) -> None:
    pipeline, _, _ = make(bench)
    image = picture(5)
    show(bench, pipeline, image, 2)
    jpeg = pipeline.current_jpeg()
    assert jpeg is not None
    decoded = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert decoded is not None and decoded.shape == image.shape
    # the executor's snapshot of a flag is that frame (the referee answers a press with one)
    bench.connect(pipeline)
    bench.clock.press("right")
    for _ in range(200):
        bench.time.advance(5)
        for event in bench.clock.poll():
            pipeline.on_clock(event)
    assert (tmp_path / "snapshots" / "flag.jpg").read_bytes() == jpeg
    # a frame that came as JPEG (the demo's, a recording's) is kept as it came
    bench.time.advance(STEP_MS)
    pipeline.on_frame(image, jpeg=b"as-it-came")
    assert pipeline.current_jpeg() == b"as-it-came"


def test_the_observer_sees_frames_clock_and_events_but_not_motion(bench: Bench) -> None:
    seen: list[tuple[str, int, object]] = []
    pipeline, _, _ = make(bench, observer=lambda kind, t, payload: seen.append((kind, t,
                                                                                payload)))
    show(bench, pipeline, picture(6), 4, key="p")
    kinds = [k for k, _, _ in seen]
    assert kinds.count("frame") == 4
    assert next(p for k, _, p in seen if k == "frame") == ("p", None)
    events = [p for k, _, p in seen if k == "event"]
    assert len(events) == 1 and isinstance(events[0], Seen)
    pipeline.on_clock(FlagEvent(side="left", clock_ms=0))
    assert seen[-2][0] == "clock" and isinstance(seen[-1][2], FlagFell)


def test_the_mangala_pipeline_is_the_shared_one(bench: Bench) -> None:
    """No second copy: Mangala's pipeline only names its reader's event and its defaults."""
    assert issubclass(MangalaPipeline, TablePipeline)
    assert issubclass(Pipeline, TablePipeline)
    own = {name for name in vars(MangalaPipeline) if not name.startswith("__")}
    assert own == set(), own
    assert MangalaFrameSeen.__dataclass_fields__.keys() >= {"t_ms"}
