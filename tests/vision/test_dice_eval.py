"""The dice evaluation's counters (``tests.eval.dice``) add up on a few synthetic throws."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from controller.config.table import CameraSection
from controller.referee.config import RecognitionSettings
from controller.runtime.view import table_dice
from tests.eval.dice import _pairs, _truly_valid, before_throw, synthetic, table_read
from vision.board_reader import prepare, read_prepared
from vision.calibration import Calibration
from vision.dice.board_pass import read_frame
from vision.dice.reading import image_to_mm
from vision.dice.reuse import thorough_dice
from vision.dice.synth import random_dice_scene

SEEDS = range(8, 13)  # five throws: a cocked die and a valid throw among them


def test_the_table_figures_count_throws_and_dice_consistently() -> None:
    c = synthetic(len(SEEDS), SEEDS[0])
    scenes = [random_dice_scene(s) for s in SEEDS]
    dice = sum(len(s.dice) for s in scenes)
    throws = [s for s in scenes if len(s.dice) == 2]
    cocked = [s for s in throws if not all(t.flat for t in s.dice)]
    valid = [s for s in throws if _truly_valid(s)]
    assert cocked and valid, "the seeds should hold a cocked throw and a valid one"
    assert c["found"][1] == c["table_found"][1] == dice
    assert c["table_thorough"][1] == len(SEEDS)
    assert c["table_judged"][1] == len(throws) and c["table_cocked_passed"][1] == len(cocked)
    assert tuple(c["table_valid_flagged"]) == (0, len(valid))  # the valid throw is not flagged
    for key, (hit, total) in c.items():
        if key not in ("extra_dice", "table_extra_dice", "cube_phantom"):
            assert 0 <= hit <= total, key


def test_the_board_before_the_throw_differs_only_about_the_dice() -> None:
    """The press's picture of a synthetic throw (``before_throw``) is the throw's own board and
    camera noise without the dice: what a table's dice memory compares the throw with."""
    for seed in SEEDS[:2]:
        scene = random_dice_scene(seed)
        g = scene.geometry
        moved = cv2.absdiff(before_throw(scene), scene.image).max(axis=2) > 12
        ys, xs = np.nonzero(moved)
        assert len(xs) > 50, "the dice should show"
        pts = cv2.perspectiveTransform(
            np.stack([xs, ys], axis=1).astype(np.float32).reshape(-1, 1, 2),
            image_to_mm(scene.corners, g).astype(np.float64)).reshape(-1, 2)
        near = [min(math.hypot(x - t.x_mm, y - t.y_mm) for t in scene.dice) for x, y in pts]
        assert max(near) < 2 * g.die_size_mm  # the die, its shadow and its side faces


# tuning-range throws: the whole frame read thoroughly finds a third "die" in board texture
@pytest.mark.parametrize("seed", [12_041, 12_045])
def test_the_table_keeps_no_die_where_nothing_changed_since_the_press(seed: int) -> None:
    """A table's referee gets the throw's two dice alone (``table_read``): its thorough read
    keeps no die where the picture did not change since the press (BG-ROLL-2's throw is the
    dice that landed), where a read of the throw's picture alone keeps a third."""
    scene = random_dice_scene(seed)
    g = scene.geometry
    frame = prepare(scene.image, Calibration(np.asarray(scene.corners, np.float32).reshape(4, 2),
                                             "corners", g))
    slots = read_prepared(frame, dice=False).slot_counts()
    cube = read_frame(frame).cube
    camera, recognition = CameraSection(), RecognitionSettings()
    alone = table_dice(thorough_dice(scene.image, image_to_mm(scene.corners, g), g), g, slots,
                       None if cube is None else cube.centre_mm, camera.die_floor,
                       camera.cocked_floor)
    assert _pairs(scene.dice, alone)[1] >= 1
    kept, _ = table_read(scene, cube, slots, camera, recognition)
    pairs, extra = _pairs(scene.dice, kept)
    assert extra == 0 and all(d is not None for _, d in pairs)
    assert recognition.judgeable(kept)
