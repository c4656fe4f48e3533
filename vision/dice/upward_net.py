"""The upward face of a cocked die from its whole patch (BG-ROLL-2, issue 5): the patch
network's layers (``vision.dice.patch_net``) with six outputs, one per face
(``upward_model.npz``, fitted by ``vision.dice.train_upward``).

A die tilted 30 to 40 degrees shows its upward face foreshortened and a side face almost as
large beside it; the pip-grid read (``vision.dice.face_fit``) fits a square face to part of
that and reads a one or two pips of it (a two as a one, a six as a three). The network sees
both faces and the die's outline at once. The reader (``vision.dice.board``) takes its face for
a die it reads cocked by the die's own look (the board's supports, weighed later by
``vision.dice.support``, may still call it flat) when it differs from the grid's and its
probability clears the model file's bar, chosen so that it costs hardly any face the grid read
had right; at the rail or against a checker, where a face nearer it may give the pips instead, the
network is shown that face too (``board.cocked_pips``). Numpy only, about 0.5 ms a die.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from vision.dice.patch_net import Weights, forward, from_aligned, normalise, shapes

UPWARD_MODEL = Path(__file__).with_name("upward_model.npz")
FACES = 6


def probabilities(logits: np.ndarray) -> np.ndarray:
    """Softmax over the last axis (N x 6 logits to face probabilities)."""
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    out: np.ndarray = e / e.sum(axis=-1, keepdims=True)
    return out


@dataclass(frozen=True)
class UpwardModel:
    """The fitted weights and the bar the network's top probability must clear to overrule
    the face read."""

    weights: Weights
    bar: float


@lru_cache(maxsize=1)
def upward_model() -> UpwardModel | None:
    """The shipped model (``upward_model.npz``); None when there is none or it does not fit
    the network's shapes (the reader then keeps the face read's pips)."""
    if not UPWARD_MODEL.exists():
        return None
    with np.load(UPWARD_MODEL) as data:
        weights = [data[f"w{i}"].astype(np.float32) for i in range(len(shapes(FACES)))
                   if f"w{i}" in data]
        bar = float(data["bar"])
    if [w.shape for w in weights] != shapes(FACES):
        return None
    return UpwardModel(weights, bar)


def upward_face(aligned: np.ndarray, model: UpwardModel) -> tuple[int, float]:
    """The network's upward face (1..6) of one face-aligned patch of the reader's, and its
    probability."""
    p = probabilities(forward(model.weights, normalise(from_aligned(aligned)[None])))[0]
    k = int(np.argmax(p))
    return k + 1, float(p[k])


def overruled(read: int, aligned: np.ndarray, model: UpwardModel | None) -> int:
    """The pips of a die read cocked: the network's face when it differs from the face read
    ``read`` and clears the model's bar, else ``read``."""
    if model is None:
        return read
    face, p = upward_face(aligned, model)
    return face if face != read and p >= model.bar else read
