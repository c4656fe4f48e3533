"""A stand-in for the stone reader in tests of the demo's flow: it knows which board the demo's
camera rendered into a picture and reads it as :class:`SyntheticView` would (right with
probability ``sure`` per cell). Tests of recognition itself use the real reader."""

from __future__ import annotations

import numpy as np

from controller.mangala.demo import MangalaCamera
from controller.mangala.reading import MangalaFrameReader
from controller.mangala.view import MangalaFrameSeen
from tests.controller.mangala.synthetic import SyntheticView


class OracleReader(MangalaFrameReader):
    """Reads the board the camera drew, not the picture."""

    def __init__(self, camera: MangalaCamera, sure: float = 0.9999) -> None:
        super().__init__(camera.corners)
        self.camera = camera
        self.sure = sure

    def read(self, image: np.ndarray, t_ms: int) -> MangalaFrameSeen:
        for (cells, _), picture in self.camera._cache.items():
            if picture is image:
                return MangalaFrameSeen(t_ms, SyntheticView(cells, self.sure))
        raise AssertionError("the oracle was asked to read a picture the camera did not draw")
