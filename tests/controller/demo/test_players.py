"""Where the demo's simulated players put a planted invalid throw's dice (BG-ROLL-2).

A cocked die rests against something: a die cannot stay tilted on the open board. With no
checker in the thrower's half to lean against (late in a game, after bearing off), the die leans
against that half's rail, tipped towards it, as it leans against a checker elsewhere."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from controller.demo import players as pl
from controller.demo.camera import DemoCamera, contents_from_counts
from controller.table_layout import DEFAULT_LAYOUT
from engine.backgammon.position import Position
from vision.dice.render import DieProp, leaning_reach
from vision.geometry import BoardGeometry
from vision.render.board import checker_layout
from vision.render.scene import BoardContents

G = BoardGeometry()


def _without_half(contents: BoardContents, half: str) -> BoardContents:
    """``contents`` with every checker of ``half``'s points taken away (borne off)."""
    slots = tuple((0, 0) if G.slot_half(i) == half else s for i, s in enumerate(contents.slots))
    return BoardContents(slots, contents.bar, contents.off)


def _initial() -> BoardContents:
    counts = DEFAULT_LAYOUT.counts(Position.initial())
    return contents_from_counts(counts.slots, counts.bar, counts.off)


def _against_rail(die: DieProp, half: str) -> bool:
    """The die touches the top or bottom rail of ``half``, tipped towards it."""
    reach = 0.5 * G.die_size_mm * (math.cos(math.radians(pl.COCKED_TILT_DEG))
                                   + math.sin(math.radians(pl.COCKED_TILT_DEG)))
    rect = G.half_rect("left" if half == "left" else "right")
    inside = bool(rect.x0 + G.die_size_mm / 2 <= die.x_mm <= rect.x1 - G.die_size_mm / 2)
    if die.y_mm < G.height_mm / 2:
        return inside and abs(die.y_mm - reach) < 1.0 and die.tilt_axis_deg == 0.0
    return (inside and abs(G.height_mm - die.y_mm - reach) < 1.0
            and die.tilt_axis_deg == 180.0)


@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.parametrize("kind", ["cocked", "on-checker"])
def test_with_no_checker_to_lean_on_a_planted_die_leans_against_the_rail(
        player: int, kind: str) -> None:
    half = pl.right_half(player)
    contents = _without_half(_initial(), half)
    for seed in range(20):
        dice = pl.thrown_dice(G, player, (5, 1), random.Random(seed), kind,  # type: ignore[arg-type]
                              contents)
        first, second = dice
        assert first.tilt_deg == 0.0 and second.value == 1
        assert second.tilt_deg == pl.COCKED_TILT_DEG, (kind, seed)
        assert _against_rail(second, half), (kind, seed, second)
        assert G.half_at(second.x_mm, second.y_mm) == half


def test_a_cocked_die_leans_against_a_checker_of_the_throwers_half_when_there_is_one() -> None:
    contents = _initial()
    for seed in range(20):
        _, second = pl.thrown_dice(G, 0, (6, 4), random.Random(seed), "cocked", contents)
        assert second.tilt_deg == pl.COCKED_TILT_DEG
        assert G.half_at(second.x_mm, second.y_mm) == pl.right_half(0)
        # beside the outermost checker of a stack, a checker's radius and the leaning die's
        # reach away from its centre, never on the rail
        assert not _against_rail(second, pl.right_half(0))
        centres = [G.checker_centre_mm(s, min(sum(contents.slots[s]), G.column_capacity()) - 1)
                   for s in range(24) if sum(contents.slots[s])]
        gap = min(math.hypot(second.x_mm - x, second.y_mm - y) for x, y in centres)
        assert G.checker_diameter_mm / 2 < gap < G.checker_diameter_mm / 2 + G.die_size_mm


def test_a_valid_throw_is_two_flat_dice_in_the_band_across_the_middle() -> None:
    contents = _without_half(_initial(), "right")
    for seed in range(20):
        dice = pl.thrown_dice(G, 0, (3, 3), random.Random(seed), None, contents)
        for die in dice:
            assert die.tilt_deg == 0.0 and die.elevation_mm == 0.0
            assert abs(die.y_mm - G.height_mm / 2) <= pl.THROW_BAND_MM + 6.0
            assert G.half_at(die.x_mm, die.y_mm) == "right"


@pytest.mark.parametrize("seed", range(6))
def test_a_cocked_die_leans_on_the_checker_the_camera_draws(seed: int) -> None:
    """The camera lays each point's checkers a little apart (a column's outer checker up to
    5 mm beyond its nominal place): the cocked die leans on the drawn checker, not inside it."""
    camera = DemoCamera(seed=seed)
    contents = _initial()
    rng = random.Random(seed)
    die = pl.thrown_dice(G, 0, (3, 5), rng, "cocked", contents, camera.column_end)[1]
    drawn = checker_layout(G, contents, np.random.default_rng(0),
                           darker_at_bottom=True, slot_rng=camera._slot_rng)
    gap = min(math.hypot(x - die.x_mm, y - die.y_mm) for x, y, _c, _l in drawn)
    touching = G.checker_diameter_mm / 2 + leaning_reach(G.die_size_mm, pl.COCKED_TILT_DEG)
    assert touching <= gap <= touching + 1.0
