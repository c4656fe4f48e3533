"""The doubling cube: a prop for the renderer (:class:`CubeProp`), the reading a search gives
(:class:`CubeReading`) and its place: ``centre`` (middle of the bar), the side of the player
who owns it (the bar end next to them), ``offered`` (on the playing surface, where the doubler
puts it, BG-CUBE-3) or ``off-board`` (beside the board, the Crawford game).

The reader is split by what it does: the face's number (``vision.cube_face``), the squares a
cube may lie in (``vision.cube_squares``), the searches of a frame or raster
(``vision.cube_search``) and of the dice pass's strips (``vision.cube_strips``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

from engine.errors import InvalidInputError
from vision.cube_face import CUBE_VALUES, number_glyph
from vision.geometry import BoardGeometry, Canonical

CubeZone = Literal["centre", "darker-side", "lighter-side", "offered", "off-board"]


@dataclass(frozen=True)
class CubeProp:
    """The doubling cube lying on the board at (x, y) mm, showing ``value``, turned by yaw."""

    x_mm: float
    y_mm: float
    value: int = 64
    yaw_deg: float = 0.0
    body_bgr: tuple[int, int, int] = (238, 240, 240)
    ink_bgr: tuple[int, int, int] = (25, 25, 25)
    font: int = cv2.FONT_HERSHEY_SIMPLEX
    size_mm: float | None = None
    occludes: bool = False

    def __post_init__(self) -> None:
        if self.value not in CUBE_VALUES:
            raise InvalidInputError(f"cube value {self.value} is not one of {CUBE_VALUES}")

    def draw(self, canvas: np.ndarray, canonical: Canonical, rng: np.random.Generator
             ) -> np.ndarray | None:
        """Paint the cube's upward face (with a contact shadow) into the canonical raster."""
        size_mm = self.size_mm or canonical.geometry.cube_size_mm
        side = size_mm * canonical.px_per_mm
        cx, cy = canonical.mm_to_px(self.x_mm, self.y_mm)
        n = max(16, round(side) * 3)
        glyph = number_glyph(self.value, n, self.font, float(rng.uniform(0.85, 1.25)))
        ink = (255 - glyph).astype(np.float32)[:, :, None] / 255.0
        body = np.array(self.body_bgr, np.float32) * float(rng.uniform(0.92, 1.0))
        face = body * (1 - ink) + np.array(self.ink_bgr, np.float32) * ink
        # rounded, slightly darker edges
        frame = np.zeros((n, n), np.float32)
        cv2.rectangle(frame, (0, 0), (n - 1, n - 1), 1.0, max(2, n // 16))
        edge = cv2.GaussianBlur(frame, (0, 0), n / 40)[:, :, None]
        face = face * (1 - 0.35 * edge)
        a = math.radians(self.yaw_deg)
        ca, sa = math.cos(a), math.sin(a)
        half = side / 2
        corners = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
        rotated = corners @ np.array([[ca, sa], [-sa, ca]]) + np.array([cx, cy])
        src = np.array([[0, 0], [n - 1, 0], [n - 1, n - 1], [0, n - 1]], np.float32)
        m = cv2.getPerspectiveTransform(src, rotated.astype(np.float32))
        h, w = canvas.shape[:2]
        # soft shadow first
        shadow = np.zeros((h, w), np.uint8)
        off = np.array([0.08, 0.1]) * side
        cv2.fillPoly(shadow, [np.round((rotated + off) * 16).astype(np.int32)], 255,
                     cv2.LINE_AA, 4)
        shadow_f = cv2.GaussianBlur(shadow, (0, 0), max(1.0, side * 0.06)).astype(np.float32)
        canvas[:] = np.clip(canvas * (1 - 0.4 * shadow_f[:, :, None] / 255.0), 0, 255
                            ).astype(np.uint8)
        warped = cv2.warpPerspective(face, m, (w, h), flags=cv2.INTER_AREA)
        mask = cv2.warpPerspective(np.ones((n, n), np.float32), m, (w, h), flags=cv2.INTER_AREA)
        mask = mask[:, :, None]
        canvas[:] = np.clip(canvas * (1 - mask) + warped * mask, 0, 255).astype(np.uint8)
        return None


@dataclass(frozen=True)
class CubeReading:
    """The cube found: its value, its centre (board mm and image px), its zone, a confidence."""

    value: int
    centre_mm: tuple[float, float]
    centre_px: tuple[float, float]
    zone: CubeZone
    place: str  # geometry's name: centre, top-side, bottom-side, offered, off-board
    confidence: float

    def as_json(self) -> dict[str, object]:
        """The ``cube`` field of ``hakem vision read``."""
        return {
            "value": self.value,
            "centre": [round(self.centre_px[0], 1), round(self.centre_px[1], 1)],
            "zone": self.zone,
        }


def cube_place(geometry: BoardGeometry, x: float, y: float) -> str:
    """Where a cube centred at (x, y) mm lies: centre, top-side, bottom-side, offered, off-board."""
    for place in ("top-side", "bottom-side", "centre"):
        if geometry.cube_place(place).contains(x, y):
            return place
    if geometry.playing_area.contains(x, y):
        return "offered"
    return "off-board"


def zone_for(place: str, darker_at_top: bool | None) -> CubeZone:
    """The DESIGN.md zone name: a side becomes the darker or lighter player's side.

    ``darker_at_top`` says whether the player of the darker checkers sits at the top of the
    picture; unknown (None) is taken as the darker player at the bottom.
    """
    if place == "centre":
        return "centre"
    if place == "offered":
        return "offered"
    if place == "off-board":
        return "off-board"
    top_is_darker = bool(darker_at_top)
    if place == "top-side":
        return "darker-side" if top_is_darker else "lighter-side"
    return "lighter-side" if top_is_darker else "darker-side"
