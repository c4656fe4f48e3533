"""Dice on a calibrated board: pips, flat or cocked, on a checker, and which half (BG-ROLL-2).

``read_board_dice`` reads them, with either of two candidate stages and the same per-die
stages after them. The referee (on settled throws) and the board's dice and cube pass
(``vision.dice.board_pass``, behind ``hakem vision read``) both use the raster candidates
(``spots=False``, the default), several times faster than the whole-frame spot candidates
(``spots=True``, kept for training and comparison). On 200 synthetic throws
(``tests.eval.dice``, seeds 0-199) the raster candidates find 96.0% of the dice and read
all of them right, catch 94.4% of cocked dice, call none of the flat dice cocked (0.7%
before the board reading's supports took a die with nothing to lean on as flat,
``vision.dice.support``: all of those lay in the open; 1.4% of flat dice lying 0.5 to 5 mm
from a checker or the rail, ``--beside``) and get on-checker right for all of them; they
take ~16 ms of one thread per fresh frame (``tests.bench.dice``; ~28 ms before the exact
speed-ups of issue 5), which is why the table reads a die again only where the picture
changed (``vision.dice.reuse``). Phantom dice (10 over 200 throws) matter most to the
referee; it also ignores a "die" that lay there before the throw. Stages:

1. Candidates. Spots: pip-sized blobs in the camera frame (difference-of-Gaussians peaks
   whose Hessian is not an edge's), clustered at die size; a quick look at each cluster
   (uniform face around the spots) drops most board texture. Raster: the whole case warped to
   a small top-down raster (``vision.dice.raster``: structure-tensor corner peaks, then a ray
   model at a threshold looser than its own, so hardly a die is missed); each of the
   :data:`MAX_RASTER_CANDIDATES` most probable places the ray model gives at least
   ``READ_THRESHOLD``, then, only where that place led to no die, the spot clusters in a
   small window around it (:func:`hybrid_candidates`, a generator read as it goes).
2. Face (``vision.dice.face_fit.read_candidate``): ONE top-down patch per candidate
   (:data:`~vision.dice.face_fit.FACE_PPM` px/mm, about the camera's own resolution) whose
   pip-scale difference of Gaussians and gradients serve every step: the pips are found, the
   upward face's pip layout is fitted (count, centre, angle), and each centre hypothesis
   (the fit's, the candidate's, the die body's) is refined by its outline and read on the
   pip grid; the hypothesis with the most pip evidence and the clearest outline is kept.
   A candidate no hypothesis reads gets a second chance as a tilted die
   (``vision.dice.tilted``: a ring of face centres about it, the face squashed or larger, as
   a die tipped against a checker or the rail shows it), kept only if the cocked model calls
   it cocked (above ``pose.second_chance_threshold``, stricter than the reading's threshold:
   fewer phantom dice) and either the die model is sure of it and its pips sit in one body
   colour (``vision.dice.solid``: not board texture) or a small acceptor
   (``tilted.p_second_chance``) calls it a real die read right, weighing the die model, the
   cocked model, the pip evidence, the outline, the face's spread and that solidity together
   (the two gates alone turned away many of the cocked dice never found: dice leaning on the
   rail at 30-40 degrees).
3. Pose: a patch aligned with that face gives the face colour, the outline's edges and the
   bands just outside each side (board texture, whose "face" is far from uniform, is dropped
   by that spread alone before the rest is computed); small networks (``cocked_model.json``,
   trained on the raster candidates and second chances of synthetic and table-camera throws
   by ``vision.dice.train_cocked``) say whether it is a die at all and whether a side face
   shows: cocked. A die the profiles call flat is looked at once more by a small
   convolutional network over the aligned patch's pixels (``vision.dice.patch_net``,
   ``patch_model.npz``, fitted by ``vision.dice.train_patch``): when the two models' joint
   logit clears that network's bar, it is cocked (:func:`_with_patch_opinion`; cocked dice
   caught on random throws 12000-12299: 177 -> 183 of 186, on 3000-3199: 98 of 102 either
   way, no flat die called cocked in either; phantom dice kept on dice-free demo boards: 7
   either way). The other way round, a die the profiles call cocked that the network is sure is
   flat is read flat but in doubt (:data:`PATCH_VETO`). A die called cocked at the top or bottom
   rail takes the pips of a face nearer the rail that reads better (:func:`upward_at_rail`: its
   top tips towards the rail, and the side face read instead looks nearly as large) when the
   upward-face network, shown that face, names it too; a die called cocked against a checker
   (``vision.dice.checker_face``: a checker's rim within a cocked die's reach) likewise takes
   the pips of a face nearer that checker, the one the network names with the most
   probability, else the one with the most pip evidence if it beats the face read's; any
   other die read cocked takes the network's face where it clears its bar
   (:func:`cocked_pips`).
4. A checker rim circling the die means it lies on a checker; the board geometry gives the
   half (left or right of the bar as seen in the picture) or the bar, tray, frame, off-board.

Before stage 2, a fast first read (``vision.dice.fast_read``: a small network over an unaligned
patch about each raster place) takes the flat dice it is sure of at once, with their places,
and leaves out the places it is sure hold no die; every other place goes through the stages
above as before (not for the spot candidates, a thorough read or ``tilted_near``).

This module holds the reader's steps in order and the cocked opinion; the rest is split by what
it holds: the die read (``vision.dice.board_die``), the face check and the frame's memo
(``vision.dice.face_check``), the second chances (``vision.dice.second_chance``) and the face
nearer the rail (``vision.dice.rail_face``) or the checker (``vision.dice.checker_face``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

import cv2
import numpy as np

from vision.dice.board_die import BoardDie, pip_evidence, pose_factor
from vision.dice.candidates import (
    READ_THRESHOLD,
    apply,
    hybrid_candidates,
    scored_raster_candidates,
    spot_candidates,
)
from vision.dice.checker_face import upward_at_checker
from vision.dice.face_check import FaceMemo, die_face
from vision.dice.face_fit import (
    ALIGNED_MM,
    ALIGNED_PX_PER_MM,
    MIN_GRID_SCORE,
    FaceFinding,
    FaceRead,
    read_candidate,
    warp_patch,
)
from vision.dice.fast_read import FastDie, as_found, fast_board_die, fast_dice
from vision.dice.on_checker import on_checker
from vision.dice.patch_net import joint_logit, patch_logit, patch_model, with_patch
from vision.dice.pose import cocked_threshold, p_cocked
from vision.dice.rail_face import RailFace, upward_at_rail, way_to_rail
from vision.dice.second_chance import give_second_chance, may_be_cocked, tilt_allowed
from vision.dice.upward_net import overruled, upward_face, upward_model
from vision.geometry import BoardGeometry

MAX_SECOND_CANDIDATES = 4  # candidates given a second chance per frame (time)
# a thorough read (the referee could not judge a throw: vision.dice.reuse.DiceMemory
# .read_thoroughly) gives this many candidates a second chance, and where one finds nothing at
# the candidate, centred at 8 places this far around it as well: the visible face of a die
# leaning on a checker may lie farther from the raster's place than the tilted-face
# hypotheses reach (vision.dice.tilted.RING_MM)
MAX_THOROUGH_CANDIDATES = 8
THOROUGH_RING_MM = 4.0
# A die the profile model calls cocked (BG-ROLL-2) is read flat, in doubt (just under the cocked
# threshold: the referee leaves its throw unjudged, reads it thoroughly, else asks the director),
# when the patch network's logit is under PATCH_VETO (it is sure the die is flat), unless the face
# lies within RAIL_REACH_SIDES of the rail, where the face read is often the side face (a cocked
# die's, which the network sees as a flat one's; nor does the veto touch support's rail bars).
# Chosen on the network's check throws (vision.dice.train_patch prints the table): of the 1,480
# cocked dice the profile model calls cocked the lowest logit is -3.32, and 6 of the 16 flat dice
# it calls cocked lie under -4 (as under -3.5; -4 keeps a margin below the cocked ones). Random
# throws 3000-3199, 3600-3799, 12000-12899 and 13000-13599: flat dice called cocked 12 -> 8 of
# 2,599, cocked caught 1,065 -> 1,064 of 1,075 (the one lost, a translucent die at 34 degrees, had
# its pips misread: the network saw its side face; the table did not pass its throw as a roll),
# valid throws called invalid 6 -> 3 of 521, extra dice the table keeps 99 -> 62 over 1,900
# throws; demo-style throws (tests.eval.cocked): flat 2 -> 1 of 600, cocked 195 of 196 either way,
# phantom dice kept 7 -> 5.
PATCH_VETO = -4.0
# a die's face found with less pip evidence than this (its weakest pattern pip over its
# strongest empty place; a six read right ~0.23, a column of it read as a three ~0.11) is read
# again from its own centre (_recentred)
WEAK_FACE_SCORE = 0.15
# ... and when that read is weak as well, a cocked die's face found between these many dice of
# it takes its place (_cocked_beside): beside it, not on it (a flat die read weakly has tilted
# faces of its own body within a few mm: on synthetic throws 14800-15399 the second chances
# about such dice found them 1-6 mm off, and would have taken the place of 13 dice read right)
BESIDE_WEAK_DIES = (0.75, 1.25)


def cocked_pips(colour: np.ndarray, gray: Callable[[], np.ndarray], from_mm: np.ndarray,
                face: FaceFinding, aligned: Callable[[], np.ndarray], g: BoardGeometry) -> int:
    """The upward face of a die read cocked (BG-ROLL-2: thrown again, but recorded as it
    landed). At the rail, the first face nearer the rail (:func:`upward_at_rail`, most likely
    first) that the upward-face network, shown that face, names too, clearing its bar; against
    a checker, of the faces nearer the checker (:func:`upward_at_checker`) the one the network
    names with the most probability, else the most likely of them when its pip evidence beats
    the face read's own (see ``vision.dice.checker_face``); else the face read, overruled by
    the network shown the face read (``vision.dice.upward_net``). Shown only the face read,
    the network names that face's own value where the rail read found another: on synthetic
    throws 16000-18399 it overruled 6 cocked dice at the rail read right that way, and set 3
    right."""
    model = upward_model()

    def named(nearer: RailFace) -> float | None:  # the network's probability, if it names it
        assert model is not None
        shown = warp_patch(colour, from_mm, nearer.x_mm, nearer.y_mm, ALIGNED_MM,
                           ALIGNED_PX_PER_MM, face.angle)
        value, p = upward_face(shown, model)
        return p if value == nearer.pips and p >= model.bar else None

    for rail in upward_at_rail(gray, from_mm, face, g):
        if model is None or named(rail) is not None:
            return rail.pips
    nearer = upward_at_checker(gray, from_mm, face, g)
    if nearer:
        if model is None:
            return nearer[0].pips
        confirmed = [(p, f.pips) for f in nearer if (p := named(f)) is not None]
        if confirmed:
            return max(confirmed)[1]
        if nearer[0].score > face.score:
            return nearer[0].pips
    return overruled(face.pips, aligned(), model)


def find_faces(image: np.ndarray, to_mm: np.ndarray,
               geometry: BoardGeometry | None = None, *,
               all_candidates: bool = False, spots: bool = True,
               places: Sequence[tuple[float, float, float]] | None = None,
               thorough: bool = False,
               tilted_near: Sequence[tuple[float, float]] | None = None,
               memo: FaceMemo | None = None,
               known: Sequence[FaceFinding] = ()
               ) -> list[FaceFinding]:
    """Every die face on or beside the board, with its pose features (pose not yet judged).

    Candidates the die model calls board texture are left out unless ``all_candidates``;
    ``places`` replace the raster candidates (see ``candidates.hybrid_candidates``);
    ``thorough``: more second chances, also around each candidate (several times slower);
    ``tilted_near``: second chances only within :data:`TILTED_NEAR_DIES` of these places (mm;
    where no throw can have landed, a cocked die is only one already there, tipped);
    ``memo``: a fresh one, to keep this frame's work on faces for the caller; ``known``: dice
    already read (``vision.dice.fast_read``), whose places no candidate or second chance takes
    and which are not returned again."""
    g = geometry or BoardGeometry()
    colour = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    memo = memo if memo is not None else FaceMemo()
    gray = memo.gray(colour)
    from_mm = np.linalg.inv(to_mm)
    die = g.die_size_mm
    found: list[FaceFinding] = list(known)
    cands = (spot_candidates(gray, to_mm, from_mm, g) if spots
             else hybrid_candidates(colour, gray, to_mm, from_mm, g,
                                    lambda: [(f.x_mm, f.y_mm) for f in found], places=places))
    pending: list[tuple[float, float, FaceRead | None]] = []
    for cx, cy in cands:
        if any(math.hypot(cx - f.x_mm, cy - f.y_mm) < die * 0.7 for f in found):
            continue
        read = read_candidate(gray, from_mm, cx, cy, die, kept=memo.candidates)
        if read is None or read.score < MIN_GRID_SCORE:
            pending.append((cx, cy, read))
            continue
        finding = die_face(colour, from_mm, cx, cy, read, die, found, all_candidates, memo)
        if finding is not None:
            if finding.score < WEAK_FACE_SCORE:
                again = _recentred(colour, gray, from_mm, finding, g, found, all_candidates,
                                   memo)
                if again is None and not all_candidates and tilt_allowed(cx, cy, die,
                                                                          tilted_near):
                    again = _cocked_beside(colour, gray, to_mm, from_mm, finding, g, found,
                                           memo)
                finding = again or finding
            found.append(finding)
        elif not all_candidates:
            pending.append((cx, cy, read))
    if not all_candidates:
        # after every candidate's usual read (never in a die's place), the most probable first
        budget = MAX_THOROUGH_CANDIDATES if thorough else MAX_SECOND_CANDIDATES
        for cx, cy, read in pending:
            if not may_be_cocked(cx, cy, g, found) or not tilt_allowed(cx, cy, die,
                                                                         tilted_near):
                continue  # no die can be given a second chance there: it costs no budget
            if budget == 0:
                break
            budget -= 1
            finding = give_second_chance(colour, gray, from_mm, cx, cy, read, g, found, memo)
            if finding is None and thorough:
                finding = _second_chance_around(colour, gray, from_mm, cx, cy, g, found, memo)
            if finding is not None:
                found.append(finding)
    return found[len(known):]


def _cocked_beside(colour: np.ndarray, gray: np.ndarray, to_mm: np.ndarray,
                   from_mm: np.ndarray, weak: FaceFinding, g: BoardGeometry,
                   found: list[FaceFinding], memo: FaceMemo) -> FaceFinding | None:
    """A cocked die's face beside a weak face that a read from its own centre did not confirm
    and that would be read flat: the pip spots about it, each read as a candidate is, the
    first face judged cocked, and not weak itself, that lies beside it
    (:data:`BESIDE_WEAK_DIES`). The dark gap under a cocked die's raised edge reads as a one
    on the board beside the die, the die model passes it, and the cocked die itself, a die's
    side farther on, went unread (match7986278 of the draws with --seed0 8800 --kinds cocked:
    a cocked throw counted). A weak face read cocked is most often the cocked die's own
    foreshortened face: it is kept."""
    threshold = cocked_threshold()
    if _cocked_opinion(colour, from_mm, weak, g, threshold, memo)[0] >= threshold:
        return None
    die = g.die_size_mm
    near, far = (k * die for k in BESIDE_WEAK_DIES)

    def beside(x: float, y: float) -> bool:
        return near <= math.hypot(x - weak.x_mm, y - weak.y_mm) < far

    window = (weak.x_mm - far, weak.y_mm - far, weak.x_mm + far, weak.y_mm + far)
    for cx, cy in spot_candidates(gray, to_mm, from_mm, g, window):
        read = read_candidate(gray, from_mm, cx, cy, die)
        if read is None or read.score < MIN_GRID_SCORE:
            continue
        face = die_face(colour, from_mm, cx, cy, read, die, found, False, memo)
        if (face is not None and face.score >= WEAK_FACE_SCORE and beside(face.x_mm, face.y_mm)
                and _cocked_opinion(colour, from_mm, face, g, threshold, memo)[0] >= threshold):
            return face
    return None


def _cocked_opinion(colour: np.ndarray, from_mm: np.ndarray, face: FaceFinding,
                    g: BoardGeometry, threshold: float, memo: FaceMemo | None = None
                    ) -> tuple[float, float | None, Callable[[], np.ndarray]]:
    """A face's cocked probability as :func:`read_board_dice` judges it: the profile model
    with the patch network's opinion (no veto at the rail, where the face read is often the
    side face, see ``upward_at_rail``, which the network sees as a flat die's); the network's
    logit; and the face's aligned patch (the networks' input): the one ``memo`` kept for the
    face's place, else warped once when first asked for."""
    kept = memo.aligned.get((face.x_mm, face.y_mm, face.angle)) if memo is not None else None

    @functools.cache
    def aligned() -> np.ndarray:
        if kept is not None:
            return kept
        return warp_patch(colour, from_mm, face.x_mm, face.y_mm, ALIGNED_MM, ALIGNED_PX_PER_MM,
                          face.angle)

    p, z = _with_patch_opinion(aligned, p_cocked(face), threshold, way_to_rail(face, g) is None)
    return p, z, aligned


def _recentred(colour: np.ndarray, gray: np.ndarray, from_mm: np.ndarray, weak: FaceFinding,
               g: BoardGeometry, found: list[FaceFinding], all_candidates: bool,
               memo: FaceMemo) -> FaceFinding | None:
    """A die's face found with little pip evidence (:data:`WEAK_FACE_SCORE`) read again from
    that face's centre: the new face, when it is not weak and still a die (else None). A
    candidate a few mm off a six's centre reads one column of it as a three's diagonal, which
    a read from that three's centre does not."""
    die = g.die_size_mm
    read = read_candidate(gray, from_mm, weak.x_mm, weak.y_mm, die)
    if read is None or read.score < WEAK_FACE_SCORE:
        return None
    return die_face(colour, from_mm, weak.x_mm, weak.y_mm, read, die, found, all_candidates,
                     memo)


def _second_chance_around(colour: np.ndarray, gray: np.ndarray, from_mm: np.ndarray,
                          cx: float, cy: float, g: BoardGeometry, found: list[FaceFinding],
                          memo: FaceMemo | None = None) -> FaceFinding | None:
    """A thorough read's second chance centred :data:`THOROUGH_RING_MM` around a candidate
    (the first of 8 places, clockwise from +x, whose second chance is accepted)."""
    die = g.die_size_mm
    for k in range(8):
        a = k * math.pi / 4
        x, y = cx + THOROUGH_RING_MM * math.cos(a), cy + THOROUGH_RING_MM * math.sin(a)
        read = read_candidate(gray, from_mm, x, y, die,
                              kept=memo.candidates if memo is not None else None)
        finding = give_second_chance(colour, gray, from_mm, x, y, read, g, found, memo)
        if finding is not None:
            return finding
    return None


def on_marker(geometry: BoardGeometry, x: float, y: float) -> bool:
    """Whether a place lies on an ArUco marker or its white quiet zone: a marker's black
    squares on white read like a die's pips (a phantom 6). A real die there is off the playing
    surface (BG-ROLL-2); left out, the referee sees one die, does not judge the throw and
    leaves it to the director."""
    reach = geometry.marker_size_mm * (0.5 + 1.0 / 6.0)
    centres = geometry.marker_centres_mm()
    return bool(np.any((np.abs(centres[:, 0] - x) < reach) & (np.abs(centres[:, 1] - y) < reach)))


def _with_patch_opinion(aligned: Callable[[], np.ndarray], p: float, threshold: float,
                        veto: bool = True) -> tuple[float, float | None]:
    """A face's cocked probability once the patch network (``vision.dice.patch_net``) has
    seen it too, and the network's logit (None when it did not look): a die the profile
    model calls flat is cocked when the two models' joint logit clears the network's bar
    (they miss different dice: the lowest tilts on a board of the die's own colour); a die it
    calls cocked that the network is sure is flat (under :data:`PATCH_VETO`) is read flat
    but in doubt, just under the cocked threshold, unless ``veto`` is False; otherwise
    unchanged. ``aligned``: the face's aligned patch, warped when first asked for."""
    model = patch_model()
    if model is None or (p >= threshold and not veto):
        return p, None
    z = patch_logit(aligned(), model)
    if p >= threshold:
        return (float(np.nextafter(threshold, 0.0)) if z < PATCH_VETO else p), z
    return with_patch(p, joint_logit(p, z), model.bar, threshold), z


def read_board_dice(image: np.ndarray, to_mm: np.ndarray,
                    geometry: BoardGeometry | None = None, *, spots: bool = False,
                    places: Sequence[tuple[float, float, float]] | None = None,
                    thorough: bool = False,
                    tilted_near: Sequence[tuple[float, float]] | None = None
                    ) -> list[BoardDie]:
    """Every die on (or beside) the board in a camera frame, most confident first, at most 4.

    ``to_mm`` is the 3x3 homography from image pixels to board millimetres (the playing
    surface's top-left corner is the origin, see ``vision.geometry``). Candidates come from
    the small raster, several times faster, finding more dice and reading more of them right;
    ``spots``: from pip spots over the whole frame instead (slow; for training and comparison;
    see the module docstring's figures); ``places``: raster candidates the caller has already
    (``vision.dice.reuse`` reads only where the picture changed), each looked at first by the
    fast read (``vision.dice.fast_read``); ``thorough``: more second
    chances for cocked dice, also around the candidates (:func:`find_faces`; slower, for a
    throw the referee could not judge); ``tilted_near``: second chances only about these
    places (:func:`find_faces`; a read where no throw is due).
    """
    g = geometry or BoardGeometry()
    colour = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    from_mm = np.linalg.inv(to_mm)
    out: list[BoardDie] = []
    threshold = cocked_threshold()
    memo = FaceMemo()
    gray = functools.partial(memo.gray, colour)  # (find_faces's, converted once)
    fast: list[FastDie] = []
    if not spots and not thorough and tilted_near is None:
        if places is None:
            places = scored_raster_candidates(colour, from_mm, g, threshold=READ_THRESHOLD)
        fast, rest = fast_dice(colour, to_mm, g, [(x, y) for x, y, _ in places])
        places = [places[n] for n in rest]
        out += [fast_board_die(from_mm, g, d, threshold) for d in fast]
    # no place left (the fast read took every one): find_faces would read no candidate and
    # give no second chance, yet grey the whole frame first (0.21-0.23 ms thread-CPU, median
    # over the demo's 48 throw frames whose two dice the fast read took)
    faces = [] if not spots and places is not None and not places else find_faces(
        colour, to_mm, g, spots=spots, places=places, thorough=thorough,
        tilted_near=tilted_near, memo=memo, known=[as_found(d) for d in fast])
    for f in faces:
        if on_marker(g, f.x_mm, f.y_mm):
            continue
        p, z, aligned = _cocked_opinion(colour, from_mm, f, g, threshold, memo)
        # a tilted die's grid read sees part of its upward face (a two as a one)
        pips = cocked_pips(colour, gray, from_mm, f, aligned, g) if p >= threshold else f.pips
        centre_px = apply(from_mm, np.array([[f.x_mm, f.y_mm]]))[0]
        fit = 1.0 - f.residual / (0.16 * g.die_size_mm)
        confidence = float(np.clip(0.5 + 0.5 * fit, 0, 1) * pip_evidence(f)
                           * pose_factor(p, threshold))
        out.append(BoardDie(
            pips=pips,
            centre_px=(float(centre_px[0]), float(centre_px[1])),
            centre_mm=(f.x_mm, f.y_mm),
            flat=p < threshold,
            on_checker=on_checker(colour, from_mm, f.x_mm, f.y_mm, g),
            half=g.half_at(f.x_mm, f.y_mm),
            region=g.region_at(f.x_mm, f.y_mm).kind,
            confidence=confidence,
            p_cocked=p,
            patch_logit=z,
            pip_score=f.score,
        ))
    out.sort(key=lambda d: -d.confidence)
    return sorted(out[:4], key=lambda d: (d.centre_mm[0], d.centre_mm[1]))
