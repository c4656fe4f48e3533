"""Fit the upward-face pip scorer and face-box sizes on the real photos' training split.

Run ``python -m vision.dice.train [DATA_DIR]``; it writes ``vision/dice/pip_model.json``.
Only the ``Train`` split is used, so ``Valid`` stays an honest hold-out for ``tests.eval.dice``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.dice.faces import FEATURE_NAMES, MODEL_PATH, pip_features
from vision.dice.pips import find_pips

# the shared photographs: ../shared beside the repository, or where HAKEM_SHARED says
DEFAULT_DATA = Path(os.environ.get("HAKEM_SHARED", Path(__file__).resolve().parents[3] / "shared")
                    ) / "data" / "dice_photos"


def read_labels(image_path: Path, width: int, height: int) -> list[tuple[int, tuple[float, ...]]]:
    """YOLO labels of one photo as (pips, (x0, y0, x1, y1)) in pixels."""
    out: list[tuple[int, tuple[float, ...]]] = []
    for line in image_path.with_suffix(".txt").read_text().splitlines():
        parts = line.split()
        if len(parts) != 5:
            continue
        cls, cx, cy, w, h = int(parts[0]), *map(float, parts[1:])
        box = ((cx - w / 2) * width, (cy - h / 2) * height,
               (cx + w / 2) * width, (cy + h / 2) * height)
        out.append((cls + 1, box))
    return out


def fit(data_dir: Path) -> dict[str, object]:
    """The scorer weights and box coefficients fitted on ``data_dir/Train``."""
    feats, targets, box_rows, box_targets = [], [], [], []
    for path in sorted((data_dir / "Train").glob("*.jpg")):
        image = cv2.imread(str(path))
        if image is None:
            continue
        labels = read_labels(path, image.shape[1], image.shape[0])
        pips = find_pips(image)
        rows = pip_features(pips)
        for pip, row in zip(pips, rows, strict=True):
            if not pip.dark:  # the photos' dice are white: their pips are all dark
                continue
            inside = [b for _, b in labels if b[0] <= pip.x <= b[2] and b[1] <= pip.y <= b[3]]
            feats.append(row)
            targets.append(1.0 if inside and pip.dark else 0.0)
        for count, (x0, y0, x1, y1) in labels:
            members = [p for p in pips if p.dark and x0 <= p.x <= x1 and y0 <= p.y <= y1]
            if len(members) != count:
                continue
            xs = np.array([p.x for p in members])
            ys = np.array([p.y for p in members])
            diam = float(np.median([p.diameter for p in members]))
            for extent, half in (((xs.max() - xs.min()) / 2, (x1 - x0) / 2),
                                 ((ys.max() - ys.min()) / 2, (y1 - y0) / 2)):
                box_rows.append((count, extent, diam))
                box_targets.append(half)
    x = np.array(feats)
    y = np.array(targets)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    mean[-1], scale[-1] = 0.0, 1.0
    z = (x - mean) / scale
    weights = np.zeros(x.shape[1])
    for _ in range(4000):
        prob = 1.0 / (1.0 + np.exp(-(z @ weights)))
        weights -= 0.5 * (z.T @ (prob - y) / len(y) + 1e-3 * weights)
    rows, halves = np.array(box_rows), np.array(box_targets)
    box: dict[str, float] = {}
    for count in range(1, 7):
        sel = rows[:, 0] == count
        if count == 1:
            box["extent1"], box["diameter1"] = 0.0, float(np.median(halves[sel] / rows[sel, 2]))
        else:
            coef, *_ = np.linalg.lstsq(rows[sel, 1:], halves[sel], rcond=None)
            box[f"extent{count}"], box[f"diameter{count}"] = float(coef[0]), float(coef[1])
    accuracy = float(((1.0 / (1.0 + np.exp(-(z @ weights))) > 0.5) == (y > 0.5)).mean())
    return {
        "features": list(FEATURE_NAMES),
        "mean": mean.tolist(), "scale": scale.tolist(), "weights": weights.tolist(),
        "box": box,
        "train_accuracy": accuracy, "train_candidates": len(y),
    }


def main(argv: list[str]) -> int:
    """Fit and write the model file."""
    data_dir = Path(argv[0]) if argv else DEFAULT_DATA
    model = fit(data_dir)
    MODEL_PATH.write_text(json.dumps(model, indent=1) + "\n")
    print(f"wrote {MODEL_PATH}: train accuracy {model['train_accuracy']:.4f}, box {model['box']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
