"""How large a die's face is in the camera's picture, and whether real dice can be read there.

Measured with ``python -m tests.eval.dice --synthetic 0 --beside 0 --face-px N``: the real dice
photographs of ``dice_photos/Valid`` (255 dice), each shrunk so that its dice faces are about N
pixels across, found and read right (centre match) 98.4% / 98.8% at 24 px, 91.8% / 86.8% at
18 px. A camera over a whole board at 1280 x 720 gives 1.15 to 1.7 px/mm (the mounts of
``hardware_docs/camera-mount.md``), so 18 to 27 px for a 16 mm die: the mount and the
resolution decide whether the dice can be read at all, and the table says so when they cannot.
"""

from __future__ import annotations

import numpy as np

from vision.dice.candidates import local_scale
from vision.geometry import BoardGeometry

# the face size (pixels) from which real dice are found and read right about 98% of the time
MIN_FACE_PX = 24.0


def face_px(from_mm: np.ndarray, geometry: BoardGeometry) -> float:
    """The pixels across a die's face where the board is seen smallest (its far side, for a
    camera not straight above): ``from_mm`` maps board millimetres to image pixels."""
    area = geometry.playing_area
    return geometry.die_size_mm * min(
        local_scale(from_mm, x, y)
        for x in (area.x0, (area.x0 + area.x1) / 2, area.x1)
        for y in (area.y0, (area.y0 + area.y1) / 2, area.y1))


def too_small(px: float) -> str | None:
    """What to tell the table when dice faces of ``px`` pixels are too small to read
    reliably, or None."""
    if px >= MIN_FACE_PX:
        return None
    return (f"the dice are about {px:.1f} px across in the camera's picture; real dice are "
            f"read reliably from {MIN_FACE_PX:.0f} px: raise [camera] width and height, or "
            "mount the camera lower (hardware_docs/camera-mount.md)")


__all__ = ["MIN_FACE_PX", "face_px", "too_small"]
