"""The second chances' acceptor (``vision.dice.tilted.p_second_chance``, fitted by
``vision.dice.train_raster --second-chances``): its inputs, its absence, its fitting, and the
model file it shares with the raster's die-candidate model (BG-ROLL-2: a cocked die found)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from vision.dice import tilted, train_raster
from vision.dice.tilted import (
    SECOND_CHANCE_INPUTS,
    SQUASHES,
    TiltedRead,
    p_second_chance,
    second_chance_acceptance,
    second_chance_inputs,
)


def _read(squash: tuple[float, float], score: float = 0.12, edge: float = 4.0) -> TiltedRead:
    return TiltedRead(score, 0.0, 0.0, 0.0, 3, np.eye(3, dtype=bool), edge, 0.0, squash)


def test_the_inputs_are_in_the_named_order() -> None:
    x = second_chance_inputs(_read(SQUASHES[1]), 0.9, 0.99, 0.3, 40.0, False)
    assert len(x) == len(SECOND_CHANCE_INPUTS)
    assert x[0] == pytest.approx(math.log(0.9 / 0.1))
    assert x[1] == pytest.approx(math.log(0.99 / 0.01))
    assert x[2] == pytest.approx(0.3)
    assert x[3] == pytest.approx(1.2)
    assert x[4] == pytest.approx(math.log(4.0))
    assert x[5] == pytest.approx(40.0 / 64.0)
    assert x[6:].tolist() == [1.0, 0.0, 0.0]
    larger = second_chance_inputs(_read(SQUASHES[2]), 0.5, 0.5, 0.0, 500.0, True)
    assert larger[5] == pytest.approx(200.0 / 64.0)  # the spread is capped
    assert larger[6:].tolist() == [0.0, 1.0, 1.0]
    # probabilities of 0 and 1 stay finite
    assert np.isfinite(second_chance_inputs(_read(SQUASHES[0]), 0.0, 1.0, 0.0, 0.0,
                                            False)).all()


def test_the_shipped_acceptor_passes_a_clear_cocked_die_and_not_texture() -> None:
    """A hypothesis both models are sure of, with clear pips and outline, is accepted; one the
    die model calls texture, with a face whose grey spread is a board's, is not."""
    die = second_chance_inputs(_read(SQUASHES[0], 0.2, 6.0), 0.99, 0.999, 0.6, 20.0, True)
    texture = second_chance_inputs(_read(SQUASHES[0], 0.07, 2.0), 0.01, 0.9, 0.0, 75.0, False)
    assert p_second_chance(die) >= second_chance_acceptance()
    assert p_second_chance(texture) < second_chance_acceptance()


def test_without_a_fitted_acceptor_no_second_chance_is_kept(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    model = tmp_path / "raster_model.json"
    model.write_text(json.dumps({"threshold": 0.5}))
    monkeypatch.setattr(tilted, "MODEL_PATH", model)
    tilted._acceptor.cache_clear()
    try:
        x = second_chance_inputs(_read(SQUASHES[0]), 0.99, 0.999, 0.9, 10.0, True)
        assert p_second_chance(x) == 0.0
        assert second_chance_acceptance() == 1.0
    finally:
        tilted._acceptor.cache_clear()


def test_the_logistic_fit_separates_a_seeded_problem() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=(600, 3))
    y = (x[:, 0] - 0.5 * x[:, 2] + 0.3 * rng.normal(size=600) > 0.2).astype(float)
    m = train_raster.fit_logistic(x, y)
    z = (x - np.asarray(m["mean"])) / np.asarray(m["scale"])
    p = 1.0 / (1.0 + np.exp(-(z @ np.asarray(m["w"]) + float(m["b"]))))  # type: ignore[arg-type]
    assert ((p >= 0.5) == (y > 0)).mean() > 0.9
    w = np.asarray(m["w"])
    assert w[0] > 0 > w[2] and abs(w[1]) < 0.3 * w[0]


def test_each_fit_keeps_the_other_entry_of_the_model_file(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    model = tmp_path / "raster_model.json"
    monkeypatch.setattr(train_raster, "MODEL_PATH", model)
    train_raster._write(None, {"threshold": 0.7, "w1": [1.0]})
    train_raster._write("second_chance", {"threshold": 0.6})
    assert json.loads(model.read_text()) == {"threshold": 0.7, "w1": [1.0],
                                             "second_chance": {"threshold": 0.6}}
    train_raster._write(None, {"threshold": 0.8})
    assert json.loads(model.read_text()) == {"threshold": 0.8,
                                             "second_chance": {"threshold": 0.6}}


@pytest.mark.parametrize("seed", [1_000_844, 1_001_047])
def test_a_cocked_die_the_old_gates_turned_away_is_found(seed: int) -> None:
    """BG-ROLL-2: two of the acceptor's training throws (``vision.dice.synth`` seeds), each with
    a cocked six the usual read misses and whose second chance the reader's two gates (die
    model >= 0.7, solid pips) turn away: the acceptor keeps it, so the six is found, read right
    and called cocked; the flat die is still found and called flat, and nothing else is read."""
    from vision.dice.board import read_board_dice
    from vision.dice.reading import image_to_mm
    from vision.dice.synth import random_dice_scene

    scene = random_dice_scene(seed)
    read = read_board_dice(scene.image, image_to_mm(scene.corners, scene.geometry),
                           scene.geometry)
    assert len(read) == len(scene.dice) == 2
    for truth in scene.dice:
        near = [d for d in read
                if math.hypot(d.centre_mm[0] - truth.x_mm, d.centre_mm[1] - truth.y_mm) < 10]
        assert len(near) == 1, truth
        assert near[0].pips == truth.pips and near[0].flat == truth.flat


def test_second_chances_are_given_only_about_the_places_a_read_is_told() -> None:
    """BG-ROLL-2: a read where no throw is due (a move's press: ``tilted_near``, the dice
    read before) gives second chances (cocked dice) only about those places: the cocked six
    of throw 1,001,047, found by its second chance, is found when told of a place beside it
    and left unread when told only of the flat five 13 cm away (a checker moved there would
    have cost it the time)."""
    from vision.dice.board import read_board_dice
    from vision.dice.reading import image_to_mm
    from vision.dice.second_chance import TILTED_NEAR_DIES
    from vision.dice.synth import random_dice_scene

    scene = random_dice_scene(1_001_047)
    to_mm = image_to_mm(scene.corners, scene.geometry)
    cocked = next(d for d in scene.dice if not d.flat)
    flat = next(d for d in scene.dice if d.flat)
    beside = (cocked.x_mm + 0.8 * TILTED_NEAR_DIES * scene.geometry.die_size_mm, cocked.y_mm)
    for near, seen in (([beside], {(6, False), (5, True)}), ([(flat.x_mm, flat.y_mm)],
                                                             {(5, True)}), ([], {(5, True)})):
        read = read_board_dice(scene.image, to_mm, scene.geometry, tilted_near=near)
        assert {(d.pips, d.flat) for d in read} == seen, near
