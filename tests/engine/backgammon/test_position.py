"""Position: the value type, Position IDs, swapping, pips, physical steps."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from engine.backgammon.position import Position
from engine.errors import PositionError

START = Position.initial()


def corpus(shared_data: Path) -> list[str]:
    ids: list[str] = []
    for name in ("contact.csv", "race.csv"):
        ids += (shared_data / "positions" / name).read_text().split()
    return ids


def test_initial_position_id_is_gnubgs() -> None:
    # GNU Backgammon prints 4HPwATDgc/ABMA for the starting position.
    assert START.position_id == "4HPwATDgc/ABMA"
    assert Position.from_id("4HPwATDgc/ABMA") == START


def test_initial_counts() -> None:
    assert START.my_pips == START.their_pips == 167
    assert START.my_off == START.their_off == 0
    assert START.mine(13) == 5 and START.theirs(13) == 5 and START.mine(12) == 0
    assert START.swap() == START


def test_corpus_round_trips(shared_data: Path) -> None:
    ids = corpus(shared_data)
    assert len(ids) == 2000
    for pid in ids:
        position = Position.from_id(pid)
        assert position.position_id == pid
        assert position.swap().swap() == position
        assert Position.from_id(position.swap().position_id) == position.swap()
        assert position.my_off + sum(c for c in position.board if c > 0) == 15


def test_swap_exchanges_the_players() -> None:
    position = Position.from_checkers({6: 5, 25: 1, 3: 2}, {1: 2, 24: 3})
    swapped = position.swap()
    assert swapped.my_bar == 0 and swapped.their_bar == 1
    assert swapped.mine(1) == 2 and swapped.mine(24) == 3
    assert swapped.theirs(6) == 5 and swapped.theirs(3) == 2
    assert swapped.my_pips == position.their_pips and swapped.their_pips == position.my_pips
    assert swapped.my_off == position.their_off


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "4HPwATDgc/ABM",
        "4HPwATDgc/ABMAA",
        "4HPwATDgc/AB!A",
        "//////////////",
        "4HPwATDgc/ABMB",
        123,
    ],
)
def test_bad_position_ids(bad: object) -> None:
    with pytest.raises(PositionError):
        Position.from_id(bad)  # type: ignore[arg-type]


def _raw_id(first: list[int], second: list[int]) -> str:
    """A Position ID built bit by bit from two 25-count lists, to craft impossible ones."""
    key, shift = 0, 0
    for side in (first, second):
        for count in side:
            key |= ((1 << count) - 1) << shift
            shift += count + 1
    return base64.b64encode(key.to_bytes(10, "little")).decode()[:14]


def test_two_sides_on_one_point_is_refused() -> None:
    # The opponent's ace point is our 24 point: one checker of each there cannot be.
    opponent = [1] + [0] * 24
    ours = [0] * 23 + [1, 0]
    with pytest.raises(PositionError, match="both players"):
        Position.from_id(_raw_id(opponent, ours))
    assert Position.from_id(_raw_id(opponent, [0] * 22 + [1, 0, 0])).mine(23) == 1
    with pytest.raises(PositionError, match="more than 15"):
        Position.from_id(_raw_id([16] + [0] * 24, [0] * 25))
    with pytest.raises(PositionError):
        Position.from_checkers({24: 1}, {1: 1})


def test_too_many_checkers_refused() -> None:
    with pytest.raises(PositionError):
        Position.from_checkers({6: 16})
    with pytest.raises(PositionError):
        Position((0,) * 25)
    with pytest.raises(PositionError):
        Position((1,) + (0,) * 25)


def test_apply_steps_hits_and_bears_off() -> None:
    position = Position.from_checkers({13: 1, 2: 1}, {20: 1, 6: 2})
    moved = position.apply_steps([(13, 5), (2, 0)])
    assert moved.mine(5) == 1 and moved.their_bar == 1 and moved.my_off == 14
    assert moved.theirs(20) == 0


def test_apply_steps_errors() -> None:
    with pytest.raises(PositionError, match="no checker"):
        START.apply_steps([(5, 3)])
    with pytest.raises(PositionError, match="holds 5"):
        START.apply_steps([(13, 12)])
    with pytest.raises(PositionError):
        START.apply_steps([(13, 26)])


def test_positions_are_hashable_values() -> None:
    assert len({START, Position.initial(), START.swap()}) == 1
    with pytest.raises(AttributeError):
        START.board = ()  # type: ignore[misc]
