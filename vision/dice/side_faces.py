"""What lies beyond each edge of a die's upward face: the evidence of a side face showing.

Seen from above, a die tilted by t shows its upward face foreshortened by cos t and, beyond the
edge away from what it leans on, a band ``sin t`` of a side wide: the die's own colour, shaded
differently from the face, with pips of the face's pip colour on it and no gap between it and
the face. A flat die shows its outline and contact shadow right at the face's edge, then the
board (or, a few mm on, a checker). For each of the four edges this module measures outward
profiles (1 mm bins, 5 to 17 mm from the face centre, over the middle of the edge) of five
quantities: brightness relative to the face, colour distance from the face, the share of
body-coloured pixels (any shade), the share of pip-coloured pixels amid body colour (pips on a
side face), and how uneven the bin is along the edge; and where the face's edge and the
silhouette's outer edge lie. The cocked model scores every
edge with one small network and pools the four scores (a side face shows beyond *some* edge),
so which edge shows it does not matter (BG-ROLL-2: a cocked die means a new throw).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

BIN0_MM = 5.0  # first profile bin's inner distance from the face centre
BINS = 12  # 1 mm bins: 5..17 mm
CHANNELS = 5  # brightness, colour distance, body-coloured share, pips on body, unevenness
POCKET_PX = 9  # the neighbourhood (patch pixels) that must be mostly body around a side pip
EDGE_VALUES = 4  # the face's edge and the silhouette's: where (mm) and how strong
PER_EDGE = BINS * CHANNELS + EDGE_VALUES
GLOBALS = 4  # face spread, face brightness, pip/face brightness ratio, pip count
SHARED = (0, 2)  # channels whose mean over the four edges each edge's score also sees
SIDE_INPUTS = PER_EDGE + 2 + len(SHARED) * BINS + GLOBALS
PROFILE_COUNT = 4 * PER_EDGE + GLOBALS
FACE_EDGE_MM = (5.5, 11.0)  # where the upward face's edge is looked for (flat: 8 mm)
LATERAL = 0.6  # the middle of an edge: this share of the half side either way


def side_profiles(aligned: np.ndarray, die_mm: float, pip_pts: np.ndarray, ppm: float,
                  face_colour: np.ndarray, spread: float) -> np.ndarray:
    """The four edges' outward profiles (``4 * BINS * CHANNELS`` values, edge after edge, bin
    after bin) and the :data:`GLOBALS` values, from a face-aligned BGR patch at ``ppm`` px/mm
    centred on the face; ``pip_pts`` are the face's pips (mm from its centre)."""
    n = aligned.shape[0]
    c = n / 2
    bright = float(face_colour.sum()) + 1.0
    r = max(1, round(0.06 * die_mm * ppm))
    pips = []
    for x, y in pip_pts:
        u, v = round(c + x * ppm), round(c + y * ppm)
        pips.append(aligned[max(0, v - r):v + r + 1, max(0, u - r):u + r + 1].reshape(-1, 3))
    pip_colour = (np.concatenate(pips).astype(np.float32).mean(axis=0) if pips
                  else face_colour * 0.3)
    # the four edges' strips (each turned so that its edge faces +x), centred on the face
    # centre's pixel so that the quarter turns keep it there, as float32 colour planes
    # (3 x 4 x rows x width: numpy is slow at working across three channels)
    ci = round(c)
    reach = min(ci, n - 1 - ci)
    square = aligned[ci - reach:ci + reach + 1, ci - reach:ci + reach + 1]
    lat = round(LATERAL * die_mm / 2 * ppm)
    step = round(ppm)  # pixels per 1 mm bin
    cols0 = reach + round(BIN0_MM * ppm)
    width = BINS * step
    strips = []
    for k in range(4):
        m = quarter_turned(square, k)[reach - lat:reach + lat + 1, cols0:cols0 + width]
        if m.shape[1] < width:  # the patch is too small for this die: pad with its edge
            m = np.concatenate([m, np.repeat(m[:, -1:], width - m.shape[1], axis=1)], axis=1)
        strips.append(m)
    planes = np.empty((3, 4, *strips[0].shape[:2]), np.float32)
    for k, m in enumerate(strips):
        planes[:, k] = m.transpose(2, 0, 1)
    body = face_colour.astype(np.float32)
    fsum = planes[0] + planes[1] + planes[2] + np.float32(1.0)  # (channel by channel)
    level = fsum / np.float32(bright)
    chroma = body / np.float32(bright)
    cdist = sum_planes([np.abs(planes[i] / fsum - chroma[i]) for i in range(3)]) * 10.0
    # the die's body colour, shaded (a side face is lit differently from the upward face)
    bodyish = ((cdist < 0.6) & (level > 0.3) & (level < 1.1)).astype(np.float32)
    # pips on it: pixels nearer the face's pip colour than its body colour, amid body colour
    pip = pip_colour.astype(np.float32)
    pipish = (sum_planes([np.abs(planes[i] - pip[i]) for i in range(3)])
              < sum_planes([np.abs(planes[i] - body[i]) for i in range(3)]))
    amid = np.stack([cv2.blur(b, (POCKET_PX, POCKET_PX)) for b in bodyish]) > 0.35
    # the four maps binned (map after map, 16 x rows x bins), then each bin's mean over the
    # rows and the brightness's spread
    maps = np.stack([level, cdist, bodyish, (pipish & amid).astype(np.float32)])
    binned = _bin_means(maps.reshape(16, maps.shape[2], BINS, step))
    out = np.empty((4, PER_EDGE), np.float32)
    prof = np.empty((4, BINS, CHANNELS), np.float32)
    prof[:, :, :4] = binned.mean(axis=1).reshape(4, 4, BINS).transpose(1, 2, 0)
    prof[:, :, 4] = binned[:4].std(axis=1) * 4.0
    out[:, :BINS * CHANNELS] = prof.reshape(4, -1)
    # the face's edge (a flat die's outline; a cocked die's face-to-side-face fold, nearer by
    # cos t) and the silhouette's outer edge beyond it: the strongest steps of brightness
    fine = level.mean(axis=1)  # 4 x width: one value per patch pixel, outwards
    grad = np.abs(np.diff(fine, axis=1))
    grad = (grad[:, :-2] + 2 * grad[:, 1:-1] + grad[:, 2:]) / 4  # grad[:, i]: step i+1 -> i+2
    at0 = BIN0_MM + 1.5 / ppm  # mm of grad's first value (between pixels 1 and 2)
    lo, hi = (round((m - at0) * ppm) for m in FACE_EDGE_MM)
    for k in range(4):
        i1 = lo + int(np.argmax(grad[k, lo:hi]))
        start = min(i1 + round(1.5 * ppm), grad.shape[1] - 1)
        i2 = start + int(np.argmax(grad[k, start:]))
        out[k, BINS * CHANNELS:] = [at0 + i1 / ppm, grad[k, i1] * 10.0, at0 + i2 / ppm,
                                    grad[k, i2] * 10.0]
    pip_level = float(pip_colour.sum()) / bright
    glob = [spread, bright / 765.0, pip_level, len(pip_pts) / 6.0]
    return np.concatenate([out.reshape(-1), glob]).astype(np.float64)


def quarter_turned(m: np.ndarray, k: int) -> np.ndarray:
    """``np.rot90(m, k)`` (k in 0..3) as a view, without its overhead."""
    if k == 1:
        return m[:, ::-1].swapaxes(0, 1)
    if k == 2:
        return m[::-1, ::-1]
    if k == 3:
        return m[::-1].swapaxes(0, 1)
    return m


def sum_planes(planes: list[np.ndarray]) -> np.ndarray:
    """The sum of three colour planes, added one after the other: ``a.sum(axis=-1)`` of the
    array they are the channels of, to the same bits (numpy adds so few values in order),
    without numpy's slow reduction over a short last axis."""
    out: np.ndarray = planes[0] + planes[1] + planes[2]
    return out


def _bin_means(a: np.ndarray) -> np.ndarray:
    """``a.mean(axis=3)`` of a float32 array: fewer than eight values are added in order (as
    numpy does), then divided as numpy divides a float32 sum, the same bits faster."""
    count = a.shape[3]
    if count >= 8:
        out: np.ndarray = a.mean(axis=3)
        return out
    total = a[:, :, :, 0].copy()
    for j in range(1, count):
        total += a[:, :, :, j]
    np.true_divide(total, np.intp(count), out=total, casting="unsafe")
    return total


def side_inputs(profiles: np.ndarray) -> np.ndarray:
    """The per-edge inputs of the cocked network: 4 rows of one edge's values, where the
    opposite edge and the two others lie (a tilted face is narrower along its tilt), the mean
    profiles of all four edges (a side face makes one or two edges unlike the others; a flat
    die, or one whose face angle was misjudged, looks alike all round), and the global
    values."""
    per_side = profiles[:4 * PER_EDGE].reshape(4, PER_EDGE)
    face_edge = per_side[:, BINS * CHANNELS]
    opposite = face_edge[[2, 3, 0, 1]]
    across = (face_edge[[1, 2, 3, 0]] + face_edge[[3, 0, 1, 2]]) / 2
    prof = per_side[:, :BINS * CHANNELS].reshape(4, BINS, CHANNELS)
    shared = np.broadcast_to(prof[:, :, list(SHARED)].mean(axis=0).T.reshape(-1),
                             (4, len(SHARED) * BINS))
    glob = np.broadcast_to(profiles[4 * PER_EDGE:], (4, GLOBALS))
    return np.concatenate([per_side, opposite[:, None], across[:, None], shared, glob], axis=1)


def pooled_logit(side_scores: np.ndarray) -> float:
    """The four edges' scores pooled (log-sum-exp: about the largest)."""
    top = float(side_scores.max())
    return top + math.log(float(np.exp(side_scores - top).sum()))


_STACKED: dict[int, tuple[np.ndarray, int, int, np.ndarray]] = {}


def _stacked_w1(w1: np.ndarray) -> tuple[int, int, np.ndarray]:
    """The members' first-layer weights (members x inputs x hidden, or inputs x hidden for one
    member) side by side as one inputs x (members * hidden) matrix: (members, hidden, it),
    kept per weight array (the model's arrays are loaded once and never changed)."""
    kept = _STACKED.get(id(w1))
    if kept is None or kept[0] is not w1:
        w = w1.reshape(-1, *w1.shape[-2:])
        stacked = np.ascontiguousarray(w.transpose(1, 0, 2).reshape(w.shape[1], -1))
        if len(_STACKED) >= 8:
            _STACKED.clear()
        kept = _STACKED[id(w1)] = (w1, w.shape[0], w.shape[2], stacked)
    return kept[1], kept[2], kept[3]


def edge_logit(model: dict[str, np.ndarray], rows: np.ndarray) -> float:
    """The cocked model's logit for one die's four edge rows (:func:`side_inputs`): each
    member network (one tanh hidden layer; ``w1`` members x inputs x hidden) scores every
    edge, the scores are pooled per member and the members' logits averaged."""
    z = (rows - model["mean"]) / model["scale"]
    members, hidden, stacked = _stacked_w1(model["w1"])
    b1 = model["b1"].reshape(members, -1)
    w2 = model["w2"].reshape(members, -1)
    b2 = model["b2"].reshape(members)
    # every member's hidden layer from one matrix product (members side by side)
    first = (z @ stacked).reshape(len(z), members, hidden).transpose(1, 0, 2)
    h = np.tanh(first + b1[:, None, :])
    scores = np.einsum("ekh,eh->ek", h, w2) + b2[:, None]
    # :func:`pooled_logit` of every member at once (the same operations, row by row)
    top = scores.max(axis=1)
    total = np.exp(scores - top[:, None]).sum(axis=1)
    return float(np.mean([t + math.log(s) for t, s in zip(top.tolist(), total.tolist(),
                                                          strict=True)]))
