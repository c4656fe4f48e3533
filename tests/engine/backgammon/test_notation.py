"""Move text: formatting and reading."""

from __future__ import annotations

import pytest

from engine.backgammon.notation import MoveTextError, format_steps, parse_move
from engine.backgammon.position import Position

START = Position.initial()


def test_format_usual_forms() -> None:
    b = START.board
    assert format_steps(b, [(8, 5), (6, 5)]) == "8/5 6/5"
    assert format_steps(b, [(13, 9), (9, 3)]) == "13/3"
    assert format_steps(b, [(24, 21), (24, 21), (13, 10), (13, 10)]) == "24/21(2) 13/10(2)"
    assert format_steps(b, []) == ""


def test_format_hits_bar_and_off() -> None:
    position = Position.from_checkers({25: 1, 13: 2, 6: 1}, {20: 1, 3: 1, 6: 5})
    b = position.board
    assert format_steps(b, [(25, 22), (13, 5)]) == "bar/22* 13/5*"
    assert format_steps(b, [(13, 5), (5, 3)]) == "13/5*/3"
    home = Position.from_checkers({6: 2, 3: 1}, {6: 15})
    assert format_steps(home.board, [(6, 0), (6, 0)]) == "6/off(2)"
    assert format_steps(home.board, [(6, 2), (3, 0)]) == "6/2 3/off"


def test_format_follows_gnubg_conventions() -> None:
    # Two checkers to a point where one hit: the star is written once, on the group.
    position = Position.from_checkers({7: 2, 13: 2}, {21: 1, 6: 5})
    assert format_steps(position.board, [(7, 4), (7, 4)]) == "7/4*(2)"
    # A checker continuing from where another stopped reads as one move: 21/17.
    position = Position.from_checkers({21: 1, 20: 1}, {6: 5})
    assert format_steps(position.board, [(20, 17), (21, 20)]) == "21/17"
    # The hit goes on the first (higher) of two checkers reaching the blot.
    position = Position.from_checkers({10: 1, 8: 1}, {20: 1, 6: 5})
    assert format_steps(position.board, [(8, 5), (10, 5)]) == "10/5* 8/5"


def test_parse_forms() -> None:
    assert parse_move("24/18 13/11*") == [(24, 18), (13, 11)]
    assert parse_move("bar/22 6/off") == [(25, 22), (6, 0)]
    assert parse_move("25/22 6/0") == [(25, 22), (6, 0)]
    assert parse_move("13/9/3") == [(13, 9), (9, 3)]
    assert parse_move("6/4(2)") == [(6, 4), (6, 4)]
    assert parse_move("13/7*/1") == [(13, 7), (7, 1)]
    assert parse_move("K/22, 5/al") == [(25, 22), (5, 0)]
    assert parse_move("") == [] and parse_move("gele") == []


@pytest.mark.parametrize("bad", ["13", "13/x", "27/20", "off/3", "6/4(9)", "6/4(2"])
def test_parse_refuses(bad: str) -> None:
    with pytest.raises(MoveTextError):
        parse_move(bad)


def test_every_move_text_reads_back_to_its_result() -> None:
    from engine.backgammon.moves import legal_plays
    from tests.engine.backgammon.random_games import random_pairs

    checked = 0
    for position, dice in random_pairs(2000, seed=31):
        for play in legal_plays(position, dice):
            text = play.move
            assert position.apply_steps(parse_move(text)) == play.result, text
            assert text == text.strip() and "  " not in text
            checked += 1
    assert checked > 20_000
