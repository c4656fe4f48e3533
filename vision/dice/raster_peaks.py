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
# two parts to update are warped as one when their common box has at most this many raster
# px more than they have together (0: when warping it costs no more pixels)
MERGE_SLACK_PX = 0


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
    centres = [np.minimum(np.maximum((peaks[:, None, :] + OFFSETS[None, :, :]).reshape(-1, 2),
                                     0), [w - 1, h - 1]) for _bgr, peaks, _origin in parts]
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
    inners = np.array([inner for _box, inner, _bgr in crops], int).reshape(-1, 4)
    for (u, v), inside in zip(top.tolist(), _first_inside(top, inners).tolist(), strict=True):
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


def _first_inside(uv: np.ndarray, inners: np.ndarray) -> np.ndarray:
    """For each peak (raster px) the first of the crops' inner parts (rows a0, b0, a1, b1;
    end exclusive) that holds it (``len(inners)``: none), for all peaks and parts at once."""
    if len(inners) == 0:
        return np.zeros(len(uv), int)
    u, v = uv[:, 0, None], uv[:, 1, None]
    inside = ((u >= inners[None, :, 0]) & (u < inners[None, :, 2])
              & (v >= inners[None, :, 1]) & (v < inners[None, :, 3]))
    first: np.ndarray = np.where(inside.any(axis=1), inside.argmax(axis=1), len(inners))
    return first


def raster_peaks(image: np.ndarray, from_mm: np.ndarray, geometry: BoardGeometry,
                 halvings: Halvings | None = None) -> RasterPeaks:
    """:class:`RasterPeaks` of a whole frame."""
    raster, m1, m2, src = _warp_for(image, from_mm, geometry, halvings)
    w, h = raster.size
    box = (0, 0, w, h)
    bgr, resp, local = _group_peaks(src, m1, m2, box)
    uv, strength = _peaks_inside(resp, local, box, box)
    return _evaluate(uv, strength, None, [(box, box, bgr)], src, m1, m2, (w, h))


def update_peaks(known: RasterPeaks, image: np.ndarray, from_mm: np.ndarray,
                 geometry: BoardGeometry, canonical: Canonical, search: np.ndarray,
                 halvings: Halvings | None = None) -> RasterPeaks:
    """``known`` with the peaks about the searched part of the change map found anew."""
    raster, m1, m2, src = _warp_for(image, from_mm, geometry, halvings)
    w, h = raster.size
    mask = np.ascontiguousarray(search, np.uint8)
    pad = 2 * PEAK_PAD + 2
    parts: list[tuple[tuple[int, int, int, int], tuple[int, int, int, int]]] = []
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
        parts.append((box, inner))
    # overlapping parts (and those close enough that their common box costs no more to
    # work out) are warped and searched for peaks once, as one
    of_part: dict[int, tuple[tuple[int, int, int, int], tuple[np.ndarray, ...]]] = {}
    for group, members in _merged([box for box, _inner in parts]):
        worked = _group_peaks(src, m1, m2, group)
        for n in members:
            of_part[n] = (group, worked)
    crops: list[tuple[tuple[int, int, int, int], tuple[int, int, int, int], np.ndarray]] = []
    inners = np.array([inner for _box, inner in parts], int).reshape(-1, 4)
    new_uv, new_strength = [], []
    for n, (box, inner) in enumerate(parts):
        group, (bgr, resp, local) = of_part[n]
        uv, strength = _peaks_inside(resp, local, group, inner)
        # a peak of an overlapping crop's inner part is found there already
        fresh = _first_inside(uv, inners[:n]) == n
        uv, strength = uv[fresh], strength[fresh]
        new_uv.append(uv)
        new_strength.append(strength)
        crops.append((box, inner, bgr[box[1] - group[1]:box[3] - group[1],
                                      box[0] - group[0]:box[2] - group[0]]))
    keep = _first_inside(known.uv, inners) == len(parts)  # the known peaks no part holds
    uv = np.concatenate([known.uv[keep], *new_uv]).reshape(-1, 2).astype(int)
    strength = np.concatenate([known.strength[keep], *new_strength]).astype(np.float32)
    return _evaluate(uv, strength, known, crops, src, m1, m2, (w, h))


def _merged(boxes: list[tuple[int, int, int, int]]
            ) -> list[tuple[tuple[int, int, int, int], list[int]]]:
    """The boxes (u0, v0, u1, v1) gathered into groups, each with its common box and the
    indices of its boxes: two groups are one while their common box has no more pixels than
    theirs together (and :data:`MERGE_SLACK_PX`)."""
    groups: list[tuple[tuple[int, int, int, int], list[int]]] = []
    for n, box in enumerate(boxes):
        (a0, b0, a1, b1), members = box, [n]
        k = 0
        while k < len(groups):
            (c0, d0, c1, d1), theirs = groups[k]
            u0, v0, u1, v1 = min(a0, c0), min(b0, d0), max(a1, c1), max(b1, d1)
            if ((u1 - u0) * (v1 - v0) <= (a1 - a0) * (b1 - b0) + (c1 - c0) * (d1 - d0)
                    + MERGE_SLACK_PX):
                (a0, b0, a1, b1), members = (u0, v0, u1, v1), theirs + members
                del groups[k]
                k = 0  # the box grown may now join one passed over
            else:
                k += 1
        groups.append(((a0, b0, a1, b1), members))
    return groups


def _group_peaks(src: np.ndarray, m1: np.ndarray, m2: np.ndarray,
                 box: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A part of the candidate raster warped (``box``), its corner response and where that
    is a local maximum (``raster.peaks``' stage without its cut)."""
    bgr = _remap(src, m1, m2, box)
    corner = cv2.cornerMinEigenVal(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), EIGEN_BLOCK, ksize=3)
    resp = cv2.boxFilter(corner, -1, (SUM_BOX, SUM_BOX))
    local = (resp >= cv2.dilate(resp, _PEAK_KERNEL)) & (resp > 1e-4)
    return bgr, resp, local


def _peaks_inside(resp: np.ndarray, local: np.ndarray, box: tuple[int, int, int, int],
                  inner: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The local maxima of a warped part (``box``; :func:`_group_peaks`) inside ``inner``
    (whole-raster px, as are the peaks): (N, 2) u, v and their strength."""
    a0, b0, a1, b1 = inner[0] - box[0], inner[1] - box[1], inner[2] - box[0], inner[3] - box[1]
    ys, xs = nonzero_2d(local[b0:b1, a0:a1])
    ys, xs = ys + b0, xs + a0
    return np.stack([xs + box[0], ys + box[1]], axis=1), resp[ys, xs]


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
