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
standing on edge in the trays.

This module reads the columns (:func:`read_columns`) and the discs' colours; the rest is split
by what it holds: where the reader samples (``vision.checker_layout``), the rim edge maps
(``vision.checker_edges``), the column hypotheses (``vision.column_hypotheses``), the bar
(``vision.checker_bar``) and the trays (``vision.borne_off``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.errors import ImageError
from vision.checker_layout import Layout, window_max
from vision.column_hypotheses import Hypothesis, hypotheses, terms
from vision.config import CheckerConfig

READ_MARGIN_MM = (12.0, 12.0)


def sigmoid(x: np.ndarray) -> np.ndarray:
    """The logistic function, its input clipped to [-40, 40]."""
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.minimum(np.maximum(x, -40.0), 40.0)))
    return out


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
        raise ImageError("edge map does not match the reading layout")
    n_arc = layout.up_flat.shape[-1]
    up, dn = flat[layout.updn_flat].sum(axis=-1, dtype=np.float64) / n_arc  # one gather
    prof = np.minimum(up, dn)  # (24, T)
    q = window_max(prof, layout)  # (24, M)
    p = sigmoid((q - config.disc_score_threshold) / config.disc_score_scale)
    p = np.minimum(np.maximum(p, config.evidence_floor), 1.0 - config.evidence_floor)
    q_any = window_max(np.maximum(up, dn), layout)
    p_any = sigmoid((q_any - config.disc_score_threshold) / config.disc_score_scale)
    p_any = np.minimum(np.maximum(p_any, config.evidence_floor), 1.0 - config.evidence_floor)
    if clear is not None:
        # a place showing a whole rim holds a checker, whatever die was read there
        none = (clear == BY_CUBE) | ((clear == BY_DIE) & (q < config.whole_disc_score))
        p = np.where(none, config.evidence_floor, p)
        p_any = np.where(none, config.evidence_floor, p_any)
    # rims crossing the column's axis (a short line across it), near each position
    line = (flat[layout.line_flat].sum(axis=-1, dtype=np.float64)
            / layout.line_flat.shape[-1]).max(axis=0)  # (24, M)
    p_line = sigmoid((line - config.cover_line_threshold) / config.disc_score_scale)
    p_line = np.minimum(np.maximum(p_line, config.evidence_floor), 1.0 - config.evidence_floor)
    hyps = hypotheses(layout.cap)
    t = terms(layout.cap)
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
    p_seam = sigmoid((q[:, 1] - config.seam_disc_threshold) / config.disc_score_scale)
    p_seam = np.minimum(np.maximum(p_seam, config.seam_floor), 1.0 - config.seam_floor)
    ll2 += config.seam_weight * np.where(t.first[None], np.log(p_seam)[:, None],
                                         np.log(1.0 - p_seam)[:, None])
    if side_edges is not None:
        half = layout.side_x.shape[-1] // 2
        rims = side_edges.reshape(-1)[layout.side_flat]  # (24, M, 2S): left, then right rim
        both = rims.reshape(*rims.shape[:-1], 2, half).sum(axis=-1, dtype=np.float64) / half
        side = np.minimum(both[..., 0], both[..., 1])
        p_side = sigmoid((side - config.side_rim_threshold) / config.disc_score_scale)
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
        raise ImageError("raster does not match the reading layout")
    index = layout.disc_flat if which is None else layout.disc_flat[which]
    vals = bgr.reshape(-1, 3)[index].astype(np.float32)  # (N, P, 3)
    n = vals.shape[1]
    out: np.ndarray = np.partition(vals, n // 2, axis=1)[:, n // 2]
    return out


