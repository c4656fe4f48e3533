"""Board geometry: a tournament backgammon board in millimetres and its canonical top-down image.

Coordinates (the contract the readers, the renderer and the dice/cube helpers share):

* Board millimetres: origin at the top-left corner of the *playing surface* as seen in the
  picture, x to the right, y down. The playing surface is the two halves and the bar between
  them (what ``--corners`` outlines: top-left, top-right, bottom-right, bottom-left). Trays,
  the frame and the ArUco markers lie outside it (negative x, or x beyond ``width_mm``).
* Image slot order (DESIGN.md): slots 0..11 are the top row left to right (0..5 left of the bar,
  6..11 right of it), slots 12..23 the bottom row left to right. Top-row checkers stack down
  from ``y = 0``, bottom-row checkers stack up from ``y = height_mm``.
* A :class:`Canonical` is a top-down raster of the board at ``px_per_mm`` with a margin around
  the playing surface; ``mm_to_px``/``px_to_mm`` convert between the two.

Only numpy (and the range checks of ``vision.bounds``) is used here, so every other vision
module (and the tests) can build on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Literal

import numpy as np

from engine.errors import ConfigError, InvalidInputError
from vision.bounds import Bound, check_fields

# What a canonical point can fall in (see :meth:`BoardGeometry.region_at`).
RegionKind = Literal["slot", "bar", "field", "tray", "frame", "off-board"]
Half = Literal["left", "right"]
CubePlace = Literal["centre", "top-side", "bottom-side", "offered"]

SLOT_COUNT = 24
# The range of a board measurement (mm), and of one that may be 0 (see BoardGeometry).
BOARD_MM = Bound(0.0, 1000.0, open_low=True, unit="mm")
BOARD_MM_OR_NONE = Bound(0.0, 1000.0, unit="mm")


def _kept_hash(obj: object) -> int:
    """The hash of a frozen dataclass's fields, worked out once and kept on the object (the
    readers' caches are keyed by the board's geometry on every frame)."""
    kept = obj.__dict__.get("_hash")
    if kept is None:
        kept = hash(tuple(getattr(obj, f.name) for f in fields(obj)))  # type: ignore[arg-type]
        object.__setattr__(obj, "_hash", kept)
    return int(kept)


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle in board millimetres (``x0 <= x < x1``, ``y0 <= y < y1``)."""

    x0: float
    y0: float
    x1: float
    y1: float

    def contains(self, x: float, y: float) -> bool:
        """True when the point lies inside (left/top edges included)."""
        return self.x0 <= x < self.x1 and self.y0 <= y < self.y1

    @property
    def centre(self) -> tuple[float, float]:
        """The rectangle's centre."""
        return ((self.x0 + self.x1) / 2.0, (self.y0 + self.y1) / 2.0)

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0


@dataclass(frozen=True)
class Region:
    """Where a board point falls: ``kind`` plus the slot index, half or tray name when relevant.

    ``half`` is "left" or "right" of the bar for anything on the playing surface (the dice
    rule BG-ROLL-2 asks which half a die rests in); ``tray`` is "left" or "right".
    """

    kind: RegionKind
    slot: int | None = None
    half: Half | None = None
    tray: Literal["left", "right"] | None = None


@dataclass(frozen=True)
class BoardGeometry:
    """A tournament board from a few measurements (millimetres); the defaults fit a common
    18-inch board (checkers about 43 mm across, points 45 mm wide, a 28 mm bar).

    The measurements were checked against the real photographs in ``boards_dev/``: point width
    about 1/12.6 of the playing width, point length about 0.39 of the playing height.
    """

    point_width_mm: float = 45.0
    bar_width_mm: float = 28.0
    height_mm: float = 515.0
    point_length_mm: float = 200.0
    checker_diameter_mm: float = 43.0
    checker_thickness_mm: float = 8.0
    tray_width_mm: float = 55.0
    tray_gap_mm: float = 15.0  # frame between the playing surface and a tray
    frame_mm: float = 25.0  # outer frame beyond the trays and along top and bottom
    marker_size_mm: float = 36.0  # side of each ArUco marker (stuck at the tray ends)
    cube_size_mm: float = 40.0
    die_size_mm: float = 16.0

    def __hash__(self) -> int:
        return _kept_hash(self)

    def __post_init__(self) -> None:
        # a board's measurements in mm: positive (the frame and the gap before a tray may be
        # nothing), and at most a metre (more would build rasters no memory holds)
        check_fields(self, "vision.geometry", {"tray_gap_mm": BOARD_MM_OR_NONE,
                                               "frame_mm": BOARD_MM_OR_NONE}, BOARD_MM)
        if self.point_length_mm >= self.height_mm / 2:
            raise ConfigError(f"vision.geometry.point_length_mm must be less than half of "
                              f"height_mm ({self.height_mm / 2:g}), not {self.point_length_mm!r}")

    # -- the playing surface -------------------------------------------------------------

    @property
    def half_width_mm(self) -> float:
        """Width of one half (six points)."""
        return 6.0 * self.point_width_mm

    @property
    def width_mm(self) -> float:
        """Width of the playing surface: two halves and the bar."""
        return 2.0 * self.half_width_mm + self.bar_width_mm

    @property
    def playing_area(self) -> Rect:
        return Rect(0.0, 0.0, self.width_mm, self.height_mm)

    @property
    def bar(self) -> Rect:
        """The bar strip between the halves (checkers on the bar overlap it)."""
        x0 = self.half_width_mm
        return Rect(x0, 0.0, x0 + self.bar_width_mm, self.height_mm)

    def half_rect(self, half: Half) -> Rect:
        """The left or right half of the playing surface, bar excluded."""
        if half == "left":
            return Rect(0.0, 0.0, self.half_width_mm, self.height_mm)
        x0 = self.half_width_mm + self.bar_width_mm
        return Rect(x0, 0.0, x0 + self.half_width_mm, self.height_mm)

    @property
    def corners_mm(self) -> np.ndarray:
        """Playing-surface corners (top-left, top-right, bottom-right, bottom-left), 4x2 float32."""
        w, h = self.width_mm, self.height_mm
        return np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]], dtype=np.float32)

    # -- points (slots) ------------------------------------------------------------------

    @staticmethod
    def slot_is_top(slot: int) -> bool:
        """Slots 0..11 are the top row of the picture."""
        _check_slot(slot)
        return slot < 12

    def slot_column_x0(self, slot: int) -> float:
        """Left edge (mm) of the slot's point."""
        _check_slot(slot)
        c = slot % 12
        x = c * self.point_width_mm
        if c >= 6:
            x += self.bar_width_mm
        return x

    def slot_centre_x(self, slot: int) -> float:
        """The x (mm) of the slot's axis, where its checkers are centred."""
        return self.slot_column_x0(slot) + self.point_width_mm / 2.0

    def slot_rect(self, slot: int) -> Rect:
        """The slot's column on its half of the board (the point plus the field up to the
        middle line): every checker of a column, however long, is centred inside it."""
        x0 = self.slot_column_x0(slot)
        x1 = x0 + self.point_width_mm
        if self.slot_is_top(slot):
            return Rect(x0, 0.0, x1, self.height_mm / 2.0)
        return Rect(x0, self.height_mm / 2.0, x1, self.height_mm)

    def point_triangle(self, slot: int) -> np.ndarray:
        """The painted point as a triangle (3x2 float64 mm): base on the edge, tip inward."""
        x0 = self.slot_column_x0(slot)
        x1 = x0 + self.point_width_mm
        xm = (x0 + x1) / 2.0
        if self.slot_is_top(slot):
            return np.array([[x0, 0.0], [x1, 0.0], [xm, self.point_length_mm]])
        h = self.height_mm
        return np.array([[x0, h], [x1, h], [xm, h - self.point_length_mm]])

    @staticmethod
    def point_colour_index(slot: int) -> int:
        """Which of the two point colours (0 or 1) a slot's point is painted: points alternate,
        and points facing each other across the board differ (slot 0 and slot 12 differ)."""
        _check_slot(slot)
        c = slot % 12
        return c % 2 if slot < 12 else (c + 1) % 2

    def slot_half(self, slot: int) -> Half:
        """Which half of the board (left or right of the bar) the slot belongs to."""
        _check_slot(slot)
        return "left" if slot % 12 < 6 else "right"

    def column_capacity(self) -> int:
        """How many checkers fit in one layer of a column before the middle line."""
        return int((self.height_mm / 2.0) // self.checker_diameter_mm)

    def checker_centre_mm(self, slot: int, index: int, layer: int = 0) -> tuple[float, float]:
        """Centre of the ``index``-th checker (0 = at the board edge) of a slot's column.

        Layer 0 checkers touch one another along the column; layer 1 checkers (the sixth or
        later checker laid over others) sit between two layer-0 checkers, so the layer-1
        checker ``index`` rests on layer-0 checkers ``index`` and ``index + 1``.
        """
        d = self.checker_diameter_mm
        along = (index + 0.5) * d if layer == 0 else (index + 1.0) * d
        x = self.slot_centre_x(slot)
        if self.slot_is_top(slot):
            return (x, along)
        return (x, self.height_mm - along)

    # -- outside the playing surface -----------------------------------------------------

    def tray_rect(self, side: Literal["left", "right"]) -> Rect:
        """A bear-off tray beside the playing surface, full height."""
        if side == "left":
            x1 = -self.tray_gap_mm
            return Rect(x1 - self.tray_width_mm, 0.0, x1, self.height_mm)
        x0 = self.width_mm + self.tray_gap_mm
        return Rect(x0, 0.0, x0 + self.tray_width_mm, self.height_mm)

    @property
    def outer_rect(self) -> Rect:
        """The whole board case: trays and frame included."""
        m = self.tray_gap_mm + self.tray_width_mm + self.frame_mm
        return Rect(-m, -self.frame_mm, self.width_mm + m, self.height_mm + self.frame_mm)

    def cube_place(self, place: CubePlace) -> Rect:
        """Where the doubling cube rests: ``centre`` (middle of the bar, nobody owns it),
        ``top-side``/``bottom-side`` (the bar end next to the player sitting at the top or the
        bottom of the picture, who owns it), ``offered`` (anywhere on the playing surface off
        the bar: the doubler puts it on the board, BG-CUBE-3)."""
        bar = self.bar
        c = self.cube_size_mm
        h = self.height_mm
        if place == "centre":
            return Rect(bar.x0 - c / 2, h / 2 - 1.5 * c, bar.x1 + c / 2, h / 2 + 1.5 * c)
        if place == "top-side":
            return Rect(bar.x0 - c / 2, -self.frame_mm, bar.x1 + c / 2, 2.0 * c)
        if place == "bottom-side":
            return Rect(bar.x0 - c / 2, h - 2.0 * c, bar.x1 + c / 2, h + self.frame_mm)
        if place == "offered":
            return self.playing_area
        raise InvalidInputError(f"unknown cube place {place!r}")

    def marker_centres_mm(self) -> np.ndarray:
        """Centres of the four ArUco markers (ids 0..3: top-left, top-right, bottom-right,
        bottom-left), stuck at the outer ends of the two bear-off trays; 4x2 float32.

        Each marker is ``marker_size_mm`` square plus a white quiet zone of a sixth of that on
        every side; borne-off checkers stand further in (see :meth:`off_zone`).
        """
        left = self.tray_rect("left").centre[0]
        right = self.tray_rect("right").centre[0]
        dy = self.marker_size_mm * (0.5 + 1.0 / 6.0) + 2.0
        top, bottom = dy, self.height_mm - dy
        pts = [(left, top), (right, top), (right, bottom), (left, bottom)]
        return np.array(pts, dtype=np.float32)

    def off_zone(self, side: Literal["left", "right"], end: Literal["top", "bottom"]) -> Rect:
        """The part of a tray where borne-off checkers stand on edge (past the marker)."""
        tray = self.tray_rect(side)
        clear = self.marker_size_mm * (1.0 + 1.0 / 3.0) + 6.0
        if end == "top":
            return Rect(tray.x0, clear, tray.x1, self.height_mm / 2.0)
        return Rect(tray.x0, self.height_mm / 2.0, tray.x1, self.height_mm - clear)

    # -- lookup ------------------------------------------------------------------------

    def region_at(self, x: float, y: float) -> Region:
        """Which slot, bar, field, tray or frame the board point (mm) falls in.

        On the playing surface a point belongs to the slot whose column holds it (the column
        runs from the edge to the middle line), else to the bar; ``half`` is set for both.
        """
        if self.playing_area.contains(x, y):
            if self.bar.contains(x, y):
                return Region("bar")
            half: Half = "left" if x < self.half_width_mm else "right"
            x_in = x if half == "left" else x - self.half_width_mm - self.bar_width_mm
            col = min(5, max(0, int(x_in // self.point_width_mm)))
            if half == "right":
                col += 6
            slot = col if y < self.height_mm / 2.0 else 12 + col
            return Region("slot", slot=slot, half=half)
        for side in ("left", "right"):
            if self.tray_rect(side).contains(x, y):
                return Region("tray", tray=side)
        if self.outer_rect.contains(x, y):
            return Region("frame")
        return Region("off-board")

    def half_at(self, x: float, y: float) -> Half | None:
        """Left or right half for a point on the playing surface off the bar, else None."""
        for half in ("left", "right"):
            if self.half_rect(half).contains(x, y):
                return half
        return None


def _check_slot(slot: int) -> None:
    if not 0 <= slot < SLOT_COUNT:
        raise InvalidInputError(f"slot {slot} is not in 0..23")


@dataclass(frozen=True)
class Canonical:
    """A canonical top-down raster of the board: ``px_per_mm`` pixels per millimetre, with
    ``margin_mm`` (x, y) of board around the playing surface on each side.

    ``homography_from_image(corners)`` gives the 3x3 matrix that ``cv2.warpPerspective`` uses to
    turn a camera image into this raster, given the playing surface's corners in the image.
    """

    geometry: BoardGeometry = field(default_factory=BoardGeometry)
    px_per_mm: float = 1.0
    margin_mm: tuple[float, float] = (0.0, 0.0)

    def __hash__(self) -> int:
        return _kept_hash(self)

    @classmethod
    def whole_board(cls, geometry: BoardGeometry, px_per_mm: float) -> Canonical:
        """A raster that holds the whole case: trays, frame and markers."""
        outer = geometry.outer_rect
        return cls(geometry, px_per_mm, (-outer.x0, -outer.y0))

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        g = self.geometry
        w = (g.width_mm + 2 * self.margin_mm[0]) * self.px_per_mm
        h = (g.height_mm + 2 * self.margin_mm[1]) * self.px_per_mm
        return (round(w), round(h))

    def mm_to_px(self, x: float, y: float) -> tuple[float, float]:
        """Board millimetres to canonical pixel coordinates (sub-pixel floats)."""
        s = self.px_per_mm
        return ((x + self.margin_mm[0]) * s, (y + self.margin_mm[1]) * s)

    def px_to_mm(self, u: float, v: float) -> tuple[float, float]:
        """Canonical pixel coordinates back to board millimetres."""
        s = self.px_per_mm
        return (u / s - self.margin_mm[0], v / s - self.margin_mm[1])

    def points_mm_to_px(self, pts: np.ndarray) -> np.ndarray:
        """Vectorised :meth:`mm_to_px` for an (N, 2) array; returns float32."""
        arr = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        out: np.ndarray = ((arr + np.asarray(self.margin_mm)) * self.px_per_mm).astype(np.float32)
        return out

    def region_at_px(self, u: float, v: float) -> Region:
        """Region lookup for a canonical pixel (see :meth:`BoardGeometry.region_at`)."""
        return self.geometry.region_at(*self.px_to_mm(u, v))

    def homography_from_image(self, corners_px: np.ndarray) -> np.ndarray:
        """The 3x3 image-to-canonical homography given the playing-surface corners in the
        image (top-left, top-right, bottom-right, bottom-left)."""
        src = np.asarray(corners_px, dtype=np.float32).reshape(4, 2)
        dst = self.points_mm_to_px(self.geometry.corners_mm)
        return _homography(src, dst)


def _homography(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Exact four-point homography (direct linear solve), so this module needs no OpenCV."""
    a = []
    b = []
    for (x, y), (u, v) in zip(src.astype(np.float64), dst.astype(np.float64), strict=True):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        b.append(u)
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b.append(v)
    try:
        h = np.linalg.solve(np.array(a), np.array(b))
    except np.linalg.LinAlgError as exc:
        raise InvalidInputError("the four corners are degenerate (three in a line)") from exc
    return np.append(h, 1.0).reshape(3, 3)


DEFAULT_GEOMETRY = BoardGeometry()
