"""Calibration: where the board is in the picture, as a homography to board millimetres.

Ways, best first: four playing-surface corners given by hand (``--corners``) or from the
table's configuration, the four ArUco markers stuck at the tray ends (found in every frame, so
a nudged board or camera is followed), and as the last resort the playing surface found from
its own edges (:mod:`vision.board_finder`, source "found").
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from engine.errors import ImageError
from vision.board_finder import BoardNotFoundError as BoardNotFoundError  # re-exported
from vision.board_finder import find_board
from vision.bounds import MAX_CORNER_PX
from vision.config import FinderConfig
from vision.geometry import BoardGeometry, Canonical

ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50
MARKER_IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left


class CornersOutsideImageError(ImageError):
    """The given corners do not lie inside the picture."""


@dataclass(frozen=True)
class Calibration:
    """The playing surface's corners in the image (TL, TR, BR, BL) and how they were found."""

    corners: np.ndarray  # 4x2 float32 image pixels
    source: str  # "corners", "markers", "config" or "found"
    geometry: BoardGeometry

    def homography_to(self, canonical: Canonical) -> np.ndarray:
        """Image pixels to ``canonical`` pixels."""
        return canonical.homography_from_image(self.corners)

    def image_to_mm(self, pts: np.ndarray) -> np.ndarray:
        """Image pixels (N x 2) to board millimetres (N x 2)."""
        c = Canonical(self.geometry, 1.0, (0.0, 0.0))
        h = c.homography_from_image(self.corners)
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 1, 2)
        out: np.ndarray = cv2.perspectiveTransform(p, h).reshape(-1, 2)
        return out

    def mm_to_image(self, pts: np.ndarray) -> np.ndarray:
        """Board millimetres (N x 2) to image pixels (N x 2)."""
        c = Canonical(self.geometry, 1.0, (0.0, 0.0))
        h = np.linalg.inv(c.homography_from_image(self.corners))
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 1, 2)
        out: np.ndarray = cv2.perspectiveTransform(p, h).reshape(-1, 2)
        return out


def parse_corners(text: str) -> np.ndarray:
    """``x,y,x,y,x,y,x,y`` (top-left, top-right, bottom-right, bottom-left) to a 4x2 array."""
    parts = [p.strip() for p in text.replace(";", ",").split(",") if p.strip()]
    if len(parts) != 8:
        raise ImageError(f"corners need 8 numbers x,y,x,y,x,y,x,y, not {text!r}")
    try:
        vals = [float(p) for p in parts]
    except ValueError:
        raise ImageError(f"corners must be numbers: {text!r}") from None
    for part, value in zip(parts, vals, strict=True):
        # checked before any arithmetic: 1e308 is finite, yet no float32 holds it
        if not math.isfinite(value) or abs(value) > MAX_CORNER_PX:
            raise ImageError(f"corner coordinate {part} is not a finite number of pixels "
                             f"within -{MAX_CORNER_PX:g}..{MAX_CORNER_PX:g}")
    return np.array(vals, dtype=np.float32).reshape(4, 2)


def from_corners(corners: np.ndarray, image_shape: tuple[int, ...],
                 geometry: BoardGeometry, source: str = "corners") -> Calibration:
    """Check hand-given corners against the picture and make a calibration of them (the same
    corners on pictures of the same size give the same, read-only, calibration: a fixed
    camera's frames are checked once)."""
    c = np.asarray(corners, dtype=np.float32).reshape(4, 2)
    h, w = image_shape[:2]
    return _checked_corners(c.tobytes(), int(h), int(w), geometry, source)


@functools.lru_cache(maxsize=16)
def _checked_corners(corners: bytes, h: int, w: int, geometry: BoardGeometry,
                     source: str) -> Calibration:
    """:func:`from_corners` for corners given as float32 bytes (TL, TR, BR, BL)."""
    c = np.frombuffer(corners, dtype=np.float32).reshape(4, 2).copy()
    c.flags.writeable = False
    inside = (c[:, 0] >= 0) & (c[:, 0] <= w) & (c[:, 1] >= 0) & (c[:, 1] <= h)
    if not inside.all():  # the picture spans 0..w, 0..h
        x, y = c[int(np.argmin(inside))]
        raise CornersOutsideImageError(
            f"corner ({x:g}, {y:g}) is outside the {w}x{h} image"
        )
    # the quadrilateral must be convex and go clockwise TL, TR, BR, BL (all four corners at
    # once: corner i, the next and the one after)
    a, b, d = c, np.roll(c, -1, axis=0), np.roll(c, -2, axis=0)
    cross = (b[:, 0] - a[:, 0]) * (d[:, 1] - b[:, 1]) - (b[:, 1] - a[:, 1]) * (d[:, 0] - b[:, 0])
    if not bool((cross > 0).all()):
        raise ImageError("corners must be top-left, top-right, bottom-right, bottom-left "
                         "of a convex board outline")
    d1, d2 = c[2] - c[0], c[3] - c[1]
    area = 0.5 * abs(float(d1[0] * d2[1] - d1[1] * d2[0]))
    if area < 0.02 * w * h:
        raise ImageError(f"the corners outline only {area:.0f} square pixels: too small a board")
    return Calibration(c, source, geometry)


def detect_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """Centres of the ArUco markers found in ``image`` (id -> (x, y))."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    corners, ids, _rejected = detector.detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.reshape(-1), strict=True):
        if int(marker_id) in MARKER_IDS:
            found[int(marker_id)] = quad.reshape(4, 2).mean(axis=0)
    return found


def from_markers(image: np.ndarray, geometry: BoardGeometry) -> Calibration:
    """Locate the board from its four markers; BoardNotFoundError when any is missing."""
    return _from_marker_centres(detect_markers(image), image.shape, geometry)


def _from_marker_centres(found: dict[int, np.ndarray], shape: tuple[int, ...],
                         geometry: BoardGeometry) -> Calibration:
    """:func:`from_markers` for the markers already detected."""
    missing = [i for i in MARKER_IDS if i not in found]
    if missing:
        raise BoardNotFoundError(
            "board not found: markers " + ", ".join(str(i) for i in missing)
            + " not visible (give --corners x,y,x,y,x,y,x,y)"
        )
    src = geometry.marker_centres_mm().astype(np.float32)
    dst = np.array([found[i] for i in MARKER_IDS], dtype=np.float32)
    h = cv2.getPerspectiveTransform(src, dst)  # board mm -> image px
    corners = cv2.perspectiveTransform(
        geometry.corners_mm.reshape(-1, 1, 2).astype(np.float64), h
    ).reshape(4, 2)
    return from_corners(corners.astype(np.float32), shape, geometry, "markers")


def from_found(image: np.ndarray, geometry: BoardGeometry,
               config: FinderConfig | None = None) -> Calibration:
    """Locate the board from its own edges (no markers, no corners); BoardNotFoundError when
    no board fits the picture."""
    found = find_board(image, geometry, config)
    try:
        return from_corners(found.corners, image.shape, geometry, "found")
    except ImageError as exc:  # a fit running off the picture or too small: not a board
        raise BoardNotFoundError(f"board not found: {exc}") from None


def locate_board(image: np.ndarray, geometry: BoardGeometry,
                 corners: np.ndarray | None = None,
                 finder: FinderConfig | None = None) -> Calibration:
    """Corners when given, else the markers, else the board found from its own edges."""
    if corners is not None:
        return from_corners(corners, image.shape, geometry)
    seen = detect_markers(image)
    try:
        return _from_marker_centres(seen, image.shape, geometry)
    except BoardNotFoundError as missing:
        try:
            return from_found(image, geometry, finder)
        except BoardNotFoundError:
            if seen:  # some markers but not all four: say which are missing
                raise missing from None
            raise
