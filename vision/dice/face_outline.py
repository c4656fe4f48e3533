"""A die face's square outline in a top-down patch: the angle that makes its edge step
strongest (:func:`outline_step` and its batched forms), the face centre moved to its outline
(:func:`recentre`) and the die body's centre (:func:`body_centre`): how the face read
(``vision.dice.face_fit``) places and turns each centre hypothesis.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np


def body_centre(gray: np.ndarray, die_mm: float, ppm: float, f: int = 4
                 ) -> tuple[float, float]:
    """Where the die's body is around the patch centre (mm from it): the strongest die-scale
    blob (difference of Gaussians, either polarity) within half a die of the centre.

    Die-scale blurs are wide, so they run on the patch shrunk fourfold (a die is still ~16 px
    there); the peak is then placed to a fraction of a pixel by a parabola through its
    neighbours."""
    n = gray.shape[0]
    small = cv2.resize(gray.astype(np.float32), (n // f, n // f), interpolation=cv2.INTER_AREA)
    sigma = 0.3 * die_mm * ppm / f
    body = np.abs(cv2.GaussianBlur(small, (0, 0), sigma)
                  - cv2.GaussianBlur(small, (0, 0), 2.0 * sigma))
    c = (n / 2 - (f - 1) / 2) / f  # the patch centre in the small raster
    r = 0.5 * die_mm * ppm / f
    lo, hi = max(0, math.ceil(c - r)), min(n // f - 1, math.floor(c + r))
    win = body[lo:hi + 1, lo:hi + 1]
    y, x = np.unravel_index(int(np.argmax(win)), win.shape)

    def vertex(a: float, b: float, d: float) -> float:
        den = a - 2 * b + d
        return 0.0 if den >= 0 else float(np.clip(0.5 * (a - d) / den, -0.5, 0.5))

    fx = fy = 0.0
    if 0 < x < win.shape[1] - 1:
        fx = vertex(float(win[y, x - 1]), float(win[y, x]), float(win[y, x + 1]))
    if 0 < y < win.shape[0] - 1:
        fy = vertex(float(win[y - 1, x]), float(win[y, x]), float(win[y + 1, x]))
    return (float((lo + x + fx - c) * f / ppm), float((lo + y + fy - c) * f / ppm))


def _outline_angle(gray: np.ndarray, angle: float, die_mm: float, ppm: float,
                   search_deg: float) -> tuple[float, float]:
    """Refine the face angle by the strongest square outline around the patch centre:
    (mean edge step along the outline, angle)."""
    g = cv2.GaussianBlur(gray, (3, 3), 0).astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    return outline_step(gx, gy, 0.0, 0.0, angle, die_mm, ppm, search_deg)


@lru_cache(maxsize=4)
def _outline_frame(die_mm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sample places of a square outline in face coordinates (mm; 4 sides x 11 along each
    side, shaped (1, 4, 11)) and the sides' normals (shaped (1, 4, 1))."""
    half = die_mm / 2
    t = np.linspace(-0.7, 0.7, 11) * half
    nu = np.array([1.0, -1.0, 0.0, 0.0])[None, :, None]
    nv = np.array([0.0, 0.0, 1.0, -1.0])[None, :, None]
    tt = t[None, None, :]
    return nu * half + (nu == 0) * tt, nv * half + (nv == 0) * tt, nu, nv


@lru_cache(maxsize=8)
def _search_turns(search_deg: float) -> np.ndarray:
    """The turns (radians) an outline search tries either way of its angle, 3 degrees apart."""
    out: np.ndarray = np.radians(np.arange(-search_deg, search_deg + 0.1, 3.0))
    return out


def pixels(mm: np.ndarray, n: int, ppm: float) -> np.ndarray:
    """The patch pixels (side ``n``, truncated and kept inside it) of places ``mm`` from its
    centre: clipped before they are truncated, the same pixels as truncated first."""
    out: np.ndarray = np.clip(mm * ppm + n / 2, 0, n - 1).astype(int)
    return out


@lru_cache(maxsize=64)
def _outline_turns(die_mm: float, search_deg: float, angle: float
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A square outline's sample places (mm from the face centre, turns x 4 sides x 11) and
    its sides' normals at each of them, at every turn an outline search tries about
    ``angle``, and those turns: the same for every search at that angle (most start at 0).
    (The normals are repeated along each side: products with them then run over whole
    arrays, not 11 values at a time.)"""
    eu, ev, nu, nv = _outline_frame(die_mm)
    angles = angle + _search_turns(search_deg)
    ca, sa = np.cos(angles)[:, None, None], np.sin(angles)[:, None, None]
    su, sv = eu * ca - ev * sa, eu * sa + ev * ca
    nx, ny = (np.broadcast_to(a, su.shape).copy() for a in (nu * ca - nv * sa,
                                                             nu * sa + nv * ca))
    return su, sv, nx, ny, angles


def _outline_steps(gx: np.ndarray, gy: np.ndarray, ox: float | np.ndarray,
                   oy: float | np.ndarray, angle: float, die_mm: float, ppm: float,
                   search_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """The mean edge step along a square outline at each turn searched (:func:`outline_step`)
    and those turns; ``ox``, ``oy`` may be arrays of shape (k, 1, 1, 1) (k centres at once:
    the steps then (k, turns))."""
    n, w = gx.shape
    su, sv, nx, ny, angles = _outline_turns(die_mm, search_deg, angle)
    at = pixels(sv + oy, n, ppm) * w + pixels(su + ox, n, ppm)
    return _steps_at(gx, gy, at, nx, ny), angles


def _steps_at(gx: np.ndarray, gy: np.ndarray, at: np.ndarray, nx: np.ndarray, ny: np.ndarray
              ) -> np.ndarray:
    """The mean edge step along square outlines sampled at the flat pixel indices ``at`` (...,
    4 sides, 11 along each), the sides' normals ``nx``, ``ny`` at each sample."""
    out: np.ndarray = np.abs(gx.reshape(-1)[at] * nx + gy.reshape(-1)[at] * ny).mean(
        axis=(-2, -1))
    return out


def outline_steps_about(gx: np.ndarray, gy: np.ndarray, centres: tuple[tuple[float, float], ...],
                        die_mm: float, ppm: float, search_deg: float
                        ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_outline_steps` about 0 at several centres (mm from the patch centre) at once:
    (centres, turns) steps and the turns. The samples' pixels are kept per patch shape and
    centres: the tilted-face hypotheses (``vision.dice.tilted``) look at the same places in
    every candidate's patch."""
    _, _, nx, ny, angles = _outline_turns(die_mm, search_deg, 0.0)
    at = _outline_pixels(gx.shape, centres, die_mm, ppm, search_deg)
    return _steps_at(gx, gy, at, nx, ny), angles


@lru_cache(maxsize=8)
def _outline_pixels(shape: tuple[int, int], centres: tuple[tuple[float, float], ...],
                    die_mm: float, ppm: float, search_deg: float) -> np.ndarray:
    """The flat pixel indices of :func:`outline_steps_about`'s samples (read only)."""
    n, w = shape
    su, sv, _, _, _ = _outline_turns(die_mm, search_deg, 0.0)
    xy = np.array(centres)
    at: np.ndarray = pixels(sv + xy[:, 1, None, None, None], n, ppm) * w + pixels(
        su + xy[:, 0, None, None, None], n, ppm)
    at.flags.writeable = False
    return at


def outline_step(gx: np.ndarray, gy: np.ndarray, ox: float, oy: float, angle: float,
                  die_mm: float, ppm: float, search_deg: float) -> tuple[float, float]:
    """:func:`_outline_angle` on gradients already computed, for a face centred (ox, oy) mm
    from the patch centre."""
    step, angles = _outline_steps(gx, gy, ox, oy, angle, die_mm, ppm, search_deg)
    k = int(np.argmax(step))
    return float(step[k]), float(angles[k])


RECENTRE_MM = 4  # how far (mm, each face axis) a hypothesis' centre is moved to its outline


@lru_cache(maxsize=4)
def _outline_offsets(die_mm: float, reach: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                          np.ndarray]:
    """Sample places of a face outline in face coordinates (mm, (4 sides x 11) along the
    sides), their side normals, and the centre moves (a, b) mm tried by :func:`recentre`."""
    half = die_mm / 2
    t = np.linspace(-0.7, 0.7, 11) * half
    nu = np.repeat([1.0, -1.0, 0.0, 0.0], 11)
    nv = np.repeat([0.0, 0.0, 1.0, -1.0], 11)
    tt = np.tile(t, 4)
    eu = nu * half + (nu == 0) * tt
    ev = nv * half + (nv == 0) * tt
    a, b = np.meshgrid(np.arange(-reach, reach + 1.0), np.arange(-reach, reach + 1.0))
    return np.stack([eu, ev]), np.stack([nu, nv]), a.reshape(-1), b.reshape(-1)


def recentre(gx: np.ndarray, gy: np.ndarray, ox: float, oy: float, angle: float,
              die_mm: float, ppm: float) -> tuple[float, float, float]:
    """The face centre near (ox, oy) mm, at this angle, whose square outline shows the
    strongest edge step (moves up to :data:`RECENTRE_MM` along each face axis, 1 mm apart):
    (x, y, mean edge step there). A centre taken from a wrong pip layout (a pip of a two and a
    spot beside the die) or from a candidate off the die lies a few mm off the die; its
    outline finds the die."""
    return recentre_many(gx, gy, [(ox, oy, angle)], die_mm, ppm)[0]


def recentre_many(gx: np.ndarray, gy: np.ndarray, hypotheses: list[tuple[float, float, float]],
                   die_mm: float, ppm: float) -> list[tuple[float, float, float]]:
    """:func:`recentre` of several hypotheses (centre x, y mm and angle) at once."""
    if not hypotheses:
        return []
    n, w = gx.shape
    (eu, ev), (nu, nv), a, b = _outline_offsets(die_mm, RECENTRE_MM)
    ox = np.array([h[0] for h in hypotheses])[:, None]
    oy = np.array([h[1] for h in hypotheses])[:, None]
    ca = np.array([math.cos(h[2]) for h in hypotheses])[:, None]
    sa = np.array([math.sin(h[2]) for h in hypotheses])[:, None]
    cu = ox + a * ca - b * sa  # candidate centres (hypotheses, k)
    cv = oy + a * sa + b * ca
    su = eu * ca - ev * sa  # outline samples around a centre (hypotheses, 44)
    sv = eu * sa + ev * ca
    at = pixels(cv[:, :, None] + sv[:, None], n, ppm) * w + pixels(cu[:, :, None] + su[:, None],
                                                                     n, ppm)
    nx, ny = (nu * ca - nv * sa)[:, None], (nu * sa + nv * ca)[:, None]
    step = np.abs(gx.reshape(-1)[at] * nx + gy.reshape(-1)[at] * ny).mean(axis=2)
    best = np.argmax(step, axis=1).tolist()
    return [(float(cu[h, k]), float(cv[h, k]), float(step[h, k])) for h, k in enumerate(best)]


def outlines_at(gx: np.ndarray, gy: np.ndarray, places: list[tuple[float, float, float, float]],
                 die_mm: float, ppm: float) -> list[tuple[float, float]]:
    """:func:`outline_step` at several (x, y, angle, search) at once (those of one search
    together): (edge step, angle) each, the same numbers as one by one."""
    out: list[tuple[float, float]] = [(0.0, 0.0)] * len(places)
    for search in sorted({p[3] for p in places}):
        at = [i for i, p in enumerate(places) if p[3] == search]
        turns = [_outline_turns(die_mm, search, places[i][2]) for i in at]
        su, sv, nx, ny = (np.stack([t[j] for t in turns]) for j in range(4))
        ox = np.array([places[i][0] for i in at])[:, None, None, None]
        oy = np.array([places[i][1] for i in at])[:, None, None, None]
        n, w = gx.shape
        idx = pixels(sv + oy, n, ppm) * w + pixels(su + ox, n, ppm)
        steps = np.abs(gx.reshape(-1)[idx] * nx + gy.reshape(-1)[idx] * ny).mean(axis=(-2, -1))
        best = np.argmax(steps, axis=1).tolist()
        for row, (i, k) in enumerate(zip(at, best, strict=True)):
            out[i] = (float(steps[row, k]), float(turns[row][4][k]))
    return out
