"""A printable sheet of the four ArUco markers that calibrate the camera on every frame.

Print at the given dpi without scaling; cut out each marker with its white border and stick
marker 0 at the top-left tray end, 1 top-right, 2 bottom-right, 3 bottom-left (as seen by the
camera), centred where :meth:`vision.geometry.BoardGeometry.marker_centres_mm` says.
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.errors import ConfigError
from vision.calibration import ARUCO_DICTIONARY, MARKER_IDS
from vision.geometry import BoardGeometry

A4_MM = (210.0, 297.0)
NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
# Where each marker's centre sits on the page (shares of its width and height).
CELLS = ((0.27, 0.25), (0.73, 0.25), (0.73, 0.65), (0.27, 0.65))
QUIET_SHARE = 1 / 6  # the white border drawn around a marker, as a share of its side
# A 4x4 marker and its one-bit black border need a pixel per bit at least.
MIN_MARKER_PX = 6
# The largest marker whose white border does not run into its neighbour's on the page.
MAX_SHEET_MARKER_MM = (CELLS[1][0] - CELLS[0][0]) * A4_MM[0] / (1 + 2 * QUIET_SHARE)


def check_sheet(geometry: BoardGeometry, dpi: int) -> None:
    """Refuse a marker size the A4 sheet cannot hold four of, or too small to print at
    ``dpi`` (the geometry itself admits any board measurement up to a metre)."""
    size = geometry.marker_size_mm
    if size > MAX_SHEET_MARKER_MM:
        raise ConfigError(f"vision.geometry.marker_size_mm {size:g} is too large for the a4 "
                          f"marker sheet (at most {MAX_SHEET_MARKER_MM:.0f} mm)")
    if round(size * dpi / 25.4) < MIN_MARKER_PX:
        least = MIN_MARKER_PX * 25.4 / dpi
        raise ConfigError(f"vision.geometry.marker_size_mm {size:g} is too small to print at "
                          f"{dpi} dpi (at least {least:.1f} mm)")


def marker_sheet(geometry: BoardGeometry, dpi: int = 300) -> np.ndarray:
    """An A4 page (portrait, white) holding the four markers at true size, labelled."""
    check_sheet(geometry, dpi)
    px_per_mm = dpi / 25.4
    w = round(A4_MM[0] * px_per_mm)
    h = round(A4_MM[1] * px_per_mm)
    page = np.full((h, w), 255, np.uint8)
    side = round(geometry.marker_size_mm * px_per_mm)
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    for marker_id, (fx, fy) in zip(MARKER_IDS, CELLS, strict=True):
        img = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
        x0 = int(fx * w - side / 2)
        y0 = int(fy * h - side / 2)
        page[y0 : y0 + side, x0 : x0 + side] = img
        quiet = side // 6  # QUIET_SHARE
        cv2.rectangle(page, (x0 - quiet, y0 - quiet), (x0 + side + quiet, y0 + side + quiet),
                      160, 1)
        label = f"{marker_id}: {NAMES[marker_id]}"
        scale = max(0.5, dpi / 300.0)
        cv2.putText(page, label, (x0 - quiet, y0 + side + quiet + int(28 * scale)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.9 * scale, 0, max(1, int(2 * scale)), cv2.LINE_AA)
    title = (f"hakem board markers: DICT_4X4_50, {geometry.marker_size_mm:g} mm, "
             f"print at {dpi} dpi, no scaling")
    scale = max(0.5, dpi / 300.0)
    cv2.putText(page, title, (int(0.06 * w), int(0.06 * h)), cv2.FONT_HERSHEY_SIMPLEX,
                0.8 * scale, 0, max(1, int(2 * scale)), cv2.LINE_AA)
    out: np.ndarray = cv2.cvtColor(page, cv2.COLOR_GRAY2BGR)
    return out
