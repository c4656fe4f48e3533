"""A die's upward face read around a candidate from ONE top-down patch
(:func:`read_candidate`): the centre hypotheses (the fitted pip layout's, the candidate's own,
the die body's, a lone pip's), each turned to its outline and read on the pip grid, ranked.
The pips and their layout are ``vision.dice.face_pips``', the grid read
``vision.dice.pip_grid``'s, the outline ``vision.dice.face_outline``'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.dice.face_outline import (
    body_centre,
    outline_step,
    outlines_at,
    pixels,
    recentre_many,
)
from vision.dice.face_pips import PatchPip, choose_face, mean_of, patch_dog, pips_from_dog
from vision.dice.pip_grid import PATTERNS, grid_read_many, grid_read_turned
from vision.dice.render import PIP_OFFSET, PIP_RADIUS

PATCH_MM = 40.0
ALIGNED_PX_PER_MM = 4.0
ALIGNED_MM = 36.0
MIN_EDGE = 1.2  # mean grey step per patch pixel along the face outline
MIN_GRID_SCORE = 0.045  # pip evidence at the pattern's places over the empty places


def warp_patch(image: np.ndarray, from_mm: np.ndarray, cx: float, cy: float, size_mm: float,
               ppm: float, angle: float = 0.0) -> np.ndarray:
    """A top-down patch of ``size_mm`` centred on (cx, cy) mm at ``ppm`` px/mm, its x axis
    turned by ``angle`` (radians) on the board."""
    n = round(size_mm * ppm)
    ca, sa = math.cos(angle), math.sin(angle)
    half = size_mm / 2
    # patch px -> local mm (centred) -> board mm
    to_local = np.array([[1.0 / ppm, 0, -half], [0, 1.0 / ppm, -half], [0, 0, 1.0]])
    turn = np.array([[ca, -sa, cx], [sa, ca, cy], [0, 0, 1.0]])
    m = from_mm @ turn @ to_local
    out: np.ndarray = cv2.warpPerspective(image, m, (n, n),
                                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                          borderMode=cv2.BORDER_REPLICATE)
    return out


@dataclass(frozen=True)
class FaceFinding:
    """A die's upward face before its pose is judged (also what the trainer learns from)."""

    pips: int
    x_mm: float
    y_mm: float
    angle: float
    residual: float
    contrast: float
    features: np.ndarray
    score: float = 0.0  # pip evidence: weakest pattern pip over strongest empty place


FACE_PPM = 2.0  # px/mm of the one patch each candidate is read in (the camera gives ~1.3)
FACE_MM = 48.0  # its side: the face centre hypotheses lie up to 0.75 die off the candidate
EDGE_WEIGHT = 0.05  # pip evidence per unit of log outline edge step (see read_candidate)
# a lone pip fitted as a one is read where its outline steps this much, under MIN_EDGE: a black
# die's one on a nearly black board (a clear pip, a faint outline); the die model still judges it
FAINT_ONE_EDGE = 0.45
DECISIVE_SCORE = 0.1  # pip evidence at which a fitted layout the grid confirms ends the search
# a fitted layout of this many pips or more that the grid read confirms (DECISIVE_SCORE, the
# patch's pips bearing it out) is not read as a one at any of its pips (its strongest, or the
# candidate's own place when that lies on one of them): three or more spots
# in a face's very pattern are no coincidence, while a two may be a pip and a spot beside it.
# Where the layout's own outline is faint (a black die on a black point) a one there, outlined
# by the point's edge, outranked it
LAYOUT_KEPT_PIPS = 3
# ... nor is a fitted layout of two pips the grid read confirms so, whose weaker pip has at least
# this share of the stronger's contrast (one pip colour on one body; the spot beside a one that
# makes a two with it, its outline's corner, a shadow, a side face's pip, is seldom as strong) on
# a face of one colour (DECISIVE_SPREAD): a black die's two on a black point, outline faint,
# read as a one at its stronger pip, outlined by the point's edge (synthetic throw 20421)
PAIR_KEPT_ALIKE = 0.8


@dataclass(frozen=True)
class FaceRead:
    """The best face read around a candidate: pip evidence score, centre (mm from the
    candidate), angle, value and 3x3 pattern, outline edge step (per patch pixel at
    :data:`ALIGNED_PX_PER_MM`), the pip layout's fit residual and pip contrast."""

    score: float
    dx: float
    dy: float
    angle: float
    value: int
    mask: np.ndarray
    edge: float
    residual: float
    contrast: float


_SHIFTS = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
AGREE_WEIGHT = 0.05  # rank bonus of a read the patch's pips bear out (:func:`pips_agree`)
MAX_MOVED_SPREAD = 100.0  # grey levels: a recentred read's face must be about one colour
RECENTRE_MIN_SCORE = 0.0  # the most pip evidence of any hypothesis that lets them be recentred
RECENTRE_TURN_DEG = 9.0  # how far the angle is refined again at a recentred face
SPREAD_WEIGHT = 0.5  # rank lost per unit of face grey spread (over 255, :func:`face_spread`)
ONE_WEIGHT = 0.1  # rank lost by a one: any lone pip, a side face's or a checker's, reads as one
DECISIVE_SPREAD = 60.0  # grey levels: the most face spread of a read that ends the search


@lru_cache(maxsize=64)
def _pattern_offsets(mask: bytes, die_mm: float) -> tuple[tuple[float, float], ...]:
    """The pip places (mm from the face centre, row by row) of a 3x3 pattern given as its
    bytes (a few patterns, read again and again; a tuple: the cache's, not to be changed)."""
    step = PIP_OFFSET * die_mm
    rows, cols = np.nonzero(np.frombuffer(mask, bool).reshape(3, 3))
    return tuple(((j - 1) * step, (i - 1) * step) for i, j in zip(rows.tolist(), cols.tolist(),
                                                                  strict=True))


def pips_agree(pips: list[PatchPip], read: FaceRead, die_mm: float) -> bool:
    """Whether the pips found in the patch bear a face read out: for one polarity, a pip at
    every place of its pattern and no other pip as strong inside the face. A square outline
    with stripes or a checker's rim in it can read as a face on the pip grid; it has no such
    pips."""
    ca, sa = math.cos(read.angle), math.sin(read.angle)
    places = _pattern_offsets(read.mask.tobytes(), die_mm)
    for dark in (True, False):
        inside = []
        for p in pips:
            if p.dark != dark:
                continue
            dx, dy = p.x - read.dx, p.y - read.dy
            u, v = dx * ca + dy * sa, -dx * sa + dy * ca  # in the face frame
            if max(abs(u), abs(v)) < 0.42 * die_mm:
                inside.append((u, v, p.contrast))
        hits = [max((c for u, v, c in inside if math.hypot(u - pu, v - pv) < 0.12 * die_mm),
                    default=0.0) for pu, pv in places]
        if min(hits) <= 0.0:
            continue
        floor = 0.5 * min(hits)
        extra = [c for u, v, c in inside if c >= floor
                 and all(math.hypot(u - pu, v - pv) >= 0.12 * die_mm for pu, pv in places)]
        if not extra:
            return True
    return False


def _at_pip(read: FaceRead, pips: list[PatchPip], die_mm: float) -> bool:
    """Whether a read's centre lies on one of ``pips`` (as near as :func:`pips_agree` takes a
    pip to be at its pattern's place)."""
    return any(math.hypot(read.dx - p.x, read.dy - p.y) < 0.12 * die_mm for p in pips)


def face_spread(patch: np.ndarray, read: FaceRead, die_mm: float, ppm: float) -> float:
    """How far from one colour the face of a read is: the range (10th to 90th percentile, grey
    levels) of the patch inside the face, away from its nine pip places. A die's face is one
    colour; a square outline drawn over a checker's rim and a point's apex is not."""
    n = patch.shape[0]
    u, v = _face_samples_kept(die_mm)
    ca, sa = math.cos(read.angle), math.sin(read.angle)
    x = pixels(read.dx + u * ca - v * sa, n, ppm)
    y = pixels(read.dy + u * sa + v * ca, n, ppm)
    values = np.sort(patch[y, x].astype(np.float32))
    return _quantile(values, 0.9) - _quantile(values, 0.1)


def _quantile(ordered: np.ndarray, q: float) -> float:
    """The ``q`` quantile of sorted values, interpolated linearly between neighbours (as
    ``np.percentile`` does, without its overhead: it runs on every face hypothesis)."""
    at = q * (len(ordered) - 1)
    i = min(int(at), len(ordered) - 2)
    return float(ordered[i] + (at - i) * (ordered[i + 1] - ordered[i]))


@lru_cache(maxsize=4)
def _face_samples_kept(die_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_face_samples` away from every pip place only."""
    u, v, keep = _face_samples(die_mm)
    return u[keep], v[keep]


@lru_cache(maxsize=4)
def _face_samples(die_mm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample places inside a face (mm, face frame) and which lie away from every pip place."""
    u, v = (a.reshape(-1) for a in np.meshgrid(np.linspace(-0.4, 0.4, 17) * die_mm,
                                                 np.linspace(-0.4, 0.4, 17) * die_mm))
    step = PIP_OFFSET * die_mm
    keep = np.ones(len(u), bool)
    for i in range(3):
        for j in range(3):
            keep &= np.hypot(u - (j - 1) * step, v - (i - 1) * step) > 2.0 * PIP_RADIUS * die_mm
    return u, v, keep


def _read_at(dog: np.ndarray, x0: float, y0: float, angle: float, edge: float, die_mm: float,
             ppm: float, residual: float, contrast: float) -> FaceRead:
    """The face read on the pip grid at a centre hypothesis (and 1 mm around it)."""
    ks, scores = grid_read_many(dog, _SHIFTS + np.array([x0, y0]), angle, die_mm, ppm)
    i = int(np.argmax(scores))
    value, mask = PATTERNS[int(ks[i])]
    return FaceRead(float(scores[i]), x0 + float(_SHIFTS[i, 0]), y0 + float(_SHIFTS[i, 1]),
                    angle, value, mask, edge, residual, contrast)


def _reads_at(dog: np.ndarray, places: list[tuple[float, float, float, float]], die_mm: float,
              ppm: float, residual: float, contrast: float) -> list[FaceRead]:
    """:func:`_read_at` at several (x, y, angle, edge) at once, the same reads."""
    if not places:
        return []
    xy = np.array([[p[0], p[1]] for p in places])
    cos = np.repeat([math.cos(p[2]) for p in places], len(_SHIFTS))[:, None]
    sin = np.repeat([math.sin(p[2]) for p in places], len(_SHIFTS))[:, None]
    ks, scores = grid_read_turned(dog, (_SHIFTS[None] + xy[:, None]).reshape(-1, 2), cos, sin,
                                  die_mm, ppm)
    ks, scores = ks.reshape(len(places), -1), scores.reshape(len(places), -1)
    out = []
    for row, ((x0, y0, angle, edge), i) in enumerate(zip(places, np.argmax(scores, axis=1).tolist(),
                                                         strict=True)):
        value, mask = PATTERNS[int(ks[row, i])]
        out.append(FaceRead(float(scores[row, i]), x0 + float(_SHIFTS[i, 0]),
                            y0 + float(_SHIFTS[i, 1]), angle, value, mask, edge, residual,
                            contrast))
    return out


def _rank(read: FaceRead, agree: bool, spread: float) -> float:
    """How much a face read is to be believed: its pip evidence, plus :data:`EDGE_WEIGHT` times
    the log of its outline's edge step, plus :data:`AGREE_WEIGHT` when the patch's pips bear it
    out (:func:`pips_agree`), less :data:`SPREAD_WEIGHT` times its face's grey spread
    (:func:`face_spread`, over 255) and :data:`ONE_WEIGHT` for a one (a single pip anywhere
    reads as a one)."""
    return (read.score + EDGE_WEIGHT * math.log(max(read.edge, 0.3)) + AGREE_WEIGHT * agree
            - SPREAD_WEIGHT * spread / 255.0 - ONE_WEIGHT * (read.value == 1))


def _ready_reads(gx: np.ndarray, gy: np.ndarray, dog: np.ndarray,
                 starts: list[tuple[float, float, float, float]], first: int, die_mm: float,
                 ppm: float, to_aligned: float, residual: float, contrast: float
                 ) -> dict[int, tuple[float, float, FaceRead | None]]:
    """For :func:`read_candidate`: the outline (edge step at the aligned scale, angle) of every
    start from ``first`` on, and its read on the pip grid where the outline is clear enough
    (None otherwise), all at once."""
    outlines = outlines_at(gx, gy, starts[first:], die_mm, ppm)
    edges = [(edge * to_aligned, angle) for edge, angle in outlines]
    clear = [i for i, (edge, _) in enumerate(edges) if edge >= MIN_EDGE]
    reads = _reads_at(dog, [(starts[first + i][0], starts[first + i][1], edges[i][1],
                             edges[i][0]) for i in clear], die_mm, ppm, residual, contrast)
    got = dict(zip(clear, reads, strict=True))
    return {first + i: (edge, angle, got.get(i)) for i, (edge, angle) in enumerate(edges)}


@dataclass(frozen=True)
class CandidatePatch:
    """A candidate's top-down patch (:data:`FACE_MM` square around it) and its pip-scale
    difference of Gaussians (:func:`patch_dog`)."""

    patch: np.ndarray
    dog: np.ndarray


# a frame's candidate patches by place (x, y board mm), die size (mm) and px/mm: a second chance
# (``vision.dice.tilted``) reads the very pixels the face read at its candidate read
CandidatePatches = dict[tuple[float, float, float, float], CandidatePatch]


def candidate_patch(gray: np.ndarray, from_mm: np.ndarray, cx: float, cy: float,
                    die_mm: float, ppm: float, kept: CandidatePatches | None = None
                    ) -> CandidatePatch:
    """The top-down patch a candidate (cx, cy board mm) is read in at ``ppm`` px/mm, and its
    DoG: the ones ``kept`` holds for it, else worked out (and put there)."""
    key = (cx, cy, die_mm, ppm)
    found = kept.get(key) if kept is not None else None
    if found is None:
        patch = warp_patch(gray, from_mm, cx, cy, FACE_MM, ppm)
        found = CandidatePatch(patch, patch_dog(patch, die_mm, ppm))
        if kept is not None:
            kept[key] = found
    return found


def read_candidate(gray: np.ndarray, from_mm: np.ndarray, cx: float, cy: float,
                   die_mm: float, ppm: float | None = None,
                   kept: CandidatePatches | None = None) -> FaceRead | None:
    """Read the face around a candidate (cx, cy board mm) from ONE top-down patch: its
    pip-scale DoG and gradients are computed once and shared by the pip finder, the layout
    fit and every centre hypothesis (the fitted layout's centre, the candidate's own, the die
    body's, and the fitted layout's strongest pip as a one's centre), each refined by its
    outline angle and read on the pip grid (within a mm of it).

    The hypothesis kept has the highest :func:`_rank`: pip evidence, a clear outline, the
    patch's pips bearing it out, a face of one colour. A lone pip of a two or a four taken for
    a one's centre shows as much pip evidence as the whole face read at its true centre, but a
    weaker outline; a two made of a one's pip and a spot beside the die (a point's edge at a
    die corner, a side face's pip, a checker's rim), centred between them, takes in what lies
    beside the die and is far from one colour. A fitted layout of two or more pips that the
    grid read confirms with :data:`DECISIVE_SCORE`, on a face of one colour
    (:data:`DECISIVE_SPREAD`) with an outline, ends the search; a fitted layout of two or more
    pips is read even where its outline is faint (a black die on a black checker), a lone pip
    down to :data:`FAINT_ONE_EDGE`. When some hypothesis shows pip evidence
    (:data:`RECENTRE_MIN_SCORE`), each is also moved to its strongest outline nearby
    (:func:`recentre`), its angle refined there (:data:`RECENTRE_TURN_DEG`), and read again;
    such a read counts only with :data:`MIN_GRID_SCORE`, if the pips bear it out and its face
    is about one colour (:data:`MAX_MOVED_SPREAD`), so that an outline beside board texture
    does not turn texture into a die. On 400 throws of the training range (seeds
    1,000,000+, ``tests.eval.dice``) this ranking, the one's ring (:func:`grid_read_many`)
    and the recentring of every hypothesis took the dice found from 763 to 773 of 800 and
    those read right from 729 to 755 (95.5% to 97.7%), with 22 extra dice instead of 23. None
    when no hypothesis shows a face outline. ``kept``: the frame's candidate patches, which
    the patch is taken from or put in (:func:`candidate_patch`)."""
    ppm = ppm or FACE_PPM
    at = candidate_patch(gray, from_mm, cx, cy, die_mm, ppm, kept)
    patch, dog = at.patch, at.dog
    radius = PIP_RADIUS * die_mm * ppm
    pips = pips_from_dog(dog, radius, ppm, PATCH_MM / 2)
    face = choose_face(pips, die_mm)
    sm = cv2.GaussianBlur(patch, (3, 3), 0).astype(np.float32)
    # the steps in float32, then held in float64 (the same values): every outline sample
    # taken from them is multiplied by a float64 normal, which numpy does faster without
    # casting float32 on the way (the demo's 29 recentrings replayed alone: 238 us a call
    # with float32 steps, 116 to 135 with these)
    gx = (cv2.Sobel(sm, cv2.CV_32F, 1, 0, ksize=3) / 8.0).astype(np.float64)
    gy = (cv2.Sobel(sm, cv2.CV_32F, 0, 1, ksize=3) / 8.0).astype(np.float64)
    to_aligned = ppm / ALIGNED_PX_PER_MM  # edge steps per pixel as at the aligned scale
    best: FaceRead | None = None
    rank = -math.inf
    residual, contrast = 0.16 * die_mm, 0.0
    fitted = 0
    alike = False  # a fitted layout of two pips as strong as each other (PAIR_KEPT_ALIKE)
    starts: list[tuple[float, float, float, float]] = []
    if face is not None:
        members, residual, fx, fy, a0 = face
        fitted = len(members)
        strengths = [p.contrast for p in members]
        contrast = mean_of(strengths)
        alike = fitted == 2 and min(strengths) >= PAIR_KEPT_ALIKE * max(strengths)
        starts.append((fx, fy, a0, 45.0 if fitted < 2 else 9.0))
    starts.append((0.0, 0.0, 0.0, 45.0))
    lone = None  # a fitted layout's strongest pip, as a one's centre (the layout may be wrong)
    confirmed: list[PatchPip] = []  # a confirmed layout's pips: no one is read at them
    if fitted >= 2 and face is not None:
        top = max(face[0], key=lambda p: p.contrast)
        if math.hypot(top.x, top.y) >= 1.0:  # else the candidate's own hypothesis is it
            lone = (top.x, top.y, 0.0, 45.0)
    hypotheses: list[tuple[float, float, float]] = []  # centre and angle, to recentre later
    top_score = -math.inf  # the most pip evidence any hypothesis shows
    # start -> (outline edge step, angle, read or None): worked out together for the starts
    # every one of which is read (no decisive read can end the search among them)
    ready: dict[int, tuple[float, float, FaceRead | None]] = {}
    k = 0
    while k < len(starts):
        x0, y0, a, search = starts[k]
        k += 1
        if k == len(starts) and len(starts) < 3:
            # the die body's centre, looked for only when the hypotheses so far left a doubt
            bx, by = body_centre(patch, die_mm, ppm, max(1, round(ppm)))
            if math.hypot(bx, by) > 1.0:
                starts.append((bx, by, 0.0, 45.0))
            if lone is not None:
                starts.append(lone)
            if not (k == 1 and fitted >= 2):
                ready = _ready_reads(gx, gy, dog, starts, k - 1, die_mm, ppm, to_aligned,
                                     residual, contrast)
        if k - 1 in ready:
            edge, angle, found = ready[k - 1]
            if found is None:
                continue
            read = found
        else:
            edge, angle = outline_step(gx, gy, x0, y0, a, die_mm, ppm, search)
            edge *= to_aligned
            if edge < MIN_EDGE and not (k == 1 and (fitted >= 2 or (
                    fitted == 1 and edge >= FAINT_ONE_EDGE))):
                continue
            read = _read_at(dog, x0, y0, angle, edge, die_mm, ppm, residual, contrast)
        top_score = max(top_score, read.score)
        hypotheses.append((x0, y0, angle))
        if (k == 1 and fitted >= 2 and read.value == fitted and read.score >= DECISIVE_SCORE
                and edge >= MIN_EDGE):
            spread = face_spread(patch, read, die_mm, ppm)
            if spread <= DECISIVE_SPREAD:
                return read  # the fitted layout, confirmed on the pip grid with a clear margin
        else:
            spread = math.nan  # not yet measured
        agree = pips_agree(pips, read, die_mm)
        if (k == 1 and (fitted >= LAYOUT_KEPT_PIPS or alike) and read.value == fitted and agree
                and read.score >= DECISIVE_SCORE):
            if math.isnan(spread):  # (measured below anyway: the first read is ranked)
                spread = face_spread(patch, read, die_mm, ppm)
            if face is not None and (fitted >= LAYOUT_KEPT_PIPS or spread <= DECISIVE_SPREAD):
                lone = None  # a layout confirmed: not one of its pips alone
                confirmed = face[0]
        if read.value == 1 and _at_pip(read, confirmed, die_mm):
            continue  # (the candidate's own centre may be one of those pips)
        if best is not None and _rank(read, agree, 0.0) <= rank:
            continue  # (a face's spread only lowers its rank)
        if math.isnan(spread):
            spread = face_spread(patch, read, die_mm, ppm)
        r = _rank(read, agree, spread)
        if best is None or r > rank:
            rank, best = r, read
    if best is None or top_score < RECENTRE_MIN_SCORE:
        return best  # no die here by its own hypotheses: an outline nearby is not one
    # every hypothesis moved to its outline (unless it is there already) is read again
    moved = [(rx, ry, angle, RECENTRE_TURN_DEG) for (x0, y0, angle), (rx, ry, _) in
             zip(hypotheses, recentre_many(gx, gy, hypotheses, die_mm, ppm), strict=True)
             if math.hypot(rx - x0, ry - y0) >= 1.0]
    outlines = outlines_at(gx, gy, moved, die_mm, ppm)
    for read in _reads_at(dog, [(rx, ry, angle, edge * to_aligned) for (rx, ry, _, _), (edge, angle)
                                in zip(moved, outlines, strict=True)],
                          die_mm, ppm, residual, contrast):
        if (read.score < MIN_GRID_SCORE or _rank(read, True, 0.0) <= rank
                or (read.value == 1 and _at_pip(read, confirmed, die_mm))
                or not pips_agree(pips, read, die_mm)):
            continue  # (a face's spread only lowers its rank)
        spread = face_spread(patch, read, die_mm, ppm)
        r = _rank(read, True, spread)
        if r > rank and spread <= MAX_MOVED_SPREAD:
            rank, best = r, read
    return best
