"""The pips of a die's upward face in a top-down patch: pip-sized blobs found
(:func:`patch_pips`, from the patch's pip-scale difference of Gaussians) and the pip layout
fitted to those of the face (:func:`choose_face`, :func:`fit_face`). The first stage of the face
read (``vision.dice.face_fit.read_candidate``), kept apart from the grid read and the outline.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import cv2
import numpy as np

from vision.dice.raster import nonzero_2d
from vision.dice.render import PIP_LAYOUTS, PIP_OFFSET, PIP_RADIUS


class PatchPip(NamedTuple):
    """A pip in a top-down patch: position (mm from the patch centre), contrast, polarity. (A
    named tuple: a patch gives a dozen or more, each made in 0.17 us against a frozen
    dataclass's 0.54, by timeit.)"""

    x: float
    y: float
    contrast: float
    dark: bool


def patch_pips(gray: np.ndarray, die_mm: float, ppm: float, reach_mm: float | None = None
               ) -> list[PatchPip]:
    """Pip-sized blobs of either polarity in a top-down patch: difference-of-Gaussians peaks
    tuned to the pip size, so pips that blur into each other stay apart; within ``reach_mm``
    of the patch centre along each axis only (the same pips there as over the whole patch),
    else all over it."""
    reach = gray.shape[0] / ppm if reach_mm is None else reach_mm
    return pips_from_dog(patch_dog(gray, die_mm, ppm), PIP_RADIUS * die_mm * ppm, ppm, reach)


@lru_cache(maxsize=16)
def layout(n: int, die_mm: float) -> np.ndarray:
    """The pip places of face ``n`` in mm from the face centre."""
    return np.array(PIP_LAYOUTS[n], np.float64) * PIP_OFFSET * die_mm


@lru_cache(maxsize=16)
def _layout_complex(n: int, die_mm: float) -> np.ndarray:
    """:func:`layout` as complex numbers x + iy."""
    xy = layout(n, die_mm)
    out: np.ndarray = xy[:, 0] + 1j * xy[:, 1]
    return out


_DIAGONALS = np.array([[-0.0], [math.pi / 4], [-math.pi / 4]])  # turns a pair's angle suggests


@lru_cache(maxsize=8)
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i < j) of ``n`` pips."""
    i, j = np.triu_indices(n, 1)
    return i, j


def fit_face(pts: np.ndarray, die_mm: float) -> tuple[float, float, float, float]:
    """Best pip layout for these face pips: (residual mm, centre x, centre y, angle rad).

    The residual is the worst distance between a pip and its layout place, or a layout place
    and its nearest pip, so a missing or extra pip shows."""
    centre = pts.mean(axis=0)
    return _fit_about(pts, float(centre[0]), float(centre[1]), die_mm)


def _fit_about(pts: np.ndarray, cx: float, cy: float, die_mm: float
               ) -> tuple[float, float, float, float]:
    """:func:`fit_face` with the pips' mean (cx, cy) already worked out."""
    if len(pts) == 1:
        return 0.0, cx, cy, 0.0
    return _fit_turned((pts[:, 0] - cx) + 1j * (pts[:, 1] - cy), cx, cy, die_mm)


def _fit_turned(z: np.ndarray, cx: float, cy: float, die_mm: float
                ) -> tuple[float, float, float, float]:
    """:func:`_fit_about` of two or more pips given as complex numbers (x - cx) + i (y - cy):
    the layout turned to each angle a pair of pips (or either diagonal of it) suggests."""
    n = len(z)
    i, j = _pairs(n)
    pair = z[j] - z[i]
    base = np.arctan2(pair.imag, pair.real)  # (np.angle)
    # base, base + pi/4, base - pi/4 one after the other, in one addition (-0.0 + x is x)
    angles = (base + _DIAGONALS).reshape(-1)
    turned = np.exp(-1j * angles)[:, None] * z[None, :]  # into the face frame
    # each pip's distance from every place, then each place's from every pip (the same
    # differences, arranged so that one reduction over the last axis takes either's nearest;
    # the ufuncs' reductions called directly: the array methods' wrappers cost more than the
    # reductions of so few values)
    pips, places = _both_ways(n, die_mm)
    d = np.abs(turned[:, pips] - places)
    residual = np.maximum.reduce(np.minimum.reduce(d, axis=2), axis=1)
    k = int(residual.argmin())
    return float(residual[k]), cx, cy, float(angles[k])


@lru_cache(maxsize=16)
def _both_ways(n: int, die_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """For :func:`_fit_turned`: which pip (2n x n indices) and which layout place (2n x n
    complex) each difference takes: row r < n pip r against every place, row n + r every pip
    against place r (read only)."""
    rows, cols = np.divmod(np.arange(n * n), n)
    place = _layout_complex(n, die_mm)
    pips = np.concatenate([rows, cols]).reshape(2 * n, n)
    places = place[np.concatenate([cols, rows])].reshape(2 * n, n)
    pips.flags.writeable = False
    places.flags.writeable = False
    return pips, places


@lru_cache(maxsize=16)
def _layout_radii(n: int, die_mm: float) -> tuple[float, ...]:
    """The distinct distances of face ``n``'s pip places from the face centre."""
    return tuple(sorted({round(math.hypot(float(x), float(y)), 9) for x, y in layout(n, die_mm)}))


def fit_or_reject(pts: np.ndarray, die_mm: float, limit: float
                   ) -> tuple[float, float, float, float]:
    """:func:`fit_face`, or (inf, centre, 0) without fitting when no turn of the layout can
    fit within ``limit``: the layout is centred on the pips' mean, so a pip within ``limit``
    of a layout place lies within ``limit`` of that place's distance from the centre, and
    a place within ``limit`` of a pip likewise (an exact test, in plain Python since groups
    hold at most six pips; most groups a patch offers fail it)."""
    return _fit_or_reject_xy(pts.tolist(), die_mm, limit)


def _fit_or_reject_xy(xy: list[list[float]], die_mm: float, limit: float
                      ) -> tuple[float, float, float, float]:
    """:func:`fit_or_reject` of pips given as [x, y] lists (an array is made only to fit)."""
    n = len(xy)
    cx = cy = 0.0
    for x, y in xy:  # added in order from 0, as numpy's mean over so few pips adds them
        cx += x
        cy += y
    cx /= n
    cy /= n
    if n == 1:
        return 0.0, cx, cy, 0.0  # (as :func:`_fit_about` fits a lone pip)
    # each pip's distance from the centre near some place's, and each place's near some pip's
    places = _layout_radii(n, die_mm)
    matched = [False] * len(places)
    for x, y in xy:
        r = math.hypot(x - cx, y - cy)
        near = False
        for k, q in enumerate(places):
            if abs(r - q) < limit:
                near = matched[k] = True
        if not near:
            return math.inf, cx, cy, 0.0
    if not all(matched):
        return math.inf, cx, cy, 0.0
    # (the pips' mean added in order from 0 and divided as pts.mean(axis=0) does it; the
    # pips taken about it as complex numbers made in Python, the same numbers as in numpy)
    return _fit_turned(np.array([complex(x - cx, y - cy) for x, y in xy]), cx, cy, die_mm)


def mean_of(values: list[float]) -> float:
    """``float(np.mean(values))`` of a few numbers: fewer than eight are added one after the
    other from 0, as numpy adds them, so the result is the same to the last bit."""
    if len(values) >= 8:
        return float(np.mean(values))
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


def choose_face(pips: list[PatchPip], die_mm: float
                ) -> tuple[list[PatchPip], float, float, float, float] | None:
    """The upward face's pips near the patch centre: (pips, residual, cx, cy, angle).

    Pips much fainter than the strongest (a translucent die's far faces showing through) are
    left out; pips are dropped, farthest first, until the layout fits (touching dice)."""
    limit = 0.16 * die_mm
    near = [p for p in pips if math.hypot(p.x, p.y) < 0.75 * die_mm]
    best: tuple[float, list[PatchPip], float, float, float, float] | None = None
    for dark in (True, False):
        seeds = [p for p in near if p.dark == dark]
        if not seeds:
            continue
        top = max(p.contrast for p in seeds)
        strong = [p for p in pips if p.dark == dark and p.contrast >= 0.55 * top]
        places = [[p.x, p.y] for p in strong]
        xy = np.array(places)
        close = (np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
                 < 0.78 * die_mm).tolist()  # pips close enough to share a face
        index = {id(p): i for i, p in enumerate(strong)}
        # a face holds at most six pips, so the group grown in the order listed (by place)
        # may take in a faint spot beside the die (its outline's corner, a shadow) instead of
        # a pip and fit only once pips are dropped: the group grown strongest first is taken
        # instead when it keeps more pips
        orders = [list(range(len(strong))),
                  sorted(range(len(strong)), key=lambda i: -strong[i].contrast)]
        fits: dict[tuple[int, ...], tuple[float, float, float, float]] = {}  # group -> fit
        contrasts = [p.contrast for p in strong]
        for seed in sorted(seeds, key=lambda p: -p.contrast)[:3]:
            if seed.contrast < 0.55 * top:
                continue
            kept: tuple[list[int], tuple[float, float, float, float]] | None = None
            grown: list[int] | None = None
            for order in orders:
                group = _grown(index[id(seed)], order, close)
                if group == grown:
                    continue  # the same pips in the same order: dropped the same way again
                grown = group
                group, fit = _fitted_part(group, index[id(seed)], places, contrasts, fits,
                                          die_mm, limit)
                if fit[0] < limit and (kept is None or len(group) > len(kept[0])):
                    kept = (group, fit)
            if kept is None:
                continue
            group, (residual, cx, cy, angle) = kept
            members = [strong[i] for i in group]
            strength = mean_of([p.contrast for p in members])
            score = strength * (1.0 - residual / limit) + 0.02 * len(members)
            if best is None or score > best[0]:
                best = (score, members, residual, cx, cy, angle)
    if best is None:
        return None
    return best[1], best[2], best[3], best[4], best[5]


def _fitted_part(group: list[int], seed: int, places: list[list[float]], contrasts: list[float],
                 fits: dict[tuple[int, ...], tuple[float, float, float, float]], die_mm: float,
                 limit: float) -> tuple[list[int], tuple[float, float, float, float]]:
    """The pips of ``group`` (indices into ``places``) whose layout fits within ``limit``, and
    the fit: the pip farthest from the pips' mean less thrice its contrast (never ``seed``;
    the first such in the group on a tie) dropped one at a time until the layout fits or one
    pip is left. ``fits`` keeps the fit of every group tried."""
    while True:
        key = tuple(group)
        fit = fits.get(key)
        if fit is None:
            fit = fits[key] = _fit_or_reject_xy([places[i] for i in group], die_mm, limit)
        if fit[0] < limit or len(group) == 1:
            return group, fit
        _, fx, fy, _ = fit
        far = max((i for i in group if i != seed),
                  key=lambda i: math.hypot(places[i][0] - fx, places[i][1] - fy)
                  - 3 * contrasts[i])
        group = [i for i in group if i != far]


def _grown(seed: int, order: list[int], close: list[list[bool]]) -> list[int]:
    """The pips that can share a face with pip ``seed`` (each close to one already in), taken
    in ``order``, at most six."""
    group = [seed]
    changed = True
    while changed and len(group) < 6:
        changed = False
        for i in order:
            if len(group) >= 6 or i in group:
                continue
            if any(map(close[i].__getitem__, group)):
                group.append(i)
                changed = True
    return group


def patch_dog(gray: np.ndarray, die_mm: float, ppm: float) -> np.ndarray:
    """Pip-scale difference of Gaussians of a patch (positive on light blobs)."""
    radius = PIP_RADIUS * die_mm * ppm
    s1 = max(1.0, radius / 1.414)
    g = gray.astype(np.float32)
    out: np.ndarray = cv2.GaussianBlur(g, (0, 0), s1) - cv2.GaussianBlur(g, (0, 0), s1 * 2.5)
    return out


def pips_from_dog(dog: np.ndarray, radius: float, ppm: float, reach_mm: float
                   ) -> list[PatchPip]:
    """:func:`patch_pips` on a DoG already computed, pips within ``reach_mm`` (each axis) of
    the patch centre only. (The dark pips are the DoG's minima, found on the DoG itself: the
    maxima of its negation, to the bit, without making it.)"""
    centre = dog.shape[0] / 2
    win = int(radius * 2.2) | 1
    out: list[PatchPip] = []
    lo, hi = max(0, int(centre - reach_mm * ppm)), int(centre + reach_mm * ppm) + 1
    for dark in (True, False):
        ys, xs = _peaks(dog, win, lo, hi, 16.0, low=dark)
        sign = -1.0 if dark else 1.0
        for x, y, value in zip(xs.tolist(), ys.tolist(), dog[ys, xs].tolist(), strict=True):
            out.append(PatchPip((x - centre) / ppm, (y - centre) / ppm, sign * value / 255.0,
                                dark))
    return out


@lru_cache(maxsize=8)
def _disc(win: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """The elliptic structuring element of side ``win``, its offsets (rows, columns) from its
    centre, and whether it holds the whole 3x3 square around its centre."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (win, win))
    dy, dx = np.nonzero(kernel)
    c = win // 2
    return kernel, dy - c, dx - c, bool(kernel[max(0, c - 1):c + 2, max(0, c - 1):c + 2].all())


@lru_cache(maxsize=16)
def _disc_flat(win: int, width: int) -> np.ndarray:
    """:func:`_disc`'s offsets as flat offsets in a C-ordered raster ``width`` wide (read
    only)."""
    _, dy, dx, _ = _disc(win)
    out: np.ndarray = dy * width + dx
    out.flags.writeable = False
    return out


def _peaks(resp: np.ndarray, win: int, lo: int, hi: int, floor: float, low: bool = False
           ) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns (row by row) inside [lo, hi) on both axes where ``resp`` is above
    ``floor`` and no lower than anywhere within the elliptic element of side ``win`` around
    it: what ``resp >= cv2.dilate(resp, element)`` finds there, found faster. Only the 3x3
    local maxima (the element holds that square) are checked against the whole element.
    ``low``: the same of ``-resp`` (below ``-floor``, no higher than around it: min and max
    are exact, so these are the negation's peaks to the bit)."""
    kernel, dy, dx, holds_square = _disc(win)
    if not holds_square:
        if low:
            peaks = (resp <= cv2.erode(resp, kernel)) & (resp < -floor)
        else:
            peaks = (resp >= cv2.dilate(resp, kernel)) & (resp > floor)
        ys, xs = nonzero_2d(peaks[lo:hi, lo:hi])
        return ys + lo, xs + lo
    h, w = resp.shape
    # the 3x3 extremes over [lo, hi) need the pixels one beyond it only: the filter runs on
    # that block (outside the patch it takes nothing, as over the whole patch)
    o = max(lo - 1, 0)  # the block's first row and column (the window is square)
    block = resp[o:min(hi + 1, h), o:min(hi + 1, w)]
    inner = block[lo - o:hi - o, lo - o:hi - o]
    if low:
        near = cv2.erode(block, _SQUARE3)[lo - o:hi - o, lo - o:hi - o]
        ys, xs = nonzero_2d((inner <= near) & (inner < -floor))
    else:
        near = cv2.dilate(block, _SQUARE3)[lo - o:hi - o, lo - o:hi - o]
        ys, xs = nonzero_2d((inner >= near) & (inner > floor))
    ys += lo
    xs += lo
    if len(ys) == 0:
        return ys, xs
    # the whole element around each 3x3 extreme, outside the patch as low (``low``: high) as
    # can be (as cv2.dilate takes it): taken from the patch itself when every element lies in it
    c = win // 2
    if (resp.flags.c_contiguous and int(ys.min()) >= c and int(xs.min()) >= c
            and int(ys.max()) < h - c and int(xs.max()) < w - c):
        around = resp.reshape(-1)[(ys * w + xs)[:, None] + _disc_flat(win, w)[None]]
    else:
        padded = cv2.copyMakeBorder(resp, c, c, c, c, cv2.BORDER_CONSTANT,
                                    value=np.inf if low else -np.inf)
        at = (ys[:, None] + (dy + c)[None]) * (w + 2 * c) + (xs[:, None] + (dx + c)[None])
        around = padded.reshape(-1)[at]
    at_peak = resp[ys, xs]
    keep = at_peak <= around.min(axis=1) if low else at_peak >= around.max(axis=1)
    return ys[keep], xs[keep]


_SQUARE3 = np.ones((3, 3), np.uint8)
