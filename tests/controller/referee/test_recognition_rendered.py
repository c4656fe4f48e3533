"""Engine-in-the-loop recognition on real vision output: pictures of the board rendered by the
demo camera and read by the runtime's :class:`FrameReader` (vision's own probabilities, not a
synthetic view). Whole-board confidence on these is well under 1; the referee must still flag
each illegal result (citing a BG- rule) and accept each legal one, never the other way round."""

from __future__ import annotations

import pytest

from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from controller.referee.config import RecognitionSettings
from controller.referee.recognition import StillViews, recognise
from controller.runtime.view import FrameReader
from controller.table_layout import DEFAULT_LAYOUT
from engine.backgammon.moves import legal_plays
from engine.backgammon.position import Position
from vision.config import DEFAULT_CONFIG

SETTINGS = RecognitionSettings()
START = Position.initial()
# (dice, steps) from the starting position that no legal play of the dice gives
ILLEGAL = [
    ((3, 1), [(13, 8)]),  # a single 5 for 31 (BG-MOVE-1)
    ((3, 1), [(6, 4), (8, 5)]),  # a 2 that was not thrown
    ((3, 1), [(8, 4), (6, 5)]),  # three steps for two dice
    ((6, 1), [(13, 7), (6, 4)]),  # one pip off 13/7 6/5
    ((5, 2), [(13, 8)]),  # only one die played though both can be (BG-MOVE-4)
]
# (before, dice, mover, result played) as Position IDs in the mover's view: illegal results the
# demo planted in real matches (the bundled one and match10232587) that the referee once let
# end as "cannot read" (whole-board confidence 0.44-0.54; results one pip off legal ones)
PLANTED = [
    ("YbfBASTYHvABCg", (2, 1), 1, "YbfBASTYHfABBg"),
    ("ttsFAAOueeYAAA", (2, 1), 1, "ttsFAAOtedYAAA"),
    ("btcHAIDN9hwAAA", (6, 1), 1, "btcHAICd7RMAAA"),
    ("hufgHABkr4MBJA", (4, 2), 0, "hufgHABkr4MBBQ"),
    ("ZK+DAQOG5+AcAA", (4, 4), 1, "ZK+DAQMmzzQHAA"),
    ("ttuFAAKtec4AAA", (2, 2), 1, "ttuFAAKb+ToAAA"),
    ("9z4AAGDauwIIAA", (5, 2), 1, "9z4AAGDaeyEAAA"),
    ("zObgAQyh1+ABUA", (1, 1), 1, "zObgAQxRz+ABKA"),
    ("Yc/gARLMZuEARg", (5, 2), 0, "Yc/gAUiszeAADg"),
]


@pytest.fixture(scope="module")
def camera_and_reader() -> tuple[DemoCamera, FrameReader]:
    camera = DemoCamera(seed=3)
    return camera, FrameReader(DEFAULT_CONFIG, camera.corners_flat())


def _frames(setup: tuple[DemoCamera, FrameReader], position: Position, player: int,
            count: int) -> StillViews:
    camera, reader = setup
    mover = position if player == 0 else position.swap()
    c = DEFAULT_LAYOUT.counts(mover)
    image, _ = camera.render(Shot(contents_from_counts(c.slots, c.bar, c.off)))
    frame = reader.read(image, 0, with_dice=False)
    return StillViews([frame.board] * count)


@pytest.mark.parametrize(("dice", "steps"), ILLEGAL)
def test_rendered_illegal_results_are_flagged(
    camera_and_reader: tuple[DemoCamera, FrameReader], dice: tuple[int, int],
    steps: list[tuple[int, int]],
) -> None:
    wrong = START.apply_steps(steps)
    assert wrong not in {p.result for p in legal_plays(START, dice)}
    for player in (0, 1):
        for count in (3, 8):  # as many still frames as the referee may pool
            views = _frames(camera_and_reader, wrong, player, count)
            best = views.best_counts()
            assert best is not None
            found = recognise(views, START, dice, player, DEFAULT_LAYOUT, SETTINGS)
            assert found.verdict == "illegal", (dice, steps, player, count, found.reason)
            assert found.result == wrong and found.rule.startswith("BG-")


@pytest.mark.parametrize(("before", "dice", "player", "played"), PLANTED)
def test_planted_illegal_moves_from_real_matches_are_flagged(
    camera_and_reader: tuple[DemoCamera, FrameReader], before: str, dice: tuple[int, int],
    player: int, played: str,
) -> None:
    start, wrong = Position.from_id(before), Position.from_id(played)
    legal = {p.result for p in legal_plays(start, dice)}
    assert wrong not in legal
    for count in (3, 8):
        views = _frames(camera_and_reader, wrong, player, count)
        found = recognise(views, start, dice, player, DEFAULT_LAYOUT, SETTINGS)
        assert found.verdict == "illegal", (count, found.reason)
        assert found.result == wrong and found.rule.startswith("BG-")
    # and each legal play from there is accepted, never flagged
    for play in legal_plays(start, dice)[:6]:
        views = _frames(camera_and_reader, play.result, player, 3)
        found = recognise(views, start, dice, player, DEFAULT_LAYOUT, SETTINGS)
        assert found.verdict == "legal" and found.result == play.result, play.move


@pytest.mark.parametrize("dice", [(3, 1), (6, 1), (5, 2)])
def test_rendered_legal_results_are_accepted(
    camera_and_reader: tuple[DemoCamera, FrameReader], dice: tuple[int, int]
) -> None:
    plays = legal_plays(START, dice)
    for play in plays[:: max(1, len(plays) // 4)]:
        for count in (3, 8):
            views = _frames(camera_and_reader, play.result, 0, count)
            found = recognise(views, START, dice, 0, DEFAULT_LAYOUT, SETTINGS)
            assert found.verdict == "legal" and found.result == play.result, (play.move, count)
