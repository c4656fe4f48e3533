"""Drawing the board, its checkers, trays and markers in canonical top-down space."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np

from engine.errors import InvalidInputError
from vision.geometry import BoardGeometry, Canonical
from vision.render.scene import BGR, BoardContents, ColourScheme

SHIFT = 4  # sub-pixel bits for cv2 drawing
ONE = 1 << SHIFT


def _pt(canonical: Canonical, x: float, y: float) -> tuple[int, int]:
    u, v = canonical.mm_to_px(x, y)
    return (round(u * ONE), round(v * ONE))


def _scale(c: BGR, f: float) -> BGR:
    return (
        int(min(255, max(0, c[0] * f))),
        int(min(255, max(0, c[1] * f))),
        int(min(255, max(0, c[2] * f))),
    )


def _lift(c: BGR, f: float, add: float) -> BGR:
    return (
        int(min(255, c[0] * f + add)),
        int(min(255, c[1] * f + add)),
        int(min(255, c[2] * f + add)),
    )


def _rect(canvas: np.ndarray, canonical: Canonical, x0: float, y0: float, x1: float, y1: float,
          colour: BGR) -> None:
    cv2.rectangle(
        canvas, _pt(canonical, x0, y0), _pt(canonical, x1, y1), colour, -1, cv2.LINE_AA, SHIFT
    )


def draw_board(canvas: np.ndarray, canonical: Canonical, scheme: ColourScheme,
               rng: np.random.Generator) -> None:
    """The case, trays, playing surface with its 24 points, and the bar."""
    g = canonical.geometry
    outer = g.outer_rect
    _rect(canvas, canonical, outer.x0, outer.y0, outer.x1, outer.y1, scheme.frame)
    for side in ("left", "right"):
        t = g.tray_rect(side)
        _rect(canvas, canonical, t.x0, t.y0, t.x1, t.y1, _scale(scheme.frame, 0.75))
    _rect(canvas, canonical, 0, 0, g.width_mm, g.height_mm, scheme.field)
    for slot in range(24):
        colour = scheme.points[point_colour_index(slot)]
        tri = g.point_triangle(slot)
        pts = np.array([_pt(canonical, x, y) for x, y in tri], dtype=np.int32)
        cv2.fillPoly(canvas, [pts], colour, cv2.LINE_AA, SHIFT)
    bar = g.bar
    _rect(canvas, canonical, bar.x0, bar.y0, bar.x1, bar.y1, scheme.bar)
    # hinges on the bar, as on a folding case
    for yc in (0.18 * g.height_mm, 0.82 * g.height_mm):
        _rect(canvas, canonical, bar.x0 + 4, yc - 25, bar.x1 - 4, yc + 25, (120, 170, 190))
    # a faint wood/cloth texture so the surfaces are not perfectly flat
    noise = np.asarray(cv2.GaussianBlur(rng.normal(0.0, 3.0, canvas.shape[:2]).astype(np.float32),
                                        (0, 0), 2.0))
    canvas[:] = np.clip(canvas.astype(np.float32) + noise[..., None], 0, 255).astype(np.uint8)


def point_colour_index(slot: int) -> int:
    """Points alternate colours; points facing each other across the board differ."""
    return BoardGeometry.point_colour_index(slot)


def draw_checker(canvas: np.ndarray, canonical: Canonical, x: float, y: float, colour: BGR,
                 rng: np.random.Generator, *, marbled: bool, pearl: bool,
                 lift_mm: float = 0.0) -> None:
    """One checker seen from above at (x, y) mm, with its drop shadow, rim and inner ring."""
    g = canonical.geometry
    s = canonical.px_per_mm
    r = g.checker_diameter_mm / 2.0
    # drop shadow (a lifted checker throws it further)
    off = 1.5 + lift_mm * 0.35
    u, v = canonical.mm_to_px(x + off * 0.6, y + off)
    x0 = int(max(0, u - (r + 4) * s))
    y0 = int(max(0, v - (r + 4) * s))
    x1 = int(min(canvas.shape[1], u + (r + 4) * s + 1))
    y1 = int(min(canvas.shape[0], v + (r + 4) * s + 1))
    if x1 > x0 and y1 > y0:
        sh = np.zeros((y1 - y0, x1 - x0), np.uint8)
        c = (round((u - x0) * ONE), round((v - y0) * ONE))
        cv2.circle(sh, c, int(r * s * ONE), 255, -1, cv2.LINE_AA, SHIFT)
        patch = cv2.GaussianBlur(sh, (0, 0), 1.2 * s)
        a = patch.astype(np.float32)[..., None] / 255.0 * 0.45
        region = canvas[y0:y1, x0:x1].astype(np.float32)
        canvas[y0:y1, x0:x1] = (region * (1.0 - a)).astype(np.uint8)
    centre = _pt(canonical, x, y)
    radius = int(r * s * ONE)
    cv2.circle(canvas, centre, radius, _lift(colour, 0.55, -10), -1, cv2.LINE_AA, SHIFT)
    # a rounded, glossy edge: lit on the side facing the light, shaded on the other
    cv2.circle(canvas, centre, int((r - 2.2) * s * ONE), _lift(colour, 0.8, 0), -1,
               cv2.LINE_AA, SHIFT)
    cv2.ellipse(canvas, centre, (int((r - 3.0) * s * ONE),) * 2, 0, 160, 380,
                _lift(colour, 1.35, 40), max(1, round(2.0 * s)), cv2.LINE_AA, SHIFT)
    cv2.circle(canvas, centre, int((r - 4.0) * s * ONE), colour, -1, cv2.LINE_AA, SHIFT)
    if marbled:
        for _ in range(3):
            a0 = rng.uniform(0, 2 * np.pi)
            pts = []
            for k in range(5):
                rr = rng.uniform(0, r - 4)
                aa = a0 + k * 0.5 + rng.uniform(-0.3, 0.3)
                pts.append(_pt(canonical, x + rr * np.cos(aa), y + rr * np.sin(aa)))
            cv2.polylines(canvas, [np.array(pts, np.int32)], False, _scale(colour, 1.45),
                          max(1, int(1.6 * s)), cv2.LINE_AA, SHIFT)
    cv2.circle(canvas, centre, int(0.62 * r * s * ONE), _scale(colour, 0.8),
               max(1, int(1.0 * s)), cv2.LINE_AA, SHIFT)
    if pearl:
        hl = _pt(canonical, x - 0.3 * r, y - 0.3 * r)
        axes = (int(0.35 * r * s * ONE), int(0.18 * r * s * ONE))
        cv2.ellipse(canvas, hl, axes, float(rng.uniform(0, 180)), 0, 360, _scale(colour, 1.15),
                    -1, cv2.LINE_AA, SHIFT)


def slot_layout(g: BoardGeometry, slot: int, n: int, colour: int, rng: np.random.Generator,
                off_axis_mm: float = 0.0) -> list[tuple[float, float, int, int]]:
    """Where the ``n`` checkers of one slot go (as :func:`checker_layout`): the column's first
    ``column_capacity()`` from the edge, in order, then the ones laid over them; all of them
    ``off_axis_mm`` aside (+x) of the point's axis, as a hurried hand lays them."""
    out: list[tuple[float, float, int, int]] = []
    cap = g.column_capacity()
    d = g.checker_diameter_mm
    pitch = d + float(rng.uniform(0.0, 1.2))
    top = g.slot_is_top(slot)
    xc = g.slot_centre_x(slot)
    n0 = min(n, cap)
    rest = n - n0
    positions: list[tuple[float, int]] = [((k + 0.5) * pitch, 0) for k in range(n0)]
    if rest:
        # extra checkers are laid over the column from the edge inward, each between
        # two column checkers (the sixth over the first two, the seventh next to it...)
        n1 = min(rest, n0 - 1)
        positions += [((j + 1.0) * pitch, 1) for j in range(n1)]
        rest -= n1
        for k in range(rest):  # a third layer, rare in play
            positions.append(((k % max(1, n1) + 1.5) * pitch, 2))
    for along, layer in positions:
        jx = float(rng.uniform(-1.0, 1.0))
        jy = float(rng.uniform(-0.8, 0.8))
        y = along + jy if top else g.height_mm - along - jy
        out.append((xc + off_axis_mm + jx, y, colour, layer))
    return out


def checker_layout(g: BoardGeometry, contents: BoardContents, rng: np.random.Generator,
                   *, darker_at_bottom: bool,
                   slot_rng: Callable[[int], np.random.Generator] | None = None,
                   off_axis_mm: float = 0.0,
                   keep_clear: Sequence[tuple[float, float]] = ()
                   ) -> list[tuple[float, float, int, int]]:
    """Where every checker on the board goes: (x mm, y mm, colour 0 darker/1 lighter, layer).

    A slot's first ``column_capacity()`` checkers form a touching column from the edge; the
    rest are laid over them from the edge inward, each between two column checkers (layer 1,
    then layer 2), as players do with a sixth or later checker. Bar checkers sit along the
    bar without overlapping. ``slot_rng(slot)``, when given, draws each slot's spacing and
    jitter from a generator of its own: a checker then stays where it lay while others move
    (a scene played move by move, as at a real table), and one added to a slot goes on top.
    ``off_axis_mm``: every point's checkers laid that far off its axis, to +x on odd slots
    and to -x on even ones (a hurried hand; the bar's are not moved).
    ``keep_clear``: spans of the bar (y0, y1 mm) where no bar checker's centre may lie, such
    as about the cube centred there (BG-CUBE-1) and its hinges; each checker is then drawn
    only where there is room for it, beside those laid before it (none given: the bar is
    laid as it always was).
    """
    out: list[tuple[float, float, int, int]] = []
    for slot, (a, b) in enumerate(contents.slots):
        n = a or b
        if n:
            out += slot_layout(g, slot, n, 0 if a else 1,
                               rng if slot_rng is None else slot_rng(slot),
                               off_axis_mm if slot % 2 else -off_axis_mm)
    d = g.checker_diameter_mm
    # the bar: checkers along it, clear of each other and, where there is room, of the
    # neighbouring columns (otherwise as clear as possible, drawn over them)
    bar_x = g.bar.centre[0]
    column = [(x, y) for x, y, _c, _l in out]
    on_bar: list[tuple[float, float]] = []
    whole = (d / 2 + 4, g.height_mm - d / 2 - 4)
    for colour, n in enumerate(contents.bar):
        for _ in range(n):
            room = [whole]
            if keep_clear:  # only where a checker fits: in no span, on no checker laid
                room = free_spans(whole, [*keep_clear,
                                          *((ty - d - 1.5, ty + d + 1.5) for _tx, ty in on_bar)])
                if not room:
                    raise InvalidInputError(f"no room on the bar for {sum(contents.bar)} "
                                            f"checkers clear of {list(keep_clear)!r}")
            best: tuple[float, float, float] | None = None
            for _attempt in range(300):
                x = bar_x + float(rng.uniform(-3, 3))
                y = draw_in(rng, room)
                if any(np.hypot(x - tx, y - ty) < d + 1.5 for tx, ty in on_bar):
                    continue
                clear = min((np.hypot(x - tx, y - ty) for tx, ty in column), default=1e9)
                if best is None or clear > best[2]:
                    best = (x, y, clear)
                if clear > d + 1.5:
                    break
            if best is None:
                raise InvalidInputError(f"no room on the bar to draw its {sum(contents.bar)} "
                                        "checkers")
            on_bar.append((best[0], best[1]))
            out.append((best[0], best[1], colour, 0))
    return out


def free_spans(whole: tuple[float, float], taken: Sequence[tuple[float, float]]
               ) -> list[tuple[float, float]]:
    """What is left of the span ``whole`` (lo, hi) once the ``taken`` spans are cut out, in
    order (a bare point between two taken spans is no room)."""
    spans = [whole]
    for t0, t1 in taken:
        spans = [part for lo, hi in spans
                 for part in ((lo, min(hi, t0)), (max(lo, t1), hi)) if part[1] > part[0]]
    return spans


def draw_in(rng: np.random.Generator, spans: Sequence[tuple[float, float]]) -> float:
    """A value drawn evenly over the ``spans`` (lo, hi) with one draw of ``rng`` (one span:
    ``rng.uniform(lo, hi)`` itself, so that a bar laid without spans to keep clear of is laid
    as before)."""
    if len(spans) == 1:
        return float(rng.uniform(*spans[0]))
    t = float(rng.uniform(0.0, sum(hi - lo for lo, hi in spans)))
    for lo, hi in spans:
        if t <= hi - lo:
            return lo + t
        t -= hi - lo
    return spans[-1][1]


def draw_off(canvas: np.ndarray, canonical: Canonical, scheme: ColourScheme,
             contents: BoardContents, *, darker_at_bottom: bool) -> None:
    """Borne-off checkers stand on edge in the right-hand tray, each player's half nearest
    them (home boards on the right)."""
    g = canonical.geometry
    t = g.checker_thickness_mm
    for colour, n in enumerate(contents.off):
        bottom = (colour == 0) == darker_at_bottom
        tray = g.off_zone("right", "bottom" if bottom else "top")
        base = scheme.darker if colour == 0 else scheme.lighter
        for k in range(n):
            if bottom:
                y1 = tray.y1 - k * (t + 0.6)
                y0 = y1 - t
            else:
                y0 = tray.y0 + k * (t + 0.6)
                y1 = y0 + t
            _rect(canvas, canonical, tray.x0 + 4, y0, tray.x1 - 4, y1, _scale(base, 0.65))
            _rect(canvas, canonical, tray.x0 + 5, y0 + 1.2, tray.x1 - 5, y1 - 1.2, base)


def draw_markers(canvas: np.ndarray, canonical: Canonical) -> None:
    """The four ArUco markers (4x4 dictionary, ids 0..3) on the frame's corners."""
    g = canonical.geometry
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    side_px = round(g.marker_size_mm * canonical.px_per_mm)
    quiet = max(2, side_px // 6)
    for marker_id, (x, y) in enumerate(g.marker_centres_mm()):
        img = cv2.aruco.generateImageMarker(dictionary, marker_id, side_px)
        img = cv2.copyMakeBorder(img, quiet, quiet, quiet, quiet, cv2.BORDER_CONSTANT, value=255)
        u, v = canonical.mm_to_px(float(x), float(y))
        x0 = round(u - img.shape[1] / 2)
        y0 = round(v - img.shape[0] / 2)
        h, w = img.shape
        if x0 < 0 or y0 < 0 or y0 + h > canvas.shape[0] or x0 + w > canvas.shape[1]:
            raise InvalidInputError("marker falls outside the canvas")
        canvas[y0 : y0 + h, x0 : x0 + w] = img[..., None]
