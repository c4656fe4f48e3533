"""A die read on the board (:class:`BoardDie`) and the shares of its confidence that its pose
call (:func:`pose_factor`) and its pips (:func:`pip_evidence`) give. Kept apart from the
reader (``vision.dice.board``) so that what takes its dice need not import the reader.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.dice.face_fit import FaceFinding
from vision.dice.pose import cocked_certainty
from vision.throw import DieSighting

# the regions inside a half (BG-ROLL-2: a die on the bar, in a tray or on the frame is an
# invalid throw however it lies)
PLAYING = ("slot", "field")


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
