"""The board reader on a small seeded synthetic set (the 1,000-frame figures come from
``tests/eval/board.py``): counts, stacks laid over columns, colours, the JSON contract."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.board_reader import (
    PreparedFrame,
    clear_places,
    prepare,
    read_board,
    read_prepared,
)
from vision.calibration import Calibration
from vision.checker_edges import dominant, edge_maps
from vision.checkers import BY_CUBE
from vision.config import CheckerConfig
from vision.dice.synth import DiceScene, random_dice_scene
from vision.render import BoardContents, SceneSpec, random_scene, render_scene
from vision.render.scene import SCHEMES, CameraSpec

SEEDS = range(500, 530)


@pytest.fixture(scope="module")
def clear_frames() -> list[object]:
    return [render_scene(random_scene(s, hand_probability=0.0)) for s in SEEDS]


def test_counts_on_clear_synthetic_frames(clear_frames: list[object]) -> None:
    right = total = boards = 0
    for frame in clear_frames:
        reading = read_board(frame.image, corners=frame.corners)  # type: ignore[attr-defined]
        counts = reading.slot_counts()
        truth = frame.contents.slots  # type: ignore[attr-defined]
        ok = [c is not None and tuple(c) == tuple(t) for c, t in zip(counts, truth, strict=True)]
        right += sum(ok)
        total += 24
        boards += all(ok)
    # measured on these seeds: 716 of 720 slots (hidden-by-mistake slots count as misses);
    # the 1,000-frame evaluation script holds the real bar
    assert right >= 0.99 * total
    assert boards >= 0.9 * len(clear_frames)


@pytest.mark.parametrize("n", [5, 6, 7, 8])
def test_stacks_up_to_eight_laid_over_a_full_column(n: int) -> None:
    """Never a wrong count; a stack the reader is unsure of is left unclaimed (hidden)."""
    exact = tries = 0
    slots = [(0, 0)] * 24
    slots[3] = (n, 0)  # top row
    slots[20] = (0, n)  # bottom row
    contents = BoardContents(tuple(slots), (0, 0), (15 - n, 15 - n))
    # plain-coloured checkers; marbled ones laid over a column are a known weakness (report)
    for k, scheme in enumerate(s for s in SCHEMES if not s.marbled):
        spec = SceneSpec(contents, scheme, CameraSpec(jpeg_quality=90), seed=40 + k)
        frame = render_scene(spec)
        reading = read_board(frame.image, corners=frame.corners)
        counts = reading.slot_counts()
        assert counts[3] in ((n, 0), None), (scheme.name, counts[3])
        assert counts[20] in ((0, n), None), (scheme.name, counts[20])
        exact += (counts[3] == (n, 0)) + (counts[20] == (0, n))
        tries += 2
    assert exact >= tries - 1


def test_json_fields_follow_the_contract() -> None:
    frame = render_scene(random_scene(7, hand_probability=0.0))
    out = read_board(frame.image, corners=frame.corners, name="x.jpg").to_json()
    for key in ("image", "occluded", "slots", "bar", "off", "dice", "cube", "confidence"):
        assert key in out
    assert out["image"] == "x.jpg"
    assert len(out["slots"]) == 24 and all(len(s) == 2 for s in out["slots"])
    # (the dice and the cube are the dice reader's: only their shape is checked here)
    assert isinstance(out["dice"], list) and (out["cube"] is None or isinstance(out["cube"], dict))
    assert out["hidden"] == {"slots": [], "bar": False, "frame": []}
    assert out["off"] is not None and len(out["off"]) == 2
    assert 0.0 <= out["confidence"] <= 1.0


def test_hands_make_the_frame_occluded_and_hidden_slots_claim_no_count() -> None:
    checked = flagged = 0
    for seed in range(0, 40):
        spec = random_scene(seed, hand_probability=1.0)
        frame = render_scene(spec)
        reading = read_board(frame.image, corners=frame.corners)
        if not frame.hidden_slots:
            continue
        checked += 1
        flagged += reading.occluded
        out = reading.to_json()
        assert (out["off"] is None) == reading.occluded
        for i in reading.hidden_slots:
            assert out["slots"][i] is None
        counts = reading.slot_counts()
        assert [i for i in frame.hidden_slots if counts[i] is not None] == [], seed
    assert checked > 8
    assert flagged == checked


def test_grey_and_alpha_pictures_are_accepted() -> None:
    frame = render_scene(random_scene(9, hand_probability=0.0))
    bgra = np.dstack([frame.image, np.full(frame.image.shape[:2], 255, np.uint8)])
    a = read_board(frame.image, corners=frame.corners).slot_counts()
    b = read_board(bgra, corners=frame.corners).slot_counts()
    assert a == b


@pytest.mark.parametrize("ratio", [1.5, 1.2, 1.0, 0.75, 3.0])
def test_rim_edges_are_those_steep_enough_exactly(ratio: float) -> None:
    a, b = np.random.default_rng(7).integers(0, 256, (2, 64, 64), dtype=np.uint8)
    got = dominant(a, b, 64, ratio)
    want = (a > 64) & (a.astype(np.float64) > ratio * b.astype(np.float64))
    assert got.dtype == np.uint8 and np.array_equal(got.astype(bool), want)


def test_a_rim_at_the_tested_arcs_end_counts_without_the_maps_thickening() -> None:
    # a disc's rim 54 degrees up from the column's cross direction: the second of the nine
    # samples of an arc from 42 to 138 degrees
    gray = np.full((80, 80), 90, np.uint8)
    cv2.circle(gray, (40, 40), 20, 200, -1, cv2.LINE_AA)
    gray = cv2.GaussianBlur(gray, (0, 0), 1.0)
    a = math.radians(54)
    x, y = round(40 + 20 * math.cos(a)), round(40 - 20 * math.sin(a))
    assert edge_maps(gray, replace(CheckerConfig(), edge_dilate_along=1))[0][y, x]
    steep_only = replace(CheckerConfig(), edge_dilate_along=1, rim_dominance=1.5)
    assert not edge_maps(gray, steep_only)[0][y, x]


def _scene_frame(scene: DiceScene) -> PreparedFrame:
    """A synthetic throw's frame, prepared from its true corners."""
    return prepare(scene.image, Calibration(np.asarray(scene.corners, np.float32), "corners",
                                            scene.geometry))


@pytest.mark.parametrize(("seed", "slot"), [(3149, 12), (3040, 11), (3079, 1), (3102, 15)])
def test_a_die_or_the_cube_lying_on_a_point_leaves_no_room_for_a_checker_there(
        seed: int, slot: int) -> None:
    # 3149: a die at the base of the empty 12th slot; 3040: one just past slot 11's lone
    # checker; 3079 and 3102: the offered cube on an empty point (read as two checkers).
    # Their edges alone read as checkers' rims; a die on no checker, or the cube, says none
    scene = random_dice_scene(seed)
    truth = scene.frame.spec.contents.slots[slot] if scene.frame else None
    frame = _scene_frame(scene)
    assert read_prepared(frame, dice=False).slot_counts()[slot] != truth  # the checkers alone
    reading = read_prepared(frame)
    assert reading.slot_counts()[slot] == truth


def test_the_places_a_die_clears_are_those_within_a_checkers_reach_of_it() -> None:
    scene = random_dice_scene(3149)
    frame = _scene_frame(scene)
    g = scene.geometry
    x, y = g.checker_centre_mm(5, 0)
    assert clear_places(frame, []) is None
    near = clear_places(frame, [(x + 17.0, y)])
    assert near is not None and near[5, 0] and near.sum() == 1  # 17 mm off its first place
    assert clear_places(frame, [(x + 24.0, y)]) is None  # beside it: a checker fits there
    cube = clear_places(frame, [], (x + 18.0, y))
    assert cube is not None and cube[5, 0] == BY_CUBE and np.count_nonzero(cube) == 1
    assert clear_places(frame, [], (x + 24.0, y)) is None
    both = clear_places(frame, [(x + 10.0, y)], (x + 18.0, y))
    assert both is not None and both[5, 0] == BY_CUBE  # the cube's clearing is the firmer


def test_a_die_read_below_the_camera_floors_clears_no_checker(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``hakem vision read``: a faint "die" (a reflection, read below the table's camera
    floors: ``vision.dice.reading.kept_die``) read as on no checker leaves what the checkers'
    edges show; one read surely there is taken as lying on the board (scene 3149's die at the
    base of the empty 12th slot, whose edges alone read as a checker)."""
    from vision import board_reader
    from vision.dice.board_die import BoardDie
    from vision.dice.reading import DIE_FLOOR, DiceAndCube

    scene = random_dice_scene(3149)
    frame = _scene_frame(scene)
    slot = 12
    plain = read_prepared(frame, dice=False).slot_counts()[slot]
    truth = scene.frame.spec.contents.slots[slot] if scene.frame else None
    assert plain != truth
    lying = next(d for d in scene.dice if not d.on_checker)

    def die_at(confidence: float, flat: bool = True) -> DiceAndCube:
        die = BoardDie(lying.pips, (0.0, 0.0), (lying.x_mm, lying.y_mm), flat, False, "left",
                       "slot", confidence)
        return DiceAndCube([die], None)

    for confidence, flat in ((DIE_FLOOR - 0.1, True), (0.1, False)):
        monkeypatch.setattr(board_reader, "dice_and_cube",
                            lambda *_a, c=confidence, f=flat, **_k: die_at(c, f))
        assert read_prepared(frame).slot_counts()[slot] == plain
    monkeypatch.setattr(board_reader, "dice_and_cube", lambda *_a, **_k: die_at(0.9))
    assert read_prepared(frame).slot_counts()[slot] == truth


@pytest.mark.parametrize("offset", [(0.0, 0.0), (10.0, 10.0), (-14.0, 0.0)])
def test_a_die_read_where_a_checkers_whole_rim_shows_takes_no_checker_away(
        offset: tuple[float, float]) -> None:
    """A die read on the board (on no checker) at a column checker's place, even surely, where
    that checker's whole rim shows was misread: no die shows both arcs of a 43 mm rim (a
    phantom die at the edge of a 6-point's fourth checker took it away, and the robot's legal
    bar/23 13/9 was flagged: match7986278 of the draws with --seed0 11600 --illegal 3
    --invalid 4). The cube, whose square can show such a rim, still clears the place."""
    scene = random_dice_scene(3149)
    frame = _scene_frame(scene)
    plain = read_prepared(frame, dice=False).slot_counts()
    truth = scene.frame.spec.contents.slots if scene.frame else None
    assert truth is not None
    columns = [i for i, c in enumerate(plain) if c is not None and sum(c) >= 2 and c == truth[i]]
    assert columns
    g = scene.geometry
    for slot in columns:
        count = sum(truth[slot])
        x, y = g.checker_centre_mm(slot, count - 1)
        at = (x + offset[0], y + offset[1])
        assert read_prepared(frame, dice=False, clear_at=[at]).slot_counts()[slot] == plain[slot]
        by_cube = read_prepared(frame, dice=False, cube_at=at).slot_counts()[slot]
        assert by_cube is not None and sum(by_cube) < count


@pytest.mark.parametrize("scheme", range(len(SCHEMES)))
@pytest.mark.parametrize("side", [0, 1])
def test_nine_checkers_on_a_point_keep_their_colour(scheme: int, side: int) -> None:
    """A full column with a checker laid over every one of its five (nine on a point, as in
    the referee draws' match9311372 with --seed0 10000) shows no whole disc of the column; its
    colour is sampled where the laid checkers lie (it was black: nine lighter checkers read as
    the darker player's, and a legal move was flagged, BG-EQ-1)."""
    from controller.demo.camera import DemoCamera, Shot

    slots = [(0, 0)] * 24
    slots[6] = (9, 0) if side == 0 else (0, 9)
    slots[20], slots[3] = (2, 0), (0, 2)
    camera = DemoCamera(seed=11 + scheme, scheme=SCHEMES[scheme])
    image, _ = camera.render(Shot(BoardContents(slots=tuple(slots)), (), None))
    reading = read_board(image, corners=np.array(camera.corners_flat(), np.float32).reshape(4, 2))
    assert reading.slots[6].counts == slots[6]


def test_the_bars_end_against_the_frame_is_no_checker() -> None:
    """Below the lowest of three lighter checkers on the bar, the bar's end between that
    checker's rim, the frame's edge and the points' sides showed a disc's four rims, and its
    colour (the bar's own) read as a darker checker on the bar: a planted illegal move then
    read as "cannot read" (match4908862 of the draws with --seed0 11600 --illegal 3 --invalid
    4; this camera and position show the same)."""
    from controller.demo.camera import DemoCamera, Shot, contents_from_counts
    from controller.demo.players import owned_cube

    slots = [(0, 0)] * 24
    for i, counts in {4: (0, 4), 6: (0, 5), 12: (0, 3), 19: (2, 0), 20: (4, 0), 21: (2, 0),
                      22: (4, 0), 23: (3, 0)}.items():
        slots[i] = counts
    camera = DemoCamera(seed=27)
    image, _ = camera.render(Shot(contents_from_counts(slots, (0, 3), (0, 0)),
                                  cube=owned_cube(camera.geometry, 1, 2)))
    reading = read_board(image, corners=np.array(camera.corners_flat(), np.float32).reshape(4, 2))
    assert reading.bar.counts == (0, 3)
    assert reading.slot_counts() == slots


def test_only_a_bar_candidate_of_the_bars_own_colour_is_lowered() -> None:
    """``not_the_bar``: a candidate the bar's colour loses its presence, one a checker's colour
    keeps it, and where the checkers are the bar's colour nothing is judged by colour."""
    from vision.board_reader import layout_for
    from vision.checker_bar import BarCandidate, not_the_bar
    from vision.checkers import disc_colours
    from vision.geometry import BoardGeometry, Canonical

    canonical = Canonical(BoardGeometry(), CheckerConfig().px_per_mm, (0.0, 0.0))
    lay = layout_for(canonical)
    w, h = canonical.size
    bar_bgr, checker_bgr = (40, 50, 60), (30, 140, 220)
    image = np.empty((h, w, 3), np.uint8)
    image[:] = bar_bgr
    x = float(lay.bar_x[len(lay.bar_x) // 2])
    y_checker, y_end = float(lay.bar_ts[10]), float(lay.bar_ts[-1])
    cv2.circle(image, (round(x), round(y_checker)), round(lay.d / 2), checker_bgr, -1)
    cands = [BarCandidate(x, y_checker, 0.9), BarCandidate(x, y_end, 0.9)]
    cfg = CheckerConfig()
    found = disc_colours(image, np.array([[c.x, c.y] for c in cands]), lay)
    kept = not_the_bar(image, lay, cands, found, np.array([checker_bgr], np.float32), cfg)
    assert kept[0].p > 0.85 and kept[1].p < 0.1
    alike = not_the_bar(image, lay, cands, found, np.array([(45, 52, 64)], np.float32), cfg)
    assert [c.p for c in alike] == [0.9, 0.9]
