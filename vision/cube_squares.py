"""Where a doubling cube may lie in a top-down raster of the board: squares of the cube's size
(``BoardGeometry.cube_size_mm``) enclosed by edges or standing out as light, unsaturated
parts (a standard cube is white or ivory), and number-sized clusters of thin dark strokes (a
cube overlapping a light point or checker has no square outline of its own). The searches
(``vision.cube_search``, ``vision.cube_strips``) read a face in each.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from functools import lru_cache

import cv2
import numpy as np

PixelBox = tuple[float, float, float, float]  # pixels u0, v0, u1, v1 (ends included)


def square_candidates(gray: np.ndarray, px_per_mm: float, size_mm: float,
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
    """The two light levels :func:`light_square_candidates` takes from a raster: the median
    brightness (HSV value) of a sample, and its 97th percentile."""
    value = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)[:, :, 2]
    return float(np.median(value[::4, ::4])), float(np.percentile(value[::2, ::2], 97))


def light_square_candidates(bgr: np.ndarray, px_per_mm: float, size_mm: float,
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
    """Square cores of a light mask (0 or 255; drawn on; see :func:`light_square_candidates`)."""
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


def light_masks(bgr: np.ndarray, levels: tuple[float, float] | None = None
                 ) -> tuple[list[np.ndarray], tuple[float, float]]:
    """The two light masks of :func:`light_square_candidates` (light and unsaturated: above
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


def light_squares_fast(mask: np.ndarray, px_per_mm: float, size_mm: float
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


def ink_centres(gray: np.ndarray, px_per_mm: float, size_mm: float
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
