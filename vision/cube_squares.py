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
# ... of its faintest strokes, taken only where joined to strokes of INK_CONTRAST_MIN: at the
# raster's scale a thin font's digit (the 4 of a 64) or a number on a dimly lit part of the
# board responds at 35-70, so the number's blob held one digit alone, or no stroke at all
# that was long enough, and its centre and turn were read off that (synthetic throws
# 20630, 20670, 20809: a cube on a checker at the bar, at the bar's end, offered, not found)
INK_CONTRAST_FAINT = 35


def ink_centres(gray: np.ndarray, px_per_mm: float, size_mm: float, *, faint: bool = False
                 ) -> list[tuple[float, float, float]]:
    """Where the cube's number may be: thin dark strokes on lighter ground (a black-hat
    filter), strokes and digits joined, in a blob the size of a number on a cube face. Finds a
    cube whose light face runs into a light point, field or checker beside it, where no
    square of light stands apart (on the bar the cube overlaps the points of both halves and
    the checkers there; on a cream field it is hardly lighter than the board). ``faint``:
    instead, the numbers whole with their fainter strokes (:data:`INK_CONTRAST_FAINT`), where
    that moves them from the strong strokes' own blobs (:func:`_same_read`)."""
    side = size_mm * px_per_mm
    k = max(3, round(0.18 * side) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    hat = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, kernel)
    strong = cv2.threshold(hat, INK_CONTRAST_MIN, 255, cv2.THRESH_BINARY)[1]
    strokes = cv2.morphologyEx(strong, cv2.MORPH_CLOSE, kernel)
    out: list[tuple[float, float, float]] = []
    for ((cx, cy), (rw, rh), ang), contour in _blob_boxes(strokes):
        if _number_sized(rw, rh, side):
            out.append((cx, cy, ang))
        elif max(rw, rh) >= 1.0 * side:
            # the number run into the dark seams about the cube (between it and a checker, a
            # point's edge): only the darkest strokes, within that blob
            x, y, w, h = cv2.boundingRect(contour)
            part = cv2.threshold(hat[y:y + h, x:x + w], INK_CONTRAST_STRONG, 255,
                                 cv2.THRESH_BINARY)[1]
            part = cv2.morphologyEx(part, cv2.MORPH_CLOSE, kernel)
            for ((ix, iy), (iw, ih), ia), _ in _blob_boxes(part):
                if _number_sized(iw, ih, side):
                    out.append((ix + x, iy + y, ia))
    if not faint:
        return out
    return [c for c in _whole_numbers(hat, strong, kernel, side)
            if not any(_same_read(c, d, side) for d in out)]


# a number's centre this near another's (in cube sides), its box turned this near (modulo a
# quarter): one step of the faces read about a number (``vision.cube_strips``: a tenth of a
# side aside, 7 degrees turned), read about it already
SAME_PLACE_SIDES = 0.1
SAME_TURN_DEG = 7.0


def _same_read(a: tuple[float, float, float], b: tuple[float, float, float], side: float
               ) -> bool:
    """Whether two number candidates (centre pixels, turn degrees) read about the same face
    (:data:`SAME_PLACE_SIDES`, :data:`SAME_TURN_DEG`)."""
    turn = abs(a[2] - b[2]) % 90.0
    return (math.hypot(a[0] - b[0], a[1] - b[1]) <= SAME_PLACE_SIDES * side
            and min(turn, 90.0 - turn) <= SAME_TURN_DEG)


def _whole_numbers(hat: np.ndarray, strong: np.ndarray, kernel: np.ndarray, side: float
                   ) -> list[tuple[float, float, float]]:
    """Number-sized blobs of strokes down to :data:`INK_CONTRAST_FAINT` joined (within the
    closing ``kernel``) to a stroke of :data:`INK_CONTRAST_MIN` (``strong``: 255 there): the
    whole number where its fainter digit or strokes fell under the strong strokes' level.
    Centre (pixels) and turn (degrees) of each blob's box."""
    faint = cv2.threshold(hat, INK_CONTRAST_FAINT, 255, cv2.THRESH_BINARY)[1]
    faint = cv2.morphologyEx(faint, cv2.MORPH_CLOSE, kernel)
    count, labels = cv2.connectedComponents(faint, connectivity=8)
    joined = np.zeros(count, np.uint8)
    joined[labels[strong > 0]] = 255
    joined[0] = 0
    return [(cx, cy, ang) for ((cx, cy), (rw, rh), ang), _ in _blob_boxes(joined[labels])
            if _number_sized(rw, rh, side)]


BlobBox = tuple[Sequence[float], Sequence[float], float]  # cv2.minAreaRect's box


def _blob_boxes(mask: np.ndarray) -> Iterator[tuple[BlobBox, np.ndarray]]:
    """The turned box (``cv2.minAreaRect``: centre, size, degrees) and the outline of each
    outer blob of a mask (0 or 255) outlined by four points or more."""
    found, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for contour in found:
        if len(contour) >= 4:
            yield cv2.minAreaRect(contour), np.asarray(contour)


def _number_sized(w: float, h: float, side: float) -> bool:
    """Whether a blob's box (``w`` by ``h``) is the size of the number on a cube face of
    ``side`` (the same units)."""
    return 0.35 * side < max(w, h) < 1.0 * side and 0.2 * side < min(w, h) < 0.8 * side
