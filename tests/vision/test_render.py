"""The synthetic renderer: deterministic by seed, ground truth that matches the drawing."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from engine.errors import InvalidInputError
from vision.geometry import BoardGeometry, Canonical
from vision.render import (
    BoardContents,
    Prop,
    SceneSpec,
    random_scene,
    render_scene,
)
from vision.render.board import checker_layout
from vision.render.scene import HandSpec


def test_same_seed_same_picture_and_different_seed_differs() -> None:
    a = render_scene(random_scene(11))
    b = render_scene(random_scene(11))
    c = render_scene(random_scene(12))
    assert a.jpeg == b.jpeg
    assert a.contents == b.contents
    assert a.jpeg != c.jpeg


def test_random_contents_hold_fifteen_a_side() -> None:
    for seed in range(30):
        spec = random_scene(seed)
        assert spec.contents.totals() == (15, 15)
        assert max(max(s) for s in spec.contents.slots) <= 8


class Square:
    """A test prop: a magenta square at the middle of the board."""

    occludes = True

    def __init__(self) -> None:
        self.calls = 0

    def draw(self, canvas: np.ndarray, canonical: Canonical,
             rng: np.random.Generator) -> np.ndarray | None:
        self.calls += 1
        g = canonical.geometry
        u, v = canonical.mm_to_px(g.slot_centre_x(3), 60.0)
        s = int(20 * canonical.px_per_mm)
        canvas[int(v) - s : int(v) + s, int(u) - s : int(u) + s] = (255, 0, 255)
        mask = np.zeros(canvas.shape[:2], np.uint8)
        mask[int(v) - s : int(v) + s, int(u) - s : int(u) + s] = 255
        return mask


def test_props_are_drawn_in_canonical_space_and_can_occlude() -> None:
    prop = Square()
    assert isinstance(prop, Prop)
    spec = SceneSpec(BoardContents.empty(), props=(prop,), seed=5)
    frame = render_scene(spec)
    assert prop.calls == 1
    assert frame.hidden_slots == (3,)
    # the prop shows where project_mm says slot 3's column is
    x, y = frame.project_mm([[spec.geometry.slot_centre_x(3), 60.0]])[0]
    b, g, r = frame.image[round(y), round(x)].astype(int)
    assert r > 200 and b > 200 and g < 80


def test_hand_ground_truth_marks_the_slots_it_covers() -> None:
    g = SceneSpec(BoardContents.empty()).geometry
    hand = HandSpec(entry_mm=(g.slot_centre_x(20), g.height_mm + 300.0),
                    tip_mm=(g.slot_centre_x(20), g.height_mm - 120.0))
    frame = render_scene(SceneSpec(BoardContents.empty(), hands=(hand,), seed=1))
    assert 20 in frame.hidden_slots
    assert all(s >= 12 for s in frame.hidden_slots)
    assert frame.occluded


def test_corners_land_on_the_playing_surface() -> None:
    frame = render_scene(random_scene(3, hand_probability=0.0))
    assert frame.image.shape == (720, 1280, 3)
    c = frame.corners
    assert c.shape == (4, 2)
    assert c[0, 0] < c[1, 0] and c[3, 1] > c[0, 1]
    assert (c >= 0).all() and (c[:, 0] < 1280).all() and (c[:, 1] < 720).all()


def test_checkers_can_be_laid_off_their_points_axis_alternately_left_and_right() -> None:
    g = BoardGeometry()
    contents = BoardContents(tuple([(2, 0), (0, 3)] + [(0, 0)] * 22), (0, 0), (13, 12))
    on_axis = checker_layout(g, contents, np.random.default_rng(5), darker_at_bottom=True)
    aside = checker_layout(g, contents, np.random.default_rng(5), darker_at_bottom=True,
                           off_axis_mm=4.0)
    # the same draws, every checker 4 mm aside: slot 0's to -x, slot 1's to +x
    assert [round(b[0] - a[0], 9) for a, b in zip(on_axis, aside, strict=True)] == \
        [-4.0] * 2 + [4.0] * 3
    assert [a[1:] for a in on_axis] == [b[1:] for b in aside]
    spec = SceneSpec(contents, seed=3)
    assert render_scene(spec).jpeg != render_scene(replace(spec, off_axis_mm=4.0)).jpeg


def test_bar_checkers_are_laid_clear_of_the_spans_kept_clear_or_refused() -> None:
    g = BoardGeometry()
    d = g.checker_diameter_mm
    contents = BoardContents(tuple([(0, 0)] * 24), (2, 1), (13, 14))
    spans = ((200.0, 320.0), (30.0, 90.0))
    for seed in range(20):
        laid = checker_layout(g, contents, np.random.default_rng(seed), darker_at_bottom=True,
                              keep_clear=spans)
        ys = sorted(y for _x, y, _c, _l in laid)
        assert len(ys) == 3
        assert not any(y0 < y < y1 for y in ys for y0, y1 in spans)
        assert all(b - a >= d + 1.5 for a, b in itertools.pairwise(ys))
    # no room for three checkers beside spans leaving two places: refused, naming the spans
    with pytest.raises(InvalidInputError, match="no room on the bar for 3 checkers"):
        checker_layout(g, contents, np.random.default_rng(0), darker_at_bottom=True,
                       keep_clear=((0.0, 180.0), (205.0, 300.0), (325.0, 515.0)))
