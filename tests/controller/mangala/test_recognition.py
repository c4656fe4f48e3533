"""Engine-in-the-loop recognition for Mangala on synthetic readings: the legal sowing that
explains the frame, the extra turn's chains (MG-1), the modelled mistakes (MG-1..MG-3), the
unchanged board, stones gone (MG-T-6), and no verdict from an unsure or hidden reading."""

from __future__ import annotations

from controller.mangala.mistakes import all_mistakes, mistakes
from controller.mangala.recognition import decide, lines
from engine.mangala.position import Position
from engine.mangala.sowing import play
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
