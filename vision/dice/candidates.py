"""Die candidates on a calibrated board: where the face stages of ``vision.dice.board`` look.

Two sources: pip-sized spots clustered at die size over the camera frame (thorough, slow; for
training and comparison), and the whole case warped to a small raster where a ray model keeps
die-like corner peaks (``vision.dice.raster``), with the spot clusters looked for only around
them (the default: :func:`hybrid_candidates`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any, TypeVar

import cv2
import numpy as np

from vision.dice.raster import RASTER_PPM, die_candidates, nonzero_2d, topdown_maps
from vision.dice.render import PIP_RADIUS
from vision.geometry import BoardGeometry, Canonical

SPOT_THRESHOLD = 18.0  # grey levels of pip-scale difference-of-Gaussians response
MAX_SPOTS = 6000
MAX_CANDIDATES = 24
QUICK_SPREAD = 45.0
MAX_RASTER_CANDIDATES = 5  # die candidates from the raster read closely per frame
# ... of which at most this many off the playing surface (trays, frame): borne-off checkers
# standing in a tray look like dice to the ray model and, ranked first late in a game, left a
# die thrown on the board out of the few read (tests.eval.referee_matches)
MAX_OFF_SURFACE_CANDIDATES = 2
ON_SURFACE = frozenset({"slot", "field", "bar"})
C = TypeVar("C", bound=tuple[Any, ...])
RASTER_THRESHOLD = 0.2  # ray-model probability for a candidate (its own threshold is ~0.71)
SPOT_WINDOW_DIES = 2.0  # side of the window looked at for pip spots around a raster candidate
SPOT_REACH_DIES = 0.75  # spot clusters kept within this many dice of the raster's place
MAX_SPOTS_PER_CANDIDATE = 2
READ_THRESHOLD = 0.6  # ray-model probability below which a raster candidate is not read
SPOT_MIN_P = 0.8  # and below which no pip spots are looked for around it


def apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points (N, 2) mapped by the homography ``h``."""
    p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    out: np.ndarray = cv2.perspectiveTransform(p, h).reshape(-1, 2)
    return out


def local_scale(from_mm: np.ndarray, x: float, y: float) -> float:
    """Image pixels per board millimetre around (x, y)."""
    p = apply(from_mm, np.array([[x, y], [x + 10.0, y], [x, y + 10.0]]))
    return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 20.0)


def _percentiles(values: np.ndarray, qs: tuple[float, ...]) -> list[float]:
    """Percentiles by linear interpolation between order statistics (as ``np.percentile``),
    without its overhead: this runs for hundreds of small windows a frame."""
    v = np.sort(values, axis=None)
    m = len(v) - 1
    out = []
    for q in qs:
        pos = q / 100.0 * m
        lo = int(pos)
        hi = min(lo + 1, m)
        out.append(float(v[lo]) + (pos - lo) * (float(v[hi]) - float(v[lo])))
    return out


def _uniform_face(blurred: np.ndarray, centre: np.ndarray, half: int) -> bool:
    """A die face is uniform apart from its pips: around ``centre`` the lighter (or, for
    light pips, the darker) half of the pixels hardly vary."""
    cx, cy = round(centre[0]), round(centre[1])
    win = blurred[max(0, cy - half):cy + half + 1, max(0, cx - half):cx + half + 1]
    if win.size == 0:
        return False
    lo, mid, hi = _percentiles(win, (10.0, 50.0, 90.0))
    return bool(min(hi - mid, mid - lo) <= QUICK_SPREAD)


def _hessian_at(img: np.ndarray, ys: np.ndarray, xs: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Second derivatives (3x3 Sobel kernels, mirrored border) at the given pixels only."""
    p = np.pad(img, 1, mode="reflect")
    y, x = ys + 1, xs + 1

    def at(dy: int, dx: int) -> np.ndarray:
        out: np.ndarray = p[y + dy, x + dx]
        return out

    c, n, s, w, e = at(0, 0), at(-1, 0), at(1, 0), at(0, -1), at(0, 1)
    nw, ne, sw, se = at(-1, -1), at(-1, 1), at(1, -1), at(1, 1)
    dxx = (nw - 2 * n + ne) + 2 * (w - 2 * c + e) + (sw - 2 * s + se)
    dyy = (nw - 2 * w + sw) + 2 * (n - 2 * c + s) + (ne - 2 * e + se)
    dxy = nw - ne - sw + se
    return dxx, dyy, dxy


def spot_candidates(gray: np.ndarray, to_mm: np.ndarray, from_mm: np.ndarray,
                    geometry: BoardGeometry,
                    window: tuple[float, float, float, float] | None = None
                    ) -> list[tuple[float, float]]:
    """Centres (board mm) of die candidates: clusters of pip-sized blobs on a uniform patch,
    over the whole case or only in ``window`` (x0, y0, x1, y1 board mm)."""
    outer = geometry.outer_rect
    wx0, wy0, wx1, wy1 = window or (outer.x0, outer.y0, outer.x1, outer.y1)
    corners = apply(from_mm, np.array([[wx0, wy0], [wx1, wy0], [wx1, wy1], [wx0, wy1]]))
    h, w = gray.shape
    x0 = int(max(0, np.floor(corners[:, 0].min())))
    y0 = int(max(0, np.floor(corners[:, 1].min())))
    x1 = int(min(w, np.ceil(corners[:, 0].max()) + 1))
    y1 = int(min(h, np.ceil(corners[:, 1].max()) + 1))
    if x1 - x0 < 16 or y1 - y0 < 16:
        return []
    roi = gray[y0:y1, x0:x1].astype(np.float32)
    scale = local_scale(from_mm, geometry.width_mm / 2, geometry.height_mm / 2)
    die_px = geometry.die_size_mm * scale
    radius = PIP_RADIUS * geometry.die_size_mm * scale
    s1 = max(0.7, radius / 1.414)
    b1 = cv2.GaussianBlur(roi, (0, 0), s1)
    dog = np.abs(b1 - cv2.GaussianBlur(roi, (0, 0), s1 * 2.5))
    strong = (dog > SPOT_THRESHOLD) & (dog >= cv2.dilate(dog, np.ones((3, 3), np.uint8)))
    ys, xs = nonzero_2d(strong)
    if len(xs) == 0 or len(xs) > MAX_SPOTS:
        return []
    # Hessian ratio test only where needed: blobs, not edges
    dxx, dyy, dxy = _hessian_at(b1, ys, xs)
    det = dxx * dyy - dxy * dxy
    blob = (det > 0) & ((dxx + dyy) ** 2 < det * 6.25)
    spots = np.stack([xs[blob], ys[blob]], axis=1).astype(np.float64)
    strength = dog[ys[blob], xs[blob]]
    out: list[tuple[float, np.ndarray]] = []
    half = int(max(2, die_px * 0.3))
    order = np.argsort(-strength)
    taken = np.zeros(len(spots), bool)
    reach = 0.62 * die_px
    # the mean shift below never leaves 4 reaches of its seed: look only at the spots there
    by_x = np.argsort(spots[:, 0], kind="stable")
    sorted_x = spots[by_x, 0]
    for i in order[:400]:
        if taken[i]:
            continue
        a, b = np.searchsorted(sorted_x, [spots[i, 0] - 4 * reach, spots[i, 0] + 4 * reach])
        local = np.sort(by_x[a:b])
        local = local[np.abs(spots[local, 1] - spots[i, 1]) < 4 * reach]
        near = spots[local]
        c = spots[i]
        for _ in range(3):  # mean shift towards the die's centre
            members = np.linalg.norm(near - c, axis=1) < reach
            c = near[members].mean(axis=0)
        taken[i] = True
        if not (_uniform_face(b1, c, half) or _uniform_face(b1, spots[i], half)):
            continue
        taken[local[np.linalg.norm(near - c, axis=1) < reach * 0.8]] = True
        out.append((float(strength[i]), c + np.array([x0, y0])))
        if len(out) == MAX_CANDIDATES:  # seeds come strongest first: the rest would be cut
            break
    if not out:
        return []
    out.sort(key=lambda t: -t[0])
    mm = apply(to_mm, np.array([c for _, c in out[:MAX_CANDIDATES]]))
    keep = ((mm[:, 0] > outer.x0) & (mm[:, 0] < outer.x1)
            & (mm[:, 1] > outer.y0) & (mm[:, 1] < outer.y1))
    return [(float(x), float(y)) for x, y in mm[keep]]


@lru_cache(maxsize=4)
def raster_warp(from_mm: tuple[float, ...], geometry: BoardGeometry, halve: bool
                 ) -> tuple[Canonical, np.ndarray, np.ndarray]:
    """The whole case as a top-down raster at the raster model's scale (trays and frame
    included) and its remap tables (fixed point) from the camera frame, halved first when
    ``halve``: kept for the next frame, since the camera and the board stay put."""
    canonical = Canonical.whole_board(geometry, RASTER_PPM)
    h = np.array(from_mm, np.float64).reshape(3, 3)
    if halve:
        h = np.diag([0.5, 0.5, 1.0]) @ h
    m1, m2 = topdown_maps(h, -canonical.margin_mm[0], -canonical.margin_mm[1], canonical.size,
                          RASTER_PPM)
    return canonical, np.asarray(m1), np.asarray(m2)


def within_budget(ranked: Iterable[C], geometry: BoardGeometry,
                  at: Callable[[C], tuple[float, float]] = lambda c: (c[0], c[1]),
                  limit: int = MAX_RASTER_CANDIDATES) -> list[C]:
    """The first ``limit`` of ``ranked`` (most probable first; ``at``: a candidate's place in
    board mm) with at most :data:`MAX_OFF_SURFACE_CANDIDATES` of them off the playing surface."""
    out: list[C] = []
    off = 0
    for c in ranked:
        if len(out) >= limit:
            break
        if geometry.region_at(*at(c)).kind not in ON_SURFACE:
            if off >= MAX_OFF_SURFACE_CANDIDATES:
                continue
            off += 1
        out.append(c)
    return out


def raster_candidates(image: np.ndarray, from_mm: np.ndarray, geometry: BoardGeometry,
                      limit: int = MAX_RASTER_CANDIDATES,
                      threshold: float = RASTER_THRESHOLD) -> list[tuple[float, float]]:
    """Centres (board mm) of die candidates, most probable first, from the whole case warped
    to a small top-down raster (``vision.dice.raster``: corner peaks, then the ray model at a
    threshold looser than its own, so hardly a die is missed; the face stages drop the rest)."""
    return [(x, y) for x, y, _ in scored_raster_candidates(image, from_mm, geometry, limit,
                                                           threshold)]


def scored_raster_candidates(image: np.ndarray, from_mm: np.ndarray, geometry: BoardGeometry,
                             limit: int = MAX_RASTER_CANDIDATES,
                             threshold: float = RASTER_THRESHOLD
                             ) -> list[tuple[float, float, float]]:
    """:func:`raster_candidates` with the ray model's probability: (x mm, y mm, p)."""
    halve = local_scale(from_mm, geometry.width_mm / 2, geometry.height_mm / 2) \
        >= 2.0 * RASTER_PPM and min(image.shape[:2]) >= 64
    key = tuple(np.round(from_mm, 9).reshape(-1).tolist())
    canonical, m1, m2 = raster_warp(key, geometry, bool(halve))
    src = cv2.pyrDown(image) if halve else image
    bgr = cv2.remap(src, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    found = die_candidates(bgr, RASTER_PPM, threshold=threshold, die_mm=geometry.die_size_mm)
    return within_budget([(*canonical.px_to_mm(c.u, c.v), c.p) for c in found], geometry,
                         limit=limit)


def hybrid_candidates(image: np.ndarray, gray: np.ndarray, to_mm: np.ndarray,
                           from_mm: np.ndarray, geometry: BoardGeometry,
                           found: Callable[[], list[tuple[float, float]]],
                           threshold: float = READ_THRESHOLD,
                           places: Sequence[tuple[float, float, float]] | None = None,
                           ) -> Iterator[tuple[float, float]]:
    """Die candidates (board mm) as they are read: for each raster candidate
    (:func:`scored_raster_candidates`, most probable first) its place, then, only when no die
    has been found (``found()``: the centres of the dice read so far) within a die of that
    place, the pip-spot clusters in a window of :data:`SPOT_WINDOW_DIES` dice around it
    (:func:`spot_candidates`: the face centre to within a pip, for the dice the raster's
    place, a few mm off, did not lead to; the :data:`MAX_SPOTS_PER_CANDIDATE` strongest within
    :data:`SPOT_REACH_DIES` dice of it). A generator, so the spots are looked for only once
    the reader has tried the place.
    Raster candidates below ``threshold`` are not read at all, and spots are looked for only
    around those of at least :data:`SPOT_MIN_P` (on 200 synthetic throws no die was found
    by either read below those). ``places`` (x mm, y mm, p; most probable first) stand in for
    the raster candidates when the caller has them already (``vision.dice.reuse``: only where
    the picture changed)."""
    die = geometry.die_size_mm
    reach = SPOT_WINDOW_DIES * die / 2
    seen: list[tuple[float, float]] = []

    def new(c: tuple[float, float]) -> bool:
        if all(math.hypot(c[0] - o[0], c[1] - o[1]) > 1.5 for o in seen):
            seen.append(c)
            return True
        return False

    ranked = (places if places is not None
              else scored_raster_candidates(image, from_mm, geometry, threshold=threshold))
    for x, y, p in ranked:
        if new((x, y)):
            yield x, y
        if p < SPOT_MIN_P or any(math.hypot(fx - x, fy - y) < die for fx, fy in found()):
            continue
        window = (x - reach, y - reach, x + reach, y + reach)
        spots = [c for c in spot_candidates(gray, to_mm, from_mm, geometry, window)
                 if math.hypot(c[0] - x, c[1] - y) < SPOT_REACH_DIES * die]
        for c in spots[:MAX_SPOTS_PER_CANDIDATE]:
            if new(c):
                yield c
