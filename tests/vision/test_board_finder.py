"""The board found without markers or corners: real photographs (boards_dev, GPL, read in
place) against their labelled corners and counts, rendered boards against their true corners,
``locate_board``'s order (corners > markers > found), and pictures with no board in them."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main
from engine.errors import ConfigError
from vision.board_finder import find_board
from vision.board_reader import read_board
from vision.calibration import BoardNotFoundError, locate_board
from vision.config import FinderConfig, vision_config_from_mapping
from vision.geometry import BoardGeometry
from vision.imageio import load_image
from vision.render import random_scene, render_scene

G = BoardGeometry()
CLEAR = ("test10.jpg", "test11.jpg", "test12.jpg")
ORDER = ("top_left", "top_right", "bottom_right", "bottom_left")


def _label(shared_data: Path, name: str) -> dict[str, object]:
    images = json.loads((shared_data / "boards_dev" / "labels.json").read_text())["images"]
    label: dict[str, object] = images[name]
    return label


def _worst(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(np.asarray(a, float) - np.asarray(b, float), axis=1).max())


@pytest.mark.parametrize("name", CLEAR)
def test_a_real_board_is_found_and_read_right(shared_data: Path, name: str) -> None:
    label = _label(shared_data, name)
    img = load_image(shared_data / "boards_dev" / name)
    cal = locate_board(img, G)  # no corners, and the photographs carry no markers
    assert cal.source == "found"
    corners = label["corners"]
    assert isinstance(corners, dict)
    truth = np.array([corners[k] for k in ORDER], float)
    assert _worst(cal.corners, truth) < 10.0  # the labels themselves differ by a few px
    reading = read_board(img, calibration=cal, name=name)
    assert not reading.occluded
    assert [list(c) if c else None for c in reading.slot_counts()] == label["slots"]


@pytest.mark.parametrize("seed", [3, 8, 14, 27])
def test_rendered_boards_are_found_at_their_true_corners(seed: int) -> None:
    frame = render_scene(random_scene(seed, hand_probability=0.0))
    found = find_board(frame.image, G)
    assert _worst(found.corners, frame.corners) < 4.0, frame.spec.scheme.name
    assert found.inlier_share > 0.5


def test_a_rendered_board_with_an_arm_over_it_is_still_found() -> None:
    seed = next(s for s in range(40, 200)
                if random_scene(s, hand_probability=1.0).hands)
    frame = render_scene(random_scene(seed, hand_probability=1.0))
    assert frame.occluded
    found = find_board(frame.image, G)
    assert _worst(found.corners, frame.corners) < 6.0


def test_every_colour_scheme_is_found() -> None:
    seen: set[str] = set()
    for seed in range(300, 400):
        spec = random_scene(seed, hand_probability=0.0, hard=False)
        if spec.scheme.name in seen:
            continue
        seen.add(spec.scheme.name)
        frame = render_scene(spec)
        found = find_board(frame.image, G)
        assert _worst(found.corners, frame.corners) < 4.0, spec.scheme.name
    assert len(seen) == 6


def test_locate_board_prefers_corners_then_markers() -> None:
    frame = render_scene(random_scene(21, hand_probability=0.0, markers=True, hard=False))
    given = locate_board(frame.image, G, frame.corners.astype(np.float32))
    assert given.source == "corners"
    assert locate_board(frame.image, G).source == "markers"
    bare = render_scene(random_scene(21, hand_probability=0.0, markers=False, hard=False))
    found = locate_board(bare.image, G)
    assert found.source == "found"
    assert _worst(found.corners, bare.corners) < 4.0


def test_no_board_is_a_one_line_board_not_found() -> None:
    rng = np.random.default_rng(5)
    pictures = [
        np.full((480, 640, 3), 200, np.uint8),  # blank
        rng.integers(0, 256, (480, 640, 3)).astype(np.uint8),  # noise
        cv2.GaussianBlur(rng.integers(0, 256, (720, 1280, 3)).astype(np.uint8), (0, 0), 6),
        np.zeros((40, 60, 3), np.uint8),  # too small to hold a board
    ]
    stripes = np.zeros((720, 1280, 3), np.uint8)
    stripes[:, ::40] = 255  # straight lines, but not a board's pattern
    pictures.append(cv2.GaussianBlur(stripes, (0, 0), 1.5))
    for picture in pictures:
        with pytest.raises(BoardNotFoundError, match="board not found") as info:
            locate_board(picture, G)
        assert "\n" not in str(info.value)


def test_a_board_cut_off_by_the_picture_is_not_found() -> None:
    frame = render_scene(random_scene(8, hand_probability=0.0))
    x = int(frame.corners[:, 0].min() + 0.4 * np.ptp(frame.corners[:, 0]))
    with pytest.raises(BoardNotFoundError):
        locate_board(np.ascontiguousarray(frame.image[:, x:]), G)


def test_the_finder_thresholds_come_from_the_configuration() -> None:
    config = vision_config_from_mapping({"finder": {"min_inlier_share": 0.99}})
    assert config.finder == FinderConfig(min_inlier_share=0.99)
    frame = render_scene(random_scene(3, hand_probability=0.0))
    with pytest.raises(BoardNotFoundError, match="board not found"):
        locate_board(frame.image, G, finder=config.finder)


def test_vision_read_and_calibrate_find_the_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = render_scene(random_scene(14, hand_probability=0.0))
    photo = tmp_path / "board.jpg"
    photo.write_bytes(frame.jpeg)
    assert main(["vision", "read", str(photo), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    truth = [list(s) for s in frame.contents.slots]
    assert [s if s is None else list(s) for s in out["slots"]] == truth
    assert main(["vision", "calibrate", str(photo), "--out", str(tmp_path / "c.png"),
                 "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["source"] == "found" and info["markers_found"] == []
    assert _worst(np.array(info["corners"]), frame.corners) < 4.0
    assert (tmp_path / "c.png").stat().st_size > 0


def test_per_level_settings_must_match_the_levels() -> None:
    frame = np.zeros((480, 640, 3), np.uint8)
    with pytest.raises(ConfigError, match="one value per level"):
        find_board(frame, G, FinderConfig(levels=(4.0, 1.0)))


def test_fitting_the_lens_finds_the_corners_of_a_distorted_picture() -> None:
    spec = random_scene(70009)  # strong lens distortion (k1 -0.04), no hand
    assert spec.camera.k1 < -0.03 and not spec.hands
    frame = render_scene(spec)
    plain = find_board(frame.image, G)
    lens = find_board(frame.image, G, FinderConfig(lens_from_level=1))
    assert lens.k1 < -0.02  # the same sign as the renderer's
    assert _worst(lens.corners, frame.corners) < 2.5
    assert _worst(lens.corners, frame.corners) < _worst(plain.corners, frame.corners)
