"""A die's face read from the pip evidence at its nine grid places (:func:`grid_read` and
its batched forms): every valid pip pattern of a face, scored by its weakest pip over its
strongest empty place, a one's pip checked for a clear ring about it; and the place and
strength of a read's pips (:func:`pip_peaks`). Used by the face read (``vision.dice.face_fit``),
the tilted-face read (``vision.dice.tilted``) and the fast read's confirmation
(``vision.dice.fast_read.grid_confirm``).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from vision.dice.render import PIP_LAYOUTS, PIP_OFFSET


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


def grid_read(dog: np.ndarray, cx: float, cy: float, angle: float, die_mm: float, ppm: float
              ) -> tuple[int, float, np.ndarray]:
    """Read a face from the pip evidence at its nine grid places (centre mm from the patch
    centre, angle known): (value, score, the 3x3 pattern). Evidence is the pip-scale
    difference-of-Gaussians response (:func:`patch_dog`), for dark pips and for light pips; the
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


PEAK_REACH = 2  # px: how far from a pattern's pip place :func:`pip_peaks` looks for its peak


def pip_peaks(dog: np.ndarray, cx: float, cy: float, ca: float, sa: float, mask: np.ndarray,
              die_mm: float, ppm: float) -> tuple[float, float, float]:
    """The pips of a pattern read at a face centre (mm from the patch centre, its turn as
    cosine and sine), of the polarity that shows more: their mean place (mm from the patch
    centre; each pip's DoG peak within :data:`PEAK_REACH` of its place, centred to a fraction
    of a pixel on the peak's 3x3 pixels) and mean strength (the peaks, over 255). A pip's peak
    is the image's, not the read's: reads of one face a pixel apart give the same, and a
    slight change of the picture moves it slightly."""
    n, w = dog.shape
    u, v = _grid_places(die_mm)
    on = mask.reshape(-1)
    x = np.rint((cx + u[on] * ca - v[on] * sa) * ppm + n / 2).astype(int)
    y = np.rint((cy + u[on] * sa + v[on] * ca) * ppm + n / 2).astype(int)
    steps = np.arange(-PEAK_REACH, PEAK_REACH + 1)
    shape = (len(x), len(steps), len(steps))
    rows = np.broadcast_to(np.clip(y[:, None, None] + steps[:, None], 1, n - 2), shape)
    cols = np.broadcast_to(np.clip(x[:, None, None] + steps[None, :], 1, w - 2), shape)
    rows, cols = rows.reshape(len(x), -1), cols.reshape(len(x), -1)
    out = (0.0, 0.0, -math.inf)
    for sign in (-1.0, 1.0):
        signed = sign * dog[rows, cols]
        at = np.argmax(signed, axis=1)[:, None]
        strength = float(np.mean(np.take_along_axis(signed, at, axis=1))) / 255.0
        if strength <= out[2]:
            continue
        py = np.take_along_axis(rows, at, axis=1) + _OFF_Y.reshape(1, 9)  # the peak's 3x3
        px = np.take_along_axis(cols, at, axis=1) + _OFF_X.reshape(1, 9)
        weight = np.maximum(sign * dog[py, px], 0.0) + 1e-6
        total = weight.sum(axis=1)
        out = ((float(np.mean((weight * px).sum(axis=1) / total)) - n / 2) / ppm,
               (float(np.mean((weight * py).sum(axis=1) / total)) - n / 2) / ppm, strength)
    return out


_PATTERN_PIPS, _PATTERN_EMPTY = _pattern_places()
_ONE_COLUMNS = np.array([_ONE, _NPAT + _ONE])
