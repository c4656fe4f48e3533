"""Find dice in any photo and read their upward faces (``hakem vision dice``).

Pipeline: pip candidates (``pips``) -> upward-face scorer and grouping (``faces``) -> one
:class:`DieFinding` per group, with the face box sized by the fitted box coefficients; a lone
pip counts as a one only on a blank face (``blank_around``).
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


#: A one's pip sits alone on a blank face: the ring one to two pip diameters around it varies
#: by at most this fraction of its mean level (the photos' ones: 0.012 at the 95th percentile;
#: lone blobs that are no die, such as highlights, grain and side-face pips: 0.06 and up).
ONE_RING_SPREAD = 0.05


def blank_around(gray: np.ndarray, pip: Pip) -> float:
    """How much the ring one to two pip diameters around a pip varies (standard deviation over
    mean, on the face's side of the pip's polarity): near 0 on a die face with nothing else."""
    h, w = gray.shape
    outer = 2.0 * pip.diameter
    x0, x1 = max(0, int(pip.x - outer)), min(w, int(pip.x + outer) + 2)
    y0, y1 = max(0, int(pip.y - outer)), min(h, int(pip.y + outer) + 2)
    patch = gray[y0:y1, x0:x1].astype(np.float64)
    if not pip.dark:
        patch = 255.0 - patch
    yy, xx = np.mgrid[y0:y1, x0:x1]
    r = np.hypot(xx - pip.x, yy - pip.y)
    ring = patch[(r >= pip.diameter) & (r <= outer)]
    if ring.size < 8:
        return 1.0
    return float(ring.std() / max(float(ring.mean()), 1.0))


def find_dice(image: np.ndarray, *, min_confidence: float = 0.3) -> list[DieFinding]:
    """Every die whose upward face shows, left to right, with its pips and a confidence."""
    pips = find_pips(image)
    scores = face_scores(pips)
    gray = cv2.GaussianBlur(to_gray(image), (3, 3), 0)
    groups = [g for g in group_pips(pips, scores, gray=gray)
              if len(g.pips) > 1 or blank_around(gray, g.pips[0]) <= ONE_RING_SPREAD]
    found = [finding_from_group(g) for g in groups]
    found = [f for f in found if f.confidence >= min_confidence]
    return sorted(found, key=lambda f: (f.box[0], f.box[1]))
