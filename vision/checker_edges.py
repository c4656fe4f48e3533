"""The rim edge maps the checker reader samples (:func:`edge_maps`,
:func:`edge_maps_and_gradients`): strong gradients that run mostly across a column (rims above
and below a checker's centre) or along it (its left and right rims), exactly in uint8.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import cv2
import numpy as np

from vision.config import CheckerConfig


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
    vertical = dominant(ay, ax, thr, config.rim_dominance)
    horizontal = dominant(ax, ay, thr)  # a side rim within 25 degrees of upright
    # rims may sit a pixel or two off the nominal circle (checkers differ a little in size)
    vkernel = np.ones((config.edge_dilate_along, 3), np.uint8)
    hkernel = np.ones((3, config.edge_dilate_along), np.uint8)
    return cv2.dilate(vertical, vkernel), cv2.dilate(horizontal, hkernel), (gx, gy)


def dominant(a: np.ndarray, b: np.ndarray, thr: int, ratio: float = 1.5) -> np.ndarray:
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
