"""Whether a die lies on a checker (BG-ROLL-2): a checker's rim circling it, edged all round."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.dice.face_fit import warp_patch
from vision.dice.pips import to_gray
from vision.geometry import BoardGeometry

RIM_SUPPORT_MIN = 0.6  # share of a checker's rim (away from the die) that must show an edge
RIM_EDGE_MIN = 40.0  # Sobel magnitude of a rim edge on the blurred 1.5 px/mm patch


def on_checker(image: np.ndarray, from_mm: np.ndarray, x: float, y: float,
               geometry: BoardGeometry) -> bool:
    """True when a checker's rim circles the die: it lies on that checker."""
    r = geometry.checker_diameter_mm / 2
    ppm = 1.5
    size = 4.4 * r
    patch = warp_patch(image, from_mm, x, y, size, ppm)
    gray = cv2.GaussianBlur(to_gray(patch), (5, 5), 1.2)
    circles = cv2.HoughCircles(gray, cv2.HOUGH_GRADIENT, dp=1, minDist=r * ppm * 0.5,
                               param1=60, param2=12, minRadius=int(r * ppm * 0.88),
                               maxRadius=int(r * ppm * 1.12) + 1)
    if circles is None:
        return False
    centre = size * ppm / 2
    limit = (r - geometry.die_size_mm * 0.55) * ppm
    near = [c for c in circles[0] if math.hypot(c[0] - centre, c[1] - centre) < limit]
    if not near:
        return False
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = cv2.magnitude(gx, gy)
    return any(rim_support(magnitude, float(cx), float(cy), float(rad), centre,
                            geometry.die_size_mm * ppm) >= RIM_SUPPORT_MIN
               for cx, cy, rad in near)


def rim_support(magnitude: np.ndarray, cx: float, cy: float, radius: float, die_centre: float,
                 die_px: float) -> float:
    """Share of a circle's rim, away from the die, with a clear edge: a checker's rim is edged
    all round, while a circle the Hough vote made up from the die's sides and nearby stacks
    is not (such circles had a die beside a stack called "on a checker")."""
    angles = np.linspace(0.0, 2 * np.pi, 72, endpoint=False)
    xs = cx + radius * np.cos(angles)
    ys = cy + radius * np.sin(angles)
    clear = np.maximum(np.abs(xs - die_centre), np.abs(ys - die_centre)) > 0.8 * die_px
    h, w = magnitude.shape
    inside = clear & (xs >= 1) & (ys >= 1) & (xs < w - 2) & (ys < h - 2)
    if inside.sum() < 12:
        return 0.0
    xi, yi = xs[inside], ys[inside]
    best = np.zeros(len(xi), np.float32)
    for dr in (-1.0, 0.0, 1.0):  # the rim within a pixel of the fitted circle
        px = np.clip(np.round(xi + dr * np.cos(angles[inside])).astype(int), 0, w - 1)
        py = np.clip(np.round(yi + dr * np.sin(angles[inside])).astype(int), 0, h - 1)
        best = np.maximum(best, magnitude[py, px])
    return float((best > RIM_EDGE_MIN).mean())
