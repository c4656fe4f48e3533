"""The table's frame reader, and ``hakem vision read``, keep one reading per die
(``vision.dice.support.one_reading_per_die``): a cocked die's side face read as a flat die
beside it made a third die of a throw, which the referee could not judge, where the throw is
plainly to be thrown again (BG-ROLL-2)."""

from __future__ import annotations

import numpy as np

from controller.demo.camera import DemoCamera, Shot
from controller.demo.players import demo_die
from controller.referee.config import RecognitionSettings
from controller.runtime.view import FrameReader
from vision.board_reader import read_board
from vision.cube import CubeProp
from vision.dice.board_die import BoardDie
from vision.dice.support import one_reading_per_die
from vision.render.scene import SCHEMES, BoardContents

SIDE = 16.0  # the dice's side, mm

# A planted cocked throw of the referee draws (match910138 with --seed0 2300, camera seed 2300):
# the six leans on a checker of slot 6; its side face was read as a flat two 13 mm away.
SLOTS = ((0, 0), (0, 2), (0, 3), (1, 0), (0, 0), (0, 0), (0, 3), (1, 0), (0, 0), (0, 2), (0, 3),
         (0, 2), (0, 0), (0, 0), (0, 0), (0, 0), (1, 0), (1, 0), (2, 0), (3, 0), (2, 0), (0, 0),
         (2, 0), (2, 0))
FLAT_SIX = demo_die(62.3, 261.4, 6, yaw_deg=29.8)
COCKED_SIX = demo_die(248.2, 461.3, 6, yaw_deg=1.7, tilt_deg=28.0, tilt_axis_deg=180.0)
CUBE = CubeProp(284.0, 520.0, 4, yaw_deg=5.0)


def test_a_cocked_die_s_side_face_is_not_a_third_die() -> None:
    camera = DemoCamera(seed=2300, scheme=SCHEMES[0])
    image, _ = camera.render(Shot(BoardContents(slots=SLOTS), (FLAT_SIX, COCKED_SIX), CUBE))
    reader = FrameReader(corners=camera.corners_flat(), die_floor=0.5, cocked_floor=0.15)
    dice = reader.read(image, 0).dice
    assert sorted((d.pips, d.flat) for d in dice) == [(6, False), (6, True)]
    cocked = next(d for d in dice if not d.flat)
    assert cocked.centre is not None
    assert abs(cocked.centre[0] - COCKED_SIX.x_mm) < 5
    assert abs(cocked.centre[1] - COCKED_SIX.y_mm) < 5
    # two dice, one surely cocked: the referee judges the throw (thrown again), no director
    recognition = RecognitionSettings()
    assert recognition.judgeable(dice) and recognition.surely_cocked(cocked)


def _die(x: float, y: float, *, flat: bool = True, confidence: float = 0.9,
         pips: int = 4) -> BoardDie:
    return BoardDie(pips, (0.0, 0.0), (x, y), flat, False, "right", "slot", confidence)


def test_of_a_flat_and_a_cocked_reading_closer_than_a_side_the_flat_one_goes() -> None:
    other, cocked, side = _die(300, 100), _die(400, 200, flat=False, confidence=0.3), \
        _die(412, 205, confidence=0.95)
    assert one_reading_per_die([other, side, cocked], SIDE) == [other, cocked]


def test_of_two_flat_readings_closer_than_a_side_the_less_sure_goes() -> None:
    other, sure, unsure = _die(300, 100), _die(400, 200, confidence=0.96), \
        _die(413, 200, confidence=0.54)
    assert one_reading_per_die([unsure, other, sure], SIDE) == [other, sure]


def test_dice_a_side_apart_or_only_two_are_left_as_read() -> None:
    # two flat dice side by side; three dice apart; a die leaning on the other (a throw of two)
    touching = [_die(300, 100), _die(400, 200), _die(400 + SIDE, 200)]
    assert one_reading_per_die(touching, SIDE) == touching
    leaning = [_die(400, 200), _die(410, 200, flat=False, confidence=0.3)]
    assert one_reading_per_die(leaning, SIDE) == leaning


def test_each_close_pair_of_four_readings_gives_one_until_two_are_left() -> None:
    a, a_side = _die(100, 100, flat=False, confidence=0.3), _die(110, 100)
    b, b_twin = _die(400, 300, confidence=0.9), _die(405, 305, confidence=0.6)
    assert one_reading_per_die([a, a_side, b, b_twin], SIDE) == [a, b]
    # three readings about one place: the least sure goes, and two dice are left as read
    c1, c2, c3 = _die(200, 200, confidence=0.5), _die(206, 200, confidence=0.8), \
        _die(203, 206, confidence=0.7)
    assert one_reading_per_die([c1, c2, c3], SIDE) == [c2, c3]


def test_hakem_vision_read_keeps_one_reading_per_die_as_the_table_does() -> None:
    """``hakem vision read`` of the same shot (``vision.board_reader.read_board``, the dice
    pass through ``vision.dice.board_pass.read_frame``) gives the same two dice."""
    camera = DemoCamera(seed=2300, scheme=SCHEMES[0])
    image, _ = camera.render(Shot(BoardContents(slots=SLOTS), (FLAT_SIX, COCKED_SIX), CUBE))
    reading = read_board(image, corners=np.array(camera.corners_flat(), np.float32).reshape(4, 2))
    assert reading.dice is not None
    assert sorted((d["pips"], d["flat"]) for d in reading.dice) == [(6, False), (6, True)]
