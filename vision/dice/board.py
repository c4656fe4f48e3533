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
   upward-face network, shown that face, names it too; any other die read cocked takes the
   network's face where it clears its bar (:func:`cocked_pips`).
4. A checker rim circling the die means it lies on a checker; the board geometry gives the
   half (left or right of the bar as seen in the picture) or the bar, tray, frame, off-board.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.dice.candidates import _apply, hybrid_candidates, spot_candidates
from vision.dice.face_fit import (
    ALIGNED_MM,
    ALIGNED_PX_PER_MM,
    MIN_GRID_SCORE,
    CandidatePatches,
    FaceFinding,
    FaceRead,
    read_candidate,
    warp_patch,
)
from vision.dice.face_pips import patch_pips
from vision.dice.on_checker import on_checker
from vision.dice.patch_net import joint_logit, patch_logit, patch_model, with_patch
from vision.dice.pips import to_gray
from vision.dice.pose import (
    MAX_FACE_SPREAD,
    MIN_P_DIE,
    _threshold,
    cocked_certainty,
    cocked_threshold,
    face_spread,
    p_cocked,
    p_die,
    pose_features,
    second_chance_threshold,
)
from vision.dice.render import PIP_OFFSET
from vision.dice.solid import solidity
from vision.dice.tilted import (
    TiltedRead,
    p_second_chance,
    second_chance_acceptance,
    second_chance_inputs,
    tilted_reads,
)
from vision.dice.upward_net import overruled, upward_face, upward_model
from vision.geometry import BoardGeometry
from vision.throw import DieSighting

# Second chances (a cocked die whose foreshortened face the usual read missed): only inside a
# half (a die on the bar, in a tray or on the frame is an invalid throw however it lies,
# BG-ROLL-2, and their texture is where phantom dice came from), with some pip evidence (the
# acceptor, ``tilted.p_second_chance``, weighs it with the rest), as a die the cocked model is
# sure of and that the acceptor calls a die read right or the die model is sure of.
PLAYING = ("slot", "field")
SECOND_MIN_SCORE = 0.06
SECOND_P_DIE = 0.7  # the die model's bar for a second chance whose pips are solid ...
SECOND_SOLIDITY = 0.24  # ... by this bar (vision.dice.solid; on demo-style seeds the phantom
# second chances 0.06, real cocked dice 0.42 and up)
MAX_SECOND_CANDIDATES = 4  # candidates given a second chance per frame (time)
MAX_SECOND_TRIES = 4  # hypotheses judged per candidate, best first
# a thorough read (the referee could not judge a throw: vision.dice.reuse.DiceMemory
# .read_thoroughly) gives this many candidates a second chance, and where one finds nothing at
# the candidate, centred at 8 places this far around it as well: the visible face of a die
# leaning on a checker may lie farther from the raster's place than the tilted-face
# hypotheses reach (vision.dice.tilted.RING_MM)
MAX_THOROUGH_CANDIDATES = 8
THOROUGH_RING_MM = 4.0
# a read told where dice lay before (``tilted_near``: no throw can have landed since) gives
# second chances (BG-ROLL-2's cocked dice) only this many die sizes about them (a die tipped by
# a hand moving a checker, BG-MOVE-8)
TILTED_NEAR_DIES = 2.0
# A die cocked against the top or bottom rail tips its top towards the rail: the upward face
# lies nearer the rail than the side face beside it, which at 30-40 degrees shows nearly as
# large and is often the face read. For a die read cocked within RAIL_REACH_SIDES of the rail,
# faces are looked for half a side nearer the rail (vision.dice.tilted's hypotheses); the one
# with the most pip evidence of those at least RAIL_NEARER_SIDES nearer gives the pips when it
# reads better than the face read and its centre lies RAIL_FACE_MIN_SIDES from the rail: the
# upward face of a die tilted up to 45 degrees lies at least cos 45 / 2 of a side plus its
# 0.5 mm gap (6.2 mm of a 16 mm die) from it, and the best evidence nearer than that is a row
# of the face read's own pips, beside the rail (the face read is then kept). (Seeds 1,000,000
# to 1,000,599: 6 cocked dice at the rail read right instead of wrong, none the other way.)
RAIL_REACH_SIDES = 1.375
RAIL_LOOK_SIDES = 0.5
RAIL_NEARER_SIDES = 0.2
RAIL_FACE_MIN_SIDES = 0.34
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
SIDE_PIP_DIES = 0.95  # how far from a face's centre the side pips beside it are looked for
# a cocked die's foreshortened face, a few camera pixels across, takes in its outline and the
# side face's edge: its grey spread may pass the flat face's limit (MAX_FACE_SPREAD)
SECOND_MAX_SPREAD = 80.0
# a die's face found with less pip evidence than this (its weakest pattern pip over its
# strongest empty place; a six read right ~0.23, a column of it read as a three ~0.11) is read
# again from its own centre (_recentred)
WEAK_FACE_SCORE = 0.15
# ... and when that read is weak as well, a cocked die's face found between these many dice of
# it takes its place (_cocked_beside): beside it, not on it (a flat die read weakly has tilted
# faces of its own body within a few mm: on synthetic throws 14800-15399 the second chances
# about such dice found them 1-6 mm off, and would have taken the place of 13 dice read right)
BESIDE_WEAK_DIES = (0.75, 1.25)


@dataclass
class FaceMemo:
    """One frame's work on faces, kept for the steps after it: the spread and pose features per
    face hypothesis (``find_faces``: a candidate the die model turned away is judged again as
    its own second chance, first at the very same face), the face-aligned colour patch per
    face place (centre mm and angle: the cocked opinion's networks see the patch the pose
    features came from, not warped again), each candidate's top-down patch and DoG (its
    second chance reads them again, ``face_fit.candidate_patch``) and the frame in grey (a
    cocked die's rail read looks at the frame the faces were read in)."""

    features: dict[tuple[object, ...], tuple[float | None, np.ndarray]] = field(
        default_factory=dict)
    aligned: dict[tuple[float, float, float], np.ndarray] = field(default_factory=dict)
    candidates: CandidatePatches = field(default_factory=dict)
    gray_frame: tuple[np.ndarray, np.ndarray] | None = None  # (colour frame, its grey)

    def gray(self, colour: np.ndarray) -> np.ndarray:
        """``to_gray(colour)``, converted once per frame: a whole frame costs ~0.5 ms."""
        if self.gray_frame is None or self.gray_frame[0] is not colour:
            self.gray_frame = (colour, to_gray(colour))
        return self.gray_frame[1]


@dataclass(frozen=True)
class BoardDie:
    """One die read on the board."""

    pips: int
    centre_px: tuple[float, float]  # camera image pixels
    centre_mm: tuple[float, float]  # board millimetres (origin: playing surface top-left)
    flat: bool
    on_checker: bool
    half: str | None  # "left"/"right" of the bar as seen in the picture; None: bar or off board
    region: str  # the geometry's region kind: slot, bar, field, tray, frame, off-board
    confidence: float
    p_cocked: float = 0.0
    # the patch network's cocked logit (``vision.dice.patch_net``); None where it did not look
    # (no network, or a die read cocked at the rail, where there is no veto)
    patch_logit: float | None = None
    # the face's pip evidence (``FaceFinding.score``, see ``WEAK_FACE_SCORE``); None: not known
    pip_score: float | None = None

    def sighting(self) -> DieSighting:
        """This die for the frame-to-frame tracker and the landing check (``vision.throw``)."""
        return DieSighting(self.pips, self.centre_mm[0], self.centre_mm[1], self.flat,
                           self.on_checker, self.half)

    def as_json(self) -> dict[str, object]:
        """The ``dice`` entries of ``hakem vision read`` (DESIGN.md)."""
        return {
            "pips": self.pips,
            "centre": [round(self.centre_px[0], 1), round(self.centre_px[1], 1)],
            "flat": self.flat,
            "on_checker": self.on_checker,
            "confidence": round(self.confidence, 3),
        }


def pose_factor(p_cocked: float, threshold: float) -> float:
    """The share of a die's confidence that the flat/cocked call gives: 0.6 for a call on the
    threshold, 1 for a sure one (``pose.cocked_certainty``)."""
    return 0.6 + 0.4 * cocked_certainty(p_cocked, threshold)


# the grid score (a face's weakest pattern pip over its strongest empty place) from which its
# pip evidence counts in full in its confidence (pip_evidence)
CONFIRMED_SCORE = 0.08


def pip_evidence(face: FaceFinding) -> float:
    """The share of a die's confidence its pips give: full where the grid read confirms the
    face's pattern by :data:`CONFIRMED_SCORE`, else five times the pips' contrast, 0.2 to 1.
    On synthetic throws 12000-12599 two faces so confirmed were other than a die (both kept
    with their contrast alone too), while 21 faint flat dice read right fell under the die
    floor for their contrast alone, their throws left to the director (BG-ROLL-2). As the
    table gets them, 580 of those 600 throws were judged, 569 with the bar at 0.1 (the face
    fit's ``DECISIVE_SCORE``)."""
    if face.score >= CONFIRMED_SCORE:
        return 1.0
    return float(np.clip(face.contrast * 5.0, 0.2, 1.0))


def _at_rail(face: FaceFinding, g: BoardGeometry) -> float | None:
    """The way to the top (-1) or bottom (+1) rail when the face lies within
    :data:`RAIL_REACH_SIDES` of it inside a half; else None."""
    if g.region_at(face.x_mm, face.y_mm).kind not in PLAYING:
        return None
    reach = RAIL_REACH_SIDES * g.die_size_mm
    if face.y_mm < reach:
        return -1.0
    if g.height_mm - face.y_mm < reach:
        return 1.0
    return None


@dataclass(frozen=True)
class RailFace:
    """The face nearer the rail that a die read cocked there shows (:func:`upward_at_rail`):
    its pips and its centre (board mm)."""

    pips: int
    x_mm: float
    y_mm: float


def upward_at_rail(gray: Callable[[], np.ndarray], from_mm: np.ndarray, face: FaceFinding,
                   g: BoardGeometry) -> RailFace | None:
    """The upward face of a die read cocked at the rail, when a face nearer the rail reads
    with more pip evidence than ``face`` (see :data:`RAIL_REACH_SIDES`); else None. ``gray``
    gives the frame in grey, asked for only at the rail."""
    way = _at_rail(face, g)
    if way is None:
        return None
    die = g.die_size_mm
    cy = face.y_mm + way * RAIL_LOOK_SIDES * die
    nearer = [r for r in tilted_reads(gray(), from_mm, face.x_mm, cy, die)
              if way * (cy + r.dy - face.y_mm) >= RAIL_NEARER_SIDES * die]
    if not nearer:
        return None
    best = max(nearer, key=lambda r: r.score)
    y = cy + best.dy
    from_rail = y if way < 0 else g.height_mm - y
    if from_rail < RAIL_FACE_MIN_SIDES * die or best.score <= face.score:
        return None  # the best evidence there is a row of the face read's pips, or weaker
    return RailFace(best.value, face.x_mm + best.dx, y)


def cocked_pips(colour: np.ndarray, gray: Callable[[], np.ndarray], from_mm: np.ndarray,
                face: FaceFinding, aligned: Callable[[], np.ndarray], g: BoardGeometry) -> int:
    """The upward face of a die read cocked (BG-ROLL-2: thrown again, but recorded as it
    landed). At the rail, the face nearer the rail
    (:func:`upward_at_rail`) when the upward-face network, shown that face, names it too and
    clears its bar; else the face read, overruled by the network shown the face read
    (``vision.dice.upward_net``). Shown only the face read, the network names that face's own
    value where the rail read found another: on synthetic throws 16000-18399 it overruled 6
    cocked dice at the rail read right that way, and set 3 right."""
    model = upward_model()
    rail = upward_at_rail(gray, from_mm, face, g)
    if rail is not None:
        if model is None:
            return rail.pips
        shown = warp_patch(colour, from_mm, rail.x_mm, rail.y_mm, ALIGNED_MM,
                           ALIGNED_PX_PER_MM, face.angle)
        named, p = upward_face(shown, model)
        if named == rail.pips and p >= model.bar:
            return rail.pips
    return overruled(face.pips, aligned(), model)


def find_faces(image: np.ndarray, to_mm: np.ndarray,
               geometry: BoardGeometry | None = None, *,
               all_candidates: bool = False, spots: bool = True,
               places: Sequence[tuple[float, float, float]] | None = None,
               thorough: bool = False,
               tilted_near: Sequence[tuple[float, float]] | None = None,
               memo: FaceMemo | None = None
               ) -> list[FaceFinding]:
    """Every die face on or beside the board, with its pose features (pose not yet judged).

    Candidates the die model calls board texture are left out unless ``all_candidates``;
    ``places`` replace the raster candidates (see ``candidates.hybrid_candidates``);
    ``thorough``: more second chances, also around each candidate (several times slower);
    ``tilted_near``: second chances only within :data:`TILTED_NEAR_DIES` of these places (mm;
    where no throw can have landed, a cocked die is only one already there, tipped);
    ``memo``: a fresh one, to keep this frame's work on faces for the caller."""
    g = geometry or BoardGeometry()
    colour = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    memo = memo if memo is not None else FaceMemo()
    gray = memo.gray(colour)
    from_mm = np.linalg.inv(to_mm)
    die = g.die_size_mm
    found: list[FaceFinding] = []
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
        finding = _die_face(colour, from_mm, cx, cy, read, die, found, all_candidates, memo)
        if finding is not None:
            if finding.score < WEAK_FACE_SCORE:
                again = _recentred(colour, gray, from_mm, finding, g, found, all_candidates,
                                   memo)
                if again is None and not all_candidates and _tilt_allowed(cx, cy, die,
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
            if not _may_be_cocked(cx, cy, g, found) or not _tilt_allowed(cx, cy, die,
                                                                         tilted_near):
                continue  # no die can be given a second chance there: it costs no budget
            if budget == 0:
                break
            budget -= 1
            finding = _second_chance(colour, gray, from_mm, cx, cy, read, g, found, memo)
            if finding is None and thorough:
                finding = _second_chance_around(colour, gray, from_mm, cx, cy, g, found, memo)
            if finding is not None:
                found.append(finding)
    return found


def _tilt_allowed(cx: float, cy: float, die: float,
                  tilted_near: Sequence[tuple[float, float]] | None) -> bool:
    """Whether a cocked die may be looked for at a candidate: anywhere, or only within
    :data:`TILTED_NEAR_DIES` of ``tilted_near`` (where dice lay before, no throw since)."""
    return tilted_near is None or any(math.hypot(cx - x, cy - y) < TILTED_NEAR_DIES * die
                                      for x, y in tilted_near)


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
        face = _die_face(colour, from_mm, cx, cy, read, die, found, False, memo)
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

    p, z = _with_patch_opinion(aligned, p_cocked(face), threshold, _at_rail(face, g) is None)
    return p, z, aligned


def _may_be_cocked(cx: float, cy: float, g: BoardGeometry, found: list[FaceFinding]) -> bool:
    """Whether a candidate can be given a second chance: on the playing surface (a die on the
    bar or off the board is invalid whatever its pose) and not where a die was found. The
    second chances' budget was spent on candidates on the bar, which are never tried, and the
    cocked dice leaning on the rail further down the list went without one."""
    die = g.die_size_mm
    return g.region_at(cx, cy).kind in PLAYING and not any(
        math.hypot(cx - f.x_mm, cy - f.y_mm) < die * 0.7 for f in found)


def _die_face(colour: np.ndarray, from_mm: np.ndarray, cx: float, cy: float, read: FaceRead,
              die: float, found: list[FaceFinding], all_candidates: bool,
              memo: FaceMemo) -> FaceFinding | None:
    """The face ``read`` from (cx, cy) with its pose features, when it is a die's (the die
    model passes it, unless ``all_candidates``); else None."""
    pts = np.array([[(j - 1) * PIP_OFFSET * die, (i - 1) * PIP_OFFSET * die]
                    for i, j in zip(*np.nonzero(read.mask), strict=True)]).reshape(-1, 2)
    finding = _face_finding(colour, from_mm, cx + read.dx, cy + read.dy, read.angle,
                            read.value, pts, read.score, read.residual, read.contrast, die,
                            found, all_candidates, memo=memo)
    if finding is None or not (all_candidates or p_die(finding) >= max(_threshold("die"),
                                                                       MIN_P_DIE)):
        return None
    return finding


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
    return _die_face(colour, from_mm, weak.x_mm, weak.y_mm, read, die, found, all_candidates,
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
        finding = _second_chance(colour, gray, from_mm, x, y, read, g, found, memo)
        if finding is not None:
            return finding
    return None


def _face_finding(colour: np.ndarray, from_mm: np.ndarray, x_mm: float, y_mm: float,
                  angle: float, value: int, pts: np.ndarray, gscore: float, residual: float,
                  contrast: float, die: float, found: list[FaceFinding], all_candidates: bool,
                  max_spread: float = MAX_FACE_SPREAD,
                  memo: FaceMemo | None = None
                  ) -> FaceFinding | None:
    """A face read at (x_mm, y_mm) with its pose features (``pts``: its pips in the aligned
    patch, mm), or None when a face was already found there or (unless ``all_candidates``)
    the face is not uniform enough for a die's (board texture). ``memo``: the spread and
    pose features of faces already worked out (a candidate the die model turned away is
    judged again as a second chance, first at the very same face)."""
    if any(math.hypot(x_mm - f.x_mm, y_mm - f.y_mm) < die * 0.7 for f in found):
        return None
    key = (x_mm, y_mm, angle, gscore, pts.shape, pts.tobytes())
    kept = memo.features.get(key) if memo is not None else None
    if kept is not None:
        spread, feats = kept
        if spread is not None and spread * 64.0 > max_spread and not all_candidates:
            return None
    else:
        aligned = warp_patch(colour, from_mm, x_mm, y_mm, ALIGNED_MM, ALIGNED_PX_PER_MM, angle)
        if memo is not None:
            memo.aligned[(x_mm, y_mm, angle)] = aligned
        aligned_gray = cv2.cvtColor(aligned, cv2.COLOR_BGR2GRAY)
        spread = face_spread(aligned_gray, die, pts)
        if spread is not None and spread * 64.0 > max_spread and not all_candidates:
            return None  # board texture: the same test as below, before the costly features
        # the side pips: beside the face and within SIDE_PIP_DIES of its centre (only pips
        # within that of it along each axis looked for)
        reach = SIDE_PIP_DIES * die
        others = [p for p in patch_pips(aligned_gray, die, ALIGNED_PX_PER_MM, reach)
                  if p.contrast >= 0.5 * gscore]
        side = np.array([[p.x, p.y] for p in others
                         if max(abs(p.x), abs(p.y)) > 0.56 * die
                         and math.hypot(p.x, p.y) < reach]).reshape(-1, 2)
        feats = pose_features(aligned, die, pts, side, aligned_gray=aligned_gray)
        if memo is not None:
            memo.features[key] = (spread, feats)
    if feats[0] * 64.0 > max_spread and not all_candidates:
        return None
    return FaceFinding(value, x_mm, y_mm, angle, residual, max(contrast, gscore), feats, gscore)


@dataclass(frozen=True)
class SecondTry:
    """A face a second chance judges: the face, the die and cocked models' probabilities, its
    pips' solidity (``vision.dice.solid``) and the acceptor's inputs."""

    face: FaceFinding
    p_die: float
    p_cocked: float
    solidity: float
    inputs: np.ndarray

    def accepted(self) -> bool:
        """A cocked die read right (BG-ROLL-2): the cocked model sure of it (above
        ``pose.second_chance_threshold``) and either the acceptor (``tilted.p_second_chance``)
        calling it a die read right or, as before the acceptor, the die model sure of it
        (:data:`SECOND_P_DIE`) and its pips in one body colour (:data:`SECOND_SOLIDITY`). The
        acceptor alone, fitted on synthetic throws, turned away some of the demo camera's
        cocked dice that the two gates keep."""
        if self.p_cocked < second_chance_threshold():
            return False
        return p_second_chance(self.inputs) >= second_chance_acceptance() or (
            self.p_die >= SECOND_P_DIE and self.solidity >= SECOND_SOLIDITY)


def second_chance_tries(colour: np.ndarray, gray: np.ndarray, from_mm: np.ndarray, cx: float,
                        cy: float, usual: FaceRead | None, g: BoardGeometry,
                        found: list[FaceFinding], *, cocked_only: bool = False,
                        memo: FaceMemo | None = None) -> Iterator[SecondTry]:
    """The faces a second chance judges about a candidate, best first: the usual read's (its
    face may be wider than a flat die's), then the tilted-face hypotheses
    (``vision.dice.tilted``), at most :data:`MAX_SECOND_TRIES` with some pip evidence inside a
    half. ``cocked_only``: leave out the faces the cocked model does not pass (none of them is
    accepted) before their solidity and the acceptor's inputs are worked out (the reader's
    way; training judges every face)."""
    die = g.die_size_mm
    if not _may_be_cocked(cx, cy, g, found):
        return
    reads = tilted_reads(gray, from_mm, cx, cy, die,
                         kept=memo.candidates if memo is not None else None)
    if usual is not None:
        reads.insert(0, TiltedRead(usual.score, usual.dx, usual.dy, usual.angle, usual.value,
                                   usual.mask, usual.edge, 0.0, (1.0, 1.0)))
    tried = 0
    for k, read in enumerate(reads):
        first = k == 0 and usual is not None
        if read.score < (MIN_GRID_SCORE if first else SECOND_MIN_SCORE):
            continue
        x_mm, y_mm = cx + read.dx, cy + read.dy
        if g.region_at(x_mm, y_mm).kind not in PLAYING:
            continue
        tried += 1
        if tried > MAX_SECOND_TRIES:
            return
        pips = read.pip_points(die)
        finding = _face_finding(colour, from_mm, x_mm, y_mm, read.angle, read.value, pips,
                                read.score, 0.16 * die, 0.0, die, found, False,
                                SECOND_MAX_SPREAD, memo)
        if finding is None:
            continue
        cocked = p_cocked(finding)
        if cocked_only and cocked < second_chance_threshold():
            continue
        solid = solidity(colour, from_mm, finding, pips, die).enclosed
        is_die = p_die(finding)
        yield SecondTry(finding, is_die, cocked, solid, second_chance_inputs(
            read, is_die, cocked, solid, float(finding.features[0]) * 64.0, first))


def _second_chance(colour: np.ndarray, gray: np.ndarray, from_mm: np.ndarray, cx: float,
                   cy: float, usual: FaceRead | None, g: BoardGeometry,
                   found: list[FaceFinding],
                   memo: FaceMemo | None = None
                   ) -> FaceFinding | None:
    """A cocked die the usual face read missed (BG-ROLL-2): the first of
    :func:`second_chance_tries` accepted (:meth:`SecondTry.accepted`)."""
    for attempt in second_chance_tries(colour, gray, from_mm, cx, cy, usual, g, found,
                                       cocked_only=True, memo=memo):
        if attempt.accepted():
            return attempt.face
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
    (``vision.dice.reuse`` reads only where the picture changed); ``thorough``: more second
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
    for f in find_faces(colour, to_mm, g, spots=spots, places=places, thorough=thorough,
                        tilted_near=tilted_near, memo=memo):
        if on_marker(g, f.x_mm, f.y_mm):
            continue
        p, z, aligned = _cocked_opinion(colour, from_mm, f, g, threshold, memo)
        # a tilted die's grid read sees part of its upward face (a two as a one)
        pips = cocked_pips(colour, gray, from_mm, f, aligned, g) if p >= threshold else f.pips
        centre_px = _apply(from_mm, np.array([[f.x_mm, f.y_mm]]))[0]
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
