"""Evaluation of a cube lying on the bar with checkers there: bar counts and cube, as
``hakem vision read`` and a table's ``FrameReader`` read them.

Run ``.venv/bin/python -m tests.eval.cube_on_bar [--n N] [--seed0 S] [--size MM]``. Each seed
renders a starting position (BG-EQ-3) with the demo's camera (its seed and colour scheme drawn
from the seed), none to two checkers taken from the starting points to the bar, and the cube
centred on the bar (BG-CUBE-1) up to 55 mm above or below its middle, any value, turned by up
to 20 degrees (``--size``: its side, 40 mm by default, the geometry's). A scene where the
camera could not lay the bar's checkers clear of the cube is skipped (a checker under the
cube is no position a player leaves). Prints, for each reader, how often the bar counts, every
point's counts and the cube (value, zone ``centre``) are right, and every miss.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter

import numpy as np

from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from controller.runtime.view import FrameReader
from vision.board_reader import read_board
from vision.cube import CubeProp
from vision.cube_face import CUBE_VALUES
from vision.render import SCHEMES

# each side's checkers as they start, in image slot order (BG-EQ-3)
START = {0: (2, 0), 5: (0, 5), 7: (0, 3), 11: (5, 0), 12: (0, 5), 16: (3, 0), 18: (5, 0),
         23: (0, 2)}
BARS = ((0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (0, 2))


def start_with_bar(bar: tuple[int, int]) -> list[tuple[int, int]]:
    """The starting points (image slot order) less the checkers put on the ``bar`` (darker,
    lighter): each taken from the outermost point holding that colour's checkers."""
    return [(a - (bar[0] if i == 0 else 0), b - (bar[1] if i == 5 else 0))
            for i, (a, b) in ((i, START.get(i, (0, 0))) for i in range(24))]


def scene(seed: int, size_mm: float) -> tuple[np.ndarray, DemoCamera, list[tuple[int, int]],
                                              tuple[int, int], int] | None:
    """A seed's picture, its camera, points, bar and cube value (None: skipped)."""
    rnd = random.Random(seed)
    camera = DemoCamera(seed=seed % 7, scheme=SCHEMES[seed % len(SCHEMES)])
    g = camera.geometry
    bar = rnd.choice(BARS)
    slots = start_with_bar(bar)
    value = rnd.choice(CUBE_VALUES)
    cube = CubeProp(g.bar.centre[0] + rnd.uniform(-3, 3), g.height_mm / 2 + rnd.uniform(-55, 55),
                    value, yaw_deg=rnd.uniform(-20, 20), size_mm=size_mm)
    contents = contents_from_counts(slots, bar, (0, 0))
    if not camera.bar_clear(contents, cube):
        return None
    image, _ = camera.render(Shot(contents, cube=cube))
    return image, camera, slots, bar, value


def main(argv: list[str]) -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--seed0", type=int, default=0)
    parser.add_argument("--size", type=float, default=40.0, help="the cube's side (mm)")
    args = parser.parse_args(argv)
    right: Counter[str] = Counter()
    misses: list[str] = []
    shown = skipped = 0
    for seed in range(args.seed0, args.seed0 + args.n):
        made = scene(seed, args.size)
        if made is None:
            skipped += 1
            continue
        image, camera, slots, bar, value = made
        shown += 1
        corners = np.asarray(camera.corners, np.float32).reshape(4, 2)
        reading = read_board(image, corners=corners)
        seen = FrameReader(corners=[float(v) for v in corners.reshape(-1)]).read(image, 0)
        cube_read = None if reading.cube is None else (reading.cube["value"],
                                                       reading.cube["zone"])
        cube_seen = None if seen.cube is None else (seen.cube.value, seen.cube.zone)
        checks = {"read bar": reading.bar.counts == bar,
                  "read points": reading.slot_counts() == slots,
                  "read cube": cube_read == (value, "centre"),
                  "table bar": seen.board.reading.bar.counts == bar,
                  "table points": seen.board.reading.slot_counts() == slots,
                  "table cube": cube_seen == (value, "centre")}
        right.update(k for k, ok in checks.items() if ok)
        if not all(checks.values()):
            misses.append(f"seed {seed}: bar {bar}, cube {value}: read bar "
                          f"{reading.bar.counts} cube {cube_read}; table bar "
                          f"{seen.board.reading.bar.counts} cube {cube_seen}")
    print(f"cube of {args.size:g} mm on the bar: {shown} scenes ({skipped} skipped: no room "
          f"on the bar beside the cube)")
    for what in ("read bar", "read points", "read cube", "table bar", "table points",
                 "table cube"):
        print(f"  {what:13}: {right[what]}/{shown} = {100.0 * right[what] / max(shown, 1):.2f}%")
    for line in misses:
        print("   ", line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
