"""Something over the board: which slots (and whether the bar) are hidden in a still frame.

Two independent signs, both insensitive to shadows and uneven light:

* Colour: the twelve points painted alike look alike once the bottom row is flipped, so the
  per-pixel median of those columns (leaving out where checkers were found) is what an empty
  column looks like. A pixel whose chromaticity is far from that model, or which is much darker
  or brighter than a shadow or glare could make it, is foreign. Foreign blobs count when they
  are large and reach the edge of the playing surface (an arm comes from outside the board;
  glare spots and dice do not).
  Pixels close to a checker colour seen on the board do not start a blob (a checker the
  column reading missed is not a hand). From a blob found, weaker differences are followed
  (hysteresis), so the part of a hand that looks like the board is hidden with the rest.
* Structure: a painted point's two edges must show wherever no checker covers them; a long
  stretch of missing point edge means something lies over it.
* The frame: an arm reaches the board over its frame, above, below or beside the playing
  surface; a stretch of frame unlike the rest hides the slots near it.
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
    """Gather indices of the 24 slot columns (edge first) and the bar in a small raster."""

    scale: float  # small-raster pixels per reading-raster pixel
    size: tuple[int, int]  # small raster (width, height)
    ys: np.ndarray  # (24, L, W) row of each strip pixel
    xs: np.ndarray  # (24, L, W) column
    cls: np.ndarray  # (24,) point colour index
    bar: tuple[int, int, int, int]  # x0, x1, y0, y1 in the small raster
    checker_rows: float  # one checker diameter in small-raster rows
    checker_area: float
    border: np.ndarray  # (H, W) bool: the playing surface's outer band
    # triangle edges, sampled along the point from its base: (24, 2, S) reading-raster px
    tri_x: np.ndarray
    tri_y: np.ndarray
    tri_t: np.ndarray  # (S,) distance from the edge, checker diameters


@functools.lru_cache(maxsize=8)
def strip_layout(canonical: Canonical, downscale: int) -> StripLayout:
    """Strips in a raster ``downscale`` times smaller than the reading raster (an integer
    factor, so OpenCV's area averaging takes its fast path)."""
    g = canonical.geometry
    w_full, h_full = canonical.size
    size = (w_full // downscale, h_full // downscale)
    f = size[0] / w_full
    s = canonical.px_per_mm * f
    width = max(3, int(g.point_width_mm * s))
    length = max(4, int(g.height_mm / 2.0 * s))
    mx, my = canonical.margin_mm
    y_top = round(my * s)
    y_bot = round((my + g.height_mm) * s) - 1
    ys = np.zeros((24, length, width), np.intp)
    xs = np.zeros((24, length, width), np.intp)
    rows = np.arange(length)
    cols = np.arange(width)
    for i in range(24):
        x0 = round((g.slot_column_x0(i) + mx) * s)
        yy = y_top + rows if i < 12 else y_bot - rows
        ys[i] = yy[:, None]
        xs[i] = x0 + cols[None, :]
    ys = np.clip(ys, 0, size[1] - 1)
    xs = np.clip(xs, 0, size[0] - 1)
    cls = np.array([g.point_colour_index(i) for i in range(24)])
    b = g.bar
    bar = (  # the bar strip itself: beside it the points change colour along its length
        round((b.x0 + 1.0 + mx) * s),
        round((b.x1 - 1.0 + mx) * s),
        y_top,
        y_bot + 1,
    )
    border = np.zeros((size[1], size[0]), bool)
    band = max(2, round(0.35 * g.checker_diameter_mm * s))
    x_left = round(mx * s)
    x_right = round((mx + g.width_mm) * s)
    border[y_top : y_top + band, x_left:x_right] = True
    border[y_bot + 1 - band : y_bot + 1, x_left:x_right] = True
    border[y_top : y_bot + 1, x_left : x_left + band] = True
    border[y_top : y_bot + 1, x_right - band : x_right] = True
    # triangle edges in the reading raster
    sp = canonical.px_per_mm
    d = g.checker_diameter_mm
    tri_t_mm = np.arange(0.15 * d, g.point_length_mm - 0.25 * d, 0.125 * d)
    tri_x = np.zeros((24, 2, len(tri_t_mm)))
    tri_y = np.zeros((24, 2, len(tri_t_mm)))
    for i in range(24):
        half_w = g.point_width_mm / 2.0
        xm = g.slot_column_x0(i) + half_w
        frac = 1.0 - tri_t_mm / g.point_length_mm
        for side, sign in ((0, -1.0), (1, 1.0)):
            x = xm + sign * half_w * frac
            y = tri_t_mm if i < 12 else g.height_mm - tri_t_mm
            tri_x[i, side] = (x + mx) * sp
            tri_y[i, side] = (y + my) * sp
    return StripLayout(
        scale=f,
        size=size,
        ys=ys,
        xs=xs,
        cls=cls,
        bar=bar,
        checker_rows=d * s,
        checker_area=float(np.pi * (d * s / 2.0) ** 2),
        border=border,
        tri_x=tri_x,
        tri_y=tri_y,
        tri_t=tri_t_mm / d,
    )


@dataclass
class Occlusion:
    """What is hidden: slots, the bar; the foreign mask (small raster) for pictures."""

    hidden_slots: tuple[int, ...]
    bar_hidden: bool
    foreign: np.ndarray
    slot_fraction: np.ndarray  # (24,) share of each column covered by foreign blobs

    @property
    def occluded(self) -> bool:
        return bool(self.hidden_slots) or self.bar_hidden


def _masked_median(stack: np.ndarray, excluded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median over axis 0 of ``stack`` (N, L, W, C) ignoring ``excluded`` (N, L) entries.

    Excluded entries are pushed to +/- infinity in equal numbers so the median of the rest is
    (nearly) unchanged; where fewer than three entries remain, the model is marked invalid.
    """
    n = stack.shape[0]
    rank = np.cumsum(excluded, axis=0)
    fill = np.where(rank % 2 == 1, np.float32(1e6), np.float32(-1e6))
    filled = np.where(excluded[..., None, None], fill[..., None, None], stack)
    srt = np.sort(filled, axis=0)
    med = 0.5 * (srt[(n - 1) // 2] + srt[n // 2])
    valid = (n - excluded.sum(axis=0)) >= 3
    return med, valid


def _foreign_pixels(a: np.ndarray, model: np.ndarray, config: OcclusionConfig,
                    loose: bool = False, checker: bool = False) -> np.ndarray:
    """Pixels (.., 3) too far from the model in chromaticity or in brightness ratio
    (``loose``: the weaker thresholds used to follow a hand already found)."""
    if checker:
        chroma_thr = config.checker_chroma_threshold
        lo, hi = config.checker_brightness_ratio
    elif loose:
        chroma_thr = config.loose_chroma_threshold
        lo, hi = config.loose_brightness_ratio
    else:
        chroma_thr = config.chroma_threshold
        lo, hi = config.min_brightness_ratio, config.max_brightness_ratio
    # channel by channel: numpy reduces a short last axis slowly
    sa = a[..., 0] + a[..., 1] + a[..., 2] + np.float32(30.0)
    sm = model[..., 0] + model[..., 1] + model[..., 2] + np.float32(30.0)
    ia = np.float32(255.0) / sa
    im = np.float32(255.0) / sm
    chroma = np.abs(a[..., 0] * ia - model[..., 0] * im)
    for ch in (1, 2):
        np.maximum(chroma, np.abs(a[..., ch] * ia - model[..., ch] * im), out=chroma)
    ratio = sa / sm
    out: np.ndarray = (chroma > chroma_thr) | (ratio < lo) | (ratio > hi)
    return out


def find_occlusion(
    bgr: np.ndarray,
    canonical: Canonical,
    column_counts: np.ndarray,
    bar_rows: list[float],
    config: OcclusionConfig,
    side_edges: np.ndarray | None = None,
    checker_colours: np.ndarray | None = None,
) -> Occlusion:
    """Foreign blobs over the board and missing point edges.

    ``column_counts``: (24,) how many checker diameters from the edge each column is filled;
    ``bar_rows``: y (reading-raster px) of checkers found on the bar; ``side_edges``: the
    reading raster's map of near-vertical edges (point edges), when available;
    ``checker_colours``: (K, 3) BGR of the checkers seen, whose look does not seed a hand.
    """
    lay = strip_layout(canonical, config.downscale)
    small = cv2.resize(bgr, lay.size, interpolation=cv2.INTER_LINEAR).astype(np.float32)
    strips = small[lay.ys, lay.xs]  # (24, L, W, 3)
    length = strips.shape[1]
    rows = np.arange(length)[None, :]
    counts = np.asarray(column_counts, dtype=np.float64)
    filled_rows = (counts[:, None] + 0.15) * lay.checker_rows
    excluded = (rows < filled_rows) & (counts[:, None] > 0)
    models = np.empty_like(strips)
    valid_rows = np.zeros(excluded.shape, bool)
    for c in (0, 1):
        idx = np.nonzero(lay.cls == c)[0]
        model, valid = _masked_median(strips[idx], excluded[idx])
        models[idx] = model[None]
        valid_rows[idx] = valid[None]
    usable = (valid_rows & ~excluded)[..., None]
    foreign_strips = _foreign_pixels(strips, models, config) & usable
    if checker_colours is not None and foreign_strips.any():
        # a checker out of its column's reading is not a hand (only foreign pixels are tested)
        where = np.nonzero(foreign_strips)
        px = strips[where[:3]]
        like = np.ones(len(px), bool)
        for colour in np.asarray(checker_colours, np.float32).reshape(-1, 3):
            like &= _foreign_pixels(px, colour[None, :], config, checker=True)
        foreign_strips[where] = like
    h, w = lay.size[1], lay.size[0]
    foreign = np.zeros((h, w), np.uint8)
    foreign[lay.ys[foreign_strips], lay.xs[foreign_strips]] = 1
    bar_model: np.ndarray | None = None
    bar_keep = np.zeros(0, bool)
    # the bar: its own median row, leaving out the checkers found on it
    x0, x1, y0, y1 = lay.bar
    bar = small[y0:y1, x0:x1]
    if bar.size:
        yy = np.arange(bar.shape[0])
        keep = np.ones(bar.shape[0], bool)
        for y in bar_rows:
            keep &= np.abs(yy - (y * lay.scale - y0)) > 0.6 * lay.checker_rows
        if keep.sum() >= 3:
            model = np.median(bar[keep], axis=0)
            bm = _foreign_pixels(bar, model[None], config)
            bm[~keep] = False
            foreign[y0:y1, x0:x1] |= bm.astype(np.uint8)
            bar_model, bar_keep = model, keep
    opened = cv2.morphologyEx(foreign, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    touches = np.zeros(n, bool)
    touches[np.unique(labels[lay.border & (labels > 0)])] = True
    big = (area >= config.min_blob_checkers * lay.checker_area) & touches
    big |= area >= config.huge_blob_checkers * lay.checker_area
    big[0] = False
    blob = big[labels]
    if blob.any():  # hysteresis: follow a hand found into where it only faintly differs
        loose_strips = _foreign_pixels(strips, models, config, loose=True) & usable
        loose = np.zeros((h, w), np.uint8)
        loose[lay.ys[loose_strips], lay.xs[loose_strips]] = 1
        if bar_model is not None:
            bl = _foreign_pixels(bar, bar_model[None], config, loose=True)
            bl[~bar_keep] = False
            loose[y0:y1, x0:x1] |= bl.astype(np.uint8)
        loose_open = cv2.morphologyEx(loose, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        weak = np.asarray((loose_open > 0) | (opened > 0))
        blob = _follow(blob, weak, config.loose_gap_checkers * lay.checker_rows)
    edge_hidden = (_missing_point_edges(side_edges, lay, counts, config)
                   if side_edges is not None else set())
    # what was found of a hand is seldom all of it: keep clear of its surroundings too
    blob = _grow(blob, config.margin_checkers * lay.checker_rows)
    if edge_hidden:  # a point edge hidden: that column, and a little around it, is covered
        columns = np.zeros_like(blob)
        for i in edge_hidden:
            columns[lay.ys[i], lay.xs[i]] = True
        blob |= _grow(columns, config.edge_margin_checkers * lay.checker_rows)
    fractions = blob[lay.ys, lay.xs].mean(axis=(1, 2))
    hidden = {int(i) for i in np.nonzero(fractions >= config.slot_hidden_fraction)[0]}
    hidden |= _arms_over_the_rail(bgr, canonical, config)
    if config.hide_whole_half and big.any():
        # a hand is rarely seen whole: hide both rows of every half of the board it is over
        for half in (range(0, 6), range(6, 12)):
            slots = [c for c in half] + [12 + c for c in half]
            if any(s in hidden for s in slots):
                hidden |= set(slots)
    hidden |= edge_hidden
    x0, x1, y0, y1 = lay.bar
    bar_patch = blob[y0:y1, x0:x1]
    bar_hidden = bool(bar_patch.size and bar_patch.mean() >= config.slot_hidden_fraction)
    return Occlusion(tuple(sorted(hidden)), bar_hidden, blob.astype(np.uint8) * 255, fractions)


def _follow(seed: np.ndarray, weak: np.ndarray, gap: float) -> np.ndarray:
    """``seed`` plus every connected part of ``weak`` it touches, bridging gaps up to ``gap``
    pixels (where checkers found or point edges interrupt the colour model)."""
    k = max(1, round(gap))
    bridged = np.asarray(cv2.dilate(weak.astype(np.uint8), np.ones((k, k), np.uint8)))
    bridged = bridged | seed.astype(np.uint8)
    _, labels = cv2.connectedComponents(bridged, connectivity=8)
    keep = np.zeros(int(labels.max()) + 1, bool)
    keep[np.unique(labels[seed])] = True
    keep[0] = False
    out: np.ndarray = keep[labels] & ((weak > 0) | seed)
    return out


def _grow(mask: np.ndarray, radius: float) -> np.ndarray:
    """``mask`` dilated by a square of half-side ``radius`` pixels."""
    if radius <= 0 or not mask.any():
        return mask
    k = max(1, round(radius))
    grown: np.ndarray = cv2.dilate(mask.astype(np.uint8),
                                   np.ones((2 * k + 1, 2 * k + 1), np.uint8)) > 0
    return grown


def _missing_point_edges(side_edges: np.ndarray, lay: StripLayout, counts: np.ndarray,
                         config: OcclusionConfig) -> set[int]:
    """Slots whose painted point shows a long stretch without its edge where no checker is."""
    h, w = side_edges.shape
    ys = np.clip(np.rint(lay.tri_y), 0, h - 1).astype(np.intp)
    seen = np.zeros(lay.tri_x.shape, bool)  # (24, 2, S)
    for dx in (-2.0, 0.0, 2.0):  # the painted points may sit a little off the model
        xs = np.clip(np.rint(lay.tri_x + dx), 0, w - 1).astype(np.intp)
        seen |= side_edges[ys, xs] > 0
    free = lay.tri_t[None, :] > counts[:, None] + 0.1  # (24, S): not under the column
    missing = ~seen & free[:, None, :]
    if not free.any():
        return set()
    visibility = float(seen[np.broadcast_to(free[:, None, :], seen.shape)].mean())
    if visibility < config.min_point_edge_visibility:
        return set()  # a board whose points barely differ from the field
    step = float(lay.tri_t[1] - lay.tri_t[0]) if len(lay.tri_t) > 1 else 1.0
    need = int(np.ceil(config.missing_edge_checkers / step))
    if need <= 0 or missing.shape[-1] < need:
        return set()
    # a run of `need` consecutive missing samples on either edge (sliding sums by cumsum)
    c = np.cumsum(missing.astype(np.int32), axis=-1)
    c = np.concatenate([np.zeros((*c.shape[:-1], 1), np.int32), c], axis=-1)
    runs = c[..., need:] - c[..., :-need]  # (24, 2, S - need + 1)
    hit = (runs >= need).any(axis=(1, 2)) & free.any(axis=1)
    out = {int(i) for i in np.nonzero(hit)[0]}
    return out
    # a run of `need` consecutive missing samples on either edge
    k = np.ones(need, np.int32)
    for i in range(24):
        if not free[i].any():
            continue
        for side in (0, 1):
            run = np.convolve(missing[i, side].astype(np.int32), k, mode="valid")
            if (run >= need).any():
                out.add(i)
                break
    return out


def _arms_over_the_rail(bgr: np.ndarray, canonical: Canonical,
                        config: OcclusionConfig) -> set[int]:
    """Slots near an arm crossing the frame's rail above or below the playing surface.

    The rail is one colour along its length; a stretch of it at least a checker wide that is
    not (an arm, a sleeve) means a hand is over the board nearby, even where the hand itself
    looks like the board. Slots within ``rail_reach_checkers`` of the crossing, in both rows,
    are hidden. The bar's ends (where an owned cube rests) are not looked at.
    """
    g = canonical.geometry
    s = canonical.px_per_mm
    mx, my = canonical.margin_mm
    y_in, y_out = config.rail_band_mm
    if my < y_out:
        return set()
    d_px = g.checker_diameter_mm * s
    x0 = round(mx * s)
    x1 = round((mx + g.width_mm) * s)
    bar_lo = round((g.bar.x0 - g.cube_size_mm + mx) * s)
    bar_hi = round((g.bar.x1 + g.cube_size_mm + mx) * s)
    keep = np.ones(x1 - x0, bool)
    keep[max(0, bar_lo - x0) : max(0, bar_hi - x0)] = False
    hidden: set[int] = set()
    for top in (True, False):
        if top:
            r0, r1 = round((my - y_out) * s), round((my - y_in) * s)
        else:
            r0 = round((my + g.height_mm + y_in) * s)
            r1 = round((my + g.height_mm + y_out) * s)
        band = bgr[r0:r1, x0:x1].astype(np.float32)
        if band.size == 0 or not keep.any():
            continue
        model = np.median(band[:, keep].reshape(-1, 3)[::3], axis=0)  # a sample is enough
        bad = _foreign_pixels(band, model[None, None, :], config).mean(axis=0) > 0.5
        bad &= keep
        # runs of foreign columns at least a checker wide
        c = np.concatenate([[0], np.cumsum(bad.astype(np.int32))])
        width = max(1, round(d_px))
        if len(bad) < width:
            continue
        full = (c[width:] - c[:-width]) >= width
        if not full.any():
            continue
        cols = np.nonzero(full)[0]
        lo_mm = (cols.min() + x0) / s - mx - config.rail_reach_checkers * g.checker_diameter_mm
        hi_mm = ((cols.max() + width + x0) / s - mx
                 + config.rail_reach_checkers * g.checker_diameter_mm)
        for slot in range(24):
            r = g.slot_rect(slot)
            if r.x1 > lo_mm and r.x0 < hi_mm:
                hidden.add(slot)
    hidden |= _arms_over_the_sides(bgr, canonical, config)
    return hidden


def _arms_over_the_sides(bgr: np.ndarray, canonical: Canonical,
                         config: OcclusionConfig) -> set[int]:
    """Slots near an arm crossing the frame left or right of the playing surface (between it
    and a bear-off tray): a stretch of that frame at least a checker long unlike the rest of it
    hides the slots within ``side_reach_checkers`` of that side, in both rows."""
    g = canonical.geometry
    s = canonical.px_per_mm
    mx, my = canonical.margin_mm
    x_in, x_out = config.side_band_mm
    if mx < x_out:
        return set()
    y0 = round(my * s)
    y1 = round((my + g.height_mm) * s)
    width = max(1, round(g.checker_diameter_mm * s))
    reach = config.side_reach_checkers * g.checker_diameter_mm
    hidden: set[int] = set()
    for left in (True, False):
        if left:
            c0, c1 = round((mx - x_out) * s), round((mx - x_in) * s)
        else:
            c0 = round((mx + g.width_mm + x_in) * s)
            c1 = round((mx + g.width_mm + x_out) * s)
        band = bgr[y0:y1, c0:c1].astype(np.float32)
        if band.size == 0 or band.shape[0] < width:
            continue
        model = np.median(band.reshape(-1, 3)[::3], axis=0)
        bad = _foreign_pixels(band, model[None, None, :], config).mean(axis=1) > 0.5
        c = np.concatenate([[0], np.cumsum(bad.astype(np.int32))])
        if not ((c[width:] - c[:-width]) >= width).any():
            continue
        for slot in range(24):
            r = g.slot_rect(slot)
            if (r.x0 < reach) if left else (r.x1 > g.width_mm - reach):
                hidden.add(slot)
    return hidden
