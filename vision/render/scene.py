"""What a synthetic scene holds: the board's contents, colours, camera, hands and extra props.

Everything random is drawn from one ``numpy.random.Generator`` so a scene is reproducible from
its seed (see :func:`random_scene`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from engine.errors import PositionError
from vision.geometry import BoardGeometry, Canonical

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class BoardContents:
    """Checkers on the board in image slot order: ``slots[i] = (darker, lighter)``; ``bar`` and
    ``off`` as (darker, lighter). A slot holds checkers of one colour at most."""

    slots: tuple[tuple[int, int], ...]
    bar: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        if len(self.slots) != 24:
            raise PositionError(f"board contents need 24 slots, not {len(self.slots)}")
        for i, (a, b) in enumerate(self.slots):
            if a < 0 or b < 0:
                raise PositionError(f"slot {i} has a negative count")
            if a and b:
                raise PositionError(f"slot {i} holds both colours")

    @classmethod
    def empty(cls) -> BoardContents:
        return cls(tuple((0, 0) for _ in range(24)))

    def totals(self) -> tuple[int, int]:
        """All checkers of each colour: slots, bar and off."""
        a = sum(s[0] for s in self.slots) + self.bar[0] + self.off[0]
        b = sum(s[1] for s in self.slots) + self.bar[1] + self.off[1]
        return (a, b)


@dataclass(frozen=True)
class ColourScheme:
    """Board and checker colours (BGR). ``marbled`` draws streaks in the darker checkers,
    ``pearl`` a lustre in the lighter ones."""

    name: str
    frame: BGR
    field: BGR
    points: tuple[BGR, BGR]
    bar: BGR
    darker: BGR
    lighter: BGR
    marbled: bool = False
    pearl: bool = True


SCHEMES: tuple[ColourScheme, ...] = (
    ColourScheme(
        "gold-white-cream",
        (40, 50, 62),
        (196, 214, 222),
        ((35, 32, 30), (70, 140, 190)),
        (38, 46, 58),
        (40, 150, 215),
        (232, 236, 236),
    ),
    ColourScheme(
        "red-white-olive",
        (60, 110, 160),
        (110, 165, 170),
        ((80, 90, 175), (85, 100, 95)),
        (55, 100, 150),
        (50, 40, 195),
        (236, 240, 240),
        marbled=True,
        pearl=False,
    ),
    ColourScheme(
        "black-white-wood",
        (30, 60, 100),
        (80, 135, 185),
        ((45, 45, 150), (205, 225, 235)),
        (28, 55, 95),
        (38, 36, 36),
        (228, 234, 236),
    ),
    ColourScheme(
        "maroon-white-red",
        (35, 40, 60),
        (55, 60, 150),
        ((30, 30, 32), (200, 220, 228)),
        (35, 40, 60),
        (45, 30, 105),
        (230, 235, 238),
        marbled=True,
    ),
    ColourScheme(
        "red-white-black",
        (40, 45, 50),
        (40, 42, 44),
        ((60, 60, 170), (190, 210, 220)),
        (40, 45, 50),
        (45, 45, 200),
        (238, 238, 238),
        pearl=False,
    ),
    ColourScheme(
        "gold-white-wood",
        (25, 45, 70),
        (120, 170, 205),
        ((25, 25, 25), (40, 60, 120)),
        (25, 45, 70),
        (30, 140, 200),
        (235, 238, 240),
    ),
)


@runtime_checkable
class Prop(Protocol):
    """Anything extra on the board (a die, the cube, a cup...), drawn in canonical space after
    the checkers and before the hands and the camera.

    ``draw`` paints onto ``canvas`` (BGR uint8, the whole-board raster described by
    ``canonical``) and returns an optional uint8 mask (same height and width, non-zero where
    the prop hides the board) or None. A prop whose ``occludes`` attribute is True has its mask
    counted as hiding the slots below it in the ground truth (a hand-like object); dice and
    cubes leave it False.
    """

    def draw(
        self, canvas: np.ndarray, canonical: Canonical, rng: np.random.Generator
    ) -> np.ndarray | None: ...


@dataclass(frozen=True)
class HandSpec:
    """An arm reaching over the board: from ``entry_mm`` (outside the board) to ``tip_mm``."""

    entry_mm: tuple[float, float]
    tip_mm: tuple[float, float]
    width_mm: float = 95.0
    skin: BGR = (120, 150, 200)
    sleeve: BGR = (90, 40, 30)


@dataclass(frozen=True)
class CameraSpec:
    """How the camera sees the board and the light falls on it."""

    image_size: tuple[int, int] = (1280, 720)
    playing_width_px: float = 620.0
    centre_px: tuple[float, float] = (640.0, 372.0)
    rotation_deg: float = 0.0
    # Perspective: each playing-surface corner moved by up to this fraction of the width.
    corner_jitter: tuple[tuple[float, float], ...] = ((0, 0), (0, 0), (0, 0), (0, 0))
    k1: float = 0.0  # radial lens distortion (negative = barrel)
    light_gradient: float = 0.0  # brightness change across the picture, as a fraction
    light_angle_deg: float = 0.0
    glare: tuple[tuple[float, float, float, float], ...] = ()  # (x, y, sigma px, amplitude)
    shadow: tuple[tuple[float, float], ...] = ()  # polygon in image px, darkened
    shadow_strength: float = 0.0
    noise_sigma: float = 0.0
    blur_sigma: float = 0.0
    jpeg_quality: int = 92
    table_colour: BGR = (110, 70, 50)


@dataclass
class SceneSpec:
    """A complete scene: contents, colours, camera, hands and props."""

    contents: BoardContents
    scheme: ColourScheme = SCHEMES[0]
    camera: CameraSpec = field(default_factory=CameraSpec)
    hands: tuple[HandSpec, ...] = ()
    props: tuple[Prop, ...] = ()
    geometry: BoardGeometry = field(default_factory=BoardGeometry)
    markers: bool = False
    darker_at_bottom: bool = True  # whose tray half holds which colour's borne-off checkers
    seed: int = 0
    # the points' checkers laid this far (mm) off their axis, alternately left and right by
    # slot (``render.board.checker_layout``); the layout's own jitter is at most 1 mm
    off_axis_mm: float = 0.0


def random_contents(rng: np.random.Generator, max_stack: int = 8) -> BoardContents:
    """A random board: 15 checkers a side spread over slots (one colour per slot, stacks up to
    ``max_stack``), a few on the bar and some borne off. Not necessarily a legal position; the
    reader does not care."""
    slots = [[0, 0] for _ in range(24)]
    bar = [0, 0]
    off = [0, 0]
    free = list(range(24))
    rng.shuffle(free)
    for colour in (0, 1):
        left = 15
        bar[colour] = int(rng.choice([0, 0, 0, 0, 1, 1, 2, 3]))
        left -= bar[colour]
        off[colour] = int(rng.choice([0, 0, 0, 0, 0, 1, 3, 5, 8]))
        left -= off[colour]
        while left > 0 and free:
            slot = free.pop()
            n = int(min(left, rng.choice([1, 1, 2, 2, 2, 3, 3, 4, 5, 6, 7, 8])))
            n = min(n, max_stack)
            slots[slot][colour] = n
            left -= n
        off[colour] += left
    return BoardContents(
        tuple((a, b) for a, b in slots), (bar[0], bar[1]), (off[0], off[1])
    )


def random_camera(rng: np.random.Generator, *, hard: bool = True) -> CameraSpec:
    """A random camera and light set-up; ``hard`` adds glare, shadows, distortion and noise."""
    width = float(rng.uniform(560, 700))
    jitter = tuple(
        (float(rng.uniform(-0.03, 0.03)), float(rng.uniform(-0.03, 0.03))) for _ in range(4)
    )
    glare: tuple[tuple[float, float, float, float], ...] = ()
    shadow: tuple[tuple[float, float], ...] = ()
    strength = 0.0
    if hard and rng.random() < 0.4:
        glare = (
            (
                float(rng.uniform(350, 930)),
                float(rng.uniform(100, 620)),
                float(rng.uniform(25, 70)),
                float(rng.uniform(30, 80)),
            ),
        )
    if hard and rng.random() < 0.3:
        x0 = float(rng.uniform(200, 1000))
        x1 = x0 + float(rng.uniform(150, 400))
        shadow = ((x0, -10.0), (x1, -10.0), (x0 + 100, 730.0), (x0 - 80, 730.0))
        strength = float(rng.uniform(0.15, 0.35))
    table = (
        int(rng.integers(40, 160)),
        int(rng.integers(40, 140)),
        int(rng.integers(30, 140)),
    )
    return CameraSpec(
        playing_width_px=width,
        centre_px=(640.0 + float(rng.uniform(-50, 50)), 360.0 + float(rng.uniform(-8, 8))),
        rotation_deg=float(rng.uniform(-3, 3)),
        corner_jitter=jitter,
        k1=float(rng.uniform(-0.05, 0.03)) if hard else 0.0,
        light_gradient=float(rng.uniform(0.0, 0.35 if hard else 0.1)),
        light_angle_deg=float(rng.uniform(0, 360)),
        glare=glare,
        shadow=shadow,
        shadow_strength=strength,
        noise_sigma=float(rng.uniform(0.5, 5.0 if hard else 2.0)),
        blur_sigma=float(rng.uniform(0.0, 1.1 if hard else 0.5)),
        jpeg_quality=int(rng.integers(60 if hard else 85, 96)),
        table_colour=table,
    )


SKINS: tuple[BGR, ...] = ((125, 155, 210), (95, 125, 175), (60, 85, 125), (150, 180, 225))


def random_hand(rng: np.random.Generator, geometry: BoardGeometry) -> HandSpec:
    """An arm coming in from the top or bottom edge (where the players sit) or a side."""
    w, h = geometry.width_mm, geometry.height_mm
    side = int(rng.integers(0, 4))
    if side == 0:
        entry = (float(rng.uniform(0, w)), -250.0)
    elif side == 1:
        entry = (float(rng.uniform(0, w)), h + 250.0)
    elif side == 2:
        entry = (-300.0, float(rng.uniform(0, h)))
    else:
        entry = (w + 300.0, float(rng.uniform(0, h)))
    tip = (float(rng.uniform(0.1 * w, 0.9 * w)), float(rng.uniform(0.1 * h, 0.9 * h)))
    sleeve = (int(rng.integers(0, 200)), int(rng.integers(0, 200)), int(rng.integers(0, 200)))
    skin = SKINS[int(rng.integers(0, len(SKINS)))]
    return HandSpec(entry, tip, float(rng.uniform(80, 110)), skin, sleeve)


def random_scene(
    seed: int,
    *,
    hand_probability: float = 0.25,
    hard: bool = True,
    max_stack: int = 8,
    markers: bool = False,
) -> SceneSpec:
    """A reproducible random scene: the same seed always gives the same scene."""
    rng = np.random.default_rng(seed)
    geometry = BoardGeometry()
    contents = random_contents(rng, max_stack)
    scheme = SCHEMES[int(rng.integers(0, len(SCHEMES)))]
    camera = random_camera(rng, hard=hard)
    hands: tuple[HandSpec, ...] = ()
    if rng.random() < hand_probability:
        hands = (random_hand(rng, geometry),)
    return SceneSpec(
        contents,
        scheme,
        camera,
        hands,
        (),
        geometry,
        markers=markers,
        darker_at_bottom=bool(rng.random() < 0.5),
        seed=int(rng.integers(0, 2**31 - 1)),
    )
