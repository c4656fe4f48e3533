"""The upward face of a die read cocked against the top or bottom rail (BG-ROLL-2): its top tips
towards the rail, so a face nearer the rail that reads better is taken for it
(:func:`upward_at_rail`). The search along a way on the board (:func:`faces_towards`) serves a
die leaning on a checker too (``vision.dice.checker_face``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vision.dice.board_die import PLAYING
from vision.dice.face_fit import ONE_WEIGHT, FaceFinding
from vision.dice.tilted import TiltedRead, tilted_reads
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
# The faces nearer the rail are ranked by pip evidence weighed as the face read ranks it
# (face_fit._rank: a one's less ONE_WEIGHT, since any lone pip reads as a one), each value once,
# and must show more pip evidence than the face read, a one read weighed so too; the first the
# upward-face network names too gives the pips (board.cocked_pips). Synthetic throws: 20397, a
# two leaning on the bottom rail at 37 degrees read as a one at one of its pips, the two nearer
# the rail reading with a hair less evidence (0.0685 against 0.0690) was not taken, and the
# network, shown the one, named the side face's four; 20660 and 20472, twos at the rail at 38-40
# degrees: one of the two's pips alone read best nearer the rail (0.14, 0.107) and the network,
# shown it, refused it (20660) or named a one (20472), while the two itself (0.065, 0.078),
# which it names at 0.998, was never shown; 20382, a one at the rail read as its side face's
# two: the one nearer the rail is still taken (its evidence, 0.132, beats the two's)
# A one read weighs ONE_WEIGHT less, but a face nearer the rail must still show at least
# ONE_SHARE of its unweighed evidence: synthetic 34548, a one cocked against a checker by the
# rail read right at 0.113, lost to a two nearer the rail at 0.032 (the network, shown the two,
# named it); the faces that beat a one only as weighed and were right showed 0.69-0.89 of its
# evidence (as 21250 of checker_face's notes: a two at 0.040 beating a one at 0.135). Cocked
# dice read right on synthetic 30000-30599, 34000-34599 and 38000-38599: 1014 -> 1015 of 1027
# (34548), no other die read otherwise, flat dice and cocked caught unchanged.
ONE_SHARE = 0.5


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
    """The face nearer the rail that a die read cocked there shows (:func:`upward_at_rail`),
    or nearer the checker it leans on (``vision.dice.checker_face``): its pips, its centre
    (board mm) and its pip evidence."""

    pips: int
    x_mm: float
    y_mm: float
    score: float = 0.0  # its pip evidence (vision.dice.tilted's score)


def upward_at_rail(gray: Callable[[], np.ndarray], from_mm: np.ndarray, face: FaceFinding,
                   g: BoardGeometry) -> list[RailFace]:
    """The faces nearer the rail that may be the upward face of a die read cocked there, most
    likely first (see :data:`RAIL_REACH_SIDES` and the ranking under it): none when the best
    of them lies too near the rail to be an upward face (a row of the face read's pips) or none
    shows more pip evidence than ``face``. ``gray`` gives the frame in grey, asked for only at
    the rail."""
    way = way_to_rail(face, g)
    if way is None:
        return []
    height = g.height_mm
    return faces_towards(gray(), from_mm, face, g, (0.0, way),
                         lambda _x, y: y if way < 0 else height - y)


def faces_towards(gray: np.ndarray, from_mm: np.ndarray, face: FaceFinding, g: BoardGeometry,
                  way: tuple[float, float], room: Callable[[float, float], float]
                  ) -> list[RailFace]:
    """The faces lying at least :data:`RAIL_NEARER_SIDES` farther along ``way`` (a unit
    vector on the board: towards what the die leans on) than ``face``, looked for
    :data:`RAIL_LOOK_SIDES` that way, ranked as :func:`upward_at_rail` says; ``room`` gives a
    place's distance (mm) from what the die leans on, which an upward face keeps
    (:data:`RAIL_FACE_MIN_SIDES`)."""
    die = g.die_size_mm
    cx = face.x_mm + way[0] * RAIL_LOOK_SIDES * die
    cy = face.y_mm + way[1] * RAIL_LOOK_SIDES * die
    nearer = sorted((r for r in tilted_reads(gray, from_mm, cx, cy, die)
                     if (way[0] * (cx + r.dx - face.x_mm) + way[1] * (cy + r.dy - face.y_mm)
                         >= RAIL_NEARER_SIDES * die)),
                    key=lambda r: -_weighed(r.score, r.value))

    def clear(r: TiltedRead) -> bool:  # far enough from the support for an upward face
        return room(cx + r.dx, cy + r.dy) >= RAIL_FACE_MIN_SIDES * die

    if not nearer or not clear(nearer[0]):
        return []  # the best evidence there is a row of the face read's pips, or none
    out: list[RailFace] = []
    for r in nearer:
        if (clear(r) and r.score > _weighed(face.score, face.pips)
                and r.score >= ONE_SHARE * face.score
                and all(f.pips != r.value for f in out)):
            out.append(RailFace(r.value, cx + r.dx, cy + r.dy, r.score))
    return out


def _weighed(score: float, pips: int) -> float:
    """A face's pip evidence as the face read ranks it: a one's less ``ONE_WEIGHT``."""
    return score - ONE_WEIGHT * (pips == 1)
