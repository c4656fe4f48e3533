"""The dice reader's faster paths give what the plain numpy and OpenCV calls they stand in for
give, to the last bit (issue 5: the dice read faster with the same readings, BG-ROLL-2)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.dice import face_fit, face_outline, face_pips, fast_read, pip_grid, pose, side_faces
from vision.dice.raster import nonzero_2d
from vision.dice.reading import image_to_mm
from vision.dice.synth import random_dice_scene
from vision.geometry import BoardGeometry


def _dog_like(seed: int, n: int) -> np.ndarray:
    """A float32 patch with blobs of either sign on smooth noise (as a pip-scale DoG)."""
    rng = np.random.default_rng(seed)
    img = cv2.GaussianBlur(rng.normal(0.0, 40.0, (n, n)).astype(np.float32), (0, 0), 1.5)
    for _ in range(12):
        x, y = rng.integers(0, n, 2)
        cv2.circle(img, (int(x), int(y)), int(rng.integers(2, 6)),
                   float(rng.choice([-120.0, 120.0])), -1)
    out: np.ndarray = cv2.GaussianBlur(img, (0, 0), 1.0)
    return out


@pytest.mark.parametrize("rows", [3, 8, 13, 44, 129, 300])
def test_column_means_are_numpys_column_means(rows: int) -> None:
    block = np.random.default_rng(rows).normal(100.0, 30.0, (4, rows, 13)).astype(np.float32)
    want = np.array([[block[k, :, j].mean() for j in range(13)] for k in range(4)])
    assert np.array_equal(pose._column_means(block), want)


def test_bin_means_and_plane_sums_are_numpys() -> None:
    rng = np.random.default_rng(1)
    a = rng.normal(0.5, 0.3, (4, 39, 12, 4, 4)).astype(np.float32)
    assert np.array_equal(side_faces._bin_means(a), a.mean(axis=3))
    b = rng.normal(100.0, 50.0, (4, 39, 48, 3)).astype(np.float32)
    assert np.array_equal(side_faces.sum_planes([b[..., i] for i in range(3)]), b.sum(axis=3))


def test_mean_of_a_few_is_numpys() -> None:
    rng = np.random.default_rng(2)
    for n in range(1, 10):
        values = rng.random(n).tolist()
        assert face_pips.mean_of(values) == float(np.mean(values))


@pytest.mark.parametrize("seed", range(4))
def test_peaks_are_the_dilation_peaks(seed: int) -> None:
    n = 96 if seed % 2 else 144
    dog = _dog_like(seed, n)
    for win in (3, 5, 11):
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (win, win))
        for lo, hi in ((0, n + 1), (8, n - 7)):
            for resp in (dog, -dog):
                peaks = (resp >= cv2.dilate(resp, kernel)) & (resp > 16.0)
                ys, xs = np.nonzero(peaks[lo:hi, lo:hi])
                got_y, got_x = face_pips._peaks(resp, win, lo, hi, 16.0)
                assert np.array_equal(got_y, ys + lo) and np.array_equal(got_x, xs + lo)
                # the negation's peaks found on the patch itself (a dark pip's, on the DoG)
                low_y, low_x = face_pips._peaks(-resp, win, lo, hi, 16.0, low=True)
                assert np.array_equal(low_y, ys + lo) and np.array_equal(low_x, xs + lo)


def test_pips_at_the_patch_edge_are_the_dilation_peaks() -> None:
    dog = _dog_like(11, 96)
    for y, x in ((2, 50), (50, 93), (1, 1)):  # blobs whose element runs off the patch
        cv2.circle(dog, (x, y), 2, 200.0, -1)
        cv2.circle(dog, (95 - x, 95 - y), 2, -200.0, -1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (11, 11))
    for resp, low in ((dog, False), (-dog, True)):
        ys, xs = np.nonzero((resp >= cv2.dilate(resp, kernel)) & (resp > 16.0))
        got_y, got_x = face_pips._peaks(-resp if low else resp, 11, 0, 97, 16.0, low=low)
        assert np.array_equal(got_y, ys) and np.array_equal(got_x, xs)


def _plain_fit(z: np.ndarray, die_mm: float) -> tuple[float, float]:
    """The layout fit of pips about their centre as complex numbers, written plainly: every
    turn a pair suggests, the worst of each pip's and each place's nearest distance."""
    n = len(z)
    i, j = np.triu_indices(n, 1)
    pair = z[j] - z[i]
    base = np.arctan2(pair.imag, pair.real)
    angles = np.concatenate([base, base + math.pi / 4, base - math.pi / 4])
    turned = np.exp(-1j * angles)[:, None] * z[None, :]
    d = np.abs(turned[:, :, None] - face_pips._layout_complex(n, die_mm)[None, None, :])
    residual = np.maximum(d.min(axis=2).max(axis=1), d.min(axis=1).max(axis=1))
    k = int(residual.argmin())
    return float(residual[k]), float(angles[k])


def test_layout_fit_is_the_plain_fit() -> None:
    rng = np.random.default_rng(12)
    for trial in range(600):
        n = 2 + trial % 5
        z = rng.normal(0.0, 4.0, n) + 1j * rng.normal(0.0, 4.0, n)
        if trial % 3 == 0:  # a face's own layout, turned and a little off
            z = face_pips._layout_complex(n, 16.0) * np.exp(1j * rng.uniform(-3, 3)) + (
                rng.normal(0.0, 0.3, n) + 1j * rng.normal(0.0, 0.3, n))
        z = z - z.mean()
        residual, _, _, angle = face_pips._fit_turned(z, 0.0, 0.0, 16.0)
        assert (residual, angle) == _plain_fit(z, 16.0)


def test_edge_steps_are_each_sides_edge_step() -> None:
    rng = np.random.default_rng(13)
    for trial in range(400):
        n = (60, 144)[trial % 2]
        gray = rng.integers(0, 256, (n, n)).astype(np.uint8)
        if trial % 3:
            gray = cv2.GaussianBlur(gray, (0, 0), 2.0)
        lat0 = int(rng.integers(0, n // 2))
        lat1 = lat0 + int(rng.integers(1, n // 2))
        plus, minus = (int(v) for v in rng.integers(1, n - 1, 2))  # some at the edge
        want = [pose._edge_step(gray, slice(lat0, lat1), slice(plus - 1, plus + 2), 1, 0),
                pose._edge_step(gray, slice(lat0, lat1), slice(minus - 1, minus + 2), 1, 0),
                pose._edge_step(gray, slice(plus - 1, plus + 2), slice(lat0, lat1), 0, 1),
                pose._edge_step(gray, slice(minus - 1, minus + 2), slice(lat0, lat1), 0, 1)]
        assert pose._edge_steps(gray, lat0, lat1, plus, minus) == want


def test_outline_steps_in_float64_are_float32s() -> None:
    patch = _dog_like(14, 96)
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    gx64, gy64 = gx.astype(np.float64), gy.astype(np.float64)
    rng = np.random.default_rng(14)
    hypotheses = [(float(x), float(y), float(a)) for x, y, a in
                  zip(rng.uniform(-30, 30, 6), rng.uniform(-30, 30, 6), rng.uniform(-1, 1, 6),
                      strict=True)]  # (some off the patch: clipped)
    assert face_outline.recentre_many(gx64, gy64, hypotheses, 16.0, 2.0) == \
        face_outline.recentre_many(gx, gy, hypotheses, 16.0, 2.0)
    places = [(x, y, a, 45.0) for x, y, a in hypotheses]
    assert face_outline.outlines_at(gx64, gy64, places, 16.0, 2.0) == \
        face_outline.outlines_at(gx, gy, places, 16.0, 2.0)


def test_nonzero_2d_is_nonzero() -> None:
    mask = np.random.default_rng(3).random((37, 53)) > 0.9
    for m in (mask, mask[3:30, 5:40], np.zeros((4, 5), bool)):
        ys, xs = np.nonzero(m)
        got = nonzero_2d(m)
        assert np.array_equal(got[0], ys) and np.array_equal(got[1], xs)


def test_grid_reads_at_several_angles_at_once_are_each_read_alone() -> None:
    dog = _dog_like(5, 96)
    rng = np.random.default_rng(5)
    centres = rng.uniform(-8.0, 8.0, (9, 2))
    angles = rng.uniform(-1.0, 1.0, 9).tolist()
    cos = np.array([math.cos(a) for a in angles])[:, None]
    sin = np.array([math.sin(a) for a in angles])[:, None]
    ks, scores = pip_grid.grid_read_turned(dog, centres, cos, sin, 16.0, 2.0)
    for i, a in enumerate(angles):
        k1, s1 = pip_grid.grid_read_many(dog, centres[i:i + 1], a, 16.0, 2.0)
        assert ks[i] == k1[0] and scores[i] == s1[0]


def test_outline_steps_for_several_centres_are_each_found_alone() -> None:
    patch = _dog_like(6, 96)
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    centres = np.random.default_rng(6).uniform(-6.0, 6.0, (7, 2))
    steps, turns = face_outline._outline_steps(gx, gy, centres[:, 0, None, None, None],
                                           centres[:, 1, None, None, None], 0.0, 16.0, 2.0,
                                           45.0)
    for i, (ox, oy) in enumerate(centres.tolist()):
        edge, angle = face_outline.outline_step(gx, gy, ox, oy, 0.0, 16.0, 2.0, 45.0)
        k = int(np.argmax(steps[i]))
        assert (float(steps[i, k]), float(turns[k])) == (edge, angle)


def test_stacked_ensemble_scores_as_each_member_alone() -> None:
    rng = np.random.default_rng(7)
    members, inputs, hidden = 5, 12, 6
    model = {"mean": rng.normal(size=inputs), "scale": rng.uniform(0.5, 2.0, inputs),
             "w1": rng.normal(size=(members, inputs, hidden)),
             "b1": rng.normal(size=(members, hidden)), "w2": rng.normal(size=(members, hidden)),
             "b2": rng.normal(size=members)}
    rows = rng.normal(size=(4, inputs))
    z = (rows - model["mean"]) / model["scale"]
    want = np.mean([side_faces.pooled_logit(
        np.tanh(z @ model["w1"][e] + model["b1"][e]) @ model["w2"][e] + model["b2"][e])
        for e in range(members)])
    assert side_faces.edge_logit(model, rows) == pytest.approx(want, abs=1e-12)


def test_recentring_several_hypotheses_at_once_is_each_alone() -> None:
    patch = _dog_like(8, 96)
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    rng = np.random.default_rng(8)
    hypotheses = [(float(x), float(y), float(a)) for x, y, a in
                  zip(rng.uniform(-6, 6, 5), rng.uniform(-6, 6, 5), rng.uniform(-1, 1, 5),
                      strict=True)]
    together = face_outline.recentre_many(gx, gy, hypotheses, 16.0, 2.0)
    for h, got in zip(hypotheses, together, strict=True):
        assert face_outline.recentre(gx, gy, *h, 16.0, 2.0) == got


def test_percentiles_are_numpys() -> None:
    rng = np.random.default_rng(9)
    for trial in range(300):
        n = int(rng.integers(1, 1500))
        values = (rng.integers(0, 256, n) if trial % 2 else rng.normal(120.0, 40.0, n)
                  ).astype(np.float32)
        ordered = np.sort(values)
        for q in (10, 90):
            want = np.percentile(values, q)
            got = pose._percentile(ordered, q)
            assert got == want and np.asarray(got).dtype == np.asarray(want).dtype
        assert pose._percentiles(ordered, (10, 90)) == np.percentile(values, [10, 90]).tolist()


def test_outlines_and_reads_at_several_places_are_each_alone() -> None:
    dog = _dog_like(10, 96)
    gx = cv2.Sobel(dog, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(dog, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    rng = np.random.default_rng(10)
    places = [(float(x), float(y), float(a), float(s)) for x, y, a, s in
              zip(rng.uniform(-6, 6, 6), rng.uniform(-6, 6, 6), rng.uniform(-1, 1, 6),
                  [45.0, 9.0, 45.0, 9.0, 9.0, 45.0], strict=True)]
    outlines = face_outline.outlines_at(gx, gy, places, 16.0, 2.0)
    assert outlines == [face_outline.outline_step(gx, gy, x, y, a, 16.0, 2.0, s)
                        for x, y, a, s in places]
    at = [(x, y, angle, edge) for (x, y, _, _), (edge, angle) in zip(places, outlines,
                                                                      strict=True)]
    for got, (x, y, angle, edge) in zip(face_fit._reads_at(dog, at, 16.0, 2.0, 1.0, 0.2), at,
                                        strict=True):
        want = face_fit._read_at(dog, x, y, angle, edge, 16.0, 2.0, 1.0, 0.2)
        assert (got.score, got.dx, got.dy, got.angle, got.value, got.edge) == (
            want.score, want.dx, want.dy, want.angle, want.value, want.edge)
        assert np.array_equal(got.mask, want.mask)


def test_lattice_reads_are_the_grid_reads() -> None:
    # places up to 8 mm off a 40 px patch's centre, some of them off the patch
    dog = _dog_like(7, 40)
    grid = pip_grid.lattice(40, 16.0, 2.0, 0.5, 16, (-20, -5, 0, 35, 90))
    planes = pip_grid.evidence_planes(dog)
    hypotheses = np.random.default_rng(7).integers(0, len(grid.places), 400)
    ks, scores = pip_grid.lattice_read(planes, dog, grid, hypotheses)
    for h, k, score in zip(hypotheses.tolist(), ks, scores, strict=True):
        turn, cx, cy = grid.unpack(h)
        assert grid.hypothesis(turn, round(cx / 0.5), round(cy / 0.5)) == h
        a = np.radians(np.array([[float(turn)]]))
        k1, s1 = pip_grid.grid_read_turned(dog, np.array([[cx, cy]]), np.cos(a), np.sin(a),
                                           16.0, 2.0)
        assert k == k1[0] and score == s1[0]


@pytest.mark.parametrize("count", range(1, 7))
def test_pip_means_are_numpys_means(count: int) -> None:
    rng = np.random.default_rng(count)
    for _ in range(2000):
        a = rng.normal(0.0, 80.0, (count, 1)).astype(np.float32)
        assert pip_grid._mean32(a) == pip_grid._mean32(a[:, 0]) == float(np.mean(a))


def test_near_a_line_is_its_eight_probes() -> None:
    g = BoardGeometry()
    outer = g.outer_rect
    m = fast_read.LINE_MARGIN_MM

    def probes(x: float, y: float) -> bool:
        here = (g.half_at(x, y), g.region_at(x, y).kind)
        return any((g.half_at(x + dx, y + dy), g.region_at(x + dx, y + dy).kind) != here
                   for dx in (-m, 0.0, m) for dy in (-m, 0.0, m))

    # a lattice a quarter mm apart (the edges' and the margin's multiples), and random points
    xs = np.arange(outer.x0 - 6.0, outer.x1 + 6.0, 0.25).tolist()
    ys = np.arange(outer.y0 - 6.0, outer.y1 + 6.0, 4.25).tolist()
    points = [(x, y) for x in xs for y in ys[::7]] + [(x, y) for x in xs[::7] for y in ys]
    rng = np.random.default_rng(8)
    points += rng.uniform((outer.x0 - 6, outer.y0 - 6), (outer.x1 + 6, outer.y1 + 6),
                          (3000, 2)).tolist()
    assert all(fast_read.near_a_line(g, x, y) == probes(x, y) for x, y in points)


def test_part_grey_patches_are_the_whole_grey_s() -> None:
    scene = random_dice_scene(8_700_003)
    from_mm = np.linalg.inv(image_to_mm(scene.corners, scene.geometry))
    gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    part = fast_read.PartGrey(scene.image)
    rng = np.random.default_rng(9)
    # about the board, and off the picture's edges (the warp repeats its edge pixels)
    for x, y in rng.uniform((-150.0, -100.0), (650.0, 550.0), (300, 2)).tolist():
        assert np.array_equal(part.patch(from_mm, x, y, 28.0, 2.0),
                              face_fit.warp_patch(gray, from_mm, x, y, 28.0, 2.0))
