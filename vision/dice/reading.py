"""Dice and cube of a frame whose board corners are known, for callers without a prepared frame.

:func:`read_dice_and_cube` takes the camera frame and the playing surface's image corners and
returns both readings as Python objects (for the referee: each die's half for BG-ROLL-2, flat,
on a checker; the cube's value and place for BG-CUBE-*), read by the board's dice and cube
pass (``vision.dice.board_pass``, which ``hakem vision read`` runs on the board reader's frame).
A die and the cube read at one place are settled by :func:`settle_dice_and_cube`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from vision.cube import CubeReading
from vision.dice.board_die import BoardDie
from vision.geometry import BoardGeometry, Canonical

# A die read with less confidence than this is taken for a reflection, not a die; one read
# cocked (a tilted face reads less surely) is kept down to COCKED_FLOOR. The table's camera
# floors default to these (``controller.config.table.CameraSection``, where they are argued);
# ``hakem vision read`` clears no checker's place under a die below them.
DIE_FLOOR = 0.5
COCKED_FLOOR = 0.15


@dataclass(frozen=True)
class DiceAndCube:
    """What lies on the board besides the checkers."""

    dice: list[BoardDie]
    cube: CubeReading | None

    def dice_json(self) -> list[dict[str, Any]]:
        """DESIGN.md ``dice`` entries: pips, centre (image px), flat, on_checker, confidence."""
        return [d.as_json() for d in self.dice]

    def cube_json(self) -> dict[str, Any] | None:
        """DESIGN.md ``cube``: value, centre (image px), zone; None when no cube is seen."""
        return None if self.cube is None else self.cube.as_json()


def image_to_mm(corners: np.ndarray, geometry: BoardGeometry) -> np.ndarray:
    """The 3x3 homography from image pixels to board millimetres, from the four corners."""
    return _image_to_mm(np.asarray(corners, np.float32).reshape(4, 2).tobytes(),
                        geometry).copy()


@functools.lru_cache(maxsize=8)
def _image_to_mm(corners: bytes, geometry: BoardGeometry) -> np.ndarray:
    """:func:`image_to_mm` of corners given as float32 bytes, worked out once per camera
    set-up (a table's dice memory asks for it on every frame it reads)."""
    return Canonical(geometry, 1.0, (0.0, 0.0)).homography_from_image(
        np.frombuffer(corners, np.float32).reshape(4, 2))


def read_dice_and_cube(image: np.ndarray, corners: np.ndarray,
                       geometry: BoardGeometry | None = None, *,
                       darker_at_top: bool | None = None) -> DiceAndCube:
    """Read the dice and the cube in a frame whose playing-surface corners are known.

    ``darker_at_top``: whether the darker checkers' player sits at the top of the picture
    (names the cube's side); unknown is taken as the darker player at the bottom."""
    from vision.board_reader import prepare  # late: the board reader's pass imports this
    from vision.calibration import Calibration
    from vision.dice.board_pass import read_frame

    g = geometry or BoardGeometry()
    cal = Calibration(np.asarray(corners, np.float32).reshape(4, 2), "corners", g)
    return read_frame(prepare(image, cal), darker_at_top=darker_at_top)


def settle_dice_and_cube(dice: list[BoardDie], cube: CubeReading | None, geometry: BoardGeometry
                 ) -> tuple[list[BoardDie], CubeReading | None]:
    """Settle a die read on the cube's face: the cube's number can pass for pips, and a die's
    face for a cube with a number, while a real die (even one leaning on the cube) lies with
    its centre outside the cube's face. The more confident reading stays: the cube, or the
    dice overlapping it (the cube is then taken as not seen)."""
    if cube is None or not dice:
        return dice, cube
    cx, cy = cube.centre_mm
    reach = 0.5 * geometry.cube_size_mm
    on_face = [d for d in dice if math.hypot(d.centre_mm[0] - cx, d.centre_mm[1] - cy) < reach]
    if any(d.confidence > cube.confidence for d in on_face):
        return dice, None
    return [d for d in dice if all(d is not o for o in on_face)], cube


def kept_die(flat: bool, confidence: float, die_floor: float = DIE_FLOOR,
             cocked_floor: float = COCKED_FLOOR) -> bool:
    """Whether a die read ``flat`` (or cocked) with ``confidence`` is kept: below its floor a
    die is taken for a reflection (a tilted face reads less surely, so one read cocked is kept
    down to ``cocked_floor`` if that is lower than ``die_floor``)."""
    return confidence >= (die_floor if flat else min(cocked_floor, die_floor))
