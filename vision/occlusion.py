"""Something over the board: which slots (and whether the bar) are hidden in a still frame.

The empty board is modelled from the frame itself: the twelve points painted in the same
colour look alike once the bottom row is flipped, so the per-pixel median of those columns,
leaving out the parts where checkers were found, is what an empty column looks like. Pixels far
from that model and not explained by a checker are foreign; large foreign blobs (a hand, an
arm, a sleeve; not a die) hide the slots they cover. The bar is modelled by its own median row.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from vision.config import OcclusionConfig
from vision.geometry import Canonical


@dataclass(frozen=True)
class StripLayout:
    """Pixel windows of the 24 slot columns and the bar in a reading raster (half resolution)."""

    x0: np.ndarray  # (24,) left column of each strip, half-res px
    y_edge: np.ndarray  # (24,) row of the board edge, half-res px
    top: np.ndarray  # (24,) bool
    width: int
    length: int
    cls: np.ndarray  # (24,) point colour index
    bar_x0: int
    bar_x1: int
    bar_y0: int
    bar_y1: int
    checker_rows: float  # one checker diameter in half-res rows
    checker_area: float  # half-res px


@functools.lru_cache(maxsize=8)
def strip_layout(canonical: Canonical) -> StripLayout:
    g = canonical.geometry
    s = canonical.px_per_mm / 2.0
    width = int(g.point_width_mm * s)
    length = int(g.height_mm / 2.0 * s)
    mx, my = canonical.margin_mm
    x0 = np.array([int(round((g.slot_column_x0(i) + mx) * s)) for i in range(24)])
    top = np.arange(24) < 12
    y_top = int(round(my * s))
    y_bot = int(round((my + g.height_mm) * s))
    y_edge = np.where(top, y_top, y_bot - 1)
    cls = np.array([g.point_colour_index(i) for i in range(24)])
    b = g.bar
    quarter = g.checker_diameter_mm / 4.0
    return StripLayout(
        x0=x0,
        y_edge=y_edge,
        top=top,
        width=width,
        length=length,
        cls=cls,
        bar_x0=int(round((b.x0 - quarter + mx) * s)),
        bar_x1=int(round((b.x1 + quarter + mx) * s)),
        bar_y0=y_top,
        bar_y1=y_bot,
        checker_rows=g.checker_diameter_mm * s,
        checker_area=float(np.pi * (g.checker_diameter_mm * s / 2.0) ** 2),
    )


@dataclass
class Occlusion:
    """What is hidden: slots, the bar; the foreign mask (half-res raster) for pictures."""

    hidden_slots: tuple[int, ...]
    bar_hidden: bool
    foreign: np.ndarray
    slot_fraction: np.ndarray  # (24,) share of each column that is foreign

    @property
    def occluded(self) -> bool:
        return bool(self.hidden_slots) or self.bar_hidden


def _masked_median(stack: np.ndarray, excluded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median over axis 0 ignoring ``excluded`` entries (N, H) of ``stack`` (N, H, W, C).

    Excluded entries are pushed to +/- infinity in equal numbers so the median of the rest is
    unchanged; where fewer than three entries remain, the model is marked invalid.
    """
    n = stack.shape[0]
    rank = np.cumsum(excluded, axis=0)
    sign = np.where(rank % 2 == 1, np.inf, -np.inf)
    filled = np.where(excluded[..., None, None], sign[..., None, None], stack)
    med = np.median(filled, axis=0)
    valid = (n - excluded.sum(axis=0)) >= 3
    med = np.where(valid[:, None, None], med, 0.0)
    return med, valid


def find_occlusion(
    bgr: np.ndarray,
    canonical: Canonical,
    column_counts: np.ndarray,
    bar_rows: list[float],
    config: OcclusionConfig,
) -> Occlusion:
    """Foreign blobs over the board.

    ``column_counts``: (24,) how many checker diameters from the edge each column is filled
    (column checkers, overlays included); ``bar_rows``: y (reading-raster px) of checkers found
    on the bar.
    """
    lay = strip_layout(canonical)
    half = cv2.resize(bgr, (bgr.shape[1] // 2, bgr.shape[0] // 2), interpolation=cv2.INTER_AREA)
    img = half.astype(np.float32)
    hh, ww = img.shape[:2]
    length, width = lay.length, lay.width
    strips = np.zeros((24, length, width, 3), np.float32)
    for i in range(24):
        x0 = int(lay.x0[i])
        if lay.top[i]:
            y0 = int(lay.y_edge[i])
            strips[i] = img[y0 : y0 + length, x0 : x0 + width]
        else:
            y1 = int(lay.y_edge[i]) + 1
            strips[i] = img[y1 - length : y1, x0 : x0 + width][::-1]
    rows = np.arange(length)[None, :]
    filled_rows = (np.asarray(column_counts, dtype=np.float64)[:, None] + 0.2) * lay.checker_rows
    excluded = (rows < filled_rows) & (np.asarray(column_counts)[:, None] > 0)
    residual = np.zeros((24, length, width), np.float32)
    for c in (0, 1):
        idx = np.nonzero(lay.cls == c)[0]
        model, valid = _masked_median(strips[idx], excluded[idx])
        diff = np.abs(strips[idx] - model[None]).max(axis=-1)
        diff = np.where(valid[None, :, None], diff, 0.0)
        diff = np.where(excluded[idx][..., None], 0.0, diff)
        residual[idx] = diff
    foreign = np.zeros((hh, ww), np.uint8)
    for i in range(24):
        x0 = int(lay.x0[i])
        m = (residual[i] > config.residual_threshold).astype(np.uint8)
        if lay.top[i]:
            y0 = int(lay.y_edge[i])
            foreign[y0 : y0 + length, x0 : x0 + width] |= m
        else:
            y1 = int(lay.y_edge[i]) + 1
            foreign[y1 - length : y1, x0 : x0 + width] |= m[::-1]
    # the bar: its own median row, leaving out the checkers found on it
    bar = img[lay.bar_y0 : lay.bar_y1, lay.bar_x0 : lay.bar_x1]
    if bar.size:
        ys = np.arange(bar.shape[0])[:, None]
        keep = np.ones(bar.shape[0], bool)
        for y in bar_rows:
            yy = y / 2.0 - lay.bar_y0
            keep &= np.abs(ys[:, 0] - yy) > 0.6 * lay.checker_rows
        if keep.sum() >= 3:
            model = np.median(bar[keep], axis=0)
            diff = np.abs(bar - model[None]).max(axis=-1)
            diff[~keep] = 0.0
            bm = (diff > config.residual_threshold).astype(np.uint8)
            foreign[lay.bar_y0 : lay.bar_y1, lay.bar_x0 : lay.bar_x1] |= bm
    foreign = cv2.morphologyEx(foreign, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(foreign, connectivity=8)
    big = np.zeros(n, bool)
    big[1:] = stats[1:, cv2.CC_STAT_AREA] >= config.min_blob_checkers * lay.checker_area
    blob = big[labels]
    fractions = np.zeros(24)
    for i in range(24):
        x0 = int(lay.x0[i])
        if lay.top[i]:
            y0 = int(lay.y_edge[i])
            patch = blob[y0 : y0 + length, x0 : x0 + width]
        else:
            y1 = int(lay.y_edge[i]) + 1
            patch = blob[y1 - length : y1, x0 : x0 + width]
        fractions[i] = float(patch.mean()) if patch.size else 0.0
    hidden = tuple(int(i) for i in np.nonzero(fractions >= config.slot_hidden_fraction)[0])
    bar_patch = blob[lay.bar_y0 : lay.bar_y1, lay.bar_x0 : lay.bar_x1]
    bar_hidden = bool(bar_patch.size and bar_patch.mean() >= config.slot_hidden_fraction)
    return Occlusion(hidden, bar_hidden, blob.astype(np.uint8) * 255, fractions)
