"""A cocked die whose raised edge casts a dark gap on the board beside it: the gap read as a
one, flat and sure, and the cocked die itself went unread, so a cocked throw counted as a
valid roll (match7986278 of the referee draws with --seed0 8800 --kinds cocked). A weak face
not confirmed from its own centre now gives the cocked die beside it a second chance
(``vision.dice.board._cocked_beside``)."""

from __future__ import annotations

import math

from controller.demo.camera import DemoCamera, Shot
from controller.demo.players import demo_die
from controller.referee.config import RecognitionSettings
from controller.runtime.view import FrameReader
from vision.cube import CubeProp
from vision.dice.board import read_board_dice
from vision.dice.reading import image_to_mm
from vision.dice.synth import random_dice_scene
from vision.render.scene import SCHEMES, BoardContents

# The planted cocked throw as rendered (camera seed 8809): a flat two, and a one tilted 28
# degrees against a checker of slot 18, on the gold-white-cream board.
SLOTS = ((0, 0), (0, 0), (0, 0), (0, 0), (0, 2), (0, 0), (0, 4), (0, 0), (0, 0), (0, 1), (0, 0),
         (0, 0), (0, 2), (0, 0), (1, 0), (0, 0), (0, 0), (1, 0), (2, 0), (3, 0), (3, 0), (3, 0),
         (2, 0), (0, 4))
TWO = demo_die(458.07, 258.49, 2, yaw_deg=63.96)
COCKED_ONE = demo_die(545.07, 329.58, 1, yaw_deg=87.15, tilt_deg=28.0, tilt_axis_deg=180.0)
CUBE = CubeProp(284.0, -5.0, 16, yaw_deg=5.0, size_mm=33.0)


def _seen() -> tuple[object, ...]:
    camera = DemoCamera(seed=8809, scheme=SCHEMES[0])
    image, _ = camera.render(Shot(BoardContents(slots=SLOTS, bar=(0, 2)), (TWO, COCKED_ONE),
                                  CUBE))
    reader = FrameReader(corners=camera.corners_flat(), die_floor=0.5, cocked_floor=0.15)
    return reader.read(image, 0).dice


def test_a_cocked_die_beside_the_gap_under_its_raised_edge_is_read_cocked() -> None:
    dice = _seen()
    assert sorted((d.pips, d.flat) for d in dice) == [(1, False), (2, True)]
    cocked = next(d for d in dice if not d.flat)
    assert cocked.centre is not None
    assert math.hypot(cocked.centre[0] - COCKED_ONE.x_mm, cocked.centre[1] - COCKED_ONE.y_mm) < 5
    # the throw is judged invalid (BG-ROLL-2), not counted as a roll of 2 and 1
    recognition = RecognitionSettings()
    assert recognition.judgeable(dice) and recognition.surely_cocked(cocked)


def test_a_flat_die_read_weakly_keeps_its_face() -> None:
    """Synthetic throw 14804: two flat sixes whose faces are read with little pip evidence; a
    tilted hypothesis of a die's own body, a few mm off its weak face, is no cocked die beside
    it (``BESIDE_WEAK_DIES``)."""
    scene = random_dice_scene(14804)
    read = read_board_dice(scene.image, image_to_mm(scene.corners, scene.geometry),
                           scene.geometry)
    assert sorted((d.pips, d.flat) for d in read) == [(6, True), (6, True)]
