"""Fit the two small models of ``vision.dice.board`` on synthetic throws.

``python -m vision.dice.train_cocked [N [M [T [L [W [R [F]]]]]]] [--keep-die] [--raster]
[--copies K] [--cache F.npz ...] [--workers P]`` renders N random throws (``vision.dice.synth``,
seeds from 1,000,000 up, disjoint from the evaluation's seeds), M throws with a die beside a
checker (``vision.dice.leaning``: cocked against it or flat close to it, seeds from 2,000,000 up),
T throws as a table camera sees them (``leaning.table_throw_scene``: mostly the tournament's dice
leaning straight on a checker or the rail, as the demo plants cocked throws; seeds from 3,000,000
up) and L throws of each of two kinds that hold the dice most often called flat: a die tilted only
12 to 24 degrees beside a checker or the rail, two of three translucent (seeds from 4,000,000 up),
and random throws of translucent dice (seeds from 4,500,000 up), W throws as the first of those
two kinds with white opaque dice only (seeds from 4,700,000 up), R throws with a die against the
rail alone or flat beside it, half of them tilted only 12 to 24 degrees (seeds from 4,800,000 up:
most cocked dice the evaluation read flat lean on the rail at such tilts), and F throws as the
table camera sees them with a one, two or three leaning on a checker above it, square to the
picture (``leaning.facing_lean_scene``, seeds from 4,900,000 up: the referee's draws missed two
such dice); finds every face candidate, and fits two small networks (one hidden layer, numpy):
*die* (a real die rather than board texture, on ``pose.detection_features``) and *cocked* (a side
face shows: one network scores each edge's profiles, ``vision.dice.side_faces``, with the die
model's pose features, ``pose.cocked_inputs``, and the four scores are pooled; it is also fitted
on K copies of each die's pose features, :data:`JITTER_COPIES` unless ``--copies`` says, with the
patch moved up to :data:`JITTER_PX` pixels as if the face fit's centre were that far off, by a
generator of the throw's own seed). With ``--raster`` the cocked model also sees the faces the
reader's second chances (``board.give_second_chance``, tilted-face hypotheses) return, judged with
no cocked threshold: at read time the cocked model decides whether those are kept. Each is fitted
on 70% of the rows; the other 30% choose the threshold (the die model keeps 99% of the real dice;
the cocked model lets at most :data:`MAX_FLAT_CALLED_COCKED` of the flat dice through, and at most
:data:`MAX_FLAT_CALLED_COCKED_EACH` of each kind of throw's) and give the held-out rates written
beside the weights, in ``cocked_model.json``. ``--keep-die`` keeps the die model already there;
``--raster`` takes the candidates from the raster, as the referee does
(``board.read_board_dice``), instead of the spots (which give the die model more board texture to
learn from); ``--cache`` (repeatable) loads the rows from these files when they all exist, else
writes the rendered rows to the first; ``--workers`` processes render and read the throws (one
per core unless it says; the rows are the same whatever their number). The shipped cocked model:
``2400 1200 1200 900 600 900 600 --keep-die --raster --copies 2`` (about 20 minutes of rendering
and reading with 2 workers on the 2-core machine, and 40 of fitting; held out: cocked recall
0.957, flat called cocked 0.0077, bar 0.840; the model before it, without the last two kinds
and with the moved copies drawn from one generator for all throws: 0.959, 0.006, bar 0.805). The
reader keeps a second chance's tilted face only above :data:`SECOND_CHANCE_THRESHOLD` (written
beside the weights as ``second_threshold``), chosen on 200 dice-free demo-style boards apart from
the evaluation's (``tests.eval.cocked``'s ``phantom_boards`` from 5000 up): the phantom dice no
more than with the model before that one.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import cv2
import numpy as np

from engine.errors import InvalidInputError
from vision.dice import board, face_check, second_chance
from vision.dice.board import find_faces
from vision.dice.face_fit import ALIGNED_PX_PER_MM, FaceFinding
from vision.dice.leaning import beside_checker_scene, facing_lean_scene, table_throw_scene
from vision.dice.pose import COCKED_MODEL, cocked_inputs, detection_features
from vision.dice.reading import image_to_mm
from vision.dice.side_faces import edge_logit
from vision.dice.synth import DICE_STYLES, DiceScene, random_dice_scene

TRAIN_SEED0 = 1_000_000
BESIDE_SEED0 = 2_000_000
TABLE_SEED0 = 3_000_000
LOW_SEED0 = 4_000_000  # low tilts beside a checker or the rail
CLEAR_SEED0 = 4_500_000  # random throws of translucent dice
WHITE_SEED0 = 4_700_000  # low tilts of white opaque dice beside a checker or the rail
RAIL_SEED0 = 4_800_000  # dice against the rail alone (or flat beside it)
FACING_SEED0 = 4_900_000  # a few pips leaning on a checker above the die, square to the picture
LOW_TILT = (12.0, 24.0)  # the tilts most often called flat (side band 3 to 6 mm wide)
TRANSLUCENT = tuple(i for i, style in enumerate(DICE_STYLES) if style[0] == "translucent")
# white opaque dice (the tournament's white with red pips, ivory with black): their side face
# at a low tilt is the body's white a shade darker; 8 of the 9 cocked dice read flat on random
# throws 7000-8299 (validation seeds) were white and tilted 13 to 17 degrees
WHITE = tuple(i for i, style in enumerate(DICE_STYLES)
              if style[0] == "opaque" and min(style[1]) >= 200)
MAX_FLAT_CALLED_COCKED = 0.008  # on the held-out rows: a little room under the 1% target
# ... and of each kind of throw's flat dice at most this share: the easy table throws' flat dice
# must not buy room for the random throws' hard ones, yet a kind of a few hundred held-out flat
# dice must not set the bar on its second or third most cocked-looking die alone (the model
# with the rail and facing kinds: 0.8% of each kind gave a bar of 0.932, set by the 6th most
# cocked-looking of 528 held-out flat dice beside a checker (0.950 now that the share is
# counted exactly), and caught 196 of 205 cocked dice of tests.eval.dice's two blocks; this
# rule's 0.840, 198, with 1 of 564 flat dice called cocked)
MAX_FLAT_CALLED_COCKED_EACH = 0.015
HIDDEN, L2, EPOCHS = 32, 1e-3, 150  # the cocked network
MEMBERS = 20  # edge networks averaged
# the cocked model's bar for the reader's second chances (``pose.second_chance_threshold``): a
# second chance on board texture is a phantom die; on dice-free boards 5000-5199 this bar kept
# the phantoms at the previous model's count (13), where the reading threshold let 16 through;
# checked again with each model since (``tests.eval.cocked --phantom 200 --seed0 5000``, and
# ``--second-bar`` to try others): the one with the white low-tilt throws gave 16 (all above
# the table's camera floors), the one with moved patches 15, all kept, with the demo-style
# throws' cocked dice caught 96 of 98 (97 before); the one shipped now (rail and facing kinds)
# 15, 7 of them kept, and 192 of 194 demo-style cocked dice (``--demo 400``; 193 before)
SECOND_CHANCE_THRESHOLD = 0.985
# every die's patch is also judged with the face fit's centre moved: the model learns that a
# fit a pixel off is the same die (the model before this one went from 0.64 to 0.90 on a
# tilted die whose patch moved one pixel, 0.25 mm)
JITTER_PX = 2.0  # up to this far along each axis of the aligned patch (0.5 mm)
JITTER_COPIES = 2  # moved copies of each patch's features
JITTER_SEED = 11


J = TypeVar("J")
R = TypeVar("R")
Counts = tuple[int, ...]  # throws of each kind, in :func:`plan`'s order


def plan(counts: Counts) -> Iterator[tuple[int, int]]:
    """The training throws as (kind, seed): ``counts[k]`` throws of kind k (0 random, 1 beside
    a checker, 2 table, 3 a die tilted only 12 to 24 degrees against a checker or the rail,
    4 random throws of translucent dice, 5 as 3 with white opaque dice, 6 against the rail
    alone, 7 a few pips leaning on a checker above the die, square to the picture); kind 4
    takes kind 3's count."""
    counts = tuple(counts) + (0,) * (7 - len(counts))
    n, beside, table, low, white, rail, facing = counts[:7]
    for kind, seed0, many in ((0, TRAIN_SEED0, n), (1, BESIDE_SEED0, beside),
                              (2, TABLE_SEED0, table), (3, LOW_SEED0, low),
                              (4, CLEAR_SEED0, low), (5, WHITE_SEED0, white),
                              (6, RAIL_SEED0, rail), (7, FACING_SEED0, facing)):
        for seed in range(seed0, seed0 + many):
            yield kind, seed


def training_scene(kind: int, seed: int) -> DiceScene:
    """The training throw of ``kind`` (:func:`plan`) and ``seed``."""
    if kind == 0:
        return random_dice_scene(seed, cocked_rate=0.45, on_checker_rate=0.12)
    if kind == 1:
        return beside_checker_scene(seed, cocked=seed % 2 == 0)
    if kind == 2:
        return table_throw_scene(seed, cocked=seed % 3 != 0)
    if kind == 3:
        # two of three translucent (their side faces' pips show through the body)
        style = TRANSLUCENT[(seed // 3) % 3] if seed % 3 else (seed // 3) % len(DICE_STYLES)
        return beside_checker_scene(seed, cocked=seed % 4 != 0, tilt_range=LOW_TILT,
                                    style=style)
    if kind == 4:
        return random_dice_scene(seed, cocked_rate=0.45, on_checker_rate=0.12,
                                 style=TRANSLUCENT[seed % 3])
    if kind == 5:
        return beside_checker_scene(seed, cocked=seed % 4 != 0, tilt_range=LOW_TILT,
                                    style=WHITE[seed % len(WHITE)])
    if kind == 6:
        return beside_checker_scene(seed, cocked=seed % 4 != 0,
                                    tilt_range=LOW_TILT if seed % 2 else (12.0, 40.0), rail=True)
    if kind == 7:
        return facing_lean_scene(seed)
    raise InvalidInputError(f"training throw kind {kind} is not 0..7")


def scenes(*counts: int) -> Iterator[tuple[int, DiceScene]]:
    """The training throws, each with its kind (:func:`plan`)."""
    for kind, seed in plan(counts):
        yield kind, training_scene(kind, seed)


@contextmanager
def second_chances(kept: list[FaceFinding]) -> Iterator[None]:
    """``board.find_faces`` with its second chances (``board.give_second_chance``) judged with a
    cocked threshold (and second-chance bar) of 0 and every face they return put in ``kept``:
    the tilted-face patches the reader hands the cocked model, whatever the model now says of
    them."""
    inner = board.__dict__["give_second_chance"]
    # the bars the second chance may read (the reader's, and its own stricter one)
    bars = {(module, name): module.__dict__[name]
            for module, name in ((board, "cocked_threshold"),
                                 (second_chance, "second_chance_threshold"))
            if name in module.__dict__}

    def keep(*args: Any, **kwargs: Any) -> FaceFinding | None:
        out: FaceFinding | None = inner(*args, **kwargs)
        if out is not None:
            kept.append(out)
        return out

    setattr(board, "give_second_chance", keep)  # noqa: B010 - find_faces calls it by this name
    for module, name in bars:
        setattr(module, name, lambda: 0.0)
    try:
        yield
    finally:
        setattr(board, "give_second_chance", inner)  # noqa: B010
        for (module, name), bar in bars.items():
            setattr(module, name, bar)


def shifted(aligned: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """The aligned patch with its contents moved (dx, dy) pixels (sub-pixel, edges repeated):
    what the pose stage sees when the face fit's centre is (-dx, -dy) pixels off."""
    n = aligned.shape[0]
    move = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy]], np.float32)
    out: np.ndarray = cv2.warpAffine(aligned, move, (n, aligned.shape[1]),
                                     flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out


Moved = dict[int, tuple[np.ndarray, list[np.ndarray]]]


@contextmanager
def jittered(copies: int, rng: np.random.Generator, moved: Moved) -> Iterator[None]:
    """``face_check.pose_features`` also working out ``copies`` moved copies of each patch's
    features (:func:`shifted`, up to :data:`JITTER_PX`; the side pips found move with it, the
    layout's pips stay where the fit put them), kept in ``moved`` by the id of the features it
    returns (held there so that the id is not reused)."""
    inner = face_check.__dict__["pose_features"]

    def features(aligned: np.ndarray, die_mm: float, pip_pts: np.ndarray,
                 side_pips: np.ndarray | None = None, *,
                 aligned_gray: np.ndarray | None = None) -> np.ndarray:
        feats: np.ndarray = inner(aligned, die_mm, pip_pts, side_pips, aligned_gray=aligned_gray)
        others = []
        for _ in range(copies):
            dx, dy = rng.uniform(-JITTER_PX, JITTER_PX, 2)
            side = None if side_pips is None else side_pips + np.array(
                [dx, dy]) / ALIGNED_PX_PER_MM
            others.append(inner(shifted(aligned, dx, dy), die_mm, pip_pts, side))
        moved[id(feats)] = (feats, others)
        return feats

    setattr(face_check, "pose_features", features)  # noqa: B010 - face_finding calls it by name
    try:
        yield
    finally:
        setattr(face_check, "pose_features", inner)  # noqa: B010


def face_label(scene: DiceScene, face: FaceFinding, reach: float) -> int:
    """A face's label: 0 board texture (no die within ``reach`` mm), 1 flat die, 2 cocked."""
    truth = [d for d in scene.dice if math.hypot(d.x_mm - face.x_mm, d.y_mm - face.y_mm) < reach]
    return 0 if not truth else (1 if truth[0].flat else 2)


class Rows:
    """What training collects: per face, detection and pose features, its label (0 texture, 1
    flat die, 2 cocked die; 3 + that for a second chance) and its throw's kind
    (:func:`scenes`); and pose features of moved copies of the patches (:func:`jittered`)
    with the row each copies."""

    def __init__(self) -> None:
        self.det: list[np.ndarray] = []
        self.pose: list[np.ndarray] = []
        self.labels: list[int] = []
        self.kinds: list[int] = []
        self.moved_pose: list[np.ndarray] = []
        self.moved_source: list[int] = []

    def add(self, face: FaceFinding, label: int, kind: int, moved: Moved) -> None:
        """One face's row, and its moved copies' rows when there are any."""
        for copy in moved.get(id(face.features), (face.features, []))[1]:
            self.moved_pose.append(copy)
            self.moved_source.append(len(self.labels))
        self.det.append(detection_features(face))
        self.pose.append(face.features)
        self.labels.append(label)
        self.kinds.append(kind)

    def extend(self, other: Rows) -> None:
        """``other``'s rows after these (its copies pointing at its rows' new places)."""
        before = len(self.labels)
        self.det += other.det
        self.pose += other.pose
        self.labels += other.labels
        self.kinds += other.kinds
        self.moved_pose += other.moved_pose
        self.moved_source += [before + i for i in other.moved_source]

    def arrays(self) -> dict[str, np.ndarray]:
        """The rows as arrays, by the names the cache files hold."""
        width = len(self.pose[0]) if self.pose else 0
        return {"det": np.array(self.det), "pose": np.array(self.pose),
                "labels": np.array(self.labels, int), "kinds": np.array(self.kinds, int),
                "moved_pose": np.array(self.moved_pose).reshape(-1, width),
                "moved_source": np.array(self.moved_source, int)}


def _rows_of(job: tuple[int, int, bool, int]) -> Rows:
    """One training throw's rows (``job``: kind, seed, spots, copies; see :func:`collect`),
    its patches moved by a generator of its own seed: the rows do not depend on which
    process renders which throw, or in which order."""
    kind, seed, spots, copies = job
    rows = Rows()
    rng = np.random.default_rng((JITTER_SEED, seed))
    scene = training_scene(kind, seed)
    to_mm = image_to_mm(scene.corners, scene.geometry)
    moved: Moved = {}
    # the spot candidates: many more board-texture places than the raster's few
    with jittered(copies, rng, moved):
        faces = find_faces(scene.image, to_mm, scene.geometry, all_candidates=True,
                           spots=spots)
    for face in faces:
        rows.add(face, face_label(scene, face, 6.0), kind, moved)
    if spots:
        return rows
    kept: list[FaceFinding] = []
    with second_chances(kept), jittered(copies, rng, moved):
        find_faces(scene.image, to_mm, scene.geometry, spots=False)
    for face in kept:
        rows.add(face, 3 + face_label(scene, face, 8.0), kind, moved)
    return rows


def collect(*counts: int, spots: bool = True, copies: int = 0, workers: int = 1,
            progress: bool = False) -> dict[str, np.ndarray]:
    """Every face candidate's usual read of the training throws (``counts`` of each kind,
    :func:`plan`), then (raster candidates only) the reader's second chances (label 3 + the
    die's label: kept apart so that the die model never sees them); ``copies`` moved copies
    of each patch (:class:`Rows`). ``workers`` processes render and read the throws (the same
    rows whatever their number); ``progress``: a line on stderr every 100 throws."""
    jobs = [(kind, seed, spots, copies) for kind, seed in plan(counts)]
    rows = Rows()
    for part in in_workers(_rows_of, jobs, workers, progress):
        rows.extend(part)
    return rows.arrays()


def in_workers(work: Callable[[J], R], jobs: Sequence[J], workers: int, progress: bool = False
               ) -> Iterator[R]:
    """``work`` of every job, in job order, from ``workers`` forked processes (1: this one);
    ``progress``: a line on stderr every 100 jobs."""
    pool = multiprocessing.get_context("fork").Pool(workers) if workers > 1 else None
    try:
        parts = pool.imap(work, jobs, chunksize=4) if pool else map(work, jobs)
        for done, part in enumerate(parts, 1):
            yield part
            if progress and (done % 100 == 0 or done == len(jobs)):
                print(f"rendered and read {done}/{len(jobs)} throws", file=sys.stderr,
                      flush=True)
    finally:
        if pool is not None:
            pool.terminate()


Params = list[np.ndarray]


def _start(rng: np.random.Generator, inputs: int, hidden: int, y: np.ndarray
           ) -> tuple[Params, Params, Params, np.ndarray]:
    """A one-hidden-layer network's first weights (w1, b1, w2, b2), Adam's two moments (zero)
    and each row's class-balancing weight."""
    params = [rng.normal(0, 1 / np.sqrt(inputs), (inputs, hidden)), np.zeros(hidden),
              rng.normal(0, 1 / np.sqrt(hidden), hidden), np.zeros(1)]
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    weight = np.where(y > 0, len(y) / (2 * max(y.sum(), 1)), len(y) / (2 * max((1 - y).sum(), 1)))
    return params, m1, m2, weight


def adam_step(params: Params, grads: Params, m1: Params, m2: Params, t: int,
               step: float = 0.01) -> None:
    """One Adam update (``step``, betas 0.9 and 0.999) of ``params`` in place."""
    for i, gr in enumerate(grads):
        m1[i] = 0.9 * m1[i] + 0.1 * gr
        m2[i] = 0.999 * m2[i] + 0.001 * gr ** 2
        params[i] -= step * (m1[i] / (1 - 0.9 ** t)) / (np.sqrt(m2[i] / (1 - 0.999 ** t)) + 1e-8)


def fit_mlp(x: np.ndarray, y: np.ndarray, *, hidden: int, l2: float, epochs: int,
            seed: int = 0) -> dict[str, object]:
    """A one-hidden-layer network (tanh, logistic output), class-balanced, trained by Adam."""
    rng = np.random.default_rng(seed)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = (x - mean) / scale
    params, m1, m2, weight = _start(rng, z.shape[-1], hidden, y)
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
            adam_step(params, grads, m1, m2, t)
    return {"mean": mean.tolist(), "scale": scale.tolist(), "w1": params[0].tolist(),
            "b1": params[1].tolist(), "w2": params[2].tolist(), "b2": float(params[3][0])}


def fit_edges(x: np.ndarray, y: np.ndarray, *, hidden: int, l2: float, epochs: int,
              seed: int = 0) -> dict[str, object]:
    """The cocked network: ``x`` holds four rows per die (one per edge,
    ``side_faces.side_inputs``); one hidden layer (tanh) scores each edge, the die's logit is
    the scores' log-sum-exp (a side face shows beyond some edge); class-balanced, Adam."""
    rng = np.random.default_rng(seed)
    flat_rows = x.reshape(-1, x.shape[2])
    mean, scale = flat_rows.mean(axis=0), flat_rows.std(axis=0) + 1e-9
    z = (x - mean) / scale
    params, m1, m2, weight = _start(rng, z.shape[-1], hidden, y)
    t = 0
    for _ in range(epochs):
        order = rng.permutation(len(y))
        for start in range(0, len(y), 128):
            b = order[start:start + 128]
            t += 1
            h = np.tanh(z[b] @ params[0] + params[1])  # dice x 4 x hidden
            s = h @ params[2] + params[3][0]  # dice x 4
            top = s.max(axis=1, keepdims=True)
            e = np.exp(s - top)
            soft = e / e.sum(axis=1, keepdims=True)
            logit = top[:, 0] + np.log(e.sum(axis=1))
            p = 1 / (1 + np.exp(-np.clip(logit, -40, 40)))
            g = ((p - y[b]) * weight[b] / len(b))[:, None] * soft  # d loss / d edge score
            gh = g[:, :, None] * params[2] * (1 - h ** 2)
            grads = [np.einsum("nkd,nkh->dh", z[b], gh) + l2 * params[0], gh.sum(axis=(0, 1)),
                     np.einsum("nk,nkh->h", g, h) + l2 * params[2], np.array([g.sum()])]
            adam_step(params, grads, m1, m2, t)
    return {"kind": "edges", "mean": mean.tolist(), "scale": scale.tolist(),
            "w1": params[0].tolist(), "b1": params[1].tolist(), "w2": params[2].tolist(),
            "b2": float(params[3][0])}


def fit_edges_ensemble(x: np.ndarray, y: np.ndarray, *, hidden: int, l2: float, epochs: int
                       ) -> dict[str, object]:
    """:data:`MEMBERS` edge networks from different starting weights, stacked (their pooled
    logits are averaged: steadier than any one of them on so few cocked dice)."""
    members = [fit_edges(x, y, hidden=hidden, l2=l2, epochs=epochs, seed=s)
               for s in range(MEMBERS)]
    out = dict(members[0])
    for key in ("w1", "b1", "w2", "b2"):
        out[key] = [m[key] for m in members]
    return out


def predict_edges(model: dict[str, object], x: np.ndarray) -> np.ndarray:
    """The cocked network's probabilities for dice (four edge rows each) in ``x``."""
    arrays = {k: np.asarray(model[k], np.float64) for k in ("mean", "scale", "w1", "b1", "w2",
                                                           "b2")}
    logit = np.array([edge_logit(arrays, rows) for rows in x])
    out: np.ndarray = 1 / (1 + np.exp(-np.clip(logit, -40, 40)))
    return out


def edge_rows(pose: np.ndarray) -> np.ndarray:
    """Pose feature rows to the cocked network's input (``pose.cocked_inputs``): dice x 4
    edges x inputs."""
    return np.array([cocked_inputs(row) for row in pose])


def predict(model: dict[str, object], x: np.ndarray) -> np.ndarray:
    """The network's probabilities for rows of ``x``."""
    z = (x - np.array(model["mean"])) / np.array(model["scale"])
    h = np.tanh(z @ np.array(model["w1"]) + np.array(model["b1"]))
    out: np.ndarray = 1 / (1 + np.exp(-np.clip(h @ np.array(model["w2"]) + float(
        model["b2"]), -40, 40)))  # type: ignore[arg-type]
    return out


def fit_with_threshold(x: np.ndarray, y: np.ndarray, *, hidden: int, l2: float, epochs: int,
                       keep_positive: float | None = None, max_false: float | None = None,
                       max_false_each: float | None = None,
                       edges: bool = False, groups: np.ndarray | None = None,
                       extra: tuple[np.ndarray, np.ndarray] | None = None
                       ) -> dict[str, object]:
    """Fit on 70% of the rows; on the other 30% choose the threshold that keeps
    ``keep_positive`` of the positives or lets at most ``max_false`` of the negatives through
    and at most ``max_false_each`` of each of ``groups``' negatives (:func:`false_bar`), and
    record the held-out rates. ``edges``: the pooled edge
    network (:func:`fit_edges`). ``extra``: more rows and the row of ``x`` each copies (moved
    patches, :func:`jittered`), fitted on with the rows they copy and never held out."""
    rng = np.random.default_rng(7)
    order = rng.permutation(len(y))
    cut = int(0.7 * len(y))
    fit_rows, held = order[:cut], order[cut:]
    fit = fit_edges_ensemble if edges else fit_mlp
    fit_x, fit_y = x[fit_rows], y[fit_rows]
    if extra is not None:
        copies = np.isin(extra[1], fit_rows)
        fit_x = np.concatenate([fit_x, extra[0][copies]])
        fit_y = np.concatenate([fit_y, y[extra[1][copies]]])
    model = fit(fit_x, fit_y, hidden=hidden, l2=l2, epochs=epochs)
    p = (predict_edges if edges else predict)(model, x[held])
    pos, neg = np.sort(p[y[held] == 1]), np.sort(p[y[held] == 0])
    threshold = 0.5
    if keep_positive is not None and len(pos):
        threshold = float(pos[int((1.0 - keep_positive) * (len(pos) - 1))])
    if max_false is not None and len(neg):
        kinds = np.zeros(len(y), int) if groups is None else groups
        threshold = false_bar(p, y[held] == 0, kinds[held], max_false, max_false_each)
    model["threshold"] = threshold
    model["held_out_true_positive"] = float((pos >= threshold).mean()) if len(pos) else 0.0
    model["held_out_false_positive"] = float((neg >= threshold).mean()) if len(neg) else 0.0
    model["rows"] = len(y)
    model["moved_rows"] = 0 if extra is None else len(extra[1])
    return model


def false_bar(p: np.ndarray, negative: np.ndarray, kinds: np.ndarray, pooled: float,
              each: float | None = None) -> float:
    """The lowest bar on ``p`` that lets at most ``pooled`` of the ``negative`` rows through,
    and at most ``each`` (else ``pooled``) of each kind's."""

    def bar(q: np.ndarray, share: float) -> float:
        q = np.sort(q)
        allowed = min(int(share * len(q)), len(q) - 1)  # rows that may lie above the bar
        return float(q[len(q) - 1 - allowed]) + 1e-6

    per_kind = [bar(p[negative & (kinds == k)], pooled if each is None else each)
                for k in np.unique(kinds[negative])]
    return max([bar(p[negative], pooled), *per_kind])


def _load(caches: list[Path]) -> dict[str, np.ndarray]:
    """The rows of several cache files, one after the other (a cache of one kind of throw
    written without its kinds: one group per cache; one written without moved copies: none)."""
    parts = [np.load(c) for c in caches]
    out = {k: np.concatenate([d[k] for d in parts]) for k in ("det", "pose", "labels")}
    out["kinds"] = np.concatenate([d["kinds"] if "kinds" in d.files else np.full(
        len(d["labels"]), i) for i, d in enumerate(parts)])
    width = out["pose"].shape[1]
    moved, source, before = [], [], 0
    for d in parts:
        if "moved_pose" in d.files:
            moved.append(d["moved_pose"].reshape(-1, width))
            source.append(d["moved_source"] + before)
        before += len(d["labels"])
    out["moved_pose"] = np.concatenate(moved) if moved else np.zeros((0, width))
    out["moved_source"] = np.concatenate(source).astype(int) if source else np.zeros(0, int)
    return out


def main(argv: list[str]) -> int:
    """Render (or load the caches), fit, write the model file."""
    parser = argparse.ArgumentParser(prog="python -m vision.dice.train_cocked",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("counts", type=int, nargs="*", default=[600, 600],
                        help="throws of each kind: random, beside, table, low, white, rail, "
                             "facing (default 600 600)")
    parser.add_argument("--keep-die", action="store_true", help="keep the die model there")
    parser.add_argument("--raster", action="store_true", help="the raster's candidates")
    parser.add_argument("--copies", type=int, default=JITTER_COPIES,
                        help="moved copies of each patch")
    parser.add_argument("--cache", type=Path, action="append", default=[],
                        help="rows from these files when all exist, else written to the first")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="processes rendering the throws (default: one per core)")
    args = parser.parse_args(argv)
    if any(c < 0 for c in args.counts) or len(args.counts) > 7:
        parser.error(f"counts {args.counts}: at most 7, none negative")
    caches: list[Path] = args.cache
    if caches and all(c.exists() for c in caches):
        rows = _load(caches)
    else:
        rows = collect(*args.counts, spots=not args.raster, copies=args.copies,
                       workers=max(1, args.workers), progress=True)
        if caches:
            np.savez(caches[0], **rows)  # type: ignore[arg-type]
    det, pose, labels, kinds = (rows[k] for k in ("det", "pose", "labels", "kinds"))
    usual = labels < 3  # the second chances' rows (3 + label) are for the cocked model only
    if args.keep_die:
        die = json.loads(COCKED_MODEL.read_text())["die"]
    else:
        die = fit_with_threshold(det[usual], (labels[usual] > 0).astype(float), hidden=32,
                                 l2=1e-3, epochs=300, keep_positive=0.99)
    real = labels % 3 > 0
    # the moved copies of real dice, pointing at their rows among the real dice
    among_real = np.cumsum(real) - 1
    of_real = real[rows["moved_source"]]
    extra = (edge_rows(rows["moved_pose"][of_real]), among_real[rows["moved_source"][of_real]])
    cocked = fit_with_threshold(edge_rows(pose[real]), (labels[real] % 3 == 2).astype(float),
                                hidden=HIDDEN, l2=L2, epochs=EPOCHS,
                                max_false=MAX_FLAT_CALLED_COCKED,
                                max_false_each=MAX_FLAT_CALLED_COCKED_EACH, edges=True,
                                groups=kinds[real], extra=extra)
    threshold = cocked["threshold"]
    assert isinstance(threshold, float)
    cocked["second_threshold"] = max(SECOND_CHANCE_THRESHOLD, threshold)
    COCKED_MODEL.write_text(json.dumps({"die": die, "cocked": cocked}) + "\n")
    print(f"wrote {COCKED_MODEL}: {int(real.sum())} dice ({int((real & ~usual).sum())} from "
          f"second chances), {int((labels % 3 == 0).sum())} textures; held out: die model "
          f"keeps {die['held_out_true_positive']:.3f} of dice, lets through "
          f"{die['held_out_false_positive']:.3f} of textures; cocked recall "
          f"{cocked['held_out_true_positive']:.3f}, flat called cocked "
          f"{cocked['held_out_false_positive']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
