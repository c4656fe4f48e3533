"""Which pip candidates lie on a die's upward face, and how they group into dice.

A trained linear scorer (``pip_model.json``, fitted on the real photo training split by
``vision.dice.train``) tells upward-face pips from side-face pips and clutter; face pips are then
linked into dice by distance relative to pip size, weaker pips may complete a face, and a group
is checked against the die faces' pip layouts (two touching dice, or an upward face linked to
the side face below it, come apart into their faces).
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from vision.dice.pips import Pip

MODEL_PATH = Path(__file__).with_name("pip_model.json")
FEATURE_NAMES = (
    "rel_area", "ratio", "circularity", "contrast", "ring_spread", "ring_level",
    "neighbours", "rel_ratio", "similar", "nearest", "dark", "bias",
)


def pip_features(pips: list[Pip]) -> np.ndarray:
    """One feature row per candidate, each relative to its neighbourhood (see FEATURE_NAMES)."""
    n = len(pips)
    rows = np.zeros((n, len(FEATURE_NAMES)), np.float64)
    if n == 0:
        return rows
    xy = np.array([[p.x, p.y] for p in pips])
    area = np.array([p.area for p in pips])
    ratio = np.array([p.ratio for p in pips])
    diam = np.array([p.diameter for p in pips])
    dark = np.array([p.dark for p in pips])
    dist = np.linalg.norm(xy[:, None, :] - xy[None, :, :], axis=2)
    for i, p in enumerate(pips):
        near = (dist[i] < 7.0 * diam[i]) & (dark == dark[i])
        near[i] = False
        group_area = area[near].max() if near.any() else area[i]
        others = dist[i][dark == dark[i]]
        others = others[others > 0]
        rows[i] = (
            math.log(area[i] / max(group_area, area[i])),
            p.ratio,
            p.circularity,
            p.contrast,
            p.ring_spread,
            p.ring_level,
            min(int(near.sum()), 8) / 8.0,
            p.ratio - (ratio[near].max() if near.any() else p.ratio),
            min(int((near & (area > 0.6 * area[i]) & (area < 1.6 * area[i])).sum()), 6) / 6.0,
            min((others.min() / diam[i]) if others.size else 10.0, 10.0) / 10.0,
            1.0,  # polarity-blind: dark pips on light dice and light pips on dark dice
            1.0,
        )
    return rows


@lru_cache(maxsize=1)
def load_model() -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, float]]:
    """The fitted scorer: feature mean, scale, weights, and the face-box regression."""
    data = json.loads(MODEL_PATH.read_text())
    return (
        np.array(data["mean"]), np.array(data["scale"]), np.array(data["weights"]),
        {k: float(v) for k, v in data["box"].items()},
    )


def face_scores(pips: list[Pip]) -> np.ndarray:
    """Probability per candidate that it is a pip on a die's upward face."""
    if not pips:
        return np.zeros(0)
    mean, scale, weights, _ = load_model()
    feats = (pip_features(pips) - mean) / scale
    feats[:, -1] = 1.0
    out: np.ndarray = 1.0 / (1.0 + np.exp(-(feats @ weights)))
    return out


@dataclass(frozen=True)
class PipGroup:
    """Upward-face pips judged to belong to one die."""

    pips: tuple[Pip, ...]
    scores: tuple[float, ...]


def _same_face(gray: np.ndarray | None, pips: list[Pip], a: Pip, b: Pip) -> bool:
    """True when the straight line between two pips stays on bright face (no die edge)."""
    if gray is None:
        return True
    steps = max(int(math.hypot(a.x - b.x, a.y - b.y)), 2)
    level = 255.0 * min(a.ring_level, b.ring_level) if a.dark else 0.0
    h, w = gray.shape
    for t in np.linspace(0.0, 1.0, steps):
        x, y = a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)
        if any(math.hypot(x - p.x, y - p.y) < 1.0 * p.diameter for p in pips):
            continue
        xi, yi = min(max(round(x), 0), w - 1), min(max(round(y), 0), h - 1)
        value = float(gray[yi, xi])
        if a.dark and value < 0.62 * level:
            return False
        if not a.dark and value > 255.0 - 0.72 * (255.0 - 255.0 * max(a.ring_level, b.ring_level)):
            return False
    return True


def _same_shape(a: Pip, b: Pip) -> bool:
    """Pips of one face share their foreshortening (axis ratio, tilt) and lighting."""
    if abs(a.ratio - b.ratio) > 0.22 or abs(a.ring_level - b.ring_level) > 0.14:
        return False
    if min(a.ratio, b.ratio) < 0.75:
        turn = abs(a.angle - b.angle) % 180.0
        if min(turn, 180.0 - turn) > 30.0:
            return False
    return True


#: Hysteresis on the face score: candidates scoring at least ``LOW`` are grouped again, and
#: such a group that is a whole face by its layout (``layout_misfit``) takes the place of the
#: strong-pip groups inside it (a face with some blurred or shadowed pips).
LOW = 0.2


def _linked(gray: np.ndarray | None, face_pips: list[Pip], pa: Pip, pb: Pip) -> bool:
    """Two pips close enough, alike enough and on one bright face to belong to one die."""
    if pa.dark != pb.dark:
        return False
    d = math.hypot(pa.x - pb.x, pa.y - pb.y)
    size = max(pa.diameter, pb.diameter)
    similar = 0.55 < pa.area / pb.area < 1.8 and _same_shape(pa, pb)
    return similar and d < 5.2 * size and _same_face(gray, face_pips, pa, pb)


def _link(pips: list[Pip], keep: list[int], gray: np.ndarray | None) -> list[list[int]]:
    """Single linkage of the kept pips (``_linked``), each group then cut at touching dice."""
    face_pips = [pips[i] for i in keep]
    parent = {i: i for i in keep}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a_i, a in enumerate(keep):
        for b in keep[a_i + 1:]:
            if _linked(gray, face_pips, pips[a], pips[b]):
                parent[root(a)] = root(b)
    groups: dict[int, list[int]] = {}
    for i in keep:
        groups.setdefault(root(i), []).append(i)
    out: list[list[int]] = []
    for members in groups.values():
        out.extend(_split(pips, members))
    return out


def group_pips(
    pips: list[Pip], scores: np.ndarray, threshold: float = 0.5, gray: np.ndarray | None = None
) -> list[PipGroup]:
    """Link face pips into dice: single linkage within a distance scaled by pip size, never
    across a dark die edge (touching dice); weaker pips may complete a face (``LOW``); a group
    that is no face's layout is split into the faces it holds."""
    strong = _link(pips, [i for i in range(len(pips)) if scores[i] >= threshold], gray)
    if threshold > LOW:
        weak = _link(pips, [i for i in range(len(pips)) if scores[i] >= LOW], gray)
        for members in weak:
            if len(members) < 3 or layout_misfit(_xy(pips, members)) > FIT_MAX:
                continue
            inside = [g for g in strong if set(g) & set(members)]
            if not inside or not all(set(g) <= set(members) for g in inside):
                continue
            if sum(len(g) for g in inside) == len(members):
                continue
            strong = [g for g in strong if not set(g) & set(members)] + [members]
    out = [PipGroup(tuple(pips[i] for i in m), tuple(float(scores[i]) for i in m))
           for m in strong]
    return _drop_side_faces(out)


def _face_rank(group: PipGroup) -> float:
    """Upward faces face the camera: rounder pips on a brighter face rank higher."""
    shape = np.mean([p.ratio + p.ring_level for p in group.pips])
    return float(shape + 0.5 * np.mean(group.scores))


def _drop_side_faces(groups: list[PipGroup]) -> list[PipGroup]:
    """Of two differently shaded/foreshortened pip groups on one die, keep the upward face."""
    dropped: set[int] = set()
    for i, gi in enumerate(groups):
        for j in range(i + 1, len(groups)):
            gj = groups[j]
            if i in dropped or j in dropped:
                continue
            size = max(np.median([p.diameter for p in gi.pips]),
                       np.median([p.diameter for p in gj.pips]))
            gap = min(math.hypot(a.x - b.x, a.y - b.y) for a in gi.pips for b in gj.pips)
            if gap > 3.2 * size or _same_shape(gi.pips[0], gj.pips[0]):
                continue
            dropped.add(j if _face_rank(gi) >= _face_rank(gj) else i)
    return [g for k, g in enumerate(groups) if k not in dropped]


#: A face's pips sit on one grid: the longest link of a group's minimum spanning tree is at most
#: about twice its other links (a six's row gap) and under three pip lengths. A link past both
#: bounds joins two dice (touching, or a face and the side face below it) and is cut.
GAP_RATIO = 2.3
GAP_PIPS = 3.0


def _longest_link(pips: list[Pip], members: list[int]) -> tuple[float, float, list[bool]]:
    """The minimum spanning tree's longest link: its length, the median of the other links,
    and for each member whether it lies on the first side of that link."""
    xy = np.array([[pips[i].x, pips[i].y] for i in members], np.float64)
    dist = np.linalg.norm(xy[:, None, :] - xy[None, :, :], axis=2)
    n = len(members)
    in_tree = np.zeros(n, bool)
    in_tree[0] = True
    best = dist[0].copy()
    via = np.zeros(n, int)
    links: list[tuple[float, int, int]] = []
    for _ in range(n - 1):
        cand = np.where(in_tree, np.inf, best)
        j = int(np.argmin(cand))
        links.append((float(cand[j]), int(via[j]), j))
        in_tree[j] = True
        closer = dist[j] < best
        best[closer], via[closer] = dist[j][closer], j
    links.sort()
    length = links[-1][0]
    others = float(np.median([d for d, _, _ in links[:-1]])) if n > 2 else length
    side = [False] * n
    side[links[-1][1]] = True
    grown = True
    while grown:  # the longest link's first end and everything the shorter links join to it
        grown = False
        for _, i, j in links[:-1]:
            if side[i] != side[j]:
                side[i] = side[j] = True
                grown = True
    return length, others, side


#: Pip places of each face on the face's 3 x 3 grid (columns, rows from -1 to 1).
LAYOUTS: dict[int, np.ndarray] = {
    2: np.array([[-1, -1], [1, 1]], np.float64),
    3: np.array([[-1, -1], [0, 0], [1, 1]], np.float64),
    4: np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], np.float64),
    5: np.array([[-1, -1], [1, -1], [-1, 1], [1, 1], [0, 0]], np.float64),
    6: np.array([[-1, -1], [-1, 0], [-1, 1], [1, -1], [1, 0], [1, 1]], np.float64),
}


@lru_cache(maxsize=8)
def _layout_residuals(n: int) -> np.ndarray:
    """For ``n`` pips, per order of the ``n`` face's places, the projection that leaves an
    affine fit's residual (a face seen at an angle is, to first order, an affine image of its
    layout)."""
    out = []
    for order in itertools.permutations(range(n)):
        design = np.hstack([LAYOUTS[n][list(order)], np.ones((n, 1))])
        out.append(np.eye(n) - design @ np.linalg.pinv(design))
    return np.array(out)


def layout_misfit(points: np.ndarray) -> float:
    """How far ``n`` pip centres (n x 2) are from any view of an ``n`` face: the root mean
    square residual of the best affine fit over every assignment of pips to places, over the
    pip spacing (the median distance to the nearest other pip). 0 for a perfect face; one or
    two pips always fit."""
    n = len(points)
    if n <= 2:
        return 0.0
    res = np.einsum("pij,jk->pik", _layout_residuals(n), points)
    rms = float(np.sqrt((res ** 2).sum(axis=(1, 2)).min() / n))
    dist = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    np.fill_diagonal(dist, np.inf)
    return rms / max(float(np.median(dist.min(axis=1))), 1e-6)


#: Largest ``layout_misfit`` of a face: the photos' faces stay under 0.03; pips of two faces
#: (an upward face and the side face below it, joined across a light edge) score 0.3 and up.
FIT_MAX = 0.1


def _xy(pips: list[Pip], members: list[int]) -> np.ndarray:
    return np.array([[pips[i].x, pips[i].y] for i in members], np.float64)


def _extent(pips: list[Pip], part: list[int]) -> float:
    """The largest distance between two pips of a part, in pip diameters (0 for one pip)."""
    xy = _xy(pips, part)
    size = float(np.median([pips[i].diameter for i in part]))
    return float(np.linalg.norm(xy[:, None, :] - xy[None, :, :], axis=2).max()) / size


def _split_misfit(pips: list[Pip], members: list[int]) -> list[list[int]]:
    """A group whose pips are no face's layout, as the two faces it is made of: the largest
    part that is a face whose remaining pips are a face too (fewest misfits first, then the
    most compact parts: of a face's pips and a side face's, each lies closer together)."""
    n = len(members)
    if n < 3 or layout_misfit(_xy(pips, members)) <= FIT_MAX:
        return [members]
    for m in range(n - 1, (n - 1) // 2, -1):
        best: tuple[float, float, list[int], list[int]] | None = None
        for part in itertools.combinations(members, m):
            rest = [i for i in members if i not in part]
            fit_part = layout_misfit(_xy(pips, list(part)))
            fit_rest = layout_misfit(_xy(pips, rest))
            if fit_part > FIT_MAX or fit_rest > FIT_MAX:
                continue
            key = (round(fit_part + fit_rest, 2), _extent(pips, list(part)) + _extent(pips, rest))
            if best is None or key < best[:2]:
                best = (key[0], key[1], list(part), rest)
        if best is not None:
            return [best[2], best[3]]
    return [members]


def _split(pips: list[Pip], members: list[int]) -> list[list[int]]:
    """Split a group of more than six pips (touching dice) into two by the widest gap, a group
    at an over-long link (``GAP_RATIO``), and a group that is no face's layout into the faces
    it holds (``_split_misfit``)."""
    if len(members) <= 6:
        if len(members) >= 3:
            length, others, side = _longest_link(pips, members)
            major = float(np.median([pips[i].major for i in members]))
            if length >= GAP_RATIO * others and length >= GAP_PIPS * major:
                first = [m for m, s in zip(members, side, strict=True) if s]
                second = [m for m, s in zip(members, side, strict=True) if not s]
                return _split(pips, first) + _split(pips, second)
        return _split_misfit(pips, list(members))
    xy = np.array([[pips[i].x, pips[i].y] for i in members], np.float64)
    centred = xy - xy.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    proj = centred @ vt[0]
    order = np.argsort(proj)
    gaps = np.diff(proj[order])
    cut = int(np.argmax(gaps)) + 1
    first = [members[i] for i in order[:cut]]
    second = [members[i] for i in order[cut:]]
    return _split(pips, first) + _split(pips, second)
