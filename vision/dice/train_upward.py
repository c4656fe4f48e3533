"""Fit the upward-face network of ``vision.dice.upward_net`` and choose its bar (BG-ROLL-2).

``python -m vision.dice.train_upward [--train N,M,T,L,W,R,F] [--check N,M,T,L,W,R,F]
[--epochs E] [--workers P] [--cache DIR]`` renders the cocked model's training throws (the
patch network's counts and seeds, ``vision.dice.train_patch``), keeps the face-aligned patch
of every face found within 6 mm of a die (``find_faces`` with every candidate: a cocked die is
often found on its side face or across two faces, and the network must name the upward face
from any of them) with the die's upward pips, whether it lies flat and the profile model's
cocked probability, and fits the network's six logits: softmax cross-entropy, the cocked dice
weighted :data:`COCKED_WEIGHT` times a flat one's (the network is asked about dice read
cocked), Adam, each batch turned or mirrored by one of the square's eight symmetries (a face's
pips count the same), weights and batches drawn from :data:`FIT_SEED`. The bar is chosen on
check throws :data:`~vision.dice.train_patch.CHECK_OFFSET` above the training's seeds, among
the faces the profile model calls cocked (:func:`choose_bar`). Writes ``upward_model.npz``
(weights ``w0``.., ``bar``, the check figures) and prints the check table. ``--cache`` keeps
the rendered patches (``train.npz``, ``check.npz``) and loads them when present.

The shipped model: the defaults (8,700 training throws, 2,175 check throws, 20 epochs): about
17 minutes of rendering and reading with 2 workers on the 2-core machine and 3 of fitting, on
16,799 faces (6,285 of cocked dice). Of the 1,496 check faces the profile model calls cocked
the grid read names 1,477 right and the network 1,487; where they differ the network is
taken at its lowest probability there (bar 0.466): 11 faces won, 1 lost. On the 2,637 check
faces of flat dice the network names 2,636 right and the grid 2,635, but the reader does not
ask it about dice read flat, the faces the referee plays (its reading there is the grid's,
checked on far more throws).
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from vision.dice.board import find_faces
from vision.dice.face_fit import ALIGNED_MM, ALIGNED_PX_PER_MM, warp_patch
from vision.dice.patch_net import Weights, from_aligned, normalise
from vision.dice.pose import cocked_threshold, p_cocked
from vision.dice.reading import image_to_mm
from vision.dice.train_cocked import plan, training_scene
from vision.dice.train_patch import (
    Job,
    cached_rows,
    check_jobs,
    collect_rows,
    descend,
    fitting_parser,
    logits,
)
from vision.dice.upward_net import FACES, UPWARD_MODEL, probabilities

FIT_SEED = 23
EPOCHS = 20
COCKED_WEIGHT = 3.0
REACH_MM = 6.0  # a face this near a die's centre is that die's
# the bar may cost at most this share of the dice the reader's own face read gets right
MAX_LOST = 0.002
Row = tuple[np.ndarray, int, int, int, int, int, float]


def _patches_of(job: Job) -> list[Row]:
    """One throw's faces near a die: (network patch, the die's upward pips, flat (1) or
    cocked (0), the face read's pips, kind, seed, profile model's cocked probability)."""
    kind, seed = job
    scene = training_scene(kind, seed)
    to_mm = image_to_mm(scene.corners, scene.geometry)
    from_mm = np.linalg.inv(to_mm)
    out: list[Row] = []
    for face in find_faces(scene.image, to_mm, scene.geometry, all_candidates=True,
                           spots=False):
        near = [d for d in scene.dice
                if math.hypot(d.x_mm - face.x_mm, d.y_mm - face.y_mm) < REACH_MM]
        if not near:
            continue
        aligned = warp_patch(scene.image, from_mm, face.x_mm, face.y_mm, ALIGNED_MM,
                             ALIGNED_PX_PER_MM, face.angle)
        out.append((from_aligned(aligned), near[0].pips, int(near[0].flat), face.pips, kind,
                    seed, p_cocked(face)))
    return out


def collect(jobs: list[Job], workers: int, progress: bool = True) -> dict[str, np.ndarray]:
    """Every job's faces near a die (:func:`_patches_of`), in job order."""
    return collect_rows(_patches_of, jobs, workers, progress,
                        [("pips", np.int64), ("flat", np.int64), ("read", np.int64),
                         ("kinds", np.int64), ("seeds", np.int64), ("p_profiles", np.float64)])


def fit(x: np.ndarray, pips: np.ndarray, weight: np.ndarray, epochs: int = EPOCHS,
        seed: int = FIT_SEED, log: Callable[[str], None] | None = None) -> Weights:
    """The network fitted on normalised patches ``x``, their upward pips (1..6) and each
    row's weight in the loss: weighted softmax cross-entropy."""
    onehot = np.eye(FACES, dtype=np.float32)[pips - 1]
    wn = (weight / weight.mean()).astype(np.float32)

    def loss_and_grad(logits: np.ndarray, b: np.ndarray, _turn: int) -> tuple[float, np.ndarray]:
        p = probabilities(logits)
        loss = -float((wn[b] * np.log((p * onehot[b]).sum(axis=1) + 1e-7)).sum())
        return loss, (p - onehot[b]) * wn[b, None] / len(b)

    return descend(x, FACES, loss_and_grad, epochs, seed, log)


def predict(weights: Weights, x: np.ndarray) -> np.ndarray:
    """The network's face probabilities (N x 6) for normalised patches, 256 at a time."""
    return probabilities(logits(weights, x))


def choose_bar(prob: np.ndarray, pips: np.ndarray, read: np.ndarray) -> float:
    """The lowest bar on the network's top probability at which taking its face instead of
    the face read's (where the two differ) loses at most :data:`MAX_LOST` of the faces the
    read had right; the check faces are those the profile model calls cocked."""
    best = prob.argmax(axis=1) + 1
    top = prob.max(axis=1)
    differ = best != read
    right = int((read == pips).sum())
    for bar in np.sort(np.unique(top[differ])):
        lost = int((differ & (top >= bar) & (read == pips)).sum())
        if lost <= MAX_LOST * right:
            return float(bar)
    return 1.0


def figures(prob: np.ndarray, pips: np.ndarray, read: np.ndarray, bar: float
            ) -> dict[str, int]:
    """Faces read right by the face read alone, by the network alone and with the network
    taken over its bar; how many faces the bar changes, won and lost."""
    best = prob.argmax(axis=1) + 1
    take = (best != read) & (prob.max(axis=1) >= bar)
    chosen = np.where(take, best, read)
    return {"faces": len(pips), "read_right": int((read == pips).sum()),
            "network_right": int((best == pips).sum()),
            "with_network_right": int((chosen == pips).sum()), "changed": int(take.sum()),
            "won": int((take & (best == pips)).sum()),
            "lost": int((take & (read == pips)).sum())}


def main(argv: list[str] | None = None) -> int:
    parser = fitting_parser(__doc__, UPWARD_MODEL)
    args = parser.parse_args(argv)
    t0 = time.time()
    train = cached_rows("train", list(plan(args.train)), args.cache, args.workers, collect)
    check = cached_rows("check", check_jobs(args.check), args.cache, args.workers, collect)
    if not len(check["pips"]):
        parser.error("the check throws hold no die: the bar needs some (more --check)")
    cocked = train["flat"] == 0
    print(f"{len(train['pips'])} training faces near a die ({int(cocked.sum())} of cocked "
          f"dice), {len(check['pips'])} check faces; {time.time() - t0:.0f} s",
          file=sys.stderr)
    weights = fit(normalise(train["patches"]), train["pips"],
                  np.where(cocked, COCKED_WEIGHT, 1.0), args.epochs,
                  log=lambda line: print(line, file=sys.stderr, flush=True))
    prob = predict(weights, normalise(check["patches"]))
    called = check["p_profiles"] >= cocked_threshold()
    bar = choose_bar(prob[called], check["pips"][called], check["read"][called])
    shown = {name: figures(prob[rows], check["pips"][rows], check["read"][rows], bar)
             for name, rows in (("called_cocked", called), ("cocked", check["flat"] == 0),
                                ("flat", check["flat"] == 1))}
    arrays: dict[str, Any] = {f"w{i}": w for i, w in enumerate(weights)}
    np.savez(args.out, bar=np.float64(bar), figures=np.str_(json.dumps(shown)), **arrays)
    print(f"wrote {args.out}: bar {bar:.3f}; {time.time() - t0:.0f} s", file=sys.stderr)
    for name, f in shown.items():
        print(f"check faces {name}: {json.dumps(f)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
