"""Phantom dice where two stacked checkers touch (``vision.dice.stack_rims``): a single photo's
dice pass leaves out a weak flat "die" there, and keeps every die that can lie there (on a
checker, cocked against the stack, a clear face, or farther off than a flat die must be)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from controller.demo.players import demo_die
from vision.board_reader import read_board
from vision.calibration import Calibration
from vision.dice.board import WEAK_FACE_SCORE
from vision.dice.board_die import BoardDie
from vision.dice.stack_rims import (
    at_stack_rims,
    checker_junctions,
    junction_reach_mm,
    without_stack_rims,
)
from vision.geometry import BoardGeometry

G = BoardGeometry()
SLOT = 14  # a bottom slot of the right half
COUNTS: list[tuple[int, int] | None] = [(0, 0)] * 24
COUNTS[SLOT] = (0, 3)


def _junction(slot: int = SLOT, index: int = 0) -> tuple[float, float]:
    a, b = G.checker_centre_mm(slot, index), G.checker_centre_mm(slot, index + 1)
    return (a[0] + b[0]) / 2, (a[1] + b[1]) / 2


def _die(dx: float = 6.0, **kw: object) -> BoardDie:
    """A weak flat die ``dx`` mm beside the junction of the slot's first two checkers."""
    jx, jy = _junction()
    x, y = jx + dx, jy
    fields: dict[str, object] = dict(
        pips=3, centre_px=(0.0, 0.0), centre_mm=(x, y), flat=True, on_checker=False,
        half=G.half_at(x, y), region=G.region_at(x, y).kind, confidence=0.64,
        pip_score=0.075)
    fields.update(kw)
    return BoardDie(**fields)  # type: ignore[arg-type]


def test_junctions_are_where_neighbouring_counted_checkers_touch() -> None:
    counts = list(COUNTS)
    counts[2] = (9, 0)  # more than a column's first layer: its junctions only
    counts[5] = (1, 0)  # one checker: nothing touches it
    counts[7] = None  # hidden: says nothing
    junctions = checker_junctions(counts, G)
    assert len(junctions) == 2 + (G.column_capacity() - 1)
    for point in junctions:
        near = [math.dist(point, G.checker_centre_mm(s, i))
                for s in range(24) for i in range(G.column_capacity())]
        assert min(near) == pytest.approx(G.checker_diameter_mm / 2)


def test_the_reach_is_a_flat_die_against_both_rims() -> None:
    """A die whose side lies against both checkers' rims keeps its centre at the reach from
    where they touch; nearer, it would overlap them."""
    reach = junction_reach_mm(G)
    a, b = G.checker_centre_mm(SLOT, 0), G.checker_centre_mm(SLOT, 1)
    jx, jy = _junction()
    centre = (jx + reach, jy)
    touching = G.checker_diameter_mm / 2 + G.die_size_mm / 2
    assert math.dist(centre, a) == pytest.approx(touching)
    assert math.dist(centre, b) == pytest.approx(touching)


def test_a_weak_flat_die_where_two_counted_checkers_touch_is_left_out() -> None:
    rims = _die()
    real = _die(dx=junction_reach_mm(G) + 1.0, pips=5, pip_score=0.22)
    assert at_stack_rims(rims, checker_junctions(COUNTS, G), junction_reach_mm(G))
    assert without_stack_rims([rims, real], G, COUNTS) == [real]


@pytest.mark.parametrize("change", [
    {"on_checker": True},  # on the stack: the reader saw a checker's rim about it
    {"flat": False},  # cocked against the stack (BG-ROLL-2)
    {"pip_score": WEAK_FACE_SCORE},  # a die's clear face (one bridging the two checkers)
    {"pip_score": None},  # evidence not known: left as read
])
def test_a_die_that_can_lie_there_is_kept(change: dict[str, object]) -> None:
    die = _die(**change)
    assert without_stack_rims([die], G, COUNTS) == [die]


def test_dice_beyond_the_reach_or_without_counts_are_kept() -> None:
    beyond = _die(dx=junction_reach_mm(G) + 0.1)
    assert without_stack_rims([beyond], G, COUNTS) == [beyond]
    lone = list(COUNTS)
    lone[SLOT] = (0, 1)  # one checker: no junction
    assert without_stack_rims([_die()], G, lone) == [_die()]
    assert without_stack_rims([_die()], G, None) == [_die()]
    hidden = list(COUNTS)
    hidden[SLOT] = None
    assert without_stack_rims([_die()], G, hidden) == [_die()]


# the position of a demo snapshot that `hakem vision read` read as 2, 4, 3, 3 (it shows 4, 3):
# the "2" where two dark checkers of slot 0 touch beside the frame, the "3" where two light
# ones of slot 12 do; they came and went with sub-pixel changes of the corners
SNAPSHOT = {0: (4, 0), 6: (0, 4), 7: (0, 2), 8: (0, 2), 9: (1, 0), 11: (1, 0), 12: (0, 5),
            16: (3, 0), 18: (3, 0), 19: (2, 0), 20: (0, 1), 22: (0, 1), 23: (1, 0)}


def test_a_demo_snapshot_reads_its_two_dice_whatever_the_sub_pixel_corners() -> None:
    camera = DemoCamera()
    slots = [SNAPSHOT.get(i, (0, 0)) for i in range(24)]
    dice = (demo_die(120.0, 255.0, 4, yaw_deg=10.0), demo_die(165.0, 258.0, 3, yaw_deg=-7.0))
    image, _ = camera.render(Shot(contents_from_counts(slots, (0, 0), (0, 0)), dice))
    corners = np.asarray(camera.corners, np.float32).reshape(4, 2)
    rng = np.random.default_rng(7)
    read = []
    for k in range(10):
        moved = corners if k == 0 else corners + rng.uniform(-0.5, 0.5, (4, 2)).astype(
            np.float32)
        reading = read_board(image, calibration=Calibration(moved, "corners", camera.geometry))
        read.append(sorted(d["pips"] for d in reading.dice))
    assert read == [[3, 4]] * 10
