"""Phantom dice where two stacked checkers touch: no flat die can lie there on the board (a
"die" read there would join the throw whose dice BG-ROLL-2 judges).

Where two checkers of a column touch, the dark crook between their rims (with a point's edge
or the rail beside it) reads in a single photo as a weak one, two or three, and the reading
comes and goes with sub-pixel changes of the board's corners (a demo snapshot read 2, 4, 3, 3
where it shows 4, 3). The table is not misled (a "die" lying there at the press is no part of
the throw, ``vision.dice.reuse``), but ``hakem vision read`` has no earlier picture. Geometry
settles it: a die lying flat on the board beside two touching checkers of radius r keeps its
centre at least sqrt((r + s/2)^2 - r^2) from where they touch (s: the die's side; 20.2 mm
with 43 mm checkers and 16 mm dice), or it would overlap them. A die read flat, not on a
checker, with weak pip evidence (under ``board.WEAK_FACE_SCORE``) and its centre nearer than
that to where two checkers the board reading counts touch is taken for their rims and left
out. A die on top of the two (it bridges them, and the reader's checker-rim test does not
see it on a checker) keeps a die's face: the weak-face condition leaves it in.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from vision.dice.board import WEAK_FACE_SCORE
from vision.dice.board_die import PLAYING, BoardDie
from vision.geometry import BoardGeometry


def junction_reach_mm(geometry: BoardGeometry) -> float:
    """How near to where two touching checkers meet a flat die's centre can come on the
    board (mm): sqrt((r + s/2)^2 - r^2), its side against both rims."""
    r = geometry.checker_diameter_mm / 2
    return math.sqrt((r + geometry.die_size_mm / 2) ** 2 - r * r)


def checker_junctions(slot_counts: Sequence[tuple[int, int] | None],
                      geometry: BoardGeometry) -> np.ndarray:
    """Board mm (N, 2) of where two neighbouring checkers of a column touch, for the first
    layer of every slot the board reading counts (a hidden slot, None, says nothing)."""
    cap = geometry.column_capacity()
    out: list[tuple[float, float]] = []
    for slot, counts in enumerate(slot_counts):
        n = 0 if counts is None else min(cap, sum(counts))
        places = [geometry.checker_centre_mm(slot, i) for i in range(n)]
        out.extend(((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) for a, b in pairwise(places))
    return np.asarray(out, np.float64).reshape(-1, 2)


def at_stack_rims(die: BoardDie, junctions: np.ndarray, reach: float) -> bool:
    """Whether ``die`` is a stack's rims read as a die: read flat, not on a checker, inside a
    half, weak pip evidence, within ``reach`` of a junction (:func:`checker_junctions`)."""
    if (not die.flat or die.on_checker or die.region not in PLAYING or not len(junctions)
            or die.pip_score is None or die.pip_score >= WEAK_FACE_SCORE):
        return False
    x, y = die.centre_mm
    return bool(np.min(np.hypot(junctions[:, 0] - x, junctions[:, 1] - y)) < reach)


def without_stack_rims(dice: Sequence[BoardDie], geometry: BoardGeometry,
                       slot_counts: Sequence[tuple[int, int] | None] | None
                       ) -> list[BoardDie]:
    """The dice but those :func:`at_stack_rims` of the board reading's counted checkers;
    unchanged when the slots are unknown (``slot_counts`` None)."""
    if slot_counts is None:
        return list(dice)
    junctions = checker_junctions(slot_counts, geometry)
    reach = junction_reach_mm(geometry)
    return [d for d in dice if not at_stack_rims(d, junctions, reach)]
