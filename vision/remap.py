"""Remap tables for a fixed homography, computed once per camera pose.

The camera and the board stay put between frames, so the geometry of a warp (which image
pixel each raster pixel samples) is worked out once and kept; each frame then pays only the
interpolation (``cv2.remap``). The board reader's raster and the trays' rasters share this.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np


@functools.lru_cache(maxsize=12)
def homography_maps(hmat: tuple[float, ...], size: tuple[int, int]
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Fixed-point remap tables (``cv2.CV_16SC2``) of a raster of ``size`` (w, h) whose
    homography from the image is ``hmat`` (9 numbers, row by row; round them so that the
    same pose hits the cache)."""
    inv = np.linalg.inv(np.array(hmat, dtype=np.float64).reshape(3, 3))
    w, h = size
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    den = inv[2, 0] * xs + inv[2, 1] * ys + inv[2, 2]
    mx = ((inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]) / den).astype(np.float32)
    my = ((inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]) / den).astype(np.float32)
    m1, m2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
    return np.asarray(m1), np.asarray(m2)
