"""Calibration: hand corners, ArUco markers, and the one-line errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ImageError
from vision.calibration import (
    BoardNotFoundError,
    CornersOutsideImageError,
    from_corners,
    from_markers,
    parse_corners,
)
from vision.geometry import BoardGeometry
from vision.render import random_scene, render_scene

G = BoardGeometry()


def test_parse_corners() -> None:
    c = parse_corners("1,2,3,4,5,6,7,8")
    assert c.tolist() == [[1, 2], [3, 4], [5, 6], [7, 8]]
    for bad in ("1,2,3", "a,b,c,d,e,f,g,h", "1,2,3,4,5,6,7,nan"):
        with pytest.raises(ImageError):
            parse_corners(bad)


def test_corners_outside_the_image_are_refused() -> None:
    corners = np.array([[10, 10], [2000, 10], [2000, 700], [10, 700]], np.float32)
    with pytest.raises(CornersOutsideImageError, match="outside"):
        from_corners(corners, (720, 1280, 3), G)


def test_corners_in_the_wrong_order_are_refused() -> None:
    corners = np.array([[10, 10], [10, 700], [1200, 700], [1200, 10]], np.float32)
    with pytest.raises(ImageError):
        from_corners(corners, (720, 1280, 3), G)


def test_markers_find_the_board_as_rendered() -> None:
    spec = random_scene(21, hand_probability=0.0, markers=True, hard=False)
    frame = render_scene(spec)
    cal = from_markers(frame.image, G)
    assert cal.source == "markers"
    assert np.abs(cal.corners - frame.corners).max() < 6.0


def test_no_markers_means_board_not_found() -> None:
    frame = render_scene(random_scene(22, hand_probability=0.0, markers=False))
    with pytest.raises(BoardNotFoundError, match="board not found"):
        from_markers(frame.image, G)
    blank = np.zeros((480, 640, 3), np.uint8)
    with pytest.raises(ImageError):
        from_markers(blank, G)
