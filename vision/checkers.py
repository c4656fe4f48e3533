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
# The top and bottom arcs of a disc that are checked for rims, degrees from the x axis: wide
# enough that a die's straight edge (a third of a checker across) cannot fill them.
ARC_DEGREES = (42.0, 138.0)


@dataclass(frozen=True)
class Layout:
    """Index arrays for sampling one canonical reading raster (cached per raster)."""

    d: float  # checker diameter, px
    ts: np.ndarray  # (T,) distances from the edge along a column, in checker diameters
    col_x: np.ndarray  # (24, A) x of the arc samples per slot
    up_y: np.ndarray  # (24, T, A)
    dn_y: np.ndarray  # (24, T, A)
    win: np.ndarray  # (M, T) bool: window around position m (t = (m + 1) / 2 diameters)
    disc_dx: np.ndarray  # (P,) offsets of a small disc, px
    disc_dy: np.ndarray
    centres: np.ndarray  # (24, M, 2) nominal disc centres (x, y) at each position, px
    bar_x: np.ndarray  # (X,) x offsets tried along the bar, px
    bar_ts: np.ndarray  # (B,) y along the bar, px
    line_dx: np.ndarray  # (L,) x offsets of a short line across the axis through a centre
    line_dy: np.ndarray  # small shifts of that line along the axis
    line_x: np.ndarray  # (24, M, L) sample columns of those lines
    line_y: np.ndarray  # (len(line_dy), 24, M, L) sample rows
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
    config_arc = ARC_DEGREES
    ts = np.arange(-0.15, cap - 0.1, 0.125)
    angles = np.deg2rad(np.linspace(config_arc[0], config_arc[1], 9))
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
    offsets = [(m + 1) / 2.0 for m in range(2 * cap - 1)]
    win = np.stack([np.abs(ts - off) <= 0.2 + 1e-9 for off in offsets])
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
    line_dx = np.linspace(-0.45 * r, 0.45 * r, 7)
    line_dy = np.array([-0.06, 0.0, 0.06]) * d
    all_centres = centres(offsets)
    line_x = np.clip(np.rint(all_centres[..., 0:1] + line_dx), 0, w - 1).astype(np.intp)
    line_y = np.stack([
        np.clip(np.rint(all_centres[..., 1:2] + dy + 0.0 * line_dx), 0, h - 1).astype(np.intp)
        for dy in line_dy
    ])
    return Layout(
        d=d,
        ts=ts,
        col_x=col_x,
        up_y=up_y,
        dn_y=dn_y,
        win=win,
        disc_dx=disc[:, 0],
        disc_dy=disc[:, 1],
        centres=all_centres,
        bar_x=bar_x,
        bar_ts=bar_ts,
        line_dx=line_dx,
        line_dy=line_dy,
        line_x=line_x,
        line_y=line_y,
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
    thr = round(config.rim_edge_min * 8)
    ay16 = ay.astype(np.int16)
    ax16 = ax.astype(np.int16)
    vertical = ((ay > thr) & (ay16 * 2 > ax16 * 3)).astype(np.uint8)
    horizontal = ((ax > thr) & (ax16 * 2 > ay16 * 3)).astype(np.uint8)
    # rims may sit a pixel or two off the nominal circle (checkers differ a little in size)
    vkernel = np.ones((config.edge_dilate_along, 3), np.uint8)
    hkernel = np.ones((3, config.edge_dilate_along), np.uint8)
    return cv2.dilate(vertical, vkernel), cv2.dilate(horizontal, hkernel)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.minimum(np.maximum(x, -40.0), 40.0)))
    return out


@dataclass(frozen=True)
class Hypothesis:
    """One way a column can look: ``n0`` checkers touching from the edge, and (only when the
    column is full) checkers laid over column checkers ``j`` and ``j + 1`` for ``j`` in
    ``overlays`` (0, 1, ...: from the edge inward).

    Per position m (``t = (m + 1) / 2`` diameters from the edge), ``expect`` says whether a
    whole disc shows there (1), a checker laid over others does (3: its rim may be faint on
    the side facing the light, so one of its two arcs is enough), nothing does (0), or either
    may (-1); ``line`` says whether a
    rim crosses the column's axis there (1: the seam between two touching checkers of a full
    column, or a covered checker's middle, crossed by the rim of the one laid over it), whether
    none should (0: the middle of a checker laid over others), or -1 (no opinion).
    """

    n0: int
    overlays: tuple[int, ...]
    expect: tuple[int, ...]
    line: tuple[int, ...]

    @property
    def count(self) -> int:
        return self.n0 + len(self.overlays)


@functools.lru_cache(maxsize=4)
def hypotheses(cap: int) -> tuple[Hypothesis, ...]:
    """Every column appearance the counter weighs: 0..cap in a line, then a full column with
    1..cap-1 checkers laid over it from the edge inward (the sixth or later checkers)."""
    m_count = 2 * cap - 1
    out = []
    for n0 in range(cap + 1):
        subsets: list[tuple[int, ...]] = [()]
        if n0 == cap:
            subsets += [tuple(range(n1)) for n1 in range(1, cap)]
        for over in subsets:
            expect = []
            line = []
            for m in range(m_count):
                if m % 2 == 0:  # the centre of column position k
                    k = m // 2
                    covered = k in over or (k - 1) in over
                    expect.append(0 if k >= n0 else -1 if covered else 1)
                    line.append(1 if covered else 0 if k < n0 else -1)
                else:  # between column positions j and j + 1
                    j = m // 2
                    if j in over:
                        expect.append(3)
                        line.append(0)
                    elif j + 1 < n0:
                        expect.append(-1)
                        line.append(1 if n0 == cap else -1)  # the seam of two touching
                    else:
                        expect.append(0)
                        line.append(-1)
            out.append(Hypothesis(n0, over, tuple(expect), tuple(line)))
    return tuple(out)


@dataclass
class ColumnReading:
    """Per-slot posterior over column hypotheses and the disc evidence behind it."""

    posterior: np.ndarray  # (24, H)
    hypotheses: tuple[Hypothesis, ...]
    evidence: np.ndarray  # (24, M) P(a whole disc shows at position m)
    profile: np.ndarray  # (24, T) disc score along the column

    def count_distribution(self, max_count: int) -> np.ndarray:
        """(24, max_count + 1): P(count = n) per slot."""
        onehot = np.zeros((len(self.hypotheses), max_count + 1))
        for h, hyp in enumerate(self.hypotheses):
            onehot[h, min(hyp.count, max_count)] = 1.0
        out: np.ndarray = self.posterior @ onehot
        return out

    def best(self) -> list[Hypothesis]:
        """The most probable hypothesis of each slot."""
        return [self.hypotheses[int(i)] for i in self.posterior.argmax(axis=1)]


def read_columns(edges: np.ndarray, layout: Layout, config: CheckerConfig) -> ColumnReading:
    """Disc scores along every column, weighed against every column hypothesis."""
    up = edges[layout.up_y, layout.col_x[:, None, :]].mean(axis=-1)
    dn = edges[layout.dn_y, layout.col_x[:, None, :]].mean(axis=-1)
    prof = np.minimum(up, dn)  # (24, T)
    q = np.where(layout.win[None], prof[:, None, :], 0.0).max(axis=-1)  # (24, M)
    p = _sigmoid((q - config.disc_score_threshold) / config.disc_score_scale)
    p = np.minimum(np.maximum(p, config.evidence_floor), 1.0 - config.evidence_floor)
    q_any = np.where(layout.win[None], np.maximum(up, dn)[:, None, :], 0.0).max(axis=-1)
    p_any = _sigmoid((q_any - config.disc_score_threshold) / config.disc_score_scale)
    p_any = np.minimum(np.maximum(p_any, config.evidence_floor), 1.0 - config.evidence_floor)
    # rims crossing the column's axis (a short line across it), near each position
    line = edges[layout.line_y, layout.line_x[None]].mean(axis=-1).max(axis=0)  # (24, M)
    p_line = _sigmoid((line - config.cover_line_threshold) / config.disc_score_scale)
    p_line = np.minimum(np.maximum(p_line, config.evidence_floor), 1.0 - config.evidence_floor)
    hyps = hypotheses(layout.cap)
    expect = np.array([h.expect for h in hyps])  # (H, M)
    plain = np.array([not h.overlays for h in hyps])
    full = np.array([h.n0 == layout.cap for h in hyps])
    # stage 1: how long is the column (the disc evidence of plain columns)
    ll1 = np.log(p) @ (expect[plain] == 1).T + np.log(1.0 - p) @ (expect[plain] == 0).T
    ll1 -= ll1.max(axis=1, keepdims=True)
    p1 = np.exp(ll1)
    p1 /= p1.sum(axis=1, keepdims=True)  # (24, cap + 1), plain hypotheses in n0 order
    # stage 2: a full column, plain or with checkers laid over it from the edge. Over a
    # checker laid on top, one of its arcs shows (the lit side may be faint); the middles of
    # visible checkers show no rim across the axis, the covered ones do. Only full columns
    # are compared this way, so a shiny centre never changes a shorter column's count.
    # The line terms are averaged per hypothesis (each weighs the same number of positions),
    # so checkers whose pattern crosses every centre (marbled ones) favour none of them.
    ll2 = np.log(p_any) @ (expect[full] == 3).T
    log_on, log_off = np.log(p_line), np.log(1.0 - p_line)
    for k, hyp in enumerate(h for h in hyps if h.n0 == layout.cap):
        terms = [log_off[:, m] for m, v in enumerate(hyp.line) if v == 0]
        terms += [log_on[:, m] for m in range(1, len(hyp.line), 2) if hyp.line[m] == 1]
        covered = [m for m in range(0, len(hyp.line), 2) if hyp.line[m] == 1]
        if covered:  # the rim of the checker laid over shows on at least one covered middle
            terms.append(log_on[:, covered].max(axis=1))
        ll2[:, k] += config.centre_line_weight * np.mean(terms, axis=0)
        ll2[:, k] += len(hyp.overlays) * np.log(config.overlay_prior)
    ll2 -= ll2.max(axis=1, keepdims=True)
    p2 = np.exp(ll2)
    p2 /= p2.sum(axis=1, keepdims=True)
    post = np.zeros((24, len(hyps)))
    post[:, plain & ~full] = p1[:, : layout.cap]
    post[:, full] = p1[:, layout.cap : layout.cap + 1] * p2
    return ColumnReading(post, hyps, p, prof)


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
        # wider than the bar: on at least one side the checker's own colour continues past it
        spread = float(min(np.abs(sides[0] - sides[1]).max(), np.abs(sides[1] - sides[2]).max()))
        p = float(_sigmoid(np.array((best[i] - config.disc_score_threshold)
                                    / config.disc_score_scale)))
        p *= float(_sigmoid(np.array((config.bar_side_colour_max - spread) / 8.0)))
        if p < 0.05:
            continue
        taken.append(y)
        out.append(BarCandidate(x, y, p))
    return out
