"""The raster model's first stage kept between frames (``vision.dice.raster_peaks``): worked out
in parts, merged or not, it finds what each part alone finds, and the rays of a part of a raster
are those of the patches cut from it."""

from __future__ import annotations

import random

import cv2
import numpy as np
import pytest

from controller.demo import players as pl
from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from controller.table_layout import DEFAULT_LAYOUT
from engine.backgammon.position import Position
from vision.dice import raster_peaks
from vision.dice.change_map import change_raster, inverse
from vision.dice.raster import PATCH_PX, patch_rays, patches, polar_index, ray_samples
from vision.dice.reading import image_to_mm


def test_the_rays_of_a_part_of_a_raster_are_those_of_its_patches() -> None:
    """A part of a larger raster (a view) gives the rays of the patches cut from it, its border
    repeated where a ray leaves it."""
    rng = np.random.default_rng(5)
    raster = rng.integers(0, 256, (120, 160, 3), np.uint8)
    for _ in range(20):
        y0, x0 = (int(v) for v in rng.integers(0, 60, 2))
        h, w = (int(v) for v in rng.integers(3, 60, 2))
        part = raster[y0:y0 + h, x0:x0 + w]
        centres = np.stack([rng.integers(0, w, 12), rng.integers(0, h, 12)], axis=1)
        want = patch_rays(patches(np.ascontiguousarray(part), centres, PATCH_PX))
        assert np.array_equal(ray_samples(part, centres), want)
        assert np.array_equal(ray_samples(np.ascontiguousarray(part), centres), want)


@pytest.fixture(scope="module")
def frames() -> tuple[DemoCamera, np.ndarray, np.ndarray]:
    """A board before and after a throw (the dice landing apart: several parts changed)."""
    camera = DemoCamera(seed=1)
    g = camera.geometry
    counts = DEFAULT_LAYOUT.counts(Position.initial())
    start = contents_from_counts(counts.slots, counts.bar, counts.off)
    before = camera.render(Shot(start, ()))[0]
    thrown = pl.thrown_dice(g, 0, (3, 5), random.Random(7))
    return camera, before, camera.render(Shot(start, thrown))[0]


@pytest.mark.parametrize("slack", [raster_peaks.MERGE_SLACK_PX, -10**9])
def test_the_parts_updated_find_what_a_whole_read_finds(
        frames: tuple[DemoCamera, np.ndarray, np.ndarray], slack: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The peaks of the frame before, updated in the parts where the frame changed (and in many
    small parts more, a few close enough to be warped as one; ``slack``: every part alone),
    are the peaks of the frame after read whole: their strength, and the places about the
    strongest."""
    camera, before, after = frames
    g = camera.geometry
    corners = np.asarray(camera.corners, np.float32).reshape(4, 2)
    from_mm = inverse(image_to_mm(corners, g).tobytes())
    known = raster_peaks.raster_peaks(before, from_mm, g)
    canonical, now = change_raster(after, from_mm, g)
    _canonical, then = change_raster(before, from_mm, g)
    mask = (np.abs(now - then) > 0.5).astype(np.uint8)
    assert 0 < np.count_nonzero(mask) < mask.size // 10
    mask[::40, ::45] = 1
    merged: list[int] = []
    real = raster_peaks._merged

    def counted(boxes: list[tuple[int, int, int, int]]) -> object:
        out = real(boxes)
        merged.append(len(boxes) - len(out))
        return out

    monkeypatch.setattr(raster_peaks, "_merged", counted)
    monkeypatch.setattr(raster_peaks, "MERGE_SLACK_PX", slack)
    updated = raster_peaks.update_peaks(known, after, from_mm, g, canonical, mask)
    assert (merged[0] > 0) == (slack >= 0)
    whole = raster_peaks.raster_peaks(after, from_mm, g)
    order, want = np.lexsort(updated.uv.T[::-1]), np.lexsort(whole.uv.T[::-1])
    assert np.array_equal(updated.uv[order], whole.uv[want])
    np.testing.assert_allclose(updated.strength[order], whole.strength[want], rtol=1e-4)
    for at, places in whole.places.items():
        assert [(u, v) for u, v, _p in updated.places[at]] == [(u, v) for u, v, _p in places]
        np.testing.assert_allclose([p for *_uv, p in updated.places[at]],
                                   [p for *_uv, p in places], atol=1e-5)


def test_pixels_warped_alone_are_those_of_the_raster_warped_whole(
        frames: tuple[DemoCamera, np.ndarray, np.ndarray]) -> None:
    """The rays of a peak warped alone (only their own pixels, as ``update_peaks`` warps a
    peak newly among the strongest outside the parts it warped) are the very values of the
    raster warped whole, at the raster's edges too (a ray leaving it clipped to its border)."""
    camera, _before, after = frames
    g = camera.geometry
    from_mm = inverse(image_to_mm(np.asarray(camera.corners, np.float32).reshape(4, 2),
                                  g).tobytes())
    raster, m1, m2, src = raster_peaks._warp_for(after, from_mm, g)
    w, h = raster.size
    whole = cv2.remap(src, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    rng = np.random.default_rng(11)
    centres = np.concatenate([np.stack([rng.integers(0, w, 40), rng.integers(0, h, 40)], 1),
                              [[0, 0], [w - 1, h - 1], [2, h // 2], [w // 2, h - 3]]])
    ys, xs = polar_index()
    rows = np.clip(centres[:, 1, None, None] + ys[None], 0, h - 1)
    cols = np.clip(centres[:, 0, None, None] + xs[None], 0, w - 1)
    alone = raster_peaks._warped_at(src, m1, m2, rows, cols)
    assert np.array_equal(alone, ray_samples(whole, centres))
    assert np.array_equal(raster_peaks._warped_at(src, m1, m2, rows[:1, 0, :1], cols[:1, 0, :1]),
                          whole[rows[:1, 0, :1], cols[:1, 0, :1]])
