"""Unit checks of the stone-count features on drawn masks and patches (MG-1 counting)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.mangala.features import (
    PX_PER_MM,
    CellMeasure,
    distance_peaks,
    drop_caustics,
    hidden_area,
    lit_overlap,
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


def test_lit_overlap_grows_as_stones_stack() -> None:
    """Discs of lit stones lying apart do not overlap; a stone resting half on another does,
    by the lens two unit discs one radius apart share (2 acos(1/2) - sqrt(3)/2 over pi)."""
    down = np.array([0.0, 1.0])  # from a highlight to its stone's centre
    mask = _disc_mask([])
    apart = np.array([[40.0, 60.0], [40.0 + 3 * R, 60.0]])
    assert lit_overlap(CellMeasure(mask, apart, R), down) == pytest.approx(0.0, abs=0.03)
    half = np.array([[60.0, 60.0], [60.0 + R, 60.0]])
    lens = (2 * np.arccos(0.5) - np.sqrt(3) / 2) / np.pi
    assert lit_overlap(CellMeasure(mask, half, R), down) == pytest.approx(lens, abs=0.04)
    three = np.array([[60.0, 60.0], [60.0 + R, 60.0], [60.0 + R / 2, 60.0 + R]])
    assert lit_overlap(CellMeasure(mask, three, R), down) > lit_overlap(
        CellMeasure(mask, half, R), down) + 0.3


def _spot(img: np.ndarray, x: int, y: int, level: int) -> None:
    cv2.circle(img, (x, y), 2, (level, level, level), -1)


def test_a_pale_stones_caustic_is_not_a_second_stone() -> None:
    """Light focused through a milky glass stone makes a fainter bright spot on its far side
    (0.87 radii from the highlight, away from the light): one stone, not two."""
    img = np.full((160, 200, 3), WOOD, np.uint8)
    cv2.circle(img, (100, 80), round(R), (150, 150, 145), -1)
    x_hl, y_hl = 100, 80 - round(0.42 * R)
    _spot(img, x_hl, y_hl, 255)
    y_ca = y_hl + round(0.87 * R)
    _spot(img, x_hl, y_ca, 215)  # fainter
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    down = np.array([0.0, 1.0])  # the light is above: from a highlight down to the centre
    m = CellMeasure(_disc_mask([(100, 80)]), np.array([[x_hl, y_hl], [x_hl, y_ca]], float), R)
    kept = drop_caustics(m, down, img)
    assert kept.peaks.tolist() == [[x_hl, y_hl]]
    # the same two spots across the light are two stones' highlights: both kept
    across = np.array([1.0, 0.0])
    assert len(drop_caustics(m, across, img).peaks) == 2
    # and without a light direction nothing can be told apart
    assert len(drop_caustics(m, np.zeros(2), img).peaks) == 2


def test_hidden_area_is_what_a_stone_without_its_highlight_shows() -> None:
    """Stones whose highlight is seen explain their own pixels (a little bigger or smaller
    than the model stone too); a stone lying apart with no highlight is left over whole, and
    one half under a lit stone leaves its uncovered part."""
    down = np.array([0.0, 1.0])
    hl = round(0.42 * R)
    lit = [(50, 80), (50 + round(2.2 * R), 80)]
    peaks = np.array([[x, y - hl] for x, y in lit], float)
    big = np.zeros((160, 200), np.uint8)
    for c in lit:
        cv2.circle(big, c, round(1.08 * R), 255, -1)
    assert hidden_area(CellMeasure(big, peaks, R), down) == 0.0
    apart = _disc_mask([*lit, (160, 80)])
    assert hidden_area(CellMeasure(apart, peaks, R), down) == pytest.approx(1.0, abs=0.1)
    under = _disc_mask([*lit, (50 + round(3.2 * R), 80)])
    assert 0.2 < hidden_area(CellMeasure(under, peaks, R), down) < 0.8
