"""A cube centred on the bar (BG-CUBE-1's place at a game's start) is the cube, not a checker
on the bar: its square shows a disc's four rims to the bar's checker search, which counted it
as a light checker (on 9 of 35 rendered starts, a hit checker on the bar or not), so the
referee saw a sixteenth checker. Checkers on the bar beside it are still counted."""

from __future__ import annotations

import numpy as np
import pytest

from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from controller.runtime.view import FrameReader
from tests.eval.cube_on_bar import start_with_bar
from vision.board_reader import read_board
from vision.cube import CubeProp
from vision.render import SCHEMES


@pytest.mark.parametrize(("seed", "bar", "value", "dy_mm"), [
    (2, (0, 0), 64, 40.0),  # the cube alone on the bar, above its middle
    (28, (0, 0), 32, 12.0),
    (15, (1, 0), 64, -56.0),  # a dark checker on the bar below it
    (40, (0, 1), 64, -50.0),  # a light one
])
def test_a_cube_centred_on_the_bar_is_no_checker_there(seed: int, bar: tuple[int, int],
                                                        value: int, dy_mm: float) -> None:
    camera = DemoCamera(seed=seed % 7, scheme=SCHEMES[seed % len(SCHEMES)])
    g = camera.geometry
    slots = start_with_bar(bar)  # the checkers on the bar taken from the starting points
    cube = CubeProp(g.bar.centre[0], g.height_mm / 2 + dy_mm, value, yaw_deg=8.0)
    image, _ = camera.render(Shot(contents_from_counts(slots, bar, (0, 0)), cube=cube))
    corners = np.asarray(camera.corners, np.float32).reshape(4, 2)
    reading = read_board(image, corners=corners)
    assert reading.cube is not None and (reading.cube["value"], reading.cube["zone"]) == (
        value, "centre")
    assert reading.bar.counts == bar
    assert reading.slot_counts() == slots
    # the table's reader: the cube read first, then the board's counts
    seen = FrameReader(corners=[float(v) for v in corners.reshape(-1)]).read(image, 0)
    assert seen.cube is not None and (seen.cube.value, seen.cube.zone) == (value, "centre")
    assert seen.board.reading.bar.counts == bar


def test_a_checker_beside_the_cube_on_the_bar_is_counted() -> None:
    """``tests.eval.cube_on_bar`` seed 74: two black checkers on the bar, one touching the
    cube's corner. The disc the cube's square showed was the strongest near it and kept the
    checker out (no two bar discs within 0.92 checker diameters) before it was itself left
    out: now no disc is taken near the cube at all."""
    from tests.eval.cube_on_bar import scene

    made = scene(74, 40.0)
    assert made is not None
    image, camera, _slots, bar, value = made
    assert bar == (2, 0)
    corners = np.asarray(camera.corners, np.float32).reshape(4, 2)
    reading = read_board(image, corners=corners)
    assert reading.cube is not None and reading.cube["value"] == value
    assert reading.bar.counts == bar
    seen = FrameReader(corners=[float(v) for v in corners.reshape(-1)]).read(image, 0)
    assert seen.board.reading.bar.counts == bar
