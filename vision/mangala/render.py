"""Synthetic photographs of a Mangala board: wood, pits, glass stones and a camera.

Stones are dropped one by one into their pit or store and settle in the lowest of a few tries
(so big piles stack in layers and upper stones hide lower ones), drawn from the lowest up as
shaded translucent glass with a highlight, seen through a tilted camera with uneven light, noise,
blur and JPEG. Deterministic by seed. Used to calibrate and evaluate the stone reader.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from engine.errors import PositionError
from vision.mangala.geometry import CELL_COUNT, DEFAULT_GEOMETRY, Cell, MangalaGeometry

BGR = tuple[int, int, int]

# Glass stone colours (BGR): deep blue, green, red, amber, purple, teal, milky white, smoke.
STONE_COLOURS: tuple[BGR, ...] = (
    (170, 60, 20), (60, 150, 40), (40, 40, 185), (20, 150, 215), (140, 40, 110),
    (150, 140, 30), (190, 190, 184), (70, 70, 75), (200, 120, 60), (90, 200, 120),
)
CANVAS_PX_PER_MM = 3.0
CAMERA_HEIGHT_MM = 650.0
STONE_THICKNESS = 0.55  # height of a stone as a fraction of its diameter


@dataclass(frozen=True)
class Stone:
    """One stone as it lies: centre (mm), height of its top above the board (mm), radii (mm),
    orientation (degrees), colour and translucency."""

    cell: int
    x: float
    y: float
    z: float
    rx: float
    ry: float
    angle: float
    colour: BGR
    alpha: float


@dataclass(frozen=True)
class HandCover:
    """An arm reaching over the board: entry point on an edge and fingertip, in mm."""

    entry: tuple[float, float]
    tip: tuple[float, float]
    width: float


def _check_cells(cells: Sequence[int]) -> list[int]:
    counts = [int(c) for c in cells]
    if len(counts) != CELL_COUNT or any(c < 0 for c in counts) or any(c > 60 for c in counts):
        raise PositionError(f"mangala cells must be 14 counts in 0..60, not {list(cells)}")
    return counts


def _inside(cell: Cell, x: float, y: float, margin: float) -> bool:
    hx, hy = cell.half_size[0] - margin, cell.half_size[1] - margin
    dx, dy = (x - cell.centre[0]) / hx, (y - cell.centre[1]) / hy
    return dx * dx + dy * dy <= 1.0


def settle_stones(cell: Cell, count: int, rng: np.random.Generator,
                  stone_mm: float) -> list[Stone]:
    """Drop ``count`` stones into ``cell``; each settles at the lowest of several tries."""
    stones: list[Stone] = []
    thick = stone_mm * STONE_THICKNESS
    bowl = thick * 0.3
    for _ in range(count):
        r = stone_mm / 2 * float(rng.uniform(0.9, 1.1))
        aspect = float(rng.uniform(0.82, 1.0))
        best: tuple[float, float, float] | None = None
        for _try in range(60):
            for _ in range(50):
                x = cell.centre[0] + float(rng.uniform(-1, 1)) * cell.half_size[0]
                y = cell.centre[1] + float(rng.uniform(-1, 1)) * cell.half_size[1]
                if _inside(cell, x, y, r * 0.95):
                    break
            # the bowl: a stone near the rim lies higher than one in the middle
            nx = (x - cell.centre[0]) / cell.half_size[0]
            ny = (y - cell.centre[1]) / cell.half_size[1]
            z = thick + bowl * (nx * nx + ny * ny)
            for s in stones:
                d = math.hypot(s.x - x, s.y - y)
                reach = (r + max(s.rx, s.ry)) * 0.95
                if d < reach:
                    # rests on s: higher the more centred it sits
                    z = max(z, s.z + thick * math.sqrt(max(0.0, 1 - (d / reach) ** 2)) * 0.95)
            if best is None or z < best[2] - 1e-6:
                best = (x, y, z)
        assert best is not None
        colour = STONE_COLOURS[int(rng.integers(len(STONE_COLOURS)))]
        jitter = rng.integers(-18, 19, 3)
        col: BGR = (int(np.clip(colour[0] + jitter[0], 0, 255)),
                    int(np.clip(colour[1] + jitter[1], 0, 255)),
                    int(np.clip(colour[2] + jitter[2], 0, 255)))
        stones.append(Stone(cell.index, best[0], best[1], best[2], r, r * aspect,
                            float(rng.uniform(0, 180)), col, float(rng.uniform(0.8, 0.95))))
    return stones


def _wood(shape: tuple[int, int], rng: np.random.Generator, base: np.ndarray) -> np.ndarray:
    """A wooden texture: long grain lines with noise, in float32 BGR."""
    h, w = shape
    ys = np.arange(h, dtype=np.float32)[:, None]
    xs = np.arange(w, dtype=np.float32)[None, :]
    small = cv2.GaussianBlur(rng.normal(0, 1, (h // 8 + 1, w // 8 + 1)).astype(np.float32),
                             (0, 0), 5)
    warp = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR) * 150
    freq = float(rng.uniform(0.05, 0.09))
    grain = np.sin((ys + warp + xs * float(rng.uniform(-0.03, 0.03))) * freq)
    fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.2)
    tone = 1.0 + 0.09 * grain + 0.05 * fine
    out: np.ndarray = base[None, None, :].astype(np.float32) * tone[..., None]
    return out


def _ellipse_mask(shape: tuple[int, int], cx: float, cy: float, ax: float, ay: float
                  ) -> np.ndarray:
    h, w = shape
    ys = np.arange(h, dtype=np.float32)[:, None]
    xs = np.arange(w, dtype=np.float32)[None, :]
    d2 = ((xs - cx) / ax) ** 2 + ((ys - cy) / ay) ** 2
    out: np.ndarray = d2
    return out


def _draw_board(geometry: MangalaGeometry, rng: np.random.Generator, margin: float
                ) -> np.ndarray:
    """The board on the canvas (float32 BGR), the table around it, pits and stores carved."""
    s = CANVAS_PX_PER_MM
    w = round((geometry.length_mm + 2 * margin) * s)
    h = round((geometry.width_mm + 2 * margin) * s)
    table = np.array([rng.uniform(60, 140), rng.uniform(60, 120), rng.uniform(40, 100)],
                     np.float32)
    canvas = np.empty((h, w, 3), np.float32)
    canvas[:] = table
    canvas += cv2.GaussianBlur(rng.normal(0, 5, (h, w)).astype(np.float32), (0, 0), 2)[..., None]
    wood_base = np.array([rng.uniform(40, 80), rng.uniform(85, 125), rng.uniform(130, 185)],
                         np.float32)
    wood = _wood((h, w), rng, wood_base)
    board = np.zeros((h, w), np.float32)
    x0, y0 = margin * s, margin * s
    x1, y1 = x0 + geometry.length_mm * s, y0 + geometry.width_mm * s
    cv2.rectangle(board, (round(x0), round(y0)), (round(x1), round(y1)), 1.0, -1, cv2.LINE_AA)
    # board edge: a darker bevel
    bevel = cv2.GaussianBlur(board, (0, 0), 6)
    edge_shade = 0.75 + 0.25 * np.clip(bevel * 2 - 0.6, 0, 1)
    canvas = canvas * (1 - board[..., None]) + wood * (board * edge_shade)[..., None]
    # carved cells: darker bowl, shadow at the rim facing the light (top-left)
    for cell in geometry.cells():
        cx, cy = (cell.centre[0] + margin) * s, (cell.centre[1] + margin) * s
        ax, ay = cell.half_size[0] * s, cell.half_size[1] * s
        x_lo, x_hi = max(0, int(cx - ax - 8)), min(w, int(cx + ax + 9))
        y_lo, y_hi = max(0, int(cy - ay - 8)), min(h, int(cy + ay + 9))
        sub = (y_hi - y_lo, x_hi - x_lo)
        d2 = _ellipse_mask(sub, cx - x_lo, cy - y_lo, ax, ay)
        inside = np.clip((1.0 - np.sqrt(d2)) * min(ax, ay) / 1.5 + 0.5, 0, 1)
        ys = (np.arange(sub[0], dtype=np.float32)[:, None] + y_lo - cy) / ay
        xs = (np.arange(sub[1], dtype=np.float32)[None, :] + x_lo - cx) / ax
        rim = np.clip(np.sqrt(d2), 0, 1) ** 4
        # rim shadow on the side nearest the light, glow on the far side
        side = (xs + ys) / math.sqrt(2)
        shade = 0.78 - 0.22 * rim * np.clip(-side, 0, 1) + 0.12 * rim * np.clip(side, 0, 1)
        patch = canvas[y_lo:y_hi, x_lo:x_hi]
        patch *= (1 - inside * (1 - shade))[..., None]
    out: np.ndarray = canvas
    return out


def _draw_stone(canvas: np.ndarray, st: Stone, margin: float, cam: tuple[float, float],
                light: np.ndarray) -> None:
    """One shaded glass stone, seen from a camera above ``cam`` (parallax with height)."""
    s = CANVAS_PX_PER_MM
    k = CAMERA_HEIGHT_MM / (CAMERA_HEIGHT_MM - st.z)
    x = cam[0] + (st.x - cam[0]) * k
    y = cam[1] + (st.y - cam[1]) * k
    cx, cy = (x + margin) * s, (y + margin) * s
    rx, ry = st.rx * k * s, st.ry * k * s
    h, w = canvas.shape[:2]
    half = int(max(rx, ry) * 1.6) + 3
    x_lo, x_hi = max(0, int(cx) - half), min(w, int(cx) + half + 1)
    y_lo, y_hi = max(0, int(cy) - half), min(h, int(cy) + half + 1)
    if x_hi <= x_lo or y_hi <= y_lo:
        return
    ys = np.arange(y_lo, y_hi, dtype=np.float32)[:, None] - cy
    xs = np.arange(x_lo, x_hi, dtype=np.float32)[None, :] - cx
    a = math.radians(st.angle)
    u = (xs * math.cos(a) + ys * math.sin(a)) / rx
    v = (-xs * math.sin(a) + ys * math.cos(a)) / ry
    rho2 = u * u + v * v
    patch = canvas[y_lo:y_hi, x_lo:x_hi]
    # contact shadow, offset away from the light
    sx, sy = xs + light[0] * rx * 0.35, ys + light[1] * ry * 0.35
    sd2 = (sx / (rx * 1.12)) ** 2 + (sy / (ry * 1.12)) ** 2
    shadow = np.clip(1.2 - sd2, 0, 1) * 0.45
    patch *= (1 - shadow)[..., None]
    body = np.clip((1.0 - np.sqrt(rho2)) * min(rx, ry) + 0.5, 0, 1)  # antialiased disc
    # dome normal for shading
    nz = np.sqrt(np.clip(1 - rho2, 0, 1))
    nx_img = xs / max(rx, 1.0)
    ny_img = ys / max(ry, 1.0)
    lam = np.clip((nx_img * light[0] + ny_img * light[1]) * 0.5 + nz * 0.6, 0, 1)
    colour = np.array(st.colour, np.float32)
    lit = colour[None, None, :] * (0.45 + 0.6 * lam)[..., None]
    # glass: light passes through and brightens the side away from the light
    caustic = np.exp(-(((nx_img + light[0] * 0.45) ** 2 + (ny_img + light[1] * 0.45) ** 2)
                       / 0.08))
    lit += (colour * 0.5 + 60)[None, None, :] * caustic[..., None] * 0.5
    # dark rim
    lit *= (1 - 0.35 * np.clip(rho2 - 0.7, 0, 1) / 0.3)[..., None]
    # specular highlight toward the light
    hl = np.exp(-(((nx_img - light[0] * 0.42) ** 2 + (ny_img - light[1] * 0.42) ** 2)
                  / 0.018))
    lit += 235.0 * hl[..., None]
    alpha = body * st.alpha
    # translucency: a little of what lies below shows through
    patch[:] = patch * (1 - alpha[..., None]) + lit * alpha[..., None]


def _draw_hand(canvas: np.ndarray, hand: HandCover, margin: float, rng: np.random.Generator
               ) -> None:
    s = CANVAS_PX_PER_MM
    skin = np.array([rng.uniform(95, 140), rng.uniform(130, 170), rng.uniform(180, 225)],
                    np.float32)
    sleeve = np.array([rng.uniform(20, 120), rng.uniform(20, 80), rng.uniform(20, 80)],
                      np.float32)
    e = np.array(hand.entry)
    t = np.array(hand.tip)
    v = t - e
    u = v / max(float(np.hypot(*v)), 1e-6)
    n = np.array([-u[1], u[0]])
    wd = hand.width

    def px(p: np.ndarray) -> list[int]:
        return [round((p[0] + margin) * s), round((p[1] + margin) * s)]

    mask = np.zeros(canvas.shape[:2], np.uint8)
    col = np.zeros(canvas.shape[:2], np.uint8)
    wrist = t - u * 110
    arm = [e - u * 200 + n * wd * 0.55, wrist + n * wd * 0.38, wrist - n * wd * 0.38,
           e - u * 200 - n * wd * 0.55]
    cv2.fillPoly(mask, [np.array([px(p) for p in arm], np.int32)], 255, cv2.LINE_AA)
    palm_c = t - u * 55
    ang = float(np.degrees(np.arctan2(u[1], u[0])))
    cv2.ellipse(mask, tuple(px(palm_c)), (int(55 * s), int(wd * 0.45 * s)), ang, 0, 360, 255,
                -1, cv2.LINE_AA)
    for k in range(4):
        base = palm_c + n * (k - 1.5) * wd * 0.2 + u * 20
        tip = base + u * float(rng.uniform(45, 70)) + n * (k - 1.5) * 6
        cv2.line(mask, tuple(px(base)), tuple(px(tip)), 255, int(16 * s), cv2.LINE_AA)
    sleeve_poly = [e - u * 200 + n * wd * 0.62, e + u * 60 + n * wd * 0.56,
                   e + u * 60 - n * wd * 0.56, e - u * 200 - n * wd * 0.62]
    cv2.fillPoly(col, [np.array([px(p) for p in sleeve_poly], np.int32)], 255, cv2.LINE_AA)
    m = mask.astype(np.float32) / 255.0
    sl = (col.astype(np.float32) / 255.0) * m
    # shadow of the arm on the board
    shift = np.array([[1.0, 0.0, 8 * s], [0.0, 1.0, 12 * s]], np.float32)
    moved = cv2.warpAffine(m, shift, (m.shape[1], m.shape[0]))
    shadow = cv2.GaussianBlur(moved, (0, 0), 12)
    canvas *= (1 - 0.4 * shadow)[..., None]
    tone = 0.85 + 0.15 * cv2.GaussianBlur(m, (0, 0), 10)
    colour = skin[None, None, :] * (1 - sl[..., None]) + sleeve[None, None, :] * sl[..., None]
    canvas[:] = canvas * (1 - m[..., None]) + colour * tone[..., None] * m[..., None]


def random_hand(geometry: MangalaGeometry, rng: np.random.Generator,
                cell: int | None = None) -> HandCover:
    """An arm reaching over ``cell`` (a random one when None), from its owner's edge."""
    cells = geometry.cells()
    target = cells[int(rng.integers(len(cells)))] if cell is None else geometry.cell(cell)
    from_bottom = bool(rng.integers(2)) if cell is None else target.owner == "a"
    ex = target.centre[0] + float(rng.uniform(-120, 120))
    ey = geometry.width_mm + 60 if from_bottom else -60.0
    tip = (target.centre[0] + float(rng.uniform(-15, 15)),
           target.centre[1] + float(rng.uniform(-15, 15)))
    return HandCover((ex, ey), tip, float(rng.uniform(75, 95)))


def _camera_corners(geometry: MangalaGeometry, rng: np.random.Generator,
                    size: tuple[int, int]) -> np.ndarray:
    """Where the board's corners land in the picture: scale, shift, rotation and tilt."""
    w, h = size
    width_px = w * float(rng.uniform(0.78, 0.9))
    height_px = width_px * geometry.width_mm / geometry.length_mm
    base = np.array([[-width_px / 2, -height_px / 2], [width_px / 2, -height_px / 2],
                     [width_px / 2, height_px / 2], [-width_px / 2, height_px / 2]])
    a = math.radians(float(rng.uniform(-4, 4)))
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    centre = np.array([w / 2 + rng.uniform(-0.03, 0.03) * w, h / 2 + rng.uniform(-0.05, 0.05) * h])
    pts = base @ rot.T + centre
    # tilt: the far edge shorter than the near one, plus a little keystone noise
    tilt = float(rng.uniform(0.0, 0.08))
    pts[0, 0] += tilt * width_px / 2
    pts[1, 0] -= tilt * width_px / 2
    pts += rng.uniform(-0.012, 0.012, (4, 2)) * width_px
    out: np.ndarray = pts.astype(np.float32)
    return out


def render_mangala(cells: Sequence[int], seed: int, *, hand: bool = False,
                   size: tuple[int, int] = (1280, 720),
                   geometry: MangalaGeometry = DEFAULT_GEOMETRY,
                   hard: bool = True,
                   hand_cell: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A photograph of the board holding ``cells`` (14 counts, contract order) and the board's
    corners in it (4 x 2 float32, TL, TR, BR, BL pixels). ``hand`` puts an arm over part of the
    board (over cell ``hand_cell`` when given, from its owner's side); ``hard`` turns on tilt,
    uneven light, noise, blur and JPEG artefacts. The same seed shows the same board and camera
    with or without the arm."""
    counts = _check_cells(cells)
    rng = np.random.default_rng(seed)
    margin = 30.0
    canvas = _draw_board(geometry, rng, margin)
    ang = float(rng.uniform(math.radians(200), math.radians(250)))
    light = np.array([math.cos(ang), math.sin(ang)])  # towards the light, from the top-left
    cam = (geometry.length_mm / 2 + float(rng.uniform(-40, 40)),
           geometry.width_mm / 2 + float(rng.uniform(-30, 60)))
    stones: list[Stone] = []
    for cell in geometry.cells():
        stones.extend(settle_stones(cell, counts[cell.index], rng, geometry.stone_diameter_mm))
    for st in sorted(stones, key=lambda t: t.z):
        _draw_stone(canvas, st, margin, cam, light)
    if hand:  # its own generator: the same seed shows the same board with or without an arm
        hand_rng = np.random.default_rng([seed, 1])
        _draw_hand(canvas, random_hand(geometry, hand_rng, hand_cell), margin, hand_rng)
    corners = _camera_corners(geometry, rng, size)
    s = CANVAS_PX_PER_MM
    board_px = (geometry.corners_mm + margin) * s
    hom = cv2.getPerspectiveTransform(board_px.astype(np.float32), corners)
    w, h = size
    table = np.empty((h, w, 3), np.float32)
    table[:] = canvas[5, 5]
    img = cv2.warpPerspective(canvas, hom, (w, h), dst=table, flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_TRANSPARENT)
    if hard:
        xs = (np.arange(w, dtype=np.float32) - w / 2) / (w / 2)
        ys = (np.arange(h, dtype=np.float32) - h / 2) / (w / 2)
        la = float(rng.uniform(0, 2 * math.pi))
        grad = float(rng.uniform(0.0, 0.3))
        gain = (1.0 + grad * 0.5 * (math.cos(la) * xs[None, :] + math.sin(la) * ys[:, None]))
        img = img * (gain * float(rng.uniform(0.8, 1.15)))[..., None]
        sigma = float(rng.uniform(0.3, 1.1))
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), sigma), dtype=np.float32)
        img = img + rng.normal(0, float(rng.uniform(1.5, 5.0)), img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    quality = int(rng.integers(70, 93)) if hard else 95
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if ok:
        out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))
    return out, corners


def initial_cells() -> list[int]:
    """The opening position: 4 stones in every pit, empty stores (MG-1)."""
    return [4] * 6 + [0] + [4] * 6 + [0]
