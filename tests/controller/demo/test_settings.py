"""A demo's output folder keeps the options its script was made from (``demo.json``,
``controller.demo.harness.pin_settings``): a resumed run must be given the same ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.demo.harness import pin_settings
from engine.errors import ConfigError

SETTINGS = {"--game": "backgammon", "--illegal": "2", "--seed": "0"}


def test_a_new_demo_keeps_its_options_and_a_resumed_one_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "demo.json"
    pin_settings(path, SETTINGS, resumed=False)
    assert json.loads(path.read_text(encoding="utf-8")) == SETTINGS
    pin_settings(path, dict(SETTINGS), resumed=True)  # the same: resumed
    with pytest.raises(ConfigError, match=r"started with --seed 0, not --seed 1:"):
        pin_settings(path, {**SETTINGS, "--seed": "1"}, resumed=True)
    with pytest.raises(ConfigError, match=r"started with --illegal 2, not --illegal \(none\)"):
        pin_settings(path, {"--game": "backgammon", "--seed": "0"}, resumed=True)
    assert json.loads(path.read_text(encoding="utf-8")) == SETTINGS  # left as it was


def test_a_folder_from_before_takes_this_runs_options(tmp_path: Path) -> None:
    # a demo folder written before the file existed resumes with whatever it is given, which
    # later runs must then give too
    path = tmp_path / "demo.json"
    pin_settings(path, SETTINGS, resumed=True)
    assert json.loads(path.read_text(encoding="utf-8")) == SETTINGS


def test_a_garbled_settings_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "demo.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"demo\.json is not the demo's settings") as info:
        pin_settings(path, SETTINGS, resumed=True)
    assert isinstance(info.value, ValueError)
