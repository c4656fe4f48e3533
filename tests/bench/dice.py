"""Benchmark: the dice and cube pass against the board reading it rides on (issue 5).

Run ``.venv/bin/python -m tests.bench.dice [--frames N] [--repeat R] [--spots]``: N synthetic
1280x720 throws (board, checkers, two dice, the cube; ``vision.dice.synth`` seeds from 50,000),
each read R times, interleaved, as CPU time of this (single) thread with one OpenCV thread (as
``tests.bench.vision``), so other processes on a busy machine count as little as they can:

- board: ``vision.board_reader.read_board`` with the corners given and the dice pass off
  (calibration from the corners, warp to the reading raster, checkers, bar, occlusion);
- dice: ``vision.dice.board_pass.read_frame_dice`` on the prepared frame (raster candidates,
  face, pose, on-checker: ``vision.dice.board.read_board_dice``);
- cube: the cube half of the pass on the same frame (``board_pass.read_frame_cube``);
- with ``--spots``, for comparison, the dice with the older whole-frame spot candidates.

Prints the median per frame of each, and (dice + cube) / board: the issue's target is at most
0.30 (the pass adds at most 30% to a board reading). Each frame is read once untimed first
(warp tables are kept per camera pose, as on the table, where the camera does not move).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from engine.errors import ImageError
from vision.board_reader import prepare, read_board
from vision.calibration import locate_board
from vision.dice import board_pass
from vision.dice.board import read_board_dice
from vision.dice.reading import image_to_mm
from vision.dice.synth import random_dice_scene

TARGET = 0.30


def _thread_ms(fn: Callable[[], Any]) -> float:
    t = time.thread_time()
    fn()
    return 1000.0 * (time.thread_time() - t)


def _cube_reader() -> Callable[[Any], Any]:
    """The cube half of the pass (``read_frame_cube``; before it existed, the same calls)."""
    reader = getattr(board_pass, "read_frame_cube", None)
    if reader is not None:
        return reader  # type: ignore[no-any-return]
    from vision.cube import find_cube_on_strips

    def read(frame: Any) -> Any:
        g = frame.calibration.geometry
        from_mm = board_pass._from_mm(frame.calibration.corners, g)
        strips = [*board_pass.cube_strips(frame, from_mm), board_pass.bar_strip(frame)]
        return find_cube_on_strips(strips, frame.image, from_mm, g)

    return read


def measure(frames: int, repeat: int, spots: bool = False) -> dict[str, float]:
    """Median per frame (ms, thread CPU time) of board, dice, cube (and spot-candidate dice)."""
    cv2.setNumThreads(1)
    cube_reader = _cube_reader()
    per: dict[str, list[float]] = {"board": [], "dice": [], "cube": [], "spots": []}
    for seed in range(50_000, 50_000 + frames):
        scene = random_dice_scene(seed)
        try:
            calibration = locate_board(scene.image, scene.geometry, scene.corners)
        except ImageError:  # a corner just outside the picture: not a usable frame
            continue
        image, corners = scene.image, np.asarray(scene.corners, np.float32).reshape(4, 2)
        frame = prepare(image, calibration)
        to_mm = image_to_mm(corners, scene.geometry)
        read_board(image, corners=corners, dice=False)  # warm-up: warp tables, models
        board_pass.read_frame_dice(frame)
        cube_reader(frame)
        runs: dict[str, list[float]] = {k: [] for k in per}
        calls: list[tuple[str, Callable[[], Any]]] = [
            ("board", functools.partial(read_board, image, corners=corners, dice=False)),
            ("dice", functools.partial(board_pass.read_frame_dice, frame)),
            ("cube", functools.partial(cube_reader, frame)),
        ]
        if spots:
            calls.append(("spots", functools.partial(read_board_dice, image, to_mm,
                                                     scene.geometry, spots=True)))
        for _ in range(repeat):
            for key, fn in calls:
                runs[key].append(_thread_ms(fn))
        for k, v in runs.items():
            if v:
                per[k].append(statistics.median(v))
    return {k: statistics.median(v) for k, v in per.items() if v}


def main(argv: list[str]) -> int:
    """Time the readers and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--spots", action="store_true",
                        help="also time the dice with the whole-frame spot candidates")
    args = parser.parse_args(argv)
    m = measure(args.frames, args.repeat, args.spots)
    ratio = (m["dice"] + m["cube"]) / m["board"]
    print(f"frames: {args.frames} synthetic 1280x720 throws, {args.repeat} reads each "
          f"(median per frame, CPU time of one thread)")
    print(f"  board reading, dice pass off : {m['board']:7.2f} ms")
    print(f"  dice                         : {m['dice']:7.2f} ms")
    print(f"  cube                         : {m['cube']:7.2f} ms")
    if "spots" in m:
        print(f"  dice, spot candidates        : {m['spots']:7.2f} ms")
    print(f"(dice + cube) / board: {ratio:.2f} (dice {m['dice'] / m['board']:.2f}, cube "
          f"{m['cube'] / m['board']:.2f}); target at most {TARGET:.2f}: "
          f"{'within' if ratio <= TARGET else 'OUTSIDE'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
