"""Every number of the vision configuration is range-checked when its section is built, from a
TOML file or from code, with a ConfigError naming the full key and the value."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.errors import ConfigError
from vision.config import (
    DEFAULT_CONFIG,
    BenchConfig,
    CheckerConfig,
    FinderConfig,
    OcclusionConfig,
    StillnessConfig,
    VisionConfig,
    load_vision_config,
)
from vision.geometry import BoardGeometry
from vision.markers import marker_sheet


def test_the_defaults_pass() -> None:
    for section in (BoardGeometry, CheckerConfig, OcclusionConfig, StillnessConfig,
                    BenchConfig, FinderConfig, VisionConfig):
        section()
    assert DEFAULT_CONFIG.checkers.max_count == 15


@pytest.mark.parametrize(("section", "key", "value", "shown"), [
    ("geometry", "marker_size_mm", "-5", "-5.0"),
    ("geometry", "marker_size_mm", "0", "0.0"),
    ("geometry", "marker_size_mm", "1e9", "1000000000.0"),
    ("geometry", "marker_size_mm", "nan", "nan"),
    ("geometry", "marker_size_mm", "inf", "inf"),
    ("geometry", "point_width_mm", "nan", "nan"),
    ("geometry", "tray_width_mm", "-100", "-100.0"),
    ("geometry", "die_size_mm", "0", "0.0"),
    ("occlusion", "downscale", "0", "0"),
    ("occlusion", "glare_gain", "[0.6, inf]", "(0.6, inf)"),
    ("checkers", "px_per_mm", "0", "0.0"),
    ("checkers", "max_count", "0", "0"),
    ("checkers", "disc_score_scale", "0", "0.0"),
    ("checkers", "darker_bgr", "[40, 150]", "(40, 150)"),
    ("checkers", "lighter_bgr", "[230, 235, 300]", "(230, 235, 300)"),
    ("stillness", "still_frames", "0", "0"),
    ("finder", "scale_step", "1", "1.0"),
    ("finder", "levels", "[4, 0, 1]", "(4, 0, 1)"),
    ("bench", "max_memory_mb", "-1", "-1.0"),
])
def test_a_bad_number_in_the_file_names_its_key_and_value(
    tmp_path: Path, section: str, key: str, value: str, shown: str
) -> None:
    p = tmp_path / "table.toml"
    p.write_text(f"[vision.{section}]\n{key} = {value}\n")
    pattern = rf"vision\.{section}\.{key} .*not {re.escape(shown)}$"
    with pytest.raises(ConfigError, match=pattern) as info:
        load_vision_config(p)
    assert str(info.value) == str(info.value).lower()


def test_the_message_says_what_a_size_must_be(tmp_path: Path) -> None:
    p = tmp_path / "table.toml"
    p.write_text("[vision.geometry]\nmarker_size_mm = -5\n")
    with pytest.raises(ConfigError) as info:
        load_vision_config(p)
    assert str(info.value).startswith(
        "vision.geometry.marker_size_mm must be a positive finite number of mm")


def test_corners_from_the_file_are_checked(tmp_path: Path) -> None:
    p = tmp_path / "table.toml"
    p.write_text("[vision]\ncorners = [1e308, 0, 1, 2, 3, 4, 5, 6]\n")
    with pytest.raises(ConfigError, match=r"vision\.corners .*1e\+308"):
        load_vision_config(p)
    p.write_text("[vision]\ncorners = [1, 2, 3]\n")
    with pytest.raises(ConfigError, match=r"vision\.corners must hold 8 numbers"):
        load_vision_config(p)


def test_configs_built_in_code_are_checked_too() -> None:
    with pytest.raises(ConfigError, match=r"vision\.geometry\.marker_size_mm"):
        BoardGeometry(marker_size_mm=float("nan"))
    with pytest.raises(ConfigError, match=r"vision\.checkers\.max_count"):
        CheckerConfig(max_count=0)
    with pytest.raises(ConfigError, match=r"vision\.occlusion\.downscale"):
        OcclusionConfig(downscale=0)
    with pytest.raises(ConfigError, match=r"vision\.occlusion\.min_brightness_ratio"):
        OcclusionConfig(min_brightness_ratio=3.0)
    with pytest.raises(ConfigError, match=r"vision\.finder\.min_board_share"):
        FinderConfig(min_board_share=0.99)
    with pytest.raises(ConfigError, match=r"vision\.stillness\.thumb_width"):
        StillnessConfig(thumb_width=0)
    with pytest.raises(ConfigError, match=r"vision\.corners"):
        VisionConfig(corners=(0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, float("inf")))


def test_the_marker_sheet_refuses_markers_it_cannot_hold() -> None:
    with pytest.raises(ConfigError, match=r"marker_size_mm 100 is too large .*at most 72 mm"):
        marker_sheet(BoardGeometry(marker_size_mm=100.0), dpi=72)
    with pytest.raises(ConfigError, match=r"marker_size_mm 1 is too small to print at 72 dpi"):
        marker_sheet(BoardGeometry(marker_size_mm=1.0), dpi=72)
    assert marker_sheet(BoardGeometry(marker_size_mm=72.0), dpi=72).shape[:2] == (842, 595)
