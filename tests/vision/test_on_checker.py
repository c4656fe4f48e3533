"""Whether a die lies on a checker (BG-ROLL-2: a die on a checker is not a valid throw):
``vision.dice.on_checker`` on rendered throws, at each die's true place."""

from __future__ import annotations

import math

import numpy as np

from vision.dice.on_checker import on_checker
from vision.dice.reading import image_to_mm
from vision.dice.synth import checker_spots, random_dice_scene


def test_dice_on_checkers_and_beside_stacks() -> None:
    """Every die lying on a checker is called so; no flat die on the board's surface is,
    those right beside a stack included."""
    on = beside = flat_off = 0
    for seed in range(300, 360):
        if seed < 320:
            scene = random_dice_scene(seed, on_checker_rate=0.6)
        else:  # flat dice on the surface
            scene = random_dice_scene(seed, on_checker_rate=0.0, cocked_rate=0.0)
        assert scene.frame is not None
        g = scene.geometry
        from_mm = np.linalg.inv(image_to_mm(scene.corners, g))
        spots = checker_spots(g, scene.frame.spec.contents)
        for die in scene.dice:
            called = on_checker(scene.image, from_mm, die.x_mm, die.y_mm, g)
            if die.on_checker:
                assert called, f"seed {seed}: die on a checker at {die.x_mm:.0f}, {die.y_mm:.0f}"
                on += 1
            elif die.flat:
                assert not called, f"seed {seed}: die beside at {die.x_mm:.0f}, {die.y_mm:.0f}"
                flat_off += 1
                near = min((math.hypot(die.x_mm - x, die.y_mm - y) for x, y, s in spots
                            if s >= 0), default=1e9)
                beside += near < g.checker_diameter_mm / 2 + 1.5 * g.die_size_mm + 5.0
    assert on >= 15 and flat_off >= 60 and beside >= 8
