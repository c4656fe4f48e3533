"""A thorough read keeps only dice where the picture changed since the board before the throw
(``DiceMemory.read_before_throw``, called at a move's press): board texture it reads as a
cocked die there is no die of the throw, and must not make a valid throw invalid (BG-ROLL-2)."""

from __future__ import annotations

import math

import numpy as np

from controller.demo.camera import DemoCamera, Shot
from controller.demo.players import demo_die
from vision.cube import CubeProp
from vision.dice.board_die import BoardDie
from vision.dice.reuse import DiceMemory
from vision.render.scene import BoardContents

# A throw of the 20-match evaluation (match4525984 with --seed0 200, demo camera seed 212):
# the new throw's one lands within 5 mm of where the opening throw's one lay, so the referee
# sees one die thrown and has the frame read thoroughly; that read also finds a "cocked three"
# on a column of white checkers (their highlights and the gaps between them), which was
# flagged as an invalid throw.
SLOTS = ((5, 0), (0, 0), (0, 0), (0, 0), (0, 4), (0, 0), (0, 5), (0, 0), (0, 0), (0, 0), (0, 0),
         (2, 0), (0, 4), (0, 0), (0, 0), (0, 0), (3, 0), (0, 0), (5, 0), (0, 0), (0, 0), (0, 0),
         (0, 1), (0, 1))
CUBE = CubeProp(x_mm=-125.0, y_mm=257.5, value=64, yaw_deg=3.0, body_bgr=(238, 240, 240),
                ink_bgr=(25, 25, 25), font=0, size_mm=33.0, occludes=False)

# at the press before the throw: the opening dice, where they fell
OPENING = (demo_die(481.8734048961693, 252.88207479290568, 1, yaw_deg=70.45976051979095),
           demo_die(146.67283904451315, 252.66592278621258, 5, yaw_deg=67.38576459055423))
# the throw: the five new, the one thrown again to 4.6 mm from where it lay
THROWN = (demo_die(429.3661293728881, 250.06861789213292, 5, yaw_deg=68.85324036438996),
          demo_die(483.882906770242, 249.15908006032208, 1, yaw_deg=76.65398841928875))
PHANTOM_MM = (306.0, 137.0)


def _near(dice: list[BoardDie], x: float, y: float) -> list[BoardDie]:
    return [d for d in dice if math.hypot(d.centre_mm[0] - x, d.centre_mm[1] - y) < 8.0]


def test_a_thorough_read_keeps_no_die_where_nothing_changed_since_the_press() -> None:
    camera = DemoCamera(seed=212)
    g = camera.geometry
    corners = np.asarray(camera.corners, np.float32).reshape(4, 2)
    press, _ = camera.render(Shot(BoardContents(slots=SLOTS), OPENING, CUBE))
    throw, _ = camera.render(Shot(BoardContents(slots=SLOTS), THROWN, CUBE))
    # the last checker of the move not yet played (point 12 to 17)
    earlier = list(SLOTS)
    earlier[11], earlier[16] = (3, 0), (2, 0)
    moving, _ = camera.render(Shot(BoardContents(slots=tuple(earlier)), OPENING, CUBE))

    # read thoroughly with nothing to compare with, the checkers give a die (the profile model
    # calls it cocked; the patch network, sure it is none, leaves it flat in doubt)
    alone = DiceMemory()
    alone.read_thoroughly()
    phantom = _near(alone.read(throw, corners, g), *PHANTOM_MM)
    assert len(phantom) == 1 and phantom[0].p_cocked >= 0.5

    # as at the table: the board read while the move was made, then the press's picture
    # (read only where it changed: the checker moved) kept as the board before the throw ...
    memory = DiceMemory()
    memory.read(moving, corners, g)
    assert memory.stats.last == "full"
    memory.read_before_throw()
    assert len(memory.read(press, corners, g)) == 2 and memory.stats.last == "partial"
    # ... the throw read, then thoroughly
    memory.read(throw, corners, g)
    # the one landed 4.6 mm from where the opening's one lay: its own pixels changed, so the
    # referee counts it thrown (DieSeen.touched); nothing changed on the checkers
    assert memory.changed_since_press((THROWN[1].x_mm, THROWN[1].y_mm)) is True
    assert memory.changed_since_press(PHANTOM_MM) is False
    assert alone.changed_since_press(PHANTOM_MM) is None  # no press seen: unknown
    memory.read_thoroughly()
    dice = memory.read(throw, corners, g)
    assert memory.stats.last == "thorough"
    assert not _near(dice, *PHANTOM_MM) and memory.stats.unthrown_dropped == 1
    # both dice of the throw are kept, the one too: its own pixels changed
    assert sorted(d.pips for d in dice) == [1, 5] and all(d.flat for d in dice)
    # the board before the throw is kept until the next press: another thorough read of the
    # same picture drops the same texture
    memory.read_thoroughly()
    assert not _near(memory.read(throw, corners, g), *PHANTOM_MM)


def test_the_press_s_picture_is_kept_as_read_and_changed_nowhere_since_on_its_frame() -> None:
    """The board before the throw is the press frame's change raster itself (read-only, not
    copied), and on that frame no place has changed since: what the change map of the picture
    against itself gives, known without working it out."""
    from vision.dice.change_map import pixel_change

    camera = DemoCamera(seed=212)
    g = camera.geometry
    corners = np.asarray(camera.corners, np.float32).reshape(4, 2)
    press, _ = camera.render(Shot(BoardContents(slots=SLOTS), OPENING, CUBE))
    throw, _ = camera.render(Shot(BoardContents(slots=SLOTS), THROWN, CUBE))
    memory = DiceMemory()
    memory.read(throw, corners, g)
    memory.read_before_throw()
    memory.read(press, corners, g)
    assert memory.raster is not None and memory._before is not None
    now = memory.raster[1]
    assert memory._before[1] is now and not now.flags.writeable
    since = pixel_change(now, now.copy())
    assert since is not None and not since.any()
    assert all(memory.changed_since_press((d.x_mm, d.y_mm)) is False
               for d in (*OPENING, *THROWN))
    memory.read(throw, corners, g)  # the throw's frame: its dice's places changed since
    assert all(memory.changed_since_press((d.x_mm, d.y_mm)) is True for d in THROWN)
    assert memory.changed_since_press(PHANTOM_MM) is False
