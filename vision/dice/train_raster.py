"""Fit the raster's die-candidate model on synthetic throws (``raster_model.json``).

``python -m vision.dice.train_raster [N [CACHE.npz]]`` renders N throws (seeds from 2,000,000
up, disjoint from the evaluation's and the benchmark's), warps each to the reading raster as
the board reader does and takes the structure-tensor peaks (``vision.dice.raster``), keeping
the raster around each. Fitted on 70% of the throws, the threshold and rates from the other
30%: along rays from a place, is a die centred there (within 0.3 of a die; farther than 0.6
is "no")? The threshold keeps 99.7% of the dice (a die counts as kept when any place around
it passes); the board's dice reader (``vision.dice.board``) reads its candidates at a looser
threshold still.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from vision.board_reader import prepare
from vision.calibration import Calibration
from vision.dice.raster import (
    MODEL_PATH,
    OFFSETS,
    PATCH_PX,
    RASTER_PPM,
    at_model_scale,
    patch_rays,
    patches,
    peaks,
    ray_features,
)
from vision.dice.synth import random_dice_scene
from vision.dice.train_cocked import fit_mlp, predict
from vision.geometry import BoardGeometry

TRAIN_SEED0 = 2_000_000


BIG = 25  # stored patch side: room to cut the model's patch at offsets up to 4 px


def collect(n: int) -> dict[str, np.ndarray]:
    """Per structure-tensor peak of N throws: a BIG-pixel patch around it, the throw, and the
    offset (raster px) from the peak to each die of the throw with the die's truth (flat, on
    a checker, translucent, pips). Every fourth seed is skipped (those were boards without
    dice for a per-die model no longer used): the model file's seeds stay the same."""
    import cv2

    big, scene_ids, offsets, truths = [], [], [], []
    for k, seed in enumerate(range(TRAIN_SEED0, TRAIN_SEED0 + n)):
        if k % 4 == 3:
            continue
        scene = random_dice_scene(seed, cocked_rate=0.4, on_checker_rate=0.15)
        image, corners, geometry, dice = scene.image, scene.corners, scene.geometry, scene.dice
        cal = Calibration(np.asarray(corners, np.float32).reshape(4, 2), "corners", geometry)
        frame = prepare(image, cal)
        can = frame.canonical
        raster, _ = at_model_scale(frame.bgr, can.px_per_mm)
        centres = peaks(cv2.cvtColor(raster, cv2.COLOR_BGR2GRAY))
        if len(centres) == 0:
            continue
        truth = np.array([can.mm_to_px(d.x_mm, d.y_mm) for d in dice])
        truth *= RASTER_PPM / can.px_per_mm
        big.append(patches(raster, centres, BIG))
        scene_ids.append(np.full(len(centres), k, np.int32))
        off = np.full((len(centres), 2, 2), 99.0, np.float32)
        off[:, :len(truth)] = truth[None, :, :] - centres[:, None, :]
        offsets.append(off)
        t = np.zeros((2, 4), np.int8)
        for i, d in enumerate(dice[:2]):
            t[i] = (int(d.flat), int(d.on_checker), int(d.material == "translucent"), d.pips)
        truths.append(np.repeat(t[None], len(centres), axis=0))
        if k % 50 == 0:
            print(f"  {k}/{n} throws", flush=True)
    return {"big": np.concatenate(big).astype(np.uint8), "sid": np.concatenate(scene_ids),
            "off": np.concatenate(offsets), "truth": np.concatenate(truths)}


def cut(big: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """The model's patches cut from the stored ones, their centre moved by (dx, dy) px."""
    c = BIG // 2 - PATCH_PX // 2
    out: np.ndarray = big[:, c + dy:c + dy + PATCH_PX, c + dx:c + dx + PATCH_PX]
    return out


def _split(sid: np.ndarray) -> np.ndarray:
    """Rows of the first 70% of the throws (fitting); the rest are held out."""
    fit: np.ndarray = sid < int(0.7 * (int(sid.max()) + 1))
    return fit


def fit_raster(d: dict[str, np.ndarray], die_px: float) -> dict[str, object]:
    """The patch model: patches cut at every offset of ``raster.OFFSETS`` around each peak,
    a die's if within 0.3 of a die of its centre, not one if farther than 0.6."""
    rng = np.random.default_rng(3)
    big, sid, off = d["big"], d["sid"], d["off"]
    xs, ys, rows_sid, rows_die = [], [], [], []
    for dx, dy in OFFSETS.tolist():
        dist = np.hypot(off[:, :, 0] - dx, off[:, :, 1] - dy)
        near = dist.min(axis=1)
        pos = near < 0.3 * die_px
        neg = (near > 0.6 * die_px) & (rng.random(len(near)) < 0.35)
        keep = pos | neg
        xs.append(ray_features(patch_rays(cut(big[keep], dx, dy))))
        ys.append(pos[keep].astype(np.float64))
        rows_sid.append(sid[keep])
        rows_die.append(np.where(pos[keep], dist[keep].argmin(axis=1), -1))
    x, y = np.concatenate(xs), np.concatenate(ys)
    s, die = np.concatenate(rows_sid), np.concatenate(rows_die)
    fit = _split(s)
    model = fit_mlp(x[fit], y[fit], hidden=24, l2=1e-3, epochs=40)
    prob = predict(model, x[~fit])
    yh, sh, dh = y[~fit], s[~fit], die[~fit]
    # a die is found when any of its patches passes: the threshold keeps 99.7% of the dice
    best: dict[tuple[int, int], float] = {}
    for p_, s_, d_ in zip(prob[yh == 1], sh[yh == 1], dh[yh == 1], strict=True):
        best[(int(s_), int(d_))] = max(best.get((int(s_), int(d_)), 0.0), float(p_))
    per_die = np.sort(np.array(list(best.values())))
    threshold = float(per_die[int(0.003 * (len(per_die) - 1))]) if len(per_die) else 0.5
    held_throws = len(np.unique(sh))
    model.update({
        "threshold": threshold,
        "held_out_dice_kept": float((per_die >= threshold).mean()) if len(per_die) else 0.0,
        "held_out_false_patches_per_throw": float(((prob >= threshold) & (yh == 0)).sum())
        / 0.35 / max(held_throws, 1),
        "rows": len(y),
    })
    return model


def main(argv: list[str]) -> int:
    """Render (or load the cache), fit the model, write the model file."""
    n = int(argv[0]) if argv else 500
    cache = Path(argv[1]) if len(argv) > 1 else None
    if cache is not None and cache.exists():
        data = dict(np.load(cache))
    else:
        data = collect(n)
        if cache is not None:
            np.savez(cache, **data)  # type: ignore[arg-type]
    g = BoardGeometry()
    raster = fit_raster(data, g.die_size_mm * RASTER_PPM)
    MODEL_PATH.write_text(json.dumps(raster) + "\n")
    print(f"wrote {MODEL_PATH}: held out: dice kept {raster['held_out_dice_kept']:.4f}, "
          f"other patches through {raster['held_out_false_patches_per_throw']:.2f} per throw")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
