"""Choosing the rail bar (``vision.dice.support.RAIL_COCKED_THRESHOLD``, BG-ROLL-2).

Run ``.venv/bin/python -m tests.eval.rail_bar [--random N] [--beside N] [--seed0 S]
[--beside-seed0 S]``.

A die within a cocked die's reach of the rail and of nothing else is called cocked from a bar
lower than the cocked model's own: the rail is the surface a die thrown hard most often leans
on, and a flat die there has nothing else to be confused with. This reads random throws
(``vision.dice.synth``, seeds from ``--seed0``) and throws with a die beside a checker or the
rail (``vision.dice.leaning``, seeds from ``--beside-seed0``) with the board's dice pass, as
``hakem vision read`` does before its supports, and prints for each bar (steps of 0.1 up to
the model's bar): of the flat dice read flat within reach of the rail alone, how many the bar
calls cocked; of the cocked dice there read flat, how many it catches; then the lowest bar
calling at most 1% of those flat dice cocked. The defaults are the first seeds the shipped bar
was chosen on (the comment above it lists them all), apart from the evaluation's
(``tests.eval.dice``) and the training's; the counts of runs on other seeds add up.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterator

import numpy as np

from vision.board_reader import prepare, read_prepared
from vision.calibration import Calibration
from vision.dice.board_pass import read_frame
from vision.dice.leaning import beside_checker_scene
from vision.dice.pose import cocked_threshold
from vision.dice.support import checker_places, only_rail
from vision.dice.synth import DiceScene, random_dice_scene

MAX_FLAT_CALLED = 0.01  # of the flat dice by the rail alone: the false-alarm bound


def _scenes(random_n: int, seed0: int, beside_n: int, beside_seed0: int
            ) -> Iterator[DiceScene]:
    for seed in range(seed0, seed0 + random_n):
        yield random_dice_scene(seed)
    for seed in range(beside_seed0, beside_seed0 + beside_n):
        yield beside_checker_scene(seed, cocked=seed % 2 == 0)


def rail_dice(scene: DiceScene) -> list[tuple[bool, float]]:
    """(truly flat, p_cocked) of each die of ``scene`` read flat within reach of the rail and
    of nothing else (``support.only_rail``), as the pass reads it before its supports."""
    g = scene.geometry
    cal = Calibration(np.asarray(scene.corners, np.float32).reshape(4, 2), "corners", g)
    frame = prepare(scene.image, cal)
    slots = read_prepared(frame, dice=False).slot_counts()
    found = read_frame(frame)
    dice, cube = found.dice, found.cube
    checkers = checker_places(slots, g)
    out = []
    for d in dice:
        truth = [t for t in scene.dice
                 if math.hypot(d.centre_mm[0] - t.x_mm, d.centre_mm[1] - t.y_mm) < 10.0]
        if not truth or not d.flat:
            continue
        if only_rail(d, g, checkers, dice, None if cube is None else cube.centre_mm):
            out.append((truth[0].flat, d.p_cocked))
    return out


def choose(seen: list[tuple[bool, float]], model_bar: float) -> tuple[list[str], float]:
    """The table of bars (steps of 0.1 under the model's bar) and the lowest bar that calls at
    most :data:`MAX_FLAT_CALLED` of the flat dice cocked (the model's bar when none does)."""
    flat = np.array([p for f, p in seen if f])
    cocked = np.array([p for f, p in seen if not f])
    lines, best = [], model_bar
    bars = [round(b, 1) for b in np.arange(0.1, model_bar, 0.1)] + [model_bar]
    for bar in bars:
        called = int((flat >= bar).sum())
        caught = int((cocked >= bar).sum())
        lines.append(f"bar {bar:.3f}: flat called cocked {called}/{len(flat)}, cocked caught "
                     f"{caught}/{len(cocked)}")
        if called <= MAX_FLAT_CALLED * len(flat) and bar < best:
            best = bar
    return lines, best


def main(argv: list[str]) -> int:
    """Read the throws, print the table and the bar to choose."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=600, help="random throws")
    parser.add_argument("--seed0", type=int, default=5000)
    parser.add_argument("--beside", type=int, default=400, help="throws beside a checker")
    parser.add_argument("--beside-seed0", type=int, default=2_950_000)
    args = parser.parse_args(argv)
    seen: list[tuple[bool, float]] = []
    total = args.random + args.beside
    for i, scene in enumerate(_scenes(args.random, args.seed0, args.beside, args.beside_seed0)):
        seen.extend(rail_dice(scene))
        if (i + 1) % 50 == 0 or i + 1 == total:
            print(f"{i + 1}/{total} throws read, {len(seen)} dice by the rail alone read flat",
                  file=sys.stderr, flush=True)
    lines, best = choose(seen, cocked_threshold())
    print("\n".join(lines))
    print(f"lowest bar calling at most {MAX_FLAT_CALLED:.0%} of the flat dice cocked: {best:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
