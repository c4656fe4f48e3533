"""Whether a face the reader found belongs to one solid die rather than to board texture.

A real die is a small cube of one material: its upward face is a patch of one body colour,
about a die wide and bounded on every side (by the die's outline, a shaded side face or what
it rests against), with pips of one colour standing out from it. Board texture that the face
read can take for a die, such as the apex of a dark point meeting a checker's rim or the frame
(the phantom cocked die of the reverted "second chances", which the referee then saw in every
frame, BG-ROLL-2), has no such compact patch: the region of the "face" colour runs on past a
die's width or is a triangle narrowing to a tip. The measurements here work on a face-aligned
patch at ``ALIGNED_PX_PER_MM`` (``vision.dice.face_fit``). The second chances' acceptor
(``vision.dice.tilted.p_second_chance``) weighs the solidity with the die and cocked models'
judgements; the reader's gate on it (``second_chance.SECOND_SOLIDITY``) turns away some synthetic
cocked dice leaning on the rail, whose foreshortened face leaves the outer pips' surround on
the side face, which the acceptor then keeps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.dice.face_fit import ALIGNED_MM, ALIGNED_PX_PER_MM, FaceFinding, warp_patch
from vision.dice.pose import face_mask
from vision.dice.render import PIP_RADIUS

RING_RADII = (1.7, 2.1)  # where around each pip its surround is sampled (pip radii)
RING_SAMPLES = 16  # per radius
BODY_CHROMA = 0.05  # chromaticity distance (sum over channels) of a body-coloured sample
BODY_LEVEL = (0.75, 1.25)  # and its brightness as a share of the face's body colour


@dataclass(frozen=True)
class Solidity:
    """How well the face's pips sit in one body colour: for each pip, the share of samples on a
    ring around it that have the face's body colour; the least of them."""

    enclosed: float


def solidity(colour: np.ndarray, from_mm: np.ndarray, face: FaceFinding, pips: np.ndarray,
             die_mm: float) -> Solidity:
    """Measure how the face's pips (``pips``: mm in the frame of a patch turned by the face's
    angle, from its centre) sit in its body colour (see :class:`Solidity`)."""
    ppm = ALIGNED_PX_PER_MM
    patch = warp_patch(colour, from_mm, face.x_mm, face.y_mm, ALIGNED_MM, ppm, face.angle)
    f = patch.astype(np.float32)
    n = f.shape[0]
    c = n / 2
    f0, f1, mask = face_mask(n, die_mm, pips)
    body_px = f[f0:f1, f0:f1][mask]
    if len(body_px) < 8 or len(pips) == 0:
        return Solidity(0.0)
    body = np.median(body_px, axis=0)
    bsum = float(body.sum()) + 1.0
    radius = PIP_RADIUS * die_mm
    angles = np.linspace(0, 2 * np.pi, RING_SAMPLES, endpoint=False)
    least = 1.0
    for k, (x, y) in enumerate(pips):
        others = np.delete(pips, k, axis=0)
        pts = np.concatenate([np.stack([x + rr * radius * np.cos(angles),
                                        y + rr * radius * np.sin(angles)], axis=1)
                              for rr in RING_RADII])
        if len(others):
            clear = np.min(np.hypot(pts[:, None, 0] - others[None, :, 0],
                                    pts[:, None, 1] - others[None, :, 1]), axis=1) > 1.9 * radius
            pts = pts[clear]
        if len(pts) < 4:
            continue
        u = np.clip(np.round(c + pts[:, 0] * ppm).astype(int), 0, n - 1)
        v = np.clip(np.round(c + pts[:, 1] * ppm).astype(int), 0, n - 1)
        samples = f[v, u]
        ssum = samples.sum(axis=1) + 1.0
        chroma = np.abs(samples / ssum[:, None] - body / bsum).sum(axis=1)
        level = ssum / bsum
        like = (chroma < BODY_CHROMA) & (level > BODY_LEVEL[0]) & (level < BODY_LEVEL[1])
        least = min(least, float(like.mean()))
    return Solidity(least)

