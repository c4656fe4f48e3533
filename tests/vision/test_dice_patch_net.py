"""The patch network's second opinion on cocked dice (BG-ROLL-2: a cocked die means the throw
is made again; ``vision.dice.patch_net``), its veto, and its fitting
(``vision.dice.train_patch``)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from vision.dice import patch_net
from vision.dice.patch_net import (
    LAYERS,
    PATCH_PX,
    Trace,
    columns,
    forward,
    from_aligned,
    joint_logit,
    normalise,
    patch_model,
    shapes,
    with_patch,
)
from vision.dice.pose import cocked_threshold
from vision.dice.train_patch import (
    backward,
    choose_bar,
    initial_weights,
    symmetry,
    veto_lines,
)


def _naive_forward(weights: list[np.ndarray], x: np.ndarray) -> np.ndarray:
    """The network written out place by place: each convolution's sum over its kernel."""
    a = x.astype(np.float64)
    for i, (k, cin, cout) in enumerate(LAYERS):
        kernel = weights[2 * i].astype(np.float64).reshape(k, k, cin, cout)
        pad = k // 2
        ap = np.pad(a, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
        ho, wo = (a.shape[1] + 1) // 2, (a.shape[2] + 1) // 2
        out = np.zeros((len(a), ho, wo, cout))
        for r in range(ho):
            for c in range(wo):
                window = ap[:, 2 * r:2 * r + k, 2 * c:2 * c + k, :]
                out[:, r, c] = np.einsum("nijc,ijco->no", window, kernel)
        a = np.maximum(out + weights[2 * i + 1], 0)
    top = 2 * len(LAYERS)
    h = np.tanh(a.reshape(len(a), -1) @ weights[top] + weights[top + 1])
    result: np.ndarray = h @ weights[top + 2] + weights[top + 3][0]
    return result


def test_forward_is_the_network_written_out() -> None:
    rng = np.random.default_rng(3)
    weights = initial_weights(rng)
    x = rng.normal(0, 1, (2, PATCH_PX, PATCH_PX, 3)).astype(np.float32)
    assert np.allclose(forward(weights, x), _naive_forward(weights, x), atol=1e-4)


def test_columns_take_every_second_place_with_zero_padding() -> None:
    x = np.arange(2 * 6 * 6 * 2, dtype=np.float32).reshape(2, 6, 6, 2)
    rows, (n, ho, wo) = columns(x, 3)
    assert (n, ho, wo) == (2, 3, 3)
    window = rows.reshape(2, 3, 3, 3, 3, 2)
    assert np.array_equal(window[1, 1, 2], x[1, 1:4, 3:6])  # centred on (2, 4)
    assert np.array_equal(window[0, 0, 0, 0], np.zeros((3, 2)))  # the top padding row
    assert np.array_equal(window[0, 0, 0, 1:, 1:], x[0, 0:2, 0:2])


@pytest.mark.parametrize("outputs", [1, 6])
def test_backward_matches_finite_differences(outputs: int) -> None:
    # one logit (the cocked network, logistic loss) or six (vision.dice.upward_net's faces,
    # softmax cross-entropy)
    from vision.dice.upward_net import probabilities

    rng = np.random.default_rng(5)
    weights = [w.astype(np.float64) for w in initial_weights(rng, outputs)]
    x = rng.normal(0, 1, (3, PATCH_PX, PATCH_PX, 3))
    y = np.array([1.0, 0.0, 1.0]) if outputs == 1 else np.eye(outputs)[[1, 0, 5]]

    def loss(ws: list[np.ndarray]) -> float:
        z = forward(ws, x)
        if outputs > 1:
            return float(-(np.log(probabilities(z)) * y).sum())
        return float(np.sum(y * np.logaddexp(0, -z) + (1 - y) * np.logaddexp(0, z)))

    trace = Trace([], np.empty(0), np.empty(0))
    z = forward(weights, x, trace)
    grads = backward(weights, trace,
                     probabilities(z) - y if outputs > 1 else 1 / (1 + np.exp(-z)) - y)
    for i in range(len(weights)):
        at = tuple(int(rng.integers(0, s)) for s in weights[i].shape)
        weights[i][at] += 1e-5
        up = loss(weights)
        weights[i][at] -= 2e-5
        down = loss(weights)
        weights[i][at] += 1e-5
        assert (up - down) / 2e-5 == pytest.approx(float(grads[i][at]), rel=1e-3, abs=1e-7)


def test_the_eight_symmetries_are_distinct_and_keep_the_centre() -> None:
    x = np.random.default_rng(1).integers(0, 255, (1, 8, 8, 1))
    seen = {symmetry(x, t).tobytes() for t in range(8)}
    assert len(seen) == 8


def test_the_network_patch_is_the_aligned_patch_halved_and_cropped() -> None:
    aligned = np.zeros((144, 144, 3), np.uint8)
    aligned[70:74, 70:74] = 200  # a mark at the centre stays at the centre
    patch = from_aligned(aligned)
    assert patch.shape == (PATCH_PX, PATCH_PX, 3)
    assert patch[31:33, 31:33].min() == 200 and patch[:30].max() == 0


def test_normalise_takes_each_patch_about_its_face_colour() -> None:
    patch = np.full((2, PATCH_PX, PATCH_PX, 3), 120, np.uint8)
    patch[1] = 40
    patch[:, :4] = 184
    x = normalise(patch)
    assert np.allclose(x[0, 32], 0) and np.allclose(x[1, 32], 0)
    assert np.allclose(x[0, 0], 1.0) and np.allclose(x[1, 0], 2.25)


def test_normalise_is_each_channel_less_its_np_median_exactly() -> None:
    # seeded patches whose face square holds few levels; the first's, two levels in equal
    # numbers, so that its medians fall between them (x.5)
    rng = np.random.default_rng(11)
    patches = rng.integers(0, 256, (4, PATCH_PX, PATCH_PX, 3), dtype=np.uint8)
    patches[:, 22:42, 22:42] = rng.integers(100, 104, (4, 20, 20, 3))
    patches[0, 22:42, 22:42] = 100 + rng.permutation((np.arange(1200) % 2).reshape(400, 3)
                                                     ).reshape(20, 20, 3)
    x = patches.astype(np.float32)
    med = np.median(x[:, 22:42, 22:42], axis=(1, 2))
    assert np.any(med % 1 == 0.5)
    want = (x - med[:, None, None, :]) / np.float32(64)
    assert np.array_equal(normalise(patches), want)


@pytest.mark.parametrize("outputs", [1, 10])
def test_forward_without_a_trace_is_forward_with_one_bit_for_bit(outputs: int) -> None:
    # the reader's calls (no trace: the ReLU written over the pre-activation) and the
    # training's (traced) give the same logits, batch by batch, and the trace keeps each
    # pre-activation whole
    rng = np.random.default_rng(12)
    weights = initial_weights(rng, outputs)
    for n in (1, 2, 5):
        x = normalise(rng.integers(0, 256, (n, PATCH_PX, PATCH_PX, 3), dtype=np.uint8))
        trace = Trace([], np.empty(0), np.empty(0))
        traced = forward(weights, x, trace)
        assert np.array_equal(forward(weights, x), traced)
        rows, _shape, z = trace.convs[0]
        assert np.array_equal(z, rows @ weights[0] + weights[1]) and z.min() < 0


def test_with_patch_only_lifts_dice_over_the_bar() -> None:
    threshold = 0.84
    assert with_patch(0.3, joint=1.9, bar=2.0, threshold=threshold) == 0.3
    at_bar = with_patch(0.3, joint=2.0, bar=2.0, threshold=threshold)
    assert at_bar >= threshold
    above = with_patch(0.3, joint=4.0, bar=2.0, threshold=threshold)
    assert above > at_bar
    assert math.log(above / (1 - above)) == pytest.approx(
        math.log(threshold / (1 - threshold)) + 2.0)
    assert joint_logit(0.5, 3.0) == pytest.approx(1.5)


def test_choose_bar_keeps_flat_dice_within_the_shares() -> None:
    # 200 flat dice of one kind (joint -5 .. 4.95), 10 cocked; at most 0.8% (1 die) of the
    # flat dice may be called cocked in all, the profile model's calls counted
    joint = np.concatenate([np.linspace(-5, 4.95, 200), np.full(10, 6.0)])
    cocked = np.array([0] * 200 + [1] * 10)
    p = np.zeros(210)
    kinds = np.zeros(210, int)
    bar = choose_bar(joint, p, cocked, kinds, 0.84)
    assert ((cocked == 0) & (joint >= bar)).sum() == 1 and joint[198] < bar <= joint[199]
    p[0] = 0.9  # the profile model calls one flat die cocked already: the bar adds none
    bar = choose_bar(joint, p, cocked, kinds, 0.84)
    assert ((cocked == 0) & ((p >= 0.84) | (joint >= bar))).sum() == 1 and bar > 4.95
    # a second kind of 100 flat dice: the share is 0.8% of 300 (2 dice), and 1.5% of a kind
    # (1 die of the second kind's 100) may be added by the bar
    joint = np.concatenate([joint, np.linspace(4.96, 5.5, 100)])
    cocked = np.concatenate([cocked, np.zeros(100, int)])
    p, kinds = np.zeros(310), np.concatenate([kinds, np.ones(100, int)])
    bar = choose_bar(joint, p, cocked, kinds, 0.84)
    called = (cocked == 0) & (joint >= bar)
    assert called.sum() == 1 and called[-1]


def test_the_shipped_model_loads_with_its_bar_and_figures() -> None:
    model = patch_model()
    assert model is not None
    assert [w.shape for w in model.weights] == shapes()
    assert math.isfinite(model.bar)
    with np.load(patch_net.PATCH_MODEL) as data:
        shown = json.loads(str(data["figures"]))
    # on the check throws (neither model saw them) the pair catches more cocked dice than the
    # profile model alone and calls at most 0.8% of the flat dice cocked
    assert shown["cocked_caught"] > shown["cocked_caught_alone"]
    assert shown["flat_called_cocked"] <= 0.008
    # board texture the die model may let through: hardly any more of it looks cocked
    assert shown["texture_called_cocked"] <= shown["texture_called_cocked_alone"] + 0.002 * (
        shown["texture"])
    assert cocked_threshold() > 0.5


def test_a_cocked_die_the_profile_model_reads_flat_is_caught_with_the_network(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a check throw of the table camera's kind (neither model was fitted on it): the five
    # leans on a checker; the profile model alone gives it 0.19, the pair calls it cocked
    from vision.dice import board
    from vision.dice.board_die import BoardDie
    from vision.dice.reading import image_to_mm
    from vision.dice.train_cocked import training_scene

    scene = training_scene(2, 3_050_056)
    to_mm = image_to_mm(scene.corners, scene.geometry)
    truth = {(d.pips, d.flat) for d in scene.dice}
    assert truth == {(6, True), (5, False)}

    def read() -> dict[int, BoardDie]:
        return {d.pips: d for d in board.read_board_dice(scene.image, to_mm, scene.geometry)}

    both = read()
    assert not both[5].flat and both[5].p_cocked >= cocked_threshold()
    assert both[6].flat
    monkeypatch.setattr(board, "patch_model", lambda: None)
    alone = read()
    assert alone[5].flat and alone[5].p_cocked < 0.5
    assert alone[6].p_cocked == both[6].p_cocked  # a flat die's probability is left as it was


def test_a_flat_die_the_profile_model_calls_cocked_is_left_in_doubt_by_the_network(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a check throw beside a checker (neither model was fitted on it): the profile model
    # calls the flat one cocked (p 0.95), the network is sure it is flat (logit -6.6)
    from vision.dice import board, fast_read
    from vision.dice.board_die import BoardDie
    from vision.dice.reading import image_to_mm
    from vision.dice.train_cocked import training_scene

    scene = training_scene(1, 2_050_105)
    to_mm = image_to_mm(scene.corners, scene.geometry)
    assert {(d.pips, d.flat) for d in scene.dice} == {(5, True), (1, True)}
    # the fast first read takes this die as flat at once; the veto is the full reader's
    monkeypatch.setattr(fast_read, "fast_model", lambda: None)

    def one() -> BoardDie:
        dice = board.read_board_dice(scene.image, to_mm, scene.geometry)
        return next(d for d in dice if d.pips == 1)

    threshold = cocked_threshold()
    vetoed = one()
    assert vetoed.flat and vetoed.patch_logit is not None
    assert vetoed.patch_logit < board.PATCH_VETO
    assert 0.5 <= vetoed.p_cocked < threshold  # flat, but in doubt: the referee looks again
    monkeypatch.setattr(board, "PATCH_VETO", vetoed.patch_logit - 0.1)
    assert not one().flat  # the profile model's own call, under a lower veto
    monkeypatch.setattr(board, "patch_model", lambda: None)
    alone = one()
    assert not alone.flat and alone.p_cocked >= threshold and alone.patch_logit is None


def test_the_veto_table_counts_the_profile_models_cocked_calls() -> None:
    z = np.array([-5.0, -3.0, 1.0, -2.5, 4.0, -7.0])
    p = np.array([0.9, 0.95, 0.9, 0.9, 0.9, 0.2])  # the last is read flat: not counted
    cocked = np.array([0, 0, 0, 1, 1, 1])
    lines = veto_lines(z, p, cocked, 0.84)
    assert lines[0].endswith("(3 flat), the lowest logit of a cocked one is -2.50")
    assert "veto -4.0: flat read flat 1/3, cocked read flat 0/2" in lines
    assert "veto -2.0: flat read flat 2/3, cocked read flat 1/2" in lines


def test_fitting_writes_a_model_the_reader_loads(tmp_path: Path) -> None:
    from vision.dice import train_patch

    out = tmp_path / "model.npz"
    cache = tmp_path / "cache"
    args = ["--train", "2,0,0,0,0,0,0", "--check", "2,0,0,0,0,0,0", "--epochs", "1",
            "--workers", "1", "--cache", str(cache), "--out", str(out)]
    assert train_patch.main(args) == 0
    with np.load(cache / "train.npz") as rows:
        assert rows["patches"].shape[1:] == (PATCH_PX, PATCH_PX, 3)
        assert set(rows["labels"].tolist()) <= {0, 1, 2} and (rows["labels"] > 0).sum() >= 3
        assert set(rows["seeds"].tolist()) == {1_000_000, 1_000_001}
    with np.load(out) as data:
        assert [data[f"w{i}"].shape for i in range(len(shapes()))] == shapes()
        assert math.isfinite(float(data["bar"]))
        assert json.loads(str(data["figures"]))["cocked"] + json.loads(
            str(data["figures"]))["flat"] >= 1


def test_fitting_refuses_counts_it_cannot_use(capsys: pytest.CaptureFixture[str]) -> None:
    from vision.dice import train_patch

    with pytest.raises(SystemExit) as stop:
        train_patch.main(["--train", "1,2,3"])
    assert stop.value.code == 2
    assert "seven throw counts" in capsys.readouterr().err
