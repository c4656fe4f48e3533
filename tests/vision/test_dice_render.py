"""Dice props for the scene renderer: faces, tilt, materials, drawing only where the die is."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice.render import FACE_NORMALS, DieProp
from vision.geometry import BoardGeometry, Canonical


def canvas() -> tuple[np.ndarray, Canonical]:
    c = Canonical(BoardGeometry(), 3.0, (0.0, 0.0))
    return np.full((150, 300, 3), (40, 110, 40), np.uint8), c


@pytest.mark.parametrize("value", range(1, 7))
def test_flat_die_shows_its_value_up(value: int) -> None:
    for yaw in (0.0, 33.0, 271.0):
        assert DieProp(20.0, 20.0, value, yaw).upward_value() == value


def test_small_tilt_keeps_the_face_and_a_big_one_changes_it() -> None:
    assert DieProp(0, 0, 3, 10.0, tilt_deg=30.0, tilt_axis_deg=70.0).upward_value() == 3
    assert DieProp(0, 0, 3, 0.0, tilt_deg=80.0, tilt_axis_deg=0.0).upward_value() != 3
    assert DieProp(0, 0, 3).flat and not DieProp(0, 0, 3, tilt_deg=15.0).flat


def test_opposite_faces_sum_to_seven() -> None:
    for v, n in FACE_NORMALS.items():
        assert FACE_NORMALS[7 - v] == tuple(-x for x in n)


def test_bad_value_refused() -> None:
    with pytest.raises(ValueError, match="die value 7"):
        DieProp(0.0, 0.0, 7)


def test_draws_only_around_the_die_and_is_reproducible() -> None:
    img1, c = canvas()
    img2, _ = canvas()
    die = DieProp(50.0, 25.0, 5, 20.0)
    die.draw(img1, c, np.random.default_rng(3))
    die.draw(img2, c, np.random.default_rng(3))
    assert np.array_equal(img1, img2)
    changed = np.argwhere(np.any(img1 != canvas()[0], axis=2))
    u, v = c.mm_to_px(50.0, 25.0)
    reach = 16.0 * 3.0 * 1.1
    assert np.abs(changed[:, 1] - u).max() <= reach
    assert np.abs(changed[:, 0] - v).max() <= reach


def test_pips_are_drawn_in_the_pip_colour() -> None:
    img, c = canvas()
    DieProp(50.0, 25.0, 1, 0.0, pip_bgr=(0, 0, 255)).draw(img, c, np.random.default_rng(0))
    u, v = (round(x) for x in c.mm_to_px(50.0, 25.0))
    b, g, r = img[v, u]
    assert r > 150 and b < 80 and g < 80  # the one pip, at the face centre


def test_translucent_die_lets_the_board_through() -> None:
    opaque, c = canvas()
    clear, _ = canvas()
    body = (40, 40, 200)
    DieProp(50.0, 25.0, 2, 0.0, body_bgr=body).draw(opaque, c, np.random.default_rng(0))
    DieProp(50.0, 25.0, 2, 0.0, material="translucent", body_bgr=body).draw(
        clear, c, np.random.default_rng(0))
    u, v = (round(x) for x in c.mm_to_px(50.0 + 4.2, 25.0))  # face, off every pip
    board_green = 110
    assert abs(int(clear[v, u][1]) - board_green) < abs(int(opaque[v, u][1]) - board_green)


def test_cocked_die_covers_more_board_than_a_flat_one() -> None:
    flat, c = canvas()
    cocked, _ = canvas()
    DieProp(50.0, 25.0, 4, 0.0).draw(flat, c, np.random.default_rng(0))
    DieProp(50.0, 25.0, 4, 0.0, tilt_deg=30.0).draw(cocked, c, np.random.default_rng(0))
    bg = canvas()[0]

    def covered(img: np.ndarray) -> int:
        return int((np.abs(img.astype(int) - bg.astype(int)).sum(axis=2) > 120).sum())

    assert covered(cocked) > 1.15 * covered(flat)
