"""A die's face read from the pip evidence at its nine grid places (:func:`grid_read` and
its batched forms): every valid pip pattern of a face, scored by its weakest pip over its
strongest empty place, a one's pip checked for a clear ring about it; and the place and
strength of a read's pips (:func:`pip_peaks`). Used by the face read (``vision.dice.face_fit``),
the tilted-face read (``vision.dice.tilted``) and the fast read's confirmation
(``vision.dice.fast_read.grid_confirm``), which reads hypotheses on a fixed lattice of
centres and turns (:class:`Lattice`, :func:`lattice_read`: the same reads, their pixels
worked out once).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import cv2
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


def _place_pixels(centres: np.ndarray, ca: float | np.ndarray, sa: float | np.ndarray,
                  die_mm: float, ppm: float, half: float) -> np.ndarray:
    """The nine grid places' pixels of faces at ``centres`` (mm from the patch centre) turned
    by ``ca``, ``sa`` (see :func:`grid_read_turned`), x then y: (2, k, 9) ints."""
    u, v = _grid_places(die_mm)
    # x = cx + u ca - v sa and y = cy + u sa - v (-ca) (the sums cy + u sa + v ca, to the bit)
    along = np.reshape(np.array([ca, sa]), (2, -1, 1))
    across = np.reshape(np.array([sa, -ca]), (2, -1, 1))
    at: np.ndarray = np.rint((centres.T[:, :, None] + u * along - v * across) * ppm
                             + half).astype(int)
    return at


def _ring_pixels(centres: np.ndarray, die_mm: float, ppm: float, n: int, w: int) -> np.ndarray:
    """The pixels of the ring :data:`ONE_RING` about faces at ``centres`` (mm from the centre
    of a patch ``n`` px square, rows ``w`` px apart), clipped to the patch, as flat indices:
    (k, m)."""
    on_ring = np.rint((centres.T[:, :, None] + _ring_offsets(die_mm)[:, None, :])
                      * ppm + n / 2).astype(int)
    np.minimum(np.maximum(on_ring, 0, out=on_ring), n - 1, out=on_ring)
    flat: np.ndarray = on_ring[1] * w + on_ring[0]
    return flat


def _best_patterns(evidence: np.ndarray, ring: Callable[[np.ndarray], np.ndarray]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``evidence`` (each place's dark, then light evidence: k x 18), the index of
    the best pattern in :data:`PATTERNS` and its score; ``ring`` gives the DoG on the one's
    ring (:data:`ONE_RING`) of the rows asked for (an index array), only where a one wins."""
    # per pattern, its weakest pip and its strongest empty place (k, 2 * patterns)
    on = np.minimum.reduce(evidence[:, _PATTERN_PIPS], axis=1)
    off = np.maximum.reduce(evidence[:, _PATTERN_EMPTY], axis=1)
    scores = (on - off) / 255.0
    best = np.argmax(scores, axis=1)
    ones = np.nonzero(best % _NPAT == _ONE)[0]
    if len(ones):
        # a one: nothing pip-like anywhere around its pip, not only at the other eight places
        # (only where a one wins: the ring can only lower a one's score)
        values = ring(ones)  # (ones, m)
        rows, cols = ones[:, None], _ONE_COLUMNS  # a dark one, a light one
        ring_off = np.empty((len(ones), 2), values.dtype)
        np.negative(np.minimum.reduce(values, axis=1), out=ring_off[:, 0])
        np.maximum.reduce(values, axis=1, out=ring_off[:, 1])
        scores[rows, cols] = (on[rows, cols] - np.maximum(off[rows, cols], ring_off)) / 255.0
        best[ones] = np.argmax(scores[ones], axis=1)
    return best % _NPAT, scores[np.arange(len(best)), best]


def grid_read_turned(dog: np.ndarray, centres: np.ndarray, ca: float | np.ndarray,
                     sa: float | np.ndarray, die_mm: float, ppm: float
                     ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`grid_read_many` with the face's turn given as its cosine and sine: numbers, or
    one per centre (arrays of shape (k, 1)), so faces at several angles are read at once."""
    n, w = dog.shape
    at = _place_pixels(centres, ca, sa, die_mm, ppm, n / 2)
    # each place's 3x3 pixels (rows, then columns, as :data:`_OFF_Y`, :data:`_OFF_X`), the
    # places last: numpy takes minima and maxima over an outer axis much faster
    near = np.minimum(np.maximum(at[:, :, None, :] + _STEPS[:, None], 0), n - 1)  # (2, k, 3, 9)
    stack = dog.reshape(-1)[near[1][:, :, None, :] * w + near[0][:, None, :, :]].reshape(
        len(centres), 9, 9)
    # each place's dark and light evidence (the least DoG negated, the greatest), + 0 making
    # a -0 a 0 (a zero score is +0)
    evidence = np.maximum.reduce(np.concatenate([-stack, stack], axis=2), axis=1)
    evidence += 0
    return _best_patterns(evidence, lambda ones: dog.reshape(-1)[
        _ring_pixels(centres[ones], die_mm, ppm, n, w)])


_SQUARE = np.ones((3, 3), np.uint8)  # a place's 3x3 pixels


def evidence_planes(dog: np.ndarray) -> np.ndarray:
    """Every pixel's dark and light evidence (the 3x3 pixels' least DoG negated, their
    greatest; :func:`grid_read_turned`'s, to the bit) on the DoG padded by 2 px (its edge
    pixels repeated: a place up to 2 px off the patch reads as there), flat, dark then light:
    the grid read of a :class:`Lattice` gathers its 18 values from these."""
    padded = cv2.copyMakeBorder(dog, 2, 2, 2, 2, cv2.BORDER_REPLICATE)
    planes = np.concatenate([cv2.erode(padded, _SQUARE).reshape(-1),
                             cv2.dilate(padded, _SQUARE).reshape(-1)])
    half = planes.size // 2
    np.negative(planes[:half], out=planes[:half])
    planes += 0  # a -0 a 0, as the grid read's
    return planes


@dataclass(frozen=True, eq=False)  # (hashed by identity: one per patch and die size)
class Lattice:
    """Face hypotheses in a patch ``n`` px square: centres on a square lattice ``step_mm``
    apart, ``reach`` steps each way of the patch centre, at ``turns`` (degrees): per
    hypothesis (turn, then row, then column of its centre) its 18 evidence values' indices
    into :func:`evidence_planes`, and per centre its one's ring's DoG pixels. A read of
    several hypotheses is then one gather (:func:`lattice_read`)."""

    places: np.ndarray  # (turns x cells x cells, 18)
    ring: np.ndarray  # (cells x cells, m), flat indices into the DoG
    step_mm: float
    reach: int
    turns: tuple[int, ...]

    @property
    def cells(self) -> int:
        """Centres per side."""
        return 2 * self.reach + 1

    def hypothesis(self, turn: int, ix: int, iy: int) -> int:
        """The hypothesis at ``turn`` (one of :attr:`turns`) centred ``ix``, ``iy`` steps
        from the patch centre."""
        c = self.cells
        return (self.turns.index(turn) * c + iy + self.reach) * c + ix + self.reach

    def unpack(self, h: int) -> tuple[int, float, float]:
        """Hypothesis ``h``'s turn (degrees) and centre (mm from the patch centre)."""
        c = self.cells
        t, cell = divmod(h, c * c)
        iy, ix = divmod(cell, c)
        return self.turns[t], (ix - self.reach) * self.step_mm, (iy - self.reach) * self.step_mm


@lru_cache(maxsize=4)
def lattice(n: int, die_mm: float, ppm: float, step_mm: float, reach: int,
            turns: tuple[int, ...]) -> Lattice:
    """The :class:`Lattice` of a patch and die size (computed once): its places' pixels are
    :func:`grid_read_turned`'s for the same centres and turns, to the bit."""
    cells = 2 * reach + 1
    offsets = (np.arange(cells) - reach) * step_mm
    grid = np.stack([np.tile(offsets, cells), np.repeat(offsets, cells)], axis=1)
    centres = np.tile(grid, (len(turns), 1))
    angles = np.radians(np.repeat(np.asarray(turns, float), cells * cells))[:, None]
    at = _place_pixels(centres, np.cos(angles), np.sin(angles), die_mm, ppm, n / 2)
    # a place further off the patch than the planes' 2 px reads the same as 2 px off
    at = np.clip(at, -2, n + 1) + 2
    flat = at[1] * (n + 4) + at[0]
    places = np.concatenate([flat, flat + (n + 4) ** 2], axis=1)
    return Lattice(places, _ring_pixels(grid, die_mm, ppm, n, n), step_mm, reach, turns)


def lattice_read(planes: np.ndarray, dog: np.ndarray, grid: Lattice, hypotheses: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`grid_read_turned` of :class:`Lattice` ``hypotheses`` (an index array) on a DoG
    and its :func:`evidence_planes`: the same patterns and scores, to the bit."""
    cells = grid.cells * grid.cells
    return _best_patterns(planes[grid.places.take(hypotheses, axis=0)],
                          lambda ones: dog.reshape(-1)[grid.ring[hypotheses[ones] % cells]])


PEAK_REACH = 2  # px: how far from a pattern's pip place :func:`pip_peaks` looks for its peak
_PEAK_STEPS = np.arange(-PEAK_REACH, PEAK_REACH + 1)


def _mean32(values: np.ndarray) -> float:
    """``np.mean`` of float32 values, to the bit, without its Python wrapper (a float32 sum
    divided by the count in float64, rounded to float32)."""
    return float(np.float32(float(values.sum()) / values.size))


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
    # each pip's window, row by row, as flat indices (pips, window)
    rows = np.minimum(np.maximum(y[:, None] + _PEAK_STEPS, 1), n - 2)
    cols = np.minimum(np.maximum(x[:, None] + _PEAK_STEPS, 1), w - 2)
    window = (rows[:, :, None] * w + cols[:, None, :]).reshape(len(x), -1)
    values = dog.reshape(-1)[window]
    pips, count = np.arange(len(x)), len(x)
    reads = []
    for sign, signed in ((-1.0, -values), (1.0, values)):
        at = signed.argmax(axis=1)
        strength = _mean32(signed[pips, at]) / 255.0
        reads.append((strength, sign, at))
    # the stronger polarity (a tie: the dark pips)
    strength, sign, at = reads[1] if reads[1][0] > reads[0][0] else reads[0]
    peak = window[pips, at][:, None]
    py, px = peak // w + _OFF_Y.reshape(1, 9), peak % w + _OFF_X.reshape(1, 9)  # its 3x3
    weight = np.maximum(sign * dog[py, px], 0.0) + 1e-6
    total = weight.sum(axis=1)
    return ((float(((weight * px).sum(axis=1) / total).sum()) / count - n / 2) / ppm,
            (float(((weight * py).sum(axis=1) / total).sum()) / count - n / 2) / ppm, strength)


_PATTERN_PIPS, _PATTERN_EMPTY = _pattern_places()
_ONE_COLUMNS = np.array([_ONE, _NPAT + _ONE])
