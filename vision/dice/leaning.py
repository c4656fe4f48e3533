"""Throws where a die rests beside a checker: cocked against it or lying flat close to it.

The hard cases for the flat/cocked judgement (BG-ROLL-2): a die tipped against the outermost
checker of a stack (its top leaning towards the checker, as dice come to rest in play and as
the demo's players plant cocked throws), against the rail, and flat dice a few millimetres from
a checker of their own colour; and throws as a fixed table camera sees them (the demo's kind of
picture: plain light, the tournament's dice leaning straight on a checker, or a die of few
pips leaning on a checker above it, square to the picture). The cocked model
(``vision.dice.train_cocked``) is fitted on these besides ``vision.dice.synth``'s random
throws; deterministic by seed.
"""

from __future__ import annotations

import math

import numpy as np

from vision.dice.render import DieProp, leaning_reach
from vision.dice.synth import DICE_STYLES, DiceScene, DieTruth
from vision.geometry import BoardGeometry
from vision.render import render_scene
from vision.render.scene import BoardContents, CameraSpec, SceneSpec, random_scene

WHITE_RED = 1  # DICE_STYLES index of the tournament's white dice with red pips


def _stack_ends(g: BoardGeometry, contents: BoardContents, half: str
                ) -> list[tuple[float, float]]:
    """The centre of the outermost first-layer checker of every stack in ``half``."""
    out = []
    cap = g.column_capacity()
    for slot in range(24):
        n = min(sum(contents.slots[slot]), cap)
        if n and g.slot_half(slot) == half:
            out.append(g.checker_centre_mm(slot, n - 1))
    return out


def beside_checker_scene(seed: int, *, cocked: bool, tilt_range: tuple[float, float] = (
        12.0, 40.0), style: int | None = None, rail: bool = False) -> DiceScene:
    """A throw of two dice in one half: one flat in the middle of the board, the other beside
    the outermost checker of a stack (towards the board's middle), cocked against it by a tilt
    drawn from ``tilt_range`` when ``cocked``, else flat 0.5 to 5 mm from it; with no checker
    in that half, against (or beside) the rail. ``style``: the dice's look (index in
    ``synth.DICE_STYLES``), else drawn (the tournament's white dice 40% of the time);
    ``rail``: against (or beside) the rail whatever checkers the half holds."""
    rng = np.random.default_rng(seed + 11_000_000)
    spec = random_scene(seed, hand_probability=0.0, hard=bool(rng.random() < 0.6), max_stack=5)
    g = spec.geometry
    if style is None:
        style = WHITE_RED if rng.random() < 0.4 else int(rng.integers(0, len(DICE_STYLES)))
    material, body, pip = DICE_STYLES[style]
    half = "right" if rng.random() < 0.5 else "left"
    rect = g.half_rect(half)  # type: ignore[arg-type]
    r = g.checker_diameter_mm / 2
    tilt = float(rng.uniform(*tilt_range)) if cocked else 0.0
    reach = leaning_reach(g.die_size_mm, tilt)
    gap = 0.5 if cocked else float(rng.uniform(0.5, 5.0))
    ends = _stack_ends(g, spec.contents, half)
    if ends and rng.random() < 0.85 and not rail:
        cx, cy = ends[int(rng.integers(0, len(ends)))]
        dy = 1.0 if cy < g.height_mm / 2 else -1.0  # towards the middle of the board
        sway = float(rng.uniform(-25, 25)) if rng.random() < 0.4 else 0.0
        a = math.radians(sway)
        ux, uy = math.sin(a), dy * math.cos(a)
        x, y = cx + ux * (r + reach + gap), cy + uy * (r + reach + gap)
        toward = (-ux, -uy)
    else:  # the rail at the top or bottom of the board
        top = rng.random() < 0.5
        x = float(rng.uniform(rect.x0 + 20, rect.x1 - 20))
        y = reach + gap if top else g.height_mm - reach - gap
        toward = (0.0, -1.0) if top else (0.0, 1.0)
    axis = math.degrees(math.atan2(toward[0], -toward[1]))
    leaning = DieProp(x, y, int(rng.integers(1, 7)), float(rng.uniform(0, 360)), tilt, axis,
                      material=material, body_bgr=body, pip_bgr=pip)
    fx = float(np.clip(x + rng.choice([-1, 1]) * rng.uniform(35, 60), rect.x0 + 12, rect.x1 - 12))
    fy = g.height_mm / 2 + float(rng.uniform(-10, 10))
    flat = DieProp(fx, fy, int(rng.integers(1, 7)), float(rng.uniform(0, 360)), material=material,
                   body_bgr=body, pip_bgr=pip)
    return _rendered(spec, (flat, leaning))


def _plain_camera(rng: np.random.Generator) -> CameraSpec:
    """A fixed table camera as the demo's (square above the board, the playing surface about
    0.52 of a 1280 px frame, little distortion, light noise, JPEG), varied a little."""
    return CameraSpec(
        image_size=(1280, 720),
        playing_width_px=0.52 * 1280 * float(rng.uniform(0.95, 1.05)),
        centre_px=(640.0 + float(rng.uniform(-15, 15)), 360.0 + float(rng.uniform(-8, 8))),
        rotation_deg=float(rng.uniform(-1.5, 2.5)),
        k1=float(rng.uniform(-0.03, 0.0)),
        light_gradient=float(rng.uniform(0.0, 0.1)),
        light_angle_deg=float(rng.uniform(0, 360)),
        noise_sigma=float(rng.uniform(0.8, 2.5)),
        jpeg_quality=int(rng.integers(85, 96)),
    )


def _table_start(rng_seed: int, seed: int
                 ) -> tuple[np.random.Generator, SceneSpec, str, DieProp]:
    """The start the table throws share: their generator, a board of ``seed`` seen by
    :func:`_plain_camera`, the half thrown into and a first die lying flat in its middle band
    (mostly the tournament's white dice with red pips)."""
    rng = np.random.default_rng(rng_seed)
    spec = random_scene(seed, hand_probability=0.0, hard=False, max_stack=5)
    spec.camera = _plain_camera(rng)
    g = spec.geometry
    style = WHITE_RED if rng.random() < 0.7 else int(rng.integers(0, len(DICE_STYLES)))
    material, body, pip = DICE_STYLES[style]
    half = "right" if rng.random() < 0.5 else "left"
    rect = g.half_rect(half)  # type: ignore[arg-type]
    x1 = float(rng.uniform(rect.x0 + 40, rect.x1 - 90))
    y1 = g.height_mm / 2 + float(rng.uniform(-10, 10))
    first = DieProp(x1, y1, int(rng.integers(1, 7)), float(rng.uniform(0, 360)),
                    material=material, body_bgr=body, pip_bgr=pip)
    return rng, spec, half, first


def table_throw_scene(seed: int, *, cocked: bool) -> DiceScene:
    """A throw as a table camera sees it (:func:`_plain_camera`): two dice in one half, the
    first flat in the middle band of the board; the second, when ``cocked``, tilted 18 to 38
    degrees straight towards the outermost checker of a stack it leans on (sometimes a little
    aside), against the rail, or tilted where it fell; otherwise flat, beside the first or a
    few mm from a checker. Mostly the tournament's white dice with red pips."""
    rng, spec, half, first = _table_start(seed + 13_000_000, seed)
    g, material, body, pip = spec.geometry, first.material, first.body_bgr, first.pip_bgr
    rect = g.half_rect(half)  # type: ignore[arg-type]
    r = g.checker_diameter_mm / 2
    x1, y1 = first.x_mm, first.y_mm
    tilt = float(rng.uniform(18.0, 38.0)) if cocked else 0.0
    reach = leaning_reach(g.die_size_mm, tilt)
    ends = _stack_ends(g, spec.contents, half)
    where = rng.random()
    axis = float(rng.uniform(0, 360))
    if ends and where < (0.8 if cocked else 0.4):  # against (or beside) a checker
        cx, cy = ends[int(rng.integers(0, len(ends)))]
        dy = 1.0 if cy < g.height_mm / 2 else -1.0
        a = math.radians(float(rng.uniform(-20, 20)) if rng.random() < 0.3 else 0.0)
        ux, uy = math.sin(a), dy * math.cos(a)
        gap = 0.5 if cocked else float(rng.uniform(0.5, 5.0))
        x, y = cx + ux * (r + reach + gap), cy + uy * (r + reach + gap)
        axis = math.degrees(math.atan2(-ux, uy))
    elif cocked and where < 0.9:  # against the rail
        top = rng.random() < 0.5
        x = float(rng.uniform(rect.x0 + 20, rect.x1 - 20))
        y = reach + 0.5 if top else g.height_mm - reach - 0.5
        axis = 0.0 if top else 180.0
    else:  # where it fell, beside the first die
        x, y = x1 + float(rng.uniform(38.0, 55.0)), y1 + float(rng.uniform(-6.0, 6.0))
    second = DieProp(x, y, int(rng.integers(1, 7)), float(rng.uniform(0, 360)), tilt, axis,
                     material=material, body_bgr=body, pip_bgr=pip)
    return _rendered(spec, (first, second))


def _rendered(spec: SceneSpec, dice: tuple[DieProp, ...]) -> DiceScene:
    """``spec`` rendered with ``dice`` on it, and their truth."""
    g = spec.geometry
    truth = [DieTruth(p.upward_value(), p.x_mm, p.y_mm, p.flat, False,
                      g.half_at(p.x_mm, p.y_mm), p.material) for p in dice]
    spec.props = dice
    frame = render_scene(spec)
    return DiceScene(frame.image, frame.corners, truth, None, g, frame)


def facing_lean_scene(seed: int) -> DiceScene:
    """A throw as the table camera sees it whose second die shows one, two or three pips and
    leans straight on the outermost checker of a stack above it in the picture, turned square
    (within 12 degrees) to the board's edges: the die's side face stands towards the camera as
    one plain band, the kind of cocked die the model read flat in the referee's draws
    (matches 4908862 and 910138); the first die lies flat in the middle band. With no such
    stack in the half, against the rail at the top."""
    rng, spec, half, first = _table_start(seed + 17_000_000, seed)
    g, material, body, pip = spec.geometry, first.material, first.body_bgr, first.pip_bgr
    rect = g.half_rect(half)  # type: ignore[arg-type]
    tilt = float(rng.uniform(18.0, 38.0))
    reach = leaning_reach(g.die_size_mm, tilt)
    above = [(cx, cy) for cx, cy in _stack_ends(g, spec.contents, half) if cy < g.height_mm / 2]
    if above:
        cx, cy = above[int(rng.integers(0, len(above)))]
        x, y = cx, cy + g.checker_diameter_mm / 2 + reach + 0.5
    else:
        x, y = float(rng.uniform(rect.x0 + 20, rect.x1 - 20)), reach + 0.5
    yaw = 90.0 * int(rng.integers(0, 4)) + float(rng.uniform(-12.0, 12.0))
    second = DieProp(x, y, int(rng.integers(1, 4)), yaw, tilt, 0.0, material=material,
                     body_bgr=body, pip_bgr=pip)
    return _rendered(spec, (first, second))
