"""Second chances (BG-ROLL-2): a cocked die whose foreshortened face the usual read missed, looked
for about a candidate among the tilted-face hypotheses (:func:`second_chance_tries`) and taken
when accepted (:meth:`SecondTry.accepted`, :func:`give_second_chance`); and where they may be given
(:func:`may_be_cocked`, :func:`tilt_allowed`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from vision.dice.board_die import PLAYING
from vision.dice.face_check import FaceMemo, face_finding
from vision.dice.face_fit import MIN_GRID_SCORE, FaceFinding, FaceRead
from vision.dice.pose import p_cocked, p_die, second_chance_threshold
from vision.dice.solid import solidity
from vision.dice.tilted import (
    TiltedRead,
    p_second_chance,
    second_chance_acceptance,
    second_chance_inputs,
    tilted_reads,
)
from vision.geometry import BoardGeometry

# Second chances (a cocked die whose foreshortened face the usual read missed): only inside a
# half (a die on the bar, in a tray or on the frame is an invalid throw however it lies,
# BG-ROLL-2, and their texture is where phantom dice came from), with some pip evidence (the
# acceptor, ``tilted.p_second_chance``, weighs it with the rest), as a die the cocked model is
# sure of and that the acceptor calls a die read right or the die model is sure of.
SECOND_MIN_SCORE = 0.06
SECOND_P_DIE = 0.7  # the die model's bar for a second chance whose pips are solid ...
SECOND_SOLIDITY = 0.24  # ... by this bar (vision.dice.solid; on demo-style seeds the phantom
# second chances 0.06, real cocked dice 0.42 and up)
MAX_SECOND_TRIES = 4  # hypotheses judged per candidate, best first
# a read told where dice lay before (``tilted_near``: no throw can have landed since) gives
# second chances (BG-ROLL-2's cocked dice) only this many die sizes about them (a die tipped by
# a hand moving a checker, BG-MOVE-8)
TILTED_NEAR_DIES = 2.0
# a cocked die's foreshortened face, a few camera pixels across, takes in its outline and the
# side face's edge: its grey spread may pass the flat face's limit (MAX_FACE_SPREAD)
SECOND_MAX_SPREAD = 80.0


def tilt_allowed(cx: float, cy: float, die: float,
                  tilted_near: Sequence[tuple[float, float]] | None) -> bool:
    """Whether a cocked die may be looked for at a candidate: anywhere, or only within
    :data:`TILTED_NEAR_DIES` of ``tilted_near`` (where dice lay before, no throw since)."""
    return tilted_near is None or any(math.hypot(cx - x, cy - y) < TILTED_NEAR_DIES * die
                                      for x, y in tilted_near)


def may_be_cocked(cx: float, cy: float, g: BoardGeometry, found: list[FaceFinding]) -> bool:
    """Whether a candidate can be given a second chance: on the playing surface (a die on the
    bar or off the board is invalid whatever its pose) and not where a die was found. The
    second chances' budget was spent on candidates on the bar, which are never tried, and the
    cocked dice leaning on the rail further down the list went without one."""
    die = g.die_size_mm
    return g.region_at(cx, cy).kind in PLAYING and not any(
        math.hypot(cx - f.x_mm, cy - f.y_mm) < die * 0.7 for f in found)


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
    if not may_be_cocked(cx, cy, g, found):
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
        finding = face_finding(colour, from_mm, x_mm, y_mm, read.angle, read.value, pips,
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


def give_second_chance(colour: np.ndarray, gray: np.ndarray, from_mm: np.ndarray, cx: float,
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
