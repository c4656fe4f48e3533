"""Which pip candidates lie on a die's upward face, and how they group into dice.

A trained linear scorer (``pip_model.json``, fitted on the real photo training split by
``vision.dice.train``) tells upward-face pips from side-face pips and clutter; face pips are then
linked into dice by distance relative to pip size.
"""

from __future__ import annotations

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


def group_pips(
    pips: list[Pip], scores: np.ndarray, threshold: float = 0.5, gray: np.ndarray | None = None
) -> list[PipGroup]:
    """Link face pips into dice: single linkage within a distance scaled by pip size, never
    across a dark die edge (touching dice)."""
    keep = [i for i in range(len(pips)) if scores[i] >= threshold]
    parent = {i: i for i in keep}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a_i, a in enumerate(keep):
        for b in keep[a_i + 1:]:
            pa, pb = pips[a], pips[b]
            if pa.dark != pb.dark:
                continue
            d = math.hypot(pa.x - pb.x, pa.y - pb.y)
            size = max(pa.diameter, pb.diameter)
            similar = 0.55 < pa.area / pb.area < 1.8 and _same_shape(pa, pb)
            if similar and d < 5.2 * size:
                face_pips = [pips[i] for i in keep]
                if _same_face(gray, face_pips, pa, pb):
                    parent[root(a)] = root(b)
    groups: dict[int, list[int]] = {}
    for i in keep:
        groups.setdefault(root(i), []).append(i)
    out = []
    for members in groups.values():
        out.extend(_split(pips, scores, members))
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


def _split(pips: list[Pip], scores: np.ndarray, members: list[int]) -> list[PipGroup]:
    """Split a group of more than six pips (touching dice) into two by the widest gap."""
    if len(members) <= 6:
        return [PipGroup(tuple(pips[i] for i in members), tuple(float(scores[i]) for i in members))]
    xy = np.array([[pips[i].x, pips[i].y] for i in members], np.float64)
    centred = xy - xy.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    proj = centred @ vt[0]
    order = np.argsort(proj)
    gaps = np.diff(proj[order])
    cut = int(np.argmax(gaps)) + 1
    first = [members[i] for i in order[:cut]]
    second = [members[i] for i in order[cut:]]
    return _split(pips, scores, first) + _split(pips, scores, second)
