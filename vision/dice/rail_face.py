"""The upward face of a die read cocked against the top or bottom rail (BG-ROLL-2): its top tips
towards the rail, so a face nearer the rail that reads better is taken for it
(:func:`upward_at_rail`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vision.dice.board_die import PLAYING
from vision.dice.face_fit import FaceFinding
from vision.dice.tilted import tilted_reads
from vision.geometry import BoardGeometry

# A die cocked against the top or bottom rail tips its top towards the rail: the upward face
# lies nearer the rail than the side face beside it, which at 30-40 degrees shows nearly as
# large and is often the face read. For a die read cocked within RAIL_REACH_SIDES of the rail,
# faces are looked for half a side nearer the rail (vision.dice.tilted's hypotheses); the one
# with the most pip evidence of those at least RAIL_NEARER_SIDES nearer gives the pips when it
# reads better than the face read and its centre lies RAIL_FACE_MIN_SIDES from the rail: the
# upward face of a die tilted up to 45 degrees lies at least cos 45 / 2 of a side plus its
# 0.5 mm gap (6.2 mm of a 16 mm die) from it, and the best evidence nearer than that is a row
# of the face read's own pips, beside the rail (the face read is then kept). (Seeds 1,000,000
# to 1,000,599: 6 cocked dice at the rail read right instead of wrong, none the other way.)
RAIL_REACH_SIDES = 1.375
RAIL_LOOK_SIDES = 0.5
RAIL_NEARER_SIDES = 0.2
RAIL_FACE_MIN_SIDES = 0.34


def way_to_rail(face: FaceFinding, g: BoardGeometry) -> float | None:
    """The way to the top (-1) or bottom (+1) rail when the face lies within
    :data:`RAIL_REACH_SIDES` of it inside a half; else None."""
    if g.region_at(face.x_mm, face.y_mm).kind not in PLAYING:
        return None
    reach = RAIL_REACH_SIDES * g.die_size_mm
    if face.y_mm < reach:
        return -1.0
    if g.height_mm - face.y_mm < reach:
        return 1.0
    return None


@dataclass(frozen=True)
class RailFace:
    """The face nearer the rail that a die read cocked there shows (:func:`upward_at_rail`):
    its pips and its centre (board mm)."""

    pips: int
    x_mm: float
    y_mm: float


def upward_at_rail(gray: Callable[[], np.ndarray], from_mm: np.ndarray, face: FaceFinding,
                   g: BoardGeometry) -> RailFace | None:
    """The upward face of a die read cocked at the rail, when a face nearer the rail reads
    with more pip evidence than ``face`` (see :data:`RAIL_REACH_SIDES`); else None. ``gray``
    gives the frame in grey, asked for only at the rail."""
    way = way_to_rail(face, g)
    if way is None:
        return None
    die = g.die_size_mm
    cy = face.y_mm + way * RAIL_LOOK_SIDES * die
    nearer = [r for r in tilted_reads(gray(), from_mm, face.x_mm, cy, die)
              if way * (cy + r.dy - face.y_mm) >= RAIL_NEARER_SIDES * die]
    if not nearer:
        return None
    best = max(nearer, key=lambda r: r.score)
    y = cy + best.dy
    from_rail = y if way < 0 else g.height_mm - y
    if from_rail < RAIL_FACE_MIN_SIDES * die or best.score <= face.score:
        return None  # the best evidence there is a row of the face read's pips, or weaker
    return RailFace(best.value, face.x_mm + best.dx, y)
