"""The judge: the pit played for every legal move, and a rule and a sentence for every wrong one."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.errors import PositionError
from engine.mangala.judge import judge
from engine.mangala.position import SIDES, Position, Side
from engine.mangala.sowing import legal_pits, play

RULE_IDS = {"MG-1", "MG-2", "MG-3", "MG-4", "MG-EQ-1", "MG-T-6"}


def pos(a: list[int], a_store: int, b: list[int], b_store: int, to_move: Side | None) -> Position:
    return Position(tuple(a), a_store, tuple(b), b_store, to_move)


# --- hand-made cases ------------------------------------------------------------------------


def test_legal_move_names_the_pit_for_both_players() -> None:
    v = judge(Position.initial("a"), pos([4, 4, 4, 1, 5, 5], 1, [4] * 6, 0, "a"))
    assert (v.legal, v.pits, v.pit, v.mover) == (True, (4,), 4, "a")
    assert "moves again (MG-1)" in v.reason
    v = judge(Position.initial("b"), pos([4, 4, 4, 4, 4, 4], 0, [4, 1, 5, 5, 5, 4], 0, None))
    assert (v.legal, v.pit, v.mover) == (True, 2, "b")


def test_several_pits_giving_the_same_position_are_all_named() -> None:
    # Pits 1 (4 stones), 2 (3) and 3 (1) all end in empty a4, capture b3's 5 plus the stone,
    # empty b's side; b then takes what is left on a's side: 26-22 whichever pit was played.
    before = pos([4, 3, 1, 0, 0, 0], 20, [0, 0, 5, 0, 0, 0], 15, "a")
    after = pos([0] * 6, 26, [0] * 6, 22, None)
    v = judge(before, after)
    assert v.legal and v.pits == (1, 2, 3) and v.pit is None
    assert "one of pits 1, 2 and 3" in v.reason
    # Before the sweep the boards differ, so the pit is known; the sweep is still to be made.
    v = judge(before, pos([1, 4, 2, 0, 0, 0], 26, [0] * 6, 15, None))
    assert v.legal and v.pits == (1,) and v.sweep_pending
    assert "b takes the 7 stones" in v.reason


def test_the_turn_given_in_after_is_checked() -> None:
    v = judge(Position.initial("a"), pos([4, 4, 4, 1, 5, 5], 1, [4] * 6, 0, "b"))
    assert not v.legal and v.rule == "MG-1" and "moves again" in v.reason
    v = judge(Position.initial("a"), pos([1, 5, 5, 5, 4, 4], 0, [4] * 6, 0, "a"))
    assert not v.legal and "turn passes to b" in v.reason


def test_wrong_player_moving() -> None:
    after = play(Position.initial("b"), 4).position
    v = judge(Position.initial("a"), after)
    assert not v.legal and v.rule == "MG-1"
    # the board cannot tell whether b sowed out of turn or a sowed b's pit: the reason blames
    # neither, as the warning goes to a, who pressed ("by a: b played pit 4" contradicted it)
    assert "b's pit 4 was sown, but it is a's turn" in v.reason
    assert "only their own pits (MG-1)" in v.reason


def test_stone_sown_into_the_opponents_store() -> None:
    before = pos([2, 2, 2, 2, 2, 10], 0, [1] * 6, 22, "a")
    wrong = pos([3, 2, 2, 2, 2, 1], 1, [2] * 6, 23, None)
    v = judge(before, wrong)
    assert not v.legal and v.rule == "MG-2" and "b's store" in v.reason and v.closest_pit == 6
    before_b = pos([1] * 6, 22, [2, 2, 2, 2, 2, 10], 0, "b")
    v = judge(before_b, pos([2] * 6, 23, [3, 2, 2, 2, 2, 1], 1, None))
    assert not v.legal and v.rule == "MG-2" and "a's store" in v.reason


def test_first_stone_not_put_back() -> None:
    v = judge(Position.initial("a"), pos([0, 5, 5, 5, 5, 4], 0, [4] * 6, 0, None))
    assert not v.legal and v.rule == "MG-1" and "first stone goes back" in v.reason


def test_stone_skipped_and_stone_doubled() -> None:
    v = judge(Position.initial("a"), pos([1, 5, 4, 5, 5, 4], 0, [4] * 6, 0, None))
    assert not v.legal and v.rule == "MG-1" and "a's pit 3 was skipped" in v.reason
    v = judge(Position.initial("b"), pos([4] * 6, 0, [1, 6, 5, 4, 4, 4], 0, None))
    assert not v.legal and v.rule == "MG-1" and "two stones went into b's pit 2" in v.reason


def test_sowing_to_the_left() -> None:
    # a3's 4 stones sown leftwards: a3, a2, a1, then (b's store skipped) b6.
    v = judge(Position.initial("a"), pos([5, 5, 1, 4, 4, 4], 0, [4, 4, 4, 4, 4, 5], 0, None))
    assert not v.legal and v.rule == "MG-1" and "to the right" in v.reason


def test_even_capture_not_taken_and_odd_capture_taken() -> None:
    before = pos([4] * 6, 0, [3, 4, 4, 4, 4, 4], 1, "a")
    v = judge(before, pos([4, 4, 4, 4, 1, 5], 1, [4, 4, 4, 4, 4, 4], 1, None))
    assert not v.legal and v.rule == "MG-2" and "even (4)" in v.reason
    v = judge(Position.initial("a"), pos([4, 4, 4, 4, 1, 5], 6, [0, 4, 4, 4, 4, 4], 0, None))
    assert not v.legal and v.rule == "MG-2" and "odd (5)" in v.reason


def test_empty_pit_capture_not_taken_wrong_pit_and_wrongly_taken() -> None:
    before = pos([4, 2, 0, 4, 4, 4], 4, [4, 4, 4, 6, 4, 4], 0, "a")
    v = judge(before, pos([4, 1, 1, 4, 4, 4], 4, [4, 4, 4, 6, 4, 4], 0, None))
    assert not v.legal and v.rule == "MG-3" and "b's pit 4" in v.reason
    # Taking b3 (same number) instead of b4 (the facing pit, 7 - 3).
    v = judge(before, pos([4, 1, 0, 4, 4, 4], 9, [4, 4, 0, 6, 4, 4], 0, None))
    assert not v.legal and v.rule == "MG-3" and "not b's pit 3" in v.reason
    # Facing pit empty: the single stone stays where it fell.
    before = pos([4, 4, 4, 4, 0, 8], 0, [1, 0, 5, 5, 5, 5], 3, "b")
    v = judge(before, pos([4, 4, 4, 4, 0, 8], 0, [0, 0, 5, 5, 5, 5], 4, None))
    assert not v.legal and v.rule == "MG-3" and "stays in b's pit 2" in v.reason


def test_sweep_given_the_kalah_way_is_flagged() -> None:
    # b's side emptied (a captured its last stones), so b takes a's two: a keeping them is wrong.
    before = pos([3, 0, 0, 0, 0, 0], 20, [0, 0, 0, 4, 0, 0], 21, "a")
    v = judge(before, pos([0] * 6, 27, [0] * 6, 21, None))
    assert not v.legal and v.rule == "MG-4" and "b takes the stones left on a's side" in v.reason


def test_stone_count_errors() -> None:
    v = judge(Position.initial("a"), pos([1, 5, 5, 5, 4, 4], 0, [4, 4, 4, 4, 4, 3], 0, None))
    assert not v.legal and v.rule == "MG-T-6" and "47 stones" in v.reason and v.closest_pit == 1
    v = judge(Position.initial("a"), pos([1, 5, 5, 5, 4, 4], 1, [4] * 6, 0, None))
    assert not v.legal and v.rule == "MG-EQ-1" and "49 stones" in v.reason


def test_nothing_played_and_set_already_over() -> None:
    v = judge(Position.initial("a"), Position.initial("a").with_turn(None))
    assert not v.legal and v.rule == "MG-1" and "not changed" in v.reason
    over = pos([0] * 6, 24, [0] * 6, 24, None)
    v = judge(over, over)
    assert not v.legal and v.rule == "MG-4"


def test_before_must_be_a_real_position() -> None:
    with pytest.raises(PositionError, match="47 stones"):
        judge(pos([4] * 6, 0, [4, 4, 4, 4, 4, 3], 0, "a"), Position.initial("a"))
    with pytest.raises(PositionError, match="to_move"):
        judge(Position.initial("a").with_turn(None), Position.initial("a"))


# --- random positions -----------------------------------------------------------------------


def _random_positions(rng: random.Random, count: int) -> list[Position]:
    """Half from random legal games (realistic), half from random splits of 48 stones."""
    out: list[Position] = []
    while len(out) < count // 2:
        p = Position.initial(rng.choice(SIDES))
        game = []
        while not p.set_over:
            game.append(p)
            p = play(p, rng.choice(legal_pits(p))).position
        out.extend(rng.sample(game, min(5, len(game))))
    while len(out) < count:
        cuts = sorted(rng.randint(0, 48) for _ in range(13))
        counts = [hi - lo for lo, hi in zip([0, *cuts], [*cuts, 48], strict=True)]
        p = Position.from_board(counts, rng.choice(SIDES))
        if not p.set_over:
            out.append(p)
    return out[:count]


def test_judge_finds_the_pit_of_every_legal_move_in_10000_random_positions() -> None:
    rng = random.Random(20231221)
    checked = 0
    for before in _random_positions(rng, 10_000):
        for pit in legal_pits(before):
            result = play(before, pit)
            verdict = judge(before, result.position)
            assert verdict.legal and pit in verdict.pits, (before, pit, verdict)
            assert all(play(before, p).position == result.position for p in verdict.pits)
            checked += 1
    assert checked > 40_000


def _corruptions(board: tuple[int, ...], rng: random.Random) -> list[tuple[str, list[int]]]:
    i, j = rng.sample(range(14), 2)
    out = [("added", [*board[:i], board[i] + 1, *board[i + 1 :]])]
    nonempty = [k for k in range(14) if board[k] > 0]
    k = rng.choice(nonempty)
    out.append(("removed", [*board[:k], board[k] - 1, *board[k + 1 :]]))
    moved = list(board)
    moved[k] -= 1
    moved[j if j != k else i] += 1
    out.append(("moved", moved))
    return out


def test_every_corrupted_outcome_is_flagged_with_a_rule_and_a_sentence() -> None:
    rng = random.Random(48)
    rules: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for before in _random_positions(rng, 2_000):
        results = [play(before, p) for p in legal_pits(before)]
        legal_boards = {r.position.board() for r in results} | {r.sown.board() for r in results}
        result = rng.choice(results)
        for kind, board in _corruptions(result.position.board(), rng):
            if tuple(board) in legal_boards:
                continue  # the slip happens to give another legal outcome: nothing to flag
            verdict = judge(before, Position.from_board(board, None))
            assert not verdict.legal, (before, board, verdict)
            assert verdict.rule in RULE_IDS
            assert verdict.rule in verdict.reason and len(verdict.reason) > 30
            rules[verdict.rule] += 1
            kinds[kind] += 1
    assert kinds["added"] == 2_000 and kinds["removed"] == 2_000 and kinds["moved"] > 1_900
    assert rules["MG-EQ-1"] == 2_000 and rules["MG-T-6"] == 2_000


def test_every_single_stone_move_of_some_outcomes_is_flagged() -> None:
    """Exhaustive: every way of moving one stone of a legal result is caught."""
    rng = random.Random(7)
    flagged = 0
    for before in _random_positions(rng, 24):
        results = [play(before, p) for p in legal_pits(before)]
        legal_boards = {r.position.board() for r in results} | {r.sown.board() for r in results}
        board = rng.choice(results).position.board()
        for i in range(14):
            if board[i] == 0:
                continue
            for j in range(14):
                if i == j:
                    continue
                moved = list(board)
                moved[i] -= 1
                moved[j] += 1
                if tuple(moved) in legal_boards:
                    continue
                verdict = judge(before, Position.from_board(moved, None))
                assert not verdict.legal and verdict.rule in RULE_IDS
                flagged += 1
    assert flagged > 2_000


def test_a_capture_put_into_the_opponents_store_is_named_so() -> None:
    """The stones of an MG-2 capture put into the opponent's store were described as "sowing
    skips b's store" (QA)."""
    before = Position.from_obj({"a": [3, 1, 1, 1, 1, 7], "a_store": 9,
                                "b": [2, 1, 1, 3, 7, 1], "b_store": 10, "to_move": "a"})
    result = play(before, 6)
    assert result.capture_rule == "MG-2" and result.captured == 8
    board = list(result.position.board())
    board[6] -= 8
    board[13] += 8
    verdict = judge(before, Position.from_board(tuple(board), result.position.to_move))
    assert not verdict.legal and verdict.rule == "MG-2"
    assert "captured stones go into a's own store, not b's (MG-2)" in verdict.reason


def test_no_message_says_one_stones() -> None:
    """"facing a's pit 2 with 1 stones" (review): over the mistakes players make from many
    positions, the judge's reasons say "1 stone"."""
    import random

    from controller.mangala.mistakes import mistakes

    rng = random.Random(20261125)
    seen_one = 0
    for _ in range(300):
        position = Position.initial("a")
        for _ in range(rng.randint(0, 25)):
            pits = legal_pits(position)
            if not pits:
                break
            position = play(position, rng.choice(pits)).position
        if position.set_over or position.to_move is None:
            continue
        for pit in legal_pits(position):
            for _, board in mistakes(position, pit):
                reason = judge(position, Position.from_board(board, None)).reason or ""
                assert " 1 stones" not in reason, reason
                seen_one += " 1 stone" in reason
    assert seen_one > 0
