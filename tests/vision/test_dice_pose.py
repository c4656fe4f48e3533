"""Flat or cocked (BG-ROLL-2: a cocked die means both dice are thrown again).

The demo's own camera and players (``controller.demo``) plant cocked dice, tilted by
``COCKED_TILT_DEG`` against the outermost checker of a stack or against the rail, and valid
throws with both dice flat; the referee's dice reader (``read_board_dice``) must tell them
apart. The pooled edge judgement must not care which edge of the face a side face shows beyond.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import numpy as np
import pytest

from controller.demo import players
from controller.demo.camera import DemoCamera, Shot
from controller.demo.script import InvalidKind
from vision.dice import board, pose, second_chance
from vision.dice.board import read_board_dice
from vision.dice.board_die import BoardDie
from vision.dice.face_fit import ALIGNED_MM, ALIGNED_PX_PER_MM, FaceFinding, warp_patch
from vision.dice.leaning import beside_checker_scene, table_throw_scene
from vision.dice.pose import (
    DIE_FEATURE_COUNT,
    FEATURE_COUNT,
    cocked_inputs,
    cocked_probability,
    cocked_threshold,
    pose_features,
    second_chance_threshold,
)
from vision.dice.render import DieProp
from vision.dice.side_faces import PROFILE_COUNT, SIDE_INPUTS, edge_logit, side_inputs
from vision.dice.synth import DICE_STYLES
from vision.dice.train_cocked import (
    LOW_SEED0,
    LOW_TILT,
    TRANSLUCENT,
    WHITE,
    scenes,
    second_chances,
)
from vision.geometry import BoardGeometry, Canonical
from vision.render.scene import BoardContents, random_contents

SEED0 = 500_000  # demo-style throws of these tests (tests.eval.cocked uses 0 up)


@pytest.fixture(scope="module")
def camera() -> DemoCamera:
    return DemoCamera()


def _to_mm(camera: DemoCamera) -> np.ndarray:
    corners = np.asarray(camera.corners, np.float32).reshape(4, 2)
    out: np.ndarray = Canonical(camera.geometry, 1.0, (0.0, 0.0)).homography_from_image(corners)
    return out


def _throws(camera: DemoCamera, invalid: InvalidKind | None, n: int
            ) -> Iterator[tuple[np.ndarray, tuple[DieProp, ...]]]:
    """``n`` of the demo players' throws on random boards, rendered by the demo's camera."""
    for k in range(SEED0, SEED0 + n):
        rng = random.Random(k)
        contents = random_contents(np.random.default_rng(k), 5)
        dice = players.thrown_dice(camera.geometry, k % 2, (rng.randint(1, 6), rng.randint(1, 6)),
                                   rng, invalid, contents)
        image, _ = camera.render(Shot(contents, dice))
        yield image, dice


def _reading(read: list[BoardDie], die: DieProp) -> BoardDie | None:
    """The reading of ``die`` (within 10 mm of it), if any."""
    for d in read:
        if math.hypot(d.centre_mm[0] - die.x_mm, d.centre_mm[1] - die.y_mm) < 10.0:
            return d
    return None


def test_demo_cocked_dice_are_caught(camera: DemoCamera) -> None:
    """BG-ROLL-2: the demo's planted cocked dice (28 degrees against a checker or the rail)
    are read as cocked; the flat die beside them is not."""
    to_mm = _to_mm(camera)
    caught, cocked, flat_called, flat = 0, 0, 0, 0
    for image, dice in _throws(camera, "cocked", 12):
        read = read_board_dice(image, to_mm, camera.geometry)
        for die in dice:
            found = _reading(read, die)
            if found is None:
                continue
            if die.flat:
                flat += 1
                flat_called += not found.flat
            else:
                cocked += 1
                caught += not found.flat
    # finding the dice is another stage's matter (11 of these 12 are found); of the cocked
    # dice found, at most one may be called flat (this model: none; tests.eval.cocked's 100
    # demo-style cocked dice: 90 of 94 found are caught)
    assert cocked >= 10
    assert caught >= cocked - 1
    assert flat_called == 0 and flat >= 6


def test_demo_valid_throws_stay_flat(camera: DemoCamera) -> None:
    """Valid throws (both dice flat) give no false "cocked" (no needless rethrow)."""
    to_mm = _to_mm(camera)
    flat = 0
    for image, dice in _throws(camera, None, 8):
        read = read_board_dice(image, to_mm, camera.geometry)
        for die in dice:
            found = _reading(read, die)
            if found is not None:
                flat += 1
                assert found.flat, f"flat die at ({die.x_mm:.0f}, {die.y_mm:.0f}) called cocked"
    assert flat >= 10


WHITE_RED = ((240, 240, 240), (40, 40, 190))  # the tournament's white die, red pips
BLACK_WHITE = ((30, 30, 30), (230, 230, 230))
RED_WHITE = ((40, 40, 160), (235, 235, 235))


def _aligned_patch(camera: DemoCamera, tilt: float,
                   colours: tuple[tuple[int, int, int], tuple[int, int, int]] = WHITE_RED
                   ) -> tuple[np.ndarray, np.ndarray]:
    """A lone die (body and pip colours, showing four) in the middle of the demo's empty
    board, as the pose stage sees it: a patch centred on its upward face, x along the face."""
    g: BoardGeometry = camera.geometry
    x, y = g.width_mm / 4, g.height_mm / 2
    die = DieProp(x, y, 4, 0.0, tilt, 0.0, body_bgr=colours[0], pip_bgr=colours[1])
    image, _ = camera.render(Shot(BoardContents.empty(), (die,)))
    # the upward face's centre (the die's top corner tips away when it is tilted)
    t = math.radians(tilt)
    cy = y - 0.5 * g.die_size_mm * math.sin(t)
    patch = warp_patch(image, np.linalg.inv(_to_mm(camera)), x, cy, ALIGNED_MM,
                       ALIGNED_PX_PER_MM)
    step = 0.26 * g.die_size_mm
    pts = np.array([[-step, -step * math.cos(t)], [step, -step * math.cos(t)],
                     [-step, step * math.cos(t)], [step, step * math.cos(t)]])
    return patch, pts


def test_pose_features_carry_the_side_profiles(camera: DemoCamera) -> None:
    """The pose features end with the side-face profiles the cocked model reads."""
    patch, pts = _aligned_patch(camera, 0.0)
    feats = pose_features(patch, 16.0, pts)
    assert feats.shape == (FEATURE_COUNT,)
    assert PROFILE_COUNT > 0 and np.all(np.isfinite(feats))


def _turned(patch: np.ndarray, pts: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The patch turned ``k`` quarter turns about the face centre's pixel (``warp_patch`` puts
    it on pixel n/2: np.rot90 of the whole even-sided patch would also move the face by a
    pixel), and the pips with it."""
    n = patch.shape[0]
    c = n // 2
    r = min(c, n - 1 - c)
    out = patch.copy()
    out[c - r:c + r + 1, c - r:c + r + 1] = np.rot90(patch[c - r:c + r + 1, c - r:c + r + 1], k)
    p = pts.copy()
    for _ in range(k):  # np.rot90 turns counter-clockwise in the picture: (x, y) -> (y, -x)
        p = np.stack([p[:, 1], -p[:, 0]], axis=1)
    return np.ascontiguousarray(out), p


@pytest.mark.parametrize("tilt", [0.0, 28.0])
def test_judgement_does_not_care_which_edge(camera: DemoCamera, tilt: float) -> None:
    """Turning the patch a quarter turn about the face's centre (and the pips with it) moves
    the side face to another edge of the face: the pooled cocked probability stays the same."""
    patch, pts = _aligned_patch(camera, tilt)
    base = cocked_probability(pose_features(patch, 16.0, pts))
    for k in (1, 2, 3):
        turned, p = _turned(patch, pts, k)
        assert abs(cocked_probability(pose_features(turned, 16.0, p)) - base) < 0.15


# The cocked model is fitted on patches moved up to two pixels (``train_cocked.JITTER_PX``):
# one pixel off, the white die at 28 degrees reads 0.80-0.86 (the model before: 0.64-0.90),
# the dark die 0.62-0.94 (before: 0.14-0.95) and 0.73-0.89 at 16 degrees (before: 0.22-0.82);
# steadier, but the dark die still moves more than 0.15.
@pytest.mark.parametrize(("tilt", "colours"), [
    (16.0, WHITE_RED), (28.0, WHITE_RED), (16.0, RED_WHITE), (28.0, RED_WHITE),
    pytest.param(16.0, BLACK_WHITE, marks=pytest.mark.xfail(
        strict=True, reason="the dark die moves 0.16 one pixel off (see above)")),
    pytest.param(28.0, BLACK_WHITE, marks=pytest.mark.xfail(
        strict=True, reason="the dark die moves 0.32 one pixel off (see above)")),
])
def test_a_quarter_millimetre_shift_barely_moves_the_judgement(
        camera: DemoCamera, tilt: float,
        colours: tuple[tuple[int, int, int], tuple[int, int, int]]) -> None:
    """The face fit's centre one pixel (0.25 mm) off in any direction, its pips where its
    layout puts them: the cocked probability stays within 0.15 (BG-ROLL-2 must not hang on a
    quarter of a millimetre)."""
    patch, pts = _aligned_patch(camera, tilt, colours)
    seen = []
    for dx, dy in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)):
        shifted = np.ascontiguousarray(np.roll(patch, (dy, dx), axis=(0, 1)))
        seen.append(cocked_probability(pose_features(shifted, 16.0, pts)))
    assert max(seen) - min(seen) < 0.15


def test_a_tilted_lone_die_is_more_cocked_than_a_flat_one(camera: DemoCamera) -> None:
    """The same die, flat and then tilted 28 degrees: the side face raises the probability
    from below to above the threshold."""
    flat_patch, flat_pts = _aligned_patch(camera, 0.0)
    cocked_patch, cocked_pts = _aligned_patch(camera, 28.0)
    p_flat = cocked_probability(pose_features(flat_patch, 16.0, flat_pts))
    p_cocked = cocked_probability(pose_features(cocked_patch, 16.0, cocked_pts))
    assert p_flat < cocked_threshold() <= p_cocked


def test_table_throws_for_training_are_labelled_by_their_dice() -> None:
    """The cocked model's table-camera training throws (``leaning.table_throw_scene``): a
    cocked throw has exactly one tilted die (BG-ROLL-2), a valid one none; the first die lies
    flat in the board's middle band; the same seed draws the same picture."""
    g = BoardGeometry()
    for seed in (3_000_001, 3_000_002):
        scene = table_throw_scene(seed, cocked=True)
        assert [d.flat for d in scene.dice] == [True, False]
        assert abs(scene.dice[0].y_mm - g.height_mm / 2) <= 10.0
        assert scene.image.shape == (720, 1280, 3)
    valid = table_throw_scene(3_000_003, cocked=False)
    assert all(d.flat for d in valid.dice)
    again = table_throw_scene(3_000_003, cocked=False)
    assert np.array_equal(valid.image, again.image)


def test_training_sees_the_second_chances_and_leaves_the_reader_as_it_was() -> None:
    """Training collects the reader's second-chance faces with the cocked threshold set aside
    (``train_cocked.second_chances``) and puts the reader's own functions back afterwards."""
    before = (board.__dict__["give_second_chance"], board.__dict__["cocked_threshold"])
    kept: list[FaceFinding] = []
    with second_chances(kept):
        assert board.__dict__["cocked_threshold"]() == 0.0
        assert board.__dict__["give_second_chance"] is not before[0]
    assert (board.__dict__["give_second_chance"], board.__dict__["cocked_threshold"]) == before
    with pytest.raises(RuntimeError), second_chances(kept):
        raise RuntimeError("restored on errors too")
    assert board.__dict__["give_second_chance"] is before[0]


def test_training_sets_the_second_chance_bar_aside_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader whose second chances read their own, stricter bar (BG-ROLL-2: a second chance
    on board texture is a phantom die) has it set to 0 while training collects them, and
    given back afterwards; the shipped bar is no looser than the reading threshold."""
    assert second_chance_threshold() >= cocked_threshold()

    def own_bar() -> float:
        return 0.99

    monkeypatch.setattr(second_chance, "second_chance_threshold", own_bar, raising=False)
    kept: list[FaceFinding] = []
    with second_chances(kept):
        assert second_chance.__dict__["second_chance_threshold"]() == 0.0
        assert board.__dict__["cocked_threshold"]() == 0.0
    assert second_chance.__dict__["second_chance_threshold"] is own_bar


def test_low_tilt_training_throws_hold_the_dice_asked_for() -> None:
    """The cocked model's low-tilt training throws (``train_cocked``'s kind 3,
    ``leaning.beside_checker_scene`` with a tilt range and a style): the leaning die tilts
    within the range asked for and both dice wear the style asked for (BG-ROLL-2: 12 to 24
    degrees is where cocked dice were called flat)."""
    scene = beside_checker_scene(4_000_001, cocked=True, tilt_range=LOW_TILT, style=TRANSLUCENT[0])
    assert scene.frame is not None
    props = [p for p in scene.frame.spec.props if isinstance(p, DieProp)]
    assert [p.flat for p in props] == [True, False]
    assert LOW_TILT[0] <= props[1].tilt_deg <= LOW_TILT[1]
    assert {(p.material, p.body_bgr) for p in props} == {DICE_STYLES[TRANSLUCENT[0]][:2]}
    assert [d.flat for d in scene.dice] == [True, False]
    kinds = [(kind, scene.dice[0].material) for kind, scene in scenes(0, 0, 0, 1)]
    assert kinds == [(3, "opaque" if LOW_SEED0 % 3 == 0 else "translucent"), (4, "translucent")]


def test_white_low_tilt_training_throws_wear_each_white_style_in_turn() -> None:
    """Kind 5 of the cocked model's training throws: low tilts (as kind 3) of the white opaque
    dice only, the tournament's white with red pips and the ivory with black, one after the
    other; three of four cocked."""
    assert {DICE_STYLES[i][0] for i in WHITE} == {"opaque"} and 1 in WHITE and 4 not in WHITE
    seen = list(scenes(0, 0, 0, 0, 2))
    assert [kind for kind, _ in seen] == [5, 5]
    bodies = []
    for _, scene in seen:
        assert scene.frame is not None
        props = [p for p in scene.frame.spec.props if isinstance(p, DieProp)]
        assert all(LOW_TILT[0] <= p.tilt_deg <= LOW_TILT[1] for p in props if not p.flat)
        bodies.append({p.body_bgr for p in props})
    assert bodies == [{DICE_STYLES[WHITE[0]][1]}, {DICE_STYLES[WHITE[1]][1]}]


def test_cocked_inputs_hold_each_edges_profiles_and_the_die_features() -> None:
    """Every edge row of the cocked network holds that edge's side-face profiles
    (``side_faces.side_inputs``) and then the die model's pose features, the same on all four
    rows (the constant left out)."""
    f = np.random.default_rng(0).normal(size=FEATURE_COUNT)
    rows = cocked_inputs(f)
    assert rows.shape == (4, SIDE_INPUTS + DIE_FEATURE_COUNT - 1)
    assert np.array_equal(rows[:, :SIDE_INPUTS], side_inputs(f[DIE_FEATURE_COUNT:]))
    for row in rows:
        assert np.array_equal(row[SIDE_INPUTS:], f[:DIE_FEATURE_COUNT - 1])


@pytest.mark.parametrize("width", [SIDE_INPUTS, SIDE_INPUTS + DIE_FEATURE_COUNT - 1])
def test_a_model_reads_the_inputs_it_was_trained_on(monkeypatch: pytest.MonkeyPatch,
                                                    width: int) -> None:
    """A cocked model of the side-face profiles alone (as shipped before) and one that also
    sees the die features are each given their own inputs."""
    rng = np.random.default_rng(1)
    model = {"mean": np.zeros(width), "scale": np.ones(width),
             "w1": rng.normal(0, 0.1, (2, width, 3)), "b1": np.zeros((2, 3)),
             "w2": rng.normal(0, 1, (2, 3)), "b2": np.zeros(2), "threshold": np.array(0.5)}
    monkeypatch.setattr(pose, "_models", lambda: {"cocked": model})
    f = rng.normal(size=FEATURE_COUNT)
    want = 1 / (1 + math.exp(-edge_logit(model, cocked_inputs(f)[:, :width])))
    assert cocked_probability(f) == pytest.approx(want)
    moved = f.copy()
    moved[:DIE_FEATURE_COUNT - 1] += 5.0  # the die features: seen by the wider model only
    if width == SIDE_INPUTS:
        assert cocked_probability(moved) == pytest.approx(want)
    else:
        assert cocked_probability(moved) != pytest.approx(want)
