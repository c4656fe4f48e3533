"""A die's confidence decides whether the table keeps it (``reading.DIE_FLOOR``) and whether the
referee judges its throw (BG-ROLL-2). A faint die whose pips the grid read confirms in their
very pattern is a die read surely (``board_die.pip_evidence``): its throw is judged at the table,
not left to the director for its pips' contrast alone."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.dice.board import read_board_dice
from vision.dice.board_die import CONFIRMED_SCORE, pip_evidence
from vision.dice.face_fit import FaceFinding
from vision.dice.reading import DIE_FLOOR, image_to_mm
from vision.dice.synth import random_dice_scene


def _face(score: float, contrast: float) -> FaceFinding:
    return FaceFinding(4, 0.0, 0.0, 0.0, 0.5, contrast, np.zeros(1), score)


def test_a_confirmed_pattern_is_full_evidence() -> None:
    assert pip_evidence(_face(CONFIRMED_SCORE, 0.09)) == 1.0
    assert pip_evidence(_face(0.3, 0.3)) == 1.0


def test_an_unconfirmed_face_counts_its_contrast() -> None:
    assert pip_evidence(_face(0.07, 0.1)) == pytest.approx(0.5)
    assert pip_evidence(_face(0.05, 0.01)) == pytest.approx(0.2)  # never below a fifth
    assert pip_evidence(_face(0.07, 0.3)) == 1.0


# tuning-range throws (12000-12599): a flat die of low contrast, read right, fell under the
# die floor (confidence 0.40, 0.40, 0.49) and its throw went to the director
@pytest.mark.parametrize(("seed", "pips"), [(12_267, 6), (12_525, 6), (12_023, 6)])
def test_a_faint_flat_die_read_right_is_kept(seed: int, pips: int) -> None:
    scene = random_dice_scene(seed)
    g = scene.geometry
    read = read_board_dice(scene.image, image_to_mm(scene.corners, g), g)
    for truth in scene.dice:
        near = [d for d in read
                if math.hypot(d.centre_mm[0] - truth.x_mm, d.centre_mm[1] - truth.y_mm) < 8]
        assert len(near) == 1
        if truth.pips == pips and truth.flat:
            assert near[0].pips == pips and near[0].flat
            assert near[0].confidence >= DIE_FLOOR
