"""The fast path of the board's dice and cube pass: the cube on top-down rasters of parts of
the board (:class:`RasterStrip`, :func:`find_cube_on_strips`), its face read from the camera
frame, the search stopping at a face read surely.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.cube import CubeReading, cube_place, zone_for
from vision.cube_face import FACE_PX, located_face_match, read_confidence
from vision.cube_search import order
from vision.cube_squares import ink_centres, light_masks, light_squares_fast
from vision.geometry import BoardGeometry

# below this face-read confidence a square found by the fast path is not taken for the cube
# (synthetic throws: cubes read at 0.7 and above; markers, dice, light patches at 0)
MIN_STRIP_CONFIDENCE = 0.2
SURE_CONFIDENCE = 0.5  # a face read this well is the cube: the search stops there


@dataclass(frozen=True)
class RasterStrip:
    """A top-down raster of part of the board: pixel (u, v) is board mm
    (x0_mm + u / px_per_mm, y0_mm + v / px_per_mm)."""

    bgr: np.ndarray
    px_per_mm: float
    x0_mm: float
    y0_mm: float
    numbers: bool = True  # also look for the cube by its number
    # the raster's 3x3 Sobel derivatives (x, y), when already worked out (the reading raster's)
    sobel: tuple[np.ndarray, np.ndarray] | None = None
    # the raster in grey (``cv2.COLOR_BGR2GRAY``), when already worked out (the reading raster's)
    grey: np.ndarray | None = None

    def gray(self) -> np.ndarray:
        """The raster in grey."""
        if self.grey is not None:
            return self.grey
        out: np.ndarray = (cv2.cvtColor(self.bgr, cv2.COLOR_BGR2GRAY) if self.bgr.ndim == 3
                           else self.bgr)
        return out

    def gradients(self) -> tuple[np.ndarray, np.ndarray]:
        """The raster's 3x3 Sobel derivatives (x, y)."""
        if self.sobel is not None:
            return self.sobel
        gx, gy = cv2.spatialGradient(np.ascontiguousarray(self.gray()))
        return gx, gy

    def to_mm(self, pts: np.ndarray) -> np.ndarray:
        """Raster pixels to board mm."""
        out: np.ndarray = (np.asarray(pts, np.float64).reshape(-1, 2) / self.px_per_mm
                           + np.array([self.x0_mm, self.y0_mm]))
        return out


INK_FACE_SHARE = 1.25  # the face read about a number: its centre may lie a little off
# degrees tried about the yaw of the number's box: near it, then (a promising face) all round
INK_TURNS = (0.0, -7.0, 7.0, -14.0, 14.0, -21.0, 21.0, -28.0, 28.0, -35.0, 35.0, -42.0, 42.0)
PROMISING_MATCH = 0.6  # a face correlating this well near the box's yaw is tried all round
NUMBER_LIKE_MATCH = 0.3  # ... this well, tried a little aside


def find_cube_on_strips(strips: Iterable[RasterStrip], image: np.ndarray, from_mm: np.ndarray,
                        geometry: BoardGeometry, *, darker_at_top: bool | None = None
                        ) -> CubeReading | None:
    """The cube on top-down rasters of the board, its face read from the camera frame
    ``image`` (``from_mm``: board mm to image px), or None.

    The fast path of the board's dice and cube pass: light squares of the cube's size in the
    rasters (see :func:`light_square_candidates`; each raster sets its own light levels),
    then squares about a number's strokes (:func:`ink_centres`), each face warped from the
    frame alone and read (:func:`face_match`). The rasters are searched in turn and the
    search stops at a face read surely (there is one cube); with none, the rasters' numbers
    are read once more, whole with their fainter strokes (``ink_centres(faint=True)``).
    Squares centred on an ArUco marker (a white square with a black pattern, at each tray's
    ends) are not taken for the cube."""
    markers = geometry.marker_centres_mm().astype(np.float64)
    clear = 0.25 * geometry.marker_size_mm * (1.0 + 1.0 / 3.0)  # a marker is centred there
    dst = np.array([[0, 0], [FACE_PX - 1, 0], [FACE_PX - 1, FACE_PX - 1], [0, FACE_PX - 1]],
                   np.float32)
    best: tuple[float, int, np.ndarray, np.ndarray] | None = None  # with the face's quad (mm)

    def read_square(strip: RasterStrip, quad: np.ndarray, inset_share: float,
                    tops: list[float] | None = None) -> float:
        """Read the face in a square (``inset_share`` of it, about its centre); the best
        confidence yet. The cube's centre is taken where its number is. The read's best
        correlation is added to ``tops``."""
        nonlocal best
        quad_mm = strip.to_mm(order(quad))
        centre = quad_mm.mean(axis=0)
        if (np.hypot(*(markers - centre).T) < clear).any():
            return -1.0 if best is None else best[0]
        inset = centre + (quad_mm - centre) * inset_share
        quad_img = cv2.perspectiveTransform(inset.reshape(-1, 1, 2), from_mm).reshape(-1, 2)
        m = cv2.getPerspectiveTransform(quad_img.astype(np.float32), dst)
        face = cv2.warpPerspective(image, m, (FACE_PX, FACE_PX), flags=cv2.INTER_LINEAR)
        if face.ndim == 3:
            face = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
        if float(face.std()) >= 15.0:  # a plain light square has no number
            found = located_face_match(face)
            if tops is not None:
                tops.append(found.top)
            confidence = read_confidence(found.top, found.second)
            if best is None or confidence > best[0]:
                u, v = found.centre
                # the number's centre: the face pixel back on the square, in board mm
                a, b = u / (FACE_PX - 1), v / (FACE_PX - 1)
                at = ((1 - a) * (1 - b) * inset[0] + a * (1 - b) * inset[1] + a * b * inset[2]
                      + (1 - a) * b * inset[3])
                best = (confidence, found.value, at, inset)
        return -1.0 if best is None else best[0]

    def read_number(strip: RasterStrip, cx: float, cy: float, ang: float, side: float
                    ) -> bool:
        """Read the face about a number found at (cx, cy) px, its box turned by ``ang``;
        whether it was read surely. The box gives the yaw roughly (a single digit's hardly)
        and the centre within a tenth of the face: near them first, then, for a face that
        looks like a number, every 7 degrees of a quarter turn, or a little aside."""
        tops: list[float] = []

        def at(x: float, y: float, turns: tuple[float, ...], share: float = INK_FACE_SHARE
               ) -> bool:
            for turn in turns:
                quad = cv2.boxPoints(((x, y), (side, side), ang + turn))
                if read_square(strip, quad, share, tops) >= SURE_CONFIDENCE:
                    return True
            return False

        if at(cx, cy, INK_TURNS[:3]):
            return True
        # a cube against a checker or the bar's edge: the wider face takes in their dark
        # seams, the face itself alone reads
        if at(cx, cy, INK_TURNS[:1], 1.0):
            return True
        if max(tops, default=0.0) >= PROMISING_MATCH:
            return at(cx, cy, INK_TURNS[3:])
        if max(tops, default=0.0) < NUMBER_LIKE_MATCH:
            return False
        step = 0.1 * side
        for dx, dy in ((step, 0.0), (-step, 0.0), (0.0, step), (0.0, -step)):
            tops.clear()
            if at(cx + dx, cy + dy, INK_TURNS[:3]):
                return True
            if max(tops, default=0.0) >= PROMISING_MATCH:
                return at(cx + dx, cy + dy, INK_TURNS[3:])
        return False

    def numbers_read(strip: RasterStrip, faint: bool) -> bool:
        """Whether a face read about one of a raster's numbers (:func:`ink_centres`) was
        read surely."""
        side = geometry.cube_size_mm * strip.px_per_mm
        return strip.numbers and any(
            read_number(strip, cx, cy, ang, side) for cx, cy, ang in
            ink_centres(strip.gray(), strip.px_per_mm, geometry.cube_size_mm, faint=faint))

    searched: list[RasterStrip] = []
    for strip in strips:
        searched.append(strip)
        masks, _ = light_masks(strip.bgr)
        squares: list[np.ndarray] = []
        for light in masks:
            squares += light_squares_fast(light, strip.px_per_mm, geometry.cube_size_mm)
        if max((read_square(strip, q, 0.88) for q in squares), default=-1.0) >= SURE_CONFIDENCE:
            break  # there is one cube
        if numbers_read(strip, False):
            break
    else:
        # no face read surely: the numbers again, made whole by their fainter strokes (a thin
        # font's digit, a dimly lit cube), in the same order
        for strip in searched:
            if numbers_read(strip, True):
                break
    if best is None or best[0] < MIN_STRIP_CONFIDENCE:
        return None
    confidence, read, centre, quad_mm = best
    if read in (2, 4):
        # the end of a 32 or a 64 whose other digit fell outside the face read? Read again
        # about the number's centre, a little wider
        side_mm = float(np.linalg.norm(quad_mm[1] - quad_mm[0]))
        wider = centre + (quad_mm - quad_mm.mean(axis=0)) * (
            1.3 * geometry.cube_size_mm / max(side_mm, 1e-6))
        quad_img = cv2.perspectiveTransform(wider.reshape(-1, 1, 2), from_mm).reshape(-1, 2)
        m = cv2.getPerspectiveTransform(quad_img.astype(np.float32), dst)
        face = cv2.warpPerspective(image, m, (FACE_PX, FACE_PX), flags=cv2.INTER_LINEAR)
        again = located_face_match(
            face if face.ndim == 2 else cv2.cvtColor(face, cv2.COLOR_BGR2GRAY))
        if again.value == {2: 32, 4: 64}[read] and read_confidence(
                again.top, again.second) >= SURE_CONFIDENCE:
            read = again.value
    x_mm, y_mm = float(centre[0]), float(centre[1])
    p = cv2.perspectiveTransform(np.array([[[x_mm, y_mm]]]), from_mm).reshape(2)
    place = cube_place(geometry, x_mm, y_mm)
    return CubeReading(read, (x_mm, y_mm), (float(p[0]), float(p[1])),
                       zone_for(place, darker_at_top), place, confidence)
