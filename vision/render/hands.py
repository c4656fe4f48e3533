"""Hands and arms over the board, drawn in canonical space; each returns the mask it hides."""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import Canonical
from vision.render.scene import BGR, HandSpec


def _shade(c: BGR, f: float) -> BGR:
    return (int(min(255, c[0] * f)), int(min(255, c[1] * f)), int(min(255, c[2] * f)))


def draw_hand(canvas: np.ndarray, canonical: Canonical, hand: HandSpec,
              rng: np.random.Generator) -> np.ndarray:
    """An arm (sleeve, wrist) ending in a hand with fingers; returns its uint8 mask."""
    s = canonical.px_per_mm
    ex, ey = hand.entry_mm
    tx, ty = hand.tip_mm
    v = np.array([tx - ex, ty - ey], dtype=np.float64)
    length = float(np.hypot(*v))
    u = v / length
    n = np.array([-u[1], u[0]])
    w = hand.width_mm
    palm_len = 95.0
    wrist = np.array([tx, ty]) - u * (palm_len + 55.0)
    sleeve_end = wrist - u * 40.0
    mask = np.zeros(canvas.shape[:2], np.uint8)

    def px(p: np.ndarray) -> list[int]:
        a, b = canonical.mm_to_px(float(p[0]), float(p[1]))
        return [round(a), round(b)]

    start = np.array([ex, ey])
    # forearm skin between sleeve and palm
    fore = [start + n * w * 0.4, wrist + n * w * 0.33, wrist - n * w * 0.33, start - n * w * 0.4]
    layer = canvas.copy()
    cv2.fillPoly(layer, [np.array([px(p) for p in fore], np.int32)], hand.skin, cv2.LINE_AA)
    cv2.fillPoly(mask, [np.array([px(p) for p in fore], np.int32)], 255)
    sleeve = [start + n * w * 0.6, sleeve_end + n * w * 0.5, sleeve_end - n * w * 0.5,
              start - n * w * 0.6]
    cv2.fillPoly(layer, [np.array([px(p) for p in sleeve], np.int32)], hand.sleeve, cv2.LINE_AA)
    cv2.fillPoly(mask, [np.array([px(p) for p in sleeve], np.int32)], 255)
    # palm
    palm_c = wrist + u * palm_len * 0.45
    ang = float(np.degrees(np.arctan2(u[1], u[0])))
    axes = (int(palm_len * 0.5 * s), int(w * 0.42 * s))
    centre = tuple(px(palm_c))
    cv2.ellipse(layer, centre, axes, ang, 0, 360, hand.skin, -1, cv2.LINE_AA)
    cv2.ellipse(mask, centre, axes, ang, 0, 360, 255, -1)
    # fingers, spread a little
    for k in range(4):
        spread = (k - 1.5) * 0.16 + float(rng.uniform(-0.05, 0.05))
        dirv = u * np.cos(spread) + n * np.sin(spread)
        base = palm_c + n * (k - 1.5) * w * 0.2 + u * palm_len * 0.3
        tip = base + dirv * float(rng.uniform(55, 80))
        th = max(2, int(17 * s))
        cv2.line(layer, tuple(px(base)), tuple(px(tip)), _shade(hand.skin, 0.97), th, cv2.LINE_AA)
        cv2.line(mask, tuple(px(base)), tuple(px(tip)), 255, th)
    thumb_base = palm_c - n * w * 0.35
    thumb_tip = thumb_base + (u * 0.5 - n * 0.8) * 55.0
    th = max(2, int(20 * s))
    cv2.line(layer, tuple(px(thumb_base)), tuple(px(thumb_tip)), hand.skin, th, cv2.LINE_AA)
    cv2.line(mask, tuple(px(thumb_base)), tuple(px(thumb_tip)), 255, th)
    # soft shading: darker along the edges of the arm
    noise = np.asarray(cv2.GaussianBlur(rng.normal(0.0, 6.0, canvas.shape[:2]).astype(np.float32),
                                        (0, 0), 3.0))
    shaded = np.clip(layer.astype(np.float32) + noise[..., None], 0, 255).astype(np.uint8)
    canvas[mask > 0] = shaded[mask > 0]
    return mask
