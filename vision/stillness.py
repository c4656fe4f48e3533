"""The stillness gate: read a frame only when the scene has stopped moving.

Each frame is shrunk to a small grey thumbnail and compared with the previous one; after
``still_frames`` consecutive frames in which the share of changed pixels stays under
``diff_threshold`` the scene is still (a share, not a mean, so a hand is not diluted by the
rest of the picture). Hands moving checkers, dice rolling and arms reaching
over the board all show up as motion, so those frames are never read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.config import StillnessConfig


@dataclass
class StillnessGate:
    """Feed frames with :meth:`update`; it returns True once the scene has been still."""

    config: StillnessConfig = field(default_factory=StillnessConfig)
    _previous: np.ndarray | None = None
    _still: int = 0
    last_motion: float = 0.0

    def thumbnail(self, image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        tw = self.config.thumb_width
        th = max(1, round(h * tw / w))
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        small = cv2.resize(gray, (tw, th), interpolation=cv2.INTER_AREA)
        out: np.ndarray = cv2.GaussianBlur(small, (3, 3), 0)
        return out

    def update(self, image: np.ndarray) -> bool:
        """Take the next frame; True when it may be read (the scene is still)."""
        thumb = self.thumbnail(image)
        if self._previous is None or self._previous.shape != thumb.shape:
            self._previous = thumb
            self._still = 0
            self.last_motion = float("inf")
            return False
        moving = cv2.absdiff(thumb, self._previous) > self.config.pixel_threshold
        diff = float(moving.mean())
        self._previous = thumb
        self.last_motion = diff
        if diff < self.config.diff_threshold:
            self._still += 1
        else:
            self._still = 0
        return self._still >= self.config.still_frames

    def reset(self) -> None:
        self._previous = None
        self._still = 0
