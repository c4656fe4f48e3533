"""The demo's camera: the synthetic renderer of ``vision.render`` with its fixed parts cached.

A real table's camera does not move, so the board, the camera model and the table cloth are
drawn once; each frame only adds checkers, dice, the cube and hands, and is photographed
through the cached lens maps and JPEG-compressed as a camera would. Every frame is a pure
function of what it shows (the random details are seeded from its contents), so a rerun or a
restart draws the very same pictures; each point's spacing and jitter and each checker's grain
are seeded by the point and the checker's place, so that, as at a real table, a checker lies
where it lay while others move (:meth:`DemoCamera.column_end` says where a column ends, for
the players' dice that rest against or on it).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.errors import ImageError, InvalidInputError
from vision.cube import CubeProp
from vision.dice.render import DieProp
from vision.geometry import BoardGeometry, Canonical
from vision.render import RENDER_PX_PER_MM
from vision.render.board import (
    checker_layout,
    draw_board,
    draw_checker,
    draw_off,
    slot_layout,
)
from vision.render.camera import camera_model
from vision.render.hands import draw_hand
from vision.render.scene import SCHEMES, BoardContents, CameraSpec, ColourScheme, HandSpec

IMAGE_SIZE = (1280, 720)
JPEG_QUALITY = 90
HINGE_HALF_MM = 25.0  # half the height of a hinge on the bar (vision.render.board)
SLOT_KEY, GRAIN_KEY, CUBE_KEY = 1, 2, 3  # what a stable generator is for (with the camera's seed)
OFFSET = 1_000_000  # keeps a place in 0.01 mm a non-negative seed (a bar checker may lie at x < 0)


def demo_camera(size: tuple[int, int] = IMAGE_SIZE) -> CameraSpec:
    """A camera square above the board, the playing surface filling most of the picture."""
    w, h = size
    return CameraSpec(
        image_size=size,
        playing_width_px=0.52 * w,
        centre_px=(w / 2, h * 0.5),
        rotation_deg=0.8,
        k1=-0.01,
        noise_sigma=1.5,
        jpeg_quality=JPEG_QUALITY,
    )


@dataclass(frozen=True)
class Shot:
    """What one frame shows: checkers, dice, cube and hands (all hashable)."""

    contents: BoardContents
    dice: tuple[DieProp, ...] = ()
    cube: CubeProp | None = None
    hands: tuple[HandSpec, ...] = ()

    def key(self) -> str:
        """A stable name for the picture (used to seed its details and to cache it)."""
        return hashlib.sha1(repr(self).encode("utf-8")).hexdigest()[:16]


@dataclass
class DemoCamera:
    """Renders :class:`Shot` pictures quickly: board, lens maps and cloth drawn once."""

    seed: int = 0
    scheme: ColourScheme = SCHEMES[0]
    geometry: BoardGeometry = field(default_factory=BoardGeometry)
    spec: CameraSpec = field(default_factory=demo_camera)
    cache_size: int = 8

    def __post_init__(self) -> None:
        rng = np.random.default_rng(self.seed)
        self.canonical = Canonical.whole_board(self.geometry, RENDER_PX_PER_MM)
        w, h = self.canonical.size
        self._board = np.zeros((h, w, 3), np.uint8)
        draw_board(self._board, self.canonical, self.scheme, rng)
        self.model = camera_model(self.canonical, self.spec)
        self._maps = self.model.sampling_maps()
        iw, ih = self.spec.image_size
        table = np.empty((ih, iw, 3), np.float32)
        table[:] = self.spec.table_colour
        weave = cv2.GaussianBlur(rng.normal(0, 6, (ih, iw)).astype(np.float32), (0, 0), 1.5)
        self._table = np.clip(table + weave[..., None], 0, 255).astype(np.uint8)
        # a fixed sensor noise pattern (a live camera's noise changes, but then the stillness
        # gate would have to tolerate it; a fixed one keeps frames of a still scene identical)
        noise = rng.normal(0.0, self.spec.noise_sigma, (ih, iw, 1)).astype(np.float32)
        self._noise = noise
        self.corners = self.model.canvas_to_image(
            self.canonical.points_mm_to_px(self.geometry.corners_mm))
        # the hinges ``vision.render.board.draw_board`` puts on the bar (centres, mm)
        self._hinges = (0.18 * self.geometry.height_mm, 0.82 * self.geometry.height_mm)
        self._checkers: OrderedDict[tuple[BoardContents, CubeProp | None], np.ndarray] = (
            OrderedDict())
        self._frames: OrderedDict[str, tuple[np.ndarray, bytes]] = OrderedDict()

    def _with_checkers(self, contents: BoardContents, cube: CubeProp | None) -> np.ndarray:
        """The board with its checkers and the cube (they change less often than the rest)."""
        key = (contents, cube)
        cached = self._checkers.get(key)
        if cached is not None:
            self._checkers.move_to_end(key)
            return cached
        canvas = self._board.copy()
        draw_off(canvas, self.canonical, self.scheme, contents, darker_at_bottom=True)
        layout, _ = self._layout(contents, cube)
        for layer in (0, 1, 2):
            for x, y, colour, lay in layout:
                if lay != layer:
                    continue
                grain = np.random.default_rng(
                    [self.seed, GRAIN_KEY, round(100 * x) + OFFSET, round(100 * y) + OFFSET,
                     layer, colour])
                draw_checker(canvas, self.canonical, x, y,
                             self.scheme.darker if colour == 0 else self.scheme.lighter, grain,
                             marbled=self.scheme.marbled and colour == 0,
                             pearl=self.scheme.pearl, lift_mm=8.0 * layer)
        if cube is not None:
            cube_digest = hashlib.sha1(repr(cube).encode("utf-8")).digest()
            cube.draw(canvas, self.canonical, np.random.default_rng(
                [self.seed, CUBE_KEY, int.from_bytes(cube_digest[:8], "big")]))
        self._checkers[key] = canvas
        while len(self._checkers) > self.cache_size:
            self._checkers.popitem(last=False)
        return canvas

    def _layout(self, contents: BoardContents, cube: CubeProp | None
                ) -> tuple[list[tuple[float, float, int, int]], bool]:
        """Where the checkers lie (x, y mm, colour, layer), and whether the bar's were laid
        where there is room: not under the cube, and clear of the bar's hinges (which the
        board reader can take for a checker beside a checker). A checker lies where it lay,
        looking as it looked, while others move: each point's spacing and jitter come from
        generators of their own. With the cube on the bar (centred, BG-CUBE-1) the bar's
        checkers are laid beside it, clear of the hinges too where there is room for them all;
        else layouts are drawn until one leaves the hinges (and the cube) clear."""
        digest = hashlib.sha1(repr((contents, cube)).encode("utf-8")).digest()
        seed = int.from_bytes(digest[:8], "big") ^ self.seed
        if cube is not None and self.geometry.bar.contains(cube.x_mm, cube.y_mm):
            around = self._cube_reach(cube)
            beside = (cube.y_mm - around, cube.y_mm + around)
            for spans, clear in (((beside, *self._hinge_spans()), True), ((beside,), False)):
                try:
                    return checker_layout(self.geometry, contents, np.random.default_rng(seed),
                                          darker_at_bottom=True, slot_rng=self._slot_rng,
                                          keep_clear=spans), clear
                except InvalidInputError:  # too many checkers on the bar for that room
                    continue
        for attempt in range(100):
            rng = np.random.default_rng(seed + attempt)
            layout = checker_layout(self.geometry, contents, rng, darker_at_bottom=True,
                                    slot_rng=self._slot_rng)
            if not self._bar_blocked(layout, cube):
                return layout, True
        return layout, False

    def bar_clear(self, contents: BoardContents, cube: CubeProp | None) -> bool:
        """Whether this camera lays the checkers on the bar clear of the cube and the hinges.
        When not: with the cube on the bar, they are laid clear of the cube but not of the
        hinges (too many for the room); else as its last try laid them, which may be under
        the cube."""
        return self._layout(contents, cube)[1]

    def column_end(self, slot: int, n: int) -> tuple[float, float]:
        """Where this camera draws the outermost column checker of ``slot`` holding ``n``
        (x, y mm): what a die thrown there comes to rest against or on."""
        places = slot_layout(self.geometry, slot, n, 0, self._slot_rng(slot))
        column = [(x, y) for x, y, _c, layer in places if layer == 0]
        return column[-1]

    def _slot_rng(self, slot: int) -> np.random.Generator:
        """The generator of one point's spacing and jitter (the same for every scene)."""
        return np.random.default_rng([self.seed, SLOT_KEY, slot])

    def _bar_blocked(self, layout: list[tuple[float, float, int, int]],
                     cube: CubeProp | None) -> bool:
        """A checker on the bar lies under the cube, or so near a hinge that the hinge looks
        like one more checker beside it."""
        bar = self.geometry.bar
        on_bar = [(x, y) for x, y, _c, _l in layout if bar.x0 <= x <= bar.x1]
        hinges = self._hinge_spans()
        for x, y in on_bar:
            if any(y0 < y < y1 for y0, y1 in hinges):
                return True
            if cube is not None:
                reach = self._cube_reach(cube)
                if abs(x - cube.x_mm) < reach and abs(y - cube.y_mm) < reach:
                    return True
        return False

    def _hinge_spans(self) -> tuple[tuple[float, float], ...]:
        """The spans of the bar (y0, y1 mm) where a checker's centre lies so near a hinge that
        the hinge looks like one more checker beside it."""
        reach = HINGE_HALF_MM + 1.5 * self.geometry.checker_diameter_mm
        return tuple((h - reach, h + reach) for h in self._hinges)

    def _cube_reach(self, cube: CubeProp) -> float:
        """How near (mm, along either axis) a checker's centre may come to the cube's."""
        side = cube.size_mm or self.geometry.cube_size_mm
        return side / 2 * 1.5 + self.geometry.checker_diameter_mm / 2

    def render(self, shot: Shot) -> tuple[np.ndarray, bytes]:
        """The camera's picture of ``shot``: the decoded image and its JPEG bytes."""
        key = shot.key()
        cached = self._frames.get(key)
        if cached is not None:
            self._frames.move_to_end(key)
            return cached
        rng = np.random.default_rng(int(key, 16) ^ self.seed)
        canvas = self._with_checkers(shot.contents, shot.cube).copy()
        for die in shot.dice:
            die.draw(canvas, self.canonical, rng)
        for hand in shot.hands:
            draw_hand(canvas, self.canonical, hand, rng)
        img = self._table.copy()
        mx, my = self._maps
        cv2.remap(canvas, mx, my, cv2.INTER_LINEAR, dst=img, borderMode=cv2.BORDER_TRANSPARENT)
        noisy = np.clip(img.astype(np.float32) + self._noise, 0, 255).astype(np.uint8)
        ok, buf = cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:  # pragma: no cover - OpenCV always encodes a uint8 BGR array
            raise ImageError("jpeg encoding failed")
        data = buf.tobytes()
        image = decode_jpeg(data)
        self._frames[key] = (image, data)
        while len(self._frames) > self.cache_size:
            self._frames.popitem(last=False)
        return image, data

    def corners_flat(self) -> list[float]:
        """The playing surface's corners in the picture, as the table configuration holds them."""
        return [round(float(v), 2) for v in np.asarray(self.corners).reshape(-1)]


def decode_jpeg(data: bytes) -> np.ndarray:
    """JPEG bytes to a BGR picture."""
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ImageError("not a jpeg picture")
    return np.asarray(image)


def contents_from_counts(slots: Sequence[tuple[int, int]], bar: tuple[int, int],
                         off: tuple[int, int]) -> BoardContents:
    """Table counts to the renderer's board contents."""
    return BoardContents(tuple((int(a), int(b)) for a, b in slots), (int(bar[0]), int(bar[1])),
                         (int(off[0]), int(off[1])))
