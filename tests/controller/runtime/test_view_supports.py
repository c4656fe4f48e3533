"""The table's frame reader takes a die read cocked with nothing to lean on as flat
(``vision.dice.support``, BG-ROLL-2: cocked is tilted against the rail, a checker or the other
die), from its own board reading; a die leaning on the rail stays cocked. And its board
reading counts no checker where a die lies on the board (on no checker), nor under the cube."""

from __future__ import annotations

import numpy as np

from controller.demo.camera import DemoCamera, Shot
from controller.demo.players import COCKED_TILT_DEG, demo_die
from controller.runtime.view import FrameReader, ReadingView
from vision.board_reader import read_board
from vision.dice.render import leaning_reach
from vision.dice.synth import random_dice_scene
from vision.render.scene import BoardContents

SLOTS = tuple((2, 0) if i == 0 else (0, 2) if i == 23 else (0, 0) for i in range(24))


def _seen(y: float) -> list[tuple[int, bool, float]]:
    camera = DemoCamera(seed=7)
    g = camera.geometry
    right = g.half_rect("right")
    x = (right.x0 + right.x1) / 2
    dice = (demo_die(x - 70.0, g.height_mm / 2, 3, yaw_deg=10.0),
            demo_die(x, y, 5, yaw_deg=20.0, tilt_deg=COCKED_TILT_DEG, tilt_axis_deg=0.0))
    image, _ = camera.render(Shot(BoardContents(slots=SLOTS), dice))
    reader = FrameReader(corners=camera.corners_flat(), die_floor=0.5, cocked_floor=0.15)
    seen = reader.read(image, 0)
    return sorted((d.pips, d.flat, d.p_cocked) for d in seen.dice)


def test_a_tilted_die_with_nothing_to_lean_on_is_seen_flat() -> None:
    seen = _seen(DemoCamera(seed=7).geometry.height_mm / 2 - 40.0)
    assert [(pips, flat) for pips, flat, _ in seen] == [(3, True), (5, True)]
    assert seen[1][2] == 0.0


def test_a_die_leaning_on_the_rail_is_seen_cocked() -> None:
    g = DemoCamera(seed=7).geometry
    seen = _seen(leaning_reach(g.die_size_mm, COCKED_TILT_DEG) + 0.5)
    assert [(pips, flat) for pips, flat, _ in seen] == [(3, True), (5, False)]
    assert seen[1][2] > 0.5


def test_no_checker_is_read_where_a_die_or_the_cube_lies_on_the_board() -> None:
    # synthetic throws whose die at the base of the empty 12th slot (the first), one just
    # past slot 11's lone checker (the second) and the offered cube on an empty point (the
    # third) read as checkers by their edges alone
    for seed, slot in ((3149, 12), (3040, 11), (3081, 7)):
        scene = random_dice_scene(seed)
        truth = scene.frame.spec.contents.slots[slot] if scene.frame else None
        corners = np.asarray(scene.corners, np.float32).reshape(4, 2)
        alone = read_board(scene.image, corners=corners, dice=False)
        assert alone.slot_counts()[slot] != truth
        reader = FrameReader(corners=[float(v) for v in corners.reshape(-1)])
        board = reader.read(scene.image, 0).board
        assert isinstance(board, ReadingView) and board.reading.slot_counts()[slot] == truth
