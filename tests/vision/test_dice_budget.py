"""The raster's few close reads are not all spent off the playing surface (borne-off checkers in
a tray rank like dice late in a game and hid a thrown die: tests.eval.referee_matches)."""

from vision.dice.candidates import (
    MAX_OFF_SURFACE_CANDIDATES,
    MAX_RASTER_CANDIDATES,
    within_budget,
)
from vision.geometry import BoardGeometry

G = BoardGeometry()
TRAY = [(596.0, 84.0, 0.999), (626.0, 61.0, 0.998), (625.0, 75.0, 0.997), (595.0, 109.0, 0.99)]
HINGE = (284.0, 522.0, 0.98)  # on the frame below the bar
THROWN = (545.5, 417.7, 0.87)  # a die on point 24's column, right half (BG-ROLL-2)


def test_a_die_on_the_board_is_kept_behind_a_full_tray() -> None:
    ranked = [*TRAY, HINGE, (388.0, 491.0, 0.9), THROWN]
    kept = within_budget(ranked, G)
    assert THROWN in kept
    assert len(kept) == MAX_OFF_SURFACE_CANDIDATES + 2  # the rest off the surface is skipped
    off = [c for c in kept if G.region_at(c[0], c[1]).kind not in ("slot", "bar")]
    assert len(off) == MAX_OFF_SURFACE_CANDIDATES
    assert off == TRAY[:MAX_OFF_SURFACE_CANDIDATES]  # the most probable ones, in rank order


def test_a_die_in_the_tray_is_still_read_when_it_ranks_first_there() -> None:
    die_in_tray = (600.0, 300.0, 0.999)
    kept = within_budget([die_in_tray, THROWN], G)
    assert kept == [die_in_tray, THROWN]


def test_the_budget_and_order_hold_on_the_surface() -> None:
    on_board = [(100.0 + 30.0 * i, 200.0, 0.9 - 0.01 * i) for i in range(8)]
    assert within_budget(on_board, G) == on_board[:MAX_RASTER_CANDIDATES]
    assert within_budget(on_board, G, limit=3) == on_board[:3]


def test_a_place_given_in_raster_pixels_is_judged_in_mm() -> None:
    scale = 2.0  # a raster of 2 px per mm
    ranked = [(u * scale, v * scale, p) for u, v, p in [*TRAY, THROWN]]
    kept = within_budget(ranked, G, lambda c: (c[0] / scale, c[1] / scale))
    assert (THROWN[0] * scale, THROWN[1] * scale, THROWN[2]) in kept
    assert len(kept) == MAX_OFF_SURFACE_CANDIDATES + 1
