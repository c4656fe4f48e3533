"""``ClosedOnExit``: the table's devices and files close at the end of a ``with`` block."""

from __future__ import annotations

import pytest

from controller.closing import ClosedOnExit


class Door(ClosedOnExit):
    def __init__(self) -> None:
        self.closes = 0

    def close(self) -> None:
        self.closes += 1


def test_a_with_block_gives_the_thing_itself_and_closes_it_however_it_ends() -> None:
    with Door() as door:
        assert isinstance(door, Door) and door.closes == 0
    assert door.closes == 1
    other = Door()
    with pytest.raises(KeyError), other:
        raise KeyError("x")
    assert other.closes == 1  # closed, and the error not swallowed


def test_close_must_be_given() -> None:
    with pytest.raises(NotImplementedError), ClosedOnExit():
        pass
