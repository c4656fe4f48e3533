"""Dice in real webcam photos (MIT data set): found, read, any die colour, bad input; and the
pieces that make blurred, touching and obliquely seen dice come out right (pip levels, face
layouts, touching dice, weak pips completing a face)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.errors import ImageError
from tests.conftest import SHARED_DATA
from vision.dice import pips as pips_module
from vision.dice.detect import ONE_RING_SPREAD, DieFinding, blank_around, find_dice
from vision.dice.faces import FIT_MAX, LAYOUTS, group_pips, layout_misfit
from vision.dice.pips import Pip, find_pips
from vision.dice.train import read_labels

HERE = Path(__file__).resolve().parents[1] / "data" / "dice"
SHARED = SHARED_DATA / "dice_photos"  # ../shared, or HAKEM_SHARED
BUNDLED = sorted(HERE.glob("*.jpg"))


def _read(path: Path) -> np.ndarray:
    image = cv2.imread(str(path))
    assert image is not None, path
    return image


def _inside(point: tuple[float, float], box: tuple[float, ...]) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def match(labels: list[tuple[int, tuple[float, ...]]], found: list[DieFinding]
          ) -> tuple[int, int]:
    """(dice found, dice read right): a label is found by a detection whose centre lies in the
    label's box while the label's centre lies in the detection's box."""
    used: set[int] = set()
    hits = right = 0
    for pips, box in labels:
        centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        for i, f in enumerate(found):
            if i not in used and _inside(f.centre, box) and _inside(centre, f.box):
                used.add(i)
                hits += 1
                right += f.pips == pips
                break
    return hits, right


@pytest.mark.parametrize("path", BUNDLED, ids=[p.name for p in BUNDLED])
def test_bundled_photo_read_exactly(path: Path) -> None:
    image = _read(path)
    labels = read_labels(path, image.shape[1], image.shape[0])
    found = find_dice(image)
    hits, right = match(labels, found)
    assert hits == len(labels) == len(found)
    assert right == len(labels)


def test_dark_dice_with_light_pips_read_the_same() -> None:
    """Inverting a photo turns white dice with black pips into black dice with white pips."""
    path = HERE / "valid_86.jpg"
    image = _read(path)
    labels = read_labels(path, image.shape[1], image.shape[0])
    found = find_dice(255 - image)
    hits, right = match(labels, found)
    assert hits == len(labels) and right == len(labels)


def test_boxes_are_ordered_and_confident() -> None:
    image = _read(HERE / "valid_79.jpg")
    found = find_dice(image)
    xs = [f.box[0] for f in found]
    assert xs == sorted(xs)
    for f in found:
        x0, y0, x1, y1 = f.box
        assert 0 <= x0 < x1 <= image.shape[1] and 0 <= y0 < y1 <= image.shape[0]
        assert 0.3 <= f.confidence <= 1.0
        assert set(f.as_json()) == {"box", "pips", "confidence"}


def test_no_dice_on_an_empty_table() -> None:
    """A patch of table cut from a photo, away from every labelled die."""
    image = _read(HERE / "valid_1.jpg")
    labels = read_labels(HERE / "valid_1.jpg", image.shape[1], image.shape[0])
    x1 = int(max(b[2] for _, b in labels)) + 40
    empty = image[:, x1:] if image.shape[1] - x1 > 150 else image[:, : int(
        min(b[0] for _, b in labels)) - 40]
    assert find_dice(np.ascontiguousarray(empty)) == []


def test_bad_arrays_are_image_errors() -> None:
    with pytest.raises(ImageError):
        find_dice(np.zeros((0, 0, 3), np.uint8))
    with pytest.raises(ImageError):
        find_dice(np.zeros((10, 10, 5), np.uint8))


def _split_figures(split: str) -> tuple[int, int, int]:
    """(labelled dice, found, read right) over one split of the shared photos."""
    total = hits = right = 0
    for path in sorted((SHARED / split).glob("*.jpg")):
        image = _read(path)
        labels = read_labels(path, image.shape[1], image.shape[0])
        h, r = match(labels, find_dice(image))
        total += len(labels)
        hits += h
        right += r
    return total, hits, right


@pytest.mark.skipif(not SHARED.exists(), reason="shared dice photos not present")
@pytest.mark.parametrize("split", ["Valid", "Train"])
def test_split_found_and_read(split: str) -> None:
    """The issue's target on both splits (Valid held out from every fit): 98% of the dice
    found, 98% of the found read right."""
    total, hits, right = _split_figures(split)
    assert total > 250
    assert hits / total >= 0.98
    assert right / hits >= 0.98


def _labelled(split: str, name: str) -> tuple[np.ndarray, list[tuple[int, tuple[float, ...]]]]:
    path = SHARED / split / name
    image = _read(path)
    return image, read_labels(path, image.shape[1], image.shape[0])


@pytest.mark.skipif(not SHARED.exists(), reason="shared dice photos not present")
@pytest.mark.parametrize("name", ["three_36.jpg", "three_40.jpg"])
def test_touching_dice_come_apart(name: str) -> None:
    """Two threes touching (their pips once linked into one six) are read as two threes."""
    image, labels = _labelled("Train", name)
    assert match(labels, find_dice(image)) == (len(labels), len(labels))


@pytest.mark.skipif(not SHARED.exists(), reason="shared dice photos not present")
@pytest.mark.parametrize("name", ["three_8.jpg", "three_16.jpg", "four_15.jpg"])
def test_upward_face_not_merged_with_side_face(name: str) -> None:
    """Seen at an angle, the side face's pips below the upward face no longer join its count."""
    image, labels = _labelled("Train", name)
    hits, right = match(labels, find_dice(image))
    assert hits == right == len(labels)


# --- the pieces, on constructed pips ---------------------------------------------------------

def _pip(x: float, y: float, d: float = 8.0) -> Pip:
    return Pip(x, y, np.pi * d * d / 4, d, d, 0.0, 0.9, 0.4, 0.02, 0.8, True)


def _face(n: int, cx: float, cy: float, pitch: float = 14.0) -> list[Pip]:
    return [_pip(cx + pitch * u, cy + pitch * v) for u, v in LAYOUTS[n]] if n > 1 else [
        _pip(cx, cy)]


def test_layout_misfit_accepts_every_face_at_any_angle() -> None:
    rng = np.random.default_rng(5)
    for n in range(3, 7):
        for _ in range(20):
            turn = rng.uniform(0, np.pi)
            tilt = rng.uniform(0.4, 1.0)  # foreshortening of a face seen at an angle
            rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
            points = LAYOUTS[n] @ np.diag([1.0, tilt]) @ rot.T * 20.0 + rng.uniform(0, 400, 2)
            points = points[rng.permutation(n)] + rng.normal(0, 0.2, points.shape)
            assert layout_misfit(points) < 0.05, (n, turn, tilt)


def test_layout_misfit_rejects_pips_of_two_faces() -> None:
    three = LAYOUTS[3] * 12.0
    side = np.array([[-16.0, 34.0], [10.0, 38.0]])  # two pips of the face below, offset
    assert layout_misfit(np.vstack([three, side])) > FIT_MAX
    four = LAYOUTS[4] * 12.0
    assert layout_misfit(np.vstack([four, [[30.0, 2.0]]])) > FIT_MAX  # a fifth pip off-grid
    assert layout_misfit(np.vstack([four, [[-14.0, 40.0], [18.0, 30.0]]])) > FIT_MAX


def _groups(pips: list[Pip], scores: list[float]) -> list[int]:
    return sorted(len(g.pips) for g in group_pips(pips, np.array(scores)))


def test_two_touching_threes_are_two_dice() -> None:
    """Pips of two dice within linking distance of each other: cut at the over-long link."""
    pips = _face(3, 100, 100, pitch=8.0) + _face(3, 100, 148, pitch=8.0)
    assert _groups(pips, [0.9] * 6) == [3, 3]
    assert _groups(_face(6, 100, 100, pitch=8.0), [0.9] * 6) == [6]  # a six's row gap is no cut


def test_upward_three_and_side_pips_are_split() -> None:
    """An upward three linked to two pips of the side face below it: no face's layout."""
    pips = [*_face(3, 100, 100, pitch=8.0), _pip(90, 120), _pip(104, 125)]
    assert layout_misfit(np.array([[p.x, p.y] for p in pips])) > FIT_MAX
    assert _groups(pips, [0.9] * 5) == [2, 3]


def test_a_two_keeps_its_own_pips_when_a_side_pip_joins() -> None:
    """A two linked to one side-face pip is three pips off any three's line: the split keeps
    the two's pips together (the more compact pair), as in Train/two_35.jpg."""
    two = [_pip(331, 149), _pip(358, 143)]
    side = _pip(333, 182)
    groups = group_pips([side, *two], np.array([0.9, 0.9, 0.9]))
    assert sorted(sorted((round(p.x), round(p.y)) for p in g.pips) for g in groups) == [
        [(331, 149), (358, 143)], [(333, 182)]]


def test_a_weak_pip_completes_a_face_but_makes_no_face_alone() -> None:
    six = _face(6, 100, 100)
    scores = [0.9, 0.9, 0.9, 0.9, 0.9, 0.3]  # one blurred pip scores low on its own
    assert _groups(six, scores) == [6]
    assert 6 not in _groups(six, [0.9, 0.9, 0.9, 0.9, 0.9, 0.1])  # under LOW: left out
    lone = [_pip(300, 300), _pip(314, 314), _pip(328, 328)]
    assert _groups(lone, [0.3, 0.3, 0.3]) == []  # no strong pip: no die


def _blurred_six() -> np.ndarray:
    """A white die showing six, pips close together, smeared by motion along the rows."""
    image = np.full((240, 320, 3), 120, np.uint8)
    cv2.rectangle(image, (130, 90), (190, 150), (235, 235, 235), -1)
    for u, v in LAYOUTS[6]:
        cv2.circle(image, (160 + int(10 * v), 120 + int(14 * u)), 3, (30, 30, 30), -1)
    return cv2.GaussianBlur(image, (0, 0), sigmaX=2.5, sigmaY=1.0)


def test_stricter_levels_separate_blurred_pips(monkeypatch: pytest.MonkeyPatch) -> None:
    image = _blurred_six()
    face = [p for p in find_pips(image) if p.dark and 130 < p.x < 190 and 90 < p.y < 150]
    assert len(face) == 6
    monkeypatch.setattr(pips_module, "LEVELS", pips_module.LEVELS[:1])
    loose = [p for p in find_pips(image) if p.dark and 130 < p.x < 190 and 90 < p.y < 150]
    assert len(loose) < 6  # at the loosest level alone the smeared rows run together


def test_a_lone_pip_is_a_one_only_on_a_blank_face() -> None:
    """A dark spot alone on a plain light face reads as a one; the same spot at the border of
    light and dark (a highlight's edge, a side-face pip by the die's outline) is no die."""
    drawn = np.full((240, 320, 3), 110, np.uint8)
    cv2.rectangle(drawn, (40, 80), (100, 140), (235, 235, 235), -1)  # a die showing one
    cv2.circle(drawn, (70, 110), 6, (25, 25, 25), -1)
    cv2.rectangle(drawn, (200, 80), (260, 140), (235, 235, 235), -1)  # a spot at its rim
    cv2.circle(drawn, (206, 110), 6, (25, 25, 25), -1)
    image = cv2.GaussianBlur(drawn, (3, 3), 0)
    gray = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    spots = {round(p.x): p for p in find_pips(image) if p.dark}
    assert blank_around(gray, spots[70]) <= ONE_RING_SPREAD < blank_around(gray, spots[206])
    found = find_dice(image)
    assert [(f.pips, round(f.centre[0])) for f in found] == [(1, 70)]
