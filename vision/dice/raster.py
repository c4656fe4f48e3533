"""Fast die candidates on the board reader's reading raster (``PreparedFrame.bgr``).

The reading raster is the board warped top-down at :data:`RASTER_PPM` pixels per millimetre
(a die is ~11 px there, a checker ~30 px). Two cheap stages keep the costly face reading for
the few places that hold a die:

1. Corners: local maxima of the smaller eigenvalue of the gradient structure tensor (small
   window), summed over a die-sized box: pips and the square outline give gradients in every
   direction, a point's straight edge or a checker's rim in one direction only. At most
   :data:`MAX_PEAKS` are kept.
2. Rays: a small network (``raster_model.json``, trained on synthetic throws by
   ``vision.dice.train_raster``) looks along rays from each peak (and from a few places
   around it: a peak may lie a few pixels off a die's centre) and says whether a die is
   centred there; it tells a die from a checker's rim, a point's tip, the cube's number.
   Places closer than a die to a more probable one are merged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

RASTER_PPM = 0.7  # the model's raster scale (vision.config.CheckerConfig.px_per_mm default)
PATCH_PX = 17  # side of the patch the model looks at (~24 mm: a die and a little around it)
EIGEN_BLOCK = 3  # structure tensor window
SUM_BOX = 11  # the corner strength is summed over a die (~11 px at RASTER_PPM)
MAX_PEAKS = 40
PEAK_WINDOW = 7
# the patch model looks around each peak too: a peak lies up to a few pixels off a die's centre
OFFSETS = np.array([[0, 0], [3, 0], [-3, 0], [0, 3], [0, -3]])
MODEL_PATH = Path(__file__).with_name("raster_model.json")


@dataclass(frozen=True)
class RasterCandidate:
    """A place the patch model thinks holds a die: raster pixel centre, probability, and the
    model's input there (:func:`ray_features`; the die and cocked models use it too)."""

    u: float
    v: float
    p: float
    features: np.ndarray


def nonzero_2d(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.nonzero`` of a 2-D mask (rows, columns, row by row), several times faster on the
    mostly empty masks here."""
    at = np.flatnonzero(mask)
    ys, xs = np.divmod(at, mask.shape[1])
    return ys, xs


def topdown_maps(from_mm: np.ndarray, x0: float, y0: float, size: tuple[int, int],
                 ppm: float) -> tuple[np.ndarray, np.ndarray]:
    """Fixed-point remap tables for a top-down raster of the board: pixel (i, j) shows board
    millimetre (x0 + i / ppm, y0 + j / ppm), looked up in the camera frame through ``from_mm``
    (board mm to image px). Callers keep them per camera set-up: the board stays put."""
    h = np.asarray(from_mm, np.float64).reshape(3, 3)
    w, hh = size
    xs, ys = np.meshgrid(x0 + np.arange(w) / ppm, y0 + np.arange(hh) / ppm)
    den = h[2, 0] * xs + h[2, 1] * ys + h[2, 2]
    mx = ((h[0, 0] * xs + h[0, 1] * ys + h[0, 2]) / den).astype(np.float32)
    my = ((h[1, 0] * xs + h[1, 1] * ys + h[1, 2]) / den).astype(np.float32)
    m1, m2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
    return np.asarray(m1), np.asarray(m2)


def at_model_scale(bgr: np.ndarray, px_per_mm: float) -> tuple[np.ndarray, float]:
    """The raster resized to :data:`RASTER_PPM` (unchanged when it already is) and the factor
    from model pixels back to the given raster's pixels."""
    if abs(px_per_mm - RASTER_PPM) < 1e-6:
        return bgr, 1.0
    f = RASTER_PPM / px_per_mm
    h, w = bgr.shape[:2]
    out = cv2.resize(bgr, (max(1, round(w * f)), max(1, round(h * f))),
                     interpolation=cv2.INTER_AREA)
    return out, 1.0 / f


def peaks(gray: np.ndarray, max_peaks: int = MAX_PEAKS) -> np.ndarray:
    """(N, 2) integer (u, v) of the strongest structure-tensor corners, strongest first."""
    corner = cv2.cornerMinEigenVal(gray, EIGEN_BLOCK, ksize=3)
    resp = cv2.boxFilter(corner, -1, (SUM_BOX, SUM_BOX))
    local = resp >= cv2.dilate(resp, np.ones((PEAK_WINDOW, PEAK_WINDOW), np.uint8))
    local &= resp > 1e-4
    ys, xs = nonzero_2d(local)
    if len(xs) > max_peaks:
        vals = resp[ys, xs]
        keep = np.argpartition(-vals, max_peaks)[:max_peaks]
        order = keep[np.argsort(-vals[keep])]
    else:
        order = np.argsort(-resp[ys, xs])
    return np.stack([xs[order], ys[order]], axis=1)


def patches(bgr: np.ndarray, centres: np.ndarray, size: int = PATCH_PX) -> np.ndarray:
    """(N, size, size, 3) float32 patches of the raster around integer centres (the
    raster's border repeated where a patch leaves it)."""
    r = size // 2
    padded = cv2.copyMakeBorder(bgr, r, r, r, r, cv2.BORDER_REPLICATE)
    off = np.arange(size)
    ys = centres[:, 1, None, None] + off[None, :, None]
    xs = centres[:, 0, None, None] + off[None, None, :]
    out: np.ndarray = padded[ys, xs].astype(np.float32)
    return out


ANGLES = 16
RADII = np.arange(PATCH_PX // 2 + 1)


@lru_cache(maxsize=1)
def polar_index() -> tuple[np.ndarray, np.ndarray]:
    """Pixel offsets from a patch's centre along :data:`ANGLES` rays, one per pixel of
    radius: (rows, cols), each (ANGLES, len(RADII))."""
    a = np.arange(ANGLES) * 2 * np.pi / ANGLES
    ys = np.round(np.sin(a)[:, None] * RADII[None, :]).astype(int)
    xs = np.round(np.cos(a)[:, None] * RADII[None, :]).astype(int)
    return ys, xs


def ray_pixels(centres: np.ndarray, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """The raster pixels (rows, cols; each (N, ANGLES, len(RADII))) along the rays from each
    integer centre (N x 2: x, y) of a ``width`` x ``height`` raster, clipped to its border."""
    ys, xs = polar_index()
    # np.minimum/np.maximum: np.clip's own overhead is most of the time on a few centres
    rows = np.minimum(np.maximum(centres[:, 1, None, None] + ys[None], 0), height - 1)
    cols = np.minimum(np.maximum(centres[:, 0, None, None] + xs[None], 0), width - 1)
    return rows, cols


def ray_samples(bgr: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """(N, ANGLES, len(RADII), 3) float32: the raster along the rays from each integer centre
    (its border repeated where a ray leaves it)."""
    # one flat index per sample, taken at once (twice as fast as indexing rows and columns);
    # a ray leaving the raster is clipped to its border, as the border repeated would give,
    # without copying the whole raster into a padded one for a few centres
    h, width = bgr.shape[:2]
    rows, cols = ray_pixels(centres, width, h)
    if bgr.flags.c_contiguous:
        taken = np.take(bgr.reshape(h * width, -1), rows * width + cols, axis=0)
    else:  # a part of a larger raster (a view): indexed in place, not copied whole
        taken = bgr.reshape(h, width, -1)[rows, cols]
    out: np.ndarray = taken.astype(np.float32)
    return out


def patch_rays(p: np.ndarray) -> np.ndarray:
    """:func:`ray_samples` taken from patches already cut (the same values)."""
    c = p.shape[1] // 2
    ys, xs = polar_index()
    out: np.ndarray = p[:, c + ys, c + xs].astype(np.float32)
    return out


def ray_features(rays: np.ndarray) -> np.ndarray:
    """The patch model's input, turn-free: along rays from the centre, how far the colour is
    from the centre's; per ray its inner level, outer level and sharpest step (a die: flat
    inside, a step all round at its edge; a checker's rim or a point's edge: a step on some
    rays only), the rays sorted so the die's turn does not matter; the mean per radius; the
    mean colour and contrast of the samples (a die's own look counts too)."""
    # computed channel-first and radius-major, so each reduction runs over contiguous memory;
    # each mean is numpy's own (a sum, then divided by the count) written where it goes: on
    # the few rows an update of the raster stage passes, numpy's calls are most of the time
    n = len(rays)
    r = np.ascontiguousarray(rays.transpose(0, 3, 2, 1))  # (N, 3, radii, angles)
    flat = r.reshape(n, 3, -1)
    centre = _mean(r[:, :, :2].reshape(n, 3, -1), 2)
    diff = r - centre[:, :, None, None]
    np.abs(diff, out=diff)
    dist = diff[:, 0] + diff[:, 1]  # summed over the channels in their order, as sum(axis=1)
    dist += diff[:, 2]
    dist *= 1.0 / 64.0  # (N, R, A)
    rays_sorted = np.empty((n, 3, ANGLES), r.dtype)  # per ray: inner, outer level, step
    _mean(dist[:, 1:4], 1, rays_sorted[:, 0])
    _mean(dist[:, 6:], 1, rays_sorted[:, 1])
    np.maximum.reduce(dist[:, 3:] - dist[:, 2:-1], axis=1, out=rays_sorted[:, 2])
    rays_sorted.sort(axis=2)
    mean = _mean(flat, 2)
    dev = flat - mean[:, :, None]
    out = np.empty((n, 3 * ANGLES + len(RADII) + 4), r.dtype)
    out[:, :3 * ANGLES] = rays_sorted.reshape(n, -1)
    _mean(dist, 2, out[:, 3 * ANGLES:-4])
    np.subtract(mean / 128.0, 1.0, out=out[:, -4:-1])
    out[:, -1] = np.sqrt(np.einsum("nck,nck->n", dev, dev) / dev[0].size) / 64.0
    return out


def _mean(a: np.ndarray, axis: int, out: np.ndarray | None = None) -> np.ndarray:
    """``a.mean(axis)`` (float32) by numpy's own steps, into ``out`` when given: the sum, then
    divided by the count as an ``intp`` (so the very same values), without ``mean``'s own
    checks, most of its time on a few rows."""
    total: np.ndarray = np.add.reduce(a, axis=axis, out=out)
    np.true_divide(total, np.intp(a.shape[axis]), out=total, casting="unsafe")
    return total


@lru_cache(maxsize=1)
def _model() -> dict[str, np.ndarray] | None:
    if not MODEL_PATH.exists():
        return None
    data = json.loads(MODEL_PATH.read_text())
    return {k: np.asarray(v, np.float32) for k, v in data.items()
            if k in ("mean", "scale", "w1", "b1", "w2", "b2", "threshold")}


def model_threshold() -> float:
    """The probability above which a patch counts as a die (chosen at training time)."""
    m = _model()
    return 0.5 if m is None else float(m["threshold"])


def die_probability(features: np.ndarray) -> np.ndarray:
    """P(a die is centred on each patch) from :func:`patch_features` rows; without a trained
    model every patch passes (probability 1)."""
    m = _model()
    if m is None:
        return np.ones(len(features), np.float32)
    z = (features - m["mean"]) / m["scale"]
    h = np.tanh(z @ m["w1"] + m["b1"])
    logit = np.minimum(np.maximum(h @ m["w2"] + m["b2"], -40), 40)  # np.clip, cheaper
    out: np.ndarray = 1.0 / (1.0 + np.exp(-logit))
    return out.reshape(-1)


def die_candidates(bgr: np.ndarray, px_per_mm: float, *, threshold: float | None = None,
                   die_mm: float = 16.0, gray: np.ndarray | None = None
                   ) -> list[RasterCandidate]:
    """Places on a reading raster (any scale) that hold a die, most probable first, in that
    raster's pixels. ``threshold`` overrides the model's; ``gray`` is the raster in grey
    when the caller has it (used only at the model's scale)."""
    raster, back = at_model_scale(bgr, px_per_mm)
    if gray is None or back != 1.0:
        gray = cv2.cvtColor(raster, cv2.COLOR_BGR2GRAY)
    found = peaks(gray)
    if len(found) == 0:
        return []
    h, w = gray.shape
    centres = (found[:, None, :] + OFFSETS[None, :, :]).reshape(-1, 2)
    centres = np.clip(centres, 0, [w - 1, h - 1])
    feats = ray_features(ray_samples(raster, centres))
    p = die_probability(feats)
    thr = model_threshold() if threshold is None else threshold
    keep = np.flatnonzero(p >= thr)
    keep = keep[np.argsort(-p[keep])]
    out: list[RasterCandidate] = []
    reach = 0.8 * die_mm * RASTER_PPM
    for i in keep.tolist():
        u, v = float(centres[i, 0]), float(centres[i, 1])
        if any((u - c.u / back) ** 2 + (v - c.v / back) ** 2 < reach ** 2 for c in out):
            continue
        out.append(RasterCandidate(u * back, v * back, float(p[i]), feats[i]))
    return out
