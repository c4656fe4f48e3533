"""The raster model's first stage kept between frames (:class:`RasterPeaks`), updated only
where the picture changed, and the dice read at its ranked places (:func:`read_dice_at`): how
the dice memory (``vision.dice.reuse``) reads the changed parts yet ranks them as a fresh read
ranks the whole board.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.dice.board import read_board_dice
from vision.dice.board_die import BoardDie
from vision.dice.candidates import READ_THRESHOLD, local_scale, raster_warp, within_budget
from vision.dice.change_map import Halvings, component_boxes
from vision.dice.raster import (
    EIGEN_BLOCK,
    MAX_PEAKS,
    OFFSETS,
    PATCH_PX,
    PEAK_WINDOW,
    RASTER_PPM,
    SUM_BOX,
    die_probability,
    nonzero_2d,
    ray_features,
    ray_samples,
)
from vision.geometry import BoardGeometry, Canonical

PEAK_PAD = 11  # raster px about a peak its response and ray features depend on (3 + 5 + 3)


@dataclass
class RasterPeaks:
    """The raster model's first stage over the whole case, kept between frames: every local
    maximum of the corner response (raster px and strength) and, for the strongest
    :data:`~vision.dice.raster.MAX_PEAKS`, the places about each the ray model gives at least
    ``READ_THRESHOLD`` (u, v, p). Updated only where the picture changed, it ranks the
    candidates of the changed parts against the whole board as a fresh read does."""

    uv: np.ndarray
    strength: np.ndarray
    places: dict[tuple[int, int], list[tuple[float, float, float]]]
    top: set[tuple[float, float]] = field(default_factory=set)  # the places read last time


_PEAK_KERNEL = np.ones((PEAK_WINDOW, PEAK_WINDOW), np.uint8)  # a peak's neighbourhood


def _local_peaks(gray: np.ndarray, inner: tuple[int, int, int, int]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Local maxima of the corner response of a raster crop (``raster.peaks``' stage without
    its cut), inside ``inner`` (crop px): (N, 2) u, v and their strength."""
    corner = cv2.cornerMinEigenVal(gray, EIGEN_BLOCK, ksize=3)
    resp = cv2.boxFilter(corner, -1, (SUM_BOX, SUM_BOX))
    grown = cv2.dilate(resp, _PEAK_KERNEL)
    a0, b0, a1, b1 = inner
    at = resp[b0:b1, a0:a1]  # only the inner part's peaks are kept: only it is compared
    ys, xs = nonzero_2d((at >= grown[b0:b1, a0:a1]) & (at > 1e-4))
    ys, xs = ys + b0, xs + a0
    return np.stack([xs, ys], axis=1), resp[ys, xs]


# a crop of the candidate raster, the peaks (whole-raster px) to place in it, and its origin
PeakCrop = tuple[np.ndarray, np.ndarray, tuple[int, int]]


def _places(parts: list[PeakCrop], size: tuple[int, int]
            ) -> list[dict[tuple[int, int], list[tuple[float, float, float]]]]:
    """For each crop (holding its peaks with a margin) and each of its peaks the places about
    it the ray model gives at least ``READ_THRESHOLD``. The ray features of all the crops'
    places are worked out at once (each place's are its own); the model runs crop by crop,
    as before (its matrix product's batch size moves the last bits of the probabilities)."""
    if not parts:
        return []
    w, h = size
    centres = [np.clip((peaks[:, None, :] + OFFSETS[None, :, :]).reshape(-1, 2), 0,
                       [w - 1, h - 1]) for _bgr, peaks, _origin in parts]
    rays = [ray_samples(bgr, at - np.array(origin))
            for (bgr, _peaks, origin), at in zip(parts, centres, strict=True)]
    features = ray_features(np.concatenate(rays))
    out = []
    start = 0
    n = len(OFFSETS)
    least = float(np.float32(READ_THRESHOLD))  # as a float32 probability is compared with it
    for (_bgr, peaks, _origin), at in zip(parts, centres, strict=True):
        p = die_probability(features[start:start + len(at)]).tolist()
        start += len(at)
        every = [(float(u), float(v), q) for (u, v), q in zip(at.tolist(), p, strict=True)]
        out.append({(u, v): [c for c in every[k * n:(k + 1) * n] if c[2] >= least]
                    for k, (u, v) in enumerate(peaks.tolist())})
    return out


def _remap(src: np.ndarray, m1: np.ndarray, m2: np.ndarray, box: tuple[int, int, int, int]
           ) -> np.ndarray:
    u0, v0, u1, v1 = box
    out: np.ndarray = cv2.remap(src, m1[v0:v1, u0:u1], m2[v0:v1, u0:u1], cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    return out


def _warp_for(image: np.ndarray, from_mm: np.ndarray, geometry: BoardGeometry,
              halvings: Halvings | None = None
              ) -> tuple[Canonical, np.ndarray, np.ndarray, np.ndarray]:
    """The candidate raster's description, remap tables and source (the frame, halved as
    ``vision.dice.candidates.scored_raster_candidates`` halves it; ``halvings``: the
    frame's, shared)."""
    raster, m1, m2, halve = _candidate_warp(np.ascontiguousarray(from_mm, np.float64).tobytes(),
                                            geometry, image.shape[:2])
    src = (halvings or Halvings(image)).level(1) if halve else image
    return raster, m1, m2, src


@functools.lru_cache(maxsize=4)
def _candidate_warp(from_mm: bytes, geometry: BoardGeometry, shape: tuple[int, ...]
                    ) -> tuple[Canonical, np.ndarray, np.ndarray, bool]:
    """:func:`_warp_for`'s raster, remap tables and whether the frame is halved first, for
    a camera set-up (``from_mm``: float64 bytes) and frame size: worked out once, not on
    every frame."""
    h = np.frombuffer(from_mm, np.float64).reshape(3, 3)
    halve = bool(local_scale(h, geometry.width_mm / 2, geometry.height_mm / 2)
                 >= 2.0 * RASTER_PPM and min(shape) >= 64)
    key = tuple(np.round(h, 9).reshape(-1).tolist())
    raster, m1, m2 = raster_warp(key, geometry, halve)
    return raster, m1, m2, halve


def _evaluate(uv: np.ndarray, strength: np.ndarray, known: RasterPeaks | None,
              crops: list[tuple[tuple[int, int, int, int], tuple[int, int, int, int],
                                np.ndarray]],
              src: np.ndarray, m1: np.ndarray, m2: np.ndarray, size: tuple[int, int]
              ) -> RasterPeaks:
    """The strongest peaks' places: from the crops just warped where a peak lies inside one,
    kept from ``known`` where it does not, warped anew around the rest."""
    order = np.argsort(-strength, kind="stable")[:MAX_PEAKS]
    top = uv[order]
    w, h = size
    r = PATCH_PX // 2 + 4
    batches: list[list[tuple[int, int]]] = [[] for _ in crops]
    # the peaks' places in the order they are taken (those kept from known, or the index of
    # the crop read for them): ranked_places keeps that order among equal probabilities
    order_of: list[tuple[tuple[int, int], list[tuple[float, float, float]]] | int] = []
    reads: list[PeakCrop] = []
    for (u, v), inside in zip(top.tolist(), _first_inside(top, crops).tolist(), strict=True):
        if inside < len(crops):
            batches[inside].append((u, v))
        elif known is not None and (u, v) in known.places:
            order_of.append(((u, v), known.places[(u, v)]))
        else:  # newly among the strongest, outside the parts warped: warped about it alone
            box = (max(0, u - r), max(0, v - r), min(w, u + r + 1), min(h, v + r + 1))
            order_of.append(len(reads))
            reads.append((_remap(src, m1, m2, box), np.array([[u, v]]), (box[0], box[1])))
    for (box, _inner, bgr), batch in zip(crops, batches, strict=True):
        if batch:
            order_of.append(len(reads))
            reads.append((bgr, np.array(batch), (box[0], box[1])))
    found = _places(reads, size)
    places: dict[tuple[int, int], list[tuple[float, float, float]]] = {}
    for at in order_of:
        if isinstance(at, int):
            places.update(found[at])
        else:
            places[at[0]] = at[1]
    return RasterPeaks(uv, strength, places)


def _first_inside(uv: np.ndarray, crops: list[tuple[tuple[int, int, int, int],
                                                    tuple[int, int, int, int], np.ndarray]]
                  ) -> np.ndarray:
    """For each peak (raster px) the first crop whose inner part holds it (``len(crops)``:
    none), for all peaks at once rather than peak by peak."""
    out = np.full(len(uv), len(crops))
    for n in range(len(crops) - 1, -1, -1):  # the last written is the first crop
        out[_inside(uv, crops[n][1])] = n
    return out


def _inside(uv: np.ndarray, inner: tuple[int, int, int, int]) -> np.ndarray:
    """Which peaks (raster px) lie in a crop's inner part (a0, b0, a1, b1; end exclusive)."""
    return ((uv[:, 0] >= inner[0]) & (uv[:, 0] < inner[2])
            & (uv[:, 1] >= inner[1]) & (uv[:, 1] < inner[3]))


def raster_peaks(image: np.ndarray, from_mm: np.ndarray, geometry: BoardGeometry,
                 halvings: Halvings | None = None) -> RasterPeaks:
    """:class:`RasterPeaks` of a whole frame."""
    raster, m1, m2, src = _warp_for(image, from_mm, geometry, halvings)
    w, h = raster.size
    box = (0, 0, w, h)
    bgr = _remap(src, m1, m2, box)
    uv, strength = _local_peaks(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), box)
    return _evaluate(uv, strength, None, [(box, box, bgr)], src, m1, m2, (w, h))


def update_peaks(known: RasterPeaks, image: np.ndarray, from_mm: np.ndarray,
                 geometry: BoardGeometry, canonical: Canonical, search: np.ndarray,
                 halvings: Halvings | None = None) -> RasterPeaks:
    """``known`` with the peaks about the searched part of the change map found anew."""
    raster, m1, m2, src = _warp_for(image, from_mm, geometry, halvings)
    w, h = raster.size
    mask = np.ascontiguousarray(search, np.uint8)
    pad = 2 * PEAK_PAD + 2
    crops: list[tuple[tuple[int, int, int, int], tuple[int, int, int, int], np.ndarray]] = []
    drop = np.zeros(len(known.uv), bool)
    new_uv, new_strength = [], []
    for x, y, bw, bh in sorted(component_boxes(mask), key=lambda b: (b[1], b[0])):
        x0, y0 = canonical.px_to_mm(float(x), float(y))
        x1, y1 = canonical.px_to_mm(float(x + bw), float(y + bh))
        a0, b0 = raster.mm_to_px(x0, y0)
        a1, b1 = raster.mm_to_px(x1, y1)
        box = (max(0, math.floor(a0) - pad), max(0, math.floor(b0) - pad),
               min(w, math.ceil(a1) + pad), min(h, math.ceil(b1) + pad))
        inner = (box[0] + (PEAK_PAD if box[0] > 0 else 0),
                 box[1] + (PEAK_PAD if box[1] > 0 else 0),
                 box[2] - (PEAK_PAD if box[2] < w else 0),
                 box[3] - (PEAK_PAD if box[3] < h else 0))
        bgr, uv, strength = _crop_peaks(src, m1, m2, box, inner)
        # a peak of an overlapping crop's inner part is found there already
        fresh = _first_inside(uv, crops) == len(crops)
        new_uv.append(uv[fresh])
        new_strength.append(strength[fresh])
        drop |= _inside(known.uv, inner)
        crops.append((box, inner, bgr))
    uv = np.concatenate([known.uv[~drop], *new_uv]).reshape(-1, 2).astype(int)
    strength = np.concatenate([known.strength[~drop], *new_strength]).astype(np.float32)
    return _evaluate(uv, strength, known, crops, src, m1, m2, (w, h))


def _crop_peaks(src: np.ndarray, m1: np.ndarray, m2: np.ndarray,
                box: tuple[int, int, int, int], inner: tuple[int, int, int, int]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A part of the candidate raster warped (``box``) and the peaks inside its ``inner``
    part (whole-raster px) with their strength."""
    bgr = _remap(src, m1, m2, box)
    local = (inner[0] - box[0], inner[1] - box[1], inner[2] - box[0], inner[3] - box[1])
    uv, strength = _local_peaks(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), local)
    return bgr, uv + np.array([box[0], box[1]]), strength


def ranked_places(peaks: RasterPeaks, geometry: BoardGeometry
                  ) -> list[tuple[float, float, float]]:
    """The raster candidates a fresh read takes (``die_candidates`` at ``READ_THRESHOLD``,
    the first :data:`MAX_RASTER_CANDIDATES`), raster px and p, most probable first."""
    every = [c for cs in peaks.places.values() for c in cs]
    every.sort(key=lambda c: -c[2])
    raster = Canonical.whole_board(geometry, RASTER_PPM)
    return within_budget(_apart(every, 0.8 * geometry.die_size_mm * RASTER_PPM), geometry,
                         lambda c: raster.px_to_mm(c[0], c[1]))


def _apart(ranked: list[tuple[float, float, float]], reach: float
           ) -> Iterator[tuple[float, float, float]]:
    """The places (u, v, p; most probable first) at least ``reach`` (px) from every more
    probable one kept, one at a time: the budget takes only the first few."""
    out: list[tuple[float, float, float]] = []
    limit = reach ** 2
    for u, v, p in ranked:
        if any((u - a) ** 2 + (v - b) ** 2 < limit for a, b, _ in out):
            continue
        out.append((u, v, p))
        yield u, v, p


def read_dice_at(image: np.ndarray, to_mm: np.ndarray, geometry: BoardGeometry,
                 places: list[tuple[float, float, float]],
                 tilted_near: list[tuple[float, float]] | None = None) -> list[BoardDie]:
    """The dice ``read_board_dice`` reads from the given raster places (x mm, y mm, p; most
    probable first) instead of the whole raster's: every later stage (pip spots about each
    place, face, pose, second chances, on-checker) is ``vision.dice.board``'s own
    (``tilted_near``: second chances only about these places, as it takes them)."""
    if not places:
        return []
    return read_board_dice(image, to_mm, geometry, places=places, tilted_near=tilted_near)
