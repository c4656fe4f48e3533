"""One pit or store in a photo, no calibration: the picture is taken to frame the cell.

The cell is the ellipse inscribed in the picture (a store when the picture is clearly longer
than wide, a pit otherwise); the bare wood's colour is learnt from the picture's corners outside
that ellipse, and the cell is resampled to the board reader's scale before it is measured, so the
same count model applies (``hakem vision stones``).
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.errors import ImageError
from vision.mangala.features import (
    PX_PER_MM,
    cell_features,
    centre_offsets,
    light_direction,
    measure,
    wood_model,
)
from vision.mangala.geometry import DEFAULT_GEOMETRY, Cell, MangalaGeometry
from vision.mangala.reader import CellReading, cell_region, probabilities

STORE_ASPECT = 1.6  # a picture this much longer than wide shows a store


def framed_cell(image: np.ndarray, geometry: MangalaGeometry = DEFAULT_GEOMETRY
                ) -> tuple[Cell, bool]:
    """The model cell the picture shows, and whether it lies across (a store photographed with
    its long side horizontal)."""
    h, w = image.shape[:2]
    if max(h, w) >= STORE_ASPECT * min(h, w):
        return geometry.cell(6), w > h
    return geometry.cell(0), False


def read_cell_photo(image: np.ndarray, geometry: MangalaGeometry = DEFAULT_GEOMETRY
                    ) -> CellReading:
    """Stone-count probabilities for a photo that frames one pit or store."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3:
        raise ImageError("image must be a BGR uint8 picture")
    if min(image.shape[:2]) < 16:
        raise ImageError(f"image of {image.shape[1]}x{image.shape[0]} pixels is too small")
    cell, across = framed_cell(image, geometry)
    pic = np.ascontiguousarray(np.rot90(image)) if across else image
    pad = 2.0  # mm of board kept around the cell, as the board reader's patches have
    hx, hy = cell.half_size
    size = (round((2 * hx + 2 * pad) * PX_PER_MM), round((2 * hy + 2 * pad) * PX_PER_MM))
    patch = cv2.resize(pic, size, interpolation=cv2.INTER_AREA)
    origin = (cell.centre[0] - hx - pad, cell.centre[1] - hy - pad)
    region = cell_region((size[1], size[0]), cell, origin)
    outside = cell_region((size[1], size[0]), cell, origin, shrink_mm=-1.5)
    wood = wood_model(patch, cv2.bitwise_not(outside))
    m = measure(patch, region, wood, geometry.stone_diameter_mm)
    feats = cell_features(m, light_direction(centre_offsets(m)), patch)
    p = probabilities(feats, "store" if cell.is_store else "pit")
    return CellReading(tuple(float(v) for v in p), False)
