"""Table layout: Position IDs to image slots (the default table of the vision issue)."""

from __future__ import annotations

import pytest

from controller.table_layout import DEFAULT_LAYOUT, TableLayout
from engine.backgammon.position import Position
from engine.errors import PositionError

START_ID = "4HPwATDgc/ABMA"  # GNU Backgammon's starting position


def test_default_table_maps_points_as_specified() -> None:
    got = {p: DEFAULT_LAYOUT.slot_of_point(p) for p in (1, 6, 12, 13, 24)}
    assert got == {1: 23, 6: 18, 12: 12, 13: 0, 24: 11}
    # the opponent's point q is our 25 - q
    assert DEFAULT_LAYOUT.slot_of_point(1, first=False) == DEFAULT_LAYOUT.slot_of_point(24)


def test_every_slot_holds_exactly_one_point_in_every_layout() -> None:
    for bottom in (True, False):
        for right in (True, False):
            layout = TableLayout(first_at_bottom=bottom, home_on_right=right)
            slots = sorted(layout.slot_of_point(p) for p in range(1, 25))
            assert slots == list(range(24))
            for s in range(24):
                assert layout.slot_of_point(layout.point_of_slot(s)) == s


def test_starting_position_as_the_camera_sees_it() -> None:
    counts = DEFAULT_LAYOUT.counts_from_id(START_ID)
    s = counts.slots
    # first player (darker, bottom): 2 on the 24-point, 5 on 13, 3 on 8, 5 on 6
    assert s[11] == (2, 0) and s[0] == (5, 0) and s[16] == (3, 0) and s[18] == (5, 0)
    # opponent (lighter): mirrored across the board
    assert s[23] == (0, 2) and s[12] == (0, 5) and s[4] == (0, 3) and s[6] == (0, 5)
    assert sum(a for a, _ in s) == 15 and sum(b for _, b in s) == 15
    assert counts.bar == (0, 0) and counts.off == (0, 0)


def test_colours_bar_and_off_follow_the_configuration() -> None:
    pos = Position.from_checkers({6: 4, 25: 1}, {6: 5})
    layout = TableLayout(first_colour="lighter")
    counts = layout.counts(pos)
    assert counts.bar == (0, 1)
    assert counts.off == (10, 10)
    assert counts.slots[layout.slot_of_point(6)] == (0, 4)
    assert counts.slots[layout.slot_of_point(6, first=False)] == (5, 0)


def test_bad_points_and_ids_are_refused() -> None:
    with pytest.raises(PositionError):
        DEFAULT_LAYOUT.slot_of_point(25)
    with pytest.raises(PositionError):
        DEFAULT_LAYOUT.counts_from_id("not-an-id")
