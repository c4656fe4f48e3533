"""The Mangala renderer: deterministic by seed, stones where the counts say, arms on request."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine.errors import PositionError
from vision.mangala.geometry import DEFAULT_GEOMETRY, calibrate
from vision.mangala.render import initial_cells, render_mangala, settle_stones

CELLS = [4, 0, 1, 9, 4, 4, 3, 0, 5, 5, 4, 12, 4, 2]


def test_same_seed_same_picture_other_seed_other_picture() -> None:
    a, ca = render_mangala(CELLS, 11)
    b, cb = render_mangala(CELLS, 11)
    c, _ = render_mangala(CELLS, 12)
    assert a.shape == (720, 1280, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b) and np.array_equal(ca, cb)
    assert not np.array_equal(a, c)


def test_corners_are_the_board_in_the_picture() -> None:
    img, corners = render_mangala(initial_cells(), 3)
    assert corners.shape == (4, 2)
    h, w = img.shape[:2]
    assert np.all(corners[:, 0] > 0) and np.all(corners[:, 0] < w)
    assert np.all(corners[:, 1] > 0) and np.all(corners[:, 1] < h)
    # TL, TR, BR, BL: clockwise, wider than high like the board
    assert corners[1, 0] > corners[0, 0] and corners[2, 1] > corners[1, 1]
    assert np.linalg.norm(corners[1] - corners[0]) > 2 * np.linalg.norm(corners[3] - corners[0])


def _cell_spread(img: np.ndarray, corners: np.ndarray, index: int) -> float:
    """Colour variety inside one cell: stones of mixed colours on plain wood raise it."""
    cal = calibrate(corners, img.shape)
    cell = DEFAULT_GEOMETRY.cell(index)
    centre = cal.points_to_image(np.array([cell.centre]))[0]
    r = 0.6 * cell.half_size[0] * cal.px_per_mm()
    x, y = int(centre[0]), int(centre[1])
    patch = img[int(y - r):int(y + r), int(x - r):int(x + r)].astype(np.float32)
    return float(patch.reshape(-1, 3).std(axis=0).mean())


def test_stones_appear_in_the_cells_that_hold_them() -> None:
    img, corners = render_mangala(CELLS, 5)
    full = [i for i, n in enumerate(CELLS) if n >= 4]
    empty = [i for i, n in enumerate(CELLS) if n == 0]
    assert min(_cell_spread(img, corners, i) for i in full) > 2 * max(
        _cell_spread(img, corners, i) for i in empty)


def test_big_piles_stack() -> None:
    rng = np.random.default_rng(0)
    pit = DEFAULT_GEOMETRY.cell(0)
    few = settle_stones(pit, 4, rng, 13.0)
    many = settle_stones(pit, 22, rng, 13.0)
    assert max(s.z for s in many) > max(s.z for s in few) + 3.0
    for s in many:  # every stone lies in its pit
        assert np.hypot(s.x - pit.centre[0], s.y - pit.centre[1]) < pit.half_size[0]


def test_hand_covers_part_of_the_board() -> None:
    plain, _ = render_mangala(CELLS, 21)
    handed, _ = render_mangala(CELLS, 21, hand=True)
    diff = cv2.absdiff(plain, handed).max(axis=2) > 40
    assert 0.02 < diff.mean() < 0.5  # the same board; only where the arm is differs


@pytest.mark.parametrize("cells", [[4] * 13, [4] * 13 + [-1], [4] * 13 + [61], [4] * 15])
def test_bad_counts_are_position_errors(cells: list[int]) -> None:
    with pytest.raises(PositionError):
        render_mangala(cells, 1)
