"""A thorough read (``DiceMemory.read_thoroughly``, asked for by the pipeline when the referee
cannot judge a throw): the raster's candidates and the whole frame's pip spots, so a die the
raster never offers is found before the director is called (BG-ROLL-2 needs both dice)."""

from __future__ import annotations

import math

import numpy as np

from controller.demo.camera import DemoCamera, Shot
from controller.demo.players import demo_die
from vision.cube import CubeProp
from vision.dice.board import BoardDie
from vision.dice.render import DieProp
from vision.dice.reuse import DiceMemory
from vision.render.scene import BoardContents

# A throw of the 20-match evaluation (match6036606, demo camera seed 19) whose one, white with
# a red pip on the light field, the raster read does not find.
SLOTS = ((4, 0), (0, 0), (0, 0), (0, 0), (0, 2), (0, 0), (0, 3), (0, 2), (0, 2), (0, 2), (2, 0),
         (0, 1), (0, 0), (0, 2), (0, 0), (0, 0), (0, 1), (2, 0), (2, 0), (3, 0), (2, 0), (0, 0),
         (0, 0), (0, 0))
# (as thrown: rounded to 0.1 mm and 0.1 degree, the raster finds the one: it is a borderline
# candidate, the case a thorough read is for)
TWO = demo_die(352.1953061099428, 250.62760680516033, 2, yaw_deg=82.07580477468228)
ONE = demo_die(398.40554958514423, 252.4139515249605, 1, yaw_deg=32.06917452334007)

CUBE = CubeProp(x_mm=284.0, y_mm=520.0, value=4, yaw_deg=5.0, body_bgr=(238, 240, 240),
                ink_bgr=(25, 25, 25), font=0, size_mm=33.0, occludes=False)


def _at(dice: list[BoardDie], prop: DieProp) -> list[BoardDie]:
    return [d for d in dice if math.hypot(d.centre_mm[0] - prop.x_mm,
                                          d.centre_mm[1] - prop.y_mm) < 8.0]


def test_a_thorough_read_finds_the_die_the_raster_does_not_offer() -> None:
    camera = DemoCamera(seed=19)
    image, _ = camera.render(Shot(BoardContents(slots=SLOTS), (TWO, ONE), CUBE))
    corners = np.asarray(camera.corners, np.float32).reshape(4, 2)
    memory = DiceMemory()
    plain = memory.read(image, corners, camera.geometry)
    assert memory.stats.last == "full" and len(_at(plain, TWO)) == 1 and not _at(plain, ONE)
    memory.read_thoroughly()
    dice = memory.read(image, corners, camera.geometry)
    assert memory.stats.last == "thorough" and memory.stats.thorough == 1
    assert [(d.pips, d.flat) for d in _at(dice, TWO)] == [(2, True)]
    assert [(d.pips, d.flat) for d in _at(dice, ONE)] == [(1, True)]
    assert len(dice) <= 4 and dice == sorted(dice, key=lambda d: d.centre_mm)
    # the memory keeps them: the same picture again is unchanged, the one still there
    again = memory.read(image, corners, camera.geometry)
    assert memory.stats.last == "unchanged" and again == dice
    # a thorough read is asked for once: the next whole read is the raster's alone
    memory.forget()
    memory.read(image, corners, camera.geometry)
    assert memory.stats.last == "full" and memory.stats.thorough == 1


# A planted cocked throw of the evaluation (match4908862 with --seed0 100, camera seed 108):
# the two leans on a checker on a dark point, its visible face about 6 mm from the raster's
# place, beyond the reach of the second chance centred there.
LEANING_SLOTS = ((0, 0), (0, 0), (1, 0), (1, 0), (0, 4), (0, 0), (0, 5), (0, 0), (0, 0), (0, 0),
                 (0, 0), (0, 0), (0, 3), (0, 0), (0, 0), (0, 0), (0, 0), (1, 0), (2, 0), (2, 0),
                 (2, 0), (2, 0), (2, 0), (2, 0))
SIX = demo_die(103.9, 264.3, 6, yaw_deg=75.7)
LEANING_TWO = demo_die(247.9, 461.1, 2, yaw_deg=52.0, tilt_deg=28.0, tilt_axis_deg=180.0)
CUBE_CRAWFORD_ROW = CubeProp(x_mm=284.0, y_mm=-5.0, value=2, yaw_deg=5.0,
                             body_bgr=(238, 240, 240), ink_bgr=(25, 25, 25), font=0,
                             size_mm=33.0, occludes=False)


def test_a_thorough_read_looks_for_a_leaning_die_around_the_raster_s_place() -> None:
    camera = DemoCamera(seed=108)
    contents = BoardContents(slots=LEANING_SLOTS, bar=(0, 3))
    image, _ = camera.render(Shot(contents, (SIX, LEANING_TWO), CUBE_CRAWFORD_ROW))
    corners = np.asarray(camera.corners, np.float32).reshape(4, 2)
    memory = DiceMemory()
    plain = memory.read(image, corners, camera.geometry)
    assert [d.pips for d in plain] == [6] and not _at(plain, LEANING_TWO)
    memory.read_thoroughly()
    dice = memory.read(image, corners, camera.geometry)
    assert [(d.pips, d.flat) for d in _at(dice, SIX)] == [(6, True)]
    assert [d.flat for d in _at(dice, LEANING_TWO)] == [False]  # cocked: BG-ROLL-2
