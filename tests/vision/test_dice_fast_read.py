"""The fast first read of each raster place (issue 5: dice must cost little beside a board reading;
``vision.dice.fast_read``): a flat die in the open is read at once with its pips and centre, a
cocked die (BG-ROLL-2: the throw is thrown again), the bare board and a checker are not, and
every place it is unsure of goes to the full reader (``vision.dice.board.read_board_dice``)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.dice import board, face_fit, fast_read
from vision.dice.board import read_board_dice
from vision.dice.candidates import READ_THRESHOLD, scored_raster_candidates
from vision.dice.face_fit import MIN_GRID_SCORE
from vision.dice.fast_read import (
    NOT_DIE,
    FastModel,
    fast_dice,
    fast_model,
    grid_confirm,
    look,
    near_a_line,
    within_lean_of_rail,
)
from vision.dice.leaning import beside_checker_scene
from vision.dice.reading import image_to_mm
from vision.dice.synth import DiceScene, checker_spots, random_dice_scene
from vision.dice.train_cocked import LOW_TILT
from vision.dice.train_fast import turned_offsets
from vision.dice.train_patch import symmetry
from vision.geometry import BoardGeometry

CENTRE_MM = 2.5  # a fast die's centre lies this close to the die's


def _model() -> FastModel:
    model = fast_model()
    assert model is not None, "fast_model.npz is shipped and fits the network"
    return model


def _places(scene: DiceScene) -> tuple[np.ndarray, list[tuple[float, float, float]]]:
    to_mm = image_to_mm(scene.corners, scene.geometry)
    return to_mm, scored_raster_candidates(scene.image, np.linalg.inv(to_mm), scene.geometry,
                                           threshold=READ_THRESHOLD)


def test_shipped_model_has_a_strict_bar() -> None:
    assert 0.9 <= _model().bar < 1.0


@pytest.mark.parametrize("seed", [8_950_001, 8_950_004, 8_950_008, 8_950_009])
def test_a_flat_die_in_the_open_is_read_fast_with_its_pips_and_centre(seed: int) -> None:
    # beside_checker_scene puts one flat die in the middle of a half, clear of every line
    scene = beside_checker_scene(seed, cocked=True, tilt_range=LOW_TILT)
    flat = [d for d in scene.dice if d.flat]
    assert flat
    truth = flat[0]
    to_mm, places = _places(scene)
    dice, rest = fast_dice(scene.image, to_mm, scene.geometry, [(x, y) for x, y, _ in places])
    near = [d for d in dice if math.hypot(d.x_mm - truth.x_mm, d.y_mm - truth.y_mm) < 8]
    assert len(near) == 1
    assert near[0].pips == truth.pips
    assert math.hypot(near[0].x_mm - truth.x_mm, near[0].y_mm - truth.y_mm) < CENTRE_MM
    assert near[0].p >= _model().bar
    # the places about it are not read again
    for n in rest:
        x, y, _ = places[n]
        assert math.hypot(x - near[0].x_mm, y - near[0].y_mm) >= 0.7 * scene.geometry.die_size_mm


@pytest.mark.parametrize("seed", [8_950_000, 8_950_001, 8_950_002, 8_950_003, 8_950_004])
def test_a_low_tilt_cocked_die_is_not_read_fast(seed: int) -> None:
    scene = beside_checker_scene(seed, cocked=True, tilt_range=LOW_TILT)
    cocked = [d for d in scene.dice if not d.flat]
    assert cocked
    to_mm = image_to_mm(scene.corners, scene.geometry)
    g = scene.geometry
    # looked at from anywhere within the raster's reach of it
    centres = [(cocked[0].x_mm + r * math.cos(a), cocked[0].y_mm + r * math.sin(a))
               for r in (0.0, 2.0, 4.0, 6.0) for a in np.linspace(0, 2 * math.pi, 6,
                                                                   endpoint=False)]
    dice, rest = fast_dice(scene.image, to_mm, g, centres)
    assert not [d for d in dice
                if math.hypot(d.x_mm - cocked[0].x_mm, d.y_mm - cocked[0].y_mm) < g.die_size_mm]
    assert rest == list(range(len(centres)))


def test_the_bare_board_and_a_checker_are_not_a_die() -> None:
    scene = random_dice_scene(8_950_100)
    g = scene.geometry
    to_mm = image_to_mm(scene.corners, g)
    clear = [(x, y) for x, y in ((60.0, 150.0), (200.0, 380.0), (350.0, 120.0), (480.0, 300.0))
             if all(math.hypot(x - d.x_mm, y - d.y_mm) > 30 for d in scene.dice)]
    assert scene.frame is not None
    checkers = [(x, y) for x, y, slot in checker_spots(g, scene.frame.contents)
                if slot >= 0 and all(math.hypot(x - d.x_mm, y - d.y_mm) > 30
                                     for d in scene.dice)][:6]
    assert checkers
    looks = look(_model(), scene.image, to_mm, clear + checkers)
    assert all(int(np.argmax(f.probs)) == NOT_DIE for f in looks)
    assert fast_dice(scene.image, to_mm, g, clear + checkers)[0] == []


def test_an_unsure_place_reaches_the_full_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    # a bar no probability clears: every place goes to find_faces as before
    scene = beside_checker_scene(8_950_000, cocked=True, tilt_range=LOW_TILT)
    to_mm, places = _places(scene)
    strict = FastModel(_model().weights, 1.01)
    monkeypatch.setattr(fast_read, "fast_model", lambda: strict)
    monkeypatch.setattr(fast_read, "FIRST_BAR", 1.01)
    seen: list[list[tuple[float, float, float]]] = []
    inner = board.find_faces

    def recorded(*args: object, **kwargs: object) -> list[board.FaceFinding]:
        seen.append(list(kwargs["places"]))  # type: ignore[call-overload]
        return inner(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(board, "find_faces", recorded)
    dice = read_board_dice(scene.image, to_mm, scene.geometry)
    assert seen == [places]
    assert len(dice) == 2


def test_a_die_read_fast_is_one_the_board_reader_gives() -> None:
    scene = beside_checker_scene(8_950_001, cocked=True, tilt_range=LOW_TILT)
    truth = next(d for d in scene.dice if d.flat)
    to_mm = image_to_mm(scene.corners, scene.geometry)
    dice = read_board_dice(scene.image, to_mm, scene.geometry)
    near = [d for d in dice
            if math.hypot(d.centre_mm[0] - truth.x_mm, d.centre_mm[1] - truth.y_mm) < 8]
    assert len(near) == 1
    die = near[0]
    assert die.flat and die.pips == truth.pips and die.half == truth.half
    assert not die.on_checker
    fast, _ = fast_dice(scene.image, to_mm, scene.geometry,
                        [(x, y) for x, y, _ in _places(scene)[1]])
    assert [(f.x_mm, f.y_mm) for f in fast] == [die.centre_mm]  # the fast path's die
    assert die.patch_logit is None and die.pip_score == fast[0].score
    assert 0.9 <= die.confidence <= 1.0 and 0.0 <= die.p_cocked < 0.1


def test_centres_near_a_line_or_the_rail_go_to_the_full_reader() -> None:
    g = BoardGeometry()
    bar = g.bar
    assert near_a_line(g, bar.x0 - 2.0, 250.0)
    assert within_lean_of_rail(g, 10.0, 250.0)
    assert within_lean_of_rail(g, bar.x1 + 12.0, 250.0)
    assert not within_lean_of_rail(g, 130.0, 250.0)
    assert not near_a_line(g, 130.0, 250.0)


@pytest.mark.parametrize("turn", range(8))
def test_offsets_turn_with_their_patches(turn: int) -> None:
    patch = np.zeros((1, 65, 65, 1), np.uint8)
    patch[0, 32 + 9, 32 + 5] = 255  # a die 5 px right of and 9 below the centre
    r, c = np.argwhere(symmetry(patch, turn)[0, :, :, 0])[0]
    assert turned_offsets(np.array([[5.0, 9.0]]), turn).tolist() == [[c - 32, r - 32]]


def test_collecting_from_an_evaluation_seed_is_refused_by_the_project_s_error() -> None:
    """Training patches from the evaluation's seeds would leak held-out throws into the fit:
    refused before any throw is rendered, as the project's own error naming the seed."""
    from engine.errors import InvalidInputError
    from vision.dice.train_fast import SEED_FLOOR, collect

    with pytest.raises(InvalidInputError, match=f"seed0 {SEED_FLOOR - 1} "):
        collect(0, SEED_FLOOR - 1, 1, log=False)


@pytest.mark.parametrize("seed", [8_700_500, 8_700_626, 8_700_681])
def test_a_second_look_less_sure_than_the_bar_still_reads_the_die(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # random throws whose flat die in the open the first look calls past the bar and the
    # second, centred on it, calls the same face at 0.9 to the bar (the one-look read, which
    # takes such a die on its first look alone, barred)
    monkeypatch.setattr(fast_read, "ONE_LOOK_BAR", 2.0)
    scene = random_dice_scene(seed)
    to_mm, places = _places(scene)
    xy = [(x, y) for x, y, _ in places]

    def read() -> list[fast_read.FastDie]:
        return fast_dice(scene.image, to_mm, scene.geometry, xy)[0]

    dice = read()
    assert dice
    for d in dice:
        truth = min(scene.dice, key=lambda t: math.hypot(t.x_mm - d.x_mm, t.y_mm - d.y_mm))
        assert truth.flat and not truth.on_checker and truth.pips == d.pips
        assert math.hypot(truth.x_mm - d.x_mm, truth.y_mm - d.y_mm) < CENTRE_MM
    monkeypatch.setattr(fast_read, "SECOND_BAR", 1.0)  # both looks past the model's bar
    assert len(read()) < len(dice)


@pytest.mark.parametrize("seed", [8_700_005, 8_700_014, 8_700_015])
def test_a_first_look_under_the_model_s_bar_but_past_the_first_bar_reads_the_die(
        seed: int) -> None:
    # random throws whose flat die in the open the first look calls at FIRST_BAR to the
    # model's bar (0.98): read fast, with its pips and centre
    scene = random_dice_scene(seed)
    to_mm, places = _places(scene)
    xy = [(x, y) for x, y, _ in places]
    model = _model()
    dice, _ = fast_dice(scene.image, to_mm, scene.geometry, xy)
    firsts = look(model, scene.image, to_mm, xy)
    unsure = [n for n, f in enumerate(firsts) if fast_read.FIRST_BAR <= f.p_flat < model.bar]
    taken = [d for d in dice if any(math.hypot(xy[n][0] - d.x_mm, xy[n][1] - d.y_mm) < 8
                                    for n in unsure)]
    assert taken
    for d in taken:
        truth = min(scene.dice, key=lambda t: math.hypot(t.x_mm - d.x_mm, t.y_mm - d.y_mm))
        assert truth.flat and not truth.on_checker and truth.pips == d.pips
        assert math.hypot(truth.x_mm - d.x_mm, truth.y_mm - d.y_mm) < CENTRE_MM


def test_a_die_is_read_fast_without_the_face_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    # the pip grid about the network's centre confirms the face (the face fit cost ~1 ms a die)
    scene = beside_checker_scene(8_950_001, cocked=True, tilt_range=LOW_TILT)
    to_mm, places = _places(scene)

    def no_face_fit(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the fast read fits no face")

    monkeypatch.setattr(face_fit, "read_candidate", no_face_fit)
    monkeypatch.setattr(fast_read, "read_candidate", no_face_fit, raising=False)
    dice, _ = fast_dice(scene.image, to_mm, scene.geometry, [(x, y) for x, y, _ in places])
    truth = next(d for d in scene.dice if d.flat)
    assert [d.pips for d in dice] == [truth.pips]
    assert dice[0].score >= MIN_GRID_SCORE and dice[0].contrast > 0.0


@pytest.mark.parametrize("seed", [8_950_001, 8_950_004, 8_950_008, 8_950_009])
def test_the_pip_grid_confirms_a_flat_die_s_pips_and_centre(seed: int) -> None:
    scene = beside_checker_scene(seed, cocked=True, tilt_range=LOW_TILT)
    truth = next(d for d in scene.dice if d.flat)
    g = scene.geometry
    from_mm = np.linalg.inv(image_to_mm(scene.corners, g))
    gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    # from up to the network's error off the die's centre
    for dx, dy in ((0.0, 0.0), (1.5, -1.0), (-1.0, 1.5)):
        read = grid_confirm(gray, from_mm, truth.x_mm + dx, truth.y_mm + dy, g.die_size_mm)
        assert read.value == truth.pips and read.score >= MIN_GRID_SCORE
        assert math.hypot(read.x_mm - truth.x_mm, read.y_mm - truth.y_mm) < CENTRE_MM
        assert read.contrast >= MIN_GRID_SCORE  # (the pips' own evidence)



def test_the_pip_grid_reads_one_face_alike_from_starts_a_little_apart() -> None:
    # the reader's memory keeps a die read in an earlier frame; a fresh read of the same
    # pixels starts from another network centre and must give the same die
    scene = beside_checker_scene(8_950_004, cocked=True, tilt_range=LOW_TILT)
    truth = next(d for d in scene.dice if d.flat)
    g = scene.geometry
    from_mm = np.linalg.inv(image_to_mm(scene.corners, g))
    gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    anchor = (truth.x_mm + 5.0, truth.y_mm - 3.0)
    reads = {(round(r.x_mm, 2), round(r.y_mm, 2), r.value)
             for r in (grid_confirm(gray, from_mm, truth.x_mm + dx, truth.y_mm + dy,
                                    g.die_size_mm, anchor)
                       for dx, dy in ((0.0, 0.0), (0.3, 0.2), (-0.4, 0.1), (0.1, -0.6)))}
    assert len(reads) == 1


@pytest.mark.parametrize("seed", [8_950_001, 8_950_004, 8_950_008, 8_950_009])
def test_a_die_past_the_model_s_bar_is_taken_on_one_look(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first look past the model's own bar (no cocked check patch passes it alone) is
    confirmed about its own centre: no second look at that place, the same die as the two
    looks read (pips, a centre within a pixel or two, the first look's probability)."""
    scene = beside_checker_scene(seed, cocked=True, tilt_range=LOW_TILT)
    to_mm, places = _places(scene)
    xy = [(x, y) for x, y, _ in places]
    model = _model()
    batches: list[list[tuple[float, float]]] = []

    def counted(m: FastModel, image: np.ndarray, h: np.ndarray,
                centres: list[tuple[float, float]]) -> list[fast_read.FastLook]:
        batches.append(list(centres))
        return look(m, image, h, centres)

    monkeypatch.setattr(fast_read, "look", counted)
    dice, _ = fast_dice(scene.image, to_mm, scene.geometry, xy)
    first = look(model, scene.image, to_mm, xy)
    sure = [n for n, f in enumerate(first) if f.p_flat >= model.bar]
    assert sure and dice  # a flat die in the open, past the bar
    assert len(batches) == 2 and batches[0] == xy
    again = batches[1]
    for n in sure:  # none of the sure places is looked at again
        assert (first[n].x_mm, first[n].y_mm) not in again
    # with the one look barred (its bar above any probability), the two looks read the die
    monkeypatch.setattr(fast_read, "look", look)
    monkeypatch.setattr(fast_read, "ONE_LOOK_BAR", 2.0)
    both, _ = fast_dice(scene.image, to_mm, scene.geometry, xy)
    assert [d.pips for d in dice] == [d.pips for d in both]
    for a, b in zip(dice, both, strict=True):
        assert math.hypot(a.x_mm - b.x_mm, a.y_mm - b.y_mm) < 0.5
        assert a.p >= model.bar
