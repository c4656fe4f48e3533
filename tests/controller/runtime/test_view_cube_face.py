"""The table's frame reader settles a die read on the cube's face (``vision.dice.reading
.settle_dice_and_cube``, as ``hakem vision read`` does): the cube's number read as a die's pips
would make a third die of a throw, which the referee cannot judge (BG-ROLL-2)."""

from __future__ import annotations

import math

from controller.demo.camera import DemoCamera, Shot
from controller.demo.players import demo_die
from controller.runtime.view import FrameReader
from vision.cube import CubeProp
from vision.render.scene import BoardContents

# A throw of the evaluation (match6036606 with --seed0 100, camera seed 119): the cube, 2 up,
# lies on the rail by the bar; the thorough read's pip spots read its face as a cocked 2.
SLOTS = ((5, 0), (0, 0), (0, 2), (0, 1), (0, 3), (0, 2), (0, 3), (0, 0), (0, 0), (0, 2), (1, 0),
         (1, 0), (0, 0), (0, 0), (0, 0), (0, 0), (1, 0), (0, 0), (2, 0), (2, 0), (2, 0), (0, 2),
         (0, 0), (0, 0))
THREE = demo_die(456.7, 263.1, 3, yaw_deg=1.8)
ONE = demo_die(511.5, 257.9, 1, yaw_deg=29.3)
CUBE = CubeProp(x_mm=284.0, y_mm=-5.0, value=2, yaw_deg=5.0, body_bgr=(238, 240, 240),
                ink_bgr=(25, 25, 25), font=0, size_mm=33.0, occludes=False)


def test_no_die_is_read_on_the_cube_s_face() -> None:
    camera = DemoCamera(seed=119)
    image, _ = camera.render(Shot(BoardContents(slots=SLOTS, bar=(1, 0)), (THREE, ONE), CUBE))
    reader = FrameReader(corners=camera.corners_flat(), die_floor=0.5, cocked_floor=0.15)
    reader.dice_memory.read_thoroughly()  # as after a throw the referee could not judge
    seen = reader.read(image, 0)
    assert reader.dice_memory.stats.last == "thorough"
    assert seen.cube is not None and seen.cube.value == 2
    assert sorted(d.pips for d in seen.dice) == [1, 3]
    assert all(d.flat for d in seen.dice)
    assert all(d.centre is not None and math.hypot(d.centre[0] - CUBE.x_mm,
                                                   d.centre[1] - CUBE.y_mm) > 0.5 * CUBE.size_mm
               for d in seen.dice)
