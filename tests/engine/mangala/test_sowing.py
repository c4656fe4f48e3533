"""Worked positions, computed by hand, for every sowing rule and for both players (MG-1..MG-4).

Each case gives the position before, the pit, and the position after as worked out on paper
from the seed's wording: pits 1..6 from the player's left, sowing to the right (own pit 6, own
store, the opponent's pits 1..6, skipping the opponent's store), own pit i facing the opponent's
pit 7 - i.
"""

from __future__ import annotations

import pytest

from engine.errors import PositionError, RuleViolationError
from engine.mangala.position import Position, Side, opposite_pit
from engine.mangala.sowing import legal_pits, play


def pos(a: list[int], a_store: int, b: list[int], b_store: int, to_move: Side | None) -> Position:
    return Position(tuple(a), a_store, tuple(b), b_store, to_move)


def test_opposite_pit_mapping() -> None:
    assert [opposite_pit(i) for i in range(1, 7)] == [6, 5, 4, 3, 2, 1]


# --- MG-1: the first stone back into its pit, a single stone moving right, the extra turn ----


def test_mg1_first_stone_back_into_its_pit_a() -> None:
    r = play(Position.initial("a"), 1)
    assert r.position == pos([1, 5, 5, 5, 4, 4], 0, [4] * 6, 0, "b")
    assert (r.captured, r.extra_turn, r.set_over, r.winner) == (0, False, False, None)


def test_mg1_first_stone_back_into_its_pit_b() -> None:
    r = play(Position.initial("b"), 2)
    assert r.position == pos([4] * 6, 0, [4, 1, 5, 5, 5, 4], 0, "a")


def test_mg1_single_stone_moves_one_pit_right_a() -> None:
    before = pos([1, 3, 0, 3, 3, 2], 10, [3] * 6, 8, "a")
    r = play(before, 1)
    assert r.position == pos([0, 4, 0, 3, 3, 2], 10, [3] * 6, 8, "b")
    assert r.captured == 0


def test_mg1_single_stone_moves_one_pit_right_b() -> None:
    before = pos([3] * 6, 8, [3, 1, 2, 3, 3, 3], 7, "b")
    r = play(before, 2)
    assert r.position == pos([3] * 6, 8, [3, 0, 3, 3, 3, 3], 7, "a")


def test_mg1_last_stone_in_own_store_moves_again_a() -> None:
    r = play(Position.initial("a"), 4)
    assert r.position == pos([4, 4, 4, 1, 5, 5], 1, [4] * 6, 0, "a")
    assert r.extra_turn


def test_mg1_last_stone_in_own_store_moves_again_b() -> None:
    r = play(Position.initial("b"), 4)
    assert r.position == pos([4] * 6, 0, [4, 4, 4, 1, 5, 5], 1, "b")
    assert r.extra_turn


def test_mg1_single_stone_from_pit_6_goes_to_store_and_moves_again_a() -> None:
    before = pos([2, 2, 2, 2, 2, 1], 12, [2] * 6, 13, "a")
    r = play(before, 6)
    assert r.position == pos([2, 2, 2, 2, 2, 0], 13, [2] * 6, 13, "a")
    assert r.extra_turn


def test_mg1_single_stone_from_pit_6_goes_to_store_and_moves_again_b() -> None:
    before = pos([2] * 6, 13, [2, 2, 2, 2, 2, 1], 12, "b")
    r = play(before, 6)
    assert r.position == pos([2] * 6, 13, [2, 2, 2, 2, 2, 0], 13, "b")
    assert r.extra_turn


def test_mg1_empty_pit_cannot_be_played() -> None:
    before = pos([1, 3, 0, 3, 3, 2], 10, [3] * 6, 8, "a")
    assert legal_pits(before) == [1, 2, 4, 5, 6]
    with pytest.raises(RuleViolationError, match="MG-1"):
        play(before, 3)


# --- MG-2: through the opponent's pits, their store skipped, even capture ---------------------


def test_mg2_sowing_skips_opponents_store_and_comes_round_a() -> None:
    # 10 stones from a6: a6, a store, b1..b6, (b store skipped), a1, a2.
    before = pos([2, 2, 2, 2, 2, 10], 0, [1] * 6, 22, "a")
    r = play(before, 6)
    assert r.position == pos([3, 3, 2, 2, 2, 1], 1, [2] * 6, 22, "b")
    assert r.captured == 0


def test_mg2_sowing_skips_opponents_store_and_comes_round_b() -> None:
    before = pos([1] * 6, 22, [2, 2, 2, 2, 2, 10], 0, "b")
    r = play(before, 6)
    assert r.position == pos([2] * 6, 22, [3, 3, 2, 2, 2, 1], 1, "a")


def test_mg2_even_capture_on_opponents_side_a() -> None:
    # a5, a6, a store, b1: b1 goes 3 -> 4, even: captured.
    before = pos([4] * 6, 0, [3, 4, 4, 4, 4, 4], 1, "a")
    r = play(before, 5)
    assert r.position == pos([4, 4, 4, 4, 1, 5], 5, [0, 4, 4, 4, 4, 4], 1, "b")
    assert (r.captured, r.capture_rule) == (4, "MG-2")


def test_mg2_even_capture_on_opponents_side_b() -> None:
    # b6, b store, a1, a2, a3: a3 goes 5 -> 6, even: captured.
    before = pos([2, 2, 5, 2, 2, 2], 8, [4, 4, 4, 4, 4, 5], 0, "b")
    r = play(before, 6)
    assert r.position == pos([3, 3, 0, 2, 2, 2], 8, [4, 4, 4, 4, 4, 1], 7, "a")
    assert (r.captured, r.capture_rule) == (6, "MG-2")


def test_mg2_odd_count_is_not_captured() -> None:
    r = play(Position.initial("a"), 5)  # b1 4 -> 5
    assert r.position == pos([4, 4, 4, 4, 1, 5], 1, [5, 4, 4, 4, 4, 4], 0, "b")
    assert r.captured == 0
    r = play(Position.initial("b"), 6)  # b6, b store, a1, a2: a2 4 -> 5
    assert r.position == pos([5, 5, 4, 4, 4, 4], 0, [4, 4, 4, 4, 4, 1], 1, "a")
    assert r.captured == 0


def test_mg2_even_on_own_side_is_not_captured() -> None:
    # a1, a2, a3: a3 goes 1 -> 2 on a's own side: nothing happens.
    before = pos([3, 1, 1, 4, 4, 4], 7, [4] * 6, 0, "a")
    r = play(before, 1)
    assert r.position == pos([1, 2, 2, 4, 4, 4], 7, [4] * 6, 0, "b")
    assert r.captured == 0


# --- MG-3: the last stone in an empty own pit -------------------------------------------------


def test_mg3_empty_own_pit_captures_the_facing_pit_a() -> None:
    # a2, a3: a3 was empty; it faces b4 (7 - 3), which holds 6: 6 + 1 to a's store.
    before = pos([4, 2, 0, 4, 4, 4], 4, [4, 4, 4, 6, 4, 4], 0, "a")
    r = play(before, 2)
    assert r.position == pos([4, 1, 0, 4, 4, 4], 11, [4, 4, 4, 0, 4, 4], 0, "b")
    assert (r.captured, r.capture_rule) == (7, "MG-3")


def test_mg3_empty_own_pit_captures_the_facing_pit_b() -> None:
    # A single stone b1 -> b2, empty; b2 faces a5, which holds 7: 7 + 1 to b's store.
    before = pos([4, 4, 4, 4, 7, 1], 0, [1, 0, 5, 5, 5, 5], 3, "b")
    r = play(before, 1)
    assert r.position == pos([4, 4, 4, 4, 0, 1], 0, [0, 0, 5, 5, 5, 5], 11, "a")
    assert (r.captured, r.capture_rule) == (8, "MG-3")


def test_mg3_facing_pit_empty_nothing_captured_a() -> None:
    before = pos([4, 2, 0, 4, 4, 4], 6, [4, 4, 4, 0, 4, 4], 4, "a")
    r = play(before, 2)
    assert r.position == pos([4, 1, 1, 4, 4, 4], 6, [4, 4, 4, 0, 4, 4], 4, "b")
    assert r.captured == 0


def test_mg3_facing_pit_empty_nothing_captured_b() -> None:
    before = pos([4, 4, 4, 4, 0, 8], 0, [1, 0, 5, 5, 5, 5], 3, "b")
    r = play(before, 1)
    assert r.position == pos([4, 4, 4, 4, 0, 8], 0, [0, 1, 5, 5, 5, 5], 3, "a")
    assert r.captured == 0


def test_mg3_after_a_round_trip_counts_the_stones_sown_on_the_way() -> None:
    # 9 stones from a6: a6, a store, b1..b6, a1 (empty). b6 had 2, now 3: 3 + 1 captured.
    before = pos([0, 3, 3, 3, 3, 9], 5, [2] * 6, 10, "a")
    r = play(before, 6)
    assert r.position == pos([0, 3, 3, 3, 3, 1], 10, [3, 3, 3, 3, 3, 0], 10, "b")
    assert r.captured == 4


def test_mg3_pit_the_sowing_started_from_is_not_empty_after_a_full_lap() -> None:
    # 14 stones from a1 come back to a1, which already holds the first stone: no capture.
    before = pos([14, 0, 0, 0, 0, 0], 10, [1] * 6, 18, "a")
    r = play(before, 1)
    assert r.position == pos([2, 1, 1, 1, 1, 1], 11, [2] * 6, 18, "b")
    assert r.captured == 0


# --- MG-4: the end of the set and the sweep to the player whose side emptied ------------------


def test_mg4_own_side_emptied_by_sowing_into_store_a() -> None:
    before = pos([0, 0, 0, 0, 0, 1], 20, [1, 2, 3, 4, 5, 0], 12, "a")
    r = play(before, 6)
    assert r.position == pos([0] * 6, 36, [0] * 6, 12, None)
    assert (r.set_over, r.extra_turn, r.sweeper, r.swept, r.winner) == (True, False, "a", 15, "a")


def test_mg4_own_side_emptied_by_sowing_into_store_b() -> None:
    before = pos([1, 2, 3, 4, 5, 0], 12, [0, 0, 0, 0, 0, 1], 20, "b")
    r = play(before, 6)
    assert r.position == pos([0] * 6, 12, [0] * 6, 36, None)
    assert (r.sweeper, r.swept, r.winner) == ("b", 15, "b")


def test_mg4_own_side_emptied_by_own_capture_a() -> None:
    # a2 -> a3 (empty) captures b4 (5) and the stone: a's side is empty, a takes b's 10.
    before = pos([0, 1, 0, 0, 0, 0], 15, [2, 2, 2, 5, 2, 2], 17, "a")
    r = play(before, 2)
    assert r.sown == pos([0] * 6, 21, [2, 2, 2, 0, 2, 2], 17, None)
    assert r.position == pos([0] * 6, 31, [0] * 6, 17, None)
    assert (r.captured, r.sweeper, r.swept, r.winner) == (6, "a", 10, "a")


def test_mg4_own_side_emptied_by_own_capture_b() -> None:
    before = pos([2, 2, 2, 5, 2, 2], 17, [0, 1, 0, 0, 0, 0], 15, "b")
    r = play(before, 2)
    assert r.position == pos([0] * 6, 17, [0] * 6, 31, None)
    assert (r.captured, r.sweeper, r.swept, r.winner) == (6, "b", 10, "b")


def test_mg4_opponents_side_emptied_by_mg3_capture_sweeps_to_the_opponent_a() -> None:
    # a1, a2, a3 (empty) captures b's last stones in b4. b's side ran out first, so b takes
    # the two stones left on a's side (not a, as in Kalah): 25-23.
    before = pos([3, 0, 0, 0, 0, 0], 20, [0, 0, 0, 4, 0, 0], 21, "a")
    r = play(before, 1)
    assert r.sown == pos([1, 1, 0, 0, 0, 0], 25, [0] * 6, 21, None)
    assert r.position == pos([0] * 6, 25, [0] * 6, 23, None)
    assert (r.captured, r.sweeper, r.swept, r.winner) == (5, "b", 2, "a")


def test_mg4_opponents_side_emptied_by_mg3_capture_sweeps_to_the_opponent_b() -> None:
    before = pos([0, 0, 0, 4, 0, 0], 21, [3, 0, 0, 0, 0, 0], 20, "b")
    r = play(before, 1)
    assert r.position == pos([0] * 6, 23, [0] * 6, 25, None)
    assert (r.captured, r.sweeper, r.swept, r.winner) == (5, "a", 2, "b")


def test_mg4_opponents_side_emptied_by_even_capture_can_lose_the_set_a() -> None:
    # a6, a store, b1 (1 -> 2, captured): b's side is empty; b takes a's 3 and wins 25-23.
    before = pos([2, 0, 0, 0, 0, 3], 20, [1, 0, 0, 0, 0, 0], 22, "a")
    r = play(before, 6)
    assert r.position == pos([0] * 6, 23, [0] * 6, 25, None)
    assert (r.capture_rule, r.sweeper, r.swept, r.winner) == ("MG-2", "b", 3, "b")


def test_mg4_opponents_side_emptied_by_even_capture_can_lose_the_set_b() -> None:
    before = pos([1, 0, 0, 0, 0, 0], 22, [2, 0, 0, 0, 0, 3], 20, "b")
    r = play(before, 6)
    assert r.position == pos([0] * 6, 25, [0] * 6, 23, None)
    assert (r.capture_rule, r.sweeper, r.swept, r.winner) == ("MG-2", "a", 3, "a")


def test_mg4_both_sides_empty_at_once_and_a_24_24_draw() -> None:
    # a5 -> a6 (empty) captures b1's 3 and the stone: nothing is left anywhere.
    before = pos([0, 0, 0, 0, 1, 0], 20, [3, 0, 0, 0, 0, 0], 24, "a")
    r = play(before, 5)
    assert r.position == pos([0] * 6, 24, [0] * 6, 24, None)
    assert (r.sweeper, r.swept, r.winner) == (None, 0, "draw")


def test_mg4_no_move_once_the_set_is_over() -> None:
    over = pos([0] * 6, 24, [0] * 6, 24, None)
    assert legal_pits(over) == []
    with pytest.raises(RuleViolationError, match="MG-4"):
        play(over.with_turn("a"), 1)


def test_play_refuses_positions_without_48_stones_and_bad_pits() -> None:
    with pytest.raises(PositionError, match="47 stones"):
        play(pos([4] * 6, 0, [4, 4, 4, 4, 4, 3], 0, "a"), 1)
    with pytest.raises(PositionError, match="pit 7"):
        play(Position.initial("a"), 7)


def test_one_stone_is_said_in_the_singular() -> None:
    """"the 1 stones of b's pit" (QA): one stone, several stones."""
    from engine.mangala.sowing import explain, stones

    assert (stones(1), stones(0), stones(7)) == ("1 stone", "0 stones", "7 stones")
    before = Position.from_obj({"a": [1, 0, 0, 0, 0, 5], "a_store": 10,
                                "b": [3, 3, 3, 3, 1, 3], "b_store": 16, "to_move": "a"})
    assert "the 1 stone of b's pit 5 and the capturing stone" in explain(play(before, 1))
