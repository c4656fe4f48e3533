"""Find dice in any photo and read their upward faces (``hakem vision dice``).

Pipeline: pip candidates (``pips``) -> upward-face scorer and grouping (``faces``) -> one
:class:`DieFinding` per group, with the face box sized by the fitted box coefficients.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.dice.faces import PipGroup, face_scores, group_pips, load_model
from vision.dice.pips import Pip, find_pips, to_gray


@dataclass(frozen=True)
class DieFinding:
    """One die: its upward face box (x0, y0, x1, y1) in pixels, pips 1..6 and a confidence."""

    box: tuple[float, float, float, float]
    pips: int
    confidence: float

    @property
    def centre(self) -> tuple[float, float]:
        """Centre of the upward face."""
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)

    def as_json(self) -> dict[str, object]:
        """The ``hakem vision dice`` JSON form."""
        return {
            "box": [round(v, 1) for v in self.box],
            "pips": self.pips,
            "confidence": round(self.confidence, 3),
        }


def _pattern_fit(pips: tuple[Pip, ...]) -> float:
    """How well the pip layout matches a die face of that count (1 = perfect)."""
    n = len(pips)
    if n <= 1:
        return 1.0
    xy = np.array([[p.x, p.y] for p in pips])
    centre = xy.mean(axis=0)
    radii = np.linalg.norm(xy - centre, axis=1)
    diam = float(np.median([p.diameter for p in pips]))
    if n in (2, 3, 5):
        # corner pips (and the centre pip of 3 and 5) lie on one diagonal or at the centre
        central = radii < 0.6 * diam
        expected_central = 0 if n == 2 else 1
        if int(central.sum()) != expected_central:
            return 0.5
        corners = radii[~central]
        return float(np.clip(1.0 - corners.std() / max(corners.mean(), 1e-6), 0.0, 1.0))
    spread = radii.std() / max(radii.mean(), 1e-6)
    return float(np.clip(1.0 - 0.5 * spread, 0.0, 1.0))


def finding_from_group(group: PipGroup) -> DieFinding:
    """The upward-face box and confidence of one pip group."""
    _, _, _, box = load_model()
    xs = np.array([p.x for p in group.pips])
    ys = np.array([p.y for p in group.pips])
    diam = float(np.median([p.diameter for p in group.pips]))
    cx, cy = float(xs.mean()), float(ys.mean())
    n = min(len(group.pips), 6)
    extent, size = box[f"extent{n}"], box[f"diameter{n}"]
    half_x = extent * (xs.max() - xs.min()) / 2 + size * diam
    half_y = extent * (ys.max() - ys.min()) / 2 + size * diam
    confidence = float(np.mean(group.scores)) * _pattern_fit(group.pips)
    return DieFinding((cx - half_x, cy - half_y, cx + half_x, cy + half_y),
                      len(group.pips), confidence)


def find_dice(image: np.ndarray, *, min_confidence: float = 0.3) -> list[DieFinding]:
    """Every die whose upward face shows, left to right, with its pips and a confidence."""
    pips = find_pips(image)
    scores = face_scores(pips)
    gray = cv2.GaussianBlur(to_gray(image), (3, 3), 0)
    found = [finding_from_group(g) for g in group_pips(pips, scores, gray=gray)]
    found = [f for f in found if f.confidence >= min_confidence]
    return sorted(found, key=lambda f: (f.box[0], f.box[1]))
