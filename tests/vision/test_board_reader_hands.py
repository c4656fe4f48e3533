"""Hands over the board: a slot a hand covers is never given a count (the referee's safety
property, DESIGN.md "engine-in-the-loop": a false accusation is worse than none)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.board_reader import read_board
from vision.render import SCHEMES, HandSpec, SceneSpec, random_contents, random_scene, render_scene
from vision.render.scene import CameraSpec

# Frames of the evaluation set (and of a held-out set, 2000xx) where an earlier reader gave
# counts under a hand: fingertips near the bar ends, arms from the sides, skin over wood, cream
# and olive boards, dark skin against a brown frame.
ONCE_MISSED = (100083, 100095, 100134, 100145, 100180, 100198, 100235, 100314, 100358,
               100407, 100412, 100455, 100462, 100482, 100546, 100568, 100670, 200255)


@pytest.mark.parametrize("seed", ONCE_MISSED)
def test_no_count_is_claimed_under_a_hand(seed: int) -> None:
    frame = render_scene(random_scene(seed))
    assert frame.hidden_slots, "the scene must hold a hand over some slot"
    reading = read_board(frame.image, corners=frame.corners)
    counts = reading.slot_counts()
    claimed = [i for i in frame.hidden_slots if counts[i] is not None]
    assert claimed == [], f"counts given under the hand at slots {claimed}"
    assert reading.occluded
    assert reading.to_json()["off"] is None


@pytest.mark.parametrize("left", [True, False])
def test_an_arm_from_the_side_hides_that_side(left: bool) -> None:
    """An arm coming over the side frame, in skin close to a wooden board's colour."""
    scheme = next(s for s in SCHEMES if s.name == "gold-white-wood")
    spec0 = random_scene(3)
    g = spec0.geometry
    entry = (-300.0, 0.5 * g.height_mm) if left else (g.width_mm + 300.0, 0.5 * g.height_mm)
    tip = (0.2 * g.width_mm, 0.45 * g.height_mm) if left else (0.8 * g.width_mm,
                                                               0.55 * g.height_mm)
    hand = HandSpec(entry, tip, 95.0, (95, 125, 175), (60, 90, 120))
    contents = random_contents(np.random.default_rng(5), 5)
    spec = SceneSpec(contents, scheme, CameraSpec(jpeg_quality=85), (hand,), seed=11)
    frame = render_scene(spec)
    assert frame.hidden_slots
    reading = read_board(frame.image, corners=frame.corners)
    counts = reading.slot_counts()
    assert [i for i in frame.hidden_slots if counts[i] is not None] == []
    assert reading.to_json()["hidden"]["frame"] == ["left" if left else "right"]


def test_a_box_on_the_side_frame_is_named_and_hides_what_an_arm_there_could() -> None:
    """A clock or a score sheet left across a side of the case's frame looks, there, like an
    arm coming over it (which may be coloured like the board and reach anywhere): every slot
    within an arm's reach stays hidden, and the reading names the side so that a director
    can clear it. The same board without it is read whole."""
    import cv2

    frame = render_scene(random_scene(300000))
    assert not frame.hidden_slots
    c = np.asarray(frame.corners, np.float32).reshape(4, 2)  # TL, TR, BR, BL
    width, height = float(c[1, 0] - c[0, 0]), float(c[2, 1] - c[1, 1])
    x0, y0 = int(c[1, 0] + 0.02 * width), int(c[1, 1] + 0.4 * height)
    boxed = frame.image.copy()
    cv2.rectangle(boxed, (x0, y0), (x0 + int(0.15 * width), y0 + int(0.25 * height)),
                  (25, 25, 30), -1)
    clear = read_board(frame.image, corners=frame.corners).to_json()
    assert clear["hidden"] == {"slots": [], "bar": False, "frame": []}
    out = read_board(boxed, corners=frame.corners).to_json()
    assert out["hidden"]["frame"] == ["right"]
    assert out["occluded"] and out["hidden"]["slots"] == list(range(24))
