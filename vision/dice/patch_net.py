"""A second opinion on flat or cocked (BG-ROLL-2): a small convolutional network over the
face-aligned patch itself (``patch_model.npz``, fitted by ``vision.dice.train_patch``).

The cocked network of ``vision.dice.pose`` sees hand-made profiles beyond each edge of the
face; at the lowest tilts (12 to 14 degrees: a side band 3.3 to 3.9 mm wide, five or six camera
pixels) on a board of the die's own colour those profiles look like a flat die's contact
shadow. This network sees the pixels: three stride-2 convolutions (ReLU) over the patch
(:data:`PATCH_MM` square at :data:`PATCH_PX_PER_MM`, centred on the face, its grey levels taken
about the face's median colour), a tanh layer and a logit. Its logit and the profile model's
are averaged, and a die whose average clears the model file's bar is cocked even when the
profile model alone calls it flat (``vision.dice.board``): the two err on different dice.
Numpy only (the declared dependencies hold no deep-learning runtime); about 0.5 ms a die.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.dice.face_fit import ALIGNED_MM
from vision.dice.pose import sigmoid

PATCH_MODEL = Path(__file__).with_name("patch_model.npz")
PATCH_PX_PER_MM = 2.0  # the camera sees a die at about 1.6 px/mm: nothing finer is lost
PATCH_MM = 32.0  # the face and 8 mm beyond each edge of it, a 12-40 degree side band included
PATCH_PX = round(PATCH_MM * PATCH_PX_PER_MM)
# (kernel, channels in, channels out) of each convolution; stride 2, padding kernel // 2
LAYERS = ((5, 3, 12), (3, 12, 24), (3, 24, 32))
HIDDEN = 32
MEDIAN_PX = 10  # the face's colour: the median of the middle 2 * this pixels square
GREY_SCALE = 64.0  # grey levels per unit of the network's input
Weights = list[np.ndarray]


def _feature_side() -> int:
    side = PATCH_PX
    for _ in LAYERS:
        side = (side + 1) // 2
    return side


FEATURE_SIDE = _feature_side()  # the last convolution's output is this square


def from_aligned(aligned: np.ndarray) -> np.ndarray:
    """The network's patch (uint8, :data:`PATCH_PX` square) from a face-aligned patch of the
    reader's (``face_fit.ALIGNED_MM`` at ``ALIGNED_PX_PER_MM``, centred on the face): area
    averaged down to :data:`PATCH_PX_PER_MM` and cropped to :data:`PATCH_MM`."""
    side = round(ALIGNED_MM * PATCH_PX_PER_MM)
    small = cv2.resize(aligned, (side, side), interpolation=cv2.INTER_AREA)
    m = (side - PATCH_PX) // 2
    out: np.ndarray = small[m:m + PATCH_PX, m:m + PATCH_PX]
    return out


def normalise(patches: np.ndarray) -> np.ndarray:
    """Patches (N x side x side x 3, uint8) as the network's input: float32, each taken about
    its face's median colour (a die of any colour on a board of any colour) and scaled."""
    x = patches.astype(np.float32)
    n, side = x.shape[:2]
    c = side // 2
    middle = x[:, c - MEDIAN_PX:c + MEDIAN_PX, c - MEDIAN_PX:c + MEDIAN_PX].reshape(n, -1, 3)
    # each channel's median as np.median works it out (the mean of the middle one or two of
    # the sorted values: their sum halved, exact), sorted along a contiguous axis: faster than
    # across the channels
    ordered = np.sort(middle.transpose(0, 2, 1), axis=2)
    k = ordered.shape[2]
    med = (ordered[:, :, (k - 1) // 2] + ordered[:, :, k // 2]) / np.float32(2)
    # each pixel's channels less the median, over whole rows at once (numpy is slow at
    # broadcasting over three channels): the same values
    rows = x.reshape(n, side, -1)
    rows -= med[:, None, :].repeat(side, axis=1).reshape(n, 1, -1)
    rows /= np.float32(GREY_SCALE)
    return x


def columns(x: np.ndarray, k: int) -> tuple[np.ndarray, tuple[int, int, int]]:
    """The k x k neighbourhoods of every second pixel of ``x`` (N x H x W x C, zero padded by
    k // 2) as rows (N * Ho * Wo, k * k * C: row, column, channel), and (N, Ho, Wo)."""
    pad = k // 2
    n, h, w, c = x.shape
    xp = np.zeros((n, h + 2 * pad, w + 2 * pad, c), x.dtype)
    xp[:, pad:pad + h, pad:pad + w] = x
    ho, wo = (h + 1) // 2, (w + 1) // 2
    # a neighbourhood's row of k pixels is k * C contiguous values of the padded patch: viewed
    # so, the copy moves those runs whole (the view made by ndarray itself: as_strided's Python
    # wrapper cost 7 to 15 us a call on the demo's reading thread, its caches cold)
    s0, s1, s2, s3 = xp.strides
    windows = np.ndarray((n, ho, wo, k, k * c), xp.dtype, xp, 0, (s0, 2 * s1, 2 * s2, s1, s3))
    return np.ascontiguousarray(windows).reshape(n * ho * wo, -1), (n, ho, wo)


@dataclass
class Trace:
    """What a forward pass kept for the backward one (training): each convolution's input
    rows, input shape and pre-activation, the flattened features and the tanh layer."""

    convs: list[tuple[np.ndarray, tuple[int, ...], np.ndarray]]
    flat: np.ndarray
    hidden: np.ndarray


def forward(weights: Weights, x: np.ndarray, trace: Trace | None = None) -> np.ndarray:
    """The logits (N,) of normalised patches ``x`` (N x K for a head of K outputs, see
    :func:`shapes`); ``trace``, when given, is filled in."""
    a = x
    for i, (k, _cin, cout) in enumerate(LAYERS):
        rows, (n, ho, wo) = columns(a, k)
        z = rows @ weights[2 * i]
        z += weights[2 * i + 1]
        if trace is not None:
            trace.convs.append((rows, a.shape, z))
        # without a trace the ReLU overwrites the pre-activation: one array fewer
        a = np.maximum(z, 0, out=None if trace is not None else z).reshape(n, ho, wo, cout)
    flat = a.reshape(len(a), -1)
    top = 2 * len(LAYERS)
    hidden = np.tanh(flat @ weights[top] + weights[top + 1])
    if trace is not None:
        trace.flat, trace.hidden = flat, hidden
    w, b = weights[top + 2], weights[top + 3]
    logits: np.ndarray = hidden @ w + (b[0] if w.ndim == 1 else b)
    return logits


def shapes(outputs: int = 1) -> list[tuple[int, ...]]:
    """The weight arrays' shapes, in order (each convolution's kernel and bias, the tanh
    layer's, the output's): one logit (N,) by default, else ``outputs`` of them (N x outputs;
    ``vision.dice.upward_net``'s six faces)."""
    out: list[tuple[int, ...]] = []
    for k, cin, cout in LAYERS:
        out += [(k * k * cin, cout), (cout,)]
    flat = FEATURE_SIDE * FEATURE_SIDE * LAYERS[-1][2]
    head: list[tuple[int, ...]] = ([(HIDDEN,), (1,)] if outputs == 1
                                   else [(HIDDEN, outputs), (outputs,)])
    return [*out, (flat, HIDDEN), (HIDDEN,), *head]


@dataclass(frozen=True)
class PatchModel:
    """The fitted weights and the bar the averaged logit must clear for a die to be cocked."""

    weights: Weights
    bar: float


@lru_cache(maxsize=1)
def patch_model() -> PatchModel | None:
    """The shipped model (``patch_model.npz``); None when there is none or it does not fit
    this network's shapes (the reader then goes by the profile model alone)."""
    if not PATCH_MODEL.exists():
        return None
    with np.load(PATCH_MODEL) as data:
        weights = [data[f"w{i}"].astype(np.float32) for i in range(len(shapes()))
                   if f"w{i}" in data]
        bar = float(data["bar"])
    if [w.shape for w in weights] != shapes():
        return None
    return PatchModel(weights, bar)


def patch_logit(aligned: np.ndarray, model: PatchModel) -> float:
    """The network's cocked logit for one face-aligned patch of the reader's."""
    x = normalise(from_aligned(aligned)[None])
    return float(forward(model.weights, x)[0])


def _logit(p: float) -> float:
    q = min(max(p, 1e-6), 1.0 - 1e-6)
    return math.log(q / (1.0 - q))


def joint_logit(p_profiles: float, patch: float) -> float:
    """The two models' opinions averaged on the logit scale."""
    return (_logit(p_profiles) + patch) / 2.0


def with_patch(p_profiles: float, joint: float, bar: float, threshold: float) -> float:
    """The die's cocked probability once the patch network has spoken: the profile model's
    own below the joint bar (so every bar and doubt read off it below the cocked threshold
    is unchanged), else at least the cocked threshold, as far above it in log-odds as the
    joint logit lies above its bar."""
    if joint < bar:
        return p_profiles
    lifted = sigmoid(_logit(threshold) + joint - bar)
    return max(p_profiles, lifted, threshold)
