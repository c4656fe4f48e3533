"""Evaluation of the flat/cocked judgement (BG-ROLL-2): cocked dice caught, flat dice called cocked.

Run ``.venv/bin/python -m tests.eval.cocked [--demo N] [--synthetic N] [--phantom N]
[--seed0 S] [--second-bar P ...]``.

Demo-style throws: the demo's own camera (``controller.demo.camera.DemoCamera``, 1280x720, a small
die) and its players' throws (``controller.demo.players.thrown_dice``): half of them planted cocked
(one die tilted by ``COCKED_TILT_DEG`` against the outermost checker of a stack of the thrower's
half as the camera draws it, or against the rail) and half valid (both dice flat), on random board
contents. Synthetic throws: ``vision.dice.synth``'s random throws (the evaluation's seeds, as
``tests.eval.dice``; the models are trained on seeds from 1,000,000 up). Both are read as the
referee reads them, by ``vision.dice.board.read_board_dice``; a die counts when a reading lies
within 10 mm of it (flat and cocked dice found are counted apart: a cocked die the reader does not
find at all is no pose model's miss). Phantoms: demo-style boards with NO dice (the demo's camera;
checkers in many positions, stacks up to eight, so that white checkers lie over the apexes of dark
points and on the bar), where every die the reader reports is a phantom (a false "throw again" for
the referee); printed per frame. Also printed: the mean time of the pose stage per call.
``--second-bar`` (repeatable) runs the whole evaluation once with each of these bars for the
reader's second chances in place of the model's (``pose.second_chance_threshold``): how the
bar is chosen (the phantoms against the demo's cocked dice caught).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Iterator

import numpy as np

from controller.config.table import CameraSection
from controller.demo import players
from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from controller.demo.script import InvalidKind
from controller.table_layout import DEFAULT_LAYOUT
from engine.backgammon.position import Position
from vision.dice import face_check, pose, second_chance
from vision.dice.board import read_board_dice
from vision.dice.reading import image_to_mm, kept_die
from vision.dice.synth import random_dice_scene
from vision.geometry import BoardGeometry, Canonical
from vision.render.scene import random_contents

Throw = tuple[np.ndarray, np.ndarray, BoardGeometry, list[tuple[float, float, bool]]]


def demo_throws(n: int, seed0: int) -> Iterator[Throw]:
    """``n`` demo-style throws (image, image-to-mm homography, geometry, dice (x, y, flat))."""
    camera = DemoCamera()
    g = camera.geometry
    corners = np.asarray(camera.corners, np.float32).reshape(4, 2)
    to_mm = Canonical(g, 1.0, (0.0, 0.0)).homography_from_image(corners)
    for k in range(seed0, seed0 + n):
        rng = random.Random(k)
        contents = random_contents(np.random.default_rng(k), 5)
        invalid: InvalidKind | None = "cocked" if k % 2 == 0 else None
        dice = players.thrown_dice(g, k // 2 % 2, (rng.randint(1, 6), rng.randint(1, 6)), rng,
                                   invalid, contents, camera.column_end)
        image, _ = camera.render(Shot(contents, dice))
        yield image, to_mm, g, [(d.x_mm, d.y_mm, d.flat) for d in dice]


PHANTOM_SEED0 = 500_000  # dice-free boards: contents seeds apart from the throws


def phantom_boards(n: int, seed0: int) -> Iterator[Throw]:
    """``n`` demo-style boards with no dice: (image, image-to-mm homography, geometry, [])."""
    camera = DemoCamera()
    g = camera.geometry
    corners = np.asarray(camera.corners, np.float32).reshape(4, 2)
    to_mm = Canonical(g, 1.0, (0.0, 0.0)).homography_from_image(corners)
    cube = players.centre_cube(g)
    for k in range(seed0, seed0 + n):
        rng = np.random.default_rng(PHANTOM_SEED0 + k)
        if k % 10 == 0:  # the opening position, as every game of the demo starts
            counts = DEFAULT_LAYOUT.counts(Position.initial())
            contents = contents_from_counts(counts.slots, counts.bar, counts.off)
        else:
            contents = random_contents(rng, int(rng.choice([5, 6, 8])))
        image, _ = camera.render(Shot(contents, (), cube if k % 3 else None))
        yield image, to_mm, g, []


def phantoms(boards: Iterator[Throw]) -> list[tuple[int, int]]:
    """Dice the reader reports on each dice-free board, and of them those a table keeps (its
    camera floors: ``vision.dice.reading.kept_die``)."""
    camera = CameraSection()
    out = []
    for image, to_mm, g, _ in boards:
        read = read_board_dice(image, to_mm, g)
        out.append((len(read), sum(kept_die(d.flat, d.confidence, camera.die_floor,
                                            camera.cocked_floor) for d in read)))
    return out


def synthetic_throws(n: int, seed0: int) -> Iterator[Throw]:
    """``n`` of ``vision.dice.synth``'s random throws (the evaluation's seeds)."""
    for seed in range(seed0, seed0 + n):
        scene = random_dice_scene(seed)
        yield (scene.image, image_to_mm(scene.corners, scene.geometry), scene.geometry,
               [(d.x_mm, d.y_mm, d.flat) for d in scene.dice])


def score(throws: Iterator[Throw]) -> dict[str, list[int]]:
    """Counters [hits, total]: flat and cocked dice found, cocked caught, flat called cocked;
    ``table_cocked``: cocked dice found, called cocked and kept by a table's camera floors
    (``vision.dice.reading.kept_die``), of every cocked die."""
    camera = CameraSection()
    c = {k: [0, 0] for k in ("found_flat", "found_cocked", "cocked_caught",
                             "flat_called_cocked", "table_cocked")}
    for image, to_mm, g, dice in throws:
        read = read_board_dice(image, to_mm, g)
        used: set[int] = set()
        for x, y, flat in dice:
            found = "found_flat" if flat else "found_cocked"
            c[found][1] += 1
            c["table_cocked"][1] += not flat
            near = [i for i, d in enumerate(read) if i not in used
                    and math.hypot(d.centre_mm[0] - x, d.centre_mm[1] - y) < 10.0]
            if not near:
                continue
            used.add(near[0])
            c[found][0] += 1
            die = read[near[0]]
            key = "flat_called_cocked" if flat else "cocked_caught"
            c[key][0] += not die.flat
            c[key][1] += 1
            c["table_cocked"][0] += not flat and not die.flat and kept_die(
                False, die.confidence, camera.die_floor, camera.cocked_floor)
    return c


class _PoseTimer:
    """Times ``pose_features`` as ``find_faces`` calls it (the pose stage's cost per die)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0
        self._inner = pose.pose_features

    def __call__(self, *args: object, **kwargs: object) -> np.ndarray:
        t = time.perf_counter()
        out = self._inner(*args, **kwargs)  # type: ignore[arg-type]
        self.seconds += time.perf_counter() - t
        self.calls += 1
        return out


def _print(name: str, c: dict[str, list[int]]) -> None:
    for key, (hit, total) in c.items():
        share = f"{100.0 * hit / total:.2f}%" if total else "-"
        print(f"{name:10s} {key:20s} {hit}/{total} = {share}")


def main(argv: list[str]) -> int:
    """Print the figures on demo-style and synthetic throws."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", type=int, default=200, help="demo-style throws (half cocked)")
    parser.add_argument("--synthetic", type=int, default=100, help="synthetic throws")
    parser.add_argument("--phantom", type=int, default=100, help="dice-free demo boards")
    parser.add_argument("--seed0", type=int, default=0)
    parser.add_argument("--second-bar", type=float, action="append", default=[],
                        help="a bar for the second chances in place of the model's")
    args = parser.parse_args(argv)
    if not args.second_bar:
        return _evaluate(args)
    inner = second_chance.__dict__["second_chance_threshold"]
    try:
        for bar in args.second_bar:
            setattr(second_chance, "second_chance_threshold", lambda b=bar: b)  # noqa: B010
            print(f"second-chance bar {bar:.3f} (the model's: {inner():.3f})")
            _evaluate(args)
    finally:
        setattr(second_chance, "second_chance_threshold", inner)  # noqa: B010
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    """The figures of one run (:func:`main`'s arguments)."""
    timer = _PoseTimer()
    setattr(face_check, "pose_features", timer)  # noqa: B010 - face_finding calls it by this name
    try:
        print(f"cocked threshold {pose.cocked_threshold():.3f}")
        if args.demo:
            _print("demo", score(demo_throws(args.demo, args.seed0)))
        if args.synthetic:
            _print("synthetic", score(synthetic_throws(args.synthetic, args.seed0)))
        if args.phantom:
            pairs = phantoms(phantom_boards(args.phantom, args.seed0))
            counts = [n for n, _ in pairs]
            kept = [k for _, k in pairs]
            print(f"phantom    dice on {len(counts)} dice-free boards: {sum(counts)} "
                  f"(boards with any: {sum(c > 0 for c in counts)}); kept at the table's "
                  f"camera floors: {sum(kept)} (boards with any: {sum(k > 0 for k in kept)})")
            print("phantom    per frame: " + " ".join(str(c) for c in counts))
    finally:
        setattr(face_check, "pose_features", timer._inner)  # noqa: B010
    print(f"pose features: {1000.0 * timer.seconds / max(timer.calls, 1):.2f} ms per call "
          f"({timer.calls} calls)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
