"""Engine-in-the-loop recognition for Mangala on synthetic readings: the legal sowing that
explains the frame, the extra turn's chains (MG-1), the modelled mistakes (MG-1..MG-3), the
unchanged board, stones gone (MG-T-6), and no verdict from an unsure or hidden reading; boards
no legal sowing gives and no model explains (flagged when read confidently), and the opponent's
sowing made before the mover pressed (MG-CLOCK-2)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from controller.mangala.mistakes import all_mistakes, mistakes, other_mistakes
from controller.mangala.recognition import decide, lines, visibility, vision_board
from engine.mangala.position import Position
from engine.mangala.sowing import legal_pits, play
from tests.controller.mangala.synthetic import SyntheticView

START = Position.initial("a")


def test_every_legal_sowing_is_recognised() -> None:
    for pit in range(1, 7):
        board = play(START, pit).position.board()
        d = decide([SyntheticView(board)], START)
        assert d.kind == "legal" and d.line is not None and d.line.pits == (pit,)


def test_chains_through_extra_turns_are_candidates() -> None:
    chains = [line.pits for line in lines(START)]
    assert (4,) in chains and (4, 1) in chains and (4, 6) in chains  # pit 4 ends in a's store
    board = play(play(START, 4).position, 2).position.board()
    d = decide([SyntheticView(board)], START)
    assert d.kind == "legal" and d.line is not None and d.line.pits == (4, 2)


def test_modelled_mistakes_are_flagged_with_the_judges_rule() -> None:
    position = play(play(START, 1).position, 3).position  # a: 1 5 5 5 4 4, b sowed pit 3
    found = all_mistakes(position)
    assert found
    for pit, _name, board in found:
        d = decide([SyntheticView(board)], position)
        assert d.kind == "illegal", (pit, board, d.reason)
        assert d.rule is not None and d.rule.startswith("MG-") and d.reason


def test_an_unchanged_board_at_the_press_is_no_sowing() -> None:
    d = decide([SyntheticView(START.board())], START)
    assert d.kind == "illegal" and d.rule == "MG-1" and "not changed" in d.reason


def test_a_stone_gone_is_no_accusation_but_a_report() -> None:
    board = list(play(START, 2).position.board())
    board[8] -= 1
    d = decide([SyntheticView(tuple(board), sure=0.99999)], START)
    assert d.kind == "legal" and d.line is not None and d.line.pits == (2,)
    assert "MG-T-6" in d.reason  # the players report it, the referee puts it back


def test_a_stone_too_many_is_a_misread_not_a_foul() -> None:
    board = list(play(START, 5).position.board())
    board[2] += 2
    d = decide([SyntheticView(tuple(board), sure=0.99999)], START)
    assert d.kind != "illegal"


def test_no_verdict_from_a_hidden_or_unsure_frame() -> None:
    board = mistakes(START, 1)[0][1]
    hidden = SyntheticView(board, hidden_cells=frozenset({0}))
    assert decide([hidden], START).kind == "unreadable"  # occluded frames are not read
    unsure = SyntheticView(board, sure=0.34)
    assert decide([unsure], START).kind != "illegal"


def _positions() -> list[Position]:
    """Positions met in play: seeded random sowings from the set-up."""
    rng = random.Random(8)
    out = []
    for _ in range(12):
        position = Position.initial(rng.choice(("a", "b")))
        for _ in range(rng.randrange(0, 25)):
            result = play(position, rng.choice(legal_pits(position)))
            if result.set_over:
                break
            position = result.position
        out.append(position)
    return out


def test_a_confidently_read_board_no_sowing_gives_is_flagged() -> None:
    flagged = 0
    for position in _positions():
        legal = [line.board for line in lines(position)]
        for pit in legal_pits(position):
            for name, board in other_mistakes(position, pit):
                if min(visibility(board, b) for b in legal) < 3:
                    continue  # as a misread pile would be: not planted (VISIBLE)
                d = decide([SyntheticView(board)] * 3, position)
                assert d.kind in ("illegal", "early"), (name, board, d.kind, d.reason)
                if d.kind == "illegal":
                    assert d.rule is not None and d.rule.startswith("MG-") and d.reason
                    flagged += 1
    assert flagged > 100


def test_an_unexplained_board_is_not_flagged_from_an_unsure_or_hidden_frame() -> None:
    position = play(START, 1).position
    _, board = other_mistakes(position, 2)[0]
    assert decide([SyntheticView(board)], position).kind == "illegal"
    assert decide([SyntheticView(board, sure=0.34)], position).kind != "illegal"
    hidden = SyntheticView(board, hidden_cells=frozenset({5}))
    assert decide([hidden], position).kind == "unreadable"
    short = list(board)
    short[short.index(max(short))] -= 1  # 47 stones: a stone off the board is no foul (MG-T-6)
    assert decide([SyntheticView(tuple(short), sure=0.99999)], position).kind != "illegal"


def test_the_opponent_sowing_before_the_press_is_told_apart() -> None:
    after_a = play(START, 1).position
    board = play(after_a, 3).position.board()  # b sowed pit 3 before a pressed (MG-CLOCK-2)
    d = decide([SyntheticView(board)], START)
    assert d.kind == "early" and d.line is not None and d.then is not None
    assert d.line.pits == (1,) and d.then.pits == (3,) and d.rule == "MG-CLOCK-2"


@dataclass(frozen=True)
class StoreMisread(SyntheticView):
    """Reads the pits surely but a's store (a big pile) two stones too many, as a stone reader
    miscounting a big pile does: the reading adds up to 50."""

    def _compute(self, cell: int) -> tuple[float, ...]:
        if cell != 6:
            return super()._compute(cell)
        p = [1e-4] * 49
        p[self.board[6] + 2] = 0.6
        for near in (1, 3):
            p[self.board[6] + near] = 0.15
        p[self.board[6]] = 0.05
        total = sum(p)
        return tuple(math.log(x / total) for x in p)


def test_a_misread_store_neither_hides_a_plain_mistake_nor_makes_one() -> None:
    position = play(play(START, 1).position, 3).position
    legal = play(position, 2).position.board()
    d = decide([StoreMisread(legal)] * 3, position)
    assert d.kind == "legal" and d.line is not None and d.line.pits == (2,)
    flagged = 0
    boards = [line.board for line in lines(position)]
    for name, board in other_mistakes(position, 2):
        if min(visibility(board, b) for b in boards) < 3:
            continue  # as a misread pile would be (VISIBLE)
        view = StoreMisread(board)
        assert sum(vision_board([view])[0]) == 50
        d = decide([view] * 3, position)
        assert d.kind != "legal", name  # the pits show plainly that no legal sowing gives it
        flagged += d.kind == "illegal"
    assert flagged >= 3
