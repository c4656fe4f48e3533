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
            1.0 if p.dark else 0.0,
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
    return 1.0 / (1.0 + np.exp(-(feats @ weights)))


@dataclass(frozen=True)
class PipGroup:
    """Upward-face pips judged to belong to one die."""

    pips: tuple[Pip, ...]
    scores: tuple[float, ...]


def group_pips(pips: list[Pip], scores: np.ndarray, threshold: float = 0.5) -> list[PipGroup]:
    """Link face pips into dice: single linkage within a distance scaled by pip size."""
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
            similar = 0.5 < pa.area / pb.area < 2.0
            if similar and d < 4.6 * size:
                parent[root(a)] = root(b)
    groups: dict[int, list[int]] = {}
    for i in keep:
        groups.setdefault(root(i), []).append(i)
    out = []
    for members in groups.values():
        out.extend(_split(pips, scores, members))
    return out


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
