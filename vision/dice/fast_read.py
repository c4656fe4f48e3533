"""A fast first read of each raster place (issue 5: reading dice must cost little beside a board
reading; only a die resting flat counts, BG-ROLL-2, so only those are taken fast): an unaligned
top-down patch about the place, the patch network's layers (``vision.dice.patch_net``) with a
head of :data:`CLASSES` classes (not a die, cocked or unsure, a flat die showing 1..6) and the
die centre's offset from the patch centre (``fast_model.npz``, fitted by
``vision.dice.train_fast``).

The reader (``vision.dice.board.read_board_dice``) looks at each place once where the raster
put it. A first look past the model's bar (:data:`ONE_LOOK_BAR`) needs no other look; one
past :data:`FIRST_BAR` only (or whose one-look read fails) is looked at again where that look
put the die's centre. A die the looks call the same flat face (a second look past
:data:`SECOND_BAR`, with centres within :data:`AGREE_MM`), whose face the pip grid about the
last look's centre (:func:`grid_confirm`) reads with the same pips, clear of
the lines where the centre decides the half or the region (:data:`LINE_MARGIN_MM`), out of a
cocked die's reach of the rail and the bar (``support``'s rail bar needs the full reader's
models) and not on a checker by the reader's rim test, is that die at once, at the grid's
centre; the places within its reach are not read again. A place the first look calls not a
die with at least the model's ``drop`` is not read at all; every other place goes to the full
reader. Thorough reads, ``tilted_near`` reads and the spot candidates do not use it.

Figures (bar 0.98, drop 0.999). Check patches (580 throws of ``train_cocked``'s kinds 0 and
3-6, seeds from 8,050,000; 9,352 patches), one look: 450 of 667 flat dice at the raster's
places called flat past the bar, none misread; none of 3,416 cocked-die patches nor of 3,256
places with no die; 92% of those places dropped, and no die's patch called not a die above
0.47. Random throws 8,700,000-8,700,499 (board reader alone): 261 of 697 flat dice read
fast, none with wrong pips, pose or on-checker. ``tests.eval.dice --synthetic 600 --seed0
43000`` (held out): 290 of 842 flat dice read fast (board reader alone), none wrong; every
figure as without it (pips 99.49%, cocked caught 99.71%, flat called cocked 0.12%, half and
on-checker 100%, cubes 99.81%, beside-a-checker throws alike) but the extra dice, 45 -> 3
over the 600 throws (the places dropped), and the pass's time, 69.8 -> 36.5 ms a frame
(under different machine load). The demo (``controller.cli demo --illegal 2 --invalid-throws
2``): 66 dice read fast, 64 faces left to the full reader; dice 3.53 -> 2.93 ms a still
frame (partial reads 6.75 -> 5.55 ms each); ``tests.bench.dice`` on its recording: the die
reader's stages 5.31 -> 3.08 ms a frame (mean), fresh frames 20.7 -> 18.3 ms. A look costs
about 0.3 ms a place (one batch), the face fit about 0.5 ms a die read fast. Numpy only.

A second look need only clear :data:`SECOND_BAR` (0.9) where the first cleared the bar: on the
demo 66 -> 86 dice read fast, 64 -> 44 faces left to the full reader (of those, on its
recording, the first look below the bar sends most; the rail, line and checker gates none);
held out (``--seed0 44000``, board reader alone) 306 -> 387 of 866 flat dice read fast, none
wrong, and every ``tests.eval.dice`` line as before. Readings on ``tests.bench.digest`` differ
only in fast dice's confidences.

The confirmation was the face fit at the raster's place (``face_fit.read_candidate``, the full
reader's first step: its pip finding, layout fit over angles and outlines); it is now the pip
grid read alone about the network's centre (:func:`grid_confirm`), and the first look need
only clear :data:`FIRST_BAR` (0.95). Best of 15 over the fast dice of 12 dev throws (machine
shared, loaded): the face fit 0.80 ms a die, the pip grid 0.42 ms, the rim test 0.19 ms more
(the pip grid 0.18 ms since: below).
On the dev throws (``tests.eval.fast_dev``: 1,000 random throws from 8,700,000 and 150 of
each of ``train_cocked``'s kinds 3-6 from 8,701,000; 2,162 flat dice), dice read fast: the
face fit at 0.98, 998 (2,455 places left to the full reader); the pip grid at 0.98, 1,002
(2,451); the pip grid at 0.95, 1,256 (2,197); none wrong in pips, pose, on-checker or half,
nor at 0.9 (1,351). The network calls dice on a checker flat as surely as any (208 past both
looks at 0.95 and 0.9 there): the rim test, or the rail's reach, sends each to the full
reader, whichever confirmation. The pip grid alone reads board texture more readily than the
face fit (a bare place of throw 8,950,100: 0.066 against 0.033, the bar 0.045): no place
without a die passed even looks at 0.8 and 0.5 on the dev throws, but the looks are what
keep it out.
``tests.eval.dice --synthetic 300 --seed0 8700000 --reader hybrid``: every line as before but
flat dice called cocked 3 -> 2. The demo: 86 -> 112 dice read fast, 44 -> 18 faces left to
the full reader, match.mat the same; plain runs alternating with main's on the shared machine
(medians of 8 and 9): partial reads 4.19 -> 3.89 ms each, dice 2.19 -> 2.06 ms a still frame,
(dice + cube) / board 0.80 -> 0.77 (two runs each: the face fit at 0.95, 3.44 and 4.19; the
pip grid at 0.98, 3.90 and 4.42; the noise is about as large as the gain). Readings on
``tests.bench.digest`` differ in fast dice's centres (the pips' peaks, not the face fit's
centre: at most 1.2 px) and confidences (the dice now read fast, the looks' probability
between 0.95 and 0.98, the pip grid's contrast: at most 0.08), none in pips, pose, on-checker,
the number of dice or the cube.

The same readings, cheaper (``tests.bench.digest`` equal): the pip grid's hypotheses' pixels
are worked out once per patch and die size (``pip_grid.Lattice``; a read is then one gather
from the DoG's 3x3 minima and maxima), only the confirmed patches' pixels are made grey
(:class:`PartGrey`), and :func:`near_a_line` probes only near an edge. Best of 7 (thread CPU,
alternating with the code before, shared machine) over the 95 ``fast_dice`` calls of the
demo recording's still frames (119 dice confirmed, 112 read fast): ``fast_dice`` 1.66 ->
1.10-1.19 ms a call; :func:`grid_confirm` 0.40 -> 0.18 ms a die (its ``pip_peaks`` 0.075 ->
0.032 ms); :func:`near_a_line` 0.033 -> 0.001 ms; the frame's grey (0.19 ms) not made; the
rim test (0.20 ms a die) and a look (0.29 ms a call, mostly the network's forward pass) as
they were. The demo, 6 runs each alternating: (dice + cube) / board 0.68 -> 0.65 (medians;
lower in each pair), partial reads 3.88 -> 3.69 ms each, match.mat the same.

One look where the model is sure: a first look past the model's own bar (:data:`ONE_LOOK_BAR`;
``train_fast.choose_bar`` took 0.98 as the lowest at which no cocked check patch passes one
look) is confirmed about that look's centre and taken without a second look; the others are
looked at again as before. Dev throws (``tests.eval.fast_dev``, 2,162 flat dice): one look at
0.98 alone takes 1,046 dice, none wrong; with the two looks' as well, 1,300 (1,256 before),
none wrong; second looks at 1,752 -> 706 places; the surest wrong one-look read was a cocked
die at 0.954. Readings on ``tests.bench.digest`` differ only in such dice's centres (at most
0.1 mm, 1.2 px) and confidences (at most 0.06): none in pips, pose, on-checker, the number of
dice or the cube.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.dice.board_die import BoardDie, pip_evidence, pose_factor
from vision.dice.candidates import apply
from vision.dice.face_fit import FACE_PPM, MIN_GRID_SCORE, FaceFinding, warp_patch
from vision.dice.face_pips import patch_dog
from vision.dice.on_checker import on_checker
from vision.dice.patch_net import PATCH_PX, PATCH_PX_PER_MM, Weights, forward, normalise, shapes
from vision.dice.pip_grid import (
    PATTERNS,
    Lattice,
    evidence_planes,
    lattice,
    lattice_read,
    pip_peaks,
)
from vision.dice.support import LEAN_REACH_SIDES, rail_gap_mm
from vision.dice.upward_net import probabilities
from vision.geometry import BoardGeometry

FAST_MODEL = Path(__file__).with_name("fast_model.npz")
NOT_DIE, COCKED = 0, 1  # classes; 2..7: a flat die showing 1..6
CLASSES = 8
OFFSETS = 2  # the die centre less the patch centre (x, y), in units of OFFSET_MM
OFFSET_MM = 8.0
# the second look, centred where the first put the die, need only call the same face with this
# probability (or the model's bar, if lower): the first look's bar and the confirmation's pips
# keep cocked dice out (the figures here were the face fit's, the confirmation then). Dev
# throws (seeds 8,700,000+: 1,000 random, 150 of each of ``train_cocked``'s kinds 3-6; places
# of flat dice in the open read fast, before the one-die-per-reach check): 800 -> 1,023, none
# wrong, no cocked die past both looks (a first look at 0.9 let one through)
SECOND_BAR = 0.9
# the first look need only call a flat die with this probability (or the model's bar, if lower):
# the second look, the pip grid's pips and the gates keep out the rest. Dev throws
# (``tests.eval.fast_dev``, the pip grid confirming): 1,003 -> 1,257 dice read fast, none
# wrong; the surest wrong ones past both looks at 0.8 and 0.5: a cocked die at 0.904 (first
# look; the second 0.881), wrong pips at 0.896 (the pip grid read the die's own)
FIRST_BAR = 0.95
# a fast die's two looks must put its centre within this of each other (a die whose first look
# was far off, or two dice in one patch, goes to the full reader)
AGREE_MM = 1.5
# a fast die this close to a line where its centre decides its half or region (the bar, the
# trays, the frame, the middle of a half's field) goes to the full reader, whose centre is the
# face's own
LINE_MARGIN_MM = 4.0
# a first look past the model's own bar is confirmed about its centre and taken without a
# second look (:func:`fast_dice`). Dev throws (the 1,600 of ``tests.eval.fast_dev``; places
# whose first look called a flat die past 0.9): the one look at 0.98 takes 1,046 dice, none
# wrong; with the two looks' 1,256 as well, 1,300, none wrong; second looks 1,752 -> 706. The
# surest wrong one-look read: a cocked die at 0.954 (its second look: not flat). None: the
# model's own bar (``FastModel.bar``: on check patches no cocked die past it, one look alone)
ONE_LOOK_BAR: float | None = None


@dataclass(frozen=True)
class FastModel:
    """The fitted weights and the bar a flat die's probability must clear to be read fast."""

    weights: Weights
    bar: float
    # a place whose first look calls it not a die with at least this probability is not read
    # at all (above 1: every such place goes to the full reader)
    drop: float = 2.0


@lru_cache(maxsize=1)
def fast_model() -> FastModel | None:
    """The shipped model (``fast_model.npz``); None when there is none or it does not fit
    the network's shapes (every place then goes to the full reader)."""
    if not FAST_MODEL.exists():
        return None
    want = shapes(CLASSES + OFFSETS)
    with np.load(FAST_MODEL) as data:
        weights = [data[f"w{i}"].astype(np.float32) for i in range(len(want)) if f"w{i}" in data]
        bar = float(data["bar"])
        drop = float(data["drop"]) if "drop" in data else 2.0
    if [w.shape for w in weights] != want:
        return None
    return FastModel(weights, bar, drop)


@dataclass(frozen=True)
class FastLook:
    """One place looked at: the class probabilities and where the die's centre lies (mm)."""

    probs: np.ndarray
    x_mm: float
    y_mm: float

    @property
    def flat_pips(self) -> int:
        """The most probable flat face (1..6) or 0 when the most probable class is not one."""
        k = int(np.argmax(self.probs))
        return k - 1 if k >= 2 else 0

    @property
    def p_flat(self) -> float:
        """The probability of the most probable class when that is a flat die, else 0."""
        return float(self.probs.max()) if self.flat_pips else 0.0


def place_patches(image: np.ndarray, to_mm: np.ndarray,
                  centres: Sequence[tuple[float, float]]) -> np.ndarray:
    """Top-down colour patches (N x :data:`PATCH_PX` square, uint8, x along columns) centred
    on board places (mm), at the patch network's scale, unaligned."""
    half = PATCH_PX / (2.0 * PATCH_PX_PER_MM)
    out = np.empty((len(centres), PATCH_PX, PATCH_PX, 3), np.uint8)
    for n, (x, y) in enumerate(centres):
        shift = np.array([[PATCH_PX_PER_MM, 0.0, -(x - half) * PATCH_PX_PER_MM],
                          [0.0, PATCH_PX_PER_MM, -(y - half) * PATCH_PX_PER_MM],
                          [0.0, 0.0, 1.0]])
        out[n] = cv2.warpPerspective(image, shift @ to_mm, (PATCH_PX, PATCH_PX),
                                     flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out


def look(model: FastModel, image: np.ndarray, to_mm: np.ndarray,
         centres: Sequence[tuple[float, float]]) -> list[FastLook]:
    """The network's look at each place (one batch)."""
    if not centres:
        return []
    out = forward(model.weights, normalise(place_patches(image, to_mm, centres)))
    probs = probabilities(out[:, :CLASSES])
    return [FastLook(probs[n], x + float(out[n, CLASSES]) * OFFSET_MM,
                     y + float(out[n, CLASSES + 1]) * OFFSET_MM)
            for n, (x, y) in enumerate(centres)]


def near_a_line(g: BoardGeometry, x: float, y: float, margin: float = LINE_MARGIN_MM) -> bool:
    """Whether a centre this far from (x, y) might lie in another half or region: the fast
    centre is good to a mm or two, not to the face's own. (Probes at the margin, the 8 ways
    round; where no edge of :func:`_edges` lies within the margin they all lie in one cell
    of those edges, with one half and region, and none is taken.)"""
    xs, ys = _edges(g)
    if not (any(x - margin <= e <= x + margin for e in xs)
            or any(y - margin <= e <= y + margin for e in ys)):
        return False
    here = (g.half_at(x, y), g.region_at(x, y).kind)
    return any((g.half_at(x + dx, y + dy), g.region_at(x + dx, y + dy).kind) != here
               for dx, dy in ((margin, 0.0), (-margin, 0.0), (0.0, margin), (0.0, -margin),
                              (margin, margin), (-margin, -margin), (margin, -margin),
                              (-margin, margin)))


@functools.cache
def _edges(g: BoardGeometry) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The x and the y of every edge of the rectangles ``g.half_at`` and ``g.region_at``'s
    kind test (playing surface, bar, halves, trays, case): half and kind are the same
    everywhere strictly between neighbouring ones."""
    rects = (g.playing_area, g.bar, g.half_rect("left"), g.half_rect("right"),
             g.tray_rect("left"), g.tray_rect("right"), g.outer_rect)
    return (tuple(sorted({v for r in rects for v in (r.x0, r.x1)})),
            tuple(sorted({v for r in rects for v in (r.y0, r.y1)})))


def within_lean_of_rail(g: BoardGeometry, x: float, y: float) -> bool:
    """Whether a die here could lean on the rail or the bar's edge (``vision.dice.support``'s
    reach): there a die read flat may still be called cocked by the rail's lower bar, which
    needs the full reader's profile model and patch network."""
    bar = g.bar
    gap = min(rail_gap_mm((x, y), g), abs(x - bar.x0), abs(x - bar.x1))
    return gap <= LEAN_REACH_SIDES * g.die_size_mm


# the pip grid confirmation (:func:`grid_confirm`): its patch's side; the face turns (degrees)
# and centres (mm about the start) it reads first (a face looks the same a quarter turn on),
# then the steps of its climb from the best of those, and how many it takes at most
CONFIRM_MM = 28.0
COARSE_TURNS = tuple(range(0, 90, 10))
COARSE_SHIFTS = np.array([(dx, dy) for dy in (-1.0, 0.0, 1.0) for dx in (-1.0, 0.0, 1.0)])
CLIMB_TURN_STEP, CLIMB_STEP_MM = 5, 0.5
CLIMB_TURNS = (0, -CLIMB_TURN_STEP, CLIMB_TURN_STEP)  # the read in hand first: a tie keeps it
CLIMB_SHIFTS = np.array([(0.0, 0.0), *((dx, dy) for dy in (-CLIMB_STEP_MM, 0.0, CLIMB_STEP_MM)
                                       for dx in (-CLIMB_STEP_MM, 0.0, CLIMB_STEP_MM)
                                       if dx or dy)])
CLIMBS = 4


@dataclass(frozen=True)
class GridConfirm:
    """The pip grid's read about a fast die's centre: pips, pip evidence (``FaceRead.score``),
    pip contrast (its pips' peaks' mean strength, over 255) and the face's centre (mm)."""

    value: int
    score: float
    contrast: float
    x_mm: float
    y_mm: float


class PartGrey:
    """A colour frame's grey made only where patches are read (:meth:`patch`): the whole
    frame's grey costs more than a die's whole confirmation. Its patches are the whole grey's,
    to the bit: the warp reads the same pixels in a picture of the same size through the same
    matrix (warping a grey crop through a shifted matrix moved some pixels by a grey level)."""

    def __init__(self, image: np.ndarray) -> None:
        self.image = image
        self.grey = np.zeros(image.shape[:2], np.uint8)

    def patch(self, from_mm: np.ndarray, x: float, y: float, size_mm: float, ppm: float
              ) -> np.ndarray:
        """``face_fit.warp_patch`` (unturned) of the grey, made grey first over the bounding
        box of the patch corners' pixels and 3 px more (the warp's neighbours)."""
        half = size_mm / 2
        corners = apply(from_mm, np.array([[x - half, y - half], [x + half, y - half],
                                           [x + half, y + half], [x - half, y + half]]))
        h, w = self.image.shape[:2]
        lo, hi = np.floor(corners.min(axis=0)) - 3, np.ceil(corners.max(axis=0)) + 4
        # a box off the frame keeps the frame's edge pixel on that side (the warp repeats it)
        x0, y0 = min(max(0, int(lo[0])), w - 1), min(max(0, int(lo[1])), h - 1)
        x1, y1 = max(min(w, int(hi[0])), x0 + 1), max(min(h, int(hi[1])), y0 + 1)
        self.grey[y0:y1, x0:x1] = cv2.cvtColor(self.image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
        return warp_patch(self.grey, from_mm, x, y, size_mm, ppm)


def grid_confirm(gray: np.ndarray | PartGrey, from_mm: np.ndarray, x: float, y: float,
                 die_mm: float, anchor: tuple[float, float] = (0.0, 0.0)) -> GridConfirm:
    """The face read on the pip grid (``vision.dice.pip_grid``) about (x, y) mm, in one small
    top-down patch of the frame's grey (``gray``: the whole of it, or a :class:`PartGrey`):
    the best read of :data:`COARSE_SHIFTS` at :data:`COARSE_TURNS`, then a climb by
    :data:`CLIMB_SHIFTS` and :data:`CLIMB_TURNS` to the best read about it (the face fit reads
    each of its hypotheses so, after its pip finding, layout fit and outlines, which this
    leaves out), the hypotheses' pixels precomputed once (``pip_grid.Lattice``). The patch's
    pixels and the centres lie on a lattice of pixels from ``anchor`` (mm; the raster's place:
    the face fit's patch there has the very pixels), the turns on one of 5 degrees: the same
    die read from a start a little off, or in a brighter
    frame, climbs to the same read; its centre is its pips' peaks' mean
    (``pip_grid.pip_peaks``), which a tie between reads a pixel apart leaves alone."""
    ppm = FACE_PPM
    x0 = anchor[0] + round((x - anchor[0]) * ppm) / ppm
    y0 = anchor[1] + round((y - anchor[1]) * ppm) / ppm
    patch = (gray.patch(from_mm, x0, y0, CONFIRM_MM, ppm) if isinstance(gray, PartGrey)
             else warp_patch(gray, from_mm, x0, y0, CONFIRM_MM, ppm))
    dog = patch_dog(patch, die_mm, ppm)
    planes = evidence_planes(dog)
    grid, coarse, climb = _confirm_lattice(dog.shape[0], die_mm, ppm)

    def best(hypotheses: np.ndarray) -> tuple[int, int, float]:
        """The best of ``hypotheses`` (lattice indices, in the order a tie keeps)."""
        ks, scores = lattice_read(planes, dog, grid, hypotheses)
        i = int(np.argmax(scores))
        return int(hypotheses[i]), int(ks[i]), float(scores[i])

    h, k, score = best(coarse)
    for _ in range(CLIMBS):
        moved = best(climb + h)
        if moved[2] <= score:
            break
        h, k, score = moved
    value, mask = PATTERNS[k]
    turn, cx, cy = grid.unpack(h)
    a = math.radians(turn)
    dx, dy, contrast = pip_peaks(dog, cx, cy, math.cos(a), math.sin(a), mask, die_mm, ppm)
    return GridConfirm(value, score, contrast, x0 + dx, y0 + dy)


@functools.cache
def _confirm_lattice(n: int, die_mm: float, ppm: float) -> tuple[Lattice, np.ndarray, np.ndarray]:
    """The hypotheses :func:`grid_confirm` can reach (centres on :data:`CLIMB_SHIFTS`'s step
    out to the coarse shifts plus :data:`CLIMBS` steps, turns as far), the coarse ones
    (:data:`COARSE_TURNS` by :data:`COARSE_SHIFTS`) as lattice indices, and a climb's
    (:data:`CLIMB_TURNS` by :data:`CLIMB_SHIFTS`) as offsets from the read in hand, both in
    the order of the reads (a tie keeps the first)."""
    reach = round(float(np.abs(COARSE_SHIFTS).max()) / CLIMB_STEP_MM) + CLIMBS
    turns = range(min(COARSE_TURNS) + CLIMBS * min(CLIMB_TURNS),
                  max(COARSE_TURNS) + CLIMBS * max(CLIMB_TURNS) + 1, CLIMB_TURN_STEP)
    grid = lattice(n, die_mm, ppm, CLIMB_STEP_MM, reach, tuple(turns))

    def index(turn: int, shift: np.ndarray) -> int:
        ix, iy = (round(float(v) / CLIMB_STEP_MM) for v in shift)
        return grid.hypothesis(turn, ix, iy)

    here = index(0, np.zeros(2))
    coarse = [index(t, s) for t in COARSE_TURNS for s in COARSE_SHIFTS]
    climb = [index(t, s) - here for t in CLIMB_TURNS for s in CLIMB_SHIFTS]
    return grid, np.array(coarse), np.array(climb)


@dataclass(frozen=True)
class FastDie:
    """A flat die read fast: pips, centre (mm), the network's probability of that face (the
    surer of the two looks) and of a cocked die (the second look's)."""

    pips: int
    x_mm: float
    y_mm: float
    p: float
    p_cocked: float
    score: float  # the pip grid's evidence (``GridConfirm.score``) and pip contrast
    contrast: float


def as_found(d: FastDie) -> FaceFinding:
    """A fast die as a face already found (``board.find_faces``'s ``known``): only its place
    and pips count there."""
    return FaceFinding(d.pips, d.x_mm, d.y_mm, 0.0, 0.0, d.contrast, np.zeros(0, np.float32),
                       d.score)


def fast_board_die(from_mm: np.ndarray, g: BoardGeometry, d: FastDie,
                   threshold: float) -> BoardDie:
    """The die as ``board.read_board_dice`` gives it: flat, not on a checker (:func:`fast_dice`
    leaves a die the reader's rim test puts on one to the full reader), its half and region
    from the fast centre; its cocked probability the network's
    (under the pose threshold: the supports and the referee's doubt read it so), its confidence
    the network's probability of the face times the shares of the pip grid's evidence and of
    the pose (``board_die.pip_evidence``, ``pose_factor``), as the reader's; no patch-network
    logit (it did not look); the pip grid's score."""
    centre_px = apply(from_mm, np.array([[d.x_mm, d.y_mm]]))[0]
    p_cocked = min(d.p_cocked, threshold / 2)
    return BoardDie(
        pips=d.pips,
        centre_px=(float(centre_px[0]), float(centre_px[1])),
        centre_mm=(d.x_mm, d.y_mm),
        flat=True,
        on_checker=False,
        half=g.half_at(d.x_mm, d.y_mm),
        region=g.region_at(d.x_mm, d.y_mm).kind,
        confidence=d.p * pip_evidence(as_found(d)) * pose_factor(p_cocked, threshold),
        p_cocked=p_cocked,
        patch_logit=None,
        pip_score=d.score,
    )


def fast_dice(image: np.ndarray, to_mm: np.ndarray, g: BoardGeometry,
              places: Sequence[tuple[float, float]], model: FastModel | None = None
              ) -> tuple[list[FastDie], list[int]]:
    """The flat dice read fast among ``places`` (most probable first; never one the reader's
    rim test, ``on_checker``, puts on a checker), and the indices of the places left to the
    full reader: those not within a die's reach of a fast die's centre (as
    ``board.find_faces`` skips them) and not sure not to be a die (``FastModel.drop``). The
    confirmation makes only its patches' pixels grey (:class:`PartGrey`): the same pixels
    for less than the whole frame's grey.

    A place whose first look clears :data:`ONE_LOOK_BAR` (the model's own bar,
    ``FastModel.bar``, chosen on check patches as a lone look's: no cocked die past it) is
    confirmed about that look's centre and taken without a second look; a place whose first
    look clears only :data:`FIRST_BAR`, or whose one-look read fails, is looked at again as
    before."""
    model = model or fast_model()
    if model is None or not places:
        return [], list(range(len(places)))
    first = look(model, image, to_mm, places)
    die = g.die_size_mm
    from_mm = np.linalg.inv(to_mm)
    grey = PartGrey(image)
    # each place's die as taken (the reach of the dice before it aside), None when not
    taken: dict[int, FastDie | None] = {}
    again = []
    one_bar = model.bar if ONE_LOOK_BAR is None else ONE_LOOK_BAR
    for n, f in enumerate(first):
        if f.p_flat >= one_bar:
            taken[n] = _confirmed(image, grey, from_mm, g, f.flat_pips, f.x_mm, f.y_mm,
                                  places[n], f.p_flat, float(f.probs[COCKED]))
        if taken.get(n) is None and f.p_flat >= min(model.bar, FIRST_BAR):
            again.append(n)  # looked at again, centred where the first look put the die
    second = look(model, image, to_mm, [(first[n].x_mm, first[n].y_mm) for n in again])
    second_bar = min(model.bar, SECOND_BAR)
    for n, s in zip(again, second, strict=True):
        f = first[n]
        if (s.p_flat < second_bar or s.flat_pips != f.flat_pips
                or math.hypot(s.x_mm - f.x_mm, s.y_mm - f.y_mm) > AGREE_MM):
            continue
        # the pip grid about the second look's centre. The surer look's probability: the
        # first's, past the bar, where the second is less sure (a second look below the bar
        # moves more with the raster's place than one above: a die kept by the reader's
        # memory and read afresh would differ in confidence)
        taken[n] = _confirmed(image, grey, from_mm, g, s.flat_pips, s.x_mm, s.y_mm, places[n],
                              max(f.p_flat, s.p_flat), float(s.probs[COCKED]))
    dice: list[FastDie] = []
    for n in sorted(taken):
        d = taken[n]
        if d is not None and all(math.hypot(d.x_mm - k.x_mm, d.y_mm - k.y_mm) >= die
                                 for k in dice):
            dice.append(d)
    rest = [n for n, (x, y) in enumerate(places)
            if first[n].probs[NOT_DIE] < model.drop
            and all(math.hypot(x - d.x_mm, y - d.y_mm) >= die * 0.7 for d in dice)]
    return dice, rest


def _confirmed(image: np.ndarray, grey: PartGrey, from_mm: np.ndarray, g: BoardGeometry,
               pips: int, x: float, y: float, place: tuple[float, float], p: float,
               p_cocked: float) -> FastDie | None:
    """The die a look called flat showing ``pips`` about (x, y) mm, when the pip grid there
    (:func:`grid_confirm`, on the lattice from the raster's ``place``) reads the same pips and
    its centre passes the gates (clear of the lines, out of a lean's reach of the rail, not on
    a checker by the rim test); else None."""
    read = grid_confirm(grey, from_mm, x, y, g.die_size_mm, place)
    if read.score < MIN_GRID_SCORE or read.value != pips:
        return None
    cx, cy = read.x_mm, read.y_mm
    if (near_a_line(g, cx, cy) or within_lean_of_rail(g, cx, cy)
            or on_checker(image, from_mm, cx, cy, g)):
        return None
    return FastDie(pips, cx, cy, p, p_cocked, read.score, read.contrast)
