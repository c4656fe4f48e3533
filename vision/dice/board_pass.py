"""The dice and cube pass of a board reading: DESIGN.md's ``dice`` and ``cube`` fields.

Works on the board reader's :class:`~vision.board_reader.PreparedFrame`: the dice are read by
``vision.dice.board.read_board_dice`` with its raster candidates (a small raster of the case,
each candidate read closely in the camera frame: several times faster than the referee's spot
candidates over the whole frame); the cube (``vision.cube_strips.find_cube_on_strips``) is
looked for where it lies, most likely first, and the search stops at the first face read
surely: the bar (a slice of the reading raster: centred, or at its owner's end), each bear-off
tray (a small raster remapped from the frame with tables kept per camera set-up: the Crawford
game), then the whole reading raster (offered, BG-CUBE-3). BG-ROLL-2 (flat, inside the
thrower's right half) is judged from these readings by ``vision.throw``; BG-CUBE-* from the
cube's value and place.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

import cv2
import numpy as np

from vision.cube import CubeReading, zone_for
from vision.cube_strips import RasterStrip, find_cube_on_strips
from vision.dice.board import read_board_dice
from vision.dice.board_die import BoardDie
from vision.dice.change_map import frame_key
from vision.dice.cube_memory import CubeMemory
from vision.dice.raster import topdown_maps
from vision.dice.reading import DiceAndCube, image_to_mm, settle_dice_and_cube
from vision.dice.stack_rims import without_stack_rims
from vision.dice.support import one_reading_per_die, with_supports
from vision.geometry import BoardGeometry

if TYPE_CHECKING:
    from vision.board_reader import PreparedFrame

TRAY_PX_PER_MM = 0.7


def _from_mm(corners: np.ndarray, geometry: BoardGeometry) -> np.ndarray:
    """Board mm to image px, from the playing surface's corners in the image."""
    out: np.ndarray = np.linalg.inv(image_to_mm(corners, geometry))
    return out


def read_frame_dice(frame: PreparedFrame) -> list[BoardDie]:
    """Every die on the board in a prepared frame, at most four (BG-ROLL-2's readings):
    ``board.read_board_dice`` on the frame's camera picture, with its raster candidates."""
    g = frame.calibration.geometry
    return read_board_dice(frame.image, image_to_mm(frame.calibration.corners, g), g)


@functools.lru_cache(maxsize=6)
def _strip_maps(from_mm: tuple[float, ...], x0: float, y0: float, size: tuple[int, int],
                ppm: float) -> tuple[np.ndarray, np.ndarray]:
    """Remap tables (fixed point) for a top-down strip of the board: kept for the next
    frame, since the camera and the board stay put."""
    return topdown_maps(np.array(from_mm, np.float64).reshape(3, 3), x0, y0, size, ppm)


def tray_strip(frame: PreparedFrame, from_mm: np.ndarray, side: Literal["left", "right"]
               ) -> RasterStrip:
    """A top-down raster of a bear-off tray (where the cube lies off the board in the Crawford
    game), remapped from the camera frame with tables kept per camera set-up."""
    g = frame.calibration.geometry
    y0 = -g.frame_mm / 2
    height = round((g.height_mm + g.frame_mm) * TRAY_PX_PER_MM)
    tray = g.tray_rect(side)
    x0 = tray.x0 - 8.0
    width = round((tray.x1 - tray.x0 + 16.0) * TRAY_PX_PER_MM)
    return _remapped_strip(frame, from_mm, x0, y0, (width, height))


def _remapped_strip(frame: PreparedFrame, from_mm: np.ndarray, x0: float, y0: float,
                    size: tuple[int, int]) -> RasterStrip:
    """A top-down strip of the case from (x0, y0) board mm, ``size`` pixels at
    ``TRAY_PX_PER_MM``, remapped from the camera frame (tables kept per camera set-up)."""
    key = tuple(np.round(from_mm, 9).reshape(-1).tolist())
    m1, m2 = _strip_maps(key, x0, y0, size, TRAY_PX_PER_MM)
    bgr = cv2.remap(frame.image, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return RasterStrip(bgr, TRAY_PX_PER_MM, x0, y0)


def reading_strip(frame: PreparedFrame) -> RasterStrip:
    """The board reader's raster of the whole case, with its grey and its gradients."""
    can = frame.canonical
    return RasterStrip(frame.bgr, can.px_per_mm, -can.margin_mm[0], -can.margin_mm[1],
                       sobel=frame.gradients, grey=frame.gray)


def cube_strips(frame: PreparedFrame, from_mm: np.ndarray) -> list[RasterStrip]:
    """The reading raster and a raster of each bear-off tray (where the cube lies off the
    board in the Crawford game)."""
    return [reading_strip(frame), tray_strip(frame, from_mm, "left"),
            tray_strip(frame, from_mm, "right")]


def bar_strip(frame: PreparedFrame) -> RasterStrip:
    """The part of the reading raster where the cube lies on the bar (centred, or at either
    player's end), half a cube beyond the bar's edges: its own light levels keep a white cube
    apart from a light field it lies across."""
    g = frame.calibration.geometry
    can = frame.canonical
    reach = 0.75 * g.cube_size_mm
    u0 = max(0, int(can.mm_to_px(g.bar.x0 - reach, 0.0)[0]))
    u1 = min(frame.bgr.shape[1], math.ceil(can.mm_to_px(g.bar.x1 + reach, 0.0)[0]))
    x0_mm = can.px_to_mm(u0, 0.0)[0]
    sobel = None if frame.gradients is None else (frame.gradients[0][:, u0:u1],
                                                   frame.gradients[1][:, u0:u1])
    return RasterStrip(frame.bgr[:, u0:u1], can.px_per_mm, x0_mm, -can.margin_mm[1],
                       sobel=sobel, grey=frame.gray[:, u0:u1])


def bar_end_strip(frame: PreparedFrame, from_mm: np.ndarray, end: Literal["top", "bottom"]
                  ) -> RasterStrip:
    """A top-down raster of one end of the bar and the frame beyond it, where an owned cube
    often lies (BG-CUBE-1), half on the frame: the reading raster stops
    ``READ_MARGIN_MM`` beyond the playing surface, cutting such a cube in two. Remapped from
    the camera frame with tables kept per camera set-up."""
    g = frame.calibration.geometry
    reach = 0.75 * g.cube_size_mm
    x0 = g.bar.x0 - reach
    depth = 2.0 * g.cube_size_mm  # into the playing surface
    beyond = g.frame_mm + 0.5 * g.cube_size_mm  # a cube's corner may pass the case's edge
    y0 = -beyond if end == "top" else g.height_mm - depth
    size = (round((g.bar.x1 - g.bar.x0 + 2 * reach) * TRAY_PX_PER_MM),
            round((beyond + depth) * TRAY_PX_PER_MM))
    return _remapped_strip(frame, from_mm, x0, y0, size)


def search_strips(frame: PreparedFrame, from_mm: np.ndarray) -> Iterator[RasterStrip]:
    """Where the cube is looked for, most likely first (the search stops at a face read
    surely, and a tray is only remapped when reached): the bar (centred, or at its owner's
    end, BG-CUBE-1), the bar's ends on the frame (an owned cube laid there), the trays (the
    Crawford game), the whole board (offered, BG-CUBE-3)."""
    yield bar_strip(frame)
    yield bar_end_strip(frame, from_mm, "top")
    yield bar_end_strip(frame, from_mm, "bottom")
    yield tray_strip(frame, from_mm, "left")
    yield tray_strip(frame, from_mm, "right")
    yield reading_strip(frame)


# the memory of callers without a table of their own (``hakem vision read``, one-off frames);
# a table's frame reader passes its own (``vision.dice.cube_memory.CubeMemory``)
_SHARED_CUBE = CubeMemory()


def forget_cube() -> None:
    """Drop the last cube found without a table's memory (the next frame is searched whole)."""
    _SHARED_CUBE.forget()


def read_frame_cube(frame: PreparedFrame, *, darker_at_top: bool | None = None,
                    reuse: bool = True, memory: CubeMemory | None = None,
                    unchanged: bool = False) -> CubeReading | None:
    """The cube on a prepared frame (BG-CUBE-*): its value, place and zone, or None.

    With ``reuse``, a cube found on an earlier frame of the same camera set-up whose patch
    has not changed (the same face, at the same place: between throws the cube lies still)
    is taken again without a search; any change there (the cube turned, moved, covered)
    searches the frame whole. ``memory``: the table's (see ``vision.dice.reuse``);
    ``unchanged``: nothing on the case changed since the last frame searched (its
    ``DiceMemory`` says so), so a search that found no cube is not repeated."""
    kept = _SHARED_CUBE if memory is None else memory
    g = frame.calibration.geometry
    from_mm = _from_mm(frame.calibration.corners, g)
    key = frame_key(frame.calibration.corners, g)
    if reuse and kept.none_still(key, unchanged):
        return None
    before = kept.reuse(key, frame.image, from_mm, g.cube_size_mm) if reuse else None
    if before is not None:
        zone = zone_for(before.place, darker_at_top)
        return before if zone == before.zone else dataclasses.replace(before, zone=zone)
    found = find_cube_on_strips(search_strips(frame, from_mm), frame.image, from_mm, g,
                                darker_at_top=darker_at_top)
    kept.keep(key, frame.image, from_mm, g.cube_size_mm, found)
    return found


_last: tuple[object, DiceAndCube] | None = None


def read_frame(frame: PreparedFrame, *, darker_at_top: bool | None = None,
               slot_counts: Sequence[tuple[int, int] | None] | None = None) -> DiceAndCube:
    """Dice and cube of a prepared frame; the last frame's result is kept, so a caller asking
    again for the frame the board reader just read pays nothing. ``darker_at_top``: whether
    the darker checkers' player sits at the top of the picture (names the cube's side);
    unknown is taken as the darker player at the bottom. ``slot_counts``: the board reading's
    (``BoardReading.slot_counts``), so that a weak flat "die" where two counted checkers touch
    is left out as their rims (``vision.dice.stack_rims``: a single photo has no earlier
    picture to tell them apart by), a die with nothing to lean on is taken as flat and of more
    than two dice two closer than a die's side are one (``vision.dice.support``, as the table
    keeps them); without them the dice are as the reader called them."""
    global _last
    if _last is not None and _last[0] is frame:
        found = _last[1]
    else:
        dice = read_frame_dice(frame)
        cube = read_frame_cube(frame)
        found = DiceAndCube(*settle_dice_and_cube(dice, cube, frame.calibration.geometry))
        _last = (frame, found)
    if slot_counts is not None:
        g = frame.calibration.geometry
        dice = without_stack_rims(found.dice, g, slot_counts)
        supported = with_supports(dice, g, slot_counts,
                                  None if found.cube is None else found.cube.centre_mm)
        found = DiceAndCube(one_reading_per_die(supported, g.die_size_mm), found.cube)
    if found.cube is not None and darker_at_top is not None:
        zone = zone_for(found.cube.place, darker_at_top)
        if zone != found.cube.zone:
            return DiceAndCube(found.dice, dataclasses.replace(found.cube, zone=zone))
    return found


def read_dice_and_cube(frame: PreparedFrame,
                       slot_counts: Sequence[tuple[int, int] | None] | None = None
                       ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Every die and the cube on a prepared frame, as DESIGN.md's ``dice`` and ``cube``
    (``slot_counts``: the board reading's, see :func:`read_frame`)."""
    found = read_frame(frame, slot_counts=slot_counts)
    return found.dice_json(), found.cube_json()
