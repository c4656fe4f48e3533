"""Engine-in-the-loop recognition (DESIGN.md): the best legal result when it clearly explains
the frames, "illegal" only when none fits and the reading is sure, otherwise wait."""

from __future__ import annotations

import random

from controller.referee.config import RecognitionSettings
from controller.referee.recognition import (
    StillViews,
    hypothesis,
    position_of_counts,
    recognise,
)
from controller.table_layout import DEFAULT_LAYOUT, TableLayout
from engine.backgammon.moves import legal_plays
from engine.backgammon.position import Position
from tests.controller.referee.tablesim import NoisyView

SETTINGS = RecognitionSettings()
BEFORE = Position.initial()
DICE = (3, 1)


def view_of(position: Position, player: int, *, seed: int = 0, **kw: object) -> NoisyView:
    slots, bar = hypothesis(DEFAULT_LAYOUT, position.board, player)
    return NoisyView(slots, bar, random.Random(seed), **kw)  # type: ignore[arg-type]


def test_counts_and_positions_round_trip_for_both_players_and_layouts() -> None:
    position = Position.initial().apply_steps([(24, 21), (13, 11)])
    for layout in (
        DEFAULT_LAYOUT,
        TableLayout(first_at_bottom=False, home_on_right=False, first_colour="lighter"),
    ):
        for player in (0, 1):
            slots, bar = hypothesis(layout, position.board, player)
            assert position_of_counts(layout, slots, bar, player) == position


def test_impossible_counts_are_no_position() -> None:
    slots, bar = hypothesis(DEFAULT_LAYOUT, BEFORE.board, 0)
    both = ((1, 1), *slots[1:])
    assert position_of_counts(DEFAULT_LAYOUT, both, bar, 0) is None
    too_many = ((16, 0), *slots[1:])
    assert position_of_counts(DEFAULT_LAYOUT, too_many, bar, 0) is None


def test_every_legal_play_is_recognised_for_either_player() -> None:
    for player in (0, 1):
        for play in legal_plays(BEFORE, DICE):
            found = recognise(
                view_of(play.result, player, misread=0.0), BEFORE, DICE, player,
                DEFAULT_LAYOUT, SETTINGS,
            )
            assert found.verdict == "legal" and found.result == play.result
            assert found.move == play.move


def test_an_illegal_result_is_judged_with_the_rule() -> None:
    wrong = BEFORE.apply_steps([(13, 8)])  # 31 played as a single 5
    found = recognise(view_of(wrong, 0, misread=0.0), BEFORE, DICE, 0, DEFAULT_LAYOUT, SETTINGS)
    assert found.verdict == "illegal" and found.result == wrong
    assert found.rule.startswith("BG-") and found.reason


def test_an_unsure_reading_or_a_hidden_board_waits() -> None:
    wrong = BEFORE.apply_steps([(13, 8)])
    unsure = RecognitionSettings(confident=0.99)
    found = recognise(view_of(wrong, 0, misread=0.0), BEFORE, DICE, 0, DEFAULT_LAYOUT, unsure)
    assert found.verdict == "unreadable"
    right = legal_plays(BEFORE, DICE)[0].result
    hidden = view_of(right, 0, misread=0.0, occlude=True)
    found = recognise(hidden, BEFORE, DICE, 0, DEFAULT_LAYOUT, SETTINGS)
    assert found.verdict == "unreadable"


def test_several_frames_outvote_a_misread_that_mimics_a_legal_move() -> None:
    """The illegal move differs from a legal one in one slot only; one frame misreads that slot
    as the legal count. Alone it fits the legal move; with two clean frames it does not."""
    legal = BEFORE.apply_steps([(8, 5), (6, 5)])
    board = list(legal.board)
    board[13] -= 1  # a checker taken off the board (BG-EQ-1): one slot differs
    wrong = Position(tuple(board))
    fooled = view_of(wrong, 0, misread=0.0)
    slots, _ = hypothesis(DEFAULT_LAYOUT, legal.board, 0)
    differ = [i for i in range(24) if slots[i] != fooled.truth[i]]
    assert len(differ) == 1
    fooled.read = tuple(slots[i] if i == differ[0] else fooled.read[i] for i in range(24))
    fooled.misreads = 1
    alone = recognise(fooled, BEFORE, (3, 1), 0, DEFAULT_LAYOUT, SETTINGS)
    assert alone.verdict != "illegal"
    views = StillViews([fooled, view_of(wrong, 0, misread=0.0), view_of(wrong, 0, misread=0.0)])
    found = recognise(views, BEFORE, (3, 1), 0, DEFAULT_LAYOUT, SETTINGS)
    assert found.verdict == "illegal" and found.result == wrong
