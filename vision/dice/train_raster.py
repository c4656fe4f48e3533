"""Fit the raster's die-candidate model on synthetic throws (``raster_model.json``).

``python -m vision.dice.train_raster [N [CACHE.npz]]`` renders N throws (seeds from 2,000,000
up, disjoint from the evaluation's and the benchmark's), warps each to the reading raster as
the board reader does and takes the structure-tensor peaks (``vision.dice.raster``), keeping
the raster around each. Fitted on 70% of the throws, the threshold and rates from the other
30%: along rays from a place, is a die centred there (within 0.3 of a die; farther than 0.6
is "no")? The threshold keeps 99.7% of the dice (a die counts as kept when any place around
it passes); the board's dice reader (``vision.dice.board``) reads its candidates at a looser
threshold still.

``python -m vision.dice.train_raster --second-chances N [CACHE.npz]`` fits the second chances'
acceptor instead (``vision.dice.tilted.p_second_chance``, written beside the raster model under
``second_chance``): N random throws (seeds from 1,000,000 up, the cocked model's training
throws) read as the referee reads them, every hypothesis a second chance judges
(``second_chance.second_chance_tries``) labelled a real cocked die read right (within 8 mm of a
cocked die, its pips) or not; a logistic regression on 70% of the throws, the rest held out.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
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
SECOND_SEED0 = 1_000_000
# the acceptor's bar: on 3-fold cross-validation over the second chances of 1200 training throws
# (1,000,000 up), kept besides the reader's two gates (die model >= 0.7, solid pips) it found a
# cocked die read right on 40 throws rather than 28, passing 26 rather than 23 other faces
# (misread dice, flat dice, texture); alone 34 and 3
SECOND_ACCEPTANCE = 0.7
SECOND_REACH_MM = 8.0  # a hypothesis this close to a die's centre is on that die


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


def collect_second_chances(n: int) -> dict[str, np.ndarray]:
    """Every hypothesis the reader's second chances judge on N training throws: the acceptor's
    inputs, whether it passes the cocked model's bar, its label (a cocked die's within
    :data:`SECOND_REACH_MM`, its pips read right) and the throw. The frames are read as the
    reader reads them (a second chance returns the first hypothesis it accepts, with the
    acceptor in the model file), so the later candidates see the same dice found."""
    import math

    from vision.dice import board, second_chance
    from vision.dice.pose import second_chance_threshold
    from vision.dice.reading import image_to_mm

    rows: list[np.ndarray] = []
    labels: list[bool] = []
    cocked_ok: list[bool] = []
    throws: list[int] = []
    truth: list[tuple[float, float, bool, int]] = []
    k = 0

    def record(colour: np.ndarray, gray: np.ndarray, from_mm: np.ndarray, cx: float, cy: float,
               usual: object, g: BoardGeometry, found: list[object]) -> object:
        chosen = None
        for attempt in second_chance.second_chance_tries(
                colour, gray, from_mm, cx, cy, usual, g, found):  # type: ignore[arg-type]
            face = attempt.face
            near = [t for t in truth if math.hypot(t[0] - face.x_mm, t[1] - face.y_mm)
                    < SECOND_REACH_MM]
            rows.append(attempt.inputs)
            labels.append(bool(near) and not near[0][2] and near[0][3] == face.pips)
            cocked_ok.append(attempt.p_cocked >= second_chance_threshold())
            throws.append(k)
            if chosen is None and attempt.accepted():
                chosen = face
        return chosen

    inner = board.__dict__["give_second_chance"]
    setattr(board, "give_second_chance", record)  # noqa: B010 - find_faces calls it by this name
    try:
        for k, seed in enumerate(range(SECOND_SEED0, SECOND_SEED0 + n)):
            scene = random_dice_scene(seed)
            truth[:] = [(d.x_mm, d.y_mm, d.flat, d.pips) for d in scene.dice]
            board.find_faces(scene.image, image_to_mm(scene.corners, scene.geometry),
                             scene.geometry, spots=False)
            if k % 100 == 0:
                print(f"  {k}/{n} throws, {len(rows)} hypotheses", flush=True)
    finally:
        setattr(board, "give_second_chance", inner)  # noqa: B010
    return {"x": np.array(rows).reshape(-1, 9), "y": np.array(labels, bool),
            "cocked": np.array(cocked_ok, bool), "throw": np.array(throws, np.int32)}


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-2, steps: int = 3000,
                 rate: float = 0.1) -> dict[str, object]:
    """A logistic regression on standardised inputs (gradient descent, L2 on the weights)."""
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    z = (x - mean) / scale
    w = np.zeros(z.shape[1])
    b = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(z @ w + b)))
        g = p - y
        w -= rate * (z.T @ g / len(y) + l2 * w)
        b -= rate * float(g.mean())
    return {"mean": mean.tolist(), "scale": scale.tolist(), "w": w.tolist(), "b": b}


def fit_second_chances(d: dict[str, np.ndarray]) -> dict[str, object]:
    """The acceptor on the first 70% of the throws, with its bar and held-out counts of the
    hypotheses it would pass (among those the cocked model passes): real cocked dice read
    right, and the rest (texture, flat dice, wrong pips)."""
    x, y, cocked, throw = d["x"], d["y"].astype(np.float64), d["cocked"], d["throw"]
    fit = _split(throw)
    model = fit_logistic(x[fit], y[fit])
    z = (x[~fit] - np.asarray(model["mean"])) / np.asarray(model["scale"])
    p = 1.0 / (1.0 + np.exp(-(z @ np.asarray(model["w"]) + float(model["b"]))))  # type: ignore
    passed = cocked[~fit] & (p >= SECOND_ACCEPTANCE)
    model.update({
        "threshold": SECOND_ACCEPTANCE,
        "held_out_right": int((passed & (y[~fit] > 0)).sum()),
        "held_out_other": int((passed & (y[~fit] == 0)).sum()),
        "rows": len(y),
    })
    return model


def _write(key: str | None, entry: dict[str, object]) -> None:
    """Write the raster model (``key`` None) or another entry of the model file, keeping the
    rest of the file."""
    old = json.loads(MODEL_PATH.read_text()) if MODEL_PATH.exists() else {}
    if key is None:
        new = dict(entry)
        if "second_chance" in old:
            new["second_chance"] = old["second_chance"]
    else:
        new = {**old, key: entry}
    MODEL_PATH.write_text(json.dumps(new) + "\n")


def _rows(collect_rows: Callable[[int], dict[str, np.ndarray]], argv: list[str],
          default_n: int) -> dict[str, np.ndarray]:
    """The training rows of ``argv`` (``[N [CACHE]]``): loaded from CACHE when it exists, else
    collected from N throws (and saved to CACHE when one is named)."""
    n = int(argv[0]) if argv else default_n
    cache = Path(argv[1]) if len(argv) > 1 else None
    if cache is not None and cache.exists():
        return dict(np.load(cache))
    data = collect_rows(n)
    if cache is not None:
        np.savez(cache, **data)  # type: ignore[arg-type]
    return data


def main(argv: list[str]) -> int:
    """Render (or load the cache), fit the model, write the model file."""
    if argv and argv[0] == "--second-chances":
        data = _rows(collect_second_chances, argv[1:], 1200)
        acceptor = fit_second_chances(data)
        _write("second_chance", acceptor)
        print(f"wrote {MODEL_PATH} (second_chance): {acceptor['rows']} hypotheses; held out, "
              f"passed: {acceptor['held_out_right']} cocked dice read right, "
              f"{acceptor['held_out_other']} other")
        return 0
    data = _rows(collect, argv, 500)
    g = BoardGeometry()
    raster = fit_raster(data, g.die_size_mm * RASTER_PPM)
    _write(None, raster)
    print(f"wrote {MODEL_PATH}: held out: dice kept {raster['held_out_dice_kept']:.4f}, "
          f"other patches through {raster['held_out_false_patches_per_throw']:.2f} per throw")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
