"""Where the occlusion finder looks in its small raster (:class:`StripLayout`, worked out once per
raster size by :func:`strip_layout`): the 24 slot columns as strips from the edge, the bar, the
playing surface's outer band and the painted points' edges in the reading raster.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from vision.geometry import Canonical


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
