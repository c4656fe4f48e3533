"""Benchmark: the dice and cube pass compared with the board reading it rides on.

Run ``.venv/bin/python -m tests.bench.dice [N]``: N synthetic 1280x720 throws (board, checkers,
two dice, the cube; seeds from 50,000). Per frame, timed separately on the same picture:

- board reading: ``vision.board_reader.read_board`` with the corners given (warp to the reading
  raster, checkers, bar, occlusion) but the dice pass switched off;
- dice + cube pass: ``vision.dice.board_pass.read_frame`` on a prepared frame (what the board
  reading adds when the pass is on; the frame is decoded and warped once for both);
- the whole reading with the pass on, as ``hakem vision read`` runs it;
- for comparison, the dice alone: ``vision.dice.board.read_board_dice`` (raster candidates,
  what the pass runs) and the same with the older whole-frame spot candidates.

Prints the medians side by side and the share the pass adds to a board reading (the issue's
target: at most 30%). Each frame is read once untimed first (the warp tables are cached per
camera pose, as on the table where the camera does not move).
"""

from __future__ import annotations

import functools
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import vision.board_reader as board_reader
from engine.errors import ImageError
from vision.board_reader import prepare, read_board
from vision.calibration import locate_board
from vision.dice import board_pass
from vision.dice.board import read_board_dice
from vision.dice.reading import image_to_mm
from vision.dice.synth import random_dice_scene


def _timed(fn: Callable[[], Any]) -> float:
    t = time.perf_counter()
    fn()
    return 1000.0 * (time.perf_counter() - t)


def main(argv: list[str]) -> int:
    """Time the readers and print the figures."""
    n = int(argv[0]) if argv else 20
    board_ms, dice_ms, whole_ms, raster_ms, spots_ms = [], [], [], [], []
    real_pass = board_reader.dice_and_cube
    for seed in range(n):
        scene = random_dice_scene(50_000 + seed)
        try:
            calibration = locate_board(scene.image, scene.geometry, scene.corners)
        except ImageError:  # a corner just outside the picture: not a usable frame
            continue
        read_board(scene.image, corners=scene.corners)  # warm-up: warp tables, models
        image, corners = scene.image, scene.corners

        def board(image: Any = image, corners: Any = corners) -> None:
            read_board(image, corners=corners)

        board_reader.dice_and_cube = lambda frame: ([], None)
        try:
            board_ms.append(_timed(board))
        finally:
            board_reader.dice_and_cube = real_pass
        frame = prepare(image, calibration)
        dice_ms.append(_timed(functools.partial(board_pass.read_frame, frame)))
        whole_ms.append(_timed(board))
        to_mm = image_to_mm(corners, scene.geometry)
        raster_ms.append(_timed(functools.partial(read_board_dice, image, to_mm,
                                                  scene.geometry)))
        spots_ms.append(_timed(functools.partial(read_board_dice, image, to_mm,
                                                 scene.geometry, spots=True)))
    b, d, w = (statistics.median(v) for v in (board_ms, dice_ms, whole_ms))
    print(f"frames: {n} synthetic 1280x720 throws (median per frame)")
    print(f"  board reading, dice pass off : {b:7.2f} ms")
    print(f"  dice + cube pass             : {d:7.2f} ms")
    print(f"  board reading, dice pass on  : {w:7.2f} ms")
    print(f"dice + cube time as % of board reading time: {100.0 * d / b:.0f}% "
          f"(whole reading {100.0 * (w - b) / b:+.0f}%; target: at most 30%)")
    print(f"dice alone, read_board_dice: raster candidates {statistics.median(raster_ms):.2f} ms,"
          f" spot candidates {statistics.median(spots_ms):.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
