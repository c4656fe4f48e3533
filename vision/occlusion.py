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
  surface. Its outline makes a sharp change of colour along the frame, in the band's inner
  and outer halves alike, even where the arm is coloured like the frame (light, glare and
  shadows change smoothly; checkers reaching over the surface's edge cross only the inner
  half); fainter changes count where the arm is seen going on over the surface. An arm over
  the rail hides the slots near it; an arm over a side frame may reach anywhere and hides
  them all (the reading names that side: a clock or a score sheet left across it hides them
  just the same, and only its owner can clear it).
* Glare: a foreign pixel that is the board's colour times a gain plus white light is a
  reflection, not a hand.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.config import OcclusionConfig
from vision.geometry import Canonical

_OPEN_KERNEL = np.ones((2, 2), np.uint8)


@dataclass(frozen=True)
class StripLayout:
    """Gather indices of the 24 slot columns (edge first) and the bar in a small raster."""

    scale: float  # small-raster pixels per reading-raster pixel
    size: tuple[int, int]  # small raster (width, height)
    ys: np.ndarray  # (24, L, W) row of each strip pixel
    xs: np.ndarray  # (24, L, W) column
    flat: np.ndarray  # (24, L, W) index into the flattened small raster (ys * width + xs)
    cls: np.ndarray  # (24,) point colour index
    cls_idx: tuple[np.ndarray, ...]  # the slots of point colour 0, and of colour 1
    cls_stack: np.ndarray | None  # (2, 12): the same stacked (None if not as many of each)
    rows: np.ndarray  # (1, L): row numbers along a strip
    bar: tuple[int, int, int, int]  # x0, x1, y0, y1 in the small raster
    checker_rows: float  # one checker diameter in small-raster rows
    checker_area: float
    border: np.ndarray  # (H, W) bool: the playing surface's outer band
    # triangle edges, sampled along the point from its base: (24, 2, S) reading-raster px
    tri_x: np.ndarray
    tri_y: np.ndarray
    tri_t: np.ndarray  # (S,) distance from the edge, checker diameters
    # the triangle edge samples, shifted -2, 0 and +2 px across, as indices into the
    # flattened reading raster: (3, 24, 2, S)
    tri_flat: np.ndarray
    full_size: tuple[int, int]  # the reading raster (width, height)


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
    ty = np.clip(np.rint(tri_y), 0, h_full - 1).astype(np.intp)
    tri_flat = np.stack([
        ty * w_full + np.clip(np.rint(tri_x + dx), 0, w_full - 1).astype(np.intp)
        for dx in (-2.0, 0.0, 2.0)  # the painted points may sit a little off the model
    ])
    return StripLayout(
        tri_flat=tri_flat,
        full_size=(w_full, h_full),
        scale=f,
        size=size,
        ys=ys,
        xs=xs,
        flat=ys * size[0] + xs,
        cls=cls,
        cls_idx=tuple(np.nonzero(cls == c)[0] for c in (0, 1)),
        cls_stack=(np.stack([np.nonzero(cls == c)[0] for c in (0, 1)])
                   if int((cls == 0).sum()) == int((cls == 1).sum()) else None),
        rows=np.arange(length)[None, :],
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
    # the sides of the case's frame ("left", "right") something lies across: it may reach
    # anywhere over the board, so it hides every slot within reach (a hand, or a clock or a
    # score sheet left on the frame, which hides them just the same while it lies there)
    frame_sides: tuple[str, ...] = ()

    @property
    def occluded(self) -> bool:
        return bool(self.hidden_slots) or self.bar_hidden


def median_axis0(a: np.ndarray) -> np.ndarray:
    """``np.median(a, axis=0)`` for a non-empty float array without NaNs, with less overhead."""
    srt = np.sort(a, axis=0)
    n = len(srt)
    if n % 2:
        odd: np.ndarray = srt[n // 2]
        return odd
    out: np.ndarray = (srt[n // 2 - 1] + srt[n // 2]) / 2
    return out


def _masked_median(stack: np.ndarray, excluded: np.ndarray,
                   axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Median over ``axis`` (0 or 1) of ``stack`` ([K,] N, L, W, C) ignoring ``excluded``
    ([K,] N, L) entries.

    Excluded entries are pushed to +/- infinity in equal numbers so the median of the rest is
    (nearly) unchanged; where fewer than three entries remain, the model is marked invalid.
    """
    n = stack.shape[axis]
    rank = np.cumsum(excluded, axis=axis)
    fill = np.where(rank % 2 == 1, np.float32(1e6), np.float32(-1e6))
    filled = np.where(excluded[..., None, None], fill[..., None, None], stack)
    filled.sort(axis=axis)
    lo = filled.take((n - 1) // 2, axis=axis)
    hi = filled.take(n // 2, axis=axis)
    med = 0.5 * (lo + hi)
    valid = (n - excluded.sum(axis=axis)) >= 3
    return med, valid


def _colour_distance(a: np.ndarray, model: np.ndarray,
                     config: OcclusionConfig) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel (.., 3): the largest chromaticity difference from the model and the
    brightness ratio to it."""
    # channel by channel: numpy reduces a short last axis slowly
    off = np.float32(config.dark_offset)
    sa = a[..., 0] + a[..., 1] + a[..., 2] + off
    sm = model[..., 0] + model[..., 1] + model[..., 2] + off
    ia = np.float32(255.0) / sa
    im = np.float32(255.0) / sm
    chroma = np.abs(a[..., 0] * ia - model[..., 0] * im)
    for ch in (1, 2):
        np.maximum(chroma, np.abs(a[..., ch] * ia - model[..., ch] * im), out=chroma)
    return chroma, sa / sm


def _beyond(distance: tuple[np.ndarray, np.ndarray], config: OcclusionConfig,
            loose: bool = False, checker: bool = False) -> np.ndarray:
    """Which pixels of a ``_colour_distance`` are too far from the model (``loose``: the
    weaker thresholds used to follow a hand already found; ``checker``: those of a checker
    colour)."""
    if checker:
        chroma_thr = config.checker_chroma_threshold
        lo, hi = config.checker_brightness_ratio
    elif loose:
        chroma_thr = config.loose_chroma_threshold
        lo, hi = config.loose_brightness_ratio
    else:
        chroma_thr = config.chroma_threshold
        lo, hi = config.min_brightness_ratio, config.max_brightness_ratio
    chroma, ratio = distance
    out: np.ndarray = (chroma > chroma_thr) | (ratio < lo) | (ratio > hi)
    return out


def _foreign_pixels(a: np.ndarray, model: np.ndarray, config: OcclusionConfig,
                    loose: bool = False, checker: bool = False) -> np.ndarray:
    """Pixels (.., 3) too far from the model in chromaticity or in brightness ratio
    (``loose``: the weaker thresholds used to follow a hand already found)."""
    return _beyond(_colour_distance(a, model, config), config, loose, checker)


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
    strips = small.reshape(-1, 3)[lay.flat]  # (24, L, W, 3)
    rows = lay.rows
    counts = np.asarray(column_counts, dtype=np.float64)
    filled_rows = (counts[:, None] + 0.15) * lay.checker_rows
    excluded = (rows < filled_rows) & (counts[:, None] > 0)
    if lay.cls_stack is not None:  # both point colours at once
        by_colour, valid = _masked_median(strips[lay.cls_stack], excluded[lay.cls_stack], 1)
        models = by_colour[lay.cls]
        valid_rows = valid[lay.cls]
    else:
        models = np.empty_like(strips)
        valid_rows = np.zeros(excluded.shape, bool)
        for idx in lay.cls_idx:
            model, valid = _masked_median(strips[idx], excluded[idx])
            models[idx] = model[None]
            valid_rows[idx] = valid[None]
    usable = (valid_rows & ~excluded)[..., None]
    distance = _colour_distance(strips, models, config)
    foreign_strips = _beyond(distance, config) & usable
    flat_foreign = foreign_strips.reshape(-1)
    where = np.flatnonzero(flat_foreign)  # only the foreign pixels are tested further
    if len(where):
        px = strips.reshape(-1, 3)[where]
        still: np.ndarray = np.ones(len(where), bool)
        if checker_colours is not None:
            # a checker out of its column's reading is not a hand
            colours = np.asarray(checker_colours, np.float32).reshape(1, -1, 3)
            if colours.shape[1]:  # unlike every checker colour, all compared at once
                unlike = _foreign_pixels(px[:, None, :], colours, config, checker=True)
                still = np.asarray(unlike.all(axis=1), dtype=bool)
        left = np.flatnonzero(still)
        if len(left):
            # glare: the board's own colour, lit a little more or less, plus white light
            glare = _glare(px[left], models.reshape(-1, 3)[where[left]], config)
            still[left[glare]] = False
        flat_foreign[where] = still
    h, w = lay.size[1], lay.size[0]
    foreign = np.zeros((h, w), np.uint8)
    foreign.reshape(-1)[lay.flat[foreign_strips]] = 1
    opened = cv2.morphologyEx(foreign, cv2.MORPH_OPEN, _OPEN_KERNEL)
    # a blob counts from min_blob_checkers (touching the surface's edge) or huge_blob_checkers
    # of area: fewer unlike pixels than that in all make none
    least = min(config.min_blob_checkers, config.huge_blob_checkers) * lay.checker_area
    big: np.ndarray
    blob: np.ndarray
    if cv2.countNonZero(opened) >= least:
        n, labels, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
        area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
        touches = np.zeros(n, bool)
        touches[np.unique(labels[lay.border & (labels > 0)])] = True
        big = (area >= config.min_blob_checkers * lay.checker_area) & touches
        big |= area >= config.huge_blob_checkers * lay.checker_area
        big[0] = False
        blob = big[labels]
    else:  # nothing unlike the board: no blob
        big = np.zeros(1, bool)
        blob = np.zeros((h, w), bool)

    @functools.cache
    def loose_map() -> np.ndarray:
        """The small raster's pixels faintly unlike the empty board (made when first asked)."""
        loose_strips = _beyond(distance, config, loose=True) & usable
        out = np.zeros((h, w), np.uint8)
        out.reshape(-1)[lay.flat[loose_strips]] = 1
        return out

    if blob.any():  # hysteresis: follow a hand found into where it only faintly differs
        bar_model: np.ndarray | None = None
        bar_keep = np.zeros(0, bool)
        bar_foreign = np.zeros((h, w), np.uint8)
        # the bar: its own median row, leaving out the checkers found on it. Its hinges and fittings
        # differ from that row, so the bar does not start a hand; it is followed from one found
        # over the columns (an arm over the bar always lies over the columns beside it too).
        x0, x1, y0, y1 = lay.bar
        bar = small[y0:y1, x0:x1]
        if bar.size:
            yy = np.arange(bar.shape[0])
            keep = np.ones(bar.shape[0], bool)
            for y in bar_rows:
                keep &= np.abs(yy - (y * lay.scale - y0)) > 0.6 * lay.checker_rows
            if keep.sum() >= 3:
                model = median_axis0(bar[keep])
                bm = _foreign_pixels(bar, model[None], config)
                bm[~keep] = False
                bar_foreign[y0:y1, x0:x1] = bm.astype(np.uint8)
                bar_model, bar_keep = model, keep
        loose = loose_map()
        if bar_model is not None:
            bl = _foreign_pixels(bar, bar_model[None], config, loose=True)
            bl[~bar_keep] = False
            loose[y0:y1, x0:x1] |= bl.astype(np.uint8)
        loose_open = cv2.morphologyEx(loose, cv2.MORPH_OPEN, _OPEN_KERNEL)
        weak = np.asarray((loose_open > 0) | (opened > 0) | (bar_foreign > 0))
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
    fractions = (blob.reshape(-1)[lay.flat].mean(axis=(1, 2)) if blob.any()
                 else np.zeros(24))
    hidden = {int(i) for i in np.nonzero(fractions >= config.slot_hidden_fraction)[0]}
    surface = (loose_map, lay.scale)
    hidden |= _arms_over_the_rail(bgr, canonical, config, surface)
    sides = _arms_over_the_sides(bgr, canonical, config, surface)
    for reached in sides.values():
        hidden |= reached
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
    return Occlusion(tuple(sorted(hidden)), bar_hidden, blob.astype(np.uint8) * 255, fractions,
                     tuple(sorted(sides)))


def _glare(a: np.ndarray, model: np.ndarray, config: OcclusionConfig) -> np.ndarray:
    """Pixels (N, 3) that are their model (N, 3) times a gain plus added white light, to
    within ``glare_residual`` per channel: a reflection on the board, not a hand. A hand or a
    sleeve differs from the board in hue, which no gain and white light explain. (The gain is
    tried on a grid: for a grey model gain and white light cannot be told apart.)"""
    lo, hi = config.glare_gain
    a32 = a.astype(np.float32)
    m32 = model.astype(np.float32)
    gains = _glare_gains(lo, hi)
    # channel by channel (N, G): numpy reduces a short last axis slowly
    rest = [a32[:, ch, None] - gains * m32[:, ch, None] for ch in range(3)]
    white = np.maximum((rest[0] + rest[1] + rest[2]) / np.float32(3.0), np.float32(0.0))
    resid = np.abs(rest[0] - white)
    for ch in (1, 2):
        np.maximum(resid, np.abs(rest[ch] - white), out=resid)
    out: np.ndarray = resid.min(axis=-1) <= config.glare_residual
    return out


@functools.lru_cache(maxsize=4)
def _glare_gains(lo: float, hi: float) -> np.ndarray:
    """(1, 9) float32: the gains :func:`_glare` tries (read-only)."""
    gains = np.linspace(lo, hi, 9, dtype=np.float32)[None, :]
    gains.flags.writeable = False
    return gains


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
    if side_edges.shape[:2] != (lay.full_size[1], lay.full_size[0]):
        raise ValueError(f"edge map of {side_edges.shape[:2]} does not fit the reading raster")
    seen = side_edges.reshape(-1)[lay.tri_flat].any(axis=0)  # (24, 2, S)
    free = lay.tri_t[None, :] > counts[:, None] + 0.1  # (24, S): not under the column
    missing = ~seen & free[:, None, :]
    if not free.any():
        return set()
    visibility = float(np.count_nonzero(seen & free[:, None, :])) / float(
        seen.shape[1] * np.count_nonzero(free))
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


def _arms_over_the_rail(bgr: np.ndarray, canonical: Canonical, config: OcclusionConfig,
                        surface: tuple[Callable[[], np.ndarray], float] | None = None,
                        ) -> set[int]:
    """Slots near an arm crossing the frame's rail above or below the playing surface.

    The rail is one colour along its length; a stretch of it at least a checker wide that is
    not (an arm, a sleeve) means a hand is over the board nearby, even where the hand itself
    looks like the board. Slots within ``rail_reach_checkers`` of the crossing, in both rows,
    are hidden. The bar's ends (where an owned cube rests) are not looked at. ``surface``:
    the small raster's map of pixels faintly unlike the empty board and its scale, which
    confirms a fainter crossing where something continues onto the playing surface.
    """
    g = canonical.geometry
    s = canonical.px_per_mm
    mx, my = canonical.margin_mm
    y_in, y_out = config.rail_band_mm
    if my < y_out:
        return set()
    d_px = g.checker_diameter_mm * s
    x0, x1, keep = _rail_span(canonical)
    hidden: set[int] = set()
    bands = {}
    for top in (True, False):
        if top:
            r0, r1 = round((my - y_out) * s), round((my - y_in) * s)
        else:
            r0 = round((my + g.height_mm + y_in) * s)
            r1 = round((my + g.height_mm + y_out) * s)
        band = bgr[r0:r1, x0:x1]
        if band.size == 0 or not keep.any():
            continue
        bands[top] = band
    crossings = _crossing_steps_many(list(bands.values()), 0, config)
    for (top, band), crossing in zip(bands.items(), crossings, strict=True):
        width = max(1, round(d_px))
        cols, faint = _band_arm(band, 0, keep, width, config, crossing)
        edge_y = my * s if top else (my + g.height_mm) * s
        cols += [c for c in faint if _continues(surface, c + x0, edge_y, d_px, top, True,
                                                config)]
        if not cols:
            continue
        reach = config.rail_reach_checkers * g.checker_diameter_mm
        lo_mm = (min(cols) + x0) / s - mx - reach
        hi_mm = (max(cols) + x0) / s - mx + reach
        for slot in range(24):
            r = g.slot_rect(slot)
            if r.x1 > lo_mm and r.x0 < hi_mm:
                hidden.add(slot)
    return hidden


@functools.lru_cache(maxsize=8)
def _rail_span(canonical: Canonical) -> tuple[int, int, np.ndarray]:
    """The columns of the reading raster the rails are looked at over (x0, x1) and which of
    them count: not the bar's ends, where an owned cube rests (read-only)."""
    g = canonical.geometry
    s = canonical.px_per_mm
    mx = canonical.margin_mm[0]
    x0 = round(mx * s)
    x1 = round((mx + g.width_mm) * s)
    bar_lo = round((g.bar.x0 - g.cube_size_mm + mx) * s)
    bar_hi = round((g.bar.x1 + g.cube_size_mm + mx) * s)
    keep = np.ones(x1 - x0, bool)
    keep[max(0, bar_lo - x0) : max(0, bar_hi - x0)] = False
    keep.flags.writeable = False
    return x0, x1, keep


@functools.lru_cache(maxsize=16)
def _band_ends(n: int, margin: int) -> np.ndarray:
    """(n,) bool: the first and last ``margin`` positions of a band (read-only)."""
    ends = np.zeros(n, bool)
    ends[:margin] = True
    ends[n - margin:] = True
    ends.flags.writeable = False
    return ends


@functools.lru_cache(maxsize=16)
def _all_positions(n: int) -> np.ndarray:
    """(n,) bool, all True (read-only)."""
    out = np.ones(n, bool)
    out.flags.writeable = False
    return out


def _continues(surface: tuple[Callable[[], np.ndarray], float] | None, along: float,
               edge: float, d_px: float, first: bool, rail: bool, config: OcclusionConfig) -> bool:
    """Whether the playing surface just inside the frame, around a crossing at ``along``
    (reading-raster px along the band; ``edge``: the surface's edge across it; ``first``:
    the top or left side), is partly unlike the empty board (an arm going on over it)."""
    if surface is None:
        return False
    mask_of, scale = surface
    mask = mask_of()
    a0 = round((along - d_px) * scale)
    a1 = round((along + d_px) * scale) + 1
    depth = config.confirm_depth_checkers * d_px
    e0 = round(edge * scale) if first else round((edge - depth) * scale)
    e1 = round((edge + depth) * scale) if first else round(edge * scale)
    patch = (mask[max(0, e0):max(0, e1), max(0, a0):max(0, a1)] if rail
             else mask[max(0, a0):max(0, a1), max(0, e0):max(0, e1)])
    return bool(patch.size and patch.mean() >= config.confirm_share)


def _arms_over_the_sides(bgr: np.ndarray, canonical: Canonical, config: OcclusionConfig,
                         surface: tuple[Callable[[], np.ndarray], float] | None = None,
                         ) -> dict[str, set[int]]:
    """Slots near an arm crossing the frame left or right of the playing surface (between it
    and a bear-off tray), by side ("left", "right") where one does: a stretch of that frame at
    least a checker long unlike the rest of it hides the slots within ``side_reach_checkers``
    of that side, in both rows."""
    g = canonical.geometry
    s = canonical.px_per_mm
    mx, my = canonical.margin_mm
    x_in, x_out = config.side_band_mm
    if mx < x_out:
        return {}
    y0 = round(my * s)
    y1 = round((my + g.height_mm) * s)
    width = max(1, round(g.checker_diameter_mm * s))
    reach = config.side_reach_checkers * g.checker_diameter_mm
    hidden: dict[str, set[int]] = {}
    bands = {}
    for left in (True, False):
        if left:
            c0, c1 = round((mx - x_out) * s), round((mx - x_in) * s)
        else:
            c0 = round((mx + g.width_mm + x_in) * s)
            c1 = round((mx + g.width_mm + x_out) * s)
        band = bgr[y0:y1, c0:c1]
        if band.size == 0 or band.shape[0] < width:
            continue
        bands[left] = band
    crossings = _crossing_steps_many(list(bands.values()), 1, config)
    for (left, band), crossing in zip(bands.items(), crossings, strict=True):
        rows, faint = _band_arm(band, 1, _all_positions(band.shape[0]), width, config,
                                crossing)
        edge_x = mx * s if left else (mx + g.width_mm) * s
        if not rows and not any(_continues(surface, r + y0, edge_x, width, left, False, config)
                                for r in faint):
            continue
        hidden["left" if left else "right"] = {
            slot for slot in range(24)
            if ((g.slot_rect(slot).x0 < reach) if left
                else (g.slot_rect(slot).x1 > g.width_mm - reach))}
    return hidden


def _band_arm(band: np.ndarray, across: int, keep: np.ndarray, width: int,
              config: OcclusionConfig,
              crossing: np.ndarray | None = None) -> tuple[list[int], list[int]]:
    """Positions along a band of the frame (``across``: the band's axis across its width)
    where an arm crosses it: a sharp change of colour (its outline) seen in both the inner
    and the outer half of the band (an arm crosses the whole band; a checker reaching over
    its inner edge or a tray beyond it does not), or a stretch at least ``width`` long unlike
    the rest of the band with such a change at one of its ends (glare, which also makes the
    frame unlike itself, fades in and out smoothly). ``keep``: the positions looked at.
    The band's ends (the frame's corners, ``band_end_checkers`` diameters) are not looked at.
    Returns those positions, and the fainter changes (``frame_step_faint``) that count only
    where the arm is seen going on over the playing surface. ``crossing``: the band's
    :func:`_crossing_steps`, when already worked out."""
    n = band.shape[1 - across]
    margin = max(2 * config.frame_step_px, round(config.band_end_checkers * width))
    keep = keep & ~_band_ends(n, margin)
    if crossing is None:
        crossing = _crossing_steps(band, across, config)
    strong = (crossing > config.frame_step_threshold) & keep
    out = [int(i) for i in np.nonzero(strong)[0]]
    fainter = (crossing > config.frame_step_faint) & keep & ~strong
    faint = [int(i) for i in np.nonzero(fainter)[0]]
    weak = (crossing > config.frame_step_confirm) & keep
    if n < width or not weak.any():
        return out, faint
    band = band.astype(np.float32)
    sample = band[:, keep] if across == 0 else band[keep]
    model = median_axis0(sample.reshape(-1, 3)[::3])  # a sample is enough
    bad = _foreign_pixels(band, model[None, None, :], config).mean(axis=across) > 0.5
    padded = np.concatenate([[False], bad & keep, [False]]).astype(np.int8)
    starts = np.nonzero(np.diff(padded) == 1)[0]
    stops = np.nonzero(np.diff(padded) == -1)[0]  # exclusive
    tol = max(2, width // 3)
    for a, b in zip(starts, stops, strict=True):
        if b - a < width:
            continue
        near = weak[max(0, a - tol) : min(n, a + tol)].any() or weak[
            max(0, b - tol) : min(n, b + tol)].any()
        if near:
            out += [int(a), int(b)]
    return out, faint


def _crossing_steps(band: np.ndarray, across: int, config: OcclusionConfig) -> np.ndarray:
    """How sharply the colour changes at each position along a band (uint8 BGR), as seen in
    its inner and its outer half alike (the smaller of the two, each taken as its largest
    within a couple of pixels)."""
    w = band.shape[across]
    if w < 2:
        single: np.ndarray = _frame_steps(band.astype(np.float32).mean(axis=across)[None],
                                          config)[0]
        return single
    half = w // 2
    parts = (band[:half], band[half:]) if across == 0 else (band[:, :half], band[:, half:])
    # the mean across each half, by OpenCV's row/column reduction
    prof = np.stack([
        cv2.reduce(np.ascontiguousarray(p), across, cv2.REDUCE_AVG, dtype=cv2.CV_32F)
        .reshape(-1, 3) for p in parts])
    steps = _frame_steps(prof, config).astype(np.float32)  # (2, L)
    kernel = np.ones((1, 2 * config.frame_step_px + 1), np.uint8)
    near = np.asarray(cv2.dilate(steps, kernel))
    sa, sb = steps[0], steps[1]
    out: np.ndarray = np.maximum(np.minimum(sa, near[1]), np.minimum(sb, near[0]))
    return out


def _crossing_steps_many(bands: list[np.ndarray], across: int,
                         config: OcclusionConfig) -> list[np.ndarray]:
    """:func:`_crossing_steps` of several bands as long as each other, worked out together."""
    if len(bands) < 2 or len({b.shape[1 - across] for b in bands}) != 1 or min(
            b.shape[across] for b in bands) < 2:
        return [_crossing_steps(b, across, config) for b in bands]
    means = []
    for band in bands:
        # the mean across each half (rows of a rail: numpy's sum over a few rows is quick;
        # columns of a side band: OpenCV's reduction, which numpy's short inner axis is not)
        w = band.shape[across]
        half = w // 2
        if across == 0:
            means.append(band[:half].sum(axis=0, dtype=np.float32) * np.float32(1.0 / half))
            means.append(band[half:].sum(axis=0, dtype=np.float32)
                         * np.float32(1.0 / (w - half)))
        else:
            for part in (band[:, :half], band[:, half:]):
                means.append(cv2.reduce(np.ascontiguousarray(part), 1, cv2.REDUCE_AVG,
                                        dtype=cv2.CV_32F).reshape(-1, 3))
    prof = np.stack(means)  # (2 K, L, 3): the two halves of each band
    steps = _frame_steps(prof, config).astype(np.float32)  # (2 K, L)
    kernel = np.ones((1, 2 * config.frame_step_px + 1), np.uint8)
    near = np.asarray(cv2.dilate(steps, kernel))
    out = []
    for k in range(len(bands)):
        sa, sb = steps[2 * k], steps[2 * k + 1]
        out.append(np.maximum(np.minimum(sa, near[2 * k + 1]), np.minimum(sb, near[2 * k])))
    return out


def _frame_steps(profile: np.ndarray, config: OcclusionConfig) -> np.ndarray:
    """How much the colour along bands of the frame (K x L x 3, averaged across each band)
    changes at each position: the colour distance between the mean of the ``frame_step_px``
    pixels after and of those before. Light, glare and shadows change smoothly; an arm's
    outline does not, even where the arm's colour is close to the frame's."""
    k = config.frame_step_px
    m, n = profile.shape[:2]
    out = np.zeros((m, n), np.float64)
    if n <= 2 * k:
        return out
    # channels first, so the sums run along contiguous rows; in float64 the sums of a few
    # float32 colours are exact
    p = np.ascontiguousarray(profile.transpose(0, 2, 1), dtype=np.float64)
    diff = p[:, :, k + 1 : n + 1 - k] - p[:, :, k - 1 : n - k - 1]
    for i in range(2, k + 1):
        diff += p[:, :, k + i : n + i - k]
        diff -= p[:, :, k - i : n - k - i]
    sq = diff * diff
    out[:, k : n - k] = np.sqrt(sq[:, 0] + sq[:, 1] + sq[:, 2]) / k
    return out
