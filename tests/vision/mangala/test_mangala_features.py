"""Unit checks of the stone-count features on drawn masks and patches (MG-1 counting)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.mangala.features import (
    PX_PER_MM,
    CellMeasure,
    distance_peaks,
    measure,
    unlit_stones,
    wood_model,
)

R = 6.5 * PX_PER_MM  # a 13 mm stone's radius in raster pixels
WOOD = (70, 110, 160)


def _disc_mask(centres: list[tuple[int, int]], shape: tuple[int, int] = (160, 200)
               ) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    for c in centres:
        cv2.circle(m, c, round(R), 255, -1)
    return m


def test_distance_peaks_one_per_stone_lying_apart() -> None:
    assert distance_peaks(CellMeasure(_disc_mask([]), np.zeros((0, 2)), R)) == 0
    assert distance_peaks(CellMeasure(_disc_mask([(50, 80)]), np.zeros((0, 2)), R)) == 1
    # two stones overlapping a little still show two deep points
    two = _disc_mask([(50, 80), (50 + round(1.6 * R), 80)])
    assert distance_peaks(CellMeasure(two, np.zeros((0, 2)), R)) == 2


def test_unlit_stones_counts_a_stone_without_its_highlight() -> None:
    img = np.full((160, 200, 3), WOOD, np.uint8)
    cv2.circle(img, (50, 80), round(R), (170, 60, 20), -1)  # blue, highlight seen
    cv2.circle(img, (140, 80), round(R), (40, 40, 185), -1)  # red, highlight covered
    mask = _disc_mask([(50, 80), (140, 80)])
    count, area = unlit_stones(img, CellMeasure(mask, np.array([[45.0, 76.0]]), R))
    assert count == 1
    assert 0.5 < area <= 1.0
    # with both highlights seen nothing is left over
    both = np.array([[45.0, 76.0], [135.0, 76.0]])
    assert unlit_stones(img, CellMeasure(mask, both, R)) == (0, 0.0)


def test_a_highlight_hanging_over_the_rim_is_counted() -> None:
    """A raised stone at the rim is seen pushed outward: its highlight, 1 mm outside the
    cell's ellipse, still marks a stone."""
    img = np.full((180, 180, 3), WOOD, np.uint8)
    region = np.zeros((180, 180), np.uint8)
    cv2.ellipse(region, (90, 90), (80, 80), 0, 0, 360, 255, -1)
    wood = wood_model(img, cv2.bitwise_not(region))
    x_hl = 90 - 80 - round(1.0 * PX_PER_MM)  # 1 mm left of the ellipse
    cv2.circle(img, (x_hl + round(0.4 * R), 90), round(R), (70, 70, 75), -1)
    cv2.circle(img, (x_hl, 90), 2, (255, 255, 255), -1)
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    m = measure(img, region, wood, 13.0)
    assert len(m.peaks) == 1
    assert abs(m.peaks[0][0] - x_hl) < 2
