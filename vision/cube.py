"""The doubling cube: a prop for the renderer, and a reader for its face and its place.

The reader looks in top-down rasters of the board for light squares of the cube's size
(``BoardGeometry.cube_size_mm``) and for number-sized clusters of thin dark strokes (a cube
overlapping a light point or checker has no square outline of its own), reads the number on
the upward face (2, 4, 8, 16, 32 or 64; 64 is the centred cube of value 1, BG-CUBE-1) by
cropping it to its ink and correlating it with glyphs drawn with OpenCV's fonts at every
quarter turn (a die, a marker or a patch of board correlates far below a number), and names
its place: ``centre`` (middle of the bar), the side of
the player who owns it (the bar end next to them), ``offered`` (on the playing surface, where
the doubler puts it, BG-CUBE-3) or ``off-board`` (beside the board, the Crawford game).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, NamedTuple

import cv2
import numpy as np

from vision.geometry import BoardGeometry, Canonical

CUBE_VALUES = (2, 4, 8, 16, 32, 64)
CubeZone = Literal["centre", "darker-side", "lighter-side", "offered", "off-board"]
READ_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX)
RENDER_FONTS = (*READ_FONTS, cv2.FONT_HERSHEY_COMPLEX)
FACE_PX = 48  # side of the rectified face the reader compares
# below this face-read confidence a square found by the fast path is not taken for the cube
# (synthetic throws: cubes read at 0.7 and above; markers, dice, light patches at 0)
MIN_STRIP_CONFIDENCE = 0.2
SURE_CONFIDENCE = 0.5  # a face read this well is the cube: the search stops there


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


INK_MARGIN = 1.12  # a normalised face: the number's bounding square and this much around it


def _normalised(face: np.ndarray, counts: np.ndarray
                ) -> tuple[np.ndarray, tuple[float, float], float, float]:
    """A face (dark ink on light, float32 of whole numbers 0..255; ``counts``: how many pixels
    have each) cropped to the square about its number's ink and
    resized to ``FACE_PX``: a face read a little too large, too small or off centre, in a
    thinner or bolder font, then lines up with the templates. Dark parts touching the
    picture's rim (the cube's shaded edge, the board or a checker beyond it) are not ink.
    Also gives the ink's centre (pixels of ``face``), the face's centre on a cube, the longer
    side of its box as a share of the picture's side, and the share of that box inked."""
    n = face.shape[0]
    k_lo, k_mid = int(0.03 * (face.size - 1)), int(0.6 * (face.size - 1))
    lo, mid = float(_nth(counts, k_lo)), float(_nth(counts, k_mid))
    ink = (face < (lo + mid) / 2).astype(np.uint8)
    # 16-bit labels: a face has far fewer parts, and they are labelled twice as fast
    _, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8,
                                                           ltype=cv2.CV_16U)
    x, y, w, h, area = stats[1:, :5].T
    edge = 1
    rim = (x < edge) | (y < edge) | (x + w > n - edge) | (y + h > n - edge)
    kept = ~rim & (area >= 3)
    if not kept.any():
        return (cv2.resize(face, (FACE_PX, FACE_PX), interpolation=cv2.INTER_AREA),
                ((n - 1) / 2, (n - 1) / 2), 0.0, 0.0)
    x0, y0 = int(x[kept].min()), int(y[kept].min())
    x1, y1 = int((x + w)[kept].max()), int((y + h)[kept].max())
    inked = int(area[kept].sum())
    cx, cy = (x0 + x1 - 1) / 2, (y0 + y1 - 1) / 2
    half = max(x1 - x0, y1 - y0, 2) / 2 * INK_MARGIN
    scale = FACE_PX / (2 * half)
    m = np.array([[scale, 0, (FACE_PX - 1) / 2 - scale * cx],
                  [0, scale, (FACE_PX - 1) / 2 - scale * cy]])
    if rim.any():  # painted plain face, lest they outweigh the number in the correlation
        beyond = np.concatenate(([0], rim)).astype(np.uint8)  # per label: touches the rim
        plain = cv2.dilate(beyond[labels], np.ones((3, 3), np.uint8))
        face = np.where(plain > 0, np.float32(mid), face).astype(np.float32)
    out: np.ndarray = cv2.warpAffine(face, m, (FACE_PX, FACE_PX), flags=cv2.INTER_AREA,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=mid)
    return out, (cx, cy), max(x1 - x0, y1 - y0) / n, inked / ((x1 - x0) * (y1 - y0))


def _counts(face: np.ndarray) -> np.ndarray:
    """How many pixels of an 8-bit picture have each value 0..255."""
    out: np.ndarray = np.bincount(face.reshape(-1), minlength=256)
    return out


def _nth(counts: np.ndarray, k: int) -> int:
    """The ``k``-th smallest (from 0) of the values ``counts`` counts: what sorting them would
    give, read off their running total (faster than a partition of the pixels)."""
    return int(np.searchsorted(np.cumsum(counts), k, side="right"))


@lru_cache(maxsize=1)
def _templates() -> tuple[tuple[int, np.ndarray], ...]:
    """Zero-mean, unit-norm templates of every value, font and quarter turn, normalised as a
    face read is (:func:`_normalised`)."""
    out = []
    for value in CUBE_VALUES:
        for font in READ_FONTS:
            g = _glyph(value, 2 * FACE_PX, font)
            for k in range(4):
                t = _normalised(np.rot90(g, k).astype(np.float32), _counts(g))[0]
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


class FaceMatch(NamedTuple):
    """A face read: the best value, its correlation and the best other value's, the number's
    centre (face pixels), its box's longer side (share of the face image's side) and the
    share of that box inked."""

    value: int
    top: float
    second: float
    centre: tuple[float, float]
    extent: float
    fill: float


def face_match(face_gray: np.ndarray) -> tuple[int, float, float]:
    """The best-matching cube value on a rectified face image, its normalised correlation
    with that value's templates, and the best correlation of any other value."""
    found = _match(face_gray)
    return found.value, found.top, found.second


def _match(face_gray: np.ndarray) -> FaceMatch:
    """:func:`face_match` with the number's centre and size (``face_gray``: 8-bit)."""
    face = face_gray.astype(np.float32)
    counts = _counts(face_gray)
    # ink is whichever is rarer: dark on a light cube or light on a dark one
    median = _nth(counts, face.size // 2)
    if median < float(face.reshape(-1).mean()) - 10 or median < 100:
        face = 255 - face
        counts = counts[::-1]
    x, centre, extent, fill = _normalised(face, counts)
    x = x - x.mean()
    x /= np.linalg.norm(x) + 1e-6
    matrix, values = _template_matrix()
    scores = (matrix @ x.reshape(-1)).reshape(len(CUBE_VALUES), -1).max(axis=1)
    order = np.argsort(-scores)
    value = int(values.reshape(len(CUBE_VALUES), -1)[order[0], 0])
    return FaceMatch(value, float(scores[order[0]]), float(scores[order[1]]), centre, extent,
                     fill)


def _confidence(top: float, second: float) -> float:
    """A face read's confidence in 0..1 from its best and second-best value's correlation.

    Synthetic throws: a cube's face read square-on correlates at 0.86 and above; a marker, a
    light patch, a die (a dark die's body) at 0.72 and below."""
    return float(np.clip((top - MATCH_FLOOR) / 0.12, 0.0, 1.0)
                 * np.clip((top - second) * 5.0, 0.0, 1.0))


def read_face(face_gray: np.ndarray) -> tuple[int, float]:
    """The cube value shown on a rectified face image and a confidence in 0..1."""
    value, top, second = face_match(face_gray)
    return value, _confidence(top, second)


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


PixelBox = tuple[float, float, float, float]  # pixels u0, v0, u1, v1 (ends included)


def _square_candidates(gray: np.ndarray, px_per_mm: float, size_mm: float,
                       near: Sequence[PixelBox] | None = None) -> list[np.ndarray]:
    """Rotated squares about the cube's size in a grey raster: regions enclosed by edges (any
    cube colour), holes (the number) filled, whose outline is square rather than round (a
    checker's disc fills ~79% of its box, a cube's face ~100%). ``near``: see :func:`_reaches`."""
    edges = cv2.Canny(cv2.GaussianBlur(gray, (3, 3), 0), 20, 60)
    edges = cv2.dilate(edges, _SQUARE_2)
    labels, stats = _labelled((edges == 0).view(np.uint8))  # a view: not copied
    side = size_mm * px_per_mm
    out: list[np.ndarray] = []
    big, small = stats[:, 2:4].max(axis=1), stats[:, 2:4].min(axis=1)
    sized = (0.55 * side < big) & (big < 1.6 * side) & (small >= 0.4 * side)
    sized[0] = False  # the background label
    for i in np.flatnonzero(sized).tolist():  # only cube-sized regions are looked at closely
        x, y, w, h = (int(v) for v in stats[i, :4])
        if not _reaches(x, y, w, h, near):
            continue
        comp = (labels[y:y + h, x:x + w] == i).view(np.uint8)
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


_SQUARE_2 = np.ones((2, 2), np.uint8)


def _labelled(free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """4-connected parts of a mask: labels and stats. Labels are 16-bit, faster, unless there
    are too many for that (OpenCV raises then, never wraps): the same labels either way."""
    try:
        _, labels, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=4,
                                                               ltype=cv2.CV_16U)
    except cv2.error:
        _, labels, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=4)
    return labels, stats


def _reaches(x: int, y: int, w: int, h: int, near: Sequence[PixelBox] | None) -> bool:
    """Whether a region's box (x, y, w, h pixels) meets one of ``near``: the boxes a square's
    centre must lie in to be taken, when the caller says. A square found from the region is
    centred within the region's box (the smallest rectangle about it touches it on each
    side), so one of a region wholly outside them is not worth finding."""
    return near is None or any(u0 <= x + w - 1 and x <= u1 and v0 <= y + h - 1 and y <= v1
                               for u0, v0, u1, v1 in near)


def light_levels(bgr: np.ndarray) -> tuple[float, float]:
    """The two light levels :func:`_light_square_candidates` takes from a raster: the median
    brightness (HSV value) of a sample, and its 97th percentile."""
    value = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)[:, :, 2]
    return float(np.median(value[::4, ::4])), float(np.percentile(value[::2, ::2], 97))


def _light_square_candidates(bgr: np.ndarray, px_per_mm: float, size_mm: float,
                             levels: tuple[float, float] | None = None,
                             near: Sequence[PixelBox] | None = None) -> list[np.ndarray]:
    """Rotated squares among the light, unsaturated parts of the raster (a standard cube is
    white or ivory with dark numbers): holes filled, then eroded so a cube touching a checker
    or the rail comes apart from it; a checker's core stays round, the cube's stays square.

    Two levels of light: above the board's median (a cube on a dark board), and near the
    lightest few percent of the raster, which keeps a white cube apart from a cream field or
    point it lies on (on the bar it touches both halves' fields). ``levels``: those two
    levels (:func:`light_levels`) of the whole raster, when ``bgr`` is only part of it.
    ``near``: see :func:`_reaches`."""
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
    median, top = levels if levels is not None else light_levels(bgr)
    board = _hsv_mask(hsv, 70, max(70.0, median + 15.0))
    whitest = _hsv_mask(hsv, 50, top - 20.0)
    return (_light_squares(board, px_per_mm, size_mm, near)
            + _light_squares(whitest, px_per_mm, size_mm, near))


def _hsv_mask(hsv: np.ndarray, saturation_below: int, value_above: float) -> np.ndarray:
    """255 where an HSV raster's saturation is below ``saturation_below`` and its value above
    ``value_above``, else 0: one pass (``inRange``), with the bounds as whole numbers."""
    least = math.floor(value_above) + 1  # the least whole value above it
    if least > 255:  # inRange would take 255 for it
        return np.zeros(hsv.shape[:2], np.uint8)
    out: np.ndarray = cv2.inRange(hsv, (0, 0, max(0, least)), (255, saturation_below - 1, 255))
    return out


def _light_squares(mask: np.ndarray, px_per_mm: float, size_mm: float,
                   near: Sequence[PixelBox] | None = None) -> list[np.ndarray]:
    """Square cores of a light mask (0 or 255; drawn on; see :func:`_light_square_candidates`)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(mask, contours, -1, 255, -1)
    shrink = max(3, round(size_mm * 0.3 * px_per_mm) | 1)
    core = cv2.erode(mask, _disc(shrink))
    side_core = size_mm * px_per_mm - shrink
    out: list[np.ndarray] = []
    for _first, comp, (x, y), area in sorted(_sized_cores(core, side_core, near),
                                             key=lambda c: c[0]):
        found, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        contour = max(found, key=cv2.contourArea) + np.array([x, y])
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(contour)
        if not (0.6 * side_core < min(rw, rh) and max(rw, rh) < 1.35 * side_core):
            continue
        if area / max(rw * rh, 1.0) < 0.86:
            continue
        out.append(cv2.boxPoints(((cx, cy), (rw + shrink - 1, rh + shrink - 1), ang)))
    return out


@lru_cache(maxsize=4)
def _disc(side: int) -> np.ndarray:
    """OpenCV's elliptic structuring element ``side`` pixels across (made once)."""
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))


def _sized_cores(core: np.ndarray, side_core: float, near: Sequence[PixelBox] | None = None
                 ) -> Iterator[tuple[tuple[int, int], np.ndarray, tuple[int, int], int]]:
    """The parts of ``core`` (8-connected) of a square core's area: first pixel (row, column:
    the order labelling the whole raster gives), pixels within their box, its corner, area.
    ``near``: see :func:`_reaches`."""
    # labelling the whole raster took most of the search: a part is labelled alone in its box,
    # once its outline (RETR_CCOMP's top level holds every part's outer one) passes two exact
    # checks: a part covers at most its box, and a square's side spans at least 1/sqrt(2) of
    # its box's (:func:`_light_squares` takes at most 1.35 core sides; a pixel for rounding)
    outlines, hierarchy = cv2.findContours(core, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    lo, hi = 0.45 * side_core ** 2, 1.7 * side_core ** 2
    for outline, links in zip(outlines, hierarchy[0] if outlines else (), strict=True):
        if links[3] >= 0:  # a hole's outline
            continue
        x, y, w, h = cv2.boundingRect(outline)
        if w * h <= lo or (max(w, h) - 1) / math.sqrt(2) > 1.35 * side_core + 1:
            continue
        if not _reaches(x, y, w, h, near):
            continue
        # 16-bit labels, faster: a box holds few parts (OpenCV raises, never wraps, past 65,535)
        _, labels, stats, _ = cv2.connectedComponentsWithStats(core[y:y + h, x:x + w],
                                                               connectivity=8,
                                                               ltype=cv2.CV_16U)
        label = labels[outline[0, 0, 1] - y, outline[0, 0, 0] - x]
        area = int(stats[label, cv2.CC_STAT_AREA])
        if lo < area < hi:
            comp = (labels == label).view(np.uint8)
            yield (y, x + int(np.argmax(comp[0]))), comp, (x, y), area


def find_cube_in_image(
    image: np.ndarray,
    to_mm: np.ndarray,
    geometry: BoardGeometry | None = None,
    *,
    darker_at_top: bool | None = None,
    px_per_mm: float = 1.0,
    levels: tuple[float, float] | None = None,
) -> CubeReading | None:
    """The cube in a camera frame given the image-to-board-mm homography, or None.

    Searched on a top-down raster of the whole case at ``px_per_mm``; the face is then read
    from a rectified patch taken from the full-resolution frame. ``levels``: that raster's
    :func:`light_levels`, when already worked out."""
    g = geometry or BoardGeometry()
    canonical = Canonical.whole_board(g, px_per_mm)
    to_raster = _mm_to_raster(canonical) @ to_mm
    if image.shape[1::-1] == canonical.size and np.allclose(to_raster, np.eye(3), atol=1e-9):
        raster = image  # already that raster (find_cube's, at 1 px/mm): warping copies it
    else:
        raster = cv2.warpPerspective(image, to_raster, canonical.size, flags=cv2.INTER_AREA)
    from_mm = np.linalg.inv(to_mm)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    if raster is not image:
        raster_gray = cv2.cvtColor(raster, cv2.COLOR_BGR2GRAY) if raster.ndim == 3 else raster
    else:  # the very frame: its grey is at hand
        raster_gray = gray
    quads = (_square_candidates(raster_gray, px_per_mm, g.cube_size_mm)
             + _light_square_candidates(raster, px_per_mm, g.cube_size_mm, levels))
    best = _best_face(quads, canonical, (0, 0), from_mm, gray)
    return _reading(best, from_mm, g, darker_at_top)


def _mm_to_raster(canonical: Canonical) -> np.ndarray:
    """Board mm to the pixels of a top-down raster."""
    s = canonical.px_per_mm
    return np.array([[s, 0, canonical.margin_mm[0] * s], [0, s, canonical.margin_mm[1] * s],
                     [0, 0, 1.0]])


def _best_face(quads: Iterable[np.ndarray], canonical: Canonical, origin: tuple[int, int],
               from_mm: np.ndarray, gray: np.ndarray
               ) -> tuple[float, int, np.ndarray] | None:
    """The best face read in squares of a raster (pixels from ``origin`` of ``canonical``'s
    grid), each warped from ``gray`` (board mm to its pixels: ``from_mm``): confidence, value
    and the square's centre (mm)."""
    dst = np.array([[0, 0], [FACE_PX - 1, 0], [FACE_PX - 1, FACE_PX - 1], [0, FACE_PX - 1]],
                   np.float32)
    best: tuple[float, int, np.ndarray] | None = None
    for quad in quads:
        quad_mm = np.array([canonical.px_to_mm(float(u) + origin[0], float(v) + origin[1])
                            for u, v in _order(quad)])
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
    return best


def _reading(best: tuple[float, int, np.ndarray] | None, from_mm: np.ndarray,
             g: BoardGeometry, darker_at_top: bool | None) -> CubeReading | None:
    """The cube of the best face read, if read at all."""
    if best is None or best[0] < 0.05:
        return None
    confidence, value, centre = best
    x_mm, y_mm = float(centre[0]), float(centre[1])
    p = cv2.perspectiveTransform(np.array([[[x_mm, y_mm]]]), from_mm).reshape(2)
    place = cube_place(g, x_mm, y_mm)
    return CubeReading(value, (x_mm, y_mm), (float(p[0]), float(p[1])),
                       zone_for(place, darker_at_top), place, confidence)


# a part searched reaches this many cube sides beyond what changed (a cube put down changes
# the picture over the whole of it, shadow included); a square reaching within
# PART_EDGE_PX of a part's edge inside the raster is not taken (it may be a region the edge
# cut, which the whole raster shows larger: not a cube's)
PART_PAD_CUBES = 0.5
PART_EDGE_PX = 2


def whole_raster_levels(canonical_bgr: np.ndarray, canonical: Canonical) -> tuple[float, float]:
    """:func:`light_levels` of the raster :func:`find_cube` searches for this top-down raster
    (a search of parts of it, :func:`find_cube_in_parts`, takes them)."""
    whole = Canonical.whole_board(canonical.geometry, min(canonical.px_per_mm, 1.0))
    if whole == canonical:  # the very raster searched
        return light_levels(canonical_bgr)
    to_mm = np.linalg.inv(_mm_to_raster(canonical))
    raster = cv2.warpPerspective(canonical_bgr, _mm_to_raster(whole) @ to_mm, whole.size,
                                 flags=cv2.INTER_AREA)
    return light_levels(raster)


def find_cube_in_parts(part: Callable[[tuple[int, int, int, int]], np.ndarray],
                       canonical: Canonical, boxes_mm: Iterable[tuple[float, float, float, float]],
                       levels: tuple[float, float], *, darker_at_top: bool | None = None
                       ) -> CubeReading | None:
    """:func:`find_cube` on parts of its raster only: about each box (x0, y0, x1, y1 mm;
    where the picture changed since a search found no cube there), the cube found in it.

    ``part(box)`` gives the pixels ``(u0, v0, u1, v1)`` (end exclusive) of the top-down
    raster ``canonical`` describes, as :func:`find_cube` would be given it whole (at most
    1 px/mm); ``levels`` are the whole raster's (:func:`whole_raster_levels`). A square is
    taken only where its centre lies in a box, each part reaching :data:`PART_PAD_CUBES` cube
    sides beyond it, so that it is seen as the whole raster shows it."""
    g = canonical.geometry
    s = canonical.px_per_mm
    w, h = canonical.size
    pad = PART_PAD_CUBES * g.cube_size_mm
    to_px = _mm_to_raster(canonical)
    from_mm = to_px
    best: tuple[float, int, np.ndarray] | None = None
    for inner, reach in _merged(list(boxes_mm), pad):
        x0, y0, x1, y1 = reach
        u0, v0 = (max(0, math.floor(a)) for a in canonical.mm_to_px(x0, y0))
        u1, v1 = canonical.mm_to_px(x1, y1)
        u1, v1 = min(w, math.ceil(u1) + 1), min(h, math.ceil(v1) + 1)
        if u1 - u0 < 4 or v1 - v0 < 4:
            continue
        bgr = part((u0, v0, u1, v1))
        gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY) if bgr.ndim == 3 else bgr
        lo = np.array([PART_EDGE_PX if u0 > 0 else -np.inf, PART_EDGE_PX if v0 > 0 else -np.inf])
        hi = np.array([u1 - u0 - 1 - PART_EDGE_PX if u1 < w else np.inf,
                       v1 - v0 - 1 - PART_EDGE_PX if v1 < h else np.inf])
        # a square is looked at closely only if its centre may fall in a box
        near = [_part_box(canonical, box, (u0, v0)) for box in inner]
        quads = [q for q in (_square_candidates(gray, s, g.cube_size_mm, near)
                             + _light_square_candidates(bgr, s, g.cube_size_mm, levels, near))
                 if (q >= lo).all() and (q <= hi).all()
                 and any(_inside(canonical.px_to_mm(float(q[:, 0].mean()) + u0,
                                                    float(q[:, 1].mean()) + v0), box)
                         for box in inner)]
        shift = np.array([[1.0, 0, -u0], [0, 1.0, -v0], [0, 0, 1.0]])
        found = _best_face(quads, canonical, (u0, v0), shift @ from_mm, gray)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    return _reading(best, to_px, g, darker_at_top)


def _part_box(canonical: Canonical, box: tuple[float, float, float, float],
              origin: tuple[int, int]) -> PixelBox:
    """A box (mm) in the pixels of a part of ``canonical``'s raster from ``origin``, a pixel
    wider each side: a point :func:`_inside` the box lies within it, whatever the rounding."""
    u0, v0 = canonical.mm_to_px(box[0], box[1])
    u1, v1 = canonical.mm_to_px(box[2], box[3])
    return u0 - origin[0] - 1, v0 - origin[1] - 1, u1 - origin[0] + 1, v1 - origin[1] + 1


def _merged(boxes: list[tuple[float, float, float, float]], pad: float
            ) -> list[tuple[list[tuple[float, float, float, float]],
                            tuple[float, float, float, float]]]:
    """Boxes grouped where their surroundings (``pad`` about each) overlap: each group's
    boxes and the extent of their surroundings (searched once)."""
    groups = [([b], (b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad)) for b in boxes]
    merged = True
    while merged:
        merged = False
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                a, b = groups[i][1], groups[j][1]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    groups[i] = (groups[i][0] + groups[j][0],
                                 (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]),
                                  max(a[3], b[3])))
                    del groups[j]
                    merged = True
                    break
            if merged:
                break
    return groups


def _inside(point: tuple[float, float], box: tuple[float, float, float, float]) -> bool:
    x, y = point
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def find_cube(
    canonical_bgr: np.ndarray,
    canonical: Canonical,
    *,
    to_image: np.ndarray | None = None,
    darker_at_top: bool | None = None,
    levels: tuple[float, float] | None = None,
) -> CubeReading | None:
    """The cube in a top-down raster of the board (``canonical`` describes it), or None.

    ``to_image`` maps raster pixels back to a camera image (the centre is then reported in
    image pixels); without it the centre is in raster pixels. ``levels``: the
    :func:`whole_raster_levels` of this raster, when already worked out (not taken twice)."""
    s = canonical.px_per_mm
    mm_to_can = np.array([[s, 0, canonical.margin_mm[0] * s], [0, s, canonical.margin_mm[1] * s],
                          [0, 0, 1.0]])
    can_to_mm = np.linalg.inv(mm_to_can)
    reading = find_cube_in_image(canonical_bgr, can_to_mm, canonical.geometry,
                                 darker_at_top=darker_at_top, px_per_mm=min(s, 1.0),
                                 levels=levels)
    if reading is None or to_image is None:
        return reading
    p = to_image @ mm_to_can @ np.array([*reading.centre_mm, 1.0])
    return CubeReading(reading.value, reading.centre_mm, (float(p[0] / p[2]), float(p[1] / p[2])),
                       reading.zone, reading.place, reading.confidence)


def cube_patch(image: np.ndarray, from_mm: np.ndarray, centre_mm: tuple[float, float],
               size_mm: float) -> np.ndarray:
    """The frame about a cube's place, top-down (1.3 cube sides square, ``FACE_PX`` pixels,
    grey): compared from frame to frame to tell whether the cube has stayed put."""
    half = 0.65 * size_mm
    x, y = centre_mm
    quad = np.array([[x - half, y - half], [x + half, y - half], [x + half, y + half],
                     [x - half, y + half]])
    quad_img = cv2.perspectiveTransform(quad.reshape(-1, 1, 2), from_mm).reshape(-1, 2)
    dst = np.array([[0, 0], [FACE_PX - 1, 0], [FACE_PX - 1, FACE_PX - 1], [0, FACE_PX - 1]],
                   np.float32)
    m = cv2.getPerspectiveTransform(quad_img.astype(np.float32), dst)
    patch = cv2.warpPerspective(image, m, (FACE_PX, FACE_PX), flags=cv2.INTER_AREA)
    out: np.ndarray = patch if patch.ndim == 2 else cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    return out


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
    numbers: bool = True  # also look for the cube by its number
    # the raster's 3x3 Sobel derivatives (x, y), when already worked out (the reading raster's)
    sobel: tuple[np.ndarray, np.ndarray] | None = None
    # the raster in grey (``cv2.COLOR_BGR2GRAY``), when already worked out (the reading raster's)
    grey: np.ndarray | None = None

    def gray(self) -> np.ndarray:
        """The raster in grey."""
        if self.grey is not None:
            return self.grey
        out: np.ndarray = (cv2.cvtColor(self.bgr, cv2.COLOR_BGR2GRAY) if self.bgr.ndim == 3
                           else self.bgr)
        return out

    def gradients(self) -> tuple[np.ndarray, np.ndarray]:
        """The raster's 3x3 Sobel derivatives (x, y)."""
        if self.sobel is not None:
            return self.sobel
        gx, gy = cv2.spatialGradient(np.ascontiguousarray(self.gray()))
        return gx, gy

    def to_mm(self, pts: np.ndarray) -> np.ndarray:
        """Raster pixels to board mm."""
        out: np.ndarray = (np.asarray(pts, np.float64).reshape(-1, 2) / self.px_per_mm
                           + np.array([self.x0_mm, self.y0_mm]))
        return out


def _value_and_spread(bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each pixel's largest channel (its brightness) and that less its smallest (its spread:
    saturation is the spread's share of the brightness)."""
    b, g, r = cv2.split(bgr)
    value = cv2.max(cv2.max(b, g), r)
    return value, cv2.subtract(value, cv2.min(cv2.min(b, g), r))


def _light_mask(value: np.ndarray, spread: np.ndarray, spreads: np.ndarray, above: float
                ) -> np.ndarray:
    """255 where a pixel's value is above ``above`` and its spread below ``spreads`` (a table
    by value), else 0: a lookup and a comparison rather than a mask per condition."""
    bound = np.where(np.arange(256) > above, spreads, 0).astype(np.uint8)
    out: np.ndarray = cv2.compare(spread, cv2.LUT(value, bound), cv2.CMP_LT)
    return out


def _light_masks(bgr: np.ndarray, levels: tuple[float, float] | None = None
                 ) -> tuple[list[np.ndarray], tuple[float, float]]:
    """The two light masks of :func:`_light_square_candidates` (light and unsaturated: above
    the board's median brightness, near its lightest) and those two levels, taken from this
    raster unless given. Brightness is the largest channel, saturation HSV's."""
    value, spread = _value_and_spread(bgr)
    if levels is None:
        sample = value[::4, ::4].reshape(-1)
        k50, k97 = len(sample) // 2, int(0.97 * (len(sample) - 1))
        part = np.partition(sample, (k50, k97))
        levels = (float(part[k50]), float(part[k97]))
    median, top = levels
    # saturation (spread over value) below 70 and 50 in 255
    masks = [_light_mask(value, spread, _spread_shares(70), max(70.0, median + 15.0)),
             _light_mask(value, spread, _spread_shares(50), top - 20.0)]
    return masks, levels


def _spread_shares(limit: int) -> np.ndarray:
    """Per value (0..255), how many spreads are below ``limit`` 255ths of it: ``spread <
    table[value]`` is ``spread * 255 < limit * value``, in integers."""
    out: np.ndarray = (limit * np.arange(256) + 254) // 255
    return out


def _light_squares_fast(mask: np.ndarray, px_per_mm: float, size_mm: float
                        ) -> list[np.ndarray]:
    """:func:`_light_squares` by contours only (no labelling of the whole raster); the mask
    (0 or 255) is drawn on."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    side = size_mm * px_per_mm
    big = [c for c in contours if cv2.contourArea(c) > 0.3 * side * side]
    if not big:
        return []
    mask[:] = 0
    cv2.drawContours(mask, big, -1, 255, -1)
    shrink = max(3, round(size_mm * 0.3 * px_per_mm) | 1)
    core = cv2.erode(mask, _disc(shrink))
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


INK_CONTRAST_MIN = 70  # black-hat response of a cube's number on the 0.7 px/mm raster
INK_CONTRAST_STRONG = 130  # ... of its darkest strokes (a number run into dark seams)
INK_FACE_SHARE = 1.25  # the face read about a number: its centre may lie a little off
# degrees tried about the yaw of the number's box: near it, then (a promising face) all round
INK_TURNS = (0.0, -7.0, 7.0, -14.0, 14.0, -21.0, 21.0, -28.0, 28.0, -35.0, 35.0, -42.0, 42.0)
PROMISING_MATCH = 0.6  # a face correlating this well near the box's yaw is tried all round
NUMBER_LIKE_MATCH = 0.3  # ... this well, tried a little aside
MATCH_FLOOR = 0.78  # a face read correlating below this is not the cube's


def _ink_centres(gray: np.ndarray, px_per_mm: float, size_mm: float
                 ) -> list[tuple[float, float, float]]:
    """Where the cube's number may be: thin dark strokes on lighter ground (a black-hat
    filter), strokes and digits joined, in a blob the size of a number on a cube face. Finds a
    cube whose light face runs into a light point, field or checker beside it, where no
    square of light stands apart (on the bar the cube overlaps the points of both halves and
    the checkers there; on a cream field it is hardly lighter than the board)."""
    side = size_mm * px_per_mm
    k = max(3, round(0.18 * side) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    hat = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, kernel)
    strokes = cv2.threshold(hat, INK_CONTRAST_MIN, 255, cv2.THRESH_BINARY)[1]
    strokes = cv2.morphologyEx(strokes, cv2.MORPH_CLOSE, kernel)
    found, _ = cv2.findContours(strokes, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out: list[tuple[float, float, float]] = []
    for contour in found:
        if len(contour) < 4:
            continue
        (cx, cy), (rw, rh), ang = cv2.minAreaRect(contour)
        long, short = max(rw, rh), min(rw, rh)
        if 0.35 * side < long < 1.0 * side and 0.2 * side < short < 0.8 * side:
            out.append((cx, cy, ang))
        elif long >= 1.0 * side:
            # the number run into the dark seams about the cube (between it and a checker, a
            # point's edge): only the darkest strokes, within that blob
            x, y, w, h = cv2.boundingRect(contour)
            part = cv2.threshold(hat[y:y + h, x:x + w], INK_CONTRAST_STRONG, 255,
                                 cv2.THRESH_BINARY)[1]
            part = cv2.morphologyEx(part, cv2.MORPH_CLOSE, kernel)
            inner, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            for c in inner:
                if len(c) < 4:
                    continue
                (ix, iy), (iw, ih), ia = cv2.minAreaRect(c)
                if (0.35 * side < max(iw, ih) < 1.0 * side
                        and 0.2 * side < min(iw, ih) < 0.8 * side):
                    out.append((ix + x, iy + y, ia))
    return out


def find_cube_on_strips(strips: Iterable[RasterStrip], image: np.ndarray, from_mm: np.ndarray,
                        geometry: BoardGeometry, *, darker_at_top: bool | None = None
                        ) -> CubeReading | None:
    """The cube on top-down rasters of the board, its face read from the camera frame
    ``image`` (``from_mm``: board mm to image px), or None.

    The fast path of the board's dice and cube pass: light squares of the cube's size in the
    rasters (see :func:`_light_square_candidates`; each raster sets its own light levels),
    then squares about a number's strokes (:func:`_ink_centres`), each face warped from the
    frame alone and read (:func:`face_match`). The rasters are searched in turn and the
    search stops at a face read surely (there is one cube).
    Squares centred on an ArUco marker (a white square with a black pattern, at each tray's
    ends) are not taken for the cube."""
    markers = geometry.marker_centres_mm().astype(np.float64)
    clear = 0.25 * geometry.marker_size_mm * (1.0 + 1.0 / 3.0)  # a marker is centred there
    dst = np.array([[0, 0], [FACE_PX - 1, 0], [FACE_PX - 1, FACE_PX - 1], [0, FACE_PX - 1]],
                   np.float32)
    best: tuple[float, int, np.ndarray, np.ndarray] | None = None  # with the face's quad (mm)

    def read_square(strip: RasterStrip, quad: np.ndarray, inset_share: float,
                    tops: list[float] | None = None) -> float:
        """Read the face in a square (``inset_share`` of it, about its centre); the best
        confidence yet. The cube's centre is taken where its number is. The read's best
        correlation is added to ``tops``."""
        nonlocal best
        quad_mm = strip.to_mm(_order(quad))
        centre = quad_mm.mean(axis=0)
        if (np.hypot(*(markers - centre).T) < clear).any():
            return -1.0 if best is None else best[0]
        inset = centre + (quad_mm - centre) * inset_share
        quad_img = cv2.perspectiveTransform(inset.reshape(-1, 1, 2), from_mm).reshape(-1, 2)
        m = cv2.getPerspectiveTransform(quad_img.astype(np.float32), dst)
        face = cv2.warpPerspective(image, m, (FACE_PX, FACE_PX), flags=cv2.INTER_LINEAR)
        if face.ndim == 3:
            face = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
        if float(face.std()) >= 15.0:  # a plain light square has no number
            found = _match(face)
            if tops is not None:
                tops.append(found.top)
            confidence = _confidence(found.top, found.second)
            if best is None or confidence > best[0]:
                u, v = found.centre
                # the number's centre: the face pixel back on the square, in board mm
                a, b = u / (FACE_PX - 1), v / (FACE_PX - 1)
                at = ((1 - a) * (1 - b) * inset[0] + a * (1 - b) * inset[1] + a * b * inset[2]
                      + (1 - a) * b * inset[3])
                best = (confidence, found.value, at, inset)
        return -1.0 if best is None else best[0]

    def read_number(strip: RasterStrip, cx: float, cy: float, ang: float, side: float
                    ) -> bool:
        """Read the face about a number found at (cx, cy) px, its box turned by ``ang``;
        whether it was read surely. The box gives the yaw roughly (a single digit's hardly)
        and the centre within a tenth of the face: near them first, then, for a face that
        looks like a number, every 7 degrees of a quarter turn, or a little aside."""
        tops: list[float] = []

        def at(x: float, y: float, turns: tuple[float, ...], share: float = INK_FACE_SHARE
               ) -> bool:
            for turn in turns:
                quad = cv2.boxPoints(((x, y), (side, side), ang + turn))
                if read_square(strip, quad, share, tops) >= SURE_CONFIDENCE:
                    return True
            return False

        if at(cx, cy, INK_TURNS[:3]):
            return True
        # a cube against a checker or the bar's edge: the wider face takes in their dark
        # seams, the face itself alone reads
        if at(cx, cy, INK_TURNS[:1], 1.0):
            return True
        if max(tops, default=0.0) >= PROMISING_MATCH:
            return at(cx, cy, INK_TURNS[3:])
        if max(tops, default=0.0) < NUMBER_LIKE_MATCH:
            return False
        step = 0.1 * side
        for dx, dy in ((step, 0.0), (-step, 0.0), (0.0, step), (0.0, -step)):
            tops.clear()
            if at(cx + dx, cy + dy, INK_TURNS[:3]):
                return True
            if max(tops, default=0.0) >= PROMISING_MATCH:
                return at(cx + dx, cy + dy, INK_TURNS[3:])
        return False

    for strip in strips:
        side = geometry.cube_size_mm * strip.px_per_mm
        masks, _ = _light_masks(strip.bgr)
        squares: list[np.ndarray] = []
        for light in masks:
            squares += _light_squares_fast(light, strip.px_per_mm, geometry.cube_size_mm)
        if max((read_square(strip, q, 0.88) for q in squares), default=-1.0) >= SURE_CONFIDENCE:
            break  # there is one cube
        if not strip.numbers:
            continue
        if any(read_number(strip, cx, cy, ang, side) for cx, cy, ang in
               _ink_centres(strip.gray(), strip.px_per_mm, geometry.cube_size_mm)):
            break
    if best is None or best[0] < MIN_STRIP_CONFIDENCE:
        return None
    confidence, read, centre, quad_mm = best
    if read in (2, 4):
        # the end of a 32 or a 64 whose other digit fell outside the face read? Read again
        # about the number's centre, a little wider
        side_mm = float(np.linalg.norm(quad_mm[1] - quad_mm[0]))
        wider = centre + (quad_mm - quad_mm.mean(axis=0)) * (
            1.3 * geometry.cube_size_mm / max(side_mm, 1e-6))
        quad_img = cv2.perspectiveTransform(wider.reshape(-1, 1, 2), from_mm).reshape(-1, 2)
        m = cv2.getPerspectiveTransform(quad_img.astype(np.float32), dst)
        face = cv2.warpPerspective(image, m, (FACE_PX, FACE_PX), flags=cv2.INTER_LINEAR)
        again = _match(face if face.ndim == 2 else cv2.cvtColor(face, cv2.COLOR_BGR2GRAY))
        if again.value == {2: 32, 4: 64}[read] and _confidence(
                again.top, again.second) >= SURE_CONFIDENCE:
            read = again.value
    x_mm, y_mm = float(centre[0]), float(centre[1])
    p = cv2.perspectiveTransform(np.array([[[x_mm, y_mm]]]), from_mm).reshape(2)
    place = cube_place(geometry, x_mm, y_mm)
    return CubeReading(read, (x_mm, y_mm), (float(p[0]), float(p[1])),
                       zone_for(place, darker_at_top), place, confidence)
