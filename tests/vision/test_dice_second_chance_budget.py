"""The reader's second chances (``board.give_second_chance``: a cocked die the usual read missed,
BG-ROLL-2) go to candidates where a die can be tried: on the playing surface, not where a die
was found. Candidates on the bar used up the budget without a try, and a die cocked against
the rail further down the list had none."""

from __future__ import annotations

import math

import pytest

from vision.dice import board
from vision.dice.board_die import PLAYING
from vision.dice.reading import image_to_mm
from vision.dice.synth import random_dice_scene


def test_second_chances_skip_candidates_that_cannot_be_tried(
        monkeypatch: pytest.MonkeyPatch) -> None:
    scene = random_dice_scene(166)  # tests.eval.dice: a die cocked against the top rail
    g = scene.geometry
    rail_die = next(t for t in scene.dice if not t.flat)
    assert rail_die.y_mm < g.die_size_mm
    given: list[tuple[float, float]] = []
    second_chance = board.give_second_chance

    def spy(colour, gray, from_mm, cx, cy, *args, **kw):  # type: ignore[no-untyped-def]
        given.append((cx, cy))
        return second_chance(colour, gray, from_mm, cx, cy, *args, **kw)

    monkeypatch.setattr(board, "give_second_chance", spy)
    board.read_board_dice(scene.image, image_to_mm(scene.corners, g), g)
    assert given and len(given) <= board.MAX_SECOND_CANDIDATES
    assert all(g.region_at(x, y).kind in PLAYING for x, y in given)
    assert any(math.hypot(x - rail_die.x_mm, y - rail_die.y_mm) < g.die_size_mm
               for x, y in given)
