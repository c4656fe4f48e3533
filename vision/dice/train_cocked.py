"""Fit the cocked/flat model of ``vision.dice.board`` on synthetic throws.

``python -m vision.dice.train_cocked [N [CACHE.npz]]`` renders N throws (seeds from 1,000,000 up, disjoint
from the evaluation's seeds), finds each die's face, and fits a logistic model on its pose
features; the threshold keeps flat dice called cocked under 1% on the training throws.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

from vision.dice.board import COCKED_MODEL, find_faces
from vision.dice.synth import random_dice_scene
from vision.geometry import Canonical

TRAIN_SEED0 = 1_000_000


def collect(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Pose features and labels (1 = cocked) of the dice found in ``n`` synthetic throws."""
    feats, labels = [], []
    for seed in range(TRAIN_SEED0, TRAIN_SEED0 + n):
        scene = random_dice_scene(seed, cocked_rate=0.45, on_checker_rate=0.1)
        to_mm = Canonical(scene.geometry, 1.0, (0.0, 0.0)).homography_from_image(scene.corners)
        for face in find_faces(scene.image, to_mm, scene.geometry):
            truth = [d for d in scene.dice
                     if math.hypot(d.x_mm - face.x_mm, d.y_mm - face.y_mm) < 8.0]
            if not truth:
                continue
            feats.append(face.features)
            labels.append(0.0 if truth[0].flat else 1.0)
    return np.array(feats), np.array(labels)


def fit(x: np.ndarray, y: np.ndarray) -> dict[str, object]:
    """Logistic regression (L2) and the threshold for at most 1% flat dice called cocked."""
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    mean[-1], scale[-1] = 0.0, 1.0
    z = (x - mean) / scale
    w = np.zeros(x.shape[1])
    for _ in range(6000):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -40, 40)))
        w -= 0.3 * (z.T @ (p - y) / len(y) + 1e-3 * w)
    p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -40, 40)))
    flat = np.sort(p[y == 0])
    threshold = float(flat[int(0.995 * (len(flat) - 1))]) if len(flat) else 0.5
    threshold = max(threshold, 0.2)
    recall = float((p[y == 1] >= threshold).mean()) if (y == 1).any() else 0.0
    false_alarm = float((p[y == 0] >= threshold).mean()) if (y == 0).any() else 0.0
    return {"mean": mean.tolist(), "scale": scale.tolist(), "weights": w.tolist(),
            "threshold": threshold, "train_recall": recall, "train_false_alarm": false_alarm,
            "train_dice": int(len(y))}


def main(argv: list[str]) -> int:
    """Render, fit, write ``cocked_model.json``."""
    n = int(argv[0]) if argv else 600
    cache = argv[1] if len(argv) > 1 else None
    if cache and Path(cache).exists():
        data = np.load(cache)
        x, y = data["x"], data["y"]
    else:
        x, y = collect(n)
        if cache:
            np.savez(cache, x=x, y=y)
    model = fit(x, y)
    COCKED_MODEL.write_text(json.dumps(model, indent=1) + "\n")
    print(f"wrote {COCKED_MODEL}: {model['train_dice']} dice, recall {model['train_recall']:.3f},"
          f" false alarms {model['train_false_alarm']:.3f}, threshold {model['threshold']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
