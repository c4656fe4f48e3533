"""What a die could lean on: a die tilted with nothing within reach cannot be at rest cocked.

BG-ROLL-2 calls a die cocked when it rests tilted against the rail or a checker, or on the
other die. On a flat board a die with none of these within reach lies flat whatever the
cocked model makes of a faint band beside it (a shadow, the pattern of the board under a
translucent die); calling it cocked would be a false "throw again", and a doubt about it
(``RecognitionSettings.flat_doubt``) an idle call to the director. The supports are the
rail round the playing surface and the bar's edges (from the geometry), the checkers the
board reading counts (each slot's nominal places, one place more than counted since the die
itself may hide the outermost checker it leans on, and every place of a slot the reading
cannot see), the other dice and the cube.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from vision.dice.board import BoardDie, pose_factor
from vision.dice.pose import cocked_threshold
from vision.geometry import BoardGeometry

# how far (in die sides) a cocked die's read centre may lie from the surface it leans on: a
# die tilted 12 to 45 degrees reaches 0.6 to 0.71 of a side from its centre towards it, and
# the upward face's centre, read from above, lies up to half a side farther; the farthest
# seen was 0.99, over some 480 cocked dice leaning on a checker, the rail or the other die
# (``tests.eval.dice``'s seeds and ``vision.dice.leaning``'s throws apart from the training's)
LEAN_REACH_SIDES = 1.25


def checker_places(slot_counts: Sequence[tuple[int, int] | None],
                   geometry: BoardGeometry) -> np.ndarray:
    """Board mm centres (N, 2) of every place a checker may stand that a die could lean on:
    per slot with checkers, the counted ones and one more (capped at a column's first layer);
    every place of a hidden slot (``None``); none of an empty slot."""
    cap = geometry.column_capacity()
    places: list[tuple[float, float]] = []
    for slot, counts in enumerate(slot_counts):
        if counts is None:
            n = cap
        elif sum(counts):
            n = min(cap, sum(counts) + 1)
        else:
            continue
        places.extend(geometry.checker_centre_mm(slot, i) for i in range(n))
    return np.asarray(places, np.float64).reshape(-1, 2)


def lean_gap_mm(centre: tuple[float, float], geometry: BoardGeometry, checkers: np.ndarray,
                others: Sequence[tuple[float, float]] = (),
                cube: tuple[float, float] | None = None) -> float:
    """The distance (mm) from a die's centre to the nearest thing it could lean on: the rail
    round the playing surface, the bar's edges, a checker's rim, another die or the cube."""
    x, y = centre
    g = geometry
    bar = g.bar
    gaps = [y, g.height_mm - y, x, g.width_mm - x, abs(x - bar.x0), abs(x - bar.x1)]
    if len(checkers):
        gaps.append(float(np.min(np.hypot(checkers[:, 0] - x, checkers[:, 1] - y)))
                    - g.checker_diameter_mm / 2)
    gaps.extend(math.hypot(x - ox, y - oy) - g.die_size_mm / 2 for ox, oy in others)
    if cube is not None:
        gaps.append(math.hypot(x - cube[0], y - cube[1]) - g.cube_size_mm / 2)
    return min(gaps)


def could_lean(die: BoardDie, geometry: BoardGeometry, checkers: np.ndarray,
               others: Sequence[BoardDie] = (), cube: tuple[float, float] | None = None) -> bool:
    """Whether anything lies within a cocked die's reach of ``die`` (:data:`LEAN_REACH_SIDES`);
    a die off the playing surface or on a checker always could."""
    if die.on_checker or die.region in ("tray", "frame", "off-board"):
        return True
    gap = lean_gap_mm(die.centre_mm, geometry, checkers,
                      [o.centre_mm for o in others if o is not die], cube)
    return gap <= LEAN_REACH_SIDES * geometry.die_size_mm


def with_supports(dice: Sequence[BoardDie], geometry: BoardGeometry,
                  slot_counts: Sequence[tuple[int, int] | None] | None,
                  cube: tuple[float, float] | None = None) -> list[BoardDie]:
    """The dice with every die that has nothing to lean on taken as flat (``p_cocked`` 0, its
    confidence as sure of flat as the reader's other parts allow); unchanged when the board's
    slots are unknown (``slot_counts`` None)."""
    if slot_counts is None:
        return list(dice)
    checkers = checker_places(slot_counts, geometry)
    threshold = cocked_threshold()
    out = []
    for die in dice:
        if die.p_cocked <= 0.0 or could_lean(die, geometry, checkers, dice, cube):
            out.append(die)
            continue
        shown = pose_factor(die.p_cocked, threshold)
        out.append(dataclasses.replace(die, flat=True, p_cocked=0.0,
                                       confidence=min(1.0, die.confidence / shown)))
    return out
