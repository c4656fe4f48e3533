"""Sets, rounds, starting order, warnings and the time-out rule (MG-4, MG-T-1/2/4, MG-CLOCK-3)."""

from __future__ import annotations

import pytest

from engine.errors import RuleViolationError
from engine.mangala.position import Position, Side
from engine.mangala.scoring import Round, SetResult, set_result, time_out
from engine.mangala.sowing import Winner


def finished(a_store: int) -> Position:
    return Position((0,) * 6, a_store, (0,) * 6, 48 - a_store, None)


def result(number: int, starter: Side, winner: Winner) -> SetResult:
    a_store = {"a": 30, "b": 18, "draw": 24}[winner]
    return set_result(finished(a_store), number, starter)


def play_round(first: Side, winners: list[Winner]) -> Round:
    rnd = Round(first)
    for number, winner in enumerate(winners, start=1):
        rnd = rnd.add_set(result(number, rnd.starter(number), winner))
    return rnd


def test_set_winner_by_stores_and_24_24_draw() -> None:
    assert set_result(finished(25), 1, "a").winner == "a"
    assert set_result(finished(23), 1, "a").winner == "b"
    drawn = set_result(finished(24), 1, "a")
    assert drawn.winner == "draw" and drawn.points("a") == drawn.points("b") == 0.5
    with pytest.raises(RuleViolationError, match="MG-4"):
        set_result(Position.initial("a"), 1, "a")


def test_time_out_counts_the_flagged_players_store() -> None:
    mid = Position((1, 0, 0, 0, 0, 0), 24, (3, 0, 0, 0, 0, 0), 20, "a")
    r = time_out(mid, "a", 1, "a")
    assert (r.winner, r.ended_by, r.timed_out) == ("draw", "MG-CLOCK-3", "a")
    # 23 stones: the set is lost, whatever the opponent has.
    mid = Position((2, 0, 0, 0, 0, 0), 23, (20, 0, 0, 0, 0, 0), 3, "a")
    assert time_out(mid, "a", 1, "a").winner == "b"
    # 30 stones is still only a draw for the player whose time ran out.
    mid = Position((0, 0, 0, 0, 0, 1), 12, (5, 0, 0, 0, 0, 0), 30, "b")
    assert time_out(mid, "b", 2, "b").winner == "draw"
    assert time_out(mid, "a", 2, "b").winner == "b"


def test_starting_order_by_set() -> None:
    rnd = Round("b")
    assert [rnd.starter(n) for n in (1, 2, 3)] == ["b", "a", "b"]
    with pytest.raises(RuleViolationError, match="MG-T-2"):
        rnd.add_set(result(1, "a", "a"))
    with pytest.raises(RuleViolationError, match="MG-T-1"):
        rnd.starter(4)


def test_two_set_wins_end_the_round_and_no_third_set() -> None:
    rnd = play_round("a", ["a", "a"])
    assert rnd.over and rnd.winner == "a" and rnd.round_points() == {"a": 1.0, "b": 0.0}
    assert rnd.current_set is None
    with pytest.raises(RuleViolationError, match="MG-T-1"):
        rnd.add_set(result(3, "a", "b"))


@pytest.mark.parametrize(
    ("winners", "round_winner", "points"),
    [
        (["b", "a", "b"], "b", {"a": 0.0, "b": 1.0}),
        (["a", "b", "draw"], "draw", {"a": 0.5, "b": 0.5}),
        (["draw", "draw", "draw"], "draw", {"a": 0.5, "b": 0.5}),
        (["a", "draw", "draw"], "a", {"a": 1.0, "b": 0.0}),  # 2 set points to 1
        (["draw", "b", "draw"], "b", {"a": 0.0, "b": 1.0}),
    ],
)
def test_three_set_rounds(
    winners: list[Winner], round_winner: str, points: dict[str, float]
) -> None:
    rnd = play_round("a", winners)
    assert rnd.over and rnd.winner == round_winner and rnd.round_points() == points


def test_round_not_over_after_a_win_and_a_draw() -> None:
    rnd = play_round("a", ["a", "draw"])
    assert not rnd.over and rnd.current_set == 3 and rnd.winner is None
    with pytest.raises(RuleViolationError):
        rnd.round_points()


def test_third_warning_in_the_round_loses_it() -> None:
    rnd = Round("a").warn("b", "touched pit 2, played pit 5").warn("a").warn("b")
    rnd = rnd.add_set(result(1, "a", "b"))
    assert not rnd.over and rnd.warning_count("b") == 2
    rnd = rnd.warn("b", "sowed to the left")  # third, in set 2: the round is lost
    assert rnd.over and rnd.lost_on_warnings == "b" and rnd.winner == "a"
    assert rnd.round_points() == {"a": 1.0, "b": 0.0}
    with pytest.raises(RuleViolationError):
        rnd.warn("a")


def test_two_warnings_each_lose_nothing() -> None:
    rnd = Round("a").warn("a").warn("b").warn("a").warn("b")
    assert not rnd.over
