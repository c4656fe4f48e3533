"""Image formation: the canonical board seen by a tilted camera with lens distortion, then
uneven light, glare, shadows, blur, sensor noise and JPEG compression."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from engine.errors import ImageError
from vision.geometry import Canonical
from vision.render.scene import CameraSpec


@dataclass(frozen=True)
class CameraModel:
    """Canvas pixels to image pixels: a homography followed by radial distortion ``k1``."""

    homography: np.ndarray  # canvas px -> undistorted image px
    k1: float
    image_size: tuple[int, int]

    @property
    def _centre_and_norm(self) -> tuple[float, float, float]:
        w, h = self.image_size
        return (w / 2.0, h / 2.0, math.hypot(w / 2.0, h / 2.0))

    def distort(self, pts: np.ndarray) -> np.ndarray:
        """Undistorted image points to where the lens puts them (inverse of the sampling map)."""
        cx, cy, norm = self._centre_and_norm
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        q = np.stack([(p[:, 0] - cx) / norm, (p[:, 1] - cy) / norm], axis=1)
        d = q.copy()
        for _ in range(30):
            r2 = (d**2).sum(axis=1, keepdims=True)
            d = q / (1.0 + self.k1 * r2)
        return np.stack([d[:, 0] * norm + cx, d[:, 1] * norm + cy], axis=1)

    def canvas_to_image(self, pts: np.ndarray) -> np.ndarray:
        """Canvas pixel points to final image pixel points."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 1, 2)
        und = cv2.perspectiveTransform(p, self.homography).reshape(-1, 2)
        return self.distort(und)

    def sampling_maps(self) -> tuple[np.ndarray, np.ndarray]:
        """For every image pixel, the canvas pixel it shows (for ``cv2.remap``)."""
        w, h = self.image_size
        cx, cy, norm = self._centre_and_norm
        xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        qx = (xs - cx) / norm
        qy = (ys - cy) / norm
        f = 1.0 + self.k1 * (qx * qx + qy * qy)
        ux = qx * f * norm + cx
        uy = qy * f * norm + cy
        hinv = np.linalg.inv(self.homography)
        den = hinv[2, 0] * ux + hinv[2, 1] * uy + hinv[2, 2]
        mx = (hinv[0, 0] * ux + hinv[0, 1] * uy + hinv[0, 2]) / den
        my = (hinv[1, 0] * ux + hinv[1, 1] * uy + hinv[1, 2]) / den
        return mx.astype(np.float32), my.astype(np.float32)


def camera_model(canonical: Canonical, spec: CameraSpec) -> CameraModel:
    """Place the playing surface in the picture as ``spec`` says."""
    g = canonical.geometry
    wp = spec.playing_width_px
    hp = wp * g.height_mm / g.width_mm
    base = np.array([[-wp / 2, -hp / 2], [wp / 2, -hp / 2], [wp / 2, hp / 2], [-wp / 2, hp / 2]])
    a = math.radians(spec.rotation_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    pts = base @ rot.T + np.array(spec.centre_px)
    pts = pts + np.array(spec.corner_jitter, dtype=np.float64) * wp
    src = canonical.points_mm_to_px(g.corners_mm)
    h = cv2.getPerspectiveTransform(src.astype(np.float32), pts.astype(np.float32))
    return CameraModel(h, spec.k1, spec.image_size)


def photograph(canvas: np.ndarray, model: CameraModel, spec: CameraSpec,
               rng: np.random.Generator) -> np.ndarray:
    """The camera's picture of the canvas (before JPEG), on a table cloth."""
    w, h = spec.image_size
    table = np.empty((h, w, 3), np.float32)
    table[:] = spec.table_colour
    weave = cv2.GaussianBlur(rng.normal(0, 6, (h, w)).astype(np.float32), (0, 0), 1.5)
    table += weave[..., None]
    img = np.clip(table, 0, 255).astype(np.uint8)
    mx, my = model.sampling_maps()
    cv2.remap(canvas, mx, my, cv2.INTER_LINEAR, dst=img, borderMode=cv2.BORDER_TRANSPARENT)
    out = img.astype(np.float32)
    # uneven light
    if spec.light_gradient:
        xs = (np.arange(w, dtype=np.float32) - w / 2) / (w / 2)
        ys = (np.arange(h, dtype=np.float32) - h / 2) / (w / 2)
        a = math.radians(spec.light_angle_deg)
        gain = 1.0 + spec.light_gradient * 0.5 * (
            math.cos(a) * xs[None, :] + math.sin(a) * ys[:, None]
        )
        out *= gain[..., None]
    for gx, gy, sigma, amp in spec.glare:
        xs = np.arange(w, dtype=np.float32) - gx
        ys = np.arange(h, dtype=np.float32) - gy
        spot = np.exp(-(ys[:, None] ** 2 + xs[None, :] ** 2) / (2 * sigma * sigma)) * amp
        out += spot[..., None]
    if spec.shadow and spec.shadow_strength:
        m = np.zeros((h, w), np.uint8)
        cv2.fillPoly(m, [np.array(spec.shadow, np.int32)], 255)
        soft = cv2.GaussianBlur(m, (0, 0), 25).astype(np.float32) / 255.0
        out *= (1.0 - spec.shadow_strength * soft)[..., None]
    if spec.blur_sigma > 0.05:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), spec.blur_sigma), dtype=np.float32)
    if spec.noise_sigma > 0:
        out += rng.normal(0.0, spec.noise_sigma, out.shape).astype(np.float32)
    result: np.ndarray = np.clip(out, 0, 255).astype(np.uint8)
    return result


def jpeg_round_trip(img: np.ndarray, quality: int) -> tuple[np.ndarray, bytes]:
    """Compress as a camera would; returns the decoded picture and the JPEG bytes."""
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:  # pragma: no cover - OpenCV always encodes a valid uint8 BGR array
        raise ImageError("jpeg encoding failed")
    data = buf.tobytes()
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if decoded is None:  # pragma: no cover - a fresh encoding always decodes
        raise ImageError("jpeg decoding failed")
    return np.asarray(decoded), data
