"""judge(): every kind of mistake people make at a board, each with its RULES.md ID."""

from __future__ import annotations

import random

import pytest

from engine.backgammon.judge import Verdict, judge, judge_steps
from engine.backgammon.moves import legal_plays
from engine.backgammon.notation import parse_move
from engine.backgammon.position import Position
from tests.engine.backgammon.random_games import random_pairs

START = Position.initial()


def pos(mine: dict[int, int], theirs: dict[int, int]) -> Position:
    return Position.from_checkers(mine, theirs)


def after(position: Position, text: str) -> Position:
    return position.apply_steps(parse_move(text))


def edit(position: Position, changes: dict[int, int]) -> Position:
    """The board with raw entries changed (index: new value), for impossible edits."""
    board = list(position.board)
    for index, value in changes.items():
        board[index] = value
    return Position(tuple(board))


def names_closest(verdict: Verdict) -> bool:
    """The sentence ends by naming the closest legal play, which the verdict also carries."""
    return verdict.closest is not None and (verdict.reason or "").endswith(
        f"Did you mean {verdict.closest.move}?"
    )


def test_legal_move_returns_the_play() -> None:
    verdict = judge(START, after(START, "8/5 6/5"), (3, 1))
    assert verdict.legal and verdict.rule is None and verdict.reason is None
    assert verdict.play is not None and verdict.play.move == "8/5 6/5"


def test_dice_order_does_not_matter() -> None:
    assert judge(START, after(START, "8/5 6/5"), (1, 3)).legal


def test_wrong_distance_names_the_closest_play() -> None:
    verdict = judge(START, after(START, "8/4"), (3, 2))
    assert not verdict.legal and verdict.rule == "BG-MOVE-2"
    assert names_closest(verdict)
    assert "from 8 moved 4 pips" in (verdict.reason or "")
    assert verdict.closest is not None
    assert "Did you mean" in (verdict.reason or "")
    assert verdict.closest.move in (verdict.reason or "")


def test_backwards_move() -> None:
    verdict = judge(START, after(START, "8/5 6/9"), (3, 1))
    assert not verdict.legal and verdict.rule == "BG-MOVE-1"
    assert names_closest(verdict)
    assert "backwards" in (verdict.reason or "")
    steps = judge_steps(START, [(8, 5), (6, 7)], (3, 1))
    assert not steps.legal and steps.rule == "BG-MOVE-1"


def test_landing_on_a_closed_point_as_steps() -> None:
    # 13/12 with 51: White holds our 12 with five checkers.
    verdict = judge_steps(START, [(13, 12), (13, 8)], (5, 1))
    assert not verdict.legal and verdict.rule == "BG-MOVE-3"
    assert names_closest(verdict)
    assert "Point 12 is closed" in (verdict.reason or "")
    assert verdict.closest is not None


def test_landing_on_a_closed_point_knocking_checkers_to_the_bar() -> None:
    # 6/1 with 5: our 1 is White's 24 point (two checkers); both "sent to the bar".
    wrong = edit(START, {6: 4, 1: 1, 0: -2})
    verdict = judge(START, wrong, (5, 1))
    assert not verdict.legal and verdict.rule == "BG-MOVE-3"
    assert "Point 1 is closed" in (verdict.reason or "")


def test_jumping_over_closed_points_with_a_double() -> None:
    # 22: the checker on 24 would stop on 22 and 20, White holds 22.
    start = pos({24: 1, 13: 14}, {3: 2, 6: 5, 11: 8})
    verdict = judge(start, after(start, "24/18"), (2, 2))
    assert not verdict.legal and verdict.rule == "BG-MOVE-2"
    assert names_closest(verdict)
    assert "22" in (verdict.reason or "")


def test_moving_while_on_the_bar() -> None:
    start = pos({25: 1, 13: 5, 8: 3, 6: 6}, {6: 5, 8: 3, 13: 5, 24: 2})
    verdict = judge(start, after(start, "13/7 13/10"), (6, 3))
    assert not verdict.legal and verdict.rule == "BG-BAR-2"
    assert names_closest(verdict)
    assert "bar" in (verdict.reason or "")
    assert verdict.closest is not None and verdict.closest.steps[0][0] == 25


def test_bearing_off_with_a_checker_outside() -> None:
    start = pos({9: 1, 6: 4, 5: 5, 4: 5}, {6: 15})
    verdict = judge(start, after(start, "6/off 4/off"), (6, 4))
    assert not verdict.legal and verdict.rule == "BG-OFF-1"
    assert names_closest(verdict)
    assert "9" in (verdict.reason or "")


def test_only_one_die_played_when_both_could() -> None:
    verdict = judge(START, after(START, "13/7"), (6, 4))
    assert not verdict.legal and verdict.rule == "BG-MOVE-6"
    assert names_closest(verdict)
    assert "both dice" in (verdict.reason or "")
    assert verdict.closest is not None and len(verdict.closest.steps) == 2


def test_three_of_four_with_a_double() -> None:
    verdict = judge(START, after(START, "13/11 13/11 6/4"), (2, 2))
    assert not verdict.legal and verdict.rule == "BG-MOVE-6"
    assert names_closest(verdict)
    assert "all four 2s" in (verdict.reason or "")


def test_smaller_die_when_the_higher_was_required() -> None:
    start = pos({9: 1, 7: 1, 6: 13}, {24: 2, 23: 2, 6: 11})
    verdict = judge(start, after(start, "9/4"), (5, 6))
    assert not verdict.legal and verdict.rule == "BG-MOVE-6"
    assert names_closest(verdict)
    assert "higher one (6)" in (verdict.reason or "")


def test_hit_checker_not_put_on_the_bar() -> None:
    start = pos({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 4, 20: 1})
    hit = after(start, "13/5*")
    vanished = edit(hit, {0: 0})
    verdict = judge(start, vanished, (6, 2))
    assert not verdict.legal and verdict.rule == "BG-BAR-1"
    assert names_closest(verdict)
    assert "on 5" in (verdict.reason or "") and "bar" in (verdict.reason or "")
    assert verdict.closest is not None and verdict.closest.result == hit


def test_opponent_checker_moved() -> None:
    legal = after(START, "8/5 6/5")
    bumped = edit(legal, {12: -4, 11: -1})
    verdict = judge(START, bumped, (3, 1))
    assert not verdict.legal and verdict.rule == "BG-MOVE-1"
    assert names_closest(verdict)
    assert "opponent" in (verdict.reason or "")
    assert verdict.closest is not None and verdict.closest.result == legal


def test_checker_added() -> None:
    start = pos({24: 1, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    added = edit(after(start, "8/5 6/5"), {24: 2})
    verdict = judge(start, added, (3, 1))
    assert not verdict.legal and verdict.rule == "BG-EQ-1"
    assert names_closest(verdict)
    assert "added" in (verdict.reason or "")


def test_checker_lost() -> None:
    lost = edit(after(START, "8/5 6/5"), {13: 4})
    verdict = judge(START, lost, (3, 1))
    assert not verdict.legal and verdict.rule == "BG-EQ-1"
    assert names_closest(verdict)
    assert "missing from 13" in (verdict.reason or "")


def test_no_move_made_when_one_was_possible() -> None:
    verdict = judge(START, START, (3, 1))
    assert not verdict.legal and verdict.rule == "BG-MOVE-6"
    assert "No checker was moved" in (verdict.reason or "")
    assert verdict.closest is not None and verdict.closest.move in (verdict.reason or "")


def test_bear_off_from_a_lower_point_with_a_higher_die() -> None:
    start = pos({6: 2, 2: 1}, {6: 15})
    verdict = judge(start, after(start, "2/off 6/2"), (5, 4))
    assert not verdict.legal and verdict.rule == "BG-OFF-2"
    assert names_closest(verdict)


def test_to_json_fields() -> None:
    verdict = judge(START, after(START, "13/7"), (6, 4))
    obj = verdict.to_json()
    assert obj["legal"] is False and obj["rule"] == "BG-MOVE-6"
    assert isinstance(obj["reason"], str) and obj["closest"]


def test_every_legal_result_is_judged_legal_and_perturbations_are_not() -> None:
    rng = random.Random(7)
    flagged = 0
    for position, dice in random_pairs(1500, seed=99):
        plays = legal_plays(position, dice)
        results = {p.result.board for p in plays}
        for play in plays[:3]:
            verdict = judge(position, play.result, dice)
            assert verdict.legal and verdict.play is not None
            assert verdict.play.result == play.result
        if not plays:
            continue
        # Move one of our checkers one point further or back: usually illegal.
        board = list(rng.choice(plays).result.board)
        ours = [p for p in range(2, 25) if board[p] > 0 and board[p - 1] >= 0]
        if not ours:
            continue
        p = rng.choice(ours)
        board[p] -= 1
        board[p - 1] += 1
        wrong = Position(tuple(board))
        if wrong.board in results:
            continue
        verdict = judge(position, wrong, dice)
        assert not verdict.legal
        assert verdict.rule is not None and verdict.rule.startswith(("BG-MOVE", "BG-BAR", "BG-OFF"))
        assert (
            verdict.reason and verdict.reason[0].isupper() and verdict.reason.endswith((".", "?"))
        )
        flagged += 1
    assert flagged > 500


@pytest.mark.parametrize("dice", [(0, 1), (7, 2), (3,)])
def test_bad_dice_raise(dice: tuple[int, ...]) -> None:
    from engine.errors import DiceError

    with pytest.raises(DiceError):
        judge(START, START, dice)  # type: ignore[arg-type]


KNOWN_RULES = {
    "BG-MOVE-1",
    "BG-MOVE-2",
    "BG-MOVE-3",
    "BG-MOVE-6",
    "BG-MOVE-7",
    "BG-BAR-1",
    "BG-BAR-2",
    "BG-BAR-3",
    "BG-BAR-4",
    "BG-OFF-1",
    "BG-OFF-2",
    "BG-EQ-1",
}


def test_any_after_position_gets_a_verdict_never_a_crash() -> None:
    # Random edits of a legal result (either side's checkers, bars, borne-off): whatever the
    # camera might report, judge answers with a known rule and a sentence.
    rng = random.Random(2026)
    for position, dice in random_pairs(1200, seed=123):
        plays = legal_plays(position, dice)
        board = list(rng.choice(plays).result.board if plays else position.board)
        for _ in range(rng.randint(1, 3)):
            i = rng.randint(0, 25)
            board[i] += rng.choice((-1, 1))
        if board[25] < 0 or board[0] > 0:
            continue
        if sum(c for c in board if c > 0) > 15 or -sum(c for c in board if c < 0) > 15:
            continue
        after_position = Position(tuple(board))
        verdict = judge(position, after_position, dice)
        if verdict.legal:
            assert verdict.play is None or verdict.play.result == after_position
            continue
        assert verdict.rule in KNOWN_RULES
        assert verdict.reason and len(verdict.reason) > 20


def test_a_blot_hit_by_a_checker_that_moved_on_and_taken_away_is_bar_1() -> None:
    """13/10*/9 with 31, the hit checker taken off the board rather than put on the bar:
    cited as "only your own checkers move" (BG-MOVE-1, QA); a hit not put on the bar has not
    happened (BG-BAR-1)."""
    before = Position.from_checkers({13: 1}, {15: 1})
    verdict = judge(before, Position.from_checkers({9: 1}, {}), (3, 1))
    assert not verdict.legal and verdict.rule == "BG-BAR-1"
    assert "hit checker on 10" in verdict.reason and "13/10*/9" in verdict.reason
    # a checker of the opponent's taken from a point it held with two stays BG-MOVE-1
    before = Position.from_checkers({13: 1}, {15: 2})
    verdict = judge(before, Position.from_checkers({9: 1}, {15: 1}), (3, 1))
    assert verdict.rule == "BG-MOVE-1"
    # ... and so does a blot no checker could reach with these dice (review: it was called
    # a hit, and the players told to put it on the bar)
    before = Position.from_checkers({13: 2, 8: 1, 6: 1}, {20: 1})  # a blot on the 5 point
    after = Position.from_checkers({8: 2, 7: 1, 6: 1}, {})
    verdict = judge(before, after, (6, 5))
    assert verdict.rule == "BG-MOVE-1" and "removed from 5" in verdict.reason
