"""Fit the stone-count model on rendered boards: ``python -m vision.mangala.train [FRAMES]``.

For pits and for stores separately, the features of a cell holding ``n`` stones are modelled as
a Gaussian whose mean and covariance vary smoothly with ``n`` (kernel-weighted local linear fit
over the rendered counts), written to ``count_model.json``. Seeds here (from ``TRAIN_SEED``)
never overlap the evaluation's (``tests/eval/stones.py``: 500 000.. and 600 000..; the
referee's evaluation: 900 000..; fresh figures: 3 000 000..).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from vision.mangala.features import FEATURE_NAMES
from vision.mangala.geometry import DEFAULT_GEOMETRY
from vision.mangala.reader import MAX_COUNT, MODEL_PATH, measure_cells
from vision.mangala.render import render_mangala

TRAIN_SEED = 20_000_000
FRAMES = 700
PIT_MAX = 24  # pits are rendered with 0..PIT_MAX stones, stores with 0..48
COV_WIDEN = 1.3  # measured covariances are widened by this factor (see fit_kind)
# Smallest spread of each feature (``FEATURE_NAMES`` order): keeps an empty cell's all-zero
# features from making the covariance singular.
FEATURE_FLOOR = (0.12, 0.25, 0.12, 0.3, 0.4, 0.3, 0.3, 0.15, 0.08, 0.12)


def random_cells(rng: np.random.Generator) -> list[int]:
    """Counts for one training board: pits mostly 6..16 (the piles that are hard to count),
    the rest anywhere in 0..``PIT_MAX``; stores anywhere in 0..48."""
    cells = []
    for i in range(14):
        if i in (6, 13):
            cells.append(int(rng.integers(0, MAX_COUNT + 1)))
        elif rng.random() < 0.7:
            cells.append(int(rng.integers(6, 17)))
        else:
            cells.append(int(rng.integers(0, PIT_MAX + 1)))
    return cells


def collect(frames: int, seed: int = TRAIN_SEED) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, counts and store flags of every visible cell of ``frames`` rendered boards."""
    rng = np.random.default_rng(seed)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    stores: list[bool] = []
    cell_list = DEFAULT_GEOMETRY.cells()
    for k in range(frames):
        cells = random_cells(rng)
        img, corners = render_mangala(cells, seed + k)
        feats, covered = measure_cells(img, corners)
        for cell, f, cov in zip(cell_list, feats, covered, strict=True):
            if cov == 0.0:
                xs.append(f)
                ys.append(cells[cell.index])
                stores.append(cell.is_store)
    return np.array(xs), np.array(ys), np.array(stores)


def fit_kind(x: np.ndarray, y: np.ndarray, bandwidth: float) -> dict[str, object]:
    """Mean and covariance of the features for every count 0..48 (local linear in n)."""
    d = x.shape[1]
    floor = np.diag(np.array(FEATURE_FLOOR[:d]) ** 2)
    top = int(y.max())
    means = []
    covs = []
    for n in range(MAX_COUNT + 1):
        at = min(n, top)
        h = bandwidth if n > 2 else 0.35  # tiny piles are distinct: do not borrow from 2 or 3
        w = np.exp(-0.5 * ((y - at) / h) ** 2)
        if w.sum() < 3:
            w = np.exp(-0.5 * ((y - at) / (3 * h)) ** 2)
        a = np.stack([np.ones_like(y, dtype=np.float64), (y - at).astype(np.float64)], axis=1)
        aw = a * w[:, None]
        coef = np.linalg.lstsq(aw.T @ a + 1e-6 * np.eye(2), aw.T @ x, rcond=None)[0]
        mean = coef[0] + coef[1] * (n - at)
        resid = x - (a @ coef)
        cov = (resid * w[:, None]).T @ resid / w.sum()
        cov = cov * COV_WIDEN + floor  # a little wider than measured: honest, not overconfident
        if n > top:
            cov = cov * (1.0 + 0.15 * (n - top))
        means.append(mean)
        covs.append(cov)
    return {"features": list(range(d)), "means": np.array(means).round(5).tolist(),
            "covs": np.array(covs).round(6).tolist(), "samples": len(y),
            "max_count_seen": top}


def fit(x: np.ndarray, y: np.ndarray, store: np.ndarray) -> dict[str, object]:
    """The whole model: pits and stores."""
    return {
        "feature_names": list(FEATURE_NAMES),
        "pit": fit_kind(x[~store], y[~store], bandwidth=1.0),
        "store": fit_kind(x[store], y[store], bandwidth=1.5),
    }


def main(argv: list[str]) -> int:
    """Render, measure, fit and write the model."""
    frames = int(argv[0]) if argv else FRAMES
    out = Path(argv[1]) if len(argv) > 1 else MODEL_PATH
    x, y, store = collect(frames)
    model = fit(x, y, store)
    model["frames"] = frames
    out.write_text(json.dumps(model, separators=(",", ":")) + "\n")
    print(f"{len(y)} cells from {frames} boards -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
