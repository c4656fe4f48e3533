"""What a die could lean on (``vision.dice.support``, BG-ROLL-2: a cocked die rests tilted
against the rail, a checker or the other die): a die read cocked with nothing within reach is
taken as flat; one beside the rail, a checker (counted, hidden, or the outermost one the die
may hide), the other die or the cube keeps the reader's call; one that can lean on the rail
alone is called cocked from a lower bar (no white checker's rim beside it to look like a side
face); one called on a checker where the board reading counts none lies on the board."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from tests.eval.rail_bar import choose, choose_joint
from vision.board_reader import prepare, read_board, read_prepared
from vision.calibration import Calibration
from vision.dice import board_pass
from vision.dice.board_die import BoardDie
from vision.dice.leaning import beside_checker_scene
from vision.dice.patch_net import joint_logit, patch_model
from vision.dice.pose import cocked_threshold
from vision.dice.render import DieProp, leaning_reach
from vision.dice.support import (
    COCKED_REACH_SIDES,
    HIDE_REACH_SIDES,
    LEAN_REACH_SIDES,
    RAIL_COCKED_THRESHOLD,
    RAIL_PATCH_BAR,
    UNDER_REACH_SIDES,
    checker_places,
    lean_gap_mm,
    places_for,
    with_supports,
)
from vision.geometry import BoardGeometry
from vision.render import render_scene
from vision.render.scene import BoardContents, random_scene

G = BoardGeometry()
EMPTY: list[tuple[int, int] | None] = [(0, 0)] * 24
RIGHT = G.half_rect("right")
MIDDLE = ((RIGHT.x0 + RIGHT.x1) / 2, G.height_mm / 2)  # nothing within reach


def _clear_of_the_bar() -> int:
    """A slot of the right half whose column lies beyond a cocked die's reach of the bar's
    edge (the one beside the bar lies within COCKED_REACH_SIDES of it)."""
    return next(s for s in range(12, 24) if G.slot_half(s) == "right"
                and abs(G.slot_centre_x(s) - G.bar.x1) > COCKED_REACH_SIDES * G.die_size_mm)


def _die(x: float, y: float, p: float = 0.95, **kw: object) -> BoardDie:
    fields: dict[str, object] = dict(
        pips=5, centre_px=(0.0, 0.0), centre_mm=(x, y), flat=p < cocked_threshold(),
        on_checker=False,
        half=G.half_at(x, y), region=G.region_at(x, y).kind, confidence=0.6, p_cocked=p)
    fields.update(kw)
    return BoardDie(**fields)  # type: ignore[arg-type]


def test_checker_places_count_one_more_and_every_place_of_a_hidden_slot() -> None:
    counts: list[tuple[int, int] | None] = [(0, 0)] * 24
    counts[0] = (2, 0)  # 2 counted: places 0, 1 and 2 (the die may hide the outermost)
    counts[13] = (0, 9)  # more than a column's first layer: capped
    counts[7] = None  # hidden: all five places
    places = checker_places(counts, G)
    cap = G.column_capacity()
    assert len(places) == 3 + cap + cap
    assert tuple(places[0]) == G.checker_centre_mm(0, 0)
    assert tuple(places[2]) == G.checker_centre_mm(0, 2)
    assert len(checker_places(EMPTY, G)) == 0


def test_gap_to_rail_bar_checker_other_die_and_cube() -> None:
    none = np.zeros((0, 2))
    assert lean_gap_mm(MIDDLE, G, none) > 60
    assert lean_gap_mm((MIDDLE[0], 9.0), G, none) == pytest.approx(9.0)
    assert lean_gap_mm((G.bar.x1 + 7.0, MIDDLE[1]), G, none) == pytest.approx(7.0)
    checker = np.array([[MIDDLE[0] + 30.0, MIDDLE[1]]])
    assert lean_gap_mm(MIDDLE, G, checker) == pytest.approx(30.0 - G.checker_diameter_mm / 2)
    other = (MIDDLE[0] - 20.0, MIDDLE[1])
    assert lean_gap_mm(MIDDLE, G, none, [other]) == pytest.approx(20.0 - G.die_size_mm / 2)
    cube = (MIDDLE[0], MIDDLE[1] + 35.0)
    assert lean_gap_mm(MIDDLE, G, none, cube=cube) == pytest.approx(35.0 - G.cube_size_mm / 2)


def test_a_die_read_cocked_with_nothing_to_lean_on_is_flat() -> None:
    die = _die(*MIDDLE, p=0.95)
    (out,) = with_supports([die], G, EMPTY)
    assert out.flat and out.p_cocked == 0.0
    assert out.confidence > die.confidence  # as sure of flat as the rest of the read allows
    assert (out.pips, out.centre_mm, out.half) == (die.pips, die.centre_mm, die.half)
    # a doubt below the cocked threshold goes too (the referee would call the director)
    (doubt,) = with_supports([_die(*MIDDLE, p=0.7)], G, EMPTY)
    assert doubt.flat and doubt.p_cocked == 0.0


def test_a_die_with_something_within_reach_keeps_the_readers_call() -> None:
    reach = LEAN_REACH_SIDES * G.die_size_mm
    near_rail = _die(MIDDLE[0], reach - 1.0)
    slot = _clear_of_the_bar()
    cx, cy = G.checker_centre_mm(slot, 0)
    beside = _die(cx, cy - G.checker_diameter_mm / 2 - 12.0)
    counts = list(EMPTY)
    counts[slot] = (1, 0)
    for die, slots in ((near_rail, EMPTY), (beside, counts)):
        assert with_supports([die], G, slots) == [die]
    # the outermost checker the die may hide: one place beyond the counted ones
    counts[slot] = (0, 1)
    cx2, cy2 = G.checker_centre_mm(slot, 1)
    hides = _die(cx2, cy2 - G.checker_diameter_mm / 2 - 12.0)
    assert with_supports([hides], G, counts) == [hides]
    hidden = list(EMPTY)
    hidden[slot] = None
    far_down = _die(cx, G.checker_centre_mm(slot, 4)[1] - G.checker_diameter_mm / 2 - 10.0)
    assert with_supports([far_down], G, hidden) == [far_down]
    assert with_supports([far_down], G, EMPTY)[0].flat
    # on the other die, beside the cube, on a checker, or with the board unknown
    pair = [_die(*MIDDLE), _die(MIDDLE[0] + 18.0, MIDDLE[1], p=0.0)]
    assert with_supports(pair, G, EMPTY) == pair
    cube = (MIDDLE[0], MIDDLE[1] + 34.0)
    assert with_supports([_die(*MIDDLE)], G, EMPTY, cube) == [_die(*MIDDLE)]
    on = _die(cx, cy, on_checker=True)  # over the counted checker
    assert with_supports([on], G, counts) == [on]
    assert with_supports([_die(*MIDDLE)], G, None) == [_die(*MIDDLE)]


def test_a_die_read_cocked_keeps_its_call_a_little_farther_from_the_rail() -> None:
    """A die tilted steeply against the rail is read by its upward face, which lies farther
    from the rail than a flat die's centre would (held-out seed 48127: 22 mm, its true centre
    12 mm): read cocked, it stays cocked out to COCKED_REACH_SIDES; read flat in doubt, it is
    made surely flat beyond LEAN_REACH_SIDES, as before."""
    between = (LEAN_REACH_SIDES + COCKED_REACH_SIDES) / 2 * G.die_size_mm
    cocked = _die(MIDDLE[0], between, p=0.996)
    assert not cocked.flat
    assert with_supports([cocked], G, EMPTY) == [cocked]
    doubt = _die(MIDDLE[0], between, p=0.3)
    (out,) = with_supports([doubt], G, EMPTY)
    assert out.flat and out.p_cocked == 0.0
    beyond = _die(MIDDLE[0], COCKED_REACH_SIDES * G.die_size_mm + 1.0, p=0.996)
    assert with_supports([beyond], G, EMPTY)[0].flat


def test_a_checker_the_die_could_not_hide_is_no_support() -> None:
    """The place beyond a column's counted checkers is a support only for a die over it or
    against it (``HIDE_REACH_SIDES`` of its rim), which may hide that checker from the board
    reading: a die read cocked 18 mm beyond it, within a cocked die's reach of its rim, would
    leave such a checker in view, so it is read flat; with that checker counted it keeps its
    call (synthetic throw 17036: a flat die across a point's edge, called cocked, made a valid
    throw "throw again")."""
    slot = _clear_of_the_bar()
    counts = list(EMPTY)
    counts[slot] = (0, 1)
    cx, cy = G.checker_centre_mm(slot, 1)
    gap = 18.0
    assert HIDE_REACH_SIDES * G.die_size_mm < gap < LEAN_REACH_SIDES * G.die_size_mm
    die = _die(cx, cy - G.checker_diameter_mm / 2 - gap)
    assert len(places_for(die, checker_places(counts, G, one_more=False),
                          checker_places(counts, G)[1:], G)) == 1  # the counted one only
    (out,) = with_supports([die], G, counts)
    assert out.flat and out.p_cocked == 0.0
    counts[slot] = (0, 2)
    assert with_supports([die], G, counts) == [die]


def test_a_die_on_a_checker_the_board_does_not_count_lies_on_the_board() -> None:
    """BG-ROLL-2's die resting on a checker lies over a checker the board reading counts (or
    cannot see): one called on a checker elsewhere on the playing surface, its "rim" made up
    of a point's edges, the rail or the cube's sides, lies on the board (synthetic throws
    17887, 18211: valid throws called "throw again"); on the bar the slots say nothing."""
    slot = _clear_of_the_bar()
    cx, cy = G.checker_centre_mm(slot, 0)
    counts = list(EMPTY)
    counts[slot] = (1, 0)
    on = _die(cx + 6.0, cy - 5.0, p=0.0, on_checker=True)
    assert with_supports([on], G, counts) == [on]
    hidden = list(EMPTY)
    hidden[slot] = None
    assert with_supports([on], G, hidden) == [on]
    (open_,) = with_supports([on], G, EMPTY)
    assert not open_.on_checker and open_.flat
    beyond = _die(cx, cy - G.checker_diameter_mm / 2
                  - (UNDER_REACH_SIDES + 0.25) * G.die_size_mm, p=0.0, on_checker=True)
    assert not with_supports([beyond], G, counts)[0].on_checker
    bar = _die((G.bar.x0 + G.bar.x1) / 2, MIDDLE[1], p=0.0, on_checker=True)
    assert bar.region == "bar" and with_supports([bar], G, EMPTY) == [bar]


def test_a_doubtful_die_that_can_lean_on_the_rail_alone_is_cocked() -> None:
    reach = LEAN_REACH_SIDES * G.die_size_mm
    p = (RAIL_COCKED_THRESHOLD + cocked_threshold()) / 2
    at_rail = _die(MIDDLE[0], reach - 1.0, p=p)
    assert at_rail.flat  # the reader's own bar
    (out,) = with_supports([at_rail], G, EMPTY)
    assert not out.flat and out.p_cocked == p
    assert (out.pips, out.centre_mm, out.half) == (at_rail.pips, at_rail.centre_mm, at_rail.half)
    assert 0.0 < out.confidence <= 1.0
    # under the lower bar, or with nothing near, or as sure as the reader's own bar: as read
    low = _die(MIDDLE[0], reach - 1.0, p=RAIL_COCKED_THRESHOLD - 0.05)
    assert with_supports([low], G, EMPTY) == [low]
    sure = _die(MIDDLE[0], reach - 1.0, p=0.95)
    assert with_supports([sure], G, EMPTY) == [sure]
    # a checker, the other die or the cube within reach as well: the reader's bar stands
    slot = next(s for s in range(12) if G.slot_half(s) == "right")
    cx, cy = G.checker_centre_mm(slot, 0)
    assert cy < G.checker_diameter_mm  # the column's first checker, against the same rail
    beside = _die(cx + G.checker_diameter_mm / 2 + 6.0, reach - 1.0, p=p)
    counts = list(EMPTY)
    counts[slot] = (1, 0)
    assert with_supports([beside], G, counts) == [beside]
    pair = [at_rail, _die(MIDDLE[0] + 18.0, reach - 1.0, p=0.0)]
    assert with_supports(pair, G, EMPTY) == pair
    cube = (MIDDLE[0] + 30.0, reach)
    assert with_supports([at_rail], G, EMPTY, cube) == [at_rail]
    assert with_supports([at_rail], G, None) == [at_rail]
    # on a checker, or off the playing surface, the rail is not what it leans on
    on = _die(cx, reach - 1.0, p=p, on_checker=True)  # over the column's first checker
    assert with_supports([on], G, counts) == [on]


def test_a_die_the_patch_network_sees_cocked_by_the_rail_alone_is_cocked() -> None:
    reach = LEAN_REACH_SIDES * G.die_size_mm
    # the profile model sure it is flat, the network surer it is cocked: their joint logit
    # half a unit over the bar
    z = 2.0 * (RAIL_PATCH_BAR + 0.5) - 2.0 * joint_logit(0.05, 0.0)
    at_rail = _die(MIDDLE[0], reach - 1.0, p=0.05, patch_logit=z)
    assert joint_logit(0.05, z) == pytest.approx(RAIL_PATCH_BAR + 0.5)
    (out,) = with_supports([at_rail], G, EMPTY)
    assert not out.flat and out.p_cocked == at_rail.p_cocked
    assert 0.0 < out.confidence <= 1.0
    surer = dataclasses.replace(at_rail, patch_logit=z + 3.0)
    assert with_supports([surer], G, EMPTY)[0].confidence > out.confidence
    # below the bar, not looked at, or by something else as well: as read
    for under in (z - 1.2, None):
        below = dataclasses.replace(at_rail, patch_logit=under)
        assert with_supports([below], G, EMPTY) == [below]
    pair = [at_rail, _die(MIDDLE[0] + 18.0, reach - 1.0, p=0.0)]
    assert with_supports(pair, G, EMPTY) == pair
    # away from the rail the network's word alone does not make a die cocked
    alone = _die(*MIDDLE, p=0.05, patch_logit=z + 3.0)
    assert with_supports([alone], G, EMPTY)[0].flat


def _tilted_scene(y: float) -> tuple[np.ndarray, np.ndarray]:
    """A rendered board with a few checkers at the far ends and a die tilted 30 degrees at
    ``y`` in the middle of the right half (a flat die beside it, farther than a die's reach)."""
    spec = random_scene(3, hand_probability=0.0, hard=False, max_stack=5)
    slots = [(0, 0)] * 24
    slots[0], slots[23] = (3, 0), (0, 3)
    spec.contents = BoardContents(tuple(slots))
    x = MIDDLE[0]
    spec.props = (DieProp(x, y, 5, 20.0, 30.0, 0.0), DieProp(x - 60.0, MIDDLE[1] + 5.0, 3, 40.0))
    frame = render_scene(spec)
    return frame.image, np.asarray(frame.corners, np.float32).reshape(4, 2)


def _raw_and_read(y: float) -> tuple[list[BoardDie], list[dict[str, object]]]:
    image, corners = _tilted_scene(y)
    board_pass.forget_cube()
    raw = board_pass.read_frame(prepare(image, Calibration(corners, "corners", G))).dice
    return raw, read_board(image, corners=corners).dice


def test_a_rendered_tilted_die_in_the_open_is_read_flat_by_the_board_reading() -> None:
    raw, read = _raw_and_read(MIDDLE[1])
    tilted = [d for d in raw if d.pips == 5]
    assert tilted and not tilted[0].flat  # the dice reader alone calls it cocked
    assert sorted((d["pips"], d["flat"]) for d in read) == [(3, True), (5, True)]


def test_a_rendered_die_leaning_on_the_rail_stays_cocked() -> None:
    y = leaning_reach(G.die_size_mm, 30.0) + 0.5  # tipped towards the top rail
    raw, read = _raw_and_read(y)
    assert [d.flat for d in raw if d.pips == 5] == [False]
    assert sorted((d["pips"], d["flat"]) for d in read) == [(3, True), (5, False)]


def test_the_rail_bar_table_picks_the_lowest_bar_within_one_percent() -> None:
    """``tests.eval.rail_bar.choose``: the lowest bar (steps of 0.1, then the model's) that
    calls at most 1% of the flat dice by the rail alone cocked, with each bar's counts; the
    model's own bar when no lower one does."""
    flat = [(True, 0.05, None, True)] * 150 + [(True, 0.35, None, True), (True, 0.55, -2.0, True)]
    cocked = [(False, 0.45, 1.0, True), (False, 0.75, None, True)]
    beside = [(True, 0.6, 5.0, False)]  # by a checker as well: not the rail bar's
    lines, best = choose(flat + cocked + beside, 0.8)
    assert best == 0.4  # 0.3 calls 2 of 152 (1.3%), 0.4 calls 1 (0.66%)
    assert "bar 0.400: flat called cocked 1/152, cocked caught 2/2" in lines
    assert lines[-1].startswith("bar 0.800: flat called cocked 0/152, cocked caught 0/2")
    _, none_lower = choose([(True, 0.79, None, True)] * 10, 0.8)
    assert none_lower == 0.8


def test_the_joint_rail_bar_keeps_within_one_percent_with_the_profile_bar() -> None:
    """``tests.eval.rail_bar.choose_joint``: the floor above which a joint bar, with the profile
    model's rail bar, calls at most 1% of the flat dice by the rail alone cocked."""
    flat = ([(True, 0.05, -3.0, True)] * 196 + [(True, 0.75, -5.0, True)]  # the profile bar's
            + [(True, 0.2, 3.0, True), (True, 0.3, 2.0, True), (True, 0.1, 4.0, True)])
    cocked = [(False, 0.3, 4.0, True), (False, 0.6, None, True)]
    beside = [(True, 0.5, 9.0, False)]
    lines, floor = choose_joint(flat + cocked + beside, 0.7, 0.84)
    # 200 flat dice: 2 may be called; the profile bar calls one, so the joint bar one more:
    # above the second-highest flat joint logit, (logit(0.2) + 3) / 2
    assert floor == pytest.approx(joint_logit(0.2, 3.0))
    assert "joint bar +1.00: flat called cocked 1/200, cocked caught 1/2" in lines
    assert "joint bar +0.75: flat called cocked 3/200, cocked caught 1/2" in lines
    unseen = [(True, 0.05, None, True)] * 200  # the network did not look at any
    assert choose_joint(unseen + cocked, 0.7, 0.84)[1] == -math.inf
    too_many = [(True, 0.75, None, True)] * 3 + [(True, 0.1, None, True)] * 97
    assert choose_joint(too_many, 0.7, 0.84)[1] == math.inf


def test_a_rendered_die_leaning_on_the_rail_that_the_network_sees_cocked_is_cocked() -> None:
    """A throw of those the rail bars were chosen on (``tests.eval.rail_bar``): a die leaning on
    the rail that the profile model reads flat (p 0.24) and the network cocked, their joint logit
    under the network's own bar and over the rail's."""
    scene = beside_checker_scene(2_961_780, cocked=True)
    (truth,) = [t for t in scene.dice if not t.flat]
    frame = prepare(scene.image, Calibration(np.asarray(scene.corners, np.float32).reshape(4, 2),
                                             "corners", scene.geometry))
    slots = read_prepared(frame, dice=False).slot_counts()

    def at_truth(dice: list[BoardDie]) -> BoardDie:
        (die,) = [d for d in dice if math.hypot(d.centre_mm[0] - truth.x_mm,
                                                 d.centre_mm[1] - truth.y_mm) < 10.0]
        return die

    board_pass.forget_cube()
    raw = at_truth(board_pass.read_frame(frame).dice)
    assert raw.flat and raw.patch_logit is not None
    assert RAIL_PATCH_BAR <= joint_logit(raw.p_cocked, raw.patch_logit) < patch_model().bar
    board_pass.forget_cube()
    read = at_truth(board_pass.read_frame(frame, slot_counts=slots).dice)
    assert not read.flat and read.pips == raw.pips
