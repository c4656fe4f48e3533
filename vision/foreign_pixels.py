"""The occlusion finder's colour sign: what an empty column looks like (the median of the columns
painted alike, :func:`masked_median`), how far a pixel's colour lies from it
(:func:`colour_distance`) and which pixels are foreign to it (:func:`foreign_pixels`), less
those a reflection of the board explains (:func:`glare_pixels`).
"""

from __future__ import annotations

import functools

import numpy as np

from vision.config import OcclusionConfig


def median_axis0(a: np.ndarray) -> np.ndarray:
    """``np.median(a, axis=0)`` for a non-empty float array without NaNs, with less overhead."""
    srt = np.sort(a, axis=0)
    n = len(srt)
    if n % 2:
        odd: np.ndarray = srt[n // 2]
        return odd
    out: np.ndarray = (srt[n // 2 - 1] + srt[n // 2]) / 2
    return out


def masked_median(stack: np.ndarray, excluded: np.ndarray,
                   axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Median over ``axis`` (0 or 1) of ``stack`` ([K,] N, L, W, C) ignoring ``excluded``
    ([K,] N, L) entries.

    Excluded entries are pushed to +/- infinity in equal numbers so the median of the rest is
    (nearly) unchanged; where fewer than three entries remain, the model is marked invalid.
    """
    n = stack.shape[axis]
    rank = np.cumsum(excluded, axis=axis)
    fill = np.where(rank % 2 == 1, np.float32(1e6), np.float32(-1e6))
    filled = np.where(excluded[..., None, None], fill[..., None, None], stack)
    filled.sort(axis=axis)
    lo = filled.take((n - 1) // 2, axis=axis)
    hi = filled.take(n // 2, axis=axis)
    med = 0.5 * (lo + hi)
    valid = (n - excluded.sum(axis=axis)) >= 3
    return med, valid


def colour_distance(a: np.ndarray, model: np.ndarray,
                     config: OcclusionConfig) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel (.., 3): the largest chromaticity difference from the model and the
    brightness ratio to it."""
    # channel by channel: numpy reduces a short last axis slowly
    off = np.float32(config.dark_offset)
    sa = a[..., 0] + a[..., 1] + a[..., 2] + off
    sm = model[..., 0] + model[..., 1] + model[..., 2] + off
    ia = np.float32(255.0) / sa
    im = np.float32(255.0) / sm
    chroma = np.abs(a[..., 0] * ia - model[..., 0] * im)
    for ch in (1, 2):
        np.maximum(chroma, np.abs(a[..., ch] * ia - model[..., ch] * im), out=chroma)
    return chroma, sa / sm


def beyond(distance: tuple[np.ndarray, np.ndarray], config: OcclusionConfig,
            loose: bool = False, checker: bool = False) -> np.ndarray:
    """Which pixels of a ``colour_distance`` are too far from the model (``loose``: the
    weaker thresholds used to follow a hand already found; ``checker``: those of a checker
    colour)."""
    if checker:
        chroma_thr = config.checker_chroma_threshold
        lo, hi = config.checker_brightness_ratio
    elif loose:
        chroma_thr = config.loose_chroma_threshold
        lo, hi = config.loose_brightness_ratio
    else:
        chroma_thr = config.chroma_threshold
        lo, hi = config.min_brightness_ratio, config.max_brightness_ratio
    chroma, ratio = distance
    out: np.ndarray = (chroma > chroma_thr) | (ratio < lo) | (ratio > hi)
    return out


def foreign_pixels(a: np.ndarray, model: np.ndarray, config: OcclusionConfig,
                    loose: bool = False, checker: bool = False) -> np.ndarray:
    """Pixels (.., 3) too far from the model in chromaticity or in brightness ratio
    (``loose``: the weaker thresholds used to follow a hand already found)."""
    return beyond(colour_distance(a, model, config), config, loose, checker)


def glare_pixels(a: np.ndarray, model: np.ndarray, config: OcclusionConfig) -> np.ndarray:
    """Pixels (N, 3) that are their model (N, 3) times a gain plus added white light, to
    within ``glare_residual`` per channel: a reflection on the board, not a hand. A hand or a
    sleeve differs from the board in hue, which no gain and white light explain. (The gain is
    tried on a grid: for a grey model gain and white light cannot be told apart.)"""
    lo, hi = config.glare_gain
    a32 = a.astype(np.float32)
    m32 = model.astype(np.float32)
    gains = _glare_gains(lo, hi)
    # channel by channel (N, G): numpy reduces a short last axis slowly
    rest = [a32[:, ch, None] - gains * m32[:, ch, None] for ch in range(3)]
    white = np.maximum((rest[0] + rest[1] + rest[2]) / np.float32(3.0), np.float32(0.0))
    resid = np.abs(rest[0] - white)
    for ch in (1, 2):
        np.maximum(resid, np.abs(rest[ch] - white), out=resid)
    out: np.ndarray = resid.min(axis=-1) <= config.glare_residual
    return out


@functools.lru_cache(maxsize=4)
def _glare_gains(lo: float, hi: float) -> np.ndarray:
    """(1, 9) float32: the gains :func:`glare_pixels` tries (read-only)."""
    gains = np.linspace(lo, hi, 9, dtype=np.float32)[None, :]
    gains.flags.writeable = False
    return gains
