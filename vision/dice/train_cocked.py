"""Fit the two small models of ``vision.dice.board`` on synthetic throws.

``python -m vision.dice.train_cocked [N [CACHE.npz]]`` renders N throws (seeds from 1,000,000
up, disjoint from the evaluation's seeds), finds every face candidate, and fits two small networks
(one hidden layer, numpy) on its features: *die* (a real die rather than board texture) and
*cocked* (a side face shows). Each is fitted on 70% of the rows; the other 30% choose the
threshold (the die model keeps 99% of the real dice; the cocked model lets at most 1% of flat
dice through) and give the held-out rates written beside the weights, in
``cocked_model.json``.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

from vision.dice.board import find_faces
from vision.dice.pose import COCKED_MODEL, detection_features
from vision.dice.reading import image_to_mm
from vision.dice.synth import random_dice_scene

TRAIN_SEED0 = 1_000_000


def collect(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Detection features, pose features and labels (0 texture, 1 flat die, 2 cocked die)."""
    det, pose, labels = [], [], []
    for seed in range(TRAIN_SEED0, TRAIN_SEED0 + n):
        scene = random_dice_scene(seed, cocked_rate=0.45, on_checker_rate=0.12)
        to_mm = image_to_mm(scene.corners, scene.geometry)
        # the spot candidates: many more board-texture places than the raster's few
        for face in find_faces(scene.image, to_mm, scene.geometry, all_candidates=True,
                               spots=True):
            truth = [d for d in scene.dice
                     if math.hypot(d.x_mm - face.x_mm, d.y_mm - face.y_mm) < 6.0]
            det.append(detection_features(face))
            pose.append(face.features)
            labels.append(0 if not truth else (1 if truth[0].flat else 2))
    return np.array(det), np.array(pose), np.array(labels)


def fit_mlp(x: np.ndarray, y: np.ndarray, *, hidden: int, l2: float, epochs: int,
            seed: int = 0) -> dict[str, object]:
    """A one-hidden-layer network (tanh, logistic output), class-balanced, trained by Adam."""
    rng = np.random.default_rng(seed)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = (x - mean) / scale
    params = [rng.normal(0, 1 / np.sqrt(z.shape[1]), (z.shape[1], hidden)), np.zeros(hidden),
              rng.normal(0, 1 / np.sqrt(hidden), hidden), np.zeros(1)]
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    weight = np.where(y > 0, len(y) / (2 * max(y.sum(), 1)), len(y) / (2 * max((1 - y).sum(), 1)))
    t = 0
    for _ in range(epochs):
        order = rng.permutation(len(y))
        for start in range(0, len(y), 256):
            b = order[start:start + 256]
            t += 1
            h = np.tanh(z[b] @ params[0] + params[1])
            p = 1 / (1 + np.exp(-np.clip(h @ params[2] + params[3][0], -40, 40)))
            g = (p - y[b]) * weight[b] / len(b)
            gh = np.outer(g, params[2]) * (1 - h ** 2)
            grads = [z[b].T @ gh + l2 * params[0], gh.sum(axis=0), h.T @ g + l2 * params[2],
                     np.array([g.sum()])]
            for i, gr in enumerate(grads):
                m1[i] = 0.9 * m1[i] + 0.1 * gr
                m2[i] = 0.999 * m2[i] + 0.001 * gr ** 2
                params[i] -= 0.01 * (m1[i] / (1 - 0.9 ** t)) / (
                    np.sqrt(m2[i] / (1 - 0.999 ** t)) + 1e-8)
    return {"mean": mean.tolist(), "scale": scale.tolist(), "w1": params[0].tolist(),
            "b1": params[1].tolist(), "w2": params[2].tolist(), "b2": float(params[3][0])}


def predict(model: dict[str, object], x: np.ndarray) -> np.ndarray:
    """The network's probabilities for rows of ``x``."""
    z = (x - np.array(model["mean"])) / np.array(model["scale"])
    h = np.tanh(z @ np.array(model["w1"]) + np.array(model["b1"]))
    out: np.ndarray = 1 / (1 + np.exp(-np.clip(h @ np.array(model["w2"]) + float(
        model["b2"]), -40, 40)))  # type: ignore[arg-type]
    return out


def fit_with_threshold(x: np.ndarray, y: np.ndarray, *, hidden: int, l2: float, epochs: int,
                       keep_positive: float | None = None, max_false: float | None = None
                       ) -> dict[str, object]:
    """Fit on 70% of the rows; on the other 30% choose the threshold that keeps
    ``keep_positive`` of the positives or lets at most ``max_false`` of the negatives through,
    and record the held-out rates."""
    rng = np.random.default_rng(7)
    order = rng.permutation(len(y))
    cut = int(0.7 * len(y))
    fit_rows, held = order[:cut], order[cut:]
    model = fit_mlp(x[fit_rows], y[fit_rows], hidden=hidden, l2=l2, epochs=epochs)
    p = predict(model, x[held])
    pos, neg = np.sort(p[y[held] == 1]), np.sort(p[y[held] == 0])
    threshold = 0.5
    if keep_positive is not None and len(pos):
        threshold = float(pos[int((1.0 - keep_positive) * (len(pos) - 1))])
    if max_false is not None and len(neg):
        threshold = float(neg[int((1.0 - max_false) * (len(neg) - 1))]) + 1e-6
    model["threshold"] = threshold
    model["held_out_true_positive"] = float((pos >= threshold).mean()) if len(pos) else 0.0
    model["held_out_false_positive"] = float((neg >= threshold).mean()) if len(neg) else 0.0
    model["rows"] = len(y)
    return model


def main(argv: list[str]) -> int:
    """Render (or load the cache), fit, write the model file."""
    n = int(argv[0]) if argv else 600
    cache = Path(argv[1]) if len(argv) > 1 else None
    if cache is not None and cache.exists():
        data = np.load(cache)
        det, pose, labels = data["det"], data["pose"], data["labels"]
    else:
        det, pose, labels = collect(n)
        if cache is not None:
            np.savez(cache, det=det, pose=pose, labels=labels)
    die = fit_with_threshold(det, (labels > 0).astype(float), hidden=32, l2=1e-3, epochs=300,
                             keep_positive=0.99)
    real = labels > 0
    cocked = fit_with_threshold(det[real], (labels[real] == 2).astype(float), hidden=8,
                                l2=1e-2, epochs=200, max_false=0.01)
    COCKED_MODEL.write_text(json.dumps({"die": die, "cocked": cocked}) + "\n")
    print(f"wrote {COCKED_MODEL}: {int(real.sum())} dice, {int((~real).sum())} textures; "
          f"held out: die model keeps {die['held_out_true_positive']:.3f} of dice, lets "
          f"through {die['held_out_false_positive']:.3f} of textures; cocked recall "
          f"{cocked['held_out_true_positive']:.3f}, flat called cocked "
          f"{cocked['held_out_false_positive']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
