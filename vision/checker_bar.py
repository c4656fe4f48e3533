"""Checkers on the bar: round discs at any height along it, wider than the bar and one colour
across (:func:`bar_candidates`), less likely where their colour is the bar's own
(:func:`not_the_bar`). Kept apart from the column reading (``vision.checkers``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.checker_layout import Layout
from vision.checkers import disc_colours, sigmoid
from vision.config import CheckerConfig


@dataclass
class BarCandidate:
    """A checker found on the bar: centre (px), presence probability."""

    x: float
    y: float
    p: float


def bar_candidates(bgr: np.ndarray, edges: np.ndarray, side_edges: np.ndarray, layout: Layout,
                   config: CheckerConfig,
                   gradients: tuple[np.ndarray, np.ndarray] | None = None,
                   clear_of: tuple[float, float, float] | None = None,
                   ) -> list[BarCandidate]:
    """Discs along the bar (any height, a little either side of its axis), strongest first,
    no two closer than 0.92 checker diameters. A checker is wider than the bar, so its left and
    right rims must show too (the bar's hinges, as tall as a checker, are narrower).
    ``gradients``: the raster's Sobel gradients (:func:`edge_maps_and_gradients`), if at hand.
    ``clear_of``: (x, y, reach) px, where the cube lies on the bar: no disc is taken within
    ``reach`` of it (its square shows a disc's four rims), nor keeps a checker beside it out."""
    ys = layout.bar_ts
    xs = layout.bar_x
    n_arc = layout.bar_flat.shape[-1]
    vert = edges.reshape(-1)[layout.bar_flat[:2]].sum(axis=-1, dtype=np.float64) / n_arc
    horiz = side_edges.reshape(-1)[layout.bar_flat[2:]].sum(axis=-1, dtype=np.float64) / n_arc
    up, dn = vert[0], vert[1]  # (X, B)
    left, right = horiz[0], horiz[1]
    score = np.minimum(np.minimum(up, dn), np.minimum(left, right))
    score = score + 0.01 * (up + dn + left + right) / 4.0  # breaks ties toward fuller rims
    best_x = score.argmax(axis=0)
    best = score.max(axis=0)
    out: list[BarCandidate] = []
    order = np.argsort(-best, kind="stable")
    cut = config.disc_score_threshold - 3 * config.disc_score_scale
    cand = order[: int(np.count_nonzero(best >= cut))]  # the strongest, in order
    p_disc = sigmoid((best[cand] - config.disc_score_threshold) / config.disc_score_scale)
    # the side colours only lower it: those under 0.05 on their rims alone are never taken
    strong = p_disc >= 0.05
    cand, p_disc = cand[strong], p_disc[strong]
    if not len(cand):
        return out
    cx = xs[best_x[cand]]
    cy = ys[cand]
    p_all = p_disc * sigmoid((config.bar_side_colour_max - _side_spread(bgr, cx, cy, layout))
                             / 8.0)
    taken: list[float] = []
    # those under 0.05 already are never taken (roundness can only lower it further), so
    # they cannot keep another from being taken either
    for k in np.flatnonzero(p_all >= 0.05).tolist():
        y = float(ys[cand[k]])
        x = float(cx[k])
        if clear_of is not None and math.hypot(x - clear_of[0], y - clear_of[1]) < clear_of[2]:
            continue
        if any(abs(y - t) < 0.92 * layout.d for t in taken):
            continue
        p = float(p_all[k])
        # round: a disc's rim shows on its diagonals too, a hinge's or a fitting's corners
        # do not
        round_ = _roundness(bgr, x, y, layout.d / 2.0, config, gradients)
        p *= float(sigmoid(np.array((round_ - config.bar_round_min) / 0.1)))
        if p < 0.05:
            continue
        taken.append(y)
        out.append(BarCandidate(x, y, p))
    return out


def _side_spread(bgr: np.ndarray, cx: np.ndarray, cy: np.ndarray, layout: Layout
                 ) -> np.ndarray:
    """How far the colour on the bar at each centre (``cx``, ``cy``: px) is from the nearer
    of the colours either side of the bar (largest BGR channel difference). A checker is one
    colour across, wider than the bar; a hinge or the bar's edge is not. On the bar, the
    colour is taken at the centre and a fifth of a checker above and below it, and the darker
    two of those three count: a marbled checker's streak or a pearl's lustre over its middle
    is lighter than its face (a red checker streaked there was missed), and a hinge reached
    by one of them is lighter than the bar around it (a place beside one passed for a
    checker and kept two real ones out)."""
    reach = 0.8 * layout.d / 2
    lift = 0.2 * layout.d
    at = [(cx - reach, cy), (cx, cy - lift), (cx, cy), (cx, cy + lift), (cx + reach, cy)]
    samples = disc_colours(bgr, np.stack([np.stack(p, axis=1) for p in at], axis=1)
                           .reshape(-1, 2), layout, small=True).reshape(len(cx), len(at), 3)
    sides = samples[:, [0, -1]]  # (N, 2, 3)
    middle = samples[:, 1:-1]  # (N, 3, 3)
    darker = np.take_along_axis(middle, np.argsort(middle.sum(axis=-1), axis=1,
                                                   kind="stable")[:, :2, None], axis=1)
    # wider than the bar: on at least one side the checker's own colour continues past it
    gap = np.abs(sides[:, :, None, :] - darker[:, None, :, :]).max(axis=-1)
    out: np.ndarray = gap.min(axis=(1, 2)).astype(np.float64)
    return out


def not_the_bar(bgr: np.ndarray, layout: Layout, cands: list[BarCandidate],
                found: np.ndarray, checker_bgr: np.ndarray, config: CheckerConfig
                ) -> list[BarCandidate]:
    """``cands`` with each one's presence lowered where its colour (``found``, their
    :func:`disc_colours`) is the bar's own (sampled along the bar away from every candidate):
    nearer it than any checker's in the columns (``checker_bgr``, K x 3) and than
    ``bar_own_reach``. The bar's end against the frame, between a bar checker's rim, the
    frame's edge and the points' sides, shows a disc's four rims."""
    if not cands or not len(checker_bgr):
        return cands
    x = float(layout.bar_x[len(layout.bar_x) // 2])
    away = [float(y) for y in layout.bar_ts[::4]
            if all(abs(float(y) - c.y) >= config.bar_own_clear * layout.d for c in cands)]
    if len(away) < 3:  # the bar is full of checkers: its own colour shows nowhere
        return cands
    bar = np.median(disc_colours(bgr, np.array([[x, y] for y in away]), layout), axis=0)
    if np.linalg.norm(checker_bgr - bar, axis=1).min() < 2 * config.bar_own_reach:
        return cands  # checkers of the bar's colour: the colour cannot tell them apart
    to_bar = np.linalg.norm(found - bar, axis=1)
    to_checker = np.linalg.norm(found[:, None, :] - checker_bgr[None, :, :], axis=2).min(axis=1)
    keep = sigmoid((to_bar - np.minimum(to_checker, config.bar_own_reach))
                    / config.bar_own_scale)
    return [BarCandidate(c.x, c.y, c.p * float(k)) for c, k in zip(cands, keep, strict=True)]


def _roundness(bgr: np.ndarray, x: float, y: float, r: float, config: CheckerConfig,
               gradients: tuple[np.ndarray, np.ndarray] | None = None) -> float:
    """Share of the four diagonal directions from (x, y) in which a rim crosses, near radius
    ``r``, with its gradient pointing along the radius (as a disc's does; a rectangle's sides
    meet at corners, where no edge runs across the diagonal)."""
    h, w = bgr.shape[:2]
    half = math.ceil(1.25 * r) + 2
    x0, y0 = round(x) - half, round(y) - half
    if x0 < 0 or y0 < 0 or x0 + 2 * half + 1 > w or y0 + 2 * half + 1 > h:
        return 1.0  # too near the raster's edge to tell: do not judge
    if gradients is not None:
        # the whole raster's gradients, cut to the patch: the samples lie at least two pixels
        # inside it, where the patch's own 3x3 Sobel would give the same values
        gx = gradients[0][y0 : y0 + 2 * half + 1, x0 : x0 + 2 * half + 1]
        gy = gradients[1][y0 : y0 + 2 * half + 1, x0 : x0 + 2 * half + 1]
    else:
        patch = cv2.cvtColor(bgr[y0 : y0 + 2 * half + 1, x0 : x0 + 2 * half + 1],
                             cv2.COLOR_BGR2GRAY)
        gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)
    thr = config.rim_edge_min * 8.0
    px, py, ux, uy = _diagonal_samples(r, half)  # (4, K) each
    g1 = gx[py, px].astype(np.float64)
    g2 = gy[py, px].astype(np.float64)
    radial = np.abs(g1 * ux + g2 * uy)
    hit = (radial > thr) & (radial > 0.92 * np.hypot(g1, g2))
    return float(hit.any(axis=1).sum()) / 4.0


@functools.lru_cache(maxsize=16)
def _diagonal_samples(r: float, half: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                    np.ndarray]:
    """Where :func:`_roundness` looks: for each of the four diagonals (rows), a few angles
    either side of it and radii near ``r`` around the patch centre ``half``: pixel columns,
    rows, and the radial direction (x, y) at each."""
    pxs, pys, uxs, uys = [], [], [], []
    for base in (45.0, 135.0, 225.0, 315.0):
        row_x, row_y, row_ux, row_uy = [], [], [], []
        for da in (-6.0, 0.0, 6.0):
            a = math.radians(base + da)
            ux, uy = math.cos(a), math.sin(a)
            for f in (0.8, 0.87, 0.94, 1.01, 1.08):
                row_x.append(round(half + f * r * ux))
                row_y.append(round(half + f * r * uy))
                row_ux.append(ux)
                row_uy.append(uy)
        pxs.append(row_x)
        pys.append(row_y)
        uxs.append(row_ux)
        uys.append(row_uy)
    return (np.array(pxs, np.intp), np.array(pys, np.intp), np.array(uxs), np.array(uys))
