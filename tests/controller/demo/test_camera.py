"""The demo camera draws a table as it is: a checker lies still while others move, the cube
centred on the bar at a game's start with the checkers hit onto the bar beside it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.demo import players as pl
from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from controller.demo.script import build_script
from controller.demo.table import demo_table_config, table_camera
from controller.runtime.view import FrameReader

# the starting position in the renderer's slot order: (darker, lighter) per slot
START = [(0, 0)] * 24
for slot, pair in {0: (2, 0), 5: (0, 5), 7: (0, 3), 11: (5, 0), 12: (0, 5), 16: (3, 0),
                   18: (5, 0), 23: (0, 2)}.items():
    START[slot] = pair


def _moved(slots: list[tuple[int, int]], src: int, dst: int) -> list[tuple[int, int]]:
    out = list(slots)
    a, b = out[src]
    out[src] = (a - 1, b) if a else (a, b - 1)
    c, d = out[dst]
    out[dst] = (c + 1, d) if a else (c, d + 1)
    return out


def _changed_places(camera: DemoCamera, before: np.ndarray, after: np.ndarray
                    ) -> list[tuple[int, float]]:
    """Each connected patch of changed pixels as (nearest slot by its centre, distance mm)."""
    g = camera.geometry
    changed = np.any(before != after, axis=2).astype(np.uint8)
    n, _labels, _stats, centres = cv2.connectedComponentsWithStats(changed)
    ppm = camera.canonical.mm_to_px(1.0, 0.0)[0] - camera.canonical.mm_to_px(0.0, 0.0)[0]
    x0, y0 = camera.canonical.mm_to_px(0.0, 0.0)
    out = []
    for cx, cy in centres[1:n]:
        x_mm, y_mm = (cx - x0) / ppm, (cy - y0) / ppm
        top = y_mm < g.height_mm / 2
        slot = min((s for s in range(24) if g.slot_is_top(s) == top),
                   key=lambda s: abs(g.slot_centre_x(s) - x_mm))
        out.append((slot, abs(g.slot_centre_x(slot) - x_mm)))
    return sorted(out)


def test_moving_one_checker_redraws_only_its_two_points() -> None:
    camera = DemoCamera(seed=3)
    before = camera._with_checkers(contents_from_counts(START, (0, 0), (0, 0)), None)
    after_slots = _moved(START, 11, 9)
    after = camera._with_checkers(contents_from_counts(after_slots, (0, 0), (0, 0)), None)
    # one patch where the checker left, one where it landed: every other checker lies still
    places = _changed_places(camera, before, after)
    assert [slot for slot, _ in places] == [9, 11]
    assert all(off < 3.0 for _, off in places)
    # and the same scene is the very same picture however it was reached
    again = DemoCamera(seed=3)._with_checkers(contents_from_counts(after_slots, (0, 0), (0, 0)),
                                              None)
    assert np.array_equal(after, again)


@pytest.mark.parametrize(("seed", "bar"), [(0, (0, 0)), (1, (1, 0)), (2, (0, 1)), (3, (1, 1)),
                                           (4, (2, 0))])
def test_a_game_starts_with_the_cube_centred_on_the_bar_and_hit_checkers_beside_it(
        tmp_path: Path, seed: int, bar: tuple[int, int]) -> None:
    """BG-CUBE-1: the demo lays its centred cube in the middle of the bar, the reader (told the
    demo's cube, as the demo's configuration tells it) reads it there, and checkers hit onto
    the bar are laid clear of it and of the hinges, each counted once."""
    camera = table_camera(seed)
    g = camera.geometry
    slots = list(START)
    slots[0] = (2 - bar[0], 0)
    slots[23] = (0, 2 - bar[1])
    contents = contents_from_counts(slots, bar, (0, 0))
    cube = pl.centre_cube(g)
    assert camera.bar_clear(contents, cube)
    laid = [y for x, y, _c, _l in camera._layout(contents, cube)[0] if g.bar.contains(x, y)]
    assert len(laid) == sum(bar)
    assert all(abs(y - cube.y_mm) >= camera._cube_reach(cube) for y in laid)
    config = demo_table_config(build_script(), camera, tmp_path)
    image, _ = camera.render(Shot(contents, cube=cube))
    seen = FrameReader(config.vision_config(), config.camera.corners).read(image, 0)
    assert seen.cube is not None and (seen.cube.value, seen.cube.zone) == (64, "centre")
    assert seen.board.reading.bar.counts == bar
    assert seen.board.reading.slot_counts() == slots
