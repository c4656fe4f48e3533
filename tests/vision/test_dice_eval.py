"""The dice evaluation's counters (``tests.eval.dice``) add up on a few synthetic throws."""

from __future__ import annotations

from tests.eval.dice import _truly_valid, synthetic
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
