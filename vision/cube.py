"""The doubling cube: a prop for the renderer, and a reader for its face and its place.

The reader looks for a square of the cube's size (``BoardGeometry.cube_size_mm``) in a
top-down raster of the whole board, reads the number on its upward face (2, 4, 8, 16, 32 or 64;
64 is the centred cube of value 1, BG-CUBE-1) by matching it against glyphs drawn with OpenCV's
fonts at every quarter turn, and names its place: ``centre`` (middle of the bar), the side of
the player who owns it (the bar end next to them), ``offered`` (on the playing surface, where
the doubler puts it, BG-CUBE-3) or ``off-board`` (beside the board, the Crawford game).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import cv2
import numpy as np

from vision.geometry import BoardGeometry, Canonical

CUBE_VALUES = (2, 4, 8, 16, 32, 64)
CubeZone = Literal["centre", "darker-side", "lighter-side", "offered", "off-board"]
READ_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX)
RENDER_FONTS = (*READ_FONTS, cv2.FONT_HERSHEY_COMPLEX)
FACE_PX = 48  # side of the rectified face the reader compares
# below this face-read confidence a square found by the fast path is not taken for the cube
# (synthetic throws: cubes read at 0.15 and above; a marker or a light patch at about 0.1)
MIN_STRIP_CONFIDENCE = 0.12


def _glyph(value: int, side: int, font: int, thickness_scale: float = 1.0) -> np.ndarray:
    """The number as drawn on a cube face: dark ink on white, ``side`` pixels square."""
    face = np.full((side, side), 255, np.uint8)
    text = str(value)
    target = side * (0.62 if len(text) == 1 else 0.78)
    (w, h), _ = cv2.getTextSize(text, font, 1.0, 2)
    scale = target / max(w, h * 1.1)
    thickness = max(1, round(side / 22 * thickness_scale))
    (w, h), _base = cv2.getTextSize(text, font, scale, thickness)
    org = (round((side - w) / 2), round((side + h) / 2))
    cv2.putText(face, text, org, font, scale, 0, thickness, cv2.LINE_AA)
    return face


@lru_cache(maxsize=1)
def _templates() -> tuple[tuple[int, np.ndarray], ...]:
    """Zero-mean, unit-norm templates of every value, font and quarter turn."""
    out = []
    for value in CUBE_VALUES:
        for font in READ_FONTS:
            g = _glyph(value, FACE_PX, font).astype(np.float32)
            for k in range(4):
                t = np.rot90(g, k).copy()
                t -= t.mean()
                t /= np.linalg.norm(t) + 1e-6
                out.append((value, t))
    return tuple(out)


@lru_cache(maxsize=1)
def _template_matrix() -> tuple[np.ndarray, np.ndarray]:
    """:func:`_templates` as one matrix (a row per template) and each row's value."""
    ts = _templates()
    return (np.stack([t.reshape(-1) for _, t in ts]).astype(np.float32),
            np.array([v for v, _ in ts]))


def read_face(face_gray: np.ndarray) -> tuple[int, float]:
    """The cube value shown on a rectified face image and a confidence in 0..1."""
    face = cv2.resize(face_gray, (FACE_PX, FACE_PX), interpolation=cv2.INTER_AREA)
    face = face.astype(np.float32)
    # ink is whichever is rarer: dark on a light cube or light on a dark one
    flat = face.reshape(-1)
    half = len(flat) // 2
    median = float(np.partition(flat, half)[half])
    if median < float(flat.mean()) - 10 or median < 100:
        face = 255 - face
    inner = face.copy()
    border = FACE_PX // 10
    inner[:border], inner[-border:] = 255, 255
    inner[:, :border], inner[:, -border:] = 255, 255
    x = inner - inner.mean()
    x /= np.linalg.norm(x) + 1e-6
    matrix, values = _template_matrix()
    scores = (matrix @ x.reshape(-1)).reshape(len(CUBE_VALUES), -1).max(axis=1)
    order = np.argsort(-scores)
    value = int(values.reshape(len(CUBE_VALUES), -1)[order[0], 0])
    top, second = float(scores[order[0]]), float(scores[order[1]])
    confidence = float(np.clip((top - second) * 6.0, 0.0, 1.0) * np.clip(top * 1.6, 0.0, 1.0))
    return value, confidence


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
            raise ValueError(f"cube value {self.value} is not one of {CUBE_VALUES}")

    def draw(self, canvas: np.ndarray, canonical: Canonical, rng: np.random.Generator
             ) -> np.ndarray | None:
        """Paint the cube's upward face (with a contact shadow) into the canonical raster."""
        size_mm = self.size_mm or canonical.geometry.cube_size_mm
        side = size_mm * canonical.px_per_mm
        cx, cy = canonical.mm_to_px(self.x_mm, self.y_mm)
        n = max(16, round(side) * 3)
        glyph = _glyph(self.value, n, self.font, float(rng.uniform(0.85, 1.25)))
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


def _square_candidates(bgr: np.ndarray, px_per_mm: float, size_mm: float) -> list[np.ndarray]:
    """Rotated squares about the cube's size: regions enclosed by edges (any cube colour),
    holes (the number) filled, whose outline is square rather than round (a checker's disc
    fills ~79% of its box, a cube's face ~100%)."""
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY) if bgr.ndim == 3 else bgr
    edges = cv2.Canny(cv2.GaussianBlur(gray, (3, 3), 0), 20, 60)
    edges = cv2.dilate(edges, np.ones((2, 2), np.uint8))
    free = (edges == 0).astype(np.uint8)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=4)
    side = size_mm * px_per_mm
    out: list[np.ndarray] = []
    big, small = stats[:, 2:4].max(axis=1), stats[:, 2:4].min(axis=1)
    sized = (0.55 * side < big) & (big < 1.6 * side) & (small >= 0.4 * side)
    sized[0] = False  # the background label
    for i in np.flatnonzero(sized).tolist():  # only cube-sized regions are looked at closely
        x, y, w, h = (int(v) for v in stats[i, :4])
        comp = (labels[y:y + h, x:x + w] == i).astype(np.uint8)
        contours, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        contour = max(contours, key=cv2.contourArea)
        area = float(cv2.contourArea(contour))
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(contour)
        if not (0.7 * side < min(rw, rh) and max(rw, rh) < 1.15 * side):
            continue
        if area / max(rw * rh, 1.0) < 0.88 or max(rw, rh) > 1.2 * min(rw, rh):
            continue
        holes = area - float(stats[i, cv2.CC_STAT_AREA])
        if holes < 0.03 * area:  # no number on it
            continue
        out.append(cv2.boxPoints(((cx + x, cy + y), (rw + 2, rh + 2), ang)))
    return out


def _light_square_candidates(bgr: np.ndarray, px_per_mm: float, size_mm: float
                             ) -> list[np.ndarray]:
    """Rotated squares among the light, unsaturated parts of the raster (a standard cube is
    white or ivory with dark numbers): holes filled, then eroded so a cube touching a checker
    or the rail comes apart from it; a checker's core stays round, the cube's stays square.

    Two levels of light: above the board's median (a cube on a dark board), and near the
    lightest few percent of the raster, which keeps a white cube apart from a cream field or
    point it lies on (on the bar it touches both halves' fields)."""
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
    value, saturation = hsv[:, :, 2], hsv[:, :, 1]
    board = (saturation < 70) & (value > max(70.0, float(np.median(value[::4, ::4])) + 15.0))
    whitest = (saturation < 50) & (value > float(np.percentile(value[::2, ::2], 97)) - 20.0)
    return (_light_squares(board, px_per_mm, size_mm)
            + _light_squares(whitest, px_per_mm, size_mm))


def _light_squares(light: np.ndarray, px_per_mm: float, size_mm: float) -> list[np.ndarray]:
    """Square cores of a light mask (see :func:`_light_square_candidates`)."""
    mask = light.astype(np.uint8) * 255
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(mask, contours, -1, 255, -1)
    shrink = max(3, round(size_mm * 0.3 * px_per_mm) | 1)
    core = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (shrink, shrink)))
    _, labels, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=8)
    side_core = size_mm * px_per_mm - shrink
    out: list[np.ndarray] = []
    areas = stats[:, cv2.CC_STAT_AREA]
    sized = (0.45 * side_core ** 2 < areas) & (areas < 1.7 * side_core ** 2)
    sized[0] = False  # the background label
    for i in np.flatnonzero(sized).tolist():
        area = stats[i, cv2.CC_STAT_AREA]
        x, y, w, h = (int(v) for v in stats[i, :4])
        comp = (labels[y:y + h, x:x + w] == i).astype(np.uint8)
        found, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        contour = max(found, key=cv2.contourArea) + np.array([x, y])
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(contour)
        if not (0.6 * side_core < min(rw, rh) and max(rw, rh) < 1.35 * side_core):
            continue
        if area / max(rw * rh, 1.0) < 0.86:
            continue
        out.append(cv2.boxPoints(((cx, cy), (rw + shrink - 1, rh + shrink - 1), ang)))
    return out


def find_cube_in_image(
    image: np.ndarray,
    to_mm: np.ndarray,
    geometry: BoardGeometry | None = None,
    *,
    darker_at_top: bool | None = None,
    px_per_mm: float = 1.0,
) -> CubeReading | None:
    """The cube in a camera frame given the image-to-board-mm homography, or None.

    Searched on a top-down raster of the whole case at ``px_per_mm``; the face is then read
    from a rectified patch taken from the full-resolution frame."""
    g = geometry or BoardGeometry()
    canonical = Canonical.whole_board(g, px_per_mm)
    mm_to_can = np.array([[px_per_mm, 0, canonical.margin_mm[0] * px_per_mm],
                          [0, px_per_mm, canonical.margin_mm[1] * px_per_mm], [0, 0, 1.0]])
    raster = cv2.warpPerspective(image, mm_to_can @ to_mm, canonical.size, flags=cv2.INTER_AREA)
    from_mm = np.linalg.inv(to_mm)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    dst = np.array([[0, 0], [FACE_PX - 1, 0], [FACE_PX - 1, FACE_PX - 1], [0, FACE_PX - 1]],
                   np.float32)
    best: tuple[float, int, np.ndarray] | None = None
    quads = (_square_candidates(raster, px_per_mm, g.cube_size_mm)
             + _light_square_candidates(raster, px_per_mm, g.cube_size_mm))
    for quad in quads:
        quad_mm = np.array([canonical.px_to_mm(float(u), float(v)) for u, v in _order(quad)])
        centre = quad_mm.mean(axis=0)
        inset = centre + (quad_mm - centre) * 0.88
        quad_img = cv2.perspectiveTransform(inset.reshape(-1, 1, 2), from_mm).reshape(-1, 2)
        m = cv2.getPerspectiveTransform(quad_img.astype(np.float32), dst)
        face = cv2.warpPerspective(gray, m, (FACE_PX, FACE_PX), flags=cv2.INTER_LINEAR)
        if float(face.std()) < 15.0:  # a plain light square has no number
            continue
        value, confidence = read_face(face)
        if best is None or confidence > best[0]:
            best = (confidence, value, centre)
    if best is None or best[0] < 0.05:
        return None
    confidence, value, centre = best
    x_mm, y_mm = float(centre[0]), float(centre[1])
    p = cv2.perspectiveTransform(np.array([[[x_mm, y_mm]]]), from_mm).reshape(2)
    place = cube_place(g, x_mm, y_mm)
    return CubeReading(value, (x_mm, y_mm), (float(p[0]), float(p[1])),
                       zone_for(place, darker_at_top), place, confidence)


def find_cube(
    canonical_bgr: np.ndarray,
    canonical: Canonical,
    *,
    to_image: np.ndarray | None = None,
    darker_at_top: bool | None = None,
) -> CubeReading | None:
    """The cube in a top-down raster of the board (``canonical`` describes it), or None.

    ``to_image`` maps raster pixels back to a camera image (the centre is then reported in
    image pixels); without it the centre is in raster pixels."""
    s = canonical.px_per_mm
    mm_to_can = np.array([[s, 0, canonical.margin_mm[0] * s], [0, s, canonical.margin_mm[1] * s],
                          [0, 0, 1.0]])
    can_to_mm = np.linalg.inv(mm_to_can)
    reading = find_cube_in_image(canonical_bgr, can_to_mm, canonical.geometry,
                                 darker_at_top=darker_at_top, px_per_mm=min(s, 1.0))
    if reading is None or to_image is None:
        return reading
    p = to_image @ mm_to_can @ np.array([*reading.centre_mm, 1.0])
    return CubeReading(reading.value, reading.centre_mm, (float(p[0] / p[2]), float(p[1] / p[2])),
                       reading.zone, reading.place, reading.confidence)


def _order(quad: np.ndarray) -> np.ndarray:
    """Corners in clockwise order starting at the top-left-most one."""
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    q = quad[np.argsort(angles)]
    start = int(np.argmin(q.sum(axis=1)))
    return np.roll(q, -start, axis=0).astype(np.float32)


@dataclass(frozen=True)
class RasterStrip:
    """A top-down raster of part of the board: pixel (u, v) is board mm
    (x0_mm + u / px_per_mm, y0_mm + v / px_per_mm)."""

    bgr: np.ndarray
    px_per_mm: float
    x0_mm: float
    y0_mm: float

    def to_mm(self, pts: np.ndarray) -> np.ndarray:
        out: np.ndarray = (np.asarray(pts, np.float64).reshape(-1, 2) / self.px_per_mm
                           + np.array([self.x0_mm, self.y0_mm]))
        return out


def _light_masks(bgr: np.ndarray, levels: tuple[float, float] | None = None
                 ) -> tuple[list[np.ndarray], tuple[float, float]]:
    """The two light masks of :func:`_light_square_candidates` (light and unsaturated: above
    the board's median brightness, near its lightest) and those two levels, taken from this
    raster unless given. Brightness is the largest channel, saturation HSV's."""
    b, g, r = cv2.split(bgr)
    value = cv2.max(cv2.max(b, g), r)
    spread = cv2.subtract(value, cv2.min(cv2.min(b, g), r)).astype(np.uint16) * 255
    v16 = value.astype(np.uint16)
    if levels is None:
        sample = value[::4, ::4].reshape(-1)
        k50, k97 = len(sample) // 2, int(0.97 * (len(sample) - 1))
        part = np.partition(sample, (k50, k97))
        levels = (float(part[k50]), float(part[k97]))
    median, top = levels
    masks = [(spread < 70 * v16) & (value > max(70.0, median + 15.0)),
             (spread < 50 * v16) & (value > top - 20.0)]
    return masks, levels


def _light_squares_fast(light: np.ndarray, px_per_mm: float, size_mm: float
                        ) -> list[np.ndarray]:
    """:func:`_light_squares` by contours only (no labelling of the whole raster)."""
    mask = light.astype(np.uint8) * 255
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    side = size_mm * px_per_mm
    big = [c for c in contours if cv2.contourArea(c) > 0.3 * side * side]
    if not big:
        return []
    mask[:] = 0
    cv2.drawContours(mask, big, -1, 255, -1)
    shrink = max(3, round(size_mm * 0.3 * px_per_mm) | 1)
    core = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (shrink, shrink)))
    cores, _ = cv2.findContours(core, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    side_core = side - shrink
    out: list[np.ndarray] = []
    for contour in cores:
        area = cv2.contourArea(contour) + 0.5 * len(contour)  # pixels, not the polygon
        if not 0.45 * side_core ** 2 < area < 1.7 * side_core ** 2:
            continue
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(contour)
        rw, rh = rw + 1.0, rh + 1.0
        if not (0.6 * side_core < min(rw, rh) and max(rw, rh) < 1.35 * side_core):
            continue
        if area / max(rw * rh, 1.0) < 0.86:
            continue
        out.append(cv2.boxPoints(((cx, cy), (rw + shrink - 1, rh + shrink - 1), ang)))
    return out


def find_cube_on_strips(strips: list[RasterStrip], image: np.ndarray, from_mm: np.ndarray,
                        geometry: BoardGeometry, *, darker_at_top: bool | None = None
                        ) -> CubeReading | None:
    """The cube on top-down rasters of the board, its face read from the camera frame
    ``image`` (``from_mm``: board mm to image px), or None.

    The fast path of the board's dice and cube pass: light squares of the cube's size in the
    rasters (see :func:`_light_square_candidates`; each raster sets its own light levels), each
    face warped from the frame alone.
    Squares centred on an ArUco marker (a white square with a black pattern, at each tray's
    ends) are not taken for the cube."""
    if not strips:
        return None
    markers = geometry.marker_centres_mm().astype(np.float64)
    clear = 0.25 * geometry.marker_size_mm * (1.0 + 1.0 / 3.0)  # a marker is centred there
    dst = np.array([[0, 0], [FACE_PX - 1, 0], [FACE_PX - 1, FACE_PX - 1], [0, FACE_PX - 1]],
                   np.float32)
    best: tuple[float, int, np.ndarray] | None = None
    for strip in strips:
        quads = []
        masks, _ = _light_masks(strip.bgr)
        for light in masks:
            quads += _light_squares_fast(light, strip.px_per_mm, geometry.cube_size_mm)
        for quad in quads:
            quad_mm = strip.to_mm(_order(quad))
            centre = quad_mm.mean(axis=0)
            if (np.hypot(*(markers - centre).T) < clear).any():
                continue
            inset = centre + (quad_mm - centre) * 0.88
            quad_img = cv2.perspectiveTransform(inset.reshape(-1, 1, 2), from_mm).reshape(-1, 2)
            m = cv2.getPerspectiveTransform(quad_img.astype(np.float32), dst)
            face = cv2.warpPerspective(image, m, (FACE_PX, FACE_PX), flags=cv2.INTER_LINEAR)
            if face.ndim == 3:
                face = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
            if float(face.std()) < 15.0:  # a plain light square has no number
                continue
            read, confidence = read_face(face)
            if best is None or confidence > best[0]:
                best = (confidence, read, centre)
    if best is None or best[0] < MIN_STRIP_CONFIDENCE:
        return None
    confidence, read, centre = best
    x_mm, y_mm = float(centre[0]), float(centre[1])
    p = cv2.perspectiveTransform(np.array([[[x_mm, y_mm]]]), from_mm).reshape(2)
    place = cube_place(geometry, x_mm, y_mm)
    return CubeReading(read, (x_mm, y_mm), (float(p[0]), float(p[1])),
                       zone_for(place, darker_at_top), place, confidence)
