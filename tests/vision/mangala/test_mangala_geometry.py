"""The Mangala board's cells and calibration (DESIGN.md "Mangala position")."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ImageError
from vision.mangala.geometry import (
    A_STORE,
    B_STORE,
    DEFAULT_GEOMETRY,
    MangalaGeometry,
    calibrate,
)

G = DEFAULT_GEOMETRY


def test_fourteen_cells_in_contract_order() -> None:
    cells = G.cells()
    assert [c.index for c in cells] == list(range(14))
    assert [c.is_store for c in cells] == [False] * 6 + [True] + [False] * 6 + [True]
    a_pits, b_pits = cells[0:6], cells[7:13]
    # a sits at the bottom of the image: a's pits 1..6 run left to right on the bottom row
    assert all(c.centre[1] > G.width_mm / 2 for c in a_pits)
    assert [c.centre[0] for c in a_pits] == sorted(c.centre[0] for c in a_pits)
    # b's pits 1..6 run right to left on the top row (b's left is the image's right)
    assert all(c.centre[1] < G.width_mm / 2 for c in b_pits)
    assert [c.centre[0] for c in b_pits] == sorted((c.centre[0] for c in b_pits), reverse=True)
    # a's store at the right end, b's at the left end
    assert cells[A_STORE].centre[0] > max(c.centre[0] for c in a_pits)
    assert cells[B_STORE].centre[0] < min(c.centre[0] for c in b_pits)


@pytest.mark.parametrize("pit", range(1, 7))
def test_pit_opposite_own_pit_i_is_the_opponents_7_minus_i(pit: int) -> None:
    own = G.cell(pit - 1)
    opposite = G.cell(7 + (7 - pit) - 1)
    assert own.centre[0] == pytest.approx(opposite.centre[0])


def test_cells_inside_the_board_and_apart() -> None:
    cells = G.cells()
    for c in cells:
        assert c.half_size[0] < c.centre[0] < G.length_mm - c.half_size[0]
        assert c.half_size[1] < c.centre[1] < G.width_mm - c.half_size[1]
    for i, a in enumerate(cells):
        for b in cells[i + 1:]:
            dx = abs(a.centre[0] - b.centre[0]) - a.half_size[0] - b.half_size[0]
            dy = abs(a.centre[1] - b.centre[1]) - a.half_size[1] - b.half_size[1]
            assert dx > 0 or dy > 0, (a.index, b.index)


def test_cell_index_out_of_range() -> None:
    with pytest.raises(ValueError, match="14"):
        G.cell(14)


def test_calibration_maps_corners_and_back() -> None:
    corners = np.array([[100, 120], [1150, 150], [1180, 560], [80, 530]], np.float32)
    cal = calibrate(corners, (720, 1280, 3))
    img = cal.points_to_image(G.corners_mm)
    assert np.allclose(img, corners, atol=1e-3)
    pts = np.array([[10.0, 20.0], [240.0, 90.0], [470.0, 170.0]])
    assert np.allclose(cal.points_to_mm(cal.points_to_image(pts)), pts, atol=1e-6)
    assert 2.0 < cal.px_per_mm() < 2.5


@pytest.mark.parametrize("corners", [
    [[100, 120], [1150, 150], [1180, 560]],  # three points
    [[100, 120], [1180, 560], [1150, 150], [80, 530]],  # crossed: not convex
    [[100, 120], [1150, 150], [1180, 900], [80, 530]],  # below the picture
    [[100, 120], [1150, float("nan")], [1180, 560], [80, 530]],
])
def test_bad_corners_are_image_errors(corners: list[list[float]]) -> None:
    with pytest.raises(ImageError):
        calibrate(corners, (720, 1280, 3))


def test_geometry_sizes_can_change() -> None:
    g = MangalaGeometry(length_mm=540.0)
    assert g.cell(A_STORE).centre[0] > G.cell(A_STORE).centre[0]
