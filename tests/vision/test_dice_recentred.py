"""A face read weakly from a candidate a few mm off a die's centre is read again from its own
centre (``board._recentred``): a flat six was read as a three (one column of it as a three's
diagonal) and counted as a roll of 34 instead of 64."""

from __future__ import annotations

import numpy as np

from controller.demo.camera import DemoCamera, Shot
from controller.demo.players import demo_die
from vision.cube import CubeProp
from vision.dice.board import read_board_dice
from vision.dice.reading import image_to_mm
from vision.render.scene import BoardContents

# match5879255 with --seed0 200 (demo camera seed 216), as its table reads it: with the
# camera's corners rounded to 0.01 px (FrameReader's configured corners), the raster's place
# for the six lies 4.4 mm off its centre
SLOTS = ((0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 2), (0, 3), (0, 2), (2, 0), (0, 3),
         (0, 3), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (2, 0), (2, 0), (3, 0), (2, 0), (2, 0),
         (2, 0), (0, 0))
SIX = demo_die(376.3237535107102, 256.6423954265683, 6, yaw_deg=51.70002079582868)
FOUR = demo_die(426.78714849488745, 259.5846918157426, 4, yaw_deg=7.839794449320645)
CUBE = CubeProp(x_mm=284.0, y_mm=-5.0, value=2, yaw_deg=5.0, body_bgr=(238, 240, 240),
                ink_bgr=(25, 25, 25), font=0, size_mm=33.0, occludes=False)


def test_a_six_read_off_centre_as_a_three_is_read_again_from_the_middle() -> None:
    camera = DemoCamera(seed=216)
    image, _ = camera.render(Shot(BoardContents(slots=SLOTS, bar=(0, 2)), (SIX, FOUR), CUBE))
    corners = np.asarray(camera.corners_flat(), np.float32).reshape(4, 2)
    g = camera.geometry
    dice = read_board_dice(image, image_to_mm(corners, g), g)
    assert sorted((d.pips, d.flat) for d in dice) == [(4, True), (6, True)]
    six = next(d for d in dice if d.pips == 6)
    assert abs(six.centre_mm[0] - SIX.x_mm) < 1.5 and abs(six.centre_mm[1] - SIX.y_mm) < 1.5
