"""The demo camera draws a table as it is: a checker lies still while others move."""

from __future__ import annotations

import cv2
import numpy as np

from controller.demo.camera import DemoCamera, contents_from_counts

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
