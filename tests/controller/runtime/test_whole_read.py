"""Backgammon's pipeline reads a still scene's dice whole once, thoroughly (the whole frame's pip
spots as candidates too), when the referee sees a throw it cannot judge yet
(``Referee.throw_unsure``): the dice memory (``vision.dice.reuse``) reads a frame only where it
changed, and a die it missed there would stay missed while the scene is still (the demo's
pictures repeat exactly, a live camera's nearly so). And at a move's press, where the referee
learns what lies on the board before the next throw (phantoms), the memory keeps that picture
as the board before the throw, read (only where it changed) once: a thorough read after the
throw keeps no "die" where nothing changed since (a phantom the incremental reads had never
reported made a false "throw again", BG-ROLL-2)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from controller.referee.api import FrameSeen
from controller.referee.config import RecognitionSettings
from controller.runtime.loop import Pipeline
from engine.backgammon.rules import DiceSetup
from tests.controller.runtime.test_table_pipeline import Bench, picture, show
from vision.config import StillnessConfig
from vision.dice.reuse import FLAT_DOUBT
from vision.stillness import StillnessGate


@dataclass(frozen=True)
class Seen:
    t_ms: int
    whole: bool  # read right after the memory was forgotten
    thorough: bool = False  # ... and told to read thoroughly
    before: bool = False  # its picture taken as the board before the throw


class Memory:
    """The dice memory's part the pipeline uses: forget (the next read is whole),
    read_before_throw (the next read's picture kept as the board before the throw) and
    read_thoroughly (whole, with the spot candidates too)."""

    def __init__(self) -> None:
        self.forgotten = 0
        self.thorough = 0
        self.before_throw = 0
        self.whole_next = True
        self.thorough_next = False
        self.before_next = False
        self.doubts: list[float] = []
        self.one_pair: list[bool] = []
        self.held: list[tuple[tuple[float, float], ...]] = []  # told after each still frame

    def forget(self) -> None:
        self.forgotten += 1
        self.whole_next = True

    def read_before_throw(self, one_pair: bool = False) -> None:
        self.before_throw += 1
        self.before_next = True
        self.one_pair.append(one_pair)

    def hold_pair(self, places: tuple[tuple[float, float], ...]) -> None:
        self.held.append(places)

    def read_thoroughly(self, doubt: float) -> None:
        self.doubts.append(doubt)
        self.forget()
        self.thorough += 1
        self.thorough_next = True


class Reader:
    def __init__(self) -> None:
        self.dice_memory = Memory()
        self.reads: list[Seen] = []

    def read(self, image: np.ndarray, t_ms: int, *, with_dice: bool = True) -> Seen:
        memory = self.dice_memory
        seen = Seen(t_ms, with_dice and memory.whole_next, with_dice and memory.thorough_next,
                    with_dice and memory.before_next)
        memory.whole_next = memory.thorough_next = memory.before_next = False
        self.reads.append(seen)
        return seen


class Referee:
    """A referee in the throw stage; the test says whether the throw seen is judgeable."""

    def __init__(self) -> None:
        self.stage = "decide"
        self.dice_due = True
        self.move_pressed = False
        self.throw_unsure = False
        self.events: list[Any] = []

    def handle(self, event: Any) -> list[Any]:
        self.events.append(event)
        return []


@pytest.fixture
def bench(tmp_path: Path) -> Any:
    b = Bench(tmp_path)
    yield b
    b.close()


def _pipeline(bench: Bench) -> tuple[Pipeline, Reader, Referee]:
    reader, referee = Reader(), Referee()
    pipeline = Pipeline(referee, reader, bench.executor, bench.time,  # type: ignore[arg-type]
                        gate=StillnessGate(StillnessConfig()), reread_ms=400)
    return pipeline, reader, referee


def test_an_unsure_throw_gets_one_thorough_read_per_still_scene(bench: Bench) -> None:
    pipeline, reader, referee = _pipeline(bench)
    show(bench, pipeline, picture(1), 6, key="before")
    assert reader.dice_memory.forgotten == 0 and len(reader.reads) == 1  # the same picture
    show(bench, pipeline, picture(2), 1, key="hand")  # motion: a throw
    show(bench, pipeline, picture(3), 4, key="thrown")
    assert len(reader.reads) == 2 and not reader.reads[-1].whole
    referee.throw_unsure = True  # the referee found one die of the throw in that reading
    show(bench, pipeline, picture(3), 2, key="thrown")
    # the same picture is read again (not the reading of it reused), whole and thoroughly
    assert reader.dice_memory.forgotten == 1 and reader.dice_memory.thorough == 1
    assert reader.dice_memory.before_throw == 0
    assert len(reader.reads) == 3 and reader.reads[-1].whole and reader.reads[-1].thorough
    show(bench, pipeline, picture(3), 8, key="thrown")  # still unsure: no more whole reads
    assert reader.dice_memory.forgotten == 1
    assert not any(s.whole for s in reader.reads[3:])
    before = len(reader.reads)
    show(bench, pipeline, picture(4), 1, key="hand-2")  # the scene moves, then is still
    show(bench, pipeline, picture(5), 8, key="thrown-2")
    # still unsure from the last scene: the new scene's first reading is whole, and only it
    assert reader.dice_memory.forgotten == 2 and reader.dice_memory.thorough == 2
    assert [s.whole for s in reader.reads[before:]] == [True, False]
    assert reader.dice_memory.doubts == [FLAT_DOUBT, FLAT_DOUBT]  # the default: no config


def test_the_thorough_read_doubts_a_flat_die_as_the_referee_is_configured_to(
        bench: Bench) -> None:
    # one setting for both: the referee leaves a throw unjudged from flat_doubt on, and the
    # thorough read it asks for settles a die in doubt from the same probability on
    pipeline, reader, referee = _pipeline(bench)
    referee.config = SimpleNamespace(recognition=RecognitionSettings(flat_doubt=0.35))
    show(bench, pipeline, picture(1), 6, key="before")
    show(bench, pipeline, picture(2), 1, key="hand")
    referee.throw_unsure = True
    show(bench, pipeline, picture(3), 4, key="thrown")
    assert reader.dice_memory.doubts == [0.35]
    assert RecognitionSettings().flat_doubt == FLAT_DOUBT  # the two defaults agree


def test_no_whole_read_while_the_throw_is_judgeable_or_no_dice_are_wanted(
        bench: Bench) -> None:
    pipeline, reader, referee = _pipeline(bench)
    show(bench, pipeline, picture(1), 12, key=None)  # a live camera: re-read every 400 ms
    assert len(reader.reads) > 3 and reader.dice_memory.forgotten == 0
    referee.dice_due = False  # the mover's turn: no dice read at all
    referee.throw_unsure = True
    show(bench, pipeline, picture(1), 12, key=None)
    assert reader.dice_memory.forgotten == 0


def test_the_press_scene_is_read_once_as_the_board_before_the_throw(bench: Bench) -> None:
    pipeline, reader, referee = _pipeline(bench)
    referee.stage, referee.dice_due = "move", False  # the mover moves: no dice read
    show(bench, pipeline, picture(1), 8, key="moving")
    assert reader.reads and not any(s.before for s in reader.reads)
    referee.dice_due = referee.move_pressed = True  # pressed: dice wanted until the verdict
    show(bench, pipeline, picture(1), 8, key="moving")
    # the same picture is read again (its reading without dice is not reused), as the board
    # before the throw, and only once
    assert reader.dice_memory.before_throw == 1
    assert [s.before for s in reader.reads[1:]] == [True] + [False] * (len(reader.reads) - 2)
    # only where it changed: neither forgotten nor thorough (as after a throw)
    assert reader.dice_memory.forgotten == 0 and reader.dice_memory.thorough == 0
    referee.stage, referee.move_pressed = "decide", False  # the verdict: the opponent is to
    show(bench, pipeline, picture(1), 8, key="moving")  # throw; nothing unsure yet
    assert reader.dice_memory.before_throw == 1 and reader.dice_memory.forgotten == 0


@pytest.mark.parametrize("dice", [None, DiceSetup.SHARED_PAIR, DiceSetup.PAIR_EACH])
def test_the_press_tells_the_memory_whether_the_table_plays_one_pair(
        bench: Bench, dice: DiceSetup | None) -> None:
    # BG-EQ-2: with one pair, the pair lying untouched at the press means no die lies elsewhere
    # (the memory then reads no changed part for dice); a pair each, or rules unknown: it may
    pipeline, reader, referee = _pipeline(bench)
    if dice is not None:
        referee.config = SimpleNamespace(rules=SimpleNamespace(dice=dice),
                                         recognition=RecognitionSettings())
    referee.stage, referee.dice_due, referee.move_pressed = "move", True, True
    show(bench, pipeline, picture(1), 8, key="pressed")
    assert reader.dice_memory.one_pair == [dice == DiceSetup.SHARED_PAIR]


THROWN_AT = ((120.0, 200.5), (160.2, 210.0))


class FrameReader(Reader):
    """A reader whose still frames are the referee's :class:`FrameSeen` (the board unread)."""

    def read(self, image: np.ndarray, t_ms: int, *,  # type: ignore[override]
             with_dice: bool = True) -> FrameSeen:
        super().read(image, t_ms, with_dice=with_dice)
        return FrameSeen(t_ms=t_ms, board=None)  # type: ignore[arg-type]


@pytest.mark.parametrize("dice", [None, DiceSetup.SHARED_PAIR, DiceSetup.PAIR_EACH])
def test_after_each_still_frame_the_memory_hears_where_the_judged_throw_lay(
        bench: Bench, dice: DiceSetup | None) -> None:
    # BG-EQ-2: with one pair, while the judged throw's dice lie untouched no other die lies on
    # the board (the memory reads no changed part for dice then, on any frame); with a pair
    # each the other pair may be thrown meanwhile, so the memory hears of no throw
    reader, referee = FrameReader(), Referee()
    pipeline = Pipeline(referee, reader, bench.executor, bench.time,  # type: ignore[arg-type]
                        gate=StillnessGate(StillnessConfig()), reread_ms=400)
    referee.thrown_at = THROWN_AT  # type: ignore[attr-defined]
    if dice is not None:
        referee.config = SimpleNamespace(rules=SimpleNamespace(dice=dice),
                                         recognition=RecognitionSettings())
    show(bench, pipeline, picture(1), 6, key="lying")
    show(bench, pipeline, picture(2), 1, key="hand")
    show(bench, pipeline, picture(3), 4, key="moved")
    held = reader.dice_memory.held
    frames = [e for e in referee.events if isinstance(e, FrameSeen)]
    assert len(held) == len(frames) >= 2
    assert set(held) == {THROWN_AT if dice == DiceSetup.SHARED_PAIR else ()}
