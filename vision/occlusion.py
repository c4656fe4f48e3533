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

This module joins the signs (:func:`find_occlusion`) and holds the structure sign; the rest is
split by what it holds: the colour model and the glare (``vision.foreign_pixels``), the strips
(``vision.occlusion_strips``) and the arms over the frame (``vision.frame_arms``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from engine.errors import ImageError
from vision.config import OcclusionConfig
from vision.foreign_pixels import (
    beyond,
    colour_distance,
    foreign_pixels,
    glare_pixels,
    masked_median,
    median_axis0,
)
from vision.frame_arms import arms_over_the_rail, arms_over_the_sides
from vision.geometry import Canonical
from vision.occlusion_strips import StripLayout, strip_layout

_OPEN_KERNEL = np.ones((2, 2), np.uint8)


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
        by_colour, valid = masked_median(strips[lay.cls_stack], excluded[lay.cls_stack], 1)
        models = by_colour[lay.cls]
        valid_rows = valid[lay.cls]
    else:
        models = np.empty_like(strips)
        valid_rows = np.zeros(excluded.shape, bool)
        for idx in lay.cls_idx:
            model, valid = masked_median(strips[idx], excluded[idx])
            models[idx] = model[None]
            valid_rows[idx] = valid[None]
    usable = (valid_rows & ~excluded)[..., None]
    distance = colour_distance(strips, models, config)
    foreign_strips = beyond(distance, config) & usable
    flat_foreign = foreign_strips.reshape(-1)
    where = np.flatnonzero(flat_foreign)  # only the foreign pixels are tested further
    if len(where):
        px = strips.reshape(-1, 3)[where]
        still: np.ndarray = np.ones(len(where), bool)
        if checker_colours is not None:
            # a checker out of its column's reading is not a hand
            colours = np.asarray(checker_colours, np.float32).reshape(1, -1, 3)
            if colours.shape[1]:  # unlike every checker colour, all compared at once
                unlike = foreign_pixels(px[:, None, :], colours, config, checker=True)
                still = np.asarray(unlike.all(axis=1), dtype=bool)
        left = np.flatnonzero(still)
        if len(left):
            # glare: the board's own colour, lit a little more or less, plus white light
            glare = glare_pixels(px[left], models.reshape(-1, 3)[where[left]], config)
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
        loose_strips = beyond(distance, config, loose=True) & usable
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
                bm = foreign_pixels(bar, model[None], config)
                bm[~keep] = False
                bar_foreign[y0:y1, x0:x1] = bm.astype(np.uint8)
                bar_model, bar_keep = model, keep
        loose = loose_map()
        if bar_model is not None:
            bl = foreign_pixels(bar, bar_model[None], config, loose=True)
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
    hidden |= arms_over_the_rail(bgr, canonical, config, surface)
    sides = arms_over_the_sides(bgr, canonical, config, surface)
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
        raise ImageError(f"edge map of {side_edges.shape[:2]} does not fit the reading raster")
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


