"""The table's frame reader keeps its dice and cube between frames (``vision.dice.reuse``): what
the referee is told equals what a reader without that memory says, frame by frame (BG-ROLL-2's
dice, BG-CUBE-*'s cube)."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from controller.demo.camera import DemoCamera
from controller.runtime.view import REUSE_ENV, FrameReader
from tests.bench.dice import table_stream
from vision.dice.cube_memory import LOST_RETRIES, NONE_WHOLE_EVERY, WHOLE_EVERY_ROUNDS


@pytest.fixture(scope="module")
def camera() -> DemoCamera:
    return DemoCamera(seed=1)


def test_the_referee_is_told_the_same_with_and_without_reuse(camera: DemoCamera) -> None:
    reuse = FrameReader(corners=camera.corners_flat(), die_floor=0.5)
    fresh = FrameReader(corners=camera.corners_flat(), die_floor=0.5, reuse=False)
    kinds = set()
    for t, (_kind, image) in enumerate(table_stream(3, 14, camera, noise=0.0)):
        a = reuse.read(image, t * 1000)
        b = fresh.read(image, t * 1000)
        # the same dice; a die kept is read from the same pixels, but a fresh read may start
        # its fit from another raster place nearby: its confidence and cocked probability may
        # differ in the 5th digit
        assert len(a.dice) == len(b.dice), t
        for x, y in zip(a.dice, b.dice, strict=True):
            assert x == dataclasses.replace(y, confidence=x.confidence, p_cocked=x.p_cocked), t
            assert x.confidence == pytest.approx(y.confidence, abs=1e-3), t
            assert x.p_cocked == pytest.approx(y.p_cocked, abs=1e-3), t
        assert a.cube == b.cube, t
        assert a.board.best_counts() == b.board.best_counts()
        kinds.add(reuse.dice_memory.stats.last)
    assert fresh.dice_memory.stats.full == 14  # the reader without memory reads each whole
    assert kinds - {"full"}  # the memory did spare reads
    # the first frame is the calibration frame, read whole once at the warm-up (uncounted)
    assert reuse.dice_memory.stats.full == 0


def test_frames_without_dice_leave_the_memory_alone(camera: DemoCamera) -> None:
    reader = FrameReader(corners=camera.corners_flat())
    frames = [image for _kind, image in table_stream(4, 3, camera, noise=0.0)]
    reader.read(frames[0], 0)
    reader.read(frames[1], 1000, with_dice=False)  # a player moving: no throw due
    assert reader.dice_memory.stats.frames == 1
    seen = reader.read(frames[2], 2000)
    check = FrameReader(corners=camera.corners_flat(), reuse=False).read(frames[2], 2000)
    assert seen.dice == check.dice


def test_the_reader_accounts_each_part_of_its_reading(camera: DemoCamera) -> None:
    """``costs``: what the dice and the cube add to the board's reading over a match (the
    demo's summary and ``tests.bench.referee`` print it); frames without dice cost no dice."""
    reader = FrameReader(corners=camera.corners_flat())
    frames = [image for _kind, image in table_stream(4, 3, camera, noise=0.0)]
    reader.read(frames[0], 0)
    dice_after_one = reader.costs.dice_ms
    reader.read(frames[1], 1000, with_dice=False)
    costs = reader.costs
    assert (costs.frames, costs.dice_frames) == (2, 1)
    assert costs.dice_ms == dice_after_one  # no dice were read in the second frame
    assert costs.board_ms > 0 and dice_after_one > 0
    ratio = costs.ratio()
    assert ratio is not None
    assert ratio == pytest.approx((costs.dice_ms + costs.cube_ms) / costs.board_ms)
    assert costs.as_json()["frames"] == 2
    assert sum(int(c) for c, _ms in costs.dice_by_read.values()) == 1  # the one dice frame


def test_the_warm_up_s_reading_is_kept_for_the_first_frame(camera: DemoCamera) -> None:
    """The calibration frame, read at the warm-up, primes the dice and cube memories: the
    first frame (that very picture) is read as unchanged, not whole again, and is told what a
    reader without memory tells; the dice memory's stats leave the warm-up out, the cube
    memory's count its whole search as a frame."""
    image = next(image for _kind, image in table_stream(5, 2, camera, noise=0.0))
    reader = FrameReader(corners=camera.corners_flat(), die_floor=0.5)
    seen = reader.read(image, 0)
    stats = reader.dice_memory.stats
    assert (stats.frames, stats.full, stats.unchanged, stats.last) == (1, 0, 1, "unchanged")
    cube = reader.cube_memory.stats  # searched whole once, at the warm-up, then kept
    assert cube.whole == 1 and cube.still + cube.none_kept == 1 and cube.parts == 0
    assert cube.frames == 2  # the warm-up's and the first frame's
    fresh = FrameReader(corners=camera.corners_flat(), die_floor=0.5, reuse=False)
    check = fresh.read(image, 0)
    assert seen.dice == check.dice and seen.cube == check.cube


def test_a_thorough_read_due_at_the_first_frame_is_not_spent_at_the_warm_up(
        camera: DemoCamera) -> None:
    """A thorough read asked before the first frame reads that frame whole and thoroughly:
    the warm-up leaves the dice memory unprimed then."""
    image = next(image for _kind, image in table_stream(5, 2, camera, noise=0.0))
    reader = FrameReader(corners=camera.corners_flat())
    reader.dice_memory.read_thoroughly()
    reader.read(image, 0)
    assert reader.dice_memory.stats.thorough == 1


def test_the_dice_start_from_the_board_s_halving_of_the_frame(
        camera: DemoCamera, monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame large enough that the board's raster and the dice's candidate raster are both
    warped from it halved is halved once (the board reader's, shared), and its dice are the
    ones a memory halving the frame itself reads."""
    import cv2

    from vision.dice.reuse import DiceMemory

    image = cv2.resize(_shot(camera, 3), None, fx=2.0, fy=2.0, interpolation=cv2.INTER_LINEAR)
    corners = [2.0 * v for v in camera.corners_flat()]
    reader = FrameReader(corners=corners)
    calibration = reader._calibrate(image)
    halved: list[object] = []
    real = cv2.pyrDown

    def spy(src: np.ndarray, *args: object) -> np.ndarray:
        halved.append(src.shape)
        return real(src, *args)  # type: ignore[call-overload,no-any-return]

    monkeypatch.setattr(cv2, "pyrDown", spy)
    seen = reader.read(image, 0)
    assert halved == [image.shape]
    alone = DiceMemory().read(image, calibration.corners, calibration.geometry)
    assert len(halved) == 2 and len(alone) == 2
    assert list(reader.dice_memory._dice) == alone and len(seen.dice) == 2


def test_reuse_can_be_switched_off_for_comparisons(monkeypatch: pytest.MonkeyPatch,
                                                   camera: DemoCamera) -> None:
    monkeypatch.setenv(REUSE_ENV, "0")
    assert not FrameReader(corners=camera.corners_flat()).dice_memory.enabled
    monkeypatch.delenv(REUSE_ENV)
    assert FrameReader(corners=camera.corners_flat()).dice_memory.enabled


def _shot(camera: DemoCamera, dice_seed: int, cube: object = None,
          dice: bool = True) -> np.ndarray:
    from controller.demo import players as pl
    from controller.demo.camera import Shot, contents_from_counts
    from controller.table_layout import DEFAULT_LAYOUT
    from engine.backgammon.position import Position

    c = DEFAULT_LAYOUT.counts(Position.initial())
    contents = contents_from_counts(c.slots, c.bar, c.off)
    rng = random.Random(dice_seed)
    thrown = pl.thrown_dice(camera.geometry, 0, (rng.randint(1, 6), rng.randint(1, 6)), rng)
    return camera.render(Shot(contents, thrown if dice else (), cube))[0]  # type: ignore[arg-type]


def test_no_cube_is_looked_for_again_only_where_the_picture_changed(camera: DemoCamera
                                                                    ) -> None:
    """BG-CUBE-*: where no cube lay, one can only have been put (or uncovered) where the
    picture changed. Dice thrown again search only about where they lay and landed (a die
    that leaves may uncover a cube it hid); the cube put down is found by searching only where
    it changed, as a search of the whole case finds it."""
    from controller.demo import players as pl

    reader = FrameReader(corners=camera.corners_flat())
    fresh = FrameReader(corners=camera.corners_flat(), reuse=False)
    stats = reader.cube_memory.stats
    for t, seed in enumerate((1, 2, 3)):  # the dice thrown, thrown again: no cube anywhere
        image = _shot(camera, seed)
        assert reader.read(image, t * 1000).cube is None
        assert fresh.read(image, t * 1000).cube is None
    # the whole search is the warm-up's, on the first frame's picture: that frame keeps it
    assert stats.whole == 1 and stats.none_kept == 1 and stats.parts == 2
    offered = pl.offered_cube(camera.geometry, 1, 2)  # beside the dice thrown
    image = _shot(camera, 3, offered)  # the cube put down (a double, BG-CUBE-3)
    seen = reader.read(image, 4000).cube
    assert stats.parts == 3 and stats.whole == 1
    assert seen is not None and seen == fresh.read(image, 4000).cube
    assert (seen.value, seen.zone) == (2, "offered")
    assert reader.read(image, 5000).cube == seen and stats.still == 1  # lying still


def test_a_cube_a_die_hid_is_found_when_the_die_leaves() -> None:
    """BG-CUBE-3: a cube offered against a die is not found while the die hides its edge; once
    the die is picked up or thrown again, the memory searches where it lay (a change narrower
    than a cube: ``MIN_CUBE_CHANGE``) and finds the cube on the same frame as a reader without
    memory. On these 60 frames of table stream 3 it was missed on 6 (until a whole search);
    every frame now reads the cube as a fresh read does."""
    camera = DemoCamera(seed=0)
    reader = FrameReader(corners=camera.corners_flat())
    fresh = FrameReader(corners=camera.corners_flat(), reuse=False)
    differ = []
    for t, (_kind, image) in enumerate(table_stream(3, 20, camera, noise=0.0, rereads=2)):
        if reader.read(image, t * 1000).cube != fresh.read(image, t * 1000).cube:
            differ.append(t)
    assert differ == []
    assert reader.cube_memory.stats.whole < 20  # most frames were not searched whole


def test_a_cube_lost_is_looked_for_where_the_picture_changed_since(camera: DemoCamera
                                                                   ) -> None:
    """A cube found once and found no more (taken away, or missed by a search on one frame's
    noise) is looked for where it lay and where the picture changed since it was found, then
    over the whole case, then on the next LOST_RETRIES frames where the picture changed
    since it was found; every
    NONE_WHOLE_EVERY-th frame where the picture changed since the last such search is
    searched again (here nothing: no search), and every WHOLE_EVERY_ROUNDS-th time the whole
    case instead."""
    from controller.demo import players as pl

    reader = FrameReader(corners=camera.corners_flat())
    stats = reader.cube_memory.stats
    image = _shot(camera, 5, pl.offered_cube(camera.geometry, 1, 4))
    assert reader.read(image, 0).cube is not None
    empty = _shot(camera, 5)  # the cube taken away
    assert reader.read(empty, 1000).cube is None
    assert stats.whole == 2 and stats.parts == 1
    for t in range(2, 2 + NONE_WHOLE_EVERY):
        assert reader.read(empty, t * 1000).cube is None
    assert stats.parts == 1 + LOST_RETRIES
    assert stats.none_kept == NONE_WHOLE_EVERY - LOST_RETRIES
    assert stats.whole == 2  # nothing changed since: nothing to search again
    for t in range(2 + NONE_WHOLE_EVERY, 2 + NONE_WHOLE_EVERY * WHOLE_EVERY_ROUNDS):
        assert reader.read(empty, t * 1000).cube is None
    assert stats.whole == 3 and stats.parts == 1 + LOST_RETRIES


def test_a_cube_lost_is_looked_for_again_only_where_it_could_have_gone(
        camera: DemoCamera, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cube lost (taken away) is looked for again on the next LOST_RETRIES frames where it
    could have gone on the frame it was lost: where it lay and where the picture had changed
    since it was seen. What changes after (the dice thrown again) is searched once, on its
    frame, as any change is: at a game's end the checkers laid out again were searched on
    all those frames."""
    from controller.demo import players as pl
    from controller.runtime import view
    from vision.cube_search import find_cube_in_parts

    reader = FrameReader(corners=camera.corners_flat())
    offered = pl.offered_cube(camera.geometry, 1, 4)
    assert reader.read(_shot(camera, 5, offered), 0).cube is not None
    assert reader.read(_shot(camera, 5), 1000).cube is None  # taken away: lost
    searched: list[list[tuple[float, float, float, float]]] = []

    def spy(part: object, canonical: object, boxes: list[tuple[float, float, float, float]],
            *args: object, **kwargs: object) -> object:
        searched.append(list(boxes))
        return find_cube_in_parts(part, canonical, boxes, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(view, "find_cube_in_parts", spy)
    rng = random.Random(6)  # as _shot throws them
    thrown = pl.thrown_dice(camera.geometry, 0, (rng.randint(1, 6), rng.randint(1, 6)), rng)
    image = _shot(camera, 6)  # the dice thrown again, elsewhere
    for t in range(2, 2 + LOST_RETRIES):
        assert reader.read(image, t * 1000).cube is None

    def covers(boxes: list[tuple[float, float, float, float]], x: float, y: float) -> bool:
        return any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in boxes)

    assert len(searched) == LOST_RETRIES
    assert all(covers(boxes, offered.x_mm, offered.y_mm) for boxes in searched)
    assert all(covers(searched[0], d.x_mm, d.y_mm) for d in thrown)  # their own frame
    for boxes in searched[1:]:
        assert not any(covers(boxes, d.x_mm, d.y_mm) for d in thrown)


def test_a_search_again_leaves_out_what_changed_back(camera: DemoCamera) -> None:
    """Every NONE_WHOLE_EVERY-th frame where the picture changed since the last such search
    is searched again, only where it still differs from what it showed then: dice thrown and
    picked up again leave no cube to find (where they lay was searched as they came and
    went)."""
    reader = FrameReader(corners=camera.corners_flat())
    stats = reader.cube_memory.stats
    empty = _shot(camera, 3, dice=False)
    assert reader.read(empty, 0).cube is None
    assert reader.read(_shot(camera, 3), 1000).cube is None  # the dice thrown
    for t in range(2, 2 + NONE_WHOLE_EVERY):  # ... and picked up: as it was
        assert reader.read(empty, t * 1000).cube is None
    assert stats.whole == 1 and stats.parts == 2
    assert stats.none_kept == NONE_WHOLE_EVERY  # the first frame's too (the warm-up's search)


def test_a_cube_moved_is_looked_for_where_it_lay_and_where_the_picture_changed(
        camera: DemoCamera) -> None:
    """BG-CUBE-3: a double taken, its cube moved from the doubler's right to the taker's end
    of the bar, later turned and offered on the taker's right (a redouble), is found by
    searching only where it lay and where the picture changed since it was seen there, as
    a search of the whole case finds it."""
    from controller.demo import players as pl

    reader = FrameReader(corners=camera.corners_flat())
    fresh = FrameReader(corners=camera.corners_flat(), reuse=False)
    stats = reader.cube_memory.stats
    for t, cube in enumerate((pl.offered_cube(camera.geometry, 1, 2),
                              pl.owned_cube(camera.geometry, 0, 2),
                              pl.offered_cube(camera.geometry, 0, 4))):
        image = _shot(camera, 7, cube, dice=False)
        seen = reader.read(image, t * 1000).cube
        assert seen is not None and seen == fresh.read(image, t * 1000).cube
        assert seen.value == cube.value
    assert stats.whole == 1 and stats.parts == 2


def test_a_cube_a_part_search_missed_is_found_when_its_part_is_searched_again(
        camera: DemoCamera, monkeypatch: pytest.MonkeyPatch) -> None:
    """BG-CUBE-3: a double's cube put down where a part search misses it (one frame's noise)
    is found on the NONE_WHOLE_EVERY-th frame by searching again where the picture changed
    since the last whole search, without searching the whole case."""
    from controller.demo import players as pl
    from controller.runtime import view

    reader = FrameReader(corners=camera.corners_flat())
    stats = reader.cube_memory.stats
    assert reader.read(_shot(camera, 3), 0).cube is None
    assert stats.whole == 1  # the warm-up's: the first frame keeps that none was found
    real = view.find_cube_in_parts
    missed: list[object] = []

    def miss_once(*args: object, **kwargs: object) -> object:
        if not missed:
            missed.append(args)
            return None
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(view, "find_cube_in_parts", miss_once)
    image = _shot(camera, 3, pl.offered_cube(camera.geometry, 1, 2))  # the cube put down
    # the first frame counts as one without a search: the NONE_WHOLE_EVERY-th is the next
    # frame's NONE_WHOLE_EVERY - 1-th
    for t in range(1, NONE_WHOLE_EVERY - 1):
        assert reader.read(image, t * 1000).cube is None, t
    assert missed and stats.parts == 1  # searched where it changed, missed, not again
    seen = reader.read(image, (NONE_WHOLE_EVERY - 1) * 1000).cube
    assert seen is not None and (seen.value, seen.zone) == (2, "offered")
    assert stats.parts == 2 and stats.whole == 1


def test_a_cube_offered_where_a_die_lay_is_found_by_searching_where_it_changed() -> None:
    """BG-CUBE-3: the opening throw's dice picked up and the cube offered where one of them
    lay (match7986278 of the draws, camera seed 3609). A white cube on the cream field changes
    the picture little more than by its shadow, below it: the part searched reaches half a
    cube's side beyond the change (``cube_memory._cube_boxes``), or the double was not seen."""
    from controller.demo.camera import Shot
    from controller.demo.players import demo_die
    from vision.cube import CubeProp
    from vision.render.scene import BoardContents

    camera = DemoCamera(seed=3609)
    slots = ((3, 0), (0, 0), (0, 0), (0, 0), (0, 3), (0, 0), (0, 5), (0, 0), (0, 0), (0, 0),
             (0, 0), (2, 0), (0, 5), (0, 0), (1, 0), (1, 0), (3, 0), (0, 0), (5, 0), (0, 0),
             (0, 0), (0, 0), (0, 0), (0, 2))
    contents = BoardContents(slots=slots)
    dice = (demo_die(412.27, 248.53, 4, yaw_deg=22.6), demo_die(149.53, 260.22, 3, yaw_deg=61.0))
    beside = CubeProp(-125.0, 257.5, 64, yaw_deg=3.0)  # a cube off the case, its 64 up
    offered = CubeProp(135.0, 257.5, 2, yaw_deg=5.0)
    reader = FrameReader(corners=camera.corners_flat())
    fresh = FrameReader(corners=camera.corners_flat(), reuse=False)
    stats = reader.cube_memory.stats
    assert reader.read(camera.render(Shot(contents, dice, beside))[0], 0).cube is None
    image = camera.render(Shot(contents, (), offered))[0]
    seen = reader.read(image, 1000).cube
    assert stats.whole == 1 and stats.parts == 1
    assert seen is not None and seen == fresh.read(image, 1000).cube
    assert (seen.value, seen.zone) == (2, "offered")


def test_a_still_cube_needs_no_change_raster_on_frames_without_dice(
        camera: DemoCamera, monkeypatch: pytest.MonkeyPatch) -> None:
    """On frames whose dice are not read, a cube lying still costs no change raster (only its
    patch is compared); when it moves, the raster of the last frame it lay still on is worked
    out then, and the cube is found in parts where it went, as a reader reading every frame's
    dice (whose memory works out each raster at once) finds it."""
    from controller.demo import players as pl
    from vision.dice import change_map

    calls = []
    real = change_map.change_raster

    def counted(*args: object) -> object:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(change_map, "change_raster", counted)
    monkeypatch.setattr("controller.runtime.view.change_raster", counted, raising=False)
    centred = _shot(camera, 5, pl.offered_cube(camera.geometry, 1, 4))
    owned = _shot(camera, 5, pl.owned_cube(camera.geometry, 0, 4))
    lazy = FrameReader(corners=camera.corners_flat())
    eager = FrameReader(corners=camera.corners_flat())
    assert lazy.read(centred, 0).cube is not None
    eager.read(centred, 0)
    calls.clear()
    for t in range(1, 4):
        assert lazy.read(centred, t * 1000, with_dice=False).cube is not None
    assert calls == []  # the cube lay still: no raster worked out
    for t in range(1, 4):
        eager.read(centred, t * 1000)
    moved = lazy.read(owned, 4000, with_dice=False).cube
    assert moved is not None and moved == eager.read(owned, 4000).cube
    assert lazy.cube_memory.stats.parts == eager.cube_memory.stats.parts == 1
    assert lazy.cube_memory.stats.whole == eager.cube_memory.stats.whole == 1
