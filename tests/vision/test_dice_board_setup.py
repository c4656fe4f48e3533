"""``vision.dice.board.read_board_dice``'s work about its stages (issue 5: dice must cost little
beside a board reading): when the fast first read takes every place it is given, the full
reader is not started at all, and the dice are those it would have given."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice import board
from vision.dice.board import find_faces, read_board_dice
from vision.dice.candidates import READ_THRESHOLD, scored_raster_candidates
from vision.dice.fast_read import fast_dice
from vision.dice.leaning import beside_checker_scene
from vision.dice.reading import image_to_mm
from vision.dice.train_cocked import LOW_TILT


@pytest.mark.parametrize("thorough", [False, True])
@pytest.mark.parametrize("tilted_near", [None, [(300.0, 200.0)]])
def test_find_faces_with_no_place_reads_nothing(
        thorough: bool, tilted_near: list[tuple[float, float]] | None) -> None:
    # what read_board_dice leaves out when no place is left: no candidate, no second chance
    scene = beside_checker_scene(8_950_001, cocked=True, tilt_range=LOW_TILT)
    to_mm = image_to_mm(scene.corners, scene.geometry)
    assert find_faces(scene.image, to_mm, scene.geometry, spots=False, places=[],
                      thorough=thorough, tilted_near=tilted_near) == []


def test_every_place_read_fast_starts_no_full_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    scene = beside_checker_scene(8_950_001, cocked=True, tilt_range=LOW_TILT)
    g = scene.geometry
    to_mm = image_to_mm(scene.corners, g)
    places = scored_raster_candidates(scene.image, np.linalg.inv(to_mm), g,
                                      threshold=READ_THRESHOLD)
    fast, rest = fast_dice(scene.image, to_mm, g, [(x, y) for x, y, _ in places])
    assert fast
    taken = [p for n, p in enumerate(places) if n not in rest]  # the places read fast only
    want = read_board_dice(scene.image, to_mm, g, places=taken)
    assert [d.pips for d in want] == [d.pips for d in fast]

    def no_reader(*_args: object, **_kwargs: object) -> list[object]:
        raise AssertionError("no place is left for the full reader")

    monkeypatch.setattr(board, "find_faces", no_reader)
    assert read_board_dice(scene.image, to_mm, g, places=taken) == want
