"""Dice read again only where the picture changed (``vision.dice.reuse``): the readings equal a
fresh read of every frame (a die nudged, BG-MOVE-8; picked up; thrown again to the same
numbers; a hand over the board; a checker moved beside a die; live camera noise)."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import pytest

from controller.demo import players as pl
from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from controller.table_layout import DEFAULT_LAYOUT
from engine.backgammon.position import Position
from tests.bench.dice import same_dice, table_stream
from vision.dice.board import read_board_dice
from vision.dice.board_die import BoardDie
from vision.dice.change_map import (
    Halvings,
    absorb,
    absorb_if_still,
    change_mask,
    change_raster,
    frame_key,
)
from vision.dice.cube_memory import CubeMemory
from vision.dice.reading import image_to_mm
from vision.dice.render import DieProp
from vision.dice.reuse import DiceMemory
from vision.render.scene import BoardContents


@pytest.fixture(scope="module")
def camera() -> DemoCamera:
    return DemoCamera(seed=0)


def _corners(camera: DemoCamera) -> np.ndarray:
    return np.asarray(camera.corners, np.float32).reshape(4, 2)


def _fresh(camera: DemoCamera, image: np.ndarray) -> list[BoardDie]:
    g = camera.geometry
    return read_board_dice(image, image_to_mm(_corners(camera), g), g)


def _noisy(image: np.ndarray, seed: int, sigma: float = 2.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out: np.ndarray = np.clip(image.astype(np.float32) + rng.normal(0.0, sigma, image.shape),
                              0, 255).astype(np.uint8)
    return out


def _start() -> BoardContents:
    c = DEFAULT_LAYOUT.counts(Position.initial())
    return contents_from_counts(c.slots, c.bar, c.off)


def test_a_table_stream_reads_as_fresh_frame_by_frame(camera: DemoCamera) -> None:
    """Throws, the same numbers thrown again, cocked dice, nudges (BG-MOVE-8), pick-ups,
    hands, checkers and the cube moved: every frame's dice equal a fresh read, though most
    frames are read only in part or not at all."""
    memory = DiceMemory()
    corners = _corners(camera)
    differ = []
    for i, (kind, image) in enumerate(table_stream(7, 24, camera, noise=0.0)):
        reused = memory.read(image, corners, camera.geometry)
        if not same_dice(reused, _fresh(camera, image)):
            differ.append((i, kind))
    assert differ == []
    assert memory.stats.full == 1  # only the first frame was read whole
    assert memory.stats.partial + memory.stats.unchanged == 23
    assert memory.stats.dice_read_again > 0


def test_camera_noise_alone_reads_nothing_again(camera: DemoCamera) -> None:
    g = camera.geometry
    rng = __import__("random").Random(3)
    dice = pl.thrown_dice(g, 0, (5, 2), rng)
    image, _ = camera.render(Shot(_start(), dice))
    memory = DiceMemory()
    first = memory.read(_noisy(image, 1), _corners(camera), g)
    assert sorted(d.pips for d in first) == [2, 5]
    for seed in range(2, 6):
        assert memory.read(_noisy(image, seed), _corners(camera), g) == first
        assert memory.stats.last == "unchanged"


def test_a_picture_a_hair_aside_or_in_flickering_light_is_no_change(camera: DemoCamera
                                                                     ) -> None:
    """What a real camera does between two still frames: the picture shifted by a fraction
    of a millimetre (a jolt of the table; checkers laid again a hair aside), the exposure
    flickering by a few percent. Neither is a change, except that about a die already read
    every pixel is compared with itself (a die nudged by a millimetre, BG-MOVE-8)."""
    g = camera.geometry
    rng = __import__("random").Random(3)
    image, _ = camera.render(Shot(_start(), pl.thrown_dice(g, 0, (5, 2), rng)))
    from_mm = np.linalg.inv(image_to_mm(_corners(camera), g))
    _canonical, ref = change_raster(image, from_mm, g)
    aside = ref.copy()
    aside[:, 1:] = ref[:, :-1]  # one change-map pixel (~2.9 mm) to the right
    assert not change_mask(aside, ref).any()
    assert change_mask(aside, ref, np.ones(ref.shape, bool)).any()
    brighter = np.clip(image.astype(np.float32) * 1.04, 0, 255).astype(np.uint8)
    assert not change_mask(change_raster(brighter, from_mm, g)[1], ref).any()
    memory = DiceMemory()
    first = memory.read(image, _corners(camera), g)
    assert memory.read(brighter, _corners(camera), g) == first
    assert memory.stats.last == "unchanged"
    darker = (image.astype(np.int16) * 7 // 10).astype(np.uint8)  # the light itself changed
    assert change_mask(change_raster(darker, from_mm, g)[1], ref) is None


def test_strict_boxes_and_a_still_frame_give_what_the_masks_give(camera: DemoCamera
                                                                  ) -> None:
    """The dice memory's short cuts (change_mask's strict parts as boxes, absorb_if_still on a
    frame changed nowhere) leave the change map and the reference as the masks would, and a
    change raster is read-only (the memories keep it as it is)."""
    rng = np.random.default_rng(5)
    ref = cv2.GaussianBlur(rng.uniform(30, 220, (60, 80)).astype(np.float32), (0, 0), 1.5)
    now = ref.copy()
    now[10:18, 20:30] += 40.0  # something put down
    now[40:44, 60:63] -= 30.0  # ... and another, where the dice were read
    now += rng.uniform(-4.0, 4.0, now.shape).astype(np.float32)  # camera noise
    boxes = [(58, 38, 66, 47), (0, 0, 5, 5)]
    mask = np.zeros(ref.shape, bool)
    for u0, v0, u1, v1 in boxes:
        mask[v0:v1, u0:u1] = True
    by_mask = change_mask(now, ref, mask)
    assert by_mask is not None and by_mask[12, 25] and by_mask[41, 61]
    assert np.array_equal(change_mask(now, ref, boxes, cv2.absdiff(now, ref)), by_mask)
    assert not absorb_if_still(ref.copy(), now, cv2.absdiff(now, ref))
    quiet = ref + rng.uniform(-7.0, 7.0, ref.shape).astype(np.float32)
    kept, moved = ref.copy(), ref.copy()
    absorb(kept, quiet, change_mask(quiet, ref))
    assert absorb_if_still(moved, quiet, cv2.absdiff(quiet, ref))
    assert np.array_equal(kept, moved) and not np.array_equal(moved, ref)
    image, _ = camera.render(Shot(_start(), []))
    g = camera.geometry
    raster = change_raster(image, np.linalg.inv(image_to_mm(_corners(camera), g)), g)[1]
    assert not raster.flags.writeable


def test_a_nudged_die_is_read_again_where_it_lies(camera: DemoCamera) -> None:
    """BG-MOVE-8: a die nudged while a checker moves is read again, at its new place."""
    g = camera.geometry
    rng = __import__("random").Random(5)
    dice = pl.thrown_dice(g, 1, (6, 3), rng)
    memory = DiceMemory()
    before = memory.read(camera.render(Shot(_start(), dice))[0], _corners(camera), g)
    moved = dataclasses.replace(dice[0], x_mm=dice[0].x_mm + 4.0, yaw_deg=dice[0].yaw_deg + 15)
    image = _noisy(camera.render(Shot(_start(), (moved, dice[1])))[0], 9)
    after = memory.read(image, _corners(camera), g)
    assert memory.stats.last == "partial" and memory.stats.dice_read_again >= 1
    assert same_dice(after, _fresh(camera, image))
    old = min(before, key=lambda d: abs(d.centre_mm[0] - dice[0].x_mm))
    new = min(after, key=lambda d: abs(d.centre_mm[0] - moved.x_mm))
    assert new.centre_mm[0] - old.centre_mm[0] == pytest.approx(4.0, abs=1.5)


def _checker_beside_a_die(camera: DemoCamera, gap_mm: float = 2.0
                          ) -> tuple[np.ndarray, np.ndarray]:
    """Two dice, then one more checker put down beside the first of them, ``gap_mm`` from it."""
    g = camera.geometry
    start = _start()
    slots = [list(s) for s in start.slots]
    point = next(i for i, s in enumerate(slots) if 0 < sum(s) < g.column_capacity())
    n = sum(slots[point]) + 1  # one more checker on the point, put down beside the die
    x, y = camera.column_end(point, n)  # where the camera draws it
    away = 1.0 if y < g.height_mm / 2 else -1.0  # towards the middle of the board
    die = pl.demo_die(x, y + away * (g.checker_diameter_mm / 2 + g.die_size_mm / 2 + gap_mm),
                      4)
    other = pl.demo_die(die.x_mm - 60.0, g.height_mm / 2, 1)
    before = camera.render(Shot(start, (die, other)))[0]
    slots[point][0 if slots[point][0] else 1] += 1
    contents = BoardContents(tuple((a, b) for a, b in slots), start.bar, start.off)
    return before, camera.render(Shot(contents, (die, other)))[0]


def test_a_checker_put_down_against_a_die_reads_it_again(camera: DemoCamera) -> None:
    """A checker put down against a die (2 mm from it) changes the picture about the die
    itself: the die is read again (it may have been pushed, BG-MOVE-8)."""
    g = camera.geometry
    before, image = _checker_beside_a_die(camera)
    memory = DiceMemory()
    memory.read(before, _corners(camera), g)
    after = memory.read(image, _corners(camera), g)
    assert memory.stats.last == "partial" and memory.stats.dice_read_again >= 1
    assert same_dice(after, _fresh(camera, image))


def test_a_checker_put_down_near_a_die_leaves_its_reading(camera: DemoCamera) -> None:
    """A checker put down 20 mm from a die leaves the die as it lay (it can come onto a
    checker, BG-ROLL-2, or be tipped only by moving): its reading is kept, not read again,
    and still equals a fresh read; nor is its place read as a candidate."""
    from vision.dice import reuse

    g = camera.geometry
    before, image = _checker_beside_a_die(camera, gap_mm=20.0)
    memory = DiceMemory()
    first = memory.read(before, _corners(camera), g)
    read_at: list[list[tuple[float, float, float]]] = []
    real = reuse.read_dice_at

    def spy(*args: object) -> list[BoardDie]:
        read_at.append(args[3])  # type: ignore[arg-type]
        return real(*args)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reuse, "read_dice_at", spy)
        after = memory.read(image, _corners(camera), g)
    assert memory.stats.last == "partial" and memory.stats.dice_read_again == 0
    assert after == first
    assert same_dice(after, _fresh(camera, image))
    assert all(math.dist(place[:2], d.centre_mm) >= g.die_size_mm
               for places in read_at for place in places for d in first)


@pytest.mark.parametrize("press", [False, True])
def test_at_a_press_second_chances_are_only_about_the_dice_read_again(
        camera: DemoCamera, monkeypatch: pytest.MonkeyPatch, press: bool) -> None:
    """At a move's press (``read_before_throw``) no throw is due: the changed parts are read
    with second chances (BG-ROLL-2's cocked dice) only about the dice read again there (a die
    a hand tipped, BG-MOVE-8); any other frame gives them wherever a candidate lies."""
    from vision.dice import reuse

    g = camera.geometry
    before, image = _checker_beside_a_die(camera)
    memory = DiceMemory()
    first = memory.read(before, _corners(camera), g)
    told: list[object] = []
    real = reuse.read_dice_at

    def spy(*args: object) -> list[BoardDie]:
        told.append(args[4])
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(reuse, "read_dice_at", spy)
    if press:
        memory.read_before_throw()
    after = memory.read(image, _corners(camera), g)
    assert memory.stats.dice_read_again == 1 and len(told) == 1
    if press:
        near = told[0]
        assert isinstance(near, list) and len(near) == 1
        assert min(math.dist(near[0], d.centre_mm) for d in first) == 0.0
    else:
        assert told == [None]
    assert same_dice(after, _fresh(camera, image))


def _pair_read(camera: DemoCamera, nudged: bool
               ) -> tuple[DiceMemory, list[BoardDie], tuple[DieProp, ...]]:
    """A memory that has read a thrown pair (5, 3), its reading, and the pair as it lies next:
    as thrown, or one die nudged 5 mm and turned (BG-MOVE-8)."""
    g = camera.geometry
    rng = __import__("random").Random(21)
    pair = pl.thrown_dice(g, 0, (5, 3), rng)
    memory = DiceMemory()
    first = memory.read(camera.render(Shot(_start(), pair))[0], _corners(camera), g)
    assert len(first) == 2
    lying = pair if not nudged else (
        dataclasses.replace(pair[0], x_mm=pair[0].x_mm + 5.0, yaw_deg=pair[0].yaw_deg + 20),
        pair[1])
    return memory, first, lying


@pytest.mark.parametrize(("one_pair", "nudged", "read"), [
    (True, False, 2), (False, False, 3), (True, True, 3)])
def test_at_a_one_pair_press_with_the_pair_untouched_nothing_else_is_a_die(
        camera: DemoCamera, one_pair: bool, nudged: bool, read: int) -> None:
    """BG-EQ-2: with one pair of dice, a press frame whose pair lies untouched reads no changed
    part for dice (a throw picks the pair up first; the parts that changed are checkers moved,
    whose highlights would else be read as dice). A third die put down there stands for such a
    highlight: it is read with a pair each (``one_pair`` False), or once a die of the pair was
    touched (BG-MOVE-8), as before."""
    g = camera.geometry
    memory, first, lying = _pair_read(camera, nudged)
    third = pl.demo_die(g.width_mm * 0.25, g.height_mm / 2, 6)
    image = camera.render(Shot(_start(), (*lying, third)))[0]
    assert len(_fresh(camera, image)) == 3
    memory.read_before_throw(one_pair=one_pair)
    after = memory.read(image, _corners(camera), g)
    assert memory.stats.last == "partial" and len(after) == read
    if read == 2:
        assert after == first


@pytest.mark.parametrize(("told", "nudged", "read"), [
    ("pair", False, 2), ("aside", False, 3), ("pair", True, 3), ("none", False, 3)])
def test_a_judged_one_pair_throw_lying_untouched_leaves_no_other_die_on_any_frame(
        camera: DemoCamera, told: str, nudged: bool, read: int) -> None:
    """BG-EQ-2: while the two dice of the throw the referee judged (``hold_pair``: where they
    lay then) lie untouched, no frame's changed part is read for dice, not only a press's (a
    throw picks the pair up first). A third die put down stands for a checker's highlight: it
    is read when the two dice held are not where the judged throw lay (a phantom pair:
    ``aside``), once a die of the pair was touched (BG-MOVE-8), or with nothing told."""
    g = camera.geometry
    memory, first, lying = _pair_read(camera, nudged)
    places = [(round(d.centre_mm[0], 1), round(d.centre_mm[1], 1)) for d in first]
    if told == "aside":
        places = [(x + 2.0, y) for x, y in places]
    memory.hold_pair(places if told != "none" else [])
    for n, x in enumerate((0.25, 0.3)):  # frame after frame, the third "die" moved on
        third = pl.demo_die(g.width_mm * x, g.height_mm / 2, 6)
        image = camera.render(Shot(_start(), (*lying, third)))[0]
        assert len(_fresh(camera, image)) == 3
        after = memory.read(image, _corners(camera), g)
        assert memory.stats.last == "partial" and len(after) == read, n
        if read == 2:
            assert after == first


def test_a_held_pair_read_whole_again_where_it_lay_is_still_held(camera: DemoCamera) -> None:
    """BG-EQ-2: a frame read whole while the judged pair lies (the light changed, here) reads
    its two dice again where they lay: they are still that throw's, so a later frame's changed
    part holds no other die. The table tells the same places after every frame, and those
    were taken only when new: the pair was held no more until the next throw was judged."""
    g = camera.geometry
    memory, first, lying = _pair_read(camera, nudged=False)
    places = [(round(d.centre_mm[0], 1), round(d.centre_mm[1], 1)) for d in first]
    memory.hold_pair(places)
    brighter = np.clip(camera.render(Shot(_start(), lying))[0].astype(np.float32) * 1.1,
                       0, 255).astype(np.uint8)
    again = memory.read(brighter, _corners(camera), g)
    assert memory.stats.last == "full" and [
        (round(d.centre_mm[0], 1), round(d.centre_mm[1], 1)) for d in again] == places
    memory.hold_pair(places)
    third = pl.demo_die(g.width_mm * 0.25, g.height_mm / 2, 6)  # a checker's highlight
    image = np.clip(camera.render(Shot(_start(), (*lying, third)))[0].astype(np.float32)
                    * 1.1, 0, 255).astype(np.uint8)
    after = memory.read(image, _corners(camera), g)
    assert memory.stats.last == "partial" and after == again


def test_a_held_pair_s_frames_leave_the_raster_stage_to_the_next_throw(
        camera: DemoCamera, monkeypatch: pytest.MonkeyPatch) -> None:
    """BG-EQ-2: while the held pair lies untouched, a frame whose checkers moved ranks no
    place, so its raster stage is not brought up to date (the most of such a frame's dice
    time): the next throw's frame works those parts out with its own, and reads the new
    pair as a fresh read of it does."""
    from vision.dice import reuse

    g = camera.geometry
    memory, first, lying = _pair_read(camera, nudged=False)
    memory.hold_pair([(round(d.centre_mm[0], 1), round(d.centre_mm[1], 1)) for d in first])
    searched: list[int] = []
    real = reuse.update_peaks

    def spy(*args: object) -> object:
        searched.append(int(np.count_nonzero(args[5])))  # type: ignore[call-overload]
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(reuse, "update_peaks", spy)
    start = _start()
    slots = [list(s) for s in start.slots]
    point = next(i for i, s in enumerate(slots) if 0 < sum(s) < g.column_capacity())
    slots[point][0 if slots[point][0] else 1] += 1  # a checker put down
    moved = BoardContents(tuple((a, b) for a, b in slots), start.bar, start.off)
    held = memory.read(camera.render(Shot(moved, lying))[0], _corners(camera), g)
    assert memory.stats.last == "partial" and held == first and searched == []
    thrown = pl.thrown_dice(g, 1, (6, 2), __import__("random").Random(5))
    image = camera.render(Shot(moved, thrown))[0]
    after = memory.read(image, _corners(camera), g)
    assert memory.stats.last == "partial" and len(searched) == 1
    assert same_dice(after, _fresh(camera, image))
    # the checker's part was searched for peaks with the throw's: once only, not again
    memory.read(camera.render(Shot(moved, (*thrown[:1], dataclasses.replace(
        thrown[1], x_mm=thrown[1].x_mm + 6.0))))[0], _corners(camera), g)
    assert len(searched) == 2 and searched[1] < searched[0]


def test_hands_pick_ups_and_the_same_numbers_again(camera: DemoCamera) -> None:
    g = camera.geometry
    rng = __import__("random").Random(11)
    start = _start()
    first = pl.thrown_dice(g, 0, (4, 4), rng)
    again = pl.thrown_dice(g, 0, (4, 4), rng)
    shots = [Shot(start, first),
             Shot(start, first, hands=(pl.hand(g, 0, (first[0].x_mm, first[0].y_mm), rng),)),
             Shot(start, ()),
             Shot(start, again),
             Shot(start, again)]
    memory = DiceMemory()
    seen = []
    for n, shot in enumerate(shots):
        image = camera.render(shot)[0]
        reused = memory.read(image, _corners(camera), g)
        seen.append(reused)
        assert same_dice(reused, _fresh(camera, image)), n
    # picked up: nothing where the dice lay (board texture elsewhere may read as fresh reads it)
    assert not any(abs(d.centre_mm[0] - f.x_mm) < 10 and abs(d.centre_mm[1] - f.y_mm) < 10
                   for d in seen[2] for f in first)
    # thrown again to the same numbers: read at the new places, not taken for the old dice
    assert sorted(d.centre_mm for d in seen[3]) != sorted(d.centre_mm for d in seen[0])
    assert memory.stats.last == "unchanged"


def test_a_change_over_most_of_the_case_or_another_set_up_reads_whole(camera: DemoCamera
                                                                      ) -> None:
    g = camera.geometry
    image = camera.render(Shot(_start(), pl.thrown_dice(g, 0, (2, 6),
                                                        __import__("random").Random(2))))[0]
    memory = DiceMemory()
    memory.read(image, _corners(camera), g)
    darker = (image.astype(np.int16) * 7 // 10).astype(np.uint8)  # the light dimmed
    assert same_dice(memory.read(darker, _corners(camera), g), _fresh(camera, darker))
    assert memory.stats.full == 2
    moved = _corners(camera) + np.float32(0.5)  # the camera bumped: another set-up
    memory.read(image, moved, g)
    assert memory.stats.full == 3
    off = DiceMemory(enabled=False)
    for _ in range(2):
        off.read(image, _corners(camera), g)
    assert off.stats.full == 2 and off.stats.unchanged == 0


def test_the_cube_memory_takes_a_still_cube_and_no_cube_again(camera: DemoCamera) -> None:
    """BG-CUBE-*: between throws the cube lies still; a search that found none is repeated
    only once the case changed."""
    from vision.board_reader import prepare
    from vision.calibration import from_corners
    from vision.dice.board_pass import read_frame_cube

    g = camera.geometry
    cube = pl.offered_cube(g, 0, 2)
    image = camera.render(Shot(_start(), (), cube))[0]
    calibration = from_corners(_corners(camera), image.shape, g)
    memory = CubeMemory()
    found = read_frame_cube(prepare(image, calibration), memory=memory)
    assert found is not None and found.value == 2
    again = read_frame_cube(prepare(_noisy(image, 4), calibration), memory=memory)
    assert again is found  # taken again, not searched
    moved = camera.render(Shot(_start(), (), dataclasses.replace(cube, value=4)))[0]
    turned = read_frame_cube(prepare(moved, calibration), memory=memory)
    assert turned is not None and turned.value == 4
    empty = camera.render(Shot(_start(), ()))[0]
    key = frame_key(_corners(camera), g)
    assert read_frame_cube(prepare(empty, calibration), memory=memory) is None
    assert not memory.none_still(key, unchanged=False)  # the case changed: searched again
    # nothing changed: not searched again, but for one frame in NONE_SEARCH_EVERY (a cube a
    # search missed on one frame's noise is not missed for long)
    assert [memory.none_still(key, unchanged=True) for _ in range(4)] == [True, True, True,
                                                                          False]


def test_a_frame_is_halved_once_for_the_candidates(camera: DemoCamera) -> None:
    """``Halvings`` works each halving out once and gives the very pyramid OpenCV gives."""
    image = camera.render(Shot(_start(), ()))[0]
    halvings = Halvings(image)
    first = halvings.level(1)
    assert halvings.level(1) is first and halvings.level(0) is image
    assert np.array_equal(halvings.level(2), cv2.pyrDown(cv2.pyrDown(image)))


def test_the_change_raster_reads_the_frame_it_warps_whole(camera: DemoCamera) -> None:
    """The change raster copies only the rows and columns of the frame its warp reads: the
    very raster a warp of the whole strided frame gives, the case inside the frame, reaching
    past its far edges (a smaller frame) or past its first row and column."""
    from vision.dice.candidates import local_scale
    from vision.dice.change_map import CHANGE_BLUR, CHANGE_PPM
    from vision.dice.raster import topdown_maps
    from vision.geometry import Canonical

    g = camera.geometry
    image = camera.render(Shot(_start(), ()))[0]
    for frame, shift in ((image, 0.0), (image[:300, :520], 0.0), (image, -200.0),
                         (image[:, :, 1], 150.0)):
        # the raster's homography is kept to 9 decimals (its cache key)
        from_mm = np.round(np.linalg.inv(image_to_mm(_corners(camera) + np.float32(shift), g)), 9)
        canonical = Canonical.whole_board(g, CHANGE_PPM)
        stride = max(1, math.floor(local_scale(from_mm, g.width_mm / 2, g.height_mm / 2)
                                   / CHANGE_PPM))
        m1, m2 = topdown_maps(np.diag([1.0 / stride, 1.0 / stride, 1.0]) @ from_mm,
                              -canonical.margin_mm[0], -canonical.margin_mm[1], canonical.size,
                              CHANGE_PPM)
        grey = frame[::stride, ::stride, 1] if frame.ndim == 3 else frame[::stride, ::stride]
        whole = cv2.remap(np.ascontiguousarray(grey), m1, m2, cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
        want = cv2.GaussianBlur(whole.astype(np.float32), (0, 0), CHANGE_BLUR)
        assert np.array_equal(change_raster(frame, from_mm, g)[1], want), (frame.shape, shift)
