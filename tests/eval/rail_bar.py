"""Choosing the rail bars (``vision.dice.support.RAIL_COCKED_THRESHOLD`` and
``RAIL_PATCH_BAR``, BG-ROLL-2).

Run ``.venv/bin/python -m tests.eval.rail_bar [--random N] [--beside N] [--seed0 S]
[--beside-seed0 S] [--workers P] [--save FILE] [--load FILE ...]``.

A die within a cocked die's reach of the rail and of nothing else is called cocked from a bar
lower than the cocked model's own: the rail is the surface a die thrown hard most often leans
on, and a flat die there has nothing else to be confused with. This reads random throws
(``vision.dice.synth``, seeds from ``--seed0``) and throws with a die beside a checker or the
rail (``vision.dice.leaning``, seeds from ``--beside-seed0``) with the board's dice pass, as
``hakem vision read`` does before its supports, and prints for each bar (steps of 0.1 up to
the model's bar): of the flat dice read flat within reach of the rail alone, how many the bar
calls cocked; of the cocked dice there read flat, how many it catches; then the lowest bar
calling at most 1% of those flat dice cocked. Then the same for the profile model's and the
patch network's joint logit, with the shipped profile bar: the floor above which every joint
bar keeps the two bars' calls within that 1%. The defaults are the first seeds the shipped
bars were chosen on (the comments above them list them all), apart from the evaluation's
(``tests.eval.dice``) and the training's; ``--save`` writes what a run saw and ``--load`` adds
earlier runs' to it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

from vision.board_reader import prepare, read_prepared
from vision.calibration import Calibration
from vision.dice.board_pass import read_frame
from vision.dice.leaning import beside_checker_scene
from vision.dice.patch_net import joint_logit
from vision.dice.pose import cocked_threshold
from vision.dice.support import RAIL_COCKED_THRESHOLD, leaning_places, near_rail, only_rail
from vision.dice.synth import DiceScene, random_dice_scene
from vision.dice.train_cocked import in_workers

MAX_FLAT_CALLED = 0.01  # of the flat dice by the rail alone: the false-alarm bound


# truly flat, p_cocked, the patch network's logit, by the rail alone (else also by a checker,
# the bar, the other die or the cube)
Seen = tuple[bool, float, float | None, bool]


def _jobs(random_n: int, seed0: int, beside_n: int, beside_seed0: int
          ) -> list[tuple[str, int]]:
    return ([("random", s) for s in range(seed0, seed0 + random_n)]
            + [("beside", s) for s in range(beside_seed0, beside_seed0 + beside_n)])


def _scene(job: tuple[str, int]) -> DiceScene:
    kind, seed = job
    if kind == "random":
        return random_dice_scene(seed)
    return beside_checker_scene(seed, cocked=seed % 2 == 0)


def _rail_dice_of(job: tuple[str, int]) -> list[Seen]:
    return rail_dice(_scene(job))


def rail_dice(scene: DiceScene) -> list[Seen]:
    """:data:`Seen` of each die of ``scene`` read flat within reach of the rail
    (``support.near_rail``), as the pass reads it before its supports."""
    g = scene.geometry
    cal = Calibration(np.asarray(scene.corners, np.float32).reshape(4, 2), "corners", g)
    frame = prepare(scene.image, cal)
    slots = read_prepared(frame, dice=False).slot_counts()
    found = read_frame(frame)
    dice, cube = found.dice, found.cube
    out = []
    for d in dice:
        truth = [t for t in scene.dice
                 if math.hypot(d.centre_mm[0] - t.x_mm, d.centre_mm[1] - t.y_mm) < 10.0]
        if not truth or not d.flat:
            continue
        if near_rail(d, g):
            alone = only_rail(d, g, leaning_places(d, slots, g), dice,
                              None if cube is None else cube.centre_mm)
            out.append((truth[0].flat, d.p_cocked, d.patch_logit, alone))
    return out


def choose(seen: list[Seen], model_bar: float) -> tuple[list[str], float]:
    """The table of bars (steps of 0.1 under the model's bar) and the lowest bar that calls at
    most :data:`MAX_FLAT_CALLED` of the flat dice cocked (the model's bar when none does)."""
    flat = np.array([p for f, p, _, alone in seen if f and alone])
    cocked = np.array([p for f, p, _, alone in seen if not f and alone])
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


def choose_joint(seen: list[Seen], rail_bar: float, model_bar: float
                 ) -> tuple[list[str], float]:
    """The same for the joint logit of the profile model and the patch network
    (``vision.dice.patch_net.joint_logit``) of the dice by the rail alone: the table (steps of
    0.25 from -1 to 2) and the floor above which every bar keeps the flat dice called cocked
    by either rail bar (``rail_bar`` on the profile model's probability) within
    :data:`MAX_FLAT_CALLED` of them all: the joint logit of the flat die one too many (-inf
    when there is none; inf when the profile model's rail bar alone calls too many)."""
    alone = [(f, p, z) for f, p, z, by_rail_alone in seen if by_rail_alone]
    n_flat = sum(1 for f, _, _ in alone if f)
    n_cocked = len(alone) - n_flat
    by_p = [f for f, p, _ in alone if rail_bar <= p < model_bar]
    rest = [(f, joint_logit(p, z)) for f, p, z in alone
            if z is not None and not rail_bar <= p < model_bar]

    def counts(bar: float) -> tuple[int, int]:
        flat = sum(by_p) + sum(1 for f, j in rest if f and j >= bar)
        caught = len(by_p) - sum(by_p) + sum(1 for f, j in rest if not f and j >= bar)
        return flat, caught

    lines = []
    for bar in np.arange(-1.0, 2.01, 0.25):
        flat, caught = counts(float(bar))
        lines.append(f"joint bar {bar:+.2f}: flat called cocked {flat}/{n_flat}, cocked caught "
                     f"{caught}/{n_cocked}")
    allowed = math.floor(MAX_FLAT_CALLED * n_flat) - sum(by_p)
    if allowed < 0:
        return lines, math.inf
    flats = sorted((j for f, j in rest if f), reverse=True)
    # the joint logit of the flat die one too many: every bar above it keeps within the share
    return lines, flats[allowed] if allowed < len(flats) else -math.inf


def main(argv: list[str]) -> int:
    """Read the throws, print the table and the bar to choose."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=600, help="random throws")
    parser.add_argument("--seed0", type=int, default=5000)
    parser.add_argument("--beside", type=int, default=400, help="throws beside a checker")
    parser.add_argument("--beside-seed0", type=int, default=2_950_000)
    parser.add_argument("--workers", type=int, default=1, help="processes reading throws")
    parser.add_argument("--save", metavar="FILE", help="also write what was seen (JSON)")
    parser.add_argument("--load", metavar="FILE", nargs="*", default=[],
                        help="add what earlier runs saved (--random 0 --beside 0: those alone)")
    args = parser.parse_args(argv)
    if args.workers < 1:
        raise SystemExit(f"--workers must be at least 1, not {args.workers}")
    seen: list[Seen] = []
    jobs = _jobs(args.random, args.seed0, args.beside, args.beside_seed0)
    for i, part in enumerate(in_workers(_rail_dice_of, jobs, args.workers), 1):
        seen.extend(part)
        if i % 50 == 0 or i == len(jobs):
            print(f"{i}/{len(jobs)} throws read, {len(seen)} dice by the rail read flat",
                  file=sys.stderr, flush=True)
    for path in args.load:
        try:
            seen.extend(tuple(row) for row in json.loads(Path(path).read_text()))
        except (OSError, ValueError) as exc:
            raise SystemExit(f"cannot load {path!r}: {exc}") from exc
    if args.save:
        Path(args.save).write_text(json.dumps(seen))
    lines, best = choose(seen, cocked_threshold())
    print("\n".join(lines))
    print(f"lowest bar calling at most {MAX_FLAT_CALLED:.0%} of the flat dice cocked: {best:.3f}")
    lines, floor = choose_joint(seen, RAIL_COCKED_THRESHOLD, cocked_threshold())
    print("\n".join(lines))
    print(f"with the rail bar {RAIL_COCKED_THRESHOLD}, every joint bar above {floor:.3f} calls at "
          f"most {MAX_FLAT_CALLED:.0%} of the flat dice cocked")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
