"""A die's upward face in top-down patches: pips found, the pip layout fitted, the face read
from the pip evidence at its nine grid places, the outline's angle refined."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.dice.raster import nonzero_2d
from vision.dice.render import PIP_LAYOUTS, PIP_OFFSET, PIP_RADIUS

PATCH_PX_PER_MM = 4.0
PATCH_MM = 40.0
ALIGNED_PX_PER_MM = 4.0
ALIGNED_MM = 36.0
MIN_EDGE = 1.2  # mean grey step per patch pixel along the face outline
MIN_PIP_CONTRAST = 0.09
MIN_GRID_SCORE = 0.045  # pip evidence at the pattern's places over the empty places


@dataclass(frozen=True)
class PatchPip:
    """A pip in a top-down patch: position (mm from the patch centre), contrast, polarity."""

    x: float
    y: float
    contrast: float
    dark: bool


def warp_patch(image: np.ndarray, from_mm: np.ndarray, cx: float, cy: float, size_mm: float,
               ppm: float, angle: float = 0.0) -> np.ndarray:
    """A top-down patch of ``size_mm`` centred on (cx, cy) mm at ``ppm`` px/mm, its x axis
    turned by ``angle`` (radians) on the board."""
    n = round(size_mm * ppm)
    ca, sa = math.cos(angle), math.sin(angle)
    half = size_mm / 2
    # patch px -> local mm (centred) -> board mm
    to_local = np.array([[1.0 / ppm, 0, -half], [0, 1.0 / ppm, -half], [0, 0, 1.0]])
    turn = np.array([[ca, -sa, cx], [sa, ca, cy], [0, 0, 1.0]])
    m = from_mm @ turn @ to_local
    out: np.ndarray = cv2.warpPerspective(image, m, (n, n),
                                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                          borderMode=cv2.BORDER_REPLICATE)
    return out


def patch_pips(gray: np.ndarray, die_mm: float, ppm: float, reach_mm: float | None = None
               ) -> list[PatchPip]:
    """Pip-sized blobs of either polarity in a top-down patch: difference-of-Gaussians peaks
    tuned to the pip size, so pips that blur into each other stay apart; within ``reach_mm``
    of the patch centre along each axis only (the same pips there as over the whole patch),
    else all over it."""
    reach = gray.shape[0] / ppm if reach_mm is None else reach_mm
    return _pips_from_dog(_dog(gray, die_mm, ppm), PIP_RADIUS * die_mm * ppm, ppm, reach)


@lru_cache(maxsize=16)
def _layout(n: int, die_mm: float) -> np.ndarray:
    """The pip places of face ``n`` in mm from the face centre."""
    return np.array(PIP_LAYOUTS[n], np.float64) * PIP_OFFSET * die_mm


@lru_cache(maxsize=16)
def _layout_complex(n: int, die_mm: float) -> np.ndarray:
    """:func:`_layout` as complex numbers x + iy."""
    xy = _layout(n, die_mm)
    out: np.ndarray = xy[:, 0] + 1j * xy[:, 1]
    return out


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
    angles = np.concatenate([base, base + math.pi / 4, base - math.pi / 4])
    turned = np.exp(-1j * angles)[:, None] * z[None, :]  # into the face frame
    d = np.abs(turned[:, :, None] - _layout_complex(n, die_mm)[None, None, :])
    # (the ufuncs' reductions called directly: the array methods' wrappers cost more than the
    # reductions of so few values)
    residual = np.maximum(np.maximum.reduce(np.minimum.reduce(d, axis=2), axis=1),
                          np.maximum.reduce(np.minimum.reduce(d, axis=1), axis=1))
    k = int(residual.argmin())
    return float(residual[k]), cx, cy, float(angles[k])


@lru_cache(maxsize=16)
def _layout_radii(n: int, die_mm: float) -> tuple[float, ...]:
    """The distinct distances of face ``n``'s pip places from the face centre."""
    return tuple(sorted({round(math.hypot(float(x), float(y)), 9) for x, y in _layout(n, die_mm)}))


def _fit_or_reject(pts: np.ndarray, die_mm: float, limit: float
                   ) -> tuple[float, float, float, float]:
    """:func:`fit_face`, or (inf, centre, 0) without fitting when no turn of the layout can
    fit within ``limit``: the layout is centred on the pips' mean, so a pip within ``limit``
    of a layout place lies within ``limit`` of that place's distance from the centre, and
    a place within ``limit`` of a pip likewise (an exact test, in plain Python since groups
    hold at most six pips; most groups a patch offers fail it)."""
    return _fit_or_reject_xy(pts.tolist(), die_mm, limit)


def _fit_or_reject_xy(xy: list[list[float]], die_mm: float, limit: float
                      ) -> tuple[float, float, float, float]:
    """:func:`_fit_or_reject` of pips given as [x, y] lists (an array is made only to fit)."""
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


def _mean_of(values: list[float]) -> float:
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
            strength = _mean_of([p.contrast for p in members])
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


def _patterns() -> list[tuple[int, np.ndarray]]:
    """Every valid pip pattern on the 3x3 grid of a face (both diagonals, both turns)."""
    out: list[tuple[int, np.ndarray]] = []
    for value, layout in PIP_LAYOUTS.items():
        for turn in range(4):
            grid = np.zeros((3, 3), bool)
            for a, b in layout:
                grid[int(b) + 1, int(a) + 1] = True
            grid = np.rot90(grid, turn)
            if not any(v == value and np.array_equal(g, grid) for v, g in out):
                out.append((value, grid))
    return out


PATTERNS = _patterns()
_MASKS = np.array([m.reshape(-1) for _, m in PATTERNS])
_OFF_Y, _OFF_X = (a.reshape(9, 1) for a in np.mgrid[-1:2, -1:2])
_STEPS = np.array([-1, 0, 1])


def _body_centre(gray: np.ndarray, die_mm: float, ppm: float, f: int = 4
                 ) -> tuple[float, float]:
    """Where the die's body is around the patch centre (mm from it): the strongest die-scale
    blob (difference of Gaussians, either polarity) within half a die of the centre.

    Die-scale blurs are wide, so they run on the patch shrunk fourfold (a die is still ~16 px
    there); the peak is then placed to a fraction of a pixel by a parabola through its
    neighbours."""
    n = gray.shape[0]
    small = cv2.resize(gray.astype(np.float32), (n // f, n // f), interpolation=cv2.INTER_AREA)
    sigma = 0.3 * die_mm * ppm / f
    body = np.abs(cv2.GaussianBlur(small, (0, 0), sigma)
                  - cv2.GaussianBlur(small, (0, 0), 2.0 * sigma))
    c = (n / 2 - (f - 1) / 2) / f  # the patch centre in the small raster
    r = 0.5 * die_mm * ppm / f
    lo, hi = max(0, math.ceil(c - r)), min(n // f - 1, math.floor(c + r))
    win = body[lo:hi + 1, lo:hi + 1]
    y, x = np.unravel_index(int(np.argmax(win)), win.shape)

    def vertex(a: float, b: float, d: float) -> float:
        den = a - 2 * b + d
        return 0.0 if den >= 0 else float(np.clip(0.5 * (a - d) / den, -0.5, 0.5))

    fx = fy = 0.0
    if 0 < x < win.shape[1] - 1:
        fx = vertex(float(win[y, x - 1]), float(win[y, x]), float(win[y, x + 1]))
    if 0 < y < win.shape[0] - 1:
        fy = vertex(float(win[y - 1, x]), float(win[y, x]), float(win[y + 1, x]))
    return (float((lo + x + fx - c) * f / ppm), float((lo + y + fy - c) * f / ppm))


def _dog(gray: np.ndarray, die_mm: float, ppm: float) -> np.ndarray:
    """Pip-scale difference of Gaussians of a patch (positive on light blobs)."""
    radius = PIP_RADIUS * die_mm * ppm
    s1 = max(1.0, radius / 1.414)
    g = gray.astype(np.float32)
    out: np.ndarray = cv2.GaussianBlur(g, (0, 0), s1) - cv2.GaussianBlur(g, (0, 0), s1 * 2.5)
    return out


def grid_read(dog: np.ndarray, cx: float, cy: float, angle: float, die_mm: float, ppm: float
              ) -> tuple[int, float, np.ndarray]:
    """Read a face from the pip evidence at its nine grid places (centre mm from the patch
    centre, angle known): (value, score, the 3x3 pattern). Evidence is the pip-scale
    difference-of-Gaussians response (:func:`_dog`), for dark pips and for light pips; the
    score is how far the weakest pip of the pattern stands above the strongest empty place
    (grey levels / 255)."""
    k, score = grid_read_many(dog, np.array([[cx, cy]]), angle, die_mm, ppm)
    return PATTERNS[int(k[0])][0], float(score[0]), PATTERNS[int(k[0])][1]


_NPAT = len(PATTERNS)
_ONE = next(i for i, (v, _) in enumerate(PATTERNS) if v == 1)
ONE_RING = (0.2, 0.38)  # per face side: the ring around a one's pip that must hold no pip


@lru_cache(maxsize=4)
def _ring_offsets(die_mm: float) -> np.ndarray:
    """Sample places (mm from a face centre; x, y: 2 x m) on the ring :data:`ONE_RING` around
    a one's pip: every other face's pips lie on it, at any turn of the face and foreshortened
    by a tilt (a cocked die's three or four, its corner pips off the grid, reads as a one
    otherwise)."""
    out = [(r * math.cos(t), r * math.sin(t))
           for r in np.linspace(ONE_RING[0], ONE_RING[1], 4) * die_mm
           for t in np.linspace(0.0, 2 * math.pi, max(8, round(2 * math.pi * r / 0.8)),
                                endpoint=False)]  # ~0.8 mm apart (1.1 mm let a one through)
    xy: np.ndarray = np.ascontiguousarray(np.array(out).T)
    return xy


def grid_read_many(dog: np.ndarray, centres: np.ndarray, angle: float, die_mm: float,
                   ppm: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`grid_read` at several face centres at once: per centre, the index of the best
    pattern in :data:`PATTERNS` and its score. A one's empty places are its whole ring
    (:data:`ONE_RING`), not only the other eight grid places: any pip reads as a one on its
    own, and a tilted die's foreshortened three, four or five, its outer pips off the grid,
    read as ones before (cocked dice on 400 training throws)."""
    return grid_read_turned(dog, centres, math.cos(angle), math.sin(angle), die_mm, ppm)


@lru_cache(maxsize=4)
def _grid_places(die_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """The nine grid places of a face (mm, face frame, row by row)."""
    step = PIP_OFFSET * die_mm
    return np.tile(np.arange(3) - 1.0, 3) * step, np.repeat(np.arange(3) - 1.0, 3) * step


def _pattern_places() -> tuple[np.ndarray, np.ndarray]:
    """Per pattern (dark patterns, then light ones), which of the 18 evidence values (dark
    then light places) are its pips and which its empty places of its polarity, as index
    arrays (at most 6 x patterns and 8 x patterns): each pattern's list is filled up with its
    first index again, which leaves a minimum or maximum over it unchanged."""
    pips = np.zeros((6, 2 * _NPAT), np.intp)
    empty = np.zeros((8, 2 * _NPAT), np.intp)
    for k, mask in enumerate(_MASKS):
        for half, row in ((0, k), (9, _NPAT + k)):
            on, off = np.flatnonzero(mask) + half, np.flatnonzero(~mask) + half
            pips[:, row], empty[:, row] = np.resize(on, 6), np.resize(off, 8)
    return pips, empty


def grid_read_turned(dog: np.ndarray, centres: np.ndarray, ca: float | np.ndarray,
                     sa: float | np.ndarray, die_mm: float, ppm: float
                     ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`grid_read_many` with the face's turn given as its cosine and sine: numbers, or
    one per centre (arrays of shape (k, 1)), so faces at several angles are read at once."""
    n, w = dog.shape
    u, v = _grid_places(die_mm)
    half = n / 2
    # the nine places' pixels, x then y (2, k, 9), both at once: x = cx + u ca - v sa and
    # y = cy + u sa - v (-ca) (the sums cy + u sa + v ca, to the bit)
    along = np.reshape(np.array([ca, sa]), (2, -1, 1))
    across = np.reshape(np.array([sa, -ca]), (2, -1, 1))
    at = np.rint((centres.T[:, :, None] + u * along - v * across) * ppm + half).astype(int)
    # each place's 3x3 pixels (rows, then columns, as :data:`_OFF_Y`, :data:`_OFF_X`), the
    # places last: numpy takes minima and maxima over an outer axis much faster
    near = np.minimum(np.maximum(at[:, :, None, :] + _STEPS[:, None], 0), n - 1)  # (2, k, 3, 9)
    stack = dog.reshape(-1)[near[1][:, :, None, :] * w + near[0][:, None, :, :]].reshape(
        len(centres), 9, 9)
    # each place's dark and light evidence (the least DoG negated, the greatest), + 0 making
    # a -0 a 0 (a zero score is +0)
    evidence = np.maximum.reduce(np.concatenate([-stack, stack], axis=2), axis=1)
    evidence += 0
    # per pattern, its weakest pip and its strongest empty place (k, 2 * patterns)
    on = np.minimum.reduce(evidence[:, _PATTERN_PIPS], axis=1)
    off = np.maximum.reduce(evidence[:, _PATTERN_EMPTY], axis=1)
    scores = (on - off) / 255.0
    best = np.argmax(scores, axis=1)
    ones = np.nonzero(best % _NPAT == _ONE)[0]
    if len(ones):
        # a one: nothing pip-like anywhere around its pip, not only at the other eight places
        # (only where a one wins: the ring can only lower a one's score)
        # the ring's pixels, x then y (2, ones, m)
        on_ring = np.rint((centres[ones].T[:, :, None] + _ring_offsets(die_mm)[:, None, :])
                          * ppm + half).astype(int)
        np.minimum(np.maximum(on_ring, 0, out=on_ring), n - 1, out=on_ring)
        ring = dog.reshape(-1)[on_ring[1] * w + on_ring[0]]  # (ones, m)
        rows, cols = ones[:, None], _ONE_COLUMNS  # a dark one, a light one
        ring_off = np.empty((len(ones), 2), ring.dtype)
        np.negative(np.minimum.reduce(ring, axis=1), out=ring_off[:, 0])
        np.maximum.reduce(ring, axis=1, out=ring_off[:, 1])
        scores[rows, cols] = (on[rows, cols] - np.maximum(off[rows, cols], ring_off)) / 255.0
        best[ones] = np.argmax(scores[ones], axis=1)
    return best % _NPAT, scores[np.arange(len(best)), best]


_PATTERN_PIPS, _PATTERN_EMPTY = _pattern_places()
_ONE_COLUMNS = np.array([_ONE, _NPAT + _ONE])


def _outline_angle(gray: np.ndarray, angle: float, die_mm: float, ppm: float,
                   search_deg: float) -> tuple[float, float]:
    """Refine the face angle by the strongest square outline around the patch centre:
    (mean edge step along the outline, angle)."""
    g = cv2.GaussianBlur(gray, (3, 3), 0).astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    return _outline_step(gx, gy, 0.0, 0.0, angle, die_mm, ppm, search_deg)


@dataclass(frozen=True)
class FaceFinding:
    """A die's upward face before its pose is judged (also what the trainer learns from)."""

    pips: int
    x_mm: float
    y_mm: float
    angle: float
    residual: float
    contrast: float
    features: np.ndarray
    score: float = 0.0  # pip evidence: weakest pattern pip over strongest empty place


FACE_PPM = 2.0  # px/mm of the one patch each candidate is read in (the camera gives ~1.3)
FACE_MM = 48.0  # its side: the face centre hypotheses lie up to 0.75 die off the candidate
EDGE_WEIGHT = 0.05  # pip evidence per unit of log outline edge step (see read_candidate)
# a lone pip fitted as a one is read where its outline steps this much, under MIN_EDGE: a black
# die's one on a nearly black board (a clear pip, a faint outline); the die model still judges it
FAINT_ONE_EDGE = 0.45
DECISIVE_SCORE = 0.1  # pip evidence at which a fitted layout the grid confirms ends the search
# a fitted layout of this many pips or more that the grid read confirms (DECISIVE_SCORE, the
# patch's pips bearing it out) is not read as a one at its strongest pip: three or more spots
# in a face's very pattern are no coincidence, while a two may be a pip and a spot beside it.
# Where the layout's own outline is faint (a black die on a black point) a one there, outlined
# by the point's edge, outranked it
LAYOUT_KEPT_PIPS = 3


@dataclass(frozen=True)
class FaceRead:
    """The best face read around a candidate: pip evidence score, centre (mm from the
    candidate), angle, value and 3x3 pattern, outline edge step (per patch pixel at
    :data:`ALIGNED_PX_PER_MM`), the pip layout's fit residual and pip contrast."""

    score: float
    dx: float
    dy: float
    angle: float
    value: int
    mask: np.ndarray
    edge: float
    residual: float
    contrast: float


def _pips_from_dog(dog: np.ndarray, radius: float, ppm: float, reach_mm: float
                   ) -> list[PatchPip]:
    """:func:`patch_pips` on a DoG already computed, pips within ``reach_mm`` (each axis) of
    the patch centre only."""
    centre = dog.shape[0] / 2
    win = int(radius * 2.2) | 1
    out: list[PatchPip] = []
    lo, hi = max(0, int(centre - reach_mm * ppm)), int(centre + reach_mm * ppm) + 1
    for dark in (True, False):
        resp = -dog if dark else dog
        ys, xs = _peaks(resp, win, lo, hi, 16.0)
        for x, y, value in zip(xs.tolist(), ys.tolist(), resp[ys, xs].tolist(), strict=True):
            out.append(PatchPip((x - centre) / ppm, (y - centre) / ppm, value / 255.0, dark))
    return out


@lru_cache(maxsize=8)
def _disc(win: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """The elliptic structuring element of side ``win``, its offsets (rows, columns) from its
    centre, and whether it holds the whole 3x3 square around its centre."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (win, win))
    dy, dx = np.nonzero(kernel)
    c = win // 2
    return kernel, dy - c, dx - c, bool(kernel[max(0, c - 1):c + 2, max(0, c - 1):c + 2].all())


def _peaks(resp: np.ndarray, win: int, lo: int, hi: int, floor: float
           ) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns (row by row) inside [lo, hi) on both axes where ``resp`` is above
    ``floor`` and no lower than anywhere within the elliptic element of side ``win`` around
    it: what ``resp >= cv2.dilate(resp, element)`` finds there, found faster. Only the 3x3
    local maxima (the element holds that square) are checked against the whole element."""
    kernel, dy, dx, holds_square = _disc(win)
    if not holds_square:
        peaks = (resp >= cv2.dilate(resp, kernel)) & (resp > floor)
        ys, xs = nonzero_2d(peaks[lo:hi, lo:hi])
        return ys + lo, xs + lo
    near = cv2.dilate(resp, _SQUARE3)
    ys, xs = nonzero_2d((resp[lo:hi, lo:hi] >= near[lo:hi, lo:hi])
                        & (resp[lo:hi, lo:hi] > floor))
    ys += lo
    xs += lo
    if len(ys) == 0:
        return ys, xs
    # the whole element around each 3x3 maximum, outside the patch as low as can be (as
    # cv2.dilate takes it)
    c = win // 2
    w = resp.shape[1]
    padded = cv2.copyMakeBorder(resp, c, c, c, c, cv2.BORDER_CONSTANT, value=-np.inf)
    at = (ys[:, None] + (dy + c)[None]) * (w + 2 * c) + (xs[:, None] + (dx + c)[None])
    keep = resp[ys, xs] >= padded.reshape(-1)[at].max(axis=1)
    return ys[keep], xs[keep]


_SQUARE3 = np.ones((3, 3), np.uint8)


@lru_cache(maxsize=4)
def _outline_frame(die_mm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sample places of a square outline in face coordinates (mm; 4 sides x 11 along each
    side, shaped (1, 4, 11)) and the sides' normals (shaped (1, 4, 1))."""
    half = die_mm / 2
    t = np.linspace(-0.7, 0.7, 11) * half
    nu = np.array([1.0, -1.0, 0.0, 0.0])[None, :, None]
    nv = np.array([0.0, 0.0, 1.0, -1.0])[None, :, None]
    tt = t[None, None, :]
    return nu * half + (nu == 0) * tt, nv * half + (nv == 0) * tt, nu, nv


@lru_cache(maxsize=8)
def _search_turns(search_deg: float) -> np.ndarray:
    """The turns (radians) an outline search tries either way of its angle, 3 degrees apart."""
    out: np.ndarray = np.radians(np.arange(-search_deg, search_deg + 0.1, 3.0))
    return out


def _pixels(mm: np.ndarray, n: int, ppm: float) -> np.ndarray:
    """The patch pixels (side ``n``, truncated and kept inside it) of places ``mm`` from its
    centre: clipped before they are truncated, the same pixels as truncated first."""
    out: np.ndarray = np.clip(mm * ppm + n / 2, 0, n - 1).astype(int)
    return out


@lru_cache(maxsize=64)
def _outline_turns(die_mm: float, search_deg: float, angle: float
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A square outline's sample places (mm from the face centre, turns x 4 sides x 11) and
    its sides' normals at each of them, at every turn an outline search tries about
    ``angle``, and those turns: the same for every search at that angle (most start at 0).
    (The normals are repeated along each side: products with them then run over whole
    arrays, not 11 values at a time.)"""
    eu, ev, nu, nv = _outline_frame(die_mm)
    angles = angle + _search_turns(search_deg)
    ca, sa = np.cos(angles)[:, None, None], np.sin(angles)[:, None, None]
    su, sv = eu * ca - ev * sa, eu * sa + ev * ca
    nx, ny = (np.broadcast_to(a, su.shape).copy() for a in (nu * ca - nv * sa,
                                                             nu * sa + nv * ca))
    return su, sv, nx, ny, angles


def _outline_steps(gx: np.ndarray, gy: np.ndarray, ox: float | np.ndarray,
                   oy: float | np.ndarray, angle: float, die_mm: float, ppm: float,
                   search_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """The mean edge step along a square outline at each turn searched (:func:`_outline_step`)
    and those turns; ``ox``, ``oy`` may be arrays of shape (k, 1, 1, 1) (k centres at once:
    the steps then (k, turns))."""
    n, w = gx.shape
    su, sv, nx, ny, angles = _outline_turns(die_mm, search_deg, angle)
    at = _pixels(sv + oy, n, ppm) * w + _pixels(su + ox, n, ppm)
    return _steps_at(gx, gy, at, nx, ny), angles


def _steps_at(gx: np.ndarray, gy: np.ndarray, at: np.ndarray, nx: np.ndarray, ny: np.ndarray
              ) -> np.ndarray:
    """The mean edge step along square outlines sampled at the flat pixel indices ``at`` (...,
    4 sides, 11 along each), the sides' normals ``nx``, ``ny`` at each sample."""
    out: np.ndarray = np.abs(gx.reshape(-1)[at] * nx + gy.reshape(-1)[at] * ny).mean(
        axis=(-2, -1))
    return out


def outline_steps_about(gx: np.ndarray, gy: np.ndarray, centres: tuple[tuple[float, float], ...],
                        die_mm: float, ppm: float, search_deg: float
                        ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_outline_steps` about 0 at several centres (mm from the patch centre) at once:
    (centres, turns) steps and the turns. The samples' pixels are kept per patch shape and
    centres: the tilted-face hypotheses (``vision.dice.tilted``) look at the same places in
    every candidate's patch."""
    _, _, nx, ny, angles = _outline_turns(die_mm, search_deg, 0.0)
    at = _outline_pixels(gx.shape, centres, die_mm, ppm, search_deg)
    return _steps_at(gx, gy, at, nx, ny), angles


@lru_cache(maxsize=8)
def _outline_pixels(shape: tuple[int, int], centres: tuple[tuple[float, float], ...],
                    die_mm: float, ppm: float, search_deg: float) -> np.ndarray:
    """The flat pixel indices of :func:`outline_steps_about`'s samples (read only)."""
    n, w = shape
    su, sv, _, _, _ = _outline_turns(die_mm, search_deg, 0.0)
    xy = np.array(centres)
    at: np.ndarray = _pixels(sv + xy[:, 1, None, None, None], n, ppm) * w + _pixels(
        su + xy[:, 0, None, None, None], n, ppm)
    at.flags.writeable = False
    return at


def _outline_step(gx: np.ndarray, gy: np.ndarray, ox: float, oy: float, angle: float,
                  die_mm: float, ppm: float, search_deg: float) -> tuple[float, float]:
    """:func:`_outline_angle` on gradients already computed, for a face centred (ox, oy) mm
    from the patch centre."""
    step, angles = _outline_steps(gx, gy, ox, oy, angle, die_mm, ppm, search_deg)
    k = int(np.argmax(step))
    return float(step[k]), float(angles[k])


_SHIFTS = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
AGREE_WEIGHT = 0.05  # rank bonus of a read the patch's pips bear out (:func:`pips_agree`)
MAX_MOVED_SPREAD = 100.0  # grey levels: a recentred read's face must be about one colour
RECENTRE_MM = 4  # how far (mm, each face axis) a hypothesis' centre is moved to its outline
RECENTRE_MIN_SCORE = 0.0  # the most pip evidence of any hypothesis that lets them be recentred
RECENTRE_TURN_DEG = 9.0  # how far the angle is refined again at a recentred face
SPREAD_WEIGHT = 0.5  # rank lost per unit of face grey spread (over 255, :func:`face_spread`)
ONE_WEIGHT = 0.1  # rank lost by a one: any lone pip, a side face's or a checker's, reads as one
DECISIVE_SPREAD = 60.0  # grey levels: the most face spread of a read that ends the search


@lru_cache(maxsize=4)
def _outline_offsets(die_mm: float, reach: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                          np.ndarray]:
    """Sample places of a face outline in face coordinates (mm, (4 sides x 11) along the
    sides), their side normals, and the centre moves (a, b) mm tried by :func:`_recentre`."""
    half = die_mm / 2
    t = np.linspace(-0.7, 0.7, 11) * half
    nu = np.repeat([1.0, -1.0, 0.0, 0.0], 11)
    nv = np.repeat([0.0, 0.0, 1.0, -1.0], 11)
    tt = np.tile(t, 4)
    eu = nu * half + (nu == 0) * tt
    ev = nv * half + (nv == 0) * tt
    a, b = np.meshgrid(np.arange(-reach, reach + 1.0), np.arange(-reach, reach + 1.0))
    return np.stack([eu, ev]), np.stack([nu, nv]), a.reshape(-1), b.reshape(-1)


def _recentre(gx: np.ndarray, gy: np.ndarray, ox: float, oy: float, angle: float,
              die_mm: float, ppm: float) -> tuple[float, float, float]:
    """The face centre near (ox, oy) mm, at this angle, whose square outline shows the
    strongest edge step (moves up to :data:`RECENTRE_MM` along each face axis, 1 mm apart):
    (x, y, mean edge step there). A centre taken from a wrong pip layout (a pip of a two and a
    spot beside the die) or from a candidate off the die lies a few mm off the die; its
    outline finds the die."""
    return _recentre_many(gx, gy, [(ox, oy, angle)], die_mm, ppm)[0]


def _recentre_many(gx: np.ndarray, gy: np.ndarray, hypotheses: list[tuple[float, float, float]],
                   die_mm: float, ppm: float) -> list[tuple[float, float, float]]:
    """:func:`_recentre` of several hypotheses (centre x, y mm and angle) at once."""
    if not hypotheses:
        return []
    n, w = gx.shape
    (eu, ev), (nu, nv), a, b = _outline_offsets(die_mm, RECENTRE_MM)
    ox = np.array([h[0] for h in hypotheses])[:, None]
    oy = np.array([h[1] for h in hypotheses])[:, None]
    ca = np.array([math.cos(h[2]) for h in hypotheses])[:, None]
    sa = np.array([math.sin(h[2]) for h in hypotheses])[:, None]
    cu = ox + a * ca - b * sa  # candidate centres (hypotheses, k)
    cv = oy + a * sa + b * ca
    su = eu * ca - ev * sa  # outline samples around a centre (hypotheses, 44)
    sv = eu * sa + ev * ca
    at = _pixels(cv[:, :, None] + sv[:, None], n, ppm) * w + _pixels(cu[:, :, None] + su[:, None],
                                                                     n, ppm)
    nx, ny = (nu * ca - nv * sa)[:, None], (nu * sa + nv * ca)[:, None]
    step = np.abs(gx.reshape(-1)[at] * nx + gy.reshape(-1)[at] * ny).mean(axis=2)
    best = np.argmax(step, axis=1).tolist()
    return [(float(cu[h, k]), float(cv[h, k]), float(step[h, k])) for h, k in enumerate(best)]


@lru_cache(maxsize=64)
def _pattern_offsets(mask: bytes, die_mm: float) -> tuple[tuple[float, float], ...]:
    """The pip places (mm from the face centre, row by row) of a 3x3 pattern given as its
    bytes (a few patterns, read again and again; a tuple: the cache's, not to be changed)."""
    step = PIP_OFFSET * die_mm
    rows, cols = np.nonzero(np.frombuffer(mask, bool).reshape(3, 3))
    return tuple(((j - 1) * step, (i - 1) * step) for i, j in zip(rows.tolist(), cols.tolist(),
                                                                  strict=True))


def pips_agree(pips: list[PatchPip], read: FaceRead, die_mm: float) -> bool:
    """Whether the pips found in the patch bear a face read out: for one polarity, a pip at
    every place of its pattern and no other pip as strong inside the face. A square outline
    with stripes or a checker's rim in it can read as a face on the pip grid; it has no such
    pips."""
    ca, sa = math.cos(read.angle), math.sin(read.angle)
    places = _pattern_offsets(read.mask.tobytes(), die_mm)
    for dark in (True, False):
        inside = []
        for p in pips:
            if p.dark != dark:
                continue
            dx, dy = p.x - read.dx, p.y - read.dy
            u, v = dx * ca + dy * sa, -dx * sa + dy * ca  # in the face frame
            if max(abs(u), abs(v)) < 0.42 * die_mm:
                inside.append((u, v, p.contrast))
        hits = [max((c for u, v, c in inside if math.hypot(u - pu, v - pv) < 0.12 * die_mm),
                    default=0.0) for pu, pv in places]
        if min(hits) <= 0.0:
            continue
        floor = 0.5 * min(hits)
        extra = [c for u, v, c in inside if c >= floor
                 and all(math.hypot(u - pu, v - pv) >= 0.12 * die_mm for pu, pv in places)]
        if not extra:
            return True
    return False


def face_spread(patch: np.ndarray, read: FaceRead, die_mm: float, ppm: float) -> float:
    """How far from one colour the face of a read is: the range (10th to 90th percentile, grey
    levels) of the patch inside the face, away from its nine pip places. A die's face is one
    colour; a square outline drawn over a checker's rim and a point's apex is not."""
    n = patch.shape[0]
    u, v = _face_samples_kept(die_mm)
    ca, sa = math.cos(read.angle), math.sin(read.angle)
    x = _pixels(read.dx + u * ca - v * sa, n, ppm)
    y = _pixels(read.dy + u * sa + v * ca, n, ppm)
    values = np.sort(patch[y, x].astype(np.float32))
    return _quantile(values, 0.9) - _quantile(values, 0.1)


def _quantile(ordered: np.ndarray, q: float) -> float:
    """The ``q`` quantile of sorted values, interpolated linearly between neighbours (as
    ``np.percentile`` does, without its overhead: it runs on every face hypothesis)."""
    at = q * (len(ordered) - 1)
    i = min(int(at), len(ordered) - 2)
    return float(ordered[i] + (at - i) * (ordered[i + 1] - ordered[i]))


@lru_cache(maxsize=4)
def _face_samples_kept(die_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_face_samples` away from every pip place only."""
    u, v, keep = _face_samples(die_mm)
    return u[keep], v[keep]


@lru_cache(maxsize=4)
def _face_samples(die_mm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample places inside a face (mm, face frame) and which lie away from every pip place."""
    u, v = (a.reshape(-1) for a in np.meshgrid(np.linspace(-0.4, 0.4, 17) * die_mm,
                                                 np.linspace(-0.4, 0.4, 17) * die_mm))
    step = PIP_OFFSET * die_mm
    keep = np.ones(len(u), bool)
    for i in range(3):
        for j in range(3):
            keep &= np.hypot(u - (j - 1) * step, v - (i - 1) * step) > 2.0 * PIP_RADIUS * die_mm
    return u, v, keep


def _read_at(dog: np.ndarray, x0: float, y0: float, angle: float, edge: float, die_mm: float,
             ppm: float, residual: float, contrast: float) -> FaceRead:
    """The face read on the pip grid at a centre hypothesis (and 1 mm around it)."""
    ks, scores = grid_read_many(dog, _SHIFTS + np.array([x0, y0]), angle, die_mm, ppm)
    i = int(np.argmax(scores))
    value, mask = PATTERNS[int(ks[i])]
    return FaceRead(float(scores[i]), x0 + float(_SHIFTS[i, 0]), y0 + float(_SHIFTS[i, 1]),
                    angle, value, mask, edge, residual, contrast)


def _outlines_at(gx: np.ndarray, gy: np.ndarray, places: list[tuple[float, float, float, float]],
                 die_mm: float, ppm: float) -> list[tuple[float, float]]:
    """:func:`_outline_step` at several (x, y, angle, search) at once (those of one search
    together): (edge step, angle) each, the same numbers as one by one."""
    out: list[tuple[float, float]] = [(0.0, 0.0)] * len(places)
    for search in sorted({p[3] for p in places}):
        at = [i for i, p in enumerate(places) if p[3] == search]
        turns = [_outline_turns(die_mm, search, places[i][2]) for i in at]
        su, sv, nx, ny = (np.stack([t[j] for t in turns]) for j in range(4))
        ox = np.array([places[i][0] for i in at])[:, None, None, None]
        oy = np.array([places[i][1] for i in at])[:, None, None, None]
        n, w = gx.shape
        idx = _pixels(sv + oy, n, ppm) * w + _pixels(su + ox, n, ppm)
        steps = np.abs(gx.reshape(-1)[idx] * nx + gy.reshape(-1)[idx] * ny).mean(axis=(-2, -1))
        best = np.argmax(steps, axis=1).tolist()
        for row, (i, k) in enumerate(zip(at, best, strict=True)):
            out[i] = (float(steps[row, k]), float(turns[row][4][k]))
    return out


def _reads_at(dog: np.ndarray, places: list[tuple[float, float, float, float]], die_mm: float,
              ppm: float, residual: float, contrast: float) -> list[FaceRead]:
    """:func:`_read_at` at several (x, y, angle, edge) at once, the same reads."""
    if not places:
        return []
    xy = np.array([[p[0], p[1]] for p in places])
    cos = np.repeat([math.cos(p[2]) for p in places], len(_SHIFTS))[:, None]
    sin = np.repeat([math.sin(p[2]) for p in places], len(_SHIFTS))[:, None]
    ks, scores = grid_read_turned(dog, (_SHIFTS[None] + xy[:, None]).reshape(-1, 2), cos, sin,
                                  die_mm, ppm)
    ks, scores = ks.reshape(len(places), -1), scores.reshape(len(places), -1)
    out = []
    for row, ((x0, y0, angle, edge), i) in enumerate(zip(places, np.argmax(scores, axis=1).tolist(),
                                                         strict=True)):
        value, mask = PATTERNS[int(ks[row, i])]
        out.append(FaceRead(float(scores[row, i]), x0 + float(_SHIFTS[i, 0]),
                            y0 + float(_SHIFTS[i, 1]), angle, value, mask, edge, residual,
                            contrast))
    return out


def _rank(read: FaceRead, agree: bool, spread: float) -> float:
    """How much a face read is to be believed: its pip evidence, plus :data:`EDGE_WEIGHT` times
    the log of its outline's edge step, plus :data:`AGREE_WEIGHT` when the patch's pips bear it
    out (:func:`pips_agree`), less :data:`SPREAD_WEIGHT` times its face's grey spread
    (:func:`face_spread`, over 255) and :data:`ONE_WEIGHT` for a one (a single pip anywhere
    reads as a one)."""
    return (read.score + EDGE_WEIGHT * math.log(max(read.edge, 0.3)) + AGREE_WEIGHT * agree
            - SPREAD_WEIGHT * spread / 255.0 - ONE_WEIGHT * (read.value == 1))


def _ready_reads(gx: np.ndarray, gy: np.ndarray, dog: np.ndarray,
                 starts: list[tuple[float, float, float, float]], first: int, die_mm: float,
                 ppm: float, to_aligned: float, residual: float, contrast: float
                 ) -> dict[int, tuple[float, float, FaceRead | None]]:
    """For :func:`read_candidate`: the outline (edge step at the aligned scale, angle) of every
    start from ``first`` on, and its read on the pip grid where the outline is clear enough
    (None otherwise), all at once."""
    outlines = _outlines_at(gx, gy, starts[first:], die_mm, ppm)
    edges = [(edge * to_aligned, angle) for edge, angle in outlines]
    clear = [i for i, (edge, _) in enumerate(edges) if edge >= MIN_EDGE]
    reads = _reads_at(dog, [(starts[first + i][0], starts[first + i][1], edges[i][1],
                             edges[i][0]) for i in clear], die_mm, ppm, residual, contrast)
    got = dict(zip(clear, reads, strict=True))
    return {first + i: (edge, angle, got.get(i)) for i, (edge, angle) in enumerate(edges)}


@dataclass(frozen=True)
class CandidatePatch:
    """A candidate's top-down patch (:data:`FACE_MM` square around it) and its pip-scale
    difference of Gaussians (:func:`_dog`)."""

    patch: np.ndarray
    dog: np.ndarray


# a frame's candidate patches by place (x, y board mm), die size (mm) and px/mm: a second chance
# (``vision.dice.tilted``) reads the very pixels the face read at its candidate read
CandidatePatches = dict[tuple[float, float, float, float], CandidatePatch]


def candidate_patch(gray: np.ndarray, from_mm: np.ndarray, cx: float, cy: float,
                    die_mm: float, ppm: float, kept: CandidatePatches | None = None
                    ) -> CandidatePatch:
    """The top-down patch a candidate (cx, cy board mm) is read in at ``ppm`` px/mm, and its
    DoG: the ones ``kept`` holds for it, else worked out (and put there)."""
    key = (cx, cy, die_mm, ppm)
    found = kept.get(key) if kept is not None else None
    if found is None:
        patch = warp_patch(gray, from_mm, cx, cy, FACE_MM, ppm)
        found = CandidatePatch(patch, _dog(patch, die_mm, ppm))
        if kept is not None:
            kept[key] = found
    return found


def read_candidate(gray: np.ndarray, from_mm: np.ndarray, cx: float, cy: float,
                   die_mm: float, ppm: float | None = None,
                   kept: CandidatePatches | None = None) -> FaceRead | None:
    """Read the face around a candidate (cx, cy board mm) from ONE top-down patch: its
    pip-scale DoG and gradients are computed once and shared by the pip finder, the layout
    fit and every centre hypothesis (the fitted layout's centre, the candidate's own, the die
    body's, and the fitted layout's strongest pip as a one's centre), each refined by its
    outline angle and read on the pip grid (within a mm of it).

    The hypothesis kept has the highest :func:`_rank`: pip evidence, a clear outline, the
    patch's pips bearing it out, a face of one colour. A lone pip of a two or a four taken for
    a one's centre shows as much pip evidence as the whole face read at its true centre, but a
    weaker outline; a two made of a one's pip and a spot beside the die (a point's edge at a
    die corner, a side face's pip, a checker's rim), centred between them, takes in what lies
    beside the die and is far from one colour. A fitted layout of two or more pips that the
    grid read confirms with :data:`DECISIVE_SCORE`, on a face of one colour
    (:data:`DECISIVE_SPREAD`) with an outline, ends the search; a fitted layout of two or more
    pips is read even where its outline is faint (a black die on a black checker), a lone pip
    down to :data:`FAINT_ONE_EDGE`. When some hypothesis shows pip evidence
    (:data:`RECENTRE_MIN_SCORE`), each is also moved to its strongest outline nearby
    (:func:`_recentre`), its angle refined there (:data:`RECENTRE_TURN_DEG`), and read again;
    such a read counts only with :data:`MIN_GRID_SCORE`, if the pips bear it out and its face
    is about one colour (:data:`MAX_MOVED_SPREAD`), so that an outline beside board texture
    does not turn texture into a die. On 400 throws of the training range (seeds
    1,000,000+, ``tests.eval.dice``) this ranking, the one's ring (:func:`grid_read_many`)
    and the recentring of every hypothesis took the dice found from 763 to 773 of 800 and
    those read right from 729 to 755 (95.5% to 97.7%), with 22 extra dice instead of 23. None
    when no hypothesis shows a face outline. ``kept``: the frame's candidate patches, which
    the patch is taken from or put in (:func:`candidate_patch`)."""
    ppm = ppm or FACE_PPM
    at = candidate_patch(gray, from_mm, cx, cy, die_mm, ppm, kept)
    patch, dog = at.patch, at.dog
    radius = PIP_RADIUS * die_mm * ppm
    pips = _pips_from_dog(dog, radius, ppm, PATCH_MM / 2)
    face = choose_face(pips, die_mm)
    sm = cv2.GaussianBlur(patch, (3, 3), 0).astype(np.float32)
    gx = cv2.Sobel(sm, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(sm, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    to_aligned = ppm / ALIGNED_PX_PER_MM  # edge steps per pixel as at the aligned scale
    best: FaceRead | None = None
    rank = -math.inf
    residual, contrast = 0.16 * die_mm, 0.0
    fitted = 0
    starts: list[tuple[float, float, float, float]] = []
    if face is not None:
        members, residual, fx, fy, a0 = face
        fitted = len(members)
        contrast = _mean_of([p.contrast for p in members])
        starts.append((fx, fy, a0, 45.0 if fitted < 2 else 9.0))
    starts.append((0.0, 0.0, 0.0, 45.0))
    lone = None  # a fitted layout's strongest pip, as a one's centre (the layout may be wrong)
    if fitted >= 2 and face is not None:
        top = max(face[0], key=lambda p: p.contrast)
        if math.hypot(top.x, top.y) >= 1.0:  # else the candidate's own hypothesis is it
            lone = (top.x, top.y, 0.0, 45.0)
    hypotheses: list[tuple[float, float, float]] = []  # centre and angle, to recentre later
    top_score = -math.inf  # the most pip evidence any hypothesis shows
    # start -> (outline edge step, angle, read or None): worked out together for the starts
    # every one of which is read (no decisive read can end the search among them)
    ready: dict[int, tuple[float, float, FaceRead | None]] = {}
    k = 0
    while k < len(starts):
        x0, y0, a, search = starts[k]
        k += 1
        if k == len(starts) and len(starts) < 3:
            # the die body's centre, looked for only when the hypotheses so far left a doubt
            bx, by = _body_centre(patch, die_mm, ppm, max(1, round(ppm)))
            if math.hypot(bx, by) > 1.0:
                starts.append((bx, by, 0.0, 45.0))
            if lone is not None:
                starts.append(lone)
            if not (k == 1 and fitted >= 2):
                ready = _ready_reads(gx, gy, dog, starts, k - 1, die_mm, ppm, to_aligned,
                                     residual, contrast)
        if k - 1 in ready:
            edge, angle, found = ready[k - 1]
            if found is None:
                continue
            read = found
        else:
            edge, angle = _outline_step(gx, gy, x0, y0, a, die_mm, ppm, search)
            edge *= to_aligned
            if edge < MIN_EDGE and not (k == 1 and (fitted >= 2 or (
                    fitted == 1 and edge >= FAINT_ONE_EDGE))):
                continue
            read = _read_at(dog, x0, y0, angle, edge, die_mm, ppm, residual, contrast)
        top_score = max(top_score, read.score)
        hypotheses.append((x0, y0, angle))
        if (k == 1 and fitted >= 2 and read.value == fitted and read.score >= DECISIVE_SCORE
                and edge >= MIN_EDGE):
            spread = face_spread(patch, read, die_mm, ppm)
            if spread <= DECISIVE_SPREAD:
                return read  # the fitted layout, confirmed on the pip grid with a clear margin
        else:
            spread = math.nan  # not yet measured
        agree = pips_agree(pips, read, die_mm)
        if (k == 1 and fitted >= LAYOUT_KEPT_PIPS and read.value == fitted and agree
                and read.score >= DECISIVE_SCORE):
            lone = None  # a layout of three or more pips, confirmed: not one of them alone
        if best is not None and _rank(read, agree, 0.0) <= rank:
            continue  # (a face's spread only lowers its rank)
        if math.isnan(spread):
            spread = face_spread(patch, read, die_mm, ppm)
        r = _rank(read, agree, spread)
        if best is None or r > rank:
            rank, best = r, read
    if best is None or top_score < RECENTRE_MIN_SCORE:
        return best  # no die here by its own hypotheses: an outline nearby is not one
    # every hypothesis moved to its outline (unless it is there already) is read again
    moved = [(rx, ry, angle, RECENTRE_TURN_DEG) for (x0, y0, angle), (rx, ry, _) in
             zip(hypotheses, _recentre_many(gx, gy, hypotheses, die_mm, ppm), strict=True)
             if math.hypot(rx - x0, ry - y0) >= 1.0]
    outlines = _outlines_at(gx, gy, moved, die_mm, ppm)
    for read in _reads_at(dog, [(rx, ry, angle, edge * to_aligned) for (rx, ry, _, _), (edge, angle)
                                in zip(moved, outlines, strict=True)],
                          die_mm, ppm, residual, contrast):
        if (read.score < MIN_GRID_SCORE or _rank(read, True, 0.0) <= rank
                or not pips_agree(pips, read, die_mm)):
            continue  # (a face's spread only lowers its rank)
        spread = face_spread(patch, read, die_mm, ppm)
        r = _rank(read, True, spread)
        if r > rank and spread <= MAX_MOVED_SPREAD:
            rank, best = r, read
    return best
