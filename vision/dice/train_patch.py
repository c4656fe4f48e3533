"""Fit the patch network of ``vision.dice.patch_net`` and choose its bar (BG-ROLL-2).

``python -m vision.dice.train_patch [--train N,M,T,L,W,R,F] [--check N,M,T,L,W,R,F]
[--epochs E] [--workers P] [--cache DIR]`` renders the cocked model's training throws
(``vision.dice.train_cocked``'s kinds and seeds; the counts as its own), keeps the face-aligned
patch of every face found within 6 mm of a die (``find_faces`` with every candidate, the raster's
places) with its label (flat or cocked) and the profile model's cocked probability, and the patch
of every other face found (board texture: a phantom die the die model lets through must not look
cocked to the network either), and fits the network to tell a cocked die from anything else:
class-balanced logistic loss, Adam, each batch turned or mirrored by one of the
square's eight symmetries (which edge a side face shows beyond does not matter), weights and
batches drawn from :data:`FIT_SEED`. The bar is chosen on check throws of the same kinds with
seeds :data:`CHECK_OFFSET` above the training's (neither model has seen them): the lowest bar at
which the flat dice called cocked by either the profile model (its own threshold) or the joint
logit stay within ``train_cocked``'s shares, overall and per kind. Writes ``patch_model.npz``
(weights ``w0``.., ``bar``, and the check throws' figures), and prints the table the veto
(``vision.dice.board.PATCH_VETO``) is chosen from (:func:`veto_lines`). ``--cache`` keeps the
rendered patches (``train.npz``, ``check.npz``) and loads them when present.

The shipped model: the defaults (the cocked model's throws, 8,700, and a quarter of as many
check throws; 20 epochs): about 20 minutes of rendering and reading with 2 workers on the 2-core
machine and 5 of fitting. Its bar is 1.69; on the check throws' 4,185 dice the pair catches
98.8% of the cocked dice (the profile model alone 95.6%) and calls 0.80% of the flat ones cocked
(alone 0.61%); of 2,156 board-texture faces it calls 4 more cocked than the profile model alone.
A network fitted on the dice alone, without the board texture, caught as many cocked dice but
called half of those texture faces cocked: on dice-free demo boards the table kept 15 phantom
dice instead of 7 (``tests.eval.cocked --phantom 200 --seed0 5000``).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vision.dice.board import find_faces
from vision.dice.face_fit import ALIGNED_MM, ALIGNED_PX_PER_MM, warp_patch
from vision.dice.patch_net import (
    FEATURE_SIDE,
    HIDDEN,
    LAYERS,
    PATCH_MODEL,
    PATCH_PX,
    Trace,
    Weights,
    forward,
    from_aligned,
    joint_logit,
    normalise,
    shapes,
)
from vision.dice.pose import cocked_threshold, p_cocked
from vision.dice.reading import image_to_mm
from vision.dice.train_cocked import (
    MAX_FLAT_CALLED_COCKED,
    MAX_FLAT_CALLED_COCKED_EACH,
    adam_step,
    face_label,
    in_workers,
    plan,
    training_scene,
)

TRAIN_COUNTS = (2400, 1200, 1200, 900, 600, 900, 600)  # train_cocked's shipped model's
CHECK_COUNTS = (600, 300, 300, 225, 150, 225, 150)
CHECK_OFFSET = 50_000  # check throws: the training kinds' seeds this far up
FIT_SEED = 17
EPOCHS = 20
BATCH = 64
STEP = 0.003  # Adam's step; halved from 60% of the epochs, and 0.4 of that from 85%
L2 = 1e-4
Job = tuple[int, int]  # kind, seed


def _patches_of(job: Job) -> list[tuple[np.ndarray, int, int, int, float]]:
    """One throw's faces: (network patch, label: 0 board texture, 1 flat die, 2 cocked die;
    kind, seed, profile model's p)."""
    kind, seed = job
    scene = training_scene(kind, seed)
    to_mm = image_to_mm(scene.corners, scene.geometry)
    from_mm = np.linalg.inv(to_mm)
    out = []
    for face in find_faces(scene.image, to_mm, scene.geometry, all_candidates=True,
                           spots=False):
        label = face_label(scene, face, 6.0)
        aligned = warp_patch(scene.image, from_mm, face.x_mm, face.y_mm, ALIGNED_MM,
                             ALIGNED_PX_PER_MM, face.angle)
        out.append((from_aligned(aligned), label, kind, seed, p_cocked(face)))
    return out


def collect_rows(patches_of: Callable[[Job], Sequence[tuple[Any, ...]]], jobs: list[Job],
                 workers: int, progress: bool, fields: Sequence[tuple[str, type]]
                 ) -> dict[str, np.ndarray]:
    """Every job's rows (``patches_of``: a network patch, then one value per field), in job
    order whatever the number of workers: the patches (uint8) and one array per field."""
    rows: list[tuple[Any, ...]] = []
    for part in in_workers(patches_of, jobs, workers, progress):
        rows += part
    out = {"patches": np.array([r[0] for r in rows], np.uint8).reshape(
        -1, PATCH_PX, PATCH_PX, 3)}
    for k, (name, dtype) in enumerate(fields, start=1):
        out[name] = np.array([r[k] for r in rows], dtype)
    return out


def collect(jobs: list[Job], workers: int, progress: bool = True) -> dict[str, np.ndarray]:
    """Every job's dice (:func:`_patches_of`), in job order whatever the number of workers."""
    return collect_rows(_patches_of, jobs, workers, progress,
                        [("labels", np.int64), ("kinds", np.int64), ("seeds", np.int64),
                         ("p_profiles", np.float64)])


def symmetry(x: np.ndarray, t: int) -> np.ndarray:
    """One of the square's eight symmetries (``t`` 0..7) of N x H x W x C patches."""
    if t & 4:
        x = x[:, :, ::-1]
    out: np.ndarray = np.ascontiguousarray(np.rot90(x, t & 3, axes=(1, 2)))
    return out


def backward(weights: Weights, trace: Trace, g: np.ndarray) -> Weights:
    """The gradients of the loss for every weight array, ``g`` being d loss / d logit (N,; N x K
    for a head of K outputs)."""
    top = 2 * len(LAYERS)
    grads: Weights = [np.empty(0)] * len(weights)
    g2 = g.reshape(len(g), -1)
    w_out = weights[top + 2]
    grads[top + 2] = (trace.hidden.T @ g2).reshape(w_out.shape)
    grads[top + 3] = g2.sum(axis=0).reshape(weights[top + 3].shape).astype(np.float32)
    gh = (g2 @ w_out.reshape(HIDDEN, -1).T) * (1 - trace.hidden ** 2)
    grads[top] = trace.flat.T @ gh
    grads[top + 1] = gh.sum(axis=0)
    n = len(g)
    ga = (gh @ weights[top].T).reshape(n, FEATURE_SIDE, FEATURE_SIDE, LAYERS[-1][2])
    for i in range(len(LAYERS) - 1, -1, -1):
        k, cin, cout = LAYERS[i]
        rows, shape, z = trace.convs[i]
        gz = ga.reshape(-1, cout) * (z > 0)
        grads[2 * i] = rows.T @ gz
        grads[2 * i + 1] = gz.sum(axis=0)
        if i == 0:
            break
        _, h, w, _ = shape
        ho, wo = (h + 1) // 2, (w + 1) // 2
        g_rows = (gz @ weights[2 * i].T).reshape(n, ho, wo, k, k, cin)
        pad = k // 2
        gp = np.zeros((n, h + 2 * pad, w + 2 * pad, cin), np.float32)
        for di in range(k):  # each kernel place's share back where it read
            for dj in range(k):
                gp[:, di:di + 2 * ho:2, dj:dj + 2 * wo:2, :] += g_rows[:, :, :, di, dj, :]
        ga = gp[:, pad:pad + h, pad:pad + w, :]
    return grads


def initial_weights(rng: np.random.Generator, outputs: int = 1) -> Weights:
    """He-scaled kernels, Glorot-scaled dense layers (the weights: even places of
    ``shapes(outputs)``), zero biases (the odd places)."""
    out: Weights = []
    for i, shape in enumerate(shapes(outputs)):
        if i % 2:
            out.append(np.zeros(shape, np.float32))
            continue
        gain = 2.0 if i < 2 * len(LAYERS) else 1.0
        out.append(rng.normal(0, np.sqrt(gain / shape[0]), shape).astype(np.float32))
    return out


LossAndGrad = Callable[[np.ndarray, np.ndarray, int], tuple[float, np.ndarray]]


def descend(x: np.ndarray, outputs: int, loss_and_grad: LossAndGrad, epochs: int, seed: int,
            log: Callable[[str], None] | None = None, start: Weights | None = None,
            first_step: float = STEP) -> Weights:
    """A network of ``outputs`` logits fitted on normalised patches ``x`` by Adam: each batch
    turned or mirrored by one of the eight symmetries, ``loss_and_grad(logits, rows, t)`` giving
    the batch's summed loss and d loss / d logits (``t``: the batch's symmetry, see
    :func:`symmetry`, for targets that turn with it); the step (``first_step``) halved from 60%
    of the epochs and 0.4 of that from 85%; ``start``: weights to go on from (copied)."""
    rng = np.random.default_rng(seed)
    weights = initial_weights(rng, outputs)
    if start is not None:
        weights = [w.copy() for w in start]
    m1 = [np.zeros_like(w) for w in weights]
    m2 = [np.zeros_like(w) for w in weights]
    t = 0
    for epoch in range(epochs):
        step = first_step * (0.5 if epoch >= 0.6 * epochs else 1.0) * (
            0.4 if epoch >= 0.85 * epochs else 1.0)
        order = rng.permutation(len(x))
        loss = 0.0
        for first in range(0, len(x), BATCH):  # (not ``start``: the weights gone on from)
            b = order[first:first + BATCH]
            turn = int(rng.integers(0, 8))
            xb = symmetry(x[b], turn)
            trace = Trace([], np.empty(0), np.empty(0))
            part, g = loss_and_grad(forward(weights, xb, trace), b, turn)
            loss += part
            grads = backward(weights, trace, g.astype(np.float32))
            t += 1
            adam_step(weights, [gr + L2 * w if w.ndim == 2 else gr
                                 for gr, w in zip(grads, weights, strict=True)], m1, m2, t, step)
        if log is not None:
            log(f"epoch {epoch + 1}/{epochs}: loss {loss / len(x):.4f}")
    return weights


def fit(x: np.ndarray, y: np.ndarray, epochs: int = EPOCHS, seed: int = FIT_SEED,
        log: Callable[[str], None] | None = None) -> Weights:
    """The network fitted on normalised patches ``x`` and labels ``y`` (1 cocked):
    class-balanced logistic loss."""
    yf = y.astype(np.float32)
    w_pos = len(y) / (2 * max(float(yf.sum()), 1.0))
    w_neg = len(y) / (2 * max(float((1 - yf).sum()), 1.0))

    def loss_and_grad(logit: np.ndarray, b: np.ndarray, _turn: int) -> tuple[float, np.ndarray]:
        p = 1.0 / (1.0 + np.exp(-np.clip(logit, -30, 30)))
        w = np.where(yf[b] > 0, w_pos, w_neg).astype(np.float32)
        loss = -float((w * (yf[b] * np.log(p + 1e-7)
                            + (1 - yf[b]) * np.log(1 - p + 1e-7))).sum())
        return loss, (p - yf[b]) * w / len(b)

    return descend(x, 1, loss_and_grad, epochs, seed, log)


def logits(weights: Weights, x: np.ndarray) -> np.ndarray:
    """The network's logits for normalised patches, 256 at a time."""
    return np.concatenate([forward(weights, x[s:s + 256]) for s in range(0, len(x), 256)])


def choose_bar(joint: np.ndarray, p_profiles: np.ndarray, cocked: np.ndarray,
               kinds: np.ndarray, threshold: float) -> float:
    """The lowest joint bar at which the flat dice called cocked (the profile model above its
    ``threshold``, or the joint logit at or above the bar) stay within
    ``MAX_FLAT_CALLED_COCKED`` of all flat dice, and those the bar adds within
    ``MAX_FLAT_CALLED_COCKED_EACH`` of each kind's (the profile model alone already calls
    more than that of the flat dice against the rail alone)."""
    flat = cocked == 0
    already = p_profiles >= threshold
    for bar in np.sort(np.unique(joint[flat]))[::-1]:
        added = flat & ~already & (joint >= np.nextafter(bar, -np.inf))
        if (added | (flat & already)).sum() > MAX_FLAT_CALLED_COCKED * flat.sum() or any(
                added[kinds == k].sum() > MAX_FLAT_CALLED_COCKED_EACH * flat[kinds == k].sum()
                for k in np.unique(kinds)):
            return float(np.nextafter(bar, np.inf))
    return float(np.min(joint) - 1.0)


def figures(joint: np.ndarray, p_profiles: np.ndarray, cocked: np.ndarray, bar: float,
            threshold: float) -> dict[str, float]:
    """Cocked dice caught and flat dice called cocked, by the profile model alone and with
    the patch network."""
    alone = p_profiles >= threshold
    both = alone | (joint >= bar)
    c, f = cocked == 1, cocked == 0

    def share(called: np.ndarray, of: np.ndarray) -> float:
        return float(called[of].mean()) if of.any() else 0.0

    return {"cocked_caught_alone": share(alone, c), "cocked_caught": share(both, c),
            "flat_called_cocked_alone": share(alone, f), "flat_called_cocked": share(both, f),
            "cocked": int(c.sum()), "flat": int(f.sum())}


def veto_lines(z: np.ndarray, p_profiles: np.ndarray, cocked: np.ndarray, threshold: float
               ) -> list[str]:
    """For the check dice the profile model calls cocked: the lowest network logit of a cocked
    one, and for each veto bar (``vision.dice.board.PATCH_VETO``, steps of 0.5 from -6 to -2)
    how many flat ones it would read flat and how many cocked ones with them."""
    called = p_profiles >= threshold
    flat, real = called & (cocked == 0), called & (cocked == 1)
    lowest = float(z[real].min()) if real.any() else math.inf
    lines = [f"veto: of {int(called.sum())} check dice the profile model calls cocked "
             f"({int(flat.sum())} flat), the lowest logit of a cocked one is {lowest:.2f}"]
    for bar in np.arange(-6.0, -1.99, 0.5):
        lines.append(f"veto {bar:+.1f}: flat read flat {int((flat & (z < bar)).sum())}/"
                     f"{int(flat.sum())}, cocked read flat {int((real & (z < bar)).sum())}/"
                     f"{int(real.sum())}")
    return lines


def cached_rows(name: str, jobs: list[Job], cache: Path | None, workers: int,
                collector: Callable[[list[Job], int], dict[str, np.ndarray]] | None = None
                ) -> dict[str, np.ndarray]:
    """The rows ``collector`` (:func:`collect` by default) gathers from ``jobs``, loaded from
    ``cache / name.npz`` when it is there and saved there when a cache is given."""
    path = None if cache is None else cache / f"{name}.npz"
    if path is not None and path.exists():
        with np.load(path) as data:
            return {k: data[k] for k in data.files}
    rows = (collector or collect)(jobs, workers)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, Any] = dict(rows)
        np.savez_compressed(path, **arrays)
    return rows


def _counts(text: str) -> tuple[int, ...]:
    try:
        counts = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not comma-separated throw counts: {text!r}") from None
    if len(counts) != 7 or min(counts) < 0:
        raise argparse.ArgumentTypeError(f"seven throw counts of 0 or more, not {text!r}")
    return counts


def fitting_parser(doc: str | None, out: Path) -> argparse.ArgumentParser:
    """The command line a network's fitting takes: throw counts (``--train``, ``--check``),
    ``--epochs``, ``--workers``, ``--cache`` and ``--out`` (default ``out``)."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument("--train", type=_counts, default=TRAIN_COUNTS)
    parser.add_argument("--check", type=_counts, default=CHECK_COUNTS)
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--workers", type=int, default=max(1, multiprocessing.cpu_count()))
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=out)
    return parser


def check_jobs(counts: tuple[int, ...]) -> list[Job]:
    """The check throws: the training kinds' seeds :data:`CHECK_OFFSET` up."""
    return [(k, s + CHECK_OFFSET) for k, s in plan(counts)]


def main(argv: list[str] | None = None) -> int:
    parser = fitting_parser(__doc__, PATCH_MODEL)
    args = parser.parse_args(argv)
    t0 = time.time()
    train = cached_rows("train", list(plan(args.train)), args.cache, args.workers)
    check = cached_rows("check", check_jobs(args.check), args.cache, args.workers)
    dice = check["labels"] > 0  # the bar is a matter of the dice read flat
    if not (check["labels"] == 1).any():
        parser.error("the check throws hold no flat die: the bar needs some (more --check)")
    print(f"{len(train['labels'])} training faces ({int((train['labels'] == 2).sum())} cocked "
          f"dice, {int((train['labels'] == 0).sum())} board texture), {int(dice.sum())} check "
          f"dice; {time.time() - t0:.0f} s", file=sys.stderr)
    weights = fit(normalise(train["patches"]), (train["labels"] == 2).astype(np.int64),
                  args.epochs, log=lambda line: print(line, file=sys.stderr, flush=True))
    threshold = cocked_threshold()
    cocked = (check["labels"][dice] == 2).astype(np.int64)
    p = check["p_profiles"][dice]
    z_dice = logits(weights, normalise(check["patches"][dice]))
    joint = np.array([joint_logit(float(q), float(z)) for q, z in zip(p, z_dice, strict=True)])
    bar = choose_bar(joint, p, cocked, check["kinds"][dice], threshold)
    shown = figures(joint, p, cocked, bar, threshold)
    texture = ~dice
    z_texture = logits(weights, normalise(check["patches"][texture]))
    p_texture = check["p_profiles"][texture]
    alone = p_texture >= threshold
    lifted = np.array([joint_logit(float(q), float(z)) >= bar
                       for q, z in zip(p_texture, z_texture, strict=True)], bool)
    shown.update(texture=int(texture.sum()), texture_called_cocked_alone=int(alone.sum()),
                 texture_called_cocked=int((alone | lifted).sum()))
    arrays: dict[str, Any] = {f"w{i}": w for i, w in enumerate(weights)}
    np.savez(args.out, bar=np.float64(bar), figures=np.str_(json.dumps(shown)), **arrays)
    print(f"wrote {args.out}: bar {bar:.3f}; check throws {json.dumps(shown)}; "
          f"{time.time() - t0:.0f} s", file=sys.stderr)
    print("\n".join(veto_lines(z_dice, p, cocked, threshold)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
