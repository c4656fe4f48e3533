"""Flat or cocked, die or board texture: features of a face-aligned patch and the two small
trained networks (``cocked_model.json``, fitted by ``vision.dice.train_cocked``) that judge
them (BG-ROLL-2: a cocked die means both dice are thrown again).

The die network looks at the face's evidence and the first :data:`DIE_FEATURE_COUNT` pose
features (bands beside each side, sorted); the cocked network at the side-face profiles after
them (``vision.dice.side_faces``: what lies beyond each edge of the face, scored edge by edge
and pooled, so which edge a side face shows beyond does not matter), each edge's row also
holding those first features (:func:`cocked_inputs`)."""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.dice.face_fit import ALIGNED_PX_PER_MM, FaceFinding
from vision.dice.render import PIP_RADIUS
from vision.dice.side_faces import (
    PROFILE_COUNT,
    SIDE_INPUTS,
    edge_logit,
    quarter_turned,
    side_inputs,
    side_profiles,
    sum_planes,
)

MAX_FACE_SPREAD = 48.0  # grey levels (10th to 90th percentile) inside the face, pips left out
MIN_P_DIE = 0.5  # floor under the die model's trained threshold: fewer phantom dice
COCKED_MODEL = Path(__file__).with_name("cocked_model.json")


NEAR_MM = (8.8, 12.0)
FAR_MM = (14.5, 17.5)


def face_mask(n: int, die_mm: float, pip_pts: np.ndarray) -> tuple[int, int, np.ndarray]:
    """The middle of the upward face in a face-aligned patch of side ``n``, pips left out:
    (first, end pixel of the square, mask over it). The mask is shared (kept for the next
    call with the same pips): read it, never write it."""
    pts = np.asarray(pip_pts, np.float64).reshape(-1, 2)
    return _face_mask_of(n, float(die_mm), pts.tobytes())


@lru_cache(maxsize=32)
def _face_mask_of(n: int, die_mm: float, pip_bytes: bytes) -> tuple[int, int, np.ndarray]:
    """:func:`face_mask` of the pips given as the bytes of an (N, 2) float64 array (the same
    face is masked by the spread test, the pose features and the solidity in turn)."""
    ppm = ALIGNED_PX_PER_MM
    c = n / 2
    half = die_mm / 2
    f0 = int(min(n, max(0, round(c - 0.75 * half * ppm))))
    f1 = int(min(n, max(0, round(c + 0.75 * half * ppm))))
    yy, xx = np.mgrid[f0:f1, f0:f1]
    face = np.ones(yy.shape, bool)
    for x, y in np.frombuffer(pip_bytes, np.float64).reshape(-1, 2):
        face &= np.hypot(xx - (c + x * ppm), yy - (c + y * ppm)) > PIP_RADIUS * die_mm * 1.9 * ppm
    face.flags.writeable = False
    return f0, f1, face


def face_spread(aligned_gray: np.ndarray, die_mm: float, pip_pts: np.ndarray) -> float | None:
    """The grey spread (10th to 90th percentile, / 64) of the face without its pips: the first
    pose feature, and the cheap test that drops board texture before the others are computed;
    None when too little of the face is left to tell."""
    f0, f1, face = face_mask(aligned_gray.shape[0], die_mm, pip_pts)
    gvals = aligned_gray[f0:f1, f0:f1].astype(np.float32)[face]
    if len(gvals) < 8:
        return None
    lo, hi = _percentiles(np.sort(gvals), (10, 90))
    return float(hi - lo) / 64.0


def _percentile(ordered: np.ndarray, q: int) -> np.float32:
    """``np.percentile(values, q)`` (linear, ``q`` a number) of float32 values given sorted,
    worked out as numpy 2 works it out, in float32 (the same bits, without its overhead: it
    runs on every face)."""
    n = len(ordered)
    at = (n - 1) * (q / 100)
    if at >= n - 1:
        last: np.float32 = ordered[-1]
        return last
    i = math.floor(at)
    t = at - i
    a, b = ordered[i], ordered[i + 1]
    step = b - a
    out: np.float32 = b - step * np.float32(1 - t) if t >= 0.5 else a + step * np.float32(t)
    return out


def _percentiles(ordered: np.ndarray, qs: tuple[int, ...]) -> list[float]:
    """``np.percentile(values, list(qs))`` of float32 values given sorted, as numpy 2 works
    it out for a list of percentiles (in float64: not :func:`_percentile`'s bits)."""
    n = len(ordered)
    out = []
    for q in qs:
        at = (n - 1) * (q / 100)
        if at >= n - 1:
            out.append(float(ordered[-1]))
            continue
        i = math.floor(at)
        t = at - i
        a, b = float(ordered[i]), float(ordered[i + 1])
        step = float(ordered[i + 1] - ordered[i])  # the step in float32, as numpy takes it
        out.append(b - step * (1 - t) if t >= 0.5 else a + step * t)
    return out


def _column_sums(block: np.ndarray) -> np.ndarray:
    """Sums over axis 1 of a float32 (sides, rows, columns) block, added in the order numpy's
    pairwise summation adds one column on its own (eight running sums over blocks of eight
    rows, then the rest; halves first beyond 128 rows), so each equals that column's
    ``sum()`` to the last bit, for all columns at once."""
    rows = block.shape[1]
    if rows < 8:
        out = block[:, 0].copy()
        for i in range(1, rows):
            out += block[:, i]
        return out
    if rows <= 128:
        r = block[:, :8].copy()
        end = rows - rows % 8
        for i in range(8, end, 8):
            r += block[:, i:i + 8]
        total: np.ndarray = ((r[:, 0] + r[:, 1]) + (r[:, 2] + r[:, 3])) + (
            (r[:, 4] + r[:, 5]) + (r[:, 6] + r[:, 7]))
        for i in range(end, rows):
            total += block[:, i]
        return total
    half = rows // 2
    half -= half % 8
    both: np.ndarray = _column_sums(block[:, :half]) + _column_sums(block[:, half:])
    return both


def _column_means(block: np.ndarray) -> np.ndarray:
    """Each column's ``mean()`` of a float32 (sides, rows, columns) block, to the last bit
    (:func:`_column_sums` over the row count, divided as numpy divides a float32 sum)."""
    out: np.ndarray = (_column_sums(block).astype(np.float64) / block.shape[1]).astype(np.float32)
    return out


def _dielike(f: np.ndarray, bright: float, chroma: np.ndarray) -> np.ndarray:
    """Which pixels of a float32 BGR patch (any shape, channels last) have the face's colour at
    any shade."""
    planes = [f[..., i] for i in range(3)]
    fsum = planes[0] + planes[1] + planes[2] + 1.0  # as f.sum(axis=-1): channel by channel
    ratio = fsum / bright
    cd = sum_planes([np.abs(planes[i] / fsum - chroma[i]) for i in range(3)])
    out: np.ndarray = (ratio > 0.3) & (ratio < 1.08) & (cd < 0.06)
    return out


def _channel_medians(pixels: np.ndarray) -> np.ndarray:
    """``np.median(pixels.astype(np.float32), axis=0)`` of uint8 pixels (N x 3), the same bits:
    the mean of the middle one or two of each channel's values, partitioned along a
    contiguous axis (faster than across the channels)."""
    k = len(pixels)
    kth = [(k - 1) // 2, k // 2]
    middle = np.partition(pixels.T, kth, axis=1)[:, kth[0]:kth[1] + 1]
    out: np.ndarray = middle.astype(np.float32).mean(axis=1)
    return out


def _masked_pixels(patch: np.ndarray, f0: int, f1: int, mask: np.ndarray) -> np.ndarray:
    """``patch[f0:f1, f0:f1][mask]`` of a colour patch (N x channels): each pixel's channels
    taken as one item, several times faster than masking across the channels."""
    channels = patch.shape[2]
    pixel = np.dtype((np.void, channels * patch.itemsize))
    items = np.ascontiguousarray(patch).view(pixel)[f0:f1, f0:f1, 0][mask]
    out: np.ndarray = items.view(patch.dtype).reshape(-1, channels)
    return out


def _edge_step(gray: np.ndarray, rows: slice, cols: slice, dx: int, dy: int) -> float:
    """The mean absolute Sobel step (over 8) of a uint8 patch in [rows, cols], worked out on
    those pixels and one more around them only: the steps of integers are exact, so they are
    the whole patch's to the bit."""
    n, w = gray.shape
    r0, r1, _ = rows.indices(n)
    c0, c1, _ = cols.indices(w)
    a0, b0 = max(r0 - 1, 0), max(c0 - 1, 0)
    window = gray[a0:min(r1 + 1, n), b0:min(c1 + 1, w)].astype(np.float32)
    step = cv2.Sobel(window, cv2.CV_32F, dx, dy, ksize=3) / 8.0
    return float(np.abs(step[r0 - a0:r1 - a0, c0 - b0:c1 - b0]).mean())


def _edge_steps(gray: np.ndarray, lat0: int, lat1: int, plus: int, minus: int) -> list[float]:
    """The outline's edge step along each side (+x, -x, +y, -y): :func:`_edge_step` over
    [lat0, lat1) along the side and the three pixels about ``plus`` or ``minus`` across it.
    The four windows (those across y turned, so every step is one across x) are stepped as
    one raster: each kept step sees its own window only, and steps of integers and their sums
    are exact, so each is :func:`_edge_step`'s to the bit. Windows at the patch's edge are
    left to it."""
    n, w = gray.shape
    rows = lat1 - lat0
    if rows < 1 or lat0 < 1 or lat1 + 1 > min(n, w) or min(plus, minus) < 2 \
            or max(plus, minus) + 3 > min(n, w):
        return [_edge_step(gray, slice(lat0, lat1), slice(plus - 1, plus + 2), 1, 0),
                _edge_step(gray, slice(lat0, lat1), slice(minus - 1, minus + 2), 1, 0),
                _edge_step(gray, slice(plus - 1, plus + 2), slice(lat0, lat1), 0, 1),
                _edge_step(gray, slice(minus - 1, minus + 2), slice(lat0, lat1), 0, 1)]
    along = slice(lat0 - 1, lat1 + 1)
    windows = np.concatenate([gray[along, plus - 2:plus + 3], gray[along, minus - 2:minus + 3],
                              gray[plus - 2:plus + 3, along].T, gray[minus - 2:minus + 3, along].T],
                             axis=1).astype(np.float32)
    step = np.abs(cv2.Sobel(windows, cv2.CV_32F, 1, 0, ksize=3) / 8.0)
    sums = step[1:-1].reshape(rows, 4, 5)[:, :, 1:4].sum(axis=(0, 2)).tolist()
    # (a float32 mean as numpy divides its sum: in float64, rounded to float32)
    return [float(np.float32(total / (rows * 3))) for total in sums]


def _band_looks(aligned: np.ndarray, bands: list[tuple[slice, slice]], bright: float,
                chroma: np.ndarray) -> list[list[float]]:
    """Per band of a uint8 BGR patch: its die-coloured share, brightness and colour distance
    against the face's (empty: 0, 1, 0). All bands' pixels are judged together; their sums
    are of integers (exact in float32 in any order), so the shares and means are numpy's
    ``mean()`` of each band alone, to the bit."""
    pixels = [aligned[sl].reshape(-1, 3) for sl in bands]
    sizes = [len(p) for p in pixels]
    at = np.cumsum([0, *sizes[:-1]])
    every = np.concatenate(pixels)
    if len(every) == 0:
        return [[0.0, 1.0, 0.0] for _ in bands]
    full = [k for k, size in enumerate(sizes) if size]
    starts = at[full]
    sums = np.add.reduceat(every, starts, axis=0, dtype=np.int64)
    counts = np.add.reduceat(_dielike(every.astype(np.float32), bright, chroma), starts,
                             dtype=np.int64).tolist()
    # a float32 mean of integers: the float64 quotient rounded to float32
    means = (sums / np.array([sizes[k] for k in full])[:, None]).astype(np.float32)
    total = means.sum(axis=1).astype(np.float64) + 1.0  # as float(m.sum()) + 1.0
    cdist = np.abs(means / total.astype(np.float32)[:, None] - chroma).sum(axis=1)
    out = [[0.0, 1.0, 0.0] for _ in bands]
    for row, k in enumerate(full):
        out[k] = [float(np.float32(counts[row] / sizes[k])), float(total[row]) / bright,
                  float(cdist[row]) * 10]
    return out


def pose_features(aligned: np.ndarray, die_mm: float, pip_pts: np.ndarray,
                  side_pips: np.ndarray | None = None, *,
                  aligned_gray: np.ndarray | None = None) -> np.ndarray:
    """Features of a face-aligned patch for the cocked/flat model.

    A cocked die shows a side face: a band of the die's own colour (shaded darker) beyond one
    edge of the upward face, often with pips on it. Per side: share of die-coloured pixels
    just outside the face and farther out, colour distance and brightness ratio of those
    bands to the face, the outline's edge step, and the side pips found there. Sides are
    sorted from most to least die-like so the model does not care which side shows.
    ``pip_pts`` and ``side_pips`` are face-frame mm; ``aligned_gray``: the patch in grey
    when the caller has it (``cv2.cvtColor`` of ``aligned``)."""
    ppm = ALIGNED_PX_PER_MM
    n = aligned.shape[0]
    if aligned_gray is None:
        aligned_gray = cv2.cvtColor(aligned, cv2.COLOR_BGR2GRAY)
    c = n / 2
    half = die_mm / 2

    def px(mm: float) -> int:
        return int(min(n, max(0, round(c + mm * ppm))))

    f0, f1, face = face_mask(n, die_mm, pip_pts)
    pixels = _masked_pixels(aligned, f0, f1, face)
    if len(pixels) < 8:
        return np.zeros(FEATURE_COUNT)
    colour = _channel_medians(pixels)
    bright = float(colour.sum()) + 1.0
    chroma = colour / bright
    # (uint8 values sort the same in either type; numpy's stable sort of bytes is a radix sort)
    ordered = np.sort(aligned_gray[f0:f1, f0:f1][face], kind="stable").astype(np.float32)
    spread = float(_percentile(ordered, 90) - _percentile(ordered, 10)) / 64.0
    lat0, lat1 = px(-0.7 * half), px(0.7 * half)
    sp = side_pips if side_pips is not None else np.zeros((0, 2))
    # grey profiles outward from the face centre across each side (1 mm steps, 5..17 mm):
    # each side turned to +x, the profile columns' means all at once
    cols = [px(d) for d in range(5, 18)]
    block = np.stack([quarter_turned(aligned_gray, turn)[lat0:lat1][:, cols]
                      for turn in (0, 2, 1, 3)]).astype(np.float32)
    profiles = _column_means(block) / np.float32(bright / 3.0)
    # each profile's steps, for all four sides at once
    grad = np.abs(np.diff(profiles, axis=1))
    near_step, far_step = grad[:, 2:5].max(axis=1), grad[:, 5:].max(axis=1)
    step_ratio = far_step / (near_step + 0.05)
    mid = profiles[:, 4:8]
    mid_std, mid_mean = mid.std(axis=1), mid.mean(axis=1)
    # the side pips beyond each side (+x, -x, +y, -y)
    beyond = [0, 0, 0, 0]
    reach = half * 1.1
    for x, y in sp.tolist():
        if abs(y) < reach:
            beyond[0] += x > half
            beyond[1] += x < -half
        if abs(x) < reach:
            beyond[2] += y > half
            beyond[3] += y < -half
    # per side (+x, -x, +y, -y), the bands near and far beyond it: die-coloured share,
    # brightness and colour distance against the face's
    lateral = slice(lat0, lat1)
    bands = []
    for d0, d1 in (NEAR_MM, FAR_MM):
        bands += [(lateral, slice(px(d0), px(d1))), (lateral, slice(px(-d1), px(-d0))),
                  (slice(px(d0), px(d1)), lateral), (slice(px(-d1), px(-d0)), lateral)]
    looks = _band_looks(aligned, bands, bright, chroma)
    # the outline's edge step along each side (+x, -x, +y, -y)
    edges = _edge_steps(aligned_gray, lat0, lat1, px(half), px(-half))
    sides = []
    for k in range(4):
        feats = looks[k] + looks[4 + k]
        feats += [edges[k] / 10.0, min(beyond[k], 3) / 3.0]
        feats += [float(near_step[k]), float(far_step[k]), float(step_ratio[k]),
                  float(mid_std[k]), float(mid_mean[k])]
        sides.append(feats)
    sides.sort(key=lambda v: -(v[0] - v[3] + v[7] + v[10]))
    out = [spread] + [v for side in sides for v in side] + [1.0]
    side = side_profiles(aligned, die_mm, pip_pts, ppm, colour, spread)
    return np.concatenate([np.array(out, np.float64), side])


DIE_FEATURE_COUNT = 1 + 4 * 13 + 1  # the pose features the die model looks at
FEATURE_COUNT = DIE_FEATURE_COUNT + PROFILE_COUNT  # and the side-face profiles after them


@lru_cache(maxsize=1)
def _models() -> dict[str, dict[str, np.ndarray]]:
    """The trained die and cocked networks (``cocked_model.json``); empty when not trained."""
    if not COCKED_MODEL.exists():
        return {}
    data = json.loads(COCKED_MODEL.read_text())
    return {name: {k: np.asarray(v, np.float64) for k, v in data[name].items()
                   if k in ("mean", "scale", "w1", "b1", "w2", "b2", "threshold",
                            "second_threshold")}
            for name in ("die", "cocked") if name in data}


def _logits(model: dict[str, np.ndarray], rows: np.ndarray) -> np.ndarray:
    z = (rows - model["mean"]) / model["scale"]
    h = np.tanh(z @ model["w1"] + model["b1"])
    out: np.ndarray = h @ model["w2"] + model["b2"]
    return out


def sigmoid(logit: float) -> float:
    """The probability of a logit (clipped to +-40: no overflow)."""
    return 1.0 / (1.0 + math.exp(-min(max(float(logit), -40.0), 40.0)))


def _probability(name: str, features: np.ndarray) -> float:
    model = _models().get(name)
    if model is None or len(model["mean"]) != len(features):
        return 1.0 if name == "die" else 0.0
    return sigmoid(float(_logits(model, features)))


def model_threshold(name: str) -> float:
    """The trained threshold of the model ``name``, or 0.5 without that model."""
    model = _models().get(name)
    return float(model["threshold"]) if model is not None else 0.5


def p_cocked(face: FaceFinding) -> float:
    """Probability that the die is cocked: one small network scores what lies beyond each
    edge of the face (``vision.dice.side_faces``) and the four scores are pooled."""
    model = _models().get("cocked")
    if model is not None and len(model["mean"]) == 4 + DIE_FEATURE_COUNT:
        return _probability("cocked", detection_features(face))  # a model of the old kind
    return cocked_probability(face.features)


def cocked_probability(features: np.ndarray) -> float:
    """:func:`p_cocked` of a pose feature vector (:func:`pose_features`)."""
    model = _models().get("cocked")
    if model is None or len(features) != FEATURE_COUNT:
        return 0.0
    rows = cocked_inputs(features)
    if len(model["mean"]) == SIDE_INPUTS:  # a model of the side-face profiles alone
        rows = rows[:, :SIDE_INPUTS]
    if len(model["mean"]) != rows.shape[1]:
        return 0.0
    return sigmoid(edge_logit(model, rows))


def cocked_inputs(features: np.ndarray) -> np.ndarray:
    """The cocked network's four edge rows for a pose feature vector: each edge's side-face
    profiles (``side_faces.side_inputs``) and, the same on every row, the pose features the die
    model sees (bands beside each side and the side pips found beyond the face, sorted; the
    constant left out). A side band of a low tilt (3 to 6 mm at 12 to 24 degrees) is faint in
    either alone: with both, fewer such cocked dice are called flat (BG-ROLL-2)."""
    rows = side_inputs(features[DIE_FEATURE_COUNT:])
    die = np.broadcast_to(features[:DIE_FEATURE_COUNT - 1], (4, DIE_FEATURE_COUNT - 1))
    return np.concatenate([rows, die], axis=1)


def cocked_certainty(p: float, threshold: float) -> float:
    """How sure the flat/cocked call is (0..1). Flat: the distance of ``p`` below the
    threshold, as a share of the way to 0. Cocked: its distance above in log-odds, two of them
    counting as sure (on the probability scale a die called cocked above a threshold near 1
    could never look sure)."""
    if p < threshold:
        return (threshold - p) / max(threshold, 1e-6)

    def logit(q: float) -> float:
        q = min(max(q, 1e-6), 1 - 1e-6)
        return math.log(q / (1 - q))

    return min(1.0, (logit(p) - logit(threshold)) / 2.0)


def cocked_threshold() -> float:
    """The probability above which a die is called cocked (chosen at training time)."""
    return model_threshold("cocked")


def second_chance_threshold() -> float:
    """The probability above which the reader keeps a second chance's tilted face (a die the
    usual read missed, ``second_chance.give_second_chance``): the cocked threshold, or the
    stricter bar chosen at training time on dice-free boards (a second chance on board texture
    is a phantom die, a false "throw again" under BG-ROLL-2)."""
    model = _models().get("cocked")
    second = float(model["second_threshold"]) if model and "second_threshold" in model else 0.0
    return max(cocked_threshold(), second)


def detection_features(face: FaceFinding) -> np.ndarray:
    """What tells a die from board texture: pip evidence, fit, and the pose features."""
    return np.concatenate([[face.score * 10.0, face.contrast * 10.0, face.residual,
                            face.pips / 6.0], face.features[:DIE_FEATURE_COUNT]])


def p_die(face: FaceFinding) -> float:
    """Probability that a face candidate is a real die (trained model)."""
    return _probability("die", detection_features(face))
