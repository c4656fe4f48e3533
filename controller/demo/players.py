"""The simulated players' hands: where dice land, where the cube goes, where arms reach.

Everything is in board millimetres (origin: the playing surface's top-left corner) and drawn by
the renderer's props. Player 0 sits at the bottom of the picture, player 1 at the top; each
throws into the half on their own right (BG-ROLL-2): the picture's right half for player 0,
its left half for player 1.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Literal

from controller.demo.script import InvalidKind
from vision.cube import CubeProp
from vision.dice.render import DieProp, leaning_reach
from vision.geometry import BoardGeometry
from vision.render.scene import BoardContents, HandSpec

Half = Literal["left", "right"]
# where a picture draws the outermost column checker of a slot holding n: (slot, n) -> (x, y) mm
ColumnEnd = Callable[[int, int], tuple[float, float]]
SKIN = ((125, 155, 210), (95, 125, 175))
# White dice with red pips: the precision dice of a tournament, and easy to see on the board.
DIE_STYLE: dict[str, tuple[int, int, int]] = {"body_bgr": (240, 240, 240),
                                              "pip_bgr": (40, 40, 190)}
SLEEVE = ((90, 40, 30), (40, 70, 110))
# How far a planted cocked die leans: clearly cocked (a side face shows), within the tilts the
# dice reader was trained on (vision.dice.synth: 12 to 40 degrees).
COCKED_TILT_DEG = 28.0
# Valid throws land within this of the board's middle line: clear of the tips of five-checker
# columns (which end 43 mm short of it), so that a die never lies half over a checker.
THROW_BAND_MM = 10.0


def demo_die(x: float, y: float, value: int, *, yaw_deg: float = 0.0, tilt_deg: float = 0.0,
             tilt_axis_deg: float = 0.0, elevation_mm: float = 0.0) -> DieProp:
    """One of the demo's dice (white, red pips: ``DIE_STYLE``) at rest at (x, y) mm."""
    return DieProp(x, y, value, yaw_deg=yaw_deg, tilt_deg=tilt_deg, tilt_axis_deg=tilt_axis_deg,
                   body_bgr=DIE_STYLE["body_bgr"], pip_bgr=DIE_STYLE["pip_bgr"],
                   elevation_mm=elevation_mm)


def right_half(player: int) -> Half:
    """The picture half on the player's right (the layout's first player sits at the bottom)."""
    return "right" if player == 0 else "left"


def _half_x(geometry: BoardGeometry, half: Half) -> tuple[float, float]:
    r = geometry.half_rect(half)
    return r.x0, r.x1


def throw_spot(geometry: BoardGeometry, half: Half, rng: random.Random) -> tuple[float, float]:
    """Where a throw lands in a half: the free band across the middle of the board."""
    x0, x1 = _half_x(geometry, half)
    x = rng.uniform(x0 + 40.0, x1 - 90.0)
    y = geometry.height_mm / 2 + rng.uniform(-THROW_BAND_MM, THROW_BAND_MM)
    return x, y


def thrown_dice(geometry: BoardGeometry, player: int, dice: tuple[int, int],
                rng: random.Random, invalid: InvalidKind | None = None,
                contents: BoardContents | None = None,
                column_end: ColumnEnd | None = None) -> tuple[DieProp, ...]:
    """Two dice at rest after a throw by ``player``: valid, or landing as ``invalid`` says.
    ``column_end(slot, n)``: where the picture draws a column's outermost checker (else the
    geometry's nominal place), so that a die rests against or on the checker drawn."""
    half = right_half(player)
    if invalid == "wrong-half":
        half = "left" if half == "right" else "right"
    x, y = throw_spot(geometry, half, rng)
    first = demo_die(x, y, dice[0], yaw_deg=rng.uniform(0, 90))
    x2, y2 = x + rng.uniform(38.0, 55.0), y + rng.uniform(-6.0, 6.0)
    second = demo_die(x2, y2, dice[1], yaw_deg=rng.uniform(0, 90))
    if invalid == "cocked":
        # a cocked die rests against something (a die cannot stay tilted on the open board):
        # a checker of the thrower's half if there is one (as dice come to rest in play), else
        # the rail of that half
        lean = leaning_spot(geometry, contents, half, rng, COCKED_TILT_DEG, column_end)
        if lean is None:
            lean = rail_spot(geometry, half, rng, COCKED_TILT_DEG)
        second = demo_die(lean[0], lean[1], dice[1], yaw_deg=rng.uniform(0, 90),
                      tilt_deg=COCKED_TILT_DEG, tilt_axis_deg=lean[2])
    elif invalid == "on-checker" and contents is not None:
        spot = checker_spot(geometry, contents, right_half(player), rng, column_end)
        if spot is not None:
            second = demo_die(spot[0], spot[1], dice[1], yaw_deg=rng.uniform(0, 90),
                          elevation_mm=geometry.checker_thickness_mm)
        else:  # no checker in that half: the die lands cocked against the rail instead
            lean = rail_spot(geometry, right_half(player), rng, COCKED_TILT_DEG)
            second = demo_die(lean[0], lean[1], dice[1], yaw_deg=rng.uniform(0, 90),
                          tilt_deg=COCKED_TILT_DEG, tilt_axis_deg=lean[2])
    return (first, second)


def opening_dice(geometry: BoardGeometry, dice: tuple[int, int], rng: random.Random
                 ) -> tuple[DieProp, ...]:
    """One die each, in each player's right half (BG-OPEN-1)."""
    out = []
    for player in (0, 1):
        x, y = throw_spot(geometry, right_half(player), rng)
        out.append(demo_die(x + 20.0, y, dice[player], yaw_deg=rng.uniform(0, 90)))
    return tuple(out)


def rolling_dice(dice: tuple[DieProp, ...], rng: random.Random, k: int) -> tuple[DieProp, ...]:
    """The same dice still tumbling towards where they will land (frame ``k`` of a roll)."""
    out = []
    for die in dice:
        dx = (2 - k) * rng.uniform(20.0, 40.0)
        out.append(demo_die(die.x_mm - dx, die.y_mm + rng.uniform(-15, 15),
                           rng.randint(1, 6), yaw_deg=rng.uniform(0, 90),
                           tilt_deg=rng.uniform(20, 40), tilt_axis_deg=rng.uniform(0, 180)))
    return tuple(out)


def checker_spot(geometry: BoardGeometry, contents: BoardContents, half: Half,
                 rng: random.Random, column_end: ColumnEnd | None = None
                 ) -> tuple[float, float] | None:
    """The centre of the outermost checker of a stack in ``half`` (a die may land on it)."""
    slots = [i for i in range(24) if geometry.slot_half(i) == half and sum(contents.slots[i]) > 0]
    if not slots:
        return None
    slot = slots[rng.randrange(len(slots))]
    if column_end is not None:
        return column_end(slot, sum(contents.slots[slot]))
    n = min(sum(contents.slots[slot]), geometry.column_capacity())
    return geometry.checker_centre_mm(slot, n - 1)


def leaning_spot(geometry: BoardGeometry, contents: BoardContents | None, half: Half,
                 rng: random.Random, tilt_deg: float = 30.0,
                 column_end: ColumnEnd | None = None) -> tuple[float, float, float] | None:
    """Where a cocked die leans against the outermost checker of a stack in ``half``, tipped
    towards it: (x mm, y mm, tilt axis degrees), as dice come to rest against a checker."""
    if contents is None:
        return None
    spot = checker_spot(geometry, contents, half, rng, column_end)
    if spot is None:
        return None
    cx, cy = spot
    top = cy < geometry.height_mm / 2
    dy = 1.0 if top else -1.0  # away from the checker, towards the middle of the board
    reach = leaning_reach(geometry.die_size_mm, tilt_deg)
    y = cy + dy * (geometry.checker_diameter_mm / 2 + reach + 0.5)
    toward = (0.0, -dy)
    axis = math.degrees(math.atan2(toward[0], -toward[1]))
    return cx, y, axis


def rail_spot(geometry: BoardGeometry, half: Half, rng: random.Random,
              tilt_deg: float = COCKED_TILT_DEG) -> tuple[float, float, float]:
    """Where a cocked die leans against the rail (the frame's inner side, top or bottom) of
    ``half``, tipped towards it: (x mm, y mm, tilt axis degrees). Only where no checker lies
    at that edge (the caller's half holds none)."""
    x0, x1 = _half_x(geometry, half)
    size = geometry.die_size_mm
    x = rng.uniform(x0 + size, x1 - size)
    top = rng.random() < 0.5
    reach = leaning_reach(size, tilt_deg)
    y = reach + 0.5 if top else geometry.height_mm - reach - 0.5
    # tipped towards the rail as leaning_spot tips a die towards a checker above or below it
    return x, y, (0.0 if top else 180.0)


def hand(geometry: BoardGeometry, player: int, target: tuple[float, float],
         rng: random.Random) -> HandSpec:
    """An arm from the player's edge of the table reaching to ``target``."""
    x = target[0] + rng.uniform(-60.0, 60.0)
    y = geometry.height_mm + 250.0 if player == 0 else -250.0
    return HandSpec((x, y), target, 95.0, SKIN[player], SLEEVE[player])


# The demo's cube is a little smaller than the geometry's nominal one, so that at the ends of
# the bar it leaves the checkers beside the bar uncovered; the demo's table configuration says
# so (``cube_size_mm``), as a table's owner measures their own cube.
CUBE_MM = 33.0


def centre_cube(geometry: BoardGeometry) -> CubeProp:
    """The cube at the start of a game, showing 64, centred on the bar (BG-CUBE-1): the
    middle of the bar, where the board reader's geometry has it (``cube_place("centre")``)."""
    return CubeProp(geometry.bar.centre[0], geometry.height_mm / 2, 64, yaw_deg=3.0,
                    size_mm=CUBE_MM)


def offered_cube(geometry: BoardGeometry, player: int, value: int) -> CubeProp:
    """A double: the cube on the doubler's right, showing the new value (BG-CUBE-3)."""
    x0, x1 = _half_x(geometry, right_half(player))
    return CubeProp((x0 + x1) / 2, geometry.height_mm / 2, value, yaw_deg=5.0)


def owned_cube(geometry: BoardGeometry, player: int, value: int) -> CubeProp:
    """A taken cube at the taker's end of the bar, on the frame (BG-CUBE-3)."""
    y = geometry.height_mm + 5.0 if player == 0 else -5.0
    return CubeProp(geometry.bar.centre[0], y, value, yaw_deg=5.0, size_mm=CUBE_MM)
