"""The table's frame reader learns the checker colours from the starting position (BG-EQ-3),
keeps them for a restart, and tells the sides apart by them afterwards."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from controller.runtime.view import FrameReader
from engine.errors import ConfigError
from vision.config import DEFAULT_CONFIG
from vision.render import BoardContents, ColourScheme, SceneSpec, render_scene
from vision.render.scene import CameraSpec

# Light grey against white: alone on the board, the grey checkers pass for the lighter side.
GREY = ColourScheme("grey-white-wood", (30, 60, 100), (80, 135, 185),
                    ((45, 45, 150), (205, 225, 235)), (28, 55, 95), (165, 168, 170),
                    (240, 242, 243))
START = {0: (5, 0), 4: (3, 0), 6: (5, 0), 23: (2, 0),
         12: (0, 5), 16: (0, 3), 18: (0, 5), 11: (0, 2)}
GREY_ONLY = {3: (4, 0), 9: (5, 0), 15: (5, 0)}


def _frame(slots: dict[int, tuple[int, int]], seed: int,
           off: tuple[int, int] = (0, 0)) -> tuple[np.ndarray, list[float]]:
    contents = BoardContents(tuple(slots.get(i, (0, 0)) for i in range(24)), (0, 0), off)
    frame = render_scene(SceneSpec(contents, GREY, CameraSpec(noise_sigma=2.0), seed=seed))
    return frame.image, [float(v) for v in np.asarray(frame.corners).reshape(-1)]


def _grey_counts(reader: FrameReader, image: np.ndarray) -> list[tuple[int, int]]:
    best = reader.read(image, 0, with_dice=False).board.best_counts()
    assert best is not None
    return [best[0][i] for i in GREY_ONLY]


@pytest.fixture(scope="module")
def frames() -> dict[str, tuple[np.ndarray, list[float]]]:
    return {"start": _frame(START, 8), "later": _frame(GREY_ONLY, 9, off=(0, 15))}


def test_the_colours_are_learned_at_the_start_and_kept_for_a_restart(
    tmp_path: Path, frames: dict[str, tuple[np.ndarray, list[float]]]
) -> None:
    later, corners = frames["later"]
    start, _ = frames["start"]
    store = tmp_path / "colours.json"
    reader = FrameReader(corners=corners, colours_file=store)
    # before the start position is seen: darker/lighter split, grey read as the lighter side
    assert _grey_counts(reader, later) == [(0, 4), (0, 5), (0, 5)]
    reader.read(start, 1, with_dice=False)
    assert reader.learned_colours is not None and store.exists()
    assert _grey_counts(reader, later) == [(4, 0), (5, 0), (5, 0)]
    # a restarted table (mid-match: no starting position to learn from) reads the file
    restarted = FrameReader(corners=corners, colours_file=store)
    assert restarted.learned_colours == reader.learned_colours
    assert _grey_counts(restarted, later) == [(4, 0), (5, 0), (5, 0)]


def test_configured_colours_win_and_nothing_is_learned(
    tmp_path: Path, frames: dict[str, tuple[np.ndarray, list[float]]]
) -> None:
    start, corners = frames["start"]
    config = DEFAULT_CONFIG
    checkers = config.checkers.__class__(**{**config.checkers.__dict__,
                                            "darker_bgr": (20, 20, 20),
                                            "lighter_bgr": (235, 235, 235)})
    fixed = config.__class__(**{**config.__dict__, "checkers": checkers})
    reader = FrameReader(fixed, corners, colours_file=tmp_path / "colours.json")
    reader.read(start, 0, with_dice=False)
    assert reader.learned_colours is None
    assert not (tmp_path / "colours.json").exists()


@pytest.mark.parametrize("text", ["", "{\"darker\": [1, 2]}", "{\"darker\": [1, 2, 3], "
                                  "\"lighter\": [1, 2, 300]}", "[1, 2, 3]"])
def test_a_damaged_colours_file_is_a_config_error(tmp_path: Path, text: str) -> None:
    store = tmp_path / "colours.json"
    store.write_text(text)
    with pytest.raises(ConfigError, match="colours"):
        FrameReader(corners=[0, 0, 10, 0, 10, 10, 0, 10], colours_file=store)


def test_a_new_match_forgets_the_last_matchs_colours(tmp_path: Path) -> None:
    from controller.runtime.session import colours_store

    stale = tmp_path / "colours.json"
    stale.write_text('{"darker": [1, 2, 3], "lighter": [200, 200, 200]}')
    assert colours_store(tmp_path, resuming=True) == stale and stale.exists()
    assert colours_store(tmp_path, resuming=False) == stale and not stale.exists()
