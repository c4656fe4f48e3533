"""Benchmark: reading dice and cube compared with reading the board, on the same frames.

Run ``.venv/bin/python -m tests.bench.dice [N]``: N synthetic 1280x720 throws (board, checkers,
two dice, the cube); prints the median time of a board reading (``vision.board_reader``:
checkers, bar, occlusion), of the dice and cube reading (``vision.dice.reading``), and the
share the second adds to the first (the issue's target: at most 30%).
"""

from __future__ import annotations

import statistics
import sys
import time

from vision.board_reader import read_board
from vision.dice.reading import read_dice_and_cube
from vision.dice.synth import random_dice_scene


def main(argv: list[str]) -> int:
    """Time both readers and print the figures."""
    n = int(argv[0]) if argv else 20
    board_ms, dice_ms = [], []
    for seed in range(n):
        scene = random_dice_scene(50_000 + seed)
        read_board(scene.image, corners=scene.corners)  # warm-up per frame (caches)
        t = time.perf_counter()
        read_board(scene.image, corners=scene.corners)
        board_ms.append(1000.0 * (time.perf_counter() - t))
        t = time.perf_counter()
        read_dice_and_cube(scene.image, scene.corners, scene.geometry)
        dice_ms.append(1000.0 * (time.perf_counter() - t))
    b, d = statistics.median(board_ms), statistics.median(dice_ms)
    print(f"frames: {n} synthetic 1280x720 throws")
    print(f"board reading (checkers, bar, occlusion): median {b:.1f} ms")
    print(f"dice + cube reading:                      median {d:.1f} ms")
    print(f"dice + cube add {100.0 * d / b:.0f}% to a board reading (target: at most 30%)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
