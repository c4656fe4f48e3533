"""Dice as props for the synthetic scene renderer: a 3-D die seen from straight above.

A :class:`DieProp` is drawn in canonical top-down space (before the camera warp) at any yaw,
tilted by a chosen angle about a chosen axis (a cocked die leaning on a checker, the rail or the
other die), lifted onto a checker, opaque with painted pips or translucent with the pips of the
hidden faces showing through. Faces are shaded by how much they face the light; the die's
silhouette gets rounded-edge shading and a soft contact shadow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Protocol

import cv2
import numpy as np

from engine.errors import DiceError

Material = Literal["opaque", "translucent"]

# Face normals of a die in its own frame and the value printed on each (opposite faces sum 7).
FACE_NORMALS: dict[int, tuple[float, float, float]] = {
    1: (0.0, 0.0, 1.0), 6: (0.0, 0.0, -1.0),
    2: (1.0, 0.0, 0.0), 5: (-1.0, 0.0, 0.0),
    3: (0.0, 1.0, 0.0), 4: (0.0, -1.0, 0.0),
}

# Pip centres on a face, in units of the face side, from the face centre.
PIP_LAYOUTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.0, 0.0),),
    2: ((-1.0, -1.0), (1.0, 1.0)),
    3: ((-1.0, -1.0), (0.0, 0.0), (1.0, 1.0)),
    4: ((-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)),
    5: ((-1.0, -1.0), (1.0, -1.0), (0.0, 0.0), (-1.0, 1.0), (1.0, 1.0)),
    6: ((-1.0, -1.0), (1.0, -1.0), (-1.0, 0.0), (1.0, 0.0), (-1.0, 1.0), (1.0, 1.0)),
}
PIP_OFFSET = 0.26  # pip centre distance from the face centre along each axis, per face side
PIP_RADIUS = 0.085  # pip radius per face side
CAMERA_HEIGHT_MM = 700.0  # for the slight enlargement of a die lifted onto a checker


class CanonicalLike(Protocol):
    """What a prop needs of the canonical raster (``vision.geometry.Canonical`` fits)."""

    @property
    def px_per_mm(self) -> float: ...

    def mm_to_px(self, x: float, y: float) -> tuple[float, float]: ...


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation matrix about a unit axis (Rodrigues)."""
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    out: np.ndarray = np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)
    return out


def _face_up(value: int) -> np.ndarray:
    """A rotation bringing the face ``value`` to +z (towards the camera)."""
    n = np.array(FACE_NORMALS[value])
    z = np.array([0.0, 0.0, 1.0])
    if np.allclose(n, z):
        return np.eye(3)
    if np.allclose(n, -z):
        return _rotation(np.array([1.0, 0.0, 0.0]), math.pi)
    axis = np.cross(n, z)
    return _rotation(axis, math.acos(float(np.clip(n @ z, -1, 1))))


def _face_axes(normal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two in-plane unit axes of a face (fixed per face, so pip layouts are consistent)."""
    helper = np.array([0.0, 0.0, 1.0]) if abs(normal[2]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = np.cross(helper, normal)
    u /= np.linalg.norm(u)
    return u, np.cross(normal, u)


@dataclass(frozen=True)
class DieProp:
    """One die on the board: where (board mm), which face up, how it is turned and tilted.

    ``tilt_deg`` 0 is a die resting flat; a cocked die leans by ``tilt_deg`` about the horizontal
    axis at ``tilt_axis_deg``. ``elevation_mm`` > 0 lifts it (lying on a checker).
    """

    x_mm: float
    y_mm: float
    value: int
    yaw_deg: float = 0.0
    tilt_deg: float = 0.0
    tilt_axis_deg: float = 0.0
    material: Material = "opaque"
    body_bgr: tuple[int, int, int] = (235, 240, 242)
    pip_bgr: tuple[int, int, int] = (30, 30, 30)
    size_mm: float = 16.0
    elevation_mm: float = 0.0
    alpha: float = 0.6  # translucent dice: how much of the body colour covers what is behind

    def __post_init__(self) -> None:
        if self.value not in FACE_NORMALS:
            raise DiceError(f"die value {self.value} is not 1..6")

    @property
    def flat(self) -> bool:
        """True when the die rests flat (its top face parallel to the board)."""
        return abs(self.tilt_deg) < 1e-6

    def rotation(self) -> np.ndarray:
        """Die frame to board frame: face up, then yaw, then tilt."""
        yaw = _rotation(np.array([0.0, 0.0, 1.0]), math.radians(self.yaw_deg))
        a = math.radians(self.tilt_axis_deg)
        tilt = _rotation(np.array([math.cos(a), math.sin(a), 0.0]), math.radians(self.tilt_deg))
        out: np.ndarray = tilt @ yaw @ _face_up(self.value)
        return out

    def upward_value(self) -> int:
        """The face most nearly facing up (what a reader should report)."""
        rot = self.rotation()
        return max(FACE_NORMALS, key=lambda v: float((rot @ np.array(FACE_NORMALS[v]))[2]))

    def draw(self, canvas_bgr: np.ndarray, geometry: CanonicalLike, rng: np.random.Generator
             ) -> None:
        """Draw the die into a canonical raster in place (``rng`` varies the light slightly)."""
        scale = geometry.px_per_mm * CAMERA_HEIGHT_MM / (CAMERA_HEIGHT_MM - self.elevation_mm)
        side = self.size_mm * scale
        cx, cy = geometry.mm_to_px(self.x_mm, self.y_mm)
        _draw_die(canvas_bgr, (cx, cy), side, self, rng)


def leaning_reach(size_mm: float, tilt_deg: float) -> float:
    """How far a die tilted by ``tilt_deg`` reaches from its centre towards what it leans on
    (half its side along the board, rotated): where to put its centre to touch a checker or
    the rail."""
    t = math.radians(tilt_deg)
    return 0.5 * size_mm * (math.cos(t) + math.sin(t))


SS = 4  # supersampling factor of the local patch


def _poly(points: np.ndarray) -> np.ndarray:
    return np.round(points * 16).astype(np.int32).reshape(-1, 1, 2)


def _draw_die(canvas: np.ndarray, centre: tuple[float, float], side: float, die: DieProp,
              rng: np.random.Generator) -> None:
    rot = die.rotation()
    half = math.ceil(side * 1.1) + 3
    x0, y0 = int(centre[0]) - half, int(centre[1]) - half
    size = 2 * half
    big = size * SS
    light = np.array([-0.35, -0.45, 0.82]) + rng.normal(0.0, 0.03, 3)
    light /= np.linalg.norm(light)

    def to_px(p: np.ndarray) -> np.ndarray:
        q = (rot @ p.T).T * side
        return np.stack([(q[:, 0] + centre[0] - x0) * SS, (q[:, 1] + centre[1] - y0) * SS], 1)

    region = canvas[max(y0, 0):y0 + size, max(x0, 0):x0 + size]
    if region.shape[0] != size or region.shape[1] != size:
        padded = np.zeros((size, size, 3), np.uint8)
        oy, ox = max(0, -y0), max(0, -x0)
        padded[oy:oy + region.shape[0], ox:ox + region.shape[1]] = region
        region_big = cv2.resize(padded, (big, big), interpolation=cv2.INTER_LINEAR)
    else:
        region_big = cv2.resize(region, (big, big), interpolation=cv2.INTER_LINEAR)
    img: np.ndarray = region_big.astype(np.float32)

    # contact shadow under the die, offset away from the light
    corners = np.array([[sx, sy, sz] for sx in (-.5, .5) for sy in (-.5, .5) for sz in (-.5, .5)])
    hull = cv2.convexHull(to_px(corners).astype(np.float32)).reshape(-1, 2)
    shift = np.array([0.10, 0.12]) * side * SS * (1.0 + die.elevation_mm / 8.0)
    shadow = np.zeros((big, big), np.uint8)
    cv2.fillPoly(shadow, [_poly(hull + shift)], 255, cv2.LINE_AA, 4)
    shadow_f = cv2.GaussianBlur(shadow, (0, 0), side * SS * 0.08).astype(np.float32) / 255.0
    img *= (1.0 - 0.45 * shadow_f)[:, :, None]

    body = np.array(die.body_bgr, np.float32)
    pip_col = np.array(die.pip_bgr, np.float32)
    faces = sorted(FACE_NORMALS.items(), key=lambda kv: float((rot @ np.array(kv[1]))[2]))
    translucent = die.material == "translucent"
    silhouette = np.zeros((big, big), np.uint8)
    cv2.fillPoly(silhouette, [_poly(hull)], 255, cv2.LINE_AA, 4)

    def pip_polys(value: int, normal: np.ndarray) -> list[np.ndarray]:
        u, v = _face_axes(normal)
        t = np.linspace(0, 2 * math.pi, 20, endpoint=False)
        out = []
        for a, b in PIP_LAYOUTS[value]:
            c = normal * 0.5 + (a * u + b * v) * PIP_OFFSET
            ring = c + PIP_RADIUS * (np.cos(t)[:, None] * u + np.sin(t)[:, None] * v)
            out.append(to_px(ring))
        return out

    if translucent:
        # the body tints what lies behind it, hidden faces' pips show through faintly
        sil = cv2.GaussianBlur(silhouette, (3, 3), 0).astype(np.float32)[:, :, None] / 255.0
        img = img * (1 - sil * die.alpha) + body * sil * die.alpha
        for value, n in faces:
            normal = np.array(n)
            if (rot @ normal)[2] > 1e-3:
                continue
            mask = np.zeros((big, big), np.uint8)
            for poly in pip_polys(value, normal):
                cv2.fillPoly(mask, [_poly(poly)], 255, cv2.LINE_AA, 4)
            # seen through the body: tinted by it, out of focus and faint
            blurred = cv2.GaussianBlur(mask, (0, 0), side * SS * 0.03)
            m = blurred.astype(np.float32)[:, :, None] / 255.0 * 0.3
            img = img * (1 - m) + (0.5 * pip_col + 0.5 * body) * m
    for value, n in faces:
        normal = np.array(n)
        nz = float((rot @ normal)[2])
        if nz <= 1e-3:
            continue
        u, v = _face_axes(normal)
        quad = np.array([normal * 0.5 + su * u * 0.5 + sv * v * 0.5
                         for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
        shade = 0.55 + 0.45 * max(0.0, float((rot @ normal) @ light))
        mask = np.zeros((big, big), np.uint8)
        cv2.fillPoly(mask, [_poly(to_px(quad))], 255, cv2.LINE_AA, 4)
        m = mask.astype(np.float32)[:, :, None] / 255.0
        face_alpha = die.alpha * 0.6 if translucent else 1.0
        img = img * (1 - m * face_alpha) + body * shade * m * face_alpha
        edge = np.zeros((big, big), np.uint8)
        cv2.polylines(edge, [_poly(to_px(quad))], True, 255, max(1, int(side * SS * 0.05)),
                      cv2.LINE_AA, 4)
        e = cv2.GaussianBlur(edge, (0, 0), side * SS * 0.02).astype(np.float32)[:, :, None]
        e = (e / 255.0 * m * 0.35).astype(np.float32)
        img = img * (1 - e) + body * shade * 0.55 * e
        pmask = np.zeros((big, big), np.uint8)
        for poly in pip_polys(value, normal):
            cv2.fillPoly(pmask, [_poly(poly)], 255, cv2.LINE_AA, 4)
        pm = pmask.astype(np.float32)[:, :, None] / 255.0
        img = img * (1 - pm) + pip_col * (0.6 + 0.4 * shade) * pm

    small = cv2.resize(np.clip(img, 0, 255).astype(np.uint8), (size, size),
                       interpolation=cv2.INTER_AREA)
    ys, xs = max(y0, 0), max(x0, 0)
    oy, ox = ys - y0, xs - x0
    h = min(size - oy, canvas.shape[0] - ys)
    w = min(size - ox, canvas.shape[1] - xs)
    if h > 0 and w > 0:
        canvas[ys:ys + h, xs:xs + w] = small[oy:oy + h, ox:ox + w]
