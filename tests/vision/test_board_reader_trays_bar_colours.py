"""Borne-off checkers read in the trays, bar hinges not taken for checkers, checkers laid
over full columns (sixth to eighth on a point), and checker colours learned from the starting
position (BG-EQ-3) or taken from configuration."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.board_reader import read_board, start_colours, with_colours
from vision.config import DEFAULT_CONFIG
from vision.render import SCHEMES, BoardContents, ColourScheme, SceneSpec, render_scene
from vision.render.scene import CameraSpec


def _contents(slots: dict[int, tuple[int, int]], bar: tuple[int, int] = (0, 0),
              off: tuple[int, int] = (0, 0)) -> BoardContents:
    return BoardContents(tuple(slots.get(i, (0, 0)) for i in range(24)), bar, off)


def _scheme(name: str) -> ColourScheme:
    return next(s for s in SCHEMES if s.name == name)


# Light grey against white checkers: alone on the board, the grey ones look light.
GREY = ColourScheme("grey-white-wood", (30, 60, 100), (80, 135, 185),
                    ((45, 45, 150), (205, 225, 235)), (28, 55, 95), (165, 168, 170),
                    (240, 242, 243))

# Each side 15 checkers: 2, 5, 3 and 5 on four points (BG-EQ-3), in image slot order.
START = {0: (5, 0), 4: (3, 0), 6: (5, 0), 23: (2, 0),
         12: (0, 5), 16: (0, 3), 18: (0, 5), 11: (0, 2)}


@pytest.mark.parametrize(("scheme", "off", "seed"), [
    ("gold-white-cream", (3, 7), 1),
    ("black-white-wood", (0, 12), 2),
    ("red-white-olive", (6, 0), 3),
])
def test_borne_off_checkers_are_counted_in_the_trays(scheme: str, off: tuple[int, int],
                                                     seed: int) -> None:
    on_board: dict[int, tuple[int, int]] = {}
    for colour, slots in ((0, (1, 3, 5)), (1, (14, 18, 22))):
        left = 15 - off[colour]
        for i in slots:  # five to a point at most, in one layer
            n = min(5, left)
            if n:
                on_board[i] = (n, 0) if colour == 0 else (0, n)
            left -= n
    spec = SceneSpec(_contents(on_board, off=off), _scheme(scheme),
                     CameraSpec(noise_sigma=2.0, jpeg_quality=85), seed=seed,
                     darker_at_bottom=seed % 2 == 0)
    frame = render_scene(spec)
    reading = read_board(frame.image, corners=frame.corners, dice=False)
    assert reading.off_probs is not None  # both trays are in the picture
    assert reading.off_in_trays() == off
    assert reading.off() == off  # what the board lacks agrees
    assert reading.to_json()["off_trays"] == list(off)


def test_without_both_trays_in_sight_off_is_what_the_board_lacks() -> None:
    spec = SceneSpec(_contents({2: (5, 0), 7: (5, 0), 14: (0, 5), 17: (0, 5), 20: (0, 5)},
                               off=(5, 0)),
                     _scheme("gold-white-wood"),
                     CameraSpec(playing_width_px=700.0, centre_px=(400.0, 360.0)), seed=4)
    frame = render_scene(spec)
    reading = read_board(frame.image, corners=frame.corners, dice=False)
    assert reading.off_in_trays() is None
    assert reading.to_json()["off_trays"] is None
    assert reading.off() == (5, 0)


@pytest.mark.parametrize("scheme", [s.name for s in SCHEMES])
def test_an_empty_bar_with_its_hinges_holds_no_checker(scheme: str) -> None:
    spec = SceneSpec(_contents({0: (5, 0), 13: (0, 5)}), _scheme(scheme),
                     CameraSpec(noise_sigma=2.0), seed=5)
    frame = render_scene(spec)
    reading = read_board(frame.image, corners=frame.corners, dice=False)
    assert reading.bar.counts == (0, 0)


@pytest.mark.parametrize("scheme", ["red-white-olive", "maroon-white-red", "gold-white-wood"])
def test_checkers_laid_over_a_full_column_are_counted(scheme: str) -> None:
    """The sixth, seventh and eighth checkers on a point lie over the column (marbled
    checkers, whose streaks cross every checker's middle, included)."""
    slots = {2: (5, 0), 5: (6, 0), 8: (7, 0), 14: (0, 8), 17: (0, 6), 21: (0, 5)}
    wrong = []
    for seed in (6, 7):
        spec = SceneSpec(_contents(slots), _scheme(scheme),
                         CameraSpec(noise_sigma=2.0, jpeg_quality=88), seed=seed)
        frame = render_scene(spec)
        reading = read_board(frame.image, corners=frame.corners, dice=False)
        counts = reading.slot_counts()
        wrong += [(seed, i, counts[i]) for i in slots if counts[i] != slots[i]]
    # measured: all 12 right on the plain schemes; a sixth marbled checker is at times
    # missed (the evaluation's remaining errors), never more than one here
    assert len(wrong) <= (1 if scheme != "gold-white-wood" else 0), wrong


def test_colours_are_learned_from_the_starting_position_and_used_afterwards() -> None:
    start = render_scene(SceneSpec(_contents(START), GREY, CameraSpec(noise_sigma=2.0), seed=8))
    reading = read_board(start.image, corners=start.corners, dice=False)
    colours = start_colours(reading)
    assert colours is not None
    darker, lighter = (np.array(c, float) for c in colours)
    assert darker.sum() < lighter.sum()
    # a later frame with only the grey side on the board: by itself, light grey passes for
    # the lighter colour; with the colours learned it is the darker side
    later = render_scene(SceneSpec(_contents({3: (4, 0), 9: (5, 0), 15: (5, 0)}, off=(0, 15)),
                                   GREY, CameraSpec(noise_sigma=2.0), seed=9))
    alone = read_board(later.image, corners=later.corners, dice=False).slot_counts()
    assert (alone[3], alone[9], alone[15]) == ((0, 4), (0, 5), (0, 5))
    config = with_colours(DEFAULT_CONFIG, colours)
    counts = read_board(later.image, corners=later.corners, config=config,
                        dice=False).slot_counts()
    assert (counts[3], counts[9], counts[15]) == ((4, 0), (5, 0), (5, 0))


def test_no_colours_are_learned_from_another_position() -> None:
    slots = dict(START)
    slots[0], slots[1] = (4, 0), (1, 0)
    frame = render_scene(SceneSpec(_contents(slots), _scheme("black-white-wood"),
                                   CameraSpec(noise_sigma=2.0), seed=10))
    reading = read_board(frame.image, corners=frame.corners, dice=False)
    assert reading.slot_counts()[1] == (1, 0)
    assert start_colours(reading) is None


def test_vision_read_learns_the_colours_from_a_starting_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``hakem vision read`` with several pictures: the colours seen in the first one that
    shows the starting position are used for the pictures after it."""
    from controller.cli import main

    camera = CameraSpec(noise_sigma=2.0)
    start = render_scene(SceneSpec(_contents(START), GREY, camera, seed=12))
    later = render_scene(SceneSpec(_contents({3: (4, 0), 9: (5, 0), 15: (5, 0)}, off=(0, 15)),
                                   GREY, camera, seed=13))
    paths = []
    for name, frame in (("start.jpg", start), ("later.jpg", later)):
        path = tmp_path / name
        path.write_bytes(frame.jpeg)
        paths.append(str(path))
    corners = ",".join(f"{v:.2f}" for v in start.corners_flat)
    assert np.allclose(start.corners, later.corners)
    code = main(["vision", "read", *paths, "--corners", corners, "--json"])
    out = capsys.readouterr().out.strip().splitlines()
    assert code == 0 and len(out) == 2
    first, second = (json.loads(line) for line in out)
    assert [first["slots"][i] for i in (0, 12, 23, 11)] == [[5, 0], [0, 5], [2, 0], [0, 2]]
    assert [second["slots"][i] for i in (3, 9, 15)] == [[4, 0], [5, 0], [5, 0]]
