"""Pip candidates: small round blobs that contrast with the die face around them.

Works for dark pips on light dice and, on the inverted image, light pips on dark dice, so no
board, surface or die colour is assumed.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engine.errors import ImageError


@dataclass(frozen=True)
class Pip:
    """One pip candidate: centre, area, ellipse axes and how it stands out from its ring."""

    x: float
    y: float
    area: float
    major: float
    minor: float
    angle: float
    circularity: float
    contrast: float
    ring_spread: float
    ring_level: float
    dark: bool

    @property
    def diameter(self) -> float:
        """Mean ellipse diameter in pixels."""
        return 0.5 * (self.major + self.minor)

    @property
    def ratio(self) -> float:
        """Minor over major axis: 1 for a pip seen face on."""
        return self.minor / max(self.major, 1e-6)


def to_gray(image: np.ndarray) -> np.ndarray:
    """An 8-bit grey image from a grey or BGR array, refusing anything else."""
    if not isinstance(image, np.ndarray) or image.size == 0:
        raise ImageError("image is empty")
    if image.ndim == 2:
        gray = image
    elif image.ndim == 3 and image.shape[2] in (3, 4):
        gray = cv2.cvtColor(image[:, :, :3], cv2.COLOR_BGR2GRAY)
    else:
        raise ImageError(f"image has unsupported shape {image.shape}")
    if gray.dtype != np.uint8:
        gray = np.clip(gray, 0, 255).astype(np.uint8)
    return gray


#: Adaptive-threshold offsets, loosest first. Blurred pips of one face run together at the
#: loosest level; the stricter levels cut such a blob down to the pips' dark cores.
LEVELS = (16, 30, 46)


#: Why a contour is no pip: ``SPLIT`` when it may be pips run together (too big or not round:
#: a stricter level looks inside it), ``FINAL`` otherwise (too small, cut by the picture's
#: edge, too faint).
SPLIT, FINAL = "split", "final"


def _measure(contour: np.ndarray, blur: np.ndarray, min_area: float, max_area: float,
             dark: bool) -> Pip | str:
    """The pip a contour outlines, or why it is none (``SPLIT`` or ``FINAL``)."""
    h, w = blur.shape
    area = float(cv2.contourArea(contour))
    if area < min_area or len(contour) < 5:
        return FINAL
    if area > max_area:
        return SPLIT
    perimeter = float(cv2.arcLength(contour, True))
    circularity = 4.0 * np.pi * area / max(perimeter * perimeter, 1e-6)
    if circularity < 0.45:
        return SPLIT
    (cx, cy), (ax1, ax2), angle = cv2.fitEllipse(contour)
    major, minor = max(ax1, ax2), min(ax1, ax2)
    if minor < 1.5:
        return FINAL
    if major > 4.0 * np.sqrt(area):
        return SPLIT
    x0, y0, bw, bh = cv2.boundingRect(contour)
    if x0 <= 1 or y0 <= 1 or x0 + bw >= w - 1 or y0 + bh >= h - 1:
        return FINAL  # cut by the picture's edge: not a whole pip
    pad = int(max(bw, bh) * 0.6) + 2
    xa, ya = max(0, x0 - pad), max(0, y0 - pad)
    xb, yb = min(w, x0 + bw + pad), min(h, y0 + bh + pad)
    patch = blur[ya:yb, xa:xb]
    inner = np.zeros(patch.shape, np.uint8)
    cv2.drawContours(inner, [contour - np.array([xa, ya])], -1, 255, -1)
    grown = cv2.dilate(inner, np.ones((5, 5), np.uint8), iterations=max(1, pad // 4))
    ring = (grown > 0) & (cv2.dilate(inner, np.ones((3, 3), np.uint8)) == 0)
    if ring.sum() < 8 or (inner > 0).sum() == 0:
        return FINAL
    ring_vals = patch[ring].astype(np.float32)
    inside = float(patch[inner > 0].astype(np.float32).mean())
    ring_level = float(np.median(ring_vals))
    contrast = (ring_level - inside) / 255.0
    if contrast < 0.08:
        return FINAL
    spread = float(np.percentile(ring_vals, 80) - np.percentile(ring_vals, 20)) / 255.0
    return Pip(float(cx), float(cy), area, float(major), float(minor), float(angle),
               float(circularity), float(contrast), spread, ring_level / 255.0, dark)


def _candidates(gray: np.ndarray, dark: bool, min_area: float, max_area: float) -> list[Pip]:
    """Pip-shaped dark blobs at each threshold level. A stricter level only looks inside blobs
    too big or not round enough at the looser level, and keeps what it finds there only when
    one such blob comes apart into two pips or more (a blurred face's pips run together)."""
    work = gray if dark else 255 - gray
    blur = cv2.GaussianBlur(work, (3, 3), 0)
    block = max(15, round(min(gray.shape) / 16) | 1)
    claimed = np.zeros(gray.shape, np.uint8)
    out: list[Pip] = []
    parents: np.ndarray | None = None
    for level, offset in enumerate(LEVELS):
        mask = cv2.adaptiveThreshold(
            blur, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, offset
        )
        if parents is not None:
            mask[claimed > 0] = 0
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        found: dict[int, list[Pip]] = {}
        for contour in contours:
            pip = _measure(contour, blur, min_area, max_area, dark)
            if isinstance(pip, Pip):
                x, y = contour[0, 0]
                found.setdefault(0 if parents is None else int(parents[y, x]), []).append(pip)
            if pip != SPLIT:
                cv2.drawContours(claimed, [contour], -1, 255, -1)
        for pips in found.values():
            if parents is None or len(pips) >= 2:
                out.extend(pips)
        if level + 1 < len(LEVELS):
            split_blobs = mask.copy()
            split_blobs[claimed > 0] = 0
            parents = cv2.connectedComponents(split_blobs, connectivity=8)[1]
    return out


def find_pips(image: np.ndarray, *, both_polarities: bool = True) -> list[Pip]:
    """Every pip candidate in an image (dark pips, and light pips on dark dice if asked)."""
    gray = to_gray(image)
    scale = min(gray.shape) / 480.0
    min_area, max_area = 5.0 * scale * scale, 900.0 * scale * scale
    pips = _candidates(gray, True, min_area, max_area)
    if both_polarities:
        pips += _candidates(gray, False, min_area, max_area)
    return pips
