"""A checker on the bar whose middle is streaked (marbled) or lustred (pearl) is still one
colour across: the bar's checker search took the streak for the bar's colour, unlike the
checker's either side, and missed a clearly visible hit checker (red on the olive board's
dark bar, and a pearl white one on the maroon board)."""

from __future__ import annotations

import numpy as np
import pytest

from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from tests.eval.cube_on_bar import start_with_bar
from vision.board_reader import read_board
from vision.render import SCHEMES, random_scene, render_scene


def _scheme_index(name: str) -> int:
    return next(i for i, s in enumerate(SCHEMES) if s.name == name)


@pytest.mark.parametrize(("camera_seed", "scheme", "bar"), [
    (3, "red-white-olive", (1, 0)),  # read as none
    (3, "maroon-white-red", (1, 1)),  # the white one missed
    (5, "red-white-olive", (2, 0)),  # two read as one
    (1, "red-white-olive", (1, 1)),  # the red one missed
])
def test_a_streaked_checker_on_the_bar_is_counted(camera_seed: int, scheme: str,
                                                  bar: tuple[int, int]) -> None:
    camera = DemoCamera(seed=camera_seed, scheme=SCHEMES[_scheme_index(scheme)])
    slots = start_with_bar(bar)  # the checkers on the bar taken from the starting points
    contents = contents_from_counts(slots, bar, (0, 0))
    assert camera.bar_clear(contents, None)  # laid clear of the hinges, in plain sight
    image, _ = camera.render(Shot(contents))
    corners = np.asarray(camera.corners, np.float32).reshape(4, 2)
    reading = read_board(image, corners=corners, dice=False)
    assert reading.bar.counts == bar
    assert reading.slot_counts() == slots


def test_the_bar_between_two_checkers_by_a_hinge_keeps_neither_out() -> None:
    """Two white checkers on the bar with a hinge beside them: the bar between them shows
    their rims, and the hinge, near the board's colour, lies a fifth of a checker from there.
    Looking past the middle for a streak's sake must not make that place a checker: taken
    first by its rims, it kept both real ones out."""
    frame = render_scene(random_scene(200195))
    assert frame.contents.bar == (1, 2) and frame.bar_cover < 0.02
    reading = read_board(frame.image, corners=frame.corners, dice=False)
    assert reading.bar.counts == (1, 2)
