"""Face hypotheses for a tilted (cocked) die, whose upward face the usual fit misses.

Seen from above, a die cocked against a checker or the rail (BG-ROLL-2) shows its upward face
foreshortened along the tilt and displaced a few mm from the die body, with a side face beside
it; from an oblique camera, warped to the board plane, the raised face is also a little larger
than a flat one. The usual face read (``vision.dice.face_fit.read_candidate``) looks for a
square face of the die's size near the candidate, and on such a die often lands across the
face and the side face, whose grey spread then fails the face test. Here faces are looked for
on a ring of centres around the candidate, square or squashed/stretched along the board's axes
(the top-down patch is rescaled so that the hypothesised face is square there, and the shared
outline search and pip-grid read of ``face_fit`` run on it unchanged).

Which hypothesis is a real cocked die read right is weighed by a small logistic acceptor
(:func:`p_second_chance`, fitted on the training throws' second chances by
``vision.dice.train_raster --second-chances`` and kept in ``raster_model.json`` under
``second_chance``): the die and cocked models' probabilities, the pip evidence, the outline
step, the face's grey spread, the solidity of its pips (``vision.dice.solid``) and the kind of
hypothesis. The reader (``second_chance.SecondTry.accepted``) keeps what the acceptor passes besides
what the two gates before it pass (die model >= 0.7 and solid pips): those had turned away
real cocked dice leaning on the rail whose other figures were clear (BG-ROLL-2).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.dice.face_fit import (
    ALIGNED_PX_PER_MM,
    EDGE_WEIGHT,
    FACE_PPM,
    MIN_EDGE,
    CandidatePatches,
    candidate_patch,
)
from vision.dice.face_outline import outline_steps_about
from vision.dice.face_pips import patch_dog
from vision.dice.pip_grid import PATTERNS, grid_read_turned
from vision.dice.raster import MODEL_PATH
from vision.dice.render import PIP_OFFSET

RING_MM = 3.5  # how far off the candidate the ring's face centres lie
RING = np.array([[0.0, 0.0]] + [[math.cos(a), math.sin(a)]
                                 for a in np.radians(np.arange(0, 360, 45))]) * RING_MM
# the face's scale along the board's x and y: square; squashed along y (the demo camera looks
# along the board's y, the direction a die leaning on a checker or the rail is tipped); larger
# (a raised face nearer the camera)
SQUASHES: tuple[tuple[float, float], ...] = ((1.0, 1.0), (1.0, 0.8), (1.2, 1.2))
_SHIFTS = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])


@dataclass(frozen=True)
class TiltedRead:
    """A face hypothesis: pip evidence score, centre (mm from the candidate), angle (radians,
    in the rescaled frame where the face is square), value, 3x3 pattern, outline edge step,
    rank (score plus ``EDGE_WEIGHT`` log edge), and the face's scale along the board's x, y."""

    score: float
    dx: float
    dy: float
    angle: float
    value: int
    mask: np.ndarray
    edge: float
    rank: float
    squash: tuple[float, float]

    def pip_points(self, die_mm: float) -> np.ndarray:
        """The pattern's pips in the frame of a patch turned by :attr:`angle` on the board
        (mm from the face centre), the squash applied: where they lie in the aligned patch."""
        step = PIP_OFFSET * die_mm
        pts = np.array([[(j - 1) * step, (i - 1) * step]
                        for i, j in zip(*np.nonzero(self.mask), strict=True)]).reshape(-1, 2)
        if self.squash == (1.0, 1.0):
            return pts
        ca, sa = math.cos(self.angle), math.sin(self.angle)
        turn = np.array([[ca, -sa], [sa, ca]])
        out: np.ndarray = pts @ (turn.T @ np.diag(self.squash) @ turn).T
        return out


def _rescaled(patch: np.ndarray, squash: tuple[float, float]) -> np.ndarray:
    """The patch scaled about its centre by 1 / ``squash`` along x and y (same size), so that
    a face of that squash is square in it."""
    if squash == (1.0, 1.0):
        return patch
    n = patch.shape[0]
    c = n / 2
    sx, sy = 1.0 / squash[0], 1.0 / squash[1]
    m = np.array([[sx, 0.0, (1 - sx) * c], [0.0, sy, (1 - sy) * c]])
    out: np.ndarray = cv2.warpAffine(patch, m, (n, n), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE)
    return out


def tilted_reads(gray: np.ndarray, from_mm: np.ndarray, cx: float, cy: float, die_mm: float,
                 ppm: float | None = None, kept: CandidatePatches | None = None
                 ) -> list[TiltedRead]:
    """Every ring hypothesis around a candidate (cx, cy board mm) that shows a face outline,
    best rank first. ``kept``: the frame's candidate patches (``face_fit.candidate_patch``:
    the face read's patch and DoG at the candidate, the square hypotheses' own)."""
    ppm = ppm or FACE_PPM
    at = candidate_patch(gray, from_mm, cx, cy, die_mm, ppm, kept)
    patch = at.patch.astype(np.float32)
    to_aligned = ppm / ALIGNED_PX_PER_MM
    out: list[TiltedRead] = []
    for squash in SQUASHES:
        p = _rescaled(patch, squash)
        # (a square face is read in the candidate's own patch: the face read's DoG of it)
        dog = at.dog if p is patch else patch_dog(p, die_mm, ppm)
        sm = cv2.GaussianBlur(p, (3, 3), 0)
        gx = cv2.Sobel(sm, cv2.CV_32F, 1, 0, ksize=3) / 8.0
        gy = cv2.Sobel(sm, cv2.CV_32F, 0, 1, ksize=3) / 8.0
        # every ring centre's outline at once (in the rescaled patch), then the pip grid at
        # once around those that show one, each at its own angle
        centres = RING / np.array(squash)
        steps, turns = outline_steps_about(gx, gy, tuple(map(tuple, centres.tolist())), die_mm,
                                           ppm, 45.0)
        best = np.argmax(steps, axis=1)
        edges = steps[np.arange(len(RING)), best] * to_aligned
        keep = [i for i in range(len(RING)) if edges[i] >= MIN_EDGE]
        if not keep:
            continue
        angles = [float(turns[best[i]]) for i in keep]
        cos = np.repeat([math.cos(a) for a in angles], len(_SHIFTS))[:, None]
        sin = np.repeat([math.sin(a) for a in angles], len(_SHIFTS))[:, None]
        ks, scores = grid_read_turned(dog, (_SHIFTS[None] + centres[keep][:, None]).reshape(-1, 2),
                                      cos, sin, die_mm, ppm)
        ks, scores = ks.reshape(len(keep), -1), scores.reshape(len(keep), -1)
        shifts = np.argmax(scores, axis=1).tolist()
        for row, (i, angle, j) in enumerate(zip(keep, angles, shifts, strict=True)):
            sx, sy = float(centres[i, 0]), float(centres[i, 1])
            value, mask = PATTERNS[int(ks[row, j])]
            edge = float(edges[i])
            score = float(scores[row, j])
            out.append(TiltedRead(score, (sx + float(_SHIFTS[j, 0])) * squash[0],
                                  (sy + float(_SHIFTS[j, 1])) * squash[1], angle, value, mask,
                                  edge, score + EDGE_WEIGHT * math.log(edge), squash))
    out.sort(key=lambda r: -r.rank)
    return out


# the acceptor's inputs, in order (second_chance_inputs)
SECOND_CHANCE_INPUTS = ("logit p_die", "logit p_cocked", "solidity", "score x10", "log edge",
                        "spread / 64", "squashed", "larger", "usual read")
SECOND_CHANCE_KEY = "second_chance"  # the acceptor's entry in raster_model.json


def _logit(p: float) -> float:
    q = min(max(p, 1e-4), 1.0 - 1e-4)
    return math.log(q / (1.0 - q))


def second_chance_inputs(read: TiltedRead, p_die: float, p_cocked: float, solidity: float,
                         spread: float, usual: bool) -> np.ndarray:
    """The acceptor's inputs for one hypothesis (see :data:`SECOND_CHANCE_INPUTS`): the die and
    cocked models' probabilities of its face, its pips' solidity, its pip evidence and outline
    step, the face's grey spread (grey levels), its squash, and whether it is the usual read."""
    return np.array([_logit(p_die), _logit(p_cocked), solidity, read.score * 10.0,
                     math.log(max(read.edge, 0.1)), min(spread, 200.0) / 64.0,
                     float(read.squash == SQUASHES[1]), float(read.squash == SQUASHES[2]),
                     float(usual)])


@lru_cache(maxsize=1)
def _acceptor() -> dict[str, np.ndarray] | None:
    if not MODEL_PATH.exists():
        return None
    entry = json.loads(MODEL_PATH.read_text()).get(SECOND_CHANCE_KEY)
    if entry is None:
        return None
    return {k: np.asarray(entry[k], np.float64) for k in ("mean", "scale", "w", "b",
                                                          "threshold")}


def p_second_chance(inputs: np.ndarray) -> float:
    """Probability that a second chance's hypothesis is a real cocked die read right (the
    logistic acceptor); without a fitted acceptor none is (0: no second chances)."""
    m = _acceptor()
    if m is None:
        return 0.0
    z = float(((inputs - m["mean"]) / m["scale"]) @ m["w"] + m["b"])
    return 1.0 / (1.0 + math.exp(-min(max(z, -40.0), 40.0)))


def second_chance_acceptance() -> float:
    """The acceptor's bar (chosen at fitting time; 1 without a fitted acceptor)."""
    m = _acceptor()
    return 1.0 if m is None else float(m["threshold"])
