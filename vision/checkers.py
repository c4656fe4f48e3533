"""Checker counting in the canonical reading raster, with a probability for every count.

How: checkers are discs whose rims make horizontal-ish edges above and below their centre
(the direction along a point's column), which the painted triangles, whose edges run along
the column, never do. For each slot a profile ``s(t)`` along the column says, at distance ``t``
from the board edge, what share of a checker-sized circle's top and bottom arcs lies on such
an edge (the smaller of the two shares, so one straight line, e.g. the board's edge, is not
enough). Column checkers give bumps at ``(k + 0.5) d``; a checker laid over two others (the
sixth or later checker) gives a bump at ``(j + 1) d`` and hides the arcs of the two below it.
Counts follow from a contiguous-column model; colours from the discs' brightness, split into
darker and lighter (or matched to configured colours). A checker laid over a full column shows
its left and right rims at a seam, where touching column checkers pinch inward, and both arcs
at the first seam; the rim lines across the axis are weighed down where the checkers are
streaked. Bar candidates must be round (a hinge is not). Borne-off checkers are counted
standing on edge in the trays (:func:`read_off_zones`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import cv2
import numpy as np

from vision.config import CheckerConfig
from vision.geometry import BoardGeometry, Canonical
from vision.remap import homography_maps

READ_MARGIN_MM = (12.0, 12.0)
# The top and bottom arcs of a disc that are checked for rims, degrees from the x axis: wide
# enough that a die's straight edge (a third of a checker across) cannot fill them.
ARC_DEGREES = (42.0, 138.0)
# The left and right rims of a disc checked for a checker laid over a column: this many degrees
# either side of its centre's height (there the touching column checkers below pinch inward).
SIDE_ARC_DEGREES = 25.0


@dataclass(frozen=True)
class Layout:
    """Index arrays for sampling one canonical reading raster (cached per raster)."""

    d: float  # checker diameter, px
    width: int  # the raster's width, px
    ts: np.ndarray  # (T,) distances from the edge along a column, in checker diameters
    col_x: np.ndarray  # (24, A) x of the arc samples per slot
    up_y: np.ndarray  # (24, T, A)
    dn_y: np.ndarray  # (24, T, A)
    win: np.ndarray  # (M, T) bool: window around position m (t = (m + 1) / 2 diameters)
    # the windows as [start, stop) pairs of sample indices, flattened for np.maximum.reduceat
    # (None unless every window is a non-empty run of samples and they do not overlap)
    win_bounds: np.ndarray | None
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
    side_x: np.ndarray  # (24, M, 2S) left then right rim samples of a disc at each position
    side_y: np.ndarray  # (24, M, 2S)
    # the same samples as indices into the flattened raster (y * width + x): one gather each
    up_flat: np.ndarray  # (24, T, A)
    dn_flat: np.ndarray  # (24, T, A)
    updn_flat: np.ndarray  # (2, 24, T, A): both
    line_flat: np.ndarray  # (len(line_dy), 24, M, L)
    side_flat: np.ndarray  # (24, M, 2S)
    bar_flat: np.ndarray  # (4, X, B, A): the bar's up, down, left and right arcs
    disc_flat: np.ndarray  # (24 * M, P): the colour disc around every nominal centre


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
    side_a = np.deg2rad(np.linspace(-SIDE_ARC_DEGREES, SIDE_ARC_DEGREES, 7))
    side_dx = 0.97 * r * np.cos(side_a)
    side_dy = 0.97 * r * np.sin(side_a)
    side_x = np.clip(np.rint(np.concatenate([all_centres[..., 0:1] - side_dx,
                                             all_centres[..., 0:1] + side_dx], axis=-1)),
                     0, w - 1).astype(np.intp)
    side_y = np.clip(np.rint(np.concatenate([all_centres[..., 1:2] + side_dy] * 2, axis=-1)),
                     0, h - 1).astype(np.intp)
    bix = np.clip(np.rint(bar_x[:, None] + arc_dx[None, :]), 0, w - 1).astype(np.intp)
    buy = np.clip(np.rint(bar_ts[:, None] - arc_dy[None, :]), 0, h - 1).astype(np.intp)
    bdy = np.clip(np.rint(bar_ts[:, None] + arc_dy[None, :]), 0, h - 1).astype(np.intp)
    blx = np.clip(np.rint(bar_x[:, None] - arc_dy[None, :]), 0, w - 1).astype(np.intp)
    brx = np.clip(np.rint(bar_x[:, None] + arc_dy[None, :]), 0, w - 1).astype(np.intp)
    bsy = np.clip(np.rint(bar_ts[:, None] + arc_dx[None, :]), 0, h - 1).astype(np.intp)
    bar_flat = np.stack([
        buy[None, :, :] * w + bix[:, None, :],
        bdy[None, :, :] * w + bix[:, None, :],
        bsy[None, :, :] * w + blx[:, None, :],
        bsy[None, :, :] * w + brx[:, None, :],
    ])
    flat_centres = all_centres.reshape(-1, 2)
    disc_xs = np.clip(np.rint(flat_centres[:, 0:1] + disc[None, :, 0]), 0, w - 1)
    disc_ys = np.clip(np.rint(flat_centres[:, 1:2] + disc[None, :, 1]), 0, h - 1)
    return Layout(
        disc_flat=disc_ys.astype(np.intp) * w + disc_xs.astype(np.intp),
        up_flat=up_y * w + col_x[:, None, :],
        dn_flat=dn_y * w + col_x[:, None, :],
        updn_flat=np.stack([up_y * w + col_x[:, None, :], dn_y * w + col_x[:, None, :]]),
        line_flat=line_y * w + line_x[None],
        side_flat=side_y * w + side_x,
        bar_flat=bar_flat,
        d=d,
        width=w,
        ts=ts,
        col_x=col_x,
        up_y=up_y,
        dn_y=dn_y,
        win=win,
        win_bounds=_window_bounds(win),
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
        side_x=side_x,
        side_y=side_y,
    )


def _window_bounds(win: np.ndarray) -> np.ndarray | None:
    """``[start0, stop0, start1, stop1, ...]`` of windows (M, T) that are runs of samples in
    order, apart from each other; None for any other shape of window."""
    bounds: list[int] = []
    for row in win:
        idx = np.nonzero(row)[0]
        if not len(idx) or idx[-1] - idx[0] + 1 != len(idx):
            return None
        if bounds and idx[0] < bounds[-1]:
            return None
        bounds += [int(idx[0]), int(idx[-1]) + 1]
    if bounds[-1] >= win.shape[1]:  # reduceat needs every index inside the row
        return None
    return np.array(bounds, np.intp)


def _window_max(values: np.ndarray, layout: Layout) -> np.ndarray:
    """Per row of ``values`` (24, T; not negative), the largest value in each window (24, M)
    (0 for an empty one)."""
    if layout.win_bounds is None:
        out: np.ndarray = np.where(layout.win[None], values[:, None, :], 0.0).max(axis=-1)
        return out
    red: np.ndarray = np.maximum.reduceat(values, layout.win_bounds, axis=1)[:, ::2]
    return red


def edge_maps(gray: np.ndarray, config: CheckerConfig) -> tuple[np.ndarray, np.ndarray]:
    """Two 0/1 maps (dilated by one pixel): strong gradients that are mostly vertical (rims
    above or below a centre) and mostly horizontal (rims to the left or right)."""
    edges, side_edges, _ = edge_maps_and_gradients(gray, config)
    return edges, side_edges


def edge_maps_and_gradients(gray: np.ndarray, config: CheckerConfig
                            ) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """:func:`edge_maps`, and the 3x3 Sobel gradients (x, y; int16) they come from, which
    :func:`bar_candidates` reuses rather than working them out again around each disc."""
    gx, gy = cv2.spatialGradient(gray)  # both 3x3 Sobel derivatives in one pass
    # Sobel 3x3 gives 8x the per-pixel derivative (saturated at 255 by convertScaleAbs)
    ay = cv2.convertScaleAbs(gy)
    ax = cv2.convertScaleAbs(gx)
    thr = round(config.rim_edge_min * 8)
    vertical = _dominant(ay, ax, thr, config.rim_dominance)
    horizontal = _dominant(ax, ay, thr)  # a side rim within 25 degrees of upright
    # rims may sit a pixel or two off the nominal circle (checkers differ a little in size)
    vkernel = np.ones((config.edge_dilate_along, 3), np.uint8)
    hkernel = np.ones((3, config.edge_dilate_along), np.uint8)
    return cv2.dilate(vertical, vkernel), cv2.dilate(horizontal, hkernel), (gx, gy)


def _dominant(a: np.ndarray, b: np.ndarray, thr: int, ratio: float = 1.5) -> np.ndarray:
    """0/1 where ``a > thr`` and ``a > ratio * b`` (uint8 maps), exactly and in uint8: for a
    whole ``a``, ``a > ratio * b`` is ``a > floor(ratio * b)``, looked up per value of ``b``."""
    steep = cv2.LUT(b, _floor_table(ratio))
    cv2.compare(a, steep, cv2.CMP_GT, dst=steep)  # 0 / 255
    out: np.ndarray = cv2.threshold(a, thr, 1, cv2.THRESH_BINARY)[1]
    cv2.bitwise_and(out, steep, dst=out)
    return out


@functools.lru_cache(maxsize=8)
def _floor_table(ratio: float) -> np.ndarray:
    """``floor(ratio * v)`` for v = 0..255, capped at 255 (where no uint8 exceeds it), with
    ``ratio`` taken as a fraction of denominator at most 16."""
    frac = Fraction(ratio).limit_denominator(16)
    table = np.array([min(255, frac.numerator * v // frac.denominator) for v in range(256)],
                     np.uint8)
    table.flags.writeable = False  # shared by every call
    return table


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


@dataclass(frozen=True)
class _Terms:
    """The hypotheses' expectations as 0/1 matrices, so every slot is weighed at once."""

    shows: np.ndarray  # (H, M) a whole disc shows
    empty: np.ndarray  # (H, M) nothing shows
    laid: np.ndarray  # (H, M) a checker laid over others shows
    plain: np.ndarray  # (H,) no checker laid over
    full: np.ndarray  # (H,) a full column
    full_idx: np.ndarray  # (K,) indices of the full hypotheses
    plain_full: int
    over_k: np.ndarray  # (K,) the full hypothesis has checkers laid over it
    line_off: np.ndarray  # (K, M) no rim across the axis
    line_on: np.ndarray  # (K, M) a seam's rim across the axis
    covered: np.ndarray  # (K, M) bool: covered middles (one of them shows a rim)
    has_covered: np.ndarray  # (K,) bool: the full hypothesis has covered middles
    n_terms: np.ndarray  # (K,) how many line terms each full hypothesis has
    overlays: np.ndarray  # (K,) checkers laid over
    first: np.ndarray  # (K,) one lies over the first seam
    side_on: np.ndarray  # (K, M) seams (past the first) with a checker laid over
    side_off: np.ndarray  # (K, M) seams (past the first) without


@functools.lru_cache(maxsize=4)
def _terms(cap: int) -> _Terms:
    hyps = hypotheses(cap)
    expect = np.array([h.expect for h in hyps])
    plain = np.array([not h.overlays for h in hyps])
    full = np.array([h.n0 == cap for h in hyps])
    full_idx = np.nonzero(full)[0]
    m_count = expect.shape[1]
    k_count = len(full_idx)
    off = np.zeros((k_count, m_count))
    on = np.zeros((k_count, m_count))
    cov = np.zeros((k_count, m_count), bool)
    s_on = np.zeros((k_count, m_count))
    s_off = np.zeros((k_count, m_count))
    for k, h in enumerate(full_idx):
        hyp = hyps[int(h)]
        for m, v in enumerate(hyp.line):
            if v == 0:
                off[k, m] = 1.0
            elif v == 1:
                if m % 2:
                    on[k, m] = 1.0
                else:
                    cov[k, m] = True
        for j in range(1, cap - 1):
            (s_on if j in hyp.overlays else s_off)[k, 2 * j + 1] = 1.0
    n_terms = off.sum(axis=1) + on.sum(axis=1) + cov.any(axis=1)
    return _Terms(
        shows=(expect == 1).astype(np.float64),
        empty=(expect == 0).astype(np.float64),
        laid=(expect == 3).astype(np.float64),
        plain=plain,
        full=full,
        full_idx=full_idx,
        plain_full=int(np.nonzero(plain & full)[0][0]),
        over_k=np.array([bool(hyps[int(h)].overlays) for h in full_idx]),
        line_off=off,
        line_on=on,
        covered=cov,
        has_covered=np.asarray(cov.any(axis=1), dtype=bool),
        n_terms=np.maximum(n_terms, 1.0),
        overlays=np.array([float(len(hyps[int(h)].overlays)) for h in full_idx]),
        first=np.array([0 in hyps[int(h)].overlays for h in full_idx]),
        side_on=s_on,
        side_off=s_off,
    )


@dataclass
class ColumnReading:
    """Per-slot posterior over column hypotheses and the disc evidence behind it."""

    posterior: np.ndarray  # (24, H)
    hypotheses: tuple[Hypothesis, ...]
    evidence: np.ndarray  # (24, M) P(a whole disc shows at position m)
    profile: np.ndarray  # (24, T) disc score along the column

    def count_distribution(self, max_count: int) -> np.ndarray:
        """(24, max_count + 1): P(count = n) per slot."""
        out: np.ndarray = self.posterior @ _count_onehot(self.hypotheses, max_count)
        return out

    def best(self) -> list[Hypothesis]:
        """The most probable hypothesis of each slot."""
        return [self.hypotheses[int(i)] for i in self.posterior.argmax(axis=1)]


_ONEHOT: dict[tuple[int, int], tuple[tuple[Hypothesis, ...], np.ndarray]] = {}


def _count_onehot(hyps: tuple[Hypothesis, ...], max_count: int) -> np.ndarray:
    """(H, max_count + 1): 1 where hypothesis h holds n checkers (read-only; kept for the
    tuple itself, which :func:`hypotheses` hands out again and again, without hashing it)."""
    kept = _ONEHOT.get((id(hyps), max_count))
    if kept is not None and kept[0] is hyps:
        return kept[1]
    onehot = np.zeros((len(hyps), max_count + 1))
    for h, hyp in enumerate(hyps):
        onehot[h, min(hyp.count, max_count)] = 1.0
    onehot.flags.writeable = False
    if len(_ONEHOT) > 16:
        _ONEHOT.clear()
    _ONEHOT[(id(hyps), max_count)] = (hyps, onehot)
    return onehot


# What a column place is cleared by (``read_columns``' ``clear``): a die or the cube lying there
BY_DIE, BY_CUBE = 1, 2


def read_columns(edges: np.ndarray, layout: Layout, config: CheckerConfig,
                 side_edges: np.ndarray | None = None,
                 clear: np.ndarray | None = None) -> ColumnReading:
    """Disc scores along every column, weighed against every column hypothesis.

    ``side_edges`` (the map of near-vertical edges), when given, adds the left and right rims
    of checkers laid over a full column: between two touching column checkers the column
    pinches inward, so rims there at full width mean a checker lies over the seam.
    ``clear`` (24 x M, :data:`BY_DIE` or :data:`BY_CUBE`; 0 elsewhere), when given, marks
    positions known to hold no checker (a die or the cube lies on the board there): their disc
    evidence is taken as none, whatever the die's or the cube's edges, but where a die lies
    and a whole rim shows (``whole_disc_score``: a die is too small to show one, so it was
    misread; the cube's square can show one)."""
    flat = edges.reshape(-1)
    if edges.shape[1] != layout.width:
        raise ValueError("edge map does not match the reading layout")
    n_arc = layout.up_flat.shape[-1]
    up, dn = flat[layout.updn_flat].sum(axis=-1, dtype=np.float64) / n_arc  # one gather
    prof = np.minimum(up, dn)  # (24, T)
    q = _window_max(prof, layout)  # (24, M)
    p = _sigmoid((q - config.disc_score_threshold) / config.disc_score_scale)
    p = np.minimum(np.maximum(p, config.evidence_floor), 1.0 - config.evidence_floor)
    q_any = _window_max(np.maximum(up, dn), layout)
    p_any = _sigmoid((q_any - config.disc_score_threshold) / config.disc_score_scale)
    p_any = np.minimum(np.maximum(p_any, config.evidence_floor), 1.0 - config.evidence_floor)
    if clear is not None:
        # a place showing a whole rim holds a checker, whatever die was read there
        none = (clear == BY_CUBE) | ((clear == BY_DIE) & (q < config.whole_disc_score))
        p = np.where(none, config.evidence_floor, p)
        p_any = np.where(none, config.evidence_floor, p_any)
    # rims crossing the column's axis (a short line across it), near each position
    line = (flat[layout.line_flat].sum(axis=-1, dtype=np.float64)
            / layout.line_flat.shape[-1]).max(axis=0)  # (24, M)
    p_line = _sigmoid((line - config.cover_line_threshold) / config.disc_score_scale)
    p_line = np.minimum(np.maximum(p_line, config.evidence_floor), 1.0 - config.evidence_floor)
    hyps = hypotheses(layout.cap)
    t = _terms(layout.cap)
    # Every hypothesis is first weighed by its disc evidence: whole discs where it shows
    # them, none where it shows nothing, one arc at least of a checker laid over others.
    log_p, log_q, log_any = np.log(p), np.log(1.0 - p), np.log(p_any)
    disc = log_p @ t.shows.T + log_q @ t.empty.T
    # how long the column is: a checker laid over others shows both arcs (a hand's fingers
    # over a column show one; one arc alone counts for ``overlay_one_arc``, as dark checkers'
    # rims on each other are faint); which full column: one arc is enough (the lit side of a
    # checker laid over others may be faint)
    one_arc = np.maximum(p, config.overlay_one_arc * p_any)
    disc_strict = disc + np.log(one_arc) @ t.laid.T
    disc = disc + log_any @ t.laid.T
    # A full column, plain or with checkers laid over it from the edge, is also weighed by
    # the rims crossing its axis: the middles of visible checkers show none, covered ones
    # do (the rim of the checker laid over). The line terms are averaged per hypothesis (each
    # weighs the same number of positions), so checkers whose pattern crosses every centre
    # (marbled ones) favour none of them.
    ll2 = disc[:, t.full_idx].copy()
    log_on, log_off = np.log(p_line), np.log(1.0 - p_line)
    # Every full column, plain or not, shows no rim across its axis at several positions
    # (middles of visible checkers); where fewer are clear (streaked, marbled checkers) the
    # line evidence is weighed down in proportion.
    clear = (line < config.cover_line_threshold).sum(axis=1)
    line_weight = config.centre_line_weight * np.minimum(1.0, clear / config.line_clear_min)
    # the rim of the checker laid over shows on at least one covered middle
    covered = np.where(t.covered[None], log_on[:, None, :], -np.inf).max(axis=-1)
    covered = np.where(t.has_covered[None, :], covered, 0.0)
    line_mean = (log_off @ t.line_off.T + log_on @ t.line_on.T + covered) / t.n_terms
    ll2 += line_weight[:, None] * line_mean + t.overlays * np.log(config.overlay_prior)
    # A checker laid over the first seam shows both its arcs there, more fully than the rings
    # of two touching checkers around a plain column's seam do.
    p_seam = _sigmoid((q[:, 1] - config.seam_disc_threshold) / config.disc_score_scale)
    p_seam = np.minimum(np.maximum(p_seam, config.seam_floor), 1.0 - config.seam_floor)
    ll2 += config.seam_weight * np.where(t.first[None], np.log(p_seam)[:, None],
                                         np.log(1.0 - p_seam)[:, None])
    if side_edges is not None:
        half = layout.side_x.shape[-1] // 2
        rims = side_edges.reshape(-1)[layout.side_flat]  # (24, M, 2S): left, then right rim
        both = rims.reshape(*rims.shape[:-1], 2, half).sum(axis=-1, dtype=np.float64) / half
        side = np.minimum(both[..., 0], both[..., 1])
        p_side = _sigmoid((side - config.side_rim_threshold) / config.disc_score_scale)
        p_side = np.minimum(np.maximum(p_side, config.evidence_floor),
                            1.0 - config.evidence_floor)
        # not at the first seam: there the painted points' edges run close beside the rims
        ll2 += config.side_rim_weight * (np.log(p_side) @ t.side_on.T
                                         + np.log(1.0 - p_side) @ t.side_off.T)
    # stage 1: how long is the column. A plain column is judged on its discs alone (a shiny
    # centre never changes a shorter column's count); a full one with checkers laid over it
    # hides the discs beneath, so it competes with its rim-line evidence as well.
    ll1 = disc[:, t.plain].copy()  # (24, cap + 1), plain hypotheses in n0 order
    over_idx = t.full_idx[t.over_k]
    strict = (ll2[:, t.over_k] + (disc_strict - disc)[:, over_idx]
              - t.overlays[t.over_k] * np.log(config.overlay_prior))
    ll1[:, layout.cap] = np.maximum(disc[:, t.plain_full], strict.max(axis=1))
    ll1 -= ll1.max(axis=1, keepdims=True)
    p1 = np.exp(ll1)
    p1 /= p1.sum(axis=1, keepdims=True)
    # stage 2: which full column
    ll2 -= ll2.max(axis=1, keepdims=True)
    p2 = np.exp(ll2)
    p2 /= p2.sum(axis=1, keepdims=True)
    post = np.zeros((24, len(hyps)))
    post[:, t.plain & ~t.full] = p1[:, : layout.cap]
    post[:, t.full] = p1[:, layout.cap : layout.cap + 1] * p2
    return ColumnReading(post, hyps, p, prof)


def disc_colours(bgr: np.ndarray, centres: np.ndarray, layout: Layout,
                 small: bool = False) -> np.ndarray:
    """Mean BGR of a disc (0.42 d across, or 0.2 d when ``small``) around each centre
    (N x 2 px) -> N x 3 float."""
    h, w = bgr.shape[:2]
    n = 7 if small else len(layout.disc_dx)
    f = 0.5 if small else 1.0
    xs = np.minimum(np.maximum(np.rint(centres[:, 0:1] + f * layout.disc_dx[None, :n]), 0),
                    w - 1)
    ys = np.minimum(np.maximum(np.rint(centres[:, 1:2] + f * layout.disc_dy[None, :n]), 0),
                    h - 1)
    xs = xs.astype(np.intp)
    ys = ys.astype(np.intp)
    # the median ignores a specular highlight or a dark ring across part of the disc (an odd
    # number of samples: the middle one, found by a partial sort)
    vals = bgr[ys, xs].astype(np.float32)
    if n % 2:
        out: np.ndarray = np.partition(vals, n // 2, axis=1)[:, n // 2]
        return out
    med: np.ndarray = np.median(vals, axis=1)
    return med


def slot_disc_colours(bgr: np.ndarray, layout: Layout,
                      which: np.ndarray | None = None) -> np.ndarray:
    """:func:`disc_colours` at every slot's nominal centres, ``layout.centres`` (24 * M, 3),
    or only at those of them ``which`` lists (indices into the 24 * M), from the sample
    positions worked out once per raster."""
    if bgr.shape[1] != layout.width:
        raise ValueError("raster does not match the reading layout")
    index = layout.disc_flat if which is None else layout.disc_flat[which]
    vals = bgr.reshape(-1, 3)[index].astype(np.float32)  # (N, P, 3)
    n = vals.shape[1]
    out: np.ndarray = np.partition(vals, n // 2, axis=1)[:, n // 2]
    return out


@dataclass
class BarCandidate:
    """A checker found on the bar: centre (px), presence probability."""

    x: float
    y: float
    p: float


def bar_candidates(bgr: np.ndarray, edges: np.ndarray, side_edges: np.ndarray, layout: Layout,
                   config: CheckerConfig,
                   gradients: tuple[np.ndarray, np.ndarray] | None = None,
                   ) -> list[BarCandidate]:
    """Discs along the bar (any height, a little either side of its axis), strongest first,
    no two closer than 0.8 checker diameters. A checker is wider than the bar, so its left and
    right rims must show too (the bar's hinges, as tall as a checker, are narrower).
    ``gradients``: the raster's Sobel gradients (:func:`edge_maps_and_gradients`), if at hand."""
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
    p_disc = _sigmoid((best[cand] - config.disc_score_threshold) / config.disc_score_scale)
    # the side colours only lower it: those under 0.05 on their rims alone are never taken
    strong = p_disc >= 0.05
    cand, p_disc = cand[strong], p_disc[strong]
    if not len(cand):
        return out
    cx = xs[best_x[cand]]
    cy = ys[cand]
    reach = 0.8 * layout.d / 2
    # a checker is one colour across its width; a hinge or the bar's edge is not
    sides = disc_colours(bgr, np.stack([np.stack([cx - reach, cy], axis=1),
                                        np.stack([cx, cy], axis=1),
                                        np.stack([cx + reach, cy], axis=1)], axis=1)
                         .reshape(-1, 2), layout, small=True).reshape(-1, 3, 3)
    # wider than the bar: on at least one side the checker's own colour continues past it
    spread = np.minimum(np.abs(sides[:, 0] - sides[:, 1]).max(axis=1),
                        np.abs(sides[:, 1] - sides[:, 2]).max(axis=1)).astype(np.float64)
    p_all = p_disc * _sigmoid((config.bar_side_colour_max - spread) / 8.0)
    taken: list[float] = []
    # those under 0.05 already are never taken (roundness can only lower it further), so
    # they cannot keep another from being taken either
    for k in np.flatnonzero(p_all >= 0.05).tolist():
        y = float(ys[cand[k]])
        if any(abs(y - t) < 0.92 * layout.d for t in taken):
            continue
        x = float(cx[k])
        p = float(p_all[k])
        # round: a disc's rim shows on its diagonals too, a hinge's or a fitting's corners
        # do not
        round_ = _roundness(bgr, x, y, layout.d / 2.0, config, gradients)
        p *= float(_sigmoid(np.array((round_ - config.bar_round_min) / 0.1)))
        if p < 0.05:
            continue
        taken.append(y)
        out.append(BarCandidate(x, y, p))
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
    keep = _sigmoid((to_bar - np.minimum(to_checker, config.bar_own_reach))
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


@dataclass
class OffZoneReading:
    """Checkers borne off into one end of a tray (standing on edge from the tray's end):
    P(count = n), and the colour of the stack (BGR) when there is one."""

    side: str  # "left" or "right" tray
    end: str  # "top" or "bottom"
    count_probs: np.ndarray
    colour: np.ndarray | None


def read_off_zones(image: np.ndarray, image_to_mm: np.ndarray, geometry: BoardGeometry,
                   config: CheckerConfig) -> list[OffZoneReading]:
    """Count the checkers standing on edge in each end of both bear-off trays.

    Each tray is warped to its own small raster (``off_px_per_mm``); along it, rows unlike the
    empty tray (the median row: stacks fill at most a third of it) from the tray's end inward
    are the stack,
    whose length over the thickness of a checker is the count. Trays outside the picture are
    left out. ``image_to_mm``: the homography from image pixels to board millimetres."""
    s = config.off_px_per_mm
    h_img, w_img = image.shape[:2]
    pitch = geometry.checker_thickness_mm + config.off_spacing_mm
    out: list[OffZoneReading] = []
    to_img = np.linalg.inv(image_to_mm)
    for side in ("left", "right"):
        tray = geometry.tray_rect(side)
        corners = np.array([[tray.x0, tray.y0], [tray.x1, tray.y0], [tray.x1, tray.y1],
                            [tray.x0, tray.y1]], np.float64).reshape(-1, 1, 2)
        in_img = cv2.perspectiveTransform(corners, to_img).reshape(-1, 2)
        if not ((in_img >= 0).all() and (in_img[:, 0] <= w_img - 1).all()
                and (in_img[:, 1] <= h_img - 1).all()):
            continue
        size = (max(4, round(tray.width * s)), max(8, round(tray.height * s)))
        shift = np.array([[s, 0.0, -tray.x0 * s], [0.0, s, -tray.y0 * s], [0.0, 0.0, 1.0]])
        hmat = tuple(np.round(shift @ image_to_mm, 9).reshape(-1).tolist())
        m1, m2 = homography_maps(hmat, size)
        raster = cv2.remap(image, m1, m2, cv2.INTER_LINEAR)
        inset = max(1, round(config.off_inset_mm * s))
        rows = np.ascontiguousarray(raster[:, inset : max(inset + 1, size[0] - inset)])
        profile = cv2.reduce(rows, 1, cv2.REDUCE_AVG, dtype=cv2.CV_32F).reshape(-1, 3)
        empty = np.median(profile, axis=0)  # stacks fill at most a third of a tray
        filled = np.abs(profile - empty).max(axis=1) > config.off_colour_diff
        gap = max(1, round(config.off_gap_mm * s))
        for end in ("top", "bottom"):
            zone = geometry.off_zone(side, end)
            a = round((zone.y0 - tray.y0) * s)
            b = round((zone.y1 - tray.y0) * s)
            run = filled[a:b] if end == "top" else filled[a:b][::-1]
            length = _stack_length(run, gap)
            x = (length / s + config.off_spacing_mm) / pitch
            n = np.arange(config.max_count + 1)
            probs = np.exp(-0.5 * ((n - x) / config.off_count_sd) ** 2)
            probs /= probs.sum()
            colour = None
            if length > 0:
                stack = profile[a:b] if end == "top" else profile[a:b][::-1]
                colour = np.median(stack[:length], axis=0)
            out.append(OffZoneReading(side, end, probs, colour))
    return out


def _stack_length(filled: np.ndarray, gap: int) -> int:
    """Rows from the start of ``filled`` to the last filled one before ``gap`` empty rows in a
    row (0 when the first rows are empty)."""
    n = len(filled)
    if not n or not filled[: max(1, gap)].any():
        return 0
    empty = np.concatenate([[0], np.cumsum(~filled, dtype=np.int32)])
    runs = np.nonzero(empty[gap:] - empty[:-gap] == gap)[0] if n >= gap else np.zeros(0, int)
    stop = int(runs[0]) if len(runs) else n  # the first run of `gap` empty rows starts here
    taken = np.nonzero(filled[:stop])[0]
    return int(taken[-1]) + 1 if len(taken) else 0
