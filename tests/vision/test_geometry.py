"""Board geometry: image slot order (DESIGN.md), regions, canonical rasters."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.geometry import BoardGeometry, Canonical

G = BoardGeometry()


def test_slot_order_top_row_left_to_right_then_bottom_row() -> None:
    xs_top = [G.slot_centre_x(i) for i in range(12)]
    xs_bottom = [G.slot_centre_x(i) for i in range(12, 24)]
    assert xs_top == sorted(xs_top) and xs_bottom == sorted(xs_bottom)
    assert all(G.slot_is_top(i) for i in range(12))
    assert not any(G.slot_is_top(i) for i in range(12, 24))
    # six points left of the bar, six right of it
    assert all(G.slot_centre_x(i) < G.bar.x0 for i in range(6))
    assert all(G.slot_centre_x(i) > G.bar.x1 for i in range(6, 12))


def test_region_lookup_names_slot_half_bar_tray_and_outside() -> None:
    for slot in range(24):
        x = G.slot_centre_x(slot)
        y = 10.0 if slot < 12 else G.height_mm - 10.0
        region = G.region_at(x, y)
        assert region.kind == "slot" and region.slot == slot
        assert region.half == G.slot_half(slot)
    assert G.region_at(G.bar.centre[0], G.height_mm / 2).kind == "bar"
    assert G.region_at(*G.tray_rect("right").centre).tray == "right"
    assert G.region_at(-1000.0, 0.0).kind == "off-board"
    assert G.half_at(G.bar.centre[0], 100.0) is None
    assert G.half_at(10.0, 100.0) == "left"


def test_checker_columns_fit_their_half_and_stack_from_the_edge() -> None:
    cap = G.column_capacity()
    assert cap == 5  # five touching checkers reach past the point, as in real play
    _, y = G.checker_centre_mm(0, 0)
    assert y == pytest.approx(G.checker_diameter_mm / 2)
    _, y_last = G.checker_centre_mm(12, cap - 1)
    assert y_last > G.height_mm / 2
    _, y_over = G.checker_centre_mm(3, 0, layer=1)
    assert y_over == pytest.approx(G.checker_diameter_mm)


def test_points_alternate_and_facing_points_differ() -> None:
    assert [G.point_colour_index(i) for i in range(4)] == [0, 1, 0, 1]
    for c in range(12):
        assert G.point_colour_index(c) != G.point_colour_index(12 + c)


def test_cube_places_and_markers_are_where_the_docs_say() -> None:
    assert G.cube_place("centre").contains(*G.bar.centre)
    assert G.cube_place("top-side").y0 < 0 < G.cube_place("top-side").y1
    assert G.cube_place("offered") == G.playing_area
    markers = G.marker_centres_mm()
    assert markers.shape == (4, 2)
    assert G.tray_rect("left").contains(*markers[0]) and G.tray_rect("right").contains(*markers[2])


def test_canonical_homography_maps_image_corners_to_raster_corners() -> None:
    can = Canonical(G, 0.5, (10.0, 20.0))
    corners = np.array([[100, 50], [900, 70], [880, 650], [120, 640]], np.float32)
    h = can.homography_from_image(corners)
    mapped = cv2.perspectiveTransform(corners.reshape(-1, 1, 2).astype(np.float64), h)
    expected = can.points_mm_to_px(G.corners_mm)
    assert np.allclose(mapped.reshape(4, 2), expected, atol=1e-3)
    assert can.px_to_mm(*can.mm_to_px(12.0, 34.0)) == pytest.approx((12.0, 34.0))
    assert can.region_at_px(*can.mm_to_px(G.slot_centre_x(7), 5.0)).slot == 7


def test_bad_measurements_are_refused() -> None:
    with pytest.raises(ValueError):
        BoardGeometry(point_width_mm=0)
    with pytest.raises(ValueError):
        BoardGeometry(point_length_mm=400)
    with pytest.raises(ValueError):
        G.slot_rect(24)
