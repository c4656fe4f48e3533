"""A face read checked for a die's (:func:`die_face`, :func:`face_finding`): not where a face was
found, uniform enough (not board texture), its pose features worked out and, for the usual
read, passed by the die model; and the frame's work on faces kept for the steps after it
(:class:`FaceMemo`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.dice.face_fit import (
    ALIGNED_MM,
    ALIGNED_PX_PER_MM,
    CandidatePatches,
    FaceFinding,
    FaceRead,
    warp_patch,
)
from vision.dice.face_pips import patch_pips
from vision.dice.pips import to_gray
from vision.dice.pose import (
    MAX_FACE_SPREAD,
    MIN_P_DIE,
    face_spread,
    model_threshold,
    p_die,
    pose_features,
)
from vision.dice.render import PIP_OFFSET

SIDE_PIP_DIES = 0.95  # how far from a face's centre the side pips beside it are looked for


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


def die_face(colour: np.ndarray, from_mm: np.ndarray, cx: float, cy: float, read: FaceRead,
              die: float, found: list[FaceFinding], all_candidates: bool,
              memo: FaceMemo) -> FaceFinding | None:
    """The face ``read`` from (cx, cy) with its pose features, when it is a die's (the die
    model passes it, unless ``all_candidates``); else None."""
    pts = np.array([[(j - 1) * PIP_OFFSET * die, (i - 1) * PIP_OFFSET * die]
                    for i, j in zip(*np.nonzero(read.mask), strict=True)]).reshape(-1, 2)
    finding = face_finding(colour, from_mm, cx + read.dx, cy + read.dy, read.angle,
                            read.value, pts, read.score, read.residual, read.contrast, die,
                            found, all_candidates, memo=memo)
    if finding is None or not (all_candidates or p_die(finding) >= max(model_threshold("die"),
                                                                       MIN_P_DIE)):
        return None
    return finding


def face_finding(colour: np.ndarray, from_mm: np.ndarray, x_mm: float, y_mm: float,
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
