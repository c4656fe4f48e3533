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
    PEAK_WINDOW,
    RASTER_PPM,
    SUM_BOX,
    die_probability,
    nonzero_2d,
    ray_features,
    ray_pixels,
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


# a read of the ray model: the peaks (whole-raster px) whose places it gives, and the index of
# the warped part holding them and their rays (None: warped alone, about the peak only)
PeakRead = tuple[int | None, list[tuple[int, int]]]
# a warped part of the candidate raster: its box (whole-raster px) and its pixels
Warped = tuple[tuple[int, int, int, int], np.ndarray]


def _places(reads: list[PeakRead], warped: list[Warped], src: np.ndarray, m1: np.ndarray,
            m2: np.ndarray, size: tuple[int, int]
            ) -> list[dict[tuple[int, int], list[tuple[float, float, float]]]]:
    """For each read and each of its peaks the places about it the ray model gives at least
    ``READ_THRESHOLD``. A read's rays are cut from the warped part holding its peaks (it
    reaches :data:`PEAK_PAD` past them), those of a peak warped alone by warping only the
    rays' own pixels (:func:`_warped_at`): either way the values of the raster warped whole
    (a ray leaving it clipped to its border). The ray features of all the places are worked
    out at once (each place's are its own); the model runs read by read, as before (its
    matrix product's batch size moves the last bits of the probabilities)."""
    if not reads:
        return []
    w, h = size
    n = len(OFFSETS)
    peaks = np.array([uv for _source, batch in reads for uv in batch], int).reshape(-1, 2)
    at = np.minimum(np.maximum((peaks[:, None, :] + OFFSETS[None, :, :]).reshape(-1, 2), 0),
                    [w - 1, h - 1])
    rows, cols = ray_pixels(at, w, h)
    rays = np.empty((*rows.shape, 3), np.uint8)
    starts = [0]
    for source, batch in reads:
        start = starts[-1]
        end = start + n * len(batch)
        starts.append(end)
        r, c = rows[start:end], cols[start:end]
        if source is None:
            rays[start:end] = _warped_at(src, m1, m2, r, c)
        else:
            (u0, v0, u1, _v1), bgr = warped[source]
            np.take(bgr.reshape(-1, 3), (r - v0) * (u1 - u0) + c - u0, axis=0,
                    out=rays[start:end])
    features = ray_features(rays.astype(np.float32))
    p = np.concatenate([die_probability(features[starts[k]:starts[k + 1]])
                        for k in range(len(reads))])
    # each place kept (as a float32 probability is compared with the threshold) to its peak
    owners = [(k, uv) for k, (_source, batch) in enumerate(reads) for uv in batch]
    out: list[dict[tuple[int, int], list[tuple[float, float, float]]]] = [
        {uv: [] for uv in batch} for _source, batch in reads]
    kept = np.flatnonzero(p >= np.float32(READ_THRESHOLD)).tolist()
    if kept:
        centres, q = at.tolist(), p.tolist()
        for i in kept:
            k, uv = owners[i // n]
            u, v = centres[i]
            out[k][uv].append((float(u), float(v), q[i]))
    return out


def _warped_at(src: np.ndarray, m1: np.ndarray, m2: np.ndarray, rows: np.ndarray,
               cols: np.ndarray) -> np.ndarray:
    """The candidate raster's pixels at (``rows``, ``cols``: whole-raster px, any shape),
    warped alone: a warped pixel depends on its own remap entries only, so these are the
    very values of the raster warped whole there."""
    out: np.ndarray = cv2.remap(src, m1[rows, cols].reshape(-1, rows.shape[-1], 2),
                                m2[rows, cols].reshape(-1, rows.shape[-1]), cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    return out.reshape((*rows.shape, 3))


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


def _evaluate(uv: np.ndarray, strength: np.ndarray, first: np.ndarray,
              known: RasterPeaks | None, warped: list[Warped], of_part: list[int],
              src: np.ndarray, m1: np.ndarray, m2: np.ndarray, size: tuple[int, int]
              ) -> RasterPeaks:
    """The strongest peaks' places: where a peak lies inside a part just warped (``first``:
    the first part whose inner part holds each peak, ``len(of_part)``: none; ``of_part``: the
    index in ``warped`` of each part's pixels) from those, kept from ``known`` where it does
    not, warped anew around the rest."""
    order = np.argsort(-strength, kind="stable")[:MAX_PEAKS]
    batches: list[list[tuple[int, int]]] = [[] for _ in of_part]
    # the peaks' places in the order they are taken (those kept from known, or the index of
    # the read for them): ranked_places keeps that order among equal probabilities
    order_of: list[tuple[tuple[int, int], list[tuple[float, float, float]]] | int] = []
    reads: list[PeakRead] = []
    for (u, v), inside in zip(uv[order].tolist(), first[order].tolist(), strict=True):
        if inside < len(of_part):
            batches[inside].append((u, v))
        elif known is not None and (u, v) in known.places:
            order_of.append(((u, v), known.places[(u, v)]))
        else:  # newly among the strongest, outside the parts warped: warped about it alone
            order_of.append(len(reads))
            reads.append((None, [(u, v)]))
    for n, batch in enumerate(batches):
        if batch:
            order_of.append(len(reads))
            reads.append((of_part[n], batch))
    found = _places(reads, warped, src, m1, m2, size)
    places: dict[tuple[int, int], list[tuple[float, float, float]]] = {}
    for at in order_of:
        if isinstance(at, int):
            places.update(found[at])
        else:
            places[at[0]] = at[1]
    return RasterPeaks(uv, strength, places)


def _first_inside(uv: np.ndarray, inners: np.ndarray) -> np.ndarray:
    """For each peak (raster px) the first of the parts' inner boxes (rows a0, b0, a1, b1;
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
    bgr, uv, strength = _group_peaks(src, m1, m2, box, box)
    return _evaluate(uv, strength, np.zeros(len(uv), int), None, [(box, bgr)], [0], src, m1,
                     m2, (w, h))


def _part_boxes(found: list[tuple[int, int, int, int]], canonical: Canonical,
                raster: Canonical
                ) -> tuple[list[tuple[int, int, int, int]], list[tuple[int, int, int, int]]]:
    """The change map's parts (boxes x, y, w, h) as boxes of the candidate raster to warp, top
    to bottom, then left to right, and their inner parts, whose peaks are found anew (rows
    u0, v0, u1, v1, end exclusive): the part widened by twice the px a peak's response and
    rays depend on (:data:`PEAK_PAD`), and that much less again inside, but at the edges."""
    w, h = raster.size
    pad = 2 * PEAK_PAD + 2
    boxes, inners = [], []
    for x, y, bw, bh in sorted(found, key=lambda b: (b[1], b[0])):
        x0, y0 = canonical.px_to_mm(float(x), float(y))
        x1, y1 = canonical.px_to_mm(float(x + bw), float(y + bh))
        a0, b0 = raster.mm_to_px(x0, y0)
        a1, b1 = raster.mm_to_px(x1, y1)
        box = (max(0, math.floor(a0) - pad), max(0, math.floor(b0) - pad),
               min(w, math.ceil(a1) + pad), min(h, math.ceil(b1) + pad))
        boxes.append(box)
        inners.append((box[0] + (PEAK_PAD if box[0] > 0 else 0),
                       box[1] + (PEAK_PAD if box[1] > 0 else 0),
                       box[2] - (PEAK_PAD if box[2] < w else 0),
                       box[3] - (PEAK_PAD if box[3] < h else 0)))
    return boxes, inners


def update_peaks(known: RasterPeaks, image: np.ndarray, from_mm: np.ndarray,
                 geometry: BoardGeometry, canonical: Canonical, search: np.ndarray,
                 halvings: Halvings | None = None) -> RasterPeaks:
    """``known`` with the peaks about the searched part of the change map found anew."""
    raster, m1, m2, src = _warp_for(image, from_mm, geometry, halvings)
    w, h = raster.size
    boxes, inners = _part_boxes(component_boxes(np.ascontiguousarray(search, np.uint8)),
                                canonical, raster)
    # overlapping parts (and those close enough that their common box costs no more to
    # work out) are warped and searched for peaks once, as one. A peak is found anew by the
    # first part whose inner part holds it, from its group's response (a later part holding
    # it too finds it there already); the peaks are taken part by part, each part's row by
    # row, as the parts one by one would give them
    warped: list[Warped] = []
    group_of = [0] * len(boxes)  # the index in warped of each part's group
    found: list[tuple[np.ndarray, np.ndarray]] = []  # each group's peaks and their strength
    for index, (group, members) in enumerate(_merged(boxes)):
        span = (min(inners[n][0] for n in members), min(inners[n][1] for n in members),
                max(inners[n][2] for n in members), max(inners[n][3] for n in members))
        bgr, at, strong = _group_peaks(src, m1, m2, group, span)
        found.append((at, strong))
        warped.append((group, bgr))
        for n in members:
            group_of[n] = index
    every = np.concatenate([known.uv, *(at for at, _strong in found)]).reshape(-1, 2)
    first = _first_inside(every, np.array(inners, int).reshape(-1, 4))
    old = len(known.uv)
    # the known peaks no part holds, then the new ones each group finds first, part by part
    mine = np.array([*group_of, -1])[first[old:]] == np.repeat(
        np.arange(len(found)), [len(at) for at, _strong in found])
    new = np.flatnonzero(mine)
    taken = np.concatenate([np.flatnonzero(first[:old] == len(boxes)),
                            old + new[np.argsort(first[old:][new], kind="stable")]])
    uv = every[taken].astype(int, copy=False)
    strength = np.concatenate([known.strength, *(strong for _at, strong in found)]
                              )[taken].astype(np.float32, copy=False)
    first = first[taken]
    return _evaluate(uv, strength, first, known, warped, group_of, src, m1, m2, (w, h))


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
                 box: tuple[int, int, int, int], inner: tuple[int, int, int, int]
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A part of the candidate raster warped (``box``) and the local maxima of its corner
    response inside ``inner`` (whole-raster px, as are the peaks; ``raster.peaks``' stage
    without its cut): its pixels, the peaks' (N, 2) u, v row by row, and their strength."""
    u0, v0, u1, v1 = box
    bgr = cv2.remap(src, m1[v0:v1, u0:u1], m2[v0:v1, u0:u1], cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    corner = cv2.cornerMinEigenVal(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), EIGEN_BLOCK, ksize=3)
    resp = cv2.boxFilter(corner, -1, (SUM_BOX, SUM_BOX))
    a0, b0, a1, b1 = inner[0] - u0, inner[1] - v0, inner[2] - u0, inner[3] - v0
    part = resp[b0:b1, a0:a1]
    local = (part >= cv2.dilate(resp, _PEAK_KERNEL)[b0:b1, a0:a1]) & (part > 1e-4)
    ys, xs = nonzero_2d(local)
    return bgr, np.array([xs, ys]).T + inner[:2], part[ys, xs]


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
