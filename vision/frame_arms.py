"""Arms reaching over the board's frame, the occlusion finder's third sign: sharp changes of
colour along the frame's bands, in their inner and outer halves alike (or fainter ones where
the arm is seen going on over the surface). An arm over the rail hides the slots near it
(:func:`arms_over_the_rail`); one over a side frame hides them all
(:func:`arms_over_the_sides`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import cv2
import numpy as np

from vision.config import OcclusionConfig
from vision.foreign_pixels import foreign_pixels, median_axis0
from vision.geometry import Canonical


def arms_over_the_rail(bgr: np.ndarray, canonical: Canonical, config: OcclusionConfig,
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


def arms_over_the_sides(bgr: np.ndarray, canonical: Canonical, config: OcclusionConfig,
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
    bad = foreign_pixels(band, model[None, None, :], config).mean(axis=across) > 0.5
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
