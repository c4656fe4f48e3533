"""The cube searches stop at a face read surely (``vision.cube_search.SURE_READ``: no later
square could be taken over it) and give what a search looking at every square gives; the cube
memory's still test settles a patch whose pixels all stayed close without its means."""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np
import pytest

from vision import cube_search, cube_squares
from vision.cube import CubeReading
from vision.cube_search import find_cube, find_cube_in_parts, whole_raster_levels
from vision.dice.cube_memory import STILL_DIFF, _moved
from vision.dice.synth import random_dice_scene
from vision.geometry import Canonical

SEEDS = range(8)


def _raster(seed: int) -> tuple[np.ndarray, Canonical, tuple[float, float]]:
    """A rendered throw with its cube, warped to the cube's raster of the whole case (as the
    frame reader warps it), and where the cube lies (board mm)."""
    scene = random_dice_scene(seed, cube_rate=1.0)
    assert scene.cube is not None
    canonical = Canonical.whole_board(scene.geometry, 1.0)
    h = canonical.homography_from_image(scene.corners)
    return (cv2.warpPerspective(scene.image, h, canonical.size), canonical,
            (scene.cube.x_mm, scene.cube.y_mm))


def _light_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the searches' calls for light squares."""
    calls: list[int] = []
    real = cube_squares.light_square_candidates

    def spy(*args: object, **kwargs: object) -> list[np.ndarray]:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cube_search, "light_square_candidates", spy)
    return calls


def _part(raster: np.ndarray, warped: list[tuple[int, int, int, int]],
          box: tuple[int, int, int, int]) -> np.ndarray:
    """Pixels (u0, v0, u1, v1) of a raster, as a frame reader warps them, noted in
    ``warped``."""
    warped.append(box)
    u0, v0, u1, v1 = box
    return raster[v0:v1, u0:u1]


def test_a_whole_search_stops_at_a_sure_read_with_the_same_reading(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where an edge-bound square reads surely the light squares are not looked for, and the
    reading is the one every square looked at gives (the first read most surely)."""
    calls = _light_calls(monkeypatch)
    readings: list[CubeReading | None] = []
    for seed in SEEDS:
        raster, canonical, _ = _raster(seed)
        readings.append(find_cube(raster, canonical))
    stopped = len(SEEDS) - len(calls)
    assert stopped >= 2  # the stop is taken on some throws
    monkeypatch.setattr(cube_search, "SURE_READ", math.inf)
    calls.clear()
    for seed, reading in zip(SEEDS, readings, strict=True):
        raster, canonical, _ = _raster(seed)
        assert find_cube(raster, canonical) == reading
    assert len(calls) == len(SEEDS)


def test_a_search_in_parts_stops_at_a_sure_read_with_the_same_reading(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts after one with a face read surely are not warped nor searched."""
    sure = 0
    for seed in SEEDS:
        raster, canonical, (x, y) = _raster(seed)
        levels = whole_raster_levels(raster, canonical)
        # the cube's place first, then a part of the case far from it
        far = (x + 200.0 if x < canonical.geometry.width_mm / 2 else x - 200.0, y)
        boxes = [(x - 5, y - 5, x + 5, y + 5), (far[0] - 5, far[1] - 5, far[0] + 5, far[1] + 5)]
        warped: list[tuple[int, int, int, int]] = []
        part = functools.partial(_part, raster, warped)
        found = find_cube_in_parts(part, canonical, boxes, levels)
        with monkeypatch.context() as patched:
            patched.setattr(cube_search, "SURE_READ", math.inf)
            assert find_cube_in_parts(part, canonical, boxes, levels) == found
        if found is not None and found.confidence >= 1.0:
            sure += 1
            assert len(warped) == 1 + 2  # the cube's part, then both parts looked at
    assert sure >= 2


@pytest.mark.parametrize("seed", range(4))
def test_the_still_test_is_the_means_test(seed: int) -> None:
    """``_moved`` answers as the 6 x 6 means of the patches' difference do, about the
    threshold too (a block's mean at STILL_DIFF - 1, STILL_DIFF)."""
    rng = np.random.default_rng(seed)
    before = rng.integers(0, 256, (48, 48), dtype=np.uint8)

    def means_moved(patch: np.ndarray) -> bool:
        change = cv2.resize(cv2.absdiff(patch, before), (6, 6), interpolation=cv2.INTER_AREA)
        return float(change.max()) >= STILL_DIFF

    for spread in (0, 5, 24, 25, 40, 120):
        for _ in range(20):
            step = rng.integers(-spread, spread + 1, before.shape)
            patch = np.clip(before.astype(int) + step, 0, 255).astype(np.uint8)
            assert _moved(patch, before) == means_moved(patch)
    for level in (STILL_DIFF - 1, STILL_DIFF - 0.5, STILL_DIFF):
        patch = before.copy()
        block = before[8:16, 8:16].astype(float)
        # one block moved by ``level`` on average (one pixel by more when it is a half)
        shift = np.full(block.shape, math.floor(level))
        shift[0, : round((level % 1) * 64)] += 1
        patch[8:16, 8:16] = np.where(block < 128, block + shift, block - shift).astype(np.uint8)
        assert _moved(patch, before) == means_moved(patch)
