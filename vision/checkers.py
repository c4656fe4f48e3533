"""Checker counting in the canonical reading raster, with a probability for every count.

How: checkers are discs whose rims make horizontal-ish edges above and below their centre
(the direction along a point's column), which the painted triangles, whose edges run along
the column, never do. For each slot a profile ``s(t)`` along the column says, at distance ``t``
from the board edge, what share of a checker-sized circle's top and bottom arcs lies on such
an edge (the smaller of the two shares, so one straight line, e.g. the board's edge, is not
enough). Column checkers give bumps at ``(k + 0.5) d``; a checker laid over two others (the
sixth or later checker) gives a bump at ``(j + 1) d`` and hides the arcs of the two below it.
Counts follow from a contiguous-column model; colours from the discs' brightness, split into
darker and lighter (or matched to configured colours).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.config import CheckerConfig
from vision.geometry import Canonical

READ_MARGIN_MM = (8.0, 12.0)


@dataclass(frozen=True)
class Layout:
    """Index arrays for sampling one canonical reading raster (cached per raster)."""

    d: float  # checker diameter, px
    ts: np.ndarray  # (T,) distances from the edge along a column, in checker diameters
    col_x: np.ndarray  # (24, A) x of the arc samples per slot
    up_y: np.ndarray  # (24, T, A)
    dn_y: np.ndarray  # (24, T, A)
    win0: np.ndarray  # (cap, T) bool: window of column position k
    win1: np.ndarray  # (cap - 1, T) bool: window of overlay position j
    disc_dx: np.ndarray  # (P,) offsets of a small disc, px
    disc_dy: np.ndarray
    centre0: np.ndarray  # (24, cap, 2) nominal centres (x, y) of column checkers, px
    centre1: np.ndarray  # (24, cap - 1, 2) nominal centres of overlay checkers, px
    bar_x: np.ndarray  # (X,) x offsets tried along the bar, px
    bar_ts: np.ndarray  # (B,) y along the bar, px
    arc_dx: np.ndarray  # (A,) arc sample offsets
    arc_dy: np.ndarray  # (A,)
    cap: int


@functools.lru_cache(maxsize=8)
def layout_for(canonical: Canonical) -> Layout:
    """Sampling positions for ``canonical`` (computed once per raster size)."""
    g = canonical.geometry
    s = canonical.px_per_mm
    d = g.checker_diameter_mm * s
    r = d / 2.0
    cap = g.column_capacity()
    w, h = canonical.size
    ts = np.arange(-0.15, cap - 0.1, 0.125)
    angles = np.deg2rad(np.linspace(55.0, 125.0, 7))
    arc_dx = 0.97 * r * np.cos(angles)
    arc_dy = 0.97 * r * np.sin(angles)
    _, y_top = canonical.mm_to_px(0.0, 0.0)
    _, y_bot = canonical.mm_to_px(0.0, g.height_mm)
    cx = np.array([canonical.mm_to_px(g.slot_centre_x(i), 0.0)[0] for i in range(24)])
    top = np.arange(24) < 12
    cy = np.where(top[:, None], y_top + ts[None, :] * d, y_bot - ts[None, :] * d)
    col_x = np.clip(np.rint(cx[:, None] + arc_dx[None, :]), 0, w - 1).astype(np.intp)
    up_y = np.clip(np.rint(cy[..., None] - arc_dy), 0, h - 1).astype(np.intp)
    dn_y = np.clip(np.rint(cy[..., None] + arc_dy), 0, h - 1).astype(np.intp)
    win0 = np.stack([np.abs(ts - (k + 0.5)) <= 0.2 + 1e-9 for k in range(cap)])
    win1 = np.stack([np.abs(ts - (j + 1.0)) <= 0.2 + 1e-9 for j in range(cap - 1)])
    pts = [(0.0, 0.0)]
    for ring, n in ((0.22, 6), (0.42, 10)):
        for k in range(n):
            a = 2 * math.pi * k / n
            pts.append((ring * d * math.cos(a), ring * d * math.sin(a)))
    disc = np.array(pts)

    def centres(offsets: list[float]) -> np.ndarray:
        out = np.zeros((24, len(offsets), 2))
        for i in range(24):
            for k, off in enumerate(offsets):
                out[i, k, 0] = cx[i]
                out[i, k, 1] = y_top + off * d if top[i] else y_bot - off * d
        return out

    bar_cx = canonical.mm_to_px(g.bar.centre[0], 0.0)[0]
    bar_x = bar_cx + np.array([-9.0, -4.5, 0.0, 4.5, 9.0]) * s
    bar_ts = np.arange(y_top + 0.3 * r, y_bot - 0.3 * r, d / 8.0)
    return Layout(
        d=d,
        ts=ts,
        col_x=col_x,
        up_y=up_y,
        dn_y=dn_y,
        win0=win0,
        win1=win1,
        disc_dx=disc[:, 0],
        disc_dy=disc[:, 1],
        centre0=centres([k + 0.5 for k in range(cap)]),
        centre1=centres([j + 1.0 for j in range(cap - 1)]),
        bar_x=bar_x,
        bar_ts=bar_ts,
        arc_dx=arc_dx,
        arc_dy=arc_dy,
        cap=cap,
    )


def edge_maps(gray: np.ndarray, config: CheckerConfig) -> tuple[np.ndarray, np.ndarray]:
    """Two 0/1 maps (dilated by one pixel): strong gradients that are mostly vertical (rims
    above or below a centre) and mostly horizontal (rims to the left or right)."""
    gx = cv2.Sobel(gray, cv2.CV_16S, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_16S, 0, 1, ksize=3)
    # Sobel 3x3 gives 8x the per-pixel derivative (saturated at 255 by convertScaleAbs)
    ay = cv2.convertScaleAbs(gy)
    ax = cv2.convertScaleAbs(gx)
    thr = int(round(config.rim_edge_min * 8))
    ay16 = ay.astype(np.int16)
    ax16 = ax.astype(np.int16)
    vertical = ((ay > thr) & (ay16 * 2 > ax16 * 3)).astype(np.uint8)
    horizontal = ((ax > thr) & (ax16 * 2 > ay16 * 3)).astype(np.uint8)
    kernel = np.ones((3, 3), np.uint8)
    return cv2.dilate(vertical, kernel), cv2.dilate(horizontal, kernel)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(x, -40, 40)))
    return out


@dataclass
class ColumnEvidence:
    """Per-slot evidence: probabilities of column checkers and of checkers laid over them."""

    occupied: np.ndarray  # (24, cap) P(column checker k present)
    overlay: np.ndarray  # (24, cap - 1) P(checker laid over column checkers j and j+1)
    profile: np.ndarray  # (24, T) disc score along the column


def column_evidence(edges: np.ndarray, layout: Layout, config: CheckerConfig) -> ColumnEvidence:
    """Disc scores along every column turned into presence probabilities."""
    ev = edges
    up = ev[layout.up_y, layout.col_x[:, None, :]].mean(axis=-1)
    dn = ev[layout.dn_y, layout.col_x[:, None, :]].mean(axis=-1)
    prof = np.minimum(up, dn)  # (24, T)
    q0 = np.where(layout.win0[None], prof[:, None, :], 0.0).max(axis=-1)  # (24, cap)
    q1 = np.where(layout.win1[None], prof[:, None, :], 0.0).max(axis=-1)  # (24, cap-1)
    p0 = _sigmoid((q0 - config.disc_score_threshold) / config.disc_score_scale)
    p1 = _sigmoid((q1 - config.overlay_score_threshold) / config.disc_score_scale)
    # a checker laid over j and j+1 hides their arcs: their own scores are low there
    over = p1 * (1.0 - p0[:, :-1]) * (1.0 - p0[:, 1:])
    occ = p0.copy()
    occ[:, :-1] = np.maximum(occ[:, :-1], over)
    occ[:, 1:] = np.maximum(occ[:, 1:], over)
    return ColumnEvidence(occ, over, prof)


def count_distribution(occupied: np.ndarray, overlay: np.ndarray, max_count: int) -> np.ndarray:
    """P(count = n), n = 0..max_count, for one column.

    Column checkers are contiguous from the edge: P(n0 = n) is proportional to the product of
    P(present) for the first n positions and P(absent) for the rest. Overlays add a
    Poisson-binomial count; the two are convolved.
    """
    cap = occupied.shape[0]
    eps = 1e-6
    p = np.clip(occupied, eps, 1 - eps)
    logp = np.log(p)
    logq = np.log(1 - p)
    cum_p = np.concatenate([[0.0], np.cumsum(logp)])
    rev_q = np.concatenate([np.cumsum(logq[::-1])[::-1], [0.0]])
    ll = cum_p + rev_q  # n0 = 0..cap
    ll -= ll.max()
    dist0 = np.exp(ll)
    dist0 /= dist0.sum()
    dist1 = np.array([1.0])
    for o in np.clip(overlay, 0.0, 1.0):
        dist1 = np.convolve(dist1, np.array([1.0 - o, o]))
    total = np.convolve(dist0, dist1)
    out = np.zeros(max_count + 1)
    n = min(len(total), max_count + 1)
    out[:n] = total[:n]
    if len(total) > n:
        out[-1] += total[n:].sum()
    s = out.sum()
    return out / s if s > 0 else out


def disc_colours(bgr: np.ndarray, centres: np.ndarray, layout: Layout,
                 small: bool = False) -> np.ndarray:
    """Mean BGR of a disc (0.42 d across, or 0.2 d when ``small``) around each centre
    (N x 2 px) -> N x 3 float."""
    h, w = bgr.shape[:2]
    n = 7 if small else len(layout.disc_dx)
    f = 0.5 if small else 1.0
    xs = np.clip(np.rint(centres[:, 0:1] + f * layout.disc_dx[None, :n]), 0, w - 1)
    ys = np.clip(np.rint(centres[:, 1:2] + f * layout.disc_dy[None, :n]), 0, h - 1)
    xs = xs.astype(np.intp)
    ys = ys.astype(np.intp)
    # the median ignores a specular highlight or a dark ring across part of the disc
    out: np.ndarray = np.median(bgr[ys, xs].astype(np.float32), axis=1)
    return out


@dataclass
class BarCandidate:
    """A checker found on the bar: centre (px), presence probability."""

    x: float
    y: float
    p: float


def bar_candidates(bgr: np.ndarray, edges: np.ndarray, side_edges: np.ndarray, layout: Layout,
                   config: CheckerConfig) -> list[BarCandidate]:
    """Discs along the bar (any height, a little either side of its axis), strongest first,
    no two closer than 0.8 checker diameters. A checker is wider than the bar, so its left and
    right rims must show too (the bar's hinges, as tall as a checker, are narrower)."""
    h, w = edges.shape
    ys = layout.bar_ts
    xs = layout.bar_x
    ix = np.clip(np.rint(xs[:, None] + layout.arc_dx[None, :]), 0, w - 1).astype(np.intp)
    uy = np.clip(np.rint(ys[:, None] - layout.arc_dy[None, :]), 0, h - 1).astype(np.intp)
    dy = np.clip(np.rint(ys[:, None] + layout.arc_dy[None, :]), 0, h - 1).astype(np.intp)
    up = edges[uy[None, :, :], ix[:, None, :]].mean(-1)  # (X, B)
    dn = edges[dy[None, :, :], ix[:, None, :]].mean(-1)
    # side arcs: the same arc turned by 90 degrees
    lx = np.clip(np.rint(xs[:, None] - layout.arc_dy[None, :]), 0, w - 1).astype(np.intp)
    rx = np.clip(np.rint(xs[:, None] + layout.arc_dy[None, :]), 0, w - 1).astype(np.intp)
    sy = np.clip(np.rint(ys[:, None] + layout.arc_dx[None, :]), 0, h - 1).astype(np.intp)
    left = side_edges[sy[None, :, :], lx[:, None, :]].mean(-1)
    right = side_edges[sy[None, :, :], rx[:, None, :]].mean(-1)
    score = np.minimum(np.minimum(up, dn), np.minimum(left, right))
    score = score + 0.01 * (up + dn + left + right) / 4.0  # breaks ties toward fuller rims
    best_x = score.argmax(axis=0)
    best = score.max(axis=0)
    out: list[BarCandidate] = []
    order = np.argsort(-best, kind="stable")
    taken: list[float] = []
    for i in order:
        if best[i] < config.disc_score_threshold - 3 * config.disc_score_scale:
            break
        y = float(ys[i])
        if any(abs(y - t) < 0.92 * layout.d for t in taken):
            continue
        x = float(xs[best_x[i]])
        # a checker is one colour across its width; a hinge or the bar's edge is not
        sides = disc_colours(bgr, np.array([[x - 0.8 * layout.d / 2, y], [x, y],
                                            [x + 0.8 * layout.d / 2, y]]), layout, small=True)
        spread = float(max(np.abs(sides[0] - sides[2]).max(), np.abs(sides[0] - sides[1]).max(),
                           np.abs(sides[1] - sides[2]).max()))
        p = float(_sigmoid(np.array((best[i] - config.disc_score_threshold)
                                    / config.disc_score_scale)))
        p *= float(_sigmoid(np.array((config.bar_side_colour_max - spread) / 8.0)))
        if p < 0.05:
            continue
        taken.append(y)
        out.append(BarCandidate(x, y, p))
    return out
