"""The upward face of a die read cocked against a checker (BG-ROLL-2): its top tips towards the
checker, so, as at the rail (``vision.dice.rail_face``), a face nearer the checker that reads
better is taken for it (:func:`upward_at_checker`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np

from vision.dice.face_fit import FaceFinding, warp_patch
from vision.dice.on_checker import RIM_SUPPORT_MIN, rim_support
from vision.dice.rail_face import RailFace, faces_towards, way_to_rail
from vision.dice.support import checker_places
from vision.geometry import BoardGeometry

# A die leaning on a checker rests with its centre half a side and a bit (its reach, 0.6 to
# 0.71 of a side at 12 to 45 degrees) beyond the checker's rim; the face read, its upward face
# (nearer the checker) or the side face beside it (farther), lies up to about half a side
# either side of that. The checker it leans on is the nearest checker place (each slot's
# nominal places, as the board reading counts them) whose centre lies between LEAN_NEAR_SIDES
# and LEAN_FAR_SIDES (support.LEAN_REACH_SIDES) of a side beyond its rim from the face read and
# whose rim shows in the picture: edged (on_checker.rim_support) over RIM_SUPPORT_MIN of it
# away from the die, a checker standing up to CHECKER_SHIFT_MM off its place.
LEAN_NEAR_SIDES = 0.3
LEAN_FAR_SIDES = 1.25
CHECKER_SHIFT_MM = 1.5
RIM_PPM = 1.5  # px/mm of the patch the rims are looked for in (on_checker's)
# The faces nearer the checker are looked for and ranked as at the rail (rail_face's constants:
# half a side nearer, ranked by pip evidence, a one's weighed less but never beaten by a face
# with under ONE_SHARE of its evidence, each beating the face read's). Unlike the rail's, the
# network is not asked to confirm the first of them: of those
# it names (clearing its bar) the one it is surest of gives the pips, and where it names none
# the first does when its pip evidence, unweighed, beats the face read's (board.cocked_pips).
# Against a checker the network, shown the faces in turn, names a side face or a face that is
# not there as often as the upward face (a translucent die's hidden pips show through; a die
# turned as well as tilted shows three faces). On the analysis throws (synthetic 20300-20899
# and 40000-40599, and 500 dice leaning on a checker, vision.dice.leaning 2,900,000-2,900,499:
# 557 cocked dice read cocked away from the rail, 16 of them read wrong) this sets 6 right and
# none wrong; confirmed faces alone, first taken as at the rail, set 2 right; faces looked for
# a quarter side nearer instead, 4 right and 3 wrong (a one read right, a two beside it nearer
# the checker). The first unnamed face taken whatever its evidence set 21250's four wrong (a
# one read at 0.135 beside its four, a two nearer the checker at 0.040 beat the one only as
# weighed); the 5 it set right beat the face read's evidence by 0.02 to 0.10.


def leaned_checker(gray: np.ndarray, from_mm: np.ndarray, face: FaceFinding,
                   g: BoardGeometry) -> tuple[float, float] | None:
    """The centre (board mm) of the checker a die read cocked at ``face`` leans on (see
    :data:`LEAN_NEAR_SIDES`), or None when no checker place within reach shows a rim."""
    r = g.checker_diameter_mm / 2
    die = g.die_size_mm
    near, far = r + LEAN_NEAR_SIDES * die, r + LEAN_FAR_SIDES * die
    places = sorted((math.hypot(x - face.x_mm, y - face.y_mm), float(x), float(y))
                    for x, y in checker_places((None,) * 24, g))  # every place of every slot
    places = [p for p in places if near <= p[0] <= far]
    if not places:
        return None
    size = 2 * (far + r + CHECKER_SHIFT_MM) + 2  # every such checker whole, the die centred
    patch = warp_patch(gray, from_mm, face.x_mm, face.y_mm, size, RIM_PPM)
    blurred = cv2.GaussianBlur(patch, (5, 5), 1.2)
    magnitude = cv2.magnitude(cv2.Sobel(blurred, cv2.CV_32F, 1, 0, ksize=3),
                              cv2.Sobel(blurred, cv2.CV_32F, 0, 1, ksize=3))
    centre = size * RIM_PPM / 2
    shifts = (-CHECKER_SHIFT_MM, 0.0, CHECKER_SHIFT_MM)
    for _, x, y in places:
        px = centre + (x - face.x_mm) * RIM_PPM
        py = centre + (y - face.y_mm) * RIM_PPM
        if max(rim_support(magnitude, px + sx * RIM_PPM, py + sy * RIM_PPM, r * RIM_PPM,
                           centre, die * RIM_PPM)
               for sx in shifts for sy in shifts) >= RIM_SUPPORT_MIN:
            return x, y
    return None


def upward_at_checker(gray: Callable[[], np.ndarray], from_mm: np.ndarray, face: FaceFinding,
                      g: BoardGeometry) -> list[RailFace]:
    """The faces nearer the checker that may be the upward face of a die read cocked against
    one (:func:`leaned_checker`), most likely first, ranked and kept clear of the checker's rim
    as :func:`rail_face.upward_at_rail` ranks and keeps them clear of the rail; none at the
    rail (that rule's) or with no checker found. ``gray`` gives the frame in grey."""
    if way_to_rail(face, g) is not None:
        return []
    frame = gray()
    checker = leaned_checker(frame, from_mm, face, g)
    if checker is None:
        return []
    cx, cy = checker
    d = math.hypot(cx - face.x_mm, cy - face.y_mm)
    r = g.checker_diameter_mm / 2
    return faces_towards(frame, from_mm, face, g, ((cx - face.x_mm) / d, (cy - face.y_mm) / d),
                         lambda x, y: math.hypot(x - cx, y - cy) - r)
