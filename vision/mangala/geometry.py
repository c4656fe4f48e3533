"""The Mangala board in millimetres, its 14 cells in a fixed order, and calibration from the
board's four corners in a picture.

Cell order (the contract with the referee): 0..5 are player a's pits 1..6, 6 is a's store,
7..12 are b's pits 1..6, 13 is b's store. Player a sits at the bottom of the image; a's pits run
left to right along the bottom row and a's store is at the right end; b's pits run right to left
along the top row (b's pit 1 is top right) and b's store is at the left end. So the pit opposite
a's pit i is b's pit 7-i, in the same column (DESIGN.md "Mangala position").
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engine.errors import ImageError, InvalidInputError

CELL_COUNT = 14
A_STORE = 6
B_STORE = 13
TOTAL_STONES = 48


class MangalaCornersError(ImageError):
    """The four board corners are malformed, outside the picture or degenerate."""


@dataclass(frozen=True)
class Cell:
    """One pit or store: its centre and its half sizes in board millimetres (an ellipse)."""

    index: int
    centre: tuple[float, float]
    half_size: tuple[float, float]
    is_store: bool

    @property
    def owner(self) -> str:
        """``"a"`` for cells 0..6, ``"b"`` for cells 7..13."""
        return "a" if self.index < 7 else "b"


@dataclass(frozen=True)
class MangalaGeometry:
    """Sizes of a wooden tournament Mangala board (mm); x to the right, y down the image.

    The board's corners (its outer edge) are what calibration is given.
    """

    length_mm: float = 500.0
    width_mm: float = 190.0
    pit_diameter_mm: float = 58.0
    pit_pitch_mm: float = 62.0  # distance between neighbouring pit centres along a row
    row_offset_mm: float = 45.0  # each row's centre line from the board's long centre line
    store_length_mm: float = 150.0  # across the board (along y)
    store_width_mm: float = 56.0  # along the board (along x)
    store_inset_mm: float = 36.0  # store centre from the board's short edge
    stone_diameter_mm: float = 13.0

    @property
    def corners_mm(self) -> np.ndarray:
        """Board corners TL, TR, BR, BL in millimetres (float32, 4 x 2)."""
        w, h = self.length_mm, self.width_mm
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)

    def _column_x(self, col: int) -> float:
        return self.length_mm / 2 + (col - 2.5) * self.pit_pitch_mm

    def cells(self) -> tuple[Cell, ...]:
        """The 14 cells in contract order."""
        r = self.pit_diameter_mm / 2
        top = self.width_mm / 2 - self.row_offset_mm
        bottom = self.width_mm / 2 + self.row_offset_mm
        mid = self.width_mm / 2
        store_half = (self.store_width_mm / 2, self.store_length_mm / 2)
        out: list[Cell] = []
        for i in range(6):  # a's pits 1..6: bottom row, left to right
            out.append(Cell(i, (self._column_x(i), bottom), (r, r), False))
        out.append(Cell(A_STORE, (self.length_mm - self.store_inset_mm, mid), store_half, True))
        for j in range(6):  # b's pits 1..6: top row, right to left
            out.append(Cell(7 + j, (self._column_x(5 - j), top), (r, r), False))
        out.append(Cell(B_STORE, (self.store_inset_mm, mid), store_half, True))
        return tuple(out)

    def cell(self, index: int) -> Cell:
        """One cell by its contract index (0..13)."""
        if not 0 <= index < CELL_COUNT:
            raise InvalidInputError(f"cell {index} is not in 0..13")
        return self.cells()[index]


DEFAULT_GEOMETRY = MangalaGeometry()


def check_corners(corners: object, image_shape: tuple[int, ...] | None = None) -> np.ndarray:
    """The corners as a 4 x 2 float32 array (TL, TR, BR, BL), checked: finite, a convex
    quadrilateral, and (when ``image_shape`` is given) inside the picture."""
    try:
        c = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    except (TypeError, ValueError):
        raise MangalaCornersError(f"corners must be 4 points x,y, not {corners!r}") from None
    if not np.all(np.isfinite(c)):
        raise MangalaCornersError(f"corners must be finite numbers: {c.tolist()}")
    if image_shape is not None:
        h, w = image_shape[:2]
        for x, y in c:
            if not (-1 <= x <= w and -1 <= y <= h):
                raise MangalaCornersError(
                    f"corner ({x:.0f}, {y:.0f}) is outside the {w}x{h} picture")
    cross = []
    for i in range(4):
        a, b, d = c[i], c[(i + 1) % 4], c[(i + 2) % 4]
        cross.append((b[0] - a[0]) * (d[1] - b[1]) - (b[1] - a[1]) * (d[0] - b[0]))
    if not (all(x > 1e-6 for x in cross) or all(x < -1e-6 for x in cross)):
        raise MangalaCornersError(f"corners {c.round(1).tolist()} are not a convex quadrilateral")
    return c.astype(np.float32)


@dataclass(frozen=True)
class MangalaCalibration:
    """Where the board is in a picture: image pixels <-> board millimetres."""

    corners: np.ndarray  # 4 x 2 float32, TL, TR, BR, BL image pixels
    geometry: MangalaGeometry = DEFAULT_GEOMETRY

    @property
    def image_to_mm(self) -> np.ndarray:
        """3 x 3 homography from image pixels to board millimetres."""
        h: np.ndarray = cv2.getPerspectiveTransform(self.corners, self.geometry.corners_mm)
        return h

    @property
    def mm_to_image(self) -> np.ndarray:
        """3 x 3 homography from board millimetres to image pixels."""
        h: np.ndarray = cv2.getPerspectiveTransform(self.geometry.corners_mm, self.corners)
        return h

    def points_to_image(self, pts_mm: np.ndarray) -> np.ndarray:
        """Board millimetres (N x 2) to image pixels (N x 2)."""
        p = np.asarray(pts_mm, dtype=np.float64).reshape(-1, 1, 2)
        out: np.ndarray = cv2.perspectiveTransform(p, self.mm_to_image).reshape(-1, 2)
        return out

    def points_to_mm(self, pts_px: np.ndarray) -> np.ndarray:
        """Image pixels (N x 2) to board millimetres (N x 2)."""
        p = np.asarray(pts_px, dtype=np.float64).reshape(-1, 1, 2)
        out: np.ndarray = cv2.perspectiveTransform(p, self.image_to_mm).reshape(-1, 2)
        return out

    def px_per_mm(self) -> float:
        """Mean image scale over the board (pixels per millimetre)."""
        c = self.corners.astype(np.float64)
        g = self.geometry
        top = np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[2] - c[3])
        side = np.linalg.norm(c[3] - c[0]) + np.linalg.norm(c[2] - c[1])
        return float((top / (2 * g.length_mm) + side / (2 * g.width_mm)) / 2)


def calibrate(corners: object, image_shape: tuple[int, ...] | None = None,
              geometry: MangalaGeometry = DEFAULT_GEOMETRY) -> MangalaCalibration:
    """A calibration from the board's four corners (TL, TR, BR, BL) in image pixels."""
    return MangalaCalibration(check_corners(corners, image_shape), geometry)
