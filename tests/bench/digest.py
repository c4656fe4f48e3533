"""A digest of every dice and cube reading over a fixed set of inputs: for work meant to make
the readers faster and change nothing else (issue 5's speed line).

Run ``.venv/bin/python -m tests.bench.digest [--recording DIR] [--out FILE]`` before and after a
change; equal digests mean the same readings, to the fourth decimal of every float. The set:
fresh synthetic throws (``vision.dice.synth`` seeds from 50,000; the dice pass and the cube
pass of ``vision.dice.board_pass``), a synthetic table stream with live camera noise read
through a table's ``FrameReader`` (its dice and cube memories: ``tests.bench.dice``'s
``table_stream``), with ``--recording`` the still frames of a ``hakem demo`` recording read
the same way, and the general dice reader (``hakem vision dice``) on the real photographs of
``../shared/data/dice_photos/Valid``. ``--out`` writes every reading as JSON, to find where
two runs differ. Prints one digest per part and one for all.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.demo.camera import DemoCamera
from engine.errors import ImageError
from tests.bench.dice import LIVE_NOISE, recording_frames, table_stream
from tests.conftest import SHARED_DATA
from vision.board_reader import prepare
from vision.calibration import locate_board
from vision.dice import board_pass
from vision.dice.detect import find_dice
from vision.dice.synth import random_dice_scene
from vision.imageio import load_image

PHOTOS = SHARED_DATA / "dice_photos" / "Valid"
FIRST_SEED = 50_000
DECIMALS = 4  # floats are compared to this many decimals (a last bit moved is no change)


def rounded(value: Any) -> Any:
    """``value`` (JSON-like) with every float rounded to :data:`DECIMALS`."""
    if isinstance(value, float):
        return round(value, DECIMALS)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(v) for v in value]
    return value


def _cube_json(cube: Any) -> Any:
    return None if cube is None else rounded(cube.as_json())


def synthetic_readings(count: int) -> list[Any]:
    """Fresh reads of ``count`` synthetic throws: [seed, dice, cube] each."""
    out: list[Any] = []
    for seed in range(FIRST_SEED, FIRST_SEED + count):
        scene = random_dice_scene(seed)
        try:
            calibration = locate_board(scene.image, scene.geometry, scene.corners)
        except ImageError:  # a corner just outside the picture: not a usable frame
            continue
        frame = prepare(scene.image, calibration)
        dice = [rounded(d.as_json()) for d in board_pass.read_frame_dice(frame)]
        out.append([seed, dice, _cube_json(board_pass.read_frame_cube(frame, reuse=False))])
    return out


def stream_readings(frames: Iterable[tuple[str, np.ndarray]], corners: np.ndarray
                    ) -> list[Any]:
    """A table's reads of a stream of still frames (its memories kept): [event, dice, cube]."""
    from controller.runtime.view import FrameReader

    reader = FrameReader(corners=[float(v) for v in np.asarray(corners).reshape(-1)])
    out: list[Any] = []
    for event, image in frames:
        calibration = reader._calibrate(image)
        dice = reader.dice_memory.read(image, calibration.corners, calibration.geometry)
        cube = reader._cube(image, calibration, reader._change_raster(image, with_dice=True))
        out.append([event, [rounded(d.as_json()) for d in dice], _cube_json(cube)])
    return out


def photo_readings(folder: Path, count: int) -> list[Any]:
    """The general dice reader on the first ``count`` photographs of ``folder``."""
    return [[path.name, [rounded(f.as_json()) for f in find_dice(load_image(path))]]
            for path in sorted(folder.glob("*.jpg"))[:count]]


def recording_corners(folder: Path) -> np.ndarray:
    """The camera corners a ``hakem demo`` recording was made with."""
    from controller.runtime.recording import Recording

    camera = Recording(folder).meta.get("config", {}).get("camera", {})
    if not camera.get("corners"):
        raise SystemExit(f"no camera corners in the recording {folder}")
    return np.asarray(camera["corners"], np.float32).reshape(4, 2)


def readings(synthetic: int, steps: int, photos: int, recording: Path | None,
             photo_folder: Path = PHOTOS) -> dict[str, list[Any]]:
    """Every part's readings (see the module docstring)."""
    cv2.setNumThreads(1)
    camera = DemoCamera(seed=0)
    corners = np.asarray(camera.corners, np.float32).reshape(4, 2)
    out = {"synthetic": synthetic_readings(synthetic),
           "stream": stream_readings(table_stream(1, steps, camera, noise=LIVE_NOISE,
                                                  rereads=1), corners)}
    if recording is not None:
        out["recording"] = stream_readings(recording_frames(recording),
                                           recording_corners(recording))
    if photos and not photo_folder.is_dir():  # a digest without them would differ silently
        raise SystemExit(f"no dice photos at {photo_folder} (set HAKEM_SHARED, or --photos 0)")
    out["photos"] = photo_readings(photo_folder, photos)
    return out


def digest(part: Any) -> str:
    """A short hash of readings (their JSON, keys sorted)."""
    text = json.dumps(part, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def main(argv: list[str]) -> int:
    """Read the set and print the digests."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=int, default=60, help="fresh synthetic throws")
    parser.add_argument("--steps", type=int, default=50, help="events of the table stream")
    parser.add_argument("--photos", type=int, default=80, help="real dice photographs")
    parser.add_argument("--recording", type=Path, help="a hakem demo recording folder")
    parser.add_argument("--out", type=Path, help="write every reading here as JSON")
    args = parser.parse_args(argv)
    parts = readings(args.synthetic, args.steps, args.photos, args.recording)
    for name, part in parts.items():
        print(f"{name:10s} {len(part):4d} readings  {digest(part)}")
    print(f"{'all':10s} {'':4s}           {digest(parts)}")
    if args.out is not None:
        args.out.write_text(json.dumps(parts, sort_keys=True, indent=0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
