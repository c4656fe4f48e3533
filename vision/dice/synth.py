"""Synthetic throws for tests and the evaluation: a board with checkers, two dice and the cube.

Each scene comes with its ground truth (pips, flat or cocked, on a checker, which half, the cube's
value and place). Dice land flat on free board, cocked against a checker, the rail or the other
die, or lying on a checker; opaque or translucent, in several colour pairs. The board itself is
drawn by the board renderer (``vision.render``), dice and cube being props, and photographed by
its camera (tilt, lens, light, noise, blur, JPEG); deterministic by seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.errors import InvalidInputError
from vision.cube import CubeProp, cube_place
from vision.cube_face import CUBE_VALUES
from vision.dice.render import DieProp, Material, leaning_reach
from vision.geometry import BoardGeometry
from vision.render import RenderedFrame, render_scene
from vision.render.scene import BoardContents, Prop, random_scene

# (material, body BGR, pip BGR): ivory/black, white/red pips, red translucent, green
# translucent, black/white, blue translucent.
DICE_STYLES: tuple[tuple[Material, tuple[int, int, int], tuple[int, int, int]], ...] = (
    ("opaque", (228, 238, 242), (28, 28, 28)),
    ("opaque", (240, 240, 240), (40, 40, 190)),
    ("translucent", (40, 40, 205), (245, 245, 245)),
    ("translucent", (70, 160, 40), (245, 245, 245)),
    ("opaque", (35, 35, 35), (235, 235, 235)),
    ("translucent", (170, 90, 30), (245, 245, 245)),
    ("opaque", (60, 200, 235), (20, 20, 20)),
)


@dataclass(frozen=True)
class DieTruth:
    """What a die in a synthetic scene really is."""

    pips: int
    x_mm: float
    y_mm: float
    flat: bool
    on_checker: bool
    half: str | None  # "left", "right" or None (bar, off the board)
    material: str = "opaque"


@dataclass(frozen=True)
class CubeTruth:
    """The cube's true value and place (geometry names)."""

    value: int
    x_mm: float
    y_mm: float
    place: str


@dataclass
class DiceScene:
    """A rendered camera frame, the playing-surface corners in it, and the truth."""

    image: np.ndarray
    corners: np.ndarray
    dice: list[DieTruth]
    cube: CubeTruth | None
    geometry: BoardGeometry = field(default_factory=BoardGeometry)
    frame: RenderedFrame | None = None


def _free_spot(rng: np.random.Generator, g: BoardGeometry, half: str,
               blockers: list[tuple[float, float, float]], radius: float) -> tuple[float, float]:
    rect = g.half_rect(half)  # type: ignore[arg-type]
    for _ in range(400):
        x = float(rng.uniform(rect.x0 + radius + 2, rect.x1 - radius - 2))
        y = float(rng.uniform(rect.y0 + radius + 2, rect.y1 - radius - 2))
        if all(math.hypot(x - bx, y - by) > radius + br + 1.5 for bx, by, br in blockers):
            return x, y
    raise InvalidInputError(f"no free spot for a die in the {half} half: the scene is too crowded")


def _leaning_spot(rng: np.random.Generator, g: BoardGeometry, half: str,
                  spots: list[tuple[float, float, int]],
                  blockers: list[tuple[float, float, float]], radius: float, tilt: float
                  ) -> tuple[float, float, float] | None:
    """Where a cocked die leans on a checker or on the rail: (x mm, y mm, tilt axis degrees).

    The die rests against the object with its top tipped towards it (tilt about the axis at
    ``axis`` tips the top towards (sin axis, -cos axis)). It lies clear of every other checker
    (a die leaning on the rail over a checker at the rail's edge would rest on that checker, not
    on the board: BG-ROLL-2's "on a checker", so the truth must not say "not on a checker")."""
    rect = g.half_rect(half)  # type: ignore[arg-type]
    r = g.checker_diameter_mm / 2
    reach = leaning_reach(g.die_size_mm, tilt)
    for _ in range(60):
        leaned: tuple[float, float] | None = None
        if rng.random() < 0.6 and spots:
            cx, cy, slot = spots[int(rng.integers(0, len(spots)))]
            if slot < 0 or not rect.contains(cx, cy):
                continue
            a = float(rng.uniform(0, 2 * math.pi))
            dx, dy = math.cos(a), math.sin(a)
            x, y = cx + dx * (r + reach + 0.5), cy + dy * (r + reach + 0.5)
            toward = (-dx, -dy)
            leaned = (cx, cy)
        else:
            top = rng.random() < 0.5
            x = float(rng.uniform(rect.x0 + radius + 2, rect.x1 - radius - 2))
            y = reach + 0.5 if top else g.height_mm - reach - 0.5
            toward = (0.0, -1.0) if top else (0.0, 1.0)
        if not (rect.x0 + radius < x < rect.x1 - radius and reach < y < g.height_mm - reach):
            continue
        if any(_blocks(x, y, b, leaned, radius, r + reach) for b in blockers):
            continue
        axis = math.degrees(math.atan2(toward[0], -toward[1]))
        return x, y, axis
    return None


def _blocks(x: float, y: float, blocker: tuple[float, float, float],
            leaned: tuple[float, float] | None, radius: float, touch: float) -> bool:
    """Whether a blocker keeps a leaning die at (x, y) away. The other die: closer than its
    radius and a bit. The checker the die leans on (``leaned``) never. Any other checker (or a
    keep-clear place): closer than the touching distance ``touch`` (else the die would be drawn
    over that checker; a die leaning on a checker once ignored its neighbours in the column
    and was drawn lying on one, labelled as not on a checker)."""
    bx, by, br = blocker
    d = math.hypot(x - bx, y - by)
    if br <= radius * 1.2:  # the other die
        return d < br + radius * 0.6
    if leaned is not None and (bx, by) == leaned:
        return False
    return d < touch


def checker_spots(g: BoardGeometry, contents: BoardContents) -> list[tuple[float, float, int]]:
    """Nominal centres (mm) of every first-layer checker on a point, and its slot."""
    out = []
    cap = g.column_capacity()
    for slot, (a, b) in enumerate(contents.slots):
        for index in range(min(a or b, cap)):
            x, y = g.checker_centre_mm(slot, index)
            out.append((x, y, slot))
    bar_x = g.bar.centre[0]
    if sum(contents.bar):
        out.extend((bar_x, y, -1) for y in np.linspace(0, g.height_mm, 13))  # keep clear
    return out


def random_dice_scene(seed: int, *, hard: bool = True, cocked_rate: float = 0.3,
                      on_checker_rate: float = 0.15, cube_rate: float = 0.9,
                      style: int | None = None) -> DiceScene:
    """A reproducible throw: the board renderer's random scene (no hands) with two dice and the
    cube added as props, rendered through its camera. ``style`` picks one of
    :data:`DICE_STYLES` instead of a random one."""
    rng = np.random.default_rng(seed + 7_000_000)
    spec = random_scene(seed, hand_probability=0.0, hard=hard, max_stack=5)
    g = spec.geometry
    contents = spec.contents
    spots = checker_spots(g, contents)
    r_check = g.checker_diameter_mm / 2 + 2.0
    blockers = [(x, y, r_check) for x, y, _ in spots]
    drawn = int(rng.integers(0, len(DICE_STYLES)))
    look = DICE_STYLES[drawn if style is None else style]
    half = "right" if rng.random() < 0.7 else "left"
    dice: list[DieTruth] = []
    props: list[Prop] = []
    die_r = g.die_size_mm * 0.75
    for _ in range(2):
        value = int(rng.integers(1, 7))
        yaw = float(rng.uniform(0, 360))
        mode = rng.random()
        this_half = half if rng.random() > 0.05 else ("left" if half == "right" else "right")
        # a checker the other die does not already lie on or beside (two dice dropped on one
        # checker overlapped: a scene no reader can get right)
        on_board = [s for s in spots if s[2] >= 0 and all(
            math.hypot(s[0] - d.x_mm, s[1] - d.y_mm) > 2 * die_r for d in dice)]
        if mode < on_checker_rate and on_board:
            cx, cy, _ = on_board[int(rng.integers(0, len(on_board)))]
            x = cx + float(rng.uniform(-4, 4))
            y = cy + float(rng.uniform(-4, 4))
            prop = DieProp(x, y, value, yaw, material=look[0], body_bgr=look[1],
                           pip_bgr=look[2], elevation_mm=g.checker_thickness_mm)
            truth_on = True
        else:
            x, y = _free_spot(rng, g, this_half, blockers, die_r)
            tilt = 0.0
            axis = 0.0
            if mode < on_checker_rate + cocked_rate:
                tilt = float(rng.uniform(12, 40))
                axis = float(rng.uniform(0, 360))
                lean = _leaning_spot(rng, g, this_half, spots, blockers, die_r, tilt)
                if lean is not None:
                    x, y, axis = lean
            prop = DieProp(x, y, value, yaw, tilt, axis, material=look[0], body_bgr=look[1],
                           pip_bgr=look[2])
            truth_on = False
        blockers.append((x, y, die_r))
        props.append(prop)
        dice.append(DieTruth(prop.upward_value(), x, y, prop.flat, truth_on, g.half_at(x, y),
                              look[0]))
    cube_truth: CubeTruth | None = None
    if rng.random() < cube_rate:
        place = str(rng.choice(["centre", "top-side", "bottom-side", "offered", "off-board"]))
        value = int(rng.choice(CUBE_VALUES))
        bar = g.bar
        c = g.cube_size_mm
        if place == "centre":
            cx_ = bar.centre[0] + float(rng.uniform(-3, 3))
            cy_ = g.height_mm / 2 + float(rng.uniform(-15, 15))
            value = 64
        elif place == "top-side":
            cx_, cy_ = bar.centre[0] + float(rng.uniform(-3, 3)), c * 0.5 + float(
                rng.uniform(0, 12))
        elif place == "bottom-side":
            cx_ = bar.centre[0] + float(rng.uniform(-3, 3))
            cy_ = g.height_mm - c * 0.5 - float(rng.uniform(0, 12))
        elif place == "offered":
            cx_, cy_ = _free_spot(rng, g, half, blockers, c * 0.75)
        else:
            tray = g.tray_rect("left")
            cx_, cy_ = tray.centre[0], float(rng.uniform(c, g.height_mm - c))
        yaw = float(rng.uniform(-20, 20)) + 90.0 * int(rng.integers(0, 4))
        font = int(rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX,
                               cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_COMPLEX]))
        props.insert(0, CubeProp(cx_, cy_, value, yaw, font=font))
        cube_truth = CubeTruth(value, cx_, cy_, cube_place(g, cx_, cy_))
    spec.props = tuple(props)
    frame = render_scene(spec)
    return DiceScene(frame.image, frame.corners, dice, cube_truth, g, frame)
