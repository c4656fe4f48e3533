"""Where the checker reader samples a canonical reading raster (:class:`Layout`, worked out once
per raster size by :func:`layout_for`): the rim arcs along every slot's column, the windows
about each column position, the discs, lines and side rims about their centres and the bar's
arcs. Kept apart from the reading (``vision.checkers``) that gathers at them.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from vision.geometry import Canonical

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


def window_max(values: np.ndarray, layout: Layout) -> np.ndarray:
    """Per row of ``values`` (24, T; not negative), the largest value in each window (24, M)
    (0 for an empty one)."""
    if layout.win_bounds is None:
        out: np.ndarray = np.where(layout.win[None], values[:, None, :], 0.0).max(axis=-1)
        return out
    red: np.ndarray = np.maximum.reduceat(values, layout.win_bounds, axis=1)[:, ::2]
    return red
