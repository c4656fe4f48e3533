"""The cocked model's training (``vision.dice.train_cocked``): moved copies of each patch.

The model must judge a die the same when the face fit's centre is a pixel or two off
(BG-ROLL-2 must not hang on a quarter of a millimetre), so training also judges each patch
moved; the copies are fitted on with the row they copy and never held out, where they would
flatter the held-out rates.
"""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice import face_check, train_cocked
from vision.dice.pose import FEATURE_COUNT
from vision.dice.train_cocked import collect, fit_with_threshold, jittered, shifted


def test_a_shifted_patch_moves_its_contents_and_nothing_else() -> None:
    """Moved by whole pixels the patch is the same pixels one place over; moved by nothing it
    is the very patch."""
    patch = np.random.default_rng(3).integers(0, 256, (144, 144, 3), dtype=np.uint8)
    assert np.array_equal(shifted(patch, 0.0, 0.0), patch)
    assert np.array_equal(shifted(patch, 1.0, 0.0)[:, 1:], patch[:, :-1])
    assert np.array_equal(shifted(patch, 0.0, -2.0)[:-2], patch[2:])


def test_training_judges_moved_copies_of_every_face_and_puts_the_reader_back() -> None:
    """One throw beside a checker: each face's row has two moved copies, pointing at it, near
    but not equal to it; ``face_check.pose_features`` is the reader's own again afterwards, also
    after an error."""
    before = face_check.__dict__["pose_features"]
    rows = collect(0, 1, spots=False, copies=2)
    assert face_check.__dict__["pose_features"] is before
    n = len(rows["labels"])
    assert n > 0 and rows["pose"].shape == (n, FEATURE_COUNT)
    assert rows["moved_pose"].shape == (2 * n, FEATURE_COUNT)
    assert sorted(rows["moved_source"].tolist()) == sorted(list(range(n)) * 2)
    for copy, source in zip(rows["moved_pose"], rows["moved_source"], strict=True):
        assert not np.array_equal(copy, rows["pose"][source])
        assert np.isfinite(copy).all()
    with pytest.raises(RuntimeError), jittered(1, np.random.default_rng(0), {}):
        assert face_check.__dict__["pose_features"] is not before
        raise RuntimeError("put back on errors too")
    assert face_check.__dict__["pose_features"] is before


def test_no_copies_means_the_rows_as_before() -> None:
    """``copies=0``: no moved rows, and the faces' own rows unchanged by the jitter."""
    plain = collect(0, 1, spots=False, copies=0)
    moved = collect(0, 1, spots=False, copies=2)
    assert len(plain["moved_source"]) == 0
    assert np.array_equal(plain["pose"], moved["pose"])
    assert np.array_equal(plain["labels"], moved["labels"])


def test_copies_are_fitted_with_their_rows_and_never_held_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The network is fitted on the 70% of rows and exactly the copies of those; the
    threshold is chosen on the other 30% alone (a copy of a held-out row would be seen in
    fitting, and a copy held out would be judged twice)."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(100, 3))
    y = (x[:, 0] > 0).astype(float)
    source = np.repeat(np.arange(100), 2)
    extra = (x[source] + 1000.0 * (1 + np.arange(200))[:, None], source)  # each copy its own
    seen: dict[str, np.ndarray] = {}

    def fit(fx: np.ndarray, fy: np.ndarray, **_: object) -> dict[str, object]:
        seen["x"], seen["y"] = fx, fy
        return {"mean": [0.0] * 3, "scale": [1.0] * 3, "w1": np.zeros((3, 1)).tolist(),
                "b1": [0.0], "w2": [1.0], "b2": 0.0}

    monkeypatch.setattr(train_cocked, "fit_mlp", fit)
    model = fit_with_threshold(x, y, hidden=1, l2=0.0, epochs=1, extra=extra)
    originals = seen["x"][np.abs(seen["x"]).max(axis=1) < 900]
    copies = seen["x"][np.abs(seen["x"]).max(axis=1) >= 900]
    assert len(originals) == 70 and len(copies) == 140
    fitted = {tuple(r) for r in originals}
    for row, label in zip(seen["x"], seen["y"], strict=True):
        if abs(row).max() >= 900:
            k = int(np.argmin(np.abs(extra[0] - row).sum(axis=1)))
            assert tuple(x[source[k]]) in fitted
            assert label == y[source[k]]
    assert model["rows"] == 100 and model["moved_rows"] == 200



def test_the_rows_do_not_depend_on_how_many_processes_render_them() -> None:
    """Each throw moves its patches by a generator of its own seed, so two processes give the
    very rows one gives, in the same order (a model refitted on a faster machine is the same
    model)."""
    one = collect(0, 1, 0, 0, 0, 1, spots=False, copies=1, workers=1)
    two = collect(0, 1, 0, 0, 0, 1, spots=False, copies=1, workers=2)
    assert set(one) == set(two)
    for key in one:
        assert np.array_equal(one[key], two[key]), key
    assert set(one["kinds"].tolist()) == {1, 6}


def test_the_two_newest_kinds_lean_where_they_say() -> None:
    """Kind 6 leans a die on the rail (or lays it flat beside it) whatever checkers the half
    holds; kind 7 leans a one, two or three on something above it in the picture."""
    g = train_cocked.training_scene(6, train_cocked.RAIL_SEED0 + 1).geometry
    for seed in range(train_cocked.RAIL_SEED0, train_cocked.RAIL_SEED0 + 6):
        die = train_cocked.training_scene(6, seed).dice[1]
        assert min(die.y_mm, g.height_mm - die.y_mm) < 16.0
        assert die.flat == (seed % 4 == 0)
    for seed in range(train_cocked.FACING_SEED0, train_cocked.FACING_SEED0 + 4):
        scene = train_cocked.training_scene(7, seed)
        first, second = scene.dice
        assert first.flat and not second.flat and second.pips in (1, 2, 3)
        prop = scene.frame.spec.props[1] if scene.frame else None
        assert prop is not None and prop.tilt_axis_deg == 0.0  # type: ignore[attr-defined]


def test_the_bar_lets_few_flat_dice_through_pooled_and_of_each_kind() -> None:
    """``false_bar``: at most ``pooled`` of all flat dice above the bar, and at most ``each``
    of every kind's; without ``each``, ``pooled`` of every kind's (the rule before)."""
    from vision.dice.train_cocked import false_bar

    rng = np.random.default_rng(5)
    p = np.concatenate([rng.uniform(0.0, 0.5, 1000), rng.uniform(0.0, 0.5, 100)])
    p[[3, 4, 5]] = [0.9, 0.8, 0.7]  # kind 0's three most cocked-looking flat dice
    p[[1000, 1001]] = [0.95, 0.6]  # kind 1's two
    kinds = np.array([0] * 1000 + [1] * 100)
    flat = np.ones(len(p), bool)

    def through(bar: float, kind: int | None = None) -> float:
        of = flat if kind is None else flat & (kinds == kind)
        return float(np.mean(p[of] >= bar))

    each = false_bar(p, flat, kinds, 0.005, 0.015)
    assert through(each) <= 0.005 and all(through(each, k) <= 0.015 for k in (0, 1))
    assert through(each - 1e-3) > 0.005 or through(each - 1e-3, 1) > 0.015  # the lowest such
    strict = false_bar(p, flat, kinds, 0.005)
    assert through(strict, 1) <= 0.005 and strict > each  # kind 1's two set it alone
