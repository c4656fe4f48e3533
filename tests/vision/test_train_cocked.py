"""The cocked model's training (``vision.dice.train_cocked``): moved copies of each patch.

The model must judge a die the same when the face fit's centre is a pixel or two off
(BG-ROLL-2 must not hang on a quarter of a millimetre), so training also judges each patch
moved; the copies are fitted on with the row they copy and never held out, where they would
flatter the held-out rates.
"""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice import board, train_cocked
from vision.dice.pose import FEATURE_COUNT
from vision.dice.train_cocked import _jittered, collect, fit_with_threshold, shifted


def test_a_shifted_patch_moves_its_contents_and_nothing_else() -> None:
    """Moved by whole pixels the patch is the same pixels one place over; moved by nothing it
    is the very patch."""
    patch = np.random.default_rng(3).integers(0, 256, (144, 144, 3), dtype=np.uint8)
    assert np.array_equal(shifted(patch, 0.0, 0.0), patch)
    assert np.array_equal(shifted(patch, 1.0, 0.0)[:, 1:], patch[:, :-1])
    assert np.array_equal(shifted(patch, 0.0, -2.0)[:-2], patch[2:])


def test_training_judges_moved_copies_of_every_face_and_puts_the_reader_back() -> None:
    """One throw beside a checker: each face's row has two moved copies, pointing at it, near
    but not equal to it; ``board.pose_features`` is the reader's own again afterwards, also
    after an error."""
    before = board.__dict__["pose_features"]
    rows = collect(0, 1, spots=False, copies=2)
    assert board.__dict__["pose_features"] is before
    n = len(rows["labels"])
    assert n > 0 and rows["pose"].shape == (n, FEATURE_COUNT)
    assert rows["moved_pose"].shape == (2 * n, FEATURE_COUNT)
    assert sorted(rows["moved_source"].tolist()) == sorted(list(range(n)) * 2)
    for copy, source in zip(rows["moved_pose"], rows["moved_source"], strict=True):
        assert not np.array_equal(copy, rows["pose"][source])
        assert np.isfinite(copy).all()
    with pytest.raises(RuntimeError), _jittered(1, np.random.default_rng(0), {}):
        assert board.__dict__["pose_features"] is not before
        raise RuntimeError("put back on errors too")
    assert board.__dict__["pose_features"] is before


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

