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


def _candidates(gray: np.ndarray, dark: bool, min_area: float, max_area: float) -> list[Pip]:
    work = gray if dark else 255 - gray
    blur = cv2.GaussianBlur(work, (3, 3), 0)
    block = max(15, round(min(gray.shape) / 16) | 1)
    mask = cv2.adaptiveThreshold(
        blur, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 16
    )
    contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    h, w = gray.shape
    out: list[Pip] = []
    for contour in contours:
        area = float(cv2.contourArea(contour))
        if area < min_area or area > max_area or len(contour) < 5:
            continue
        perimeter = float(cv2.arcLength(contour, True))
        circularity = 4.0 * np.pi * area / max(perimeter * perimeter, 1e-6)
        if circularity < 0.45:
            continue
        (cx, cy), (ax1, ax2), angle = cv2.fitEllipse(contour)
        major, minor = max(ax1, ax2), min(ax1, ax2)
        if minor < 1.5 or major > 4.0 * np.sqrt(area):
            continue
        x0, y0, bw, bh = cv2.boundingRect(contour)
        if x0 <= 1 or y0 <= 1 or x0 + bw >= w - 1 or y0 + bh >= h - 1:
            continue  # cut by the picture's edge: not a whole pip
        pad = int(max(bw, bh) * 0.6) + 2
        xa, ya = max(0, x0 - pad), max(0, y0 - pad)
        xb, yb = min(w, x0 + bw + pad), min(h, y0 + bh + pad)
        patch = blur[ya:yb, xa:xb]
        inner = np.zeros(patch.shape, np.uint8)
        cv2.drawContours(inner, [contour - np.array([xa, ya])], -1, 255, -1)
        grown = cv2.dilate(inner, np.ones((5, 5), np.uint8), iterations=max(1, pad // 4))
        ring = (grown > 0) & (cv2.dilate(inner, np.ones((3, 3), np.uint8)) == 0)
        if ring.sum() < 8 or (inner > 0).sum() == 0:
            continue
        ring_vals = patch[ring].astype(np.float32)
        inside = float(patch[inner > 0].astype(np.float32).mean())
        ring_level = float(np.median(ring_vals))
        contrast = (ring_level - inside) / 255.0
        if contrast < 0.08:
            continue
        spread = float(np.percentile(ring_vals, 80) - np.percentile(ring_vals, 20)) / 255.0
        out.append(
            Pip(float(cx), float(cy), area, float(major), float(minor), float(angle),
                float(circularity), float(contrast), spread, ring_level / 255.0, dark)
        )
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
