"""Typed configuration of the board vision pipeline: every threshold lives here, not in code.

A table's TOML file may carry a ``[vision]`` table whose keys are the field names below (unknown
keys and wrong types are refused with the key's name, as the configuration contract asks).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from engine.errors import ConfigError
from vision.geometry import BoardGeometry


@dataclass(frozen=True)
class CheckerConfig:
    """Checker counting: the canonical raster used for reading and the disc detector."""

    # Pixels per millimetre of the reading raster: about 20 px across a checker.
    px_per_mm: float = 0.48
    # A disc is present when this fraction of its rim shows a radial edge...
    rim_edge_min: float = 8.0  # grey levels per pixel of vertical gradient counted as a rim
    disc_score_threshold: float = 0.5
    # ... and the logistic width turning a disc score into a probability.
    disc_score_scale: float = 0.06
    # Second-layer discs (checkers laid over others) must score this much.
    overlay_score_threshold: float = 0.62
    # A bar checker's colour left and right of its centre may differ by at most this much.
    bar_side_colour_max: float = 40.0
    # Brightness gap below which all checkers count as one colour class is not trusted.
    min_colour_gap: float = 18.0
    # Optional colours (B, G, R) of the darker and lighter checkers, from configuration.
    darker_bgr: tuple[int, int, int] | None = None
    lighter_bgr: tuple[int, int, int] | None = None
    # Highest count a slot's probability table covers.
    max_count: int = 15


@dataclass(frozen=True)
class OcclusionConfig:
    """Something over the board: residual against the empty-board model per pixel."""

    residual_threshold: float = 38.0  # grey-level distance from the board model counted as foreign
    min_blob_checkers: float = 1.6  # a foreign blob bigger than this many checker areas hides
    slot_hidden_fraction: float = 0.06  # share of a slot's column that must be foreign to hide it


@dataclass(frozen=True)
class StillnessConfig:
    """Motion gate: a frame is read only after the scene has been still for a while."""

    diff_threshold: float = 4.0  # mean absolute grey difference between consecutive frames
    still_frames: int = 3  # consecutive still frames before a reading is taken
    thumb_width: int = 160  # frames are compared at this width


@dataclass(frozen=True)
class BenchConfig:
    """Targets the benchmark checks (the issue's speed and memory requirements)."""

    max_read_to_decode_ratio: float = 2.5
    max_memory_mb: float = 150.0


@dataclass(frozen=True)
class VisionConfig:
    """Everything the board reader needs; the defaults read a standard board."""

    geometry: BoardGeometry = field(default_factory=BoardGeometry)
    checkers: CheckerConfig = field(default_factory=CheckerConfig)
    occlusion: OcclusionConfig = field(default_factory=OcclusionConfig)
    stillness: StillnessConfig = field(default_factory=StillnessConfig)
    bench: BenchConfig = field(default_factory=BenchConfig)
    # Playing-surface corners (x, y) x 4 for a fixed camera, used when none are given.
    corners: tuple[float, ...] | None = None


DEFAULT_CONFIG = VisionConfig()


def _coerce(section: str, key: str, value: Any, current: Any) -> Any:
    """Check one TOML value against the type of the default it replaces."""
    name = f"vision.{section}.{key}" if section else f"vision.{key}"
    if isinstance(current, bool) or isinstance(value, bool):
        if not isinstance(value, bool) or not isinstance(current, bool):
            raise ConfigError(f"{name} must be a boolean")
        return value
    if isinstance(current, float):
        if not isinstance(value, int | float):
            raise ConfigError(f"{name} must be a number, not {value!r}")
        return float(value)
    if isinstance(current, int):
        if not isinstance(value, int):
            raise ConfigError(f"{name} must be an integer, not {value!r}")
        return value
    if current is None or isinstance(current, tuple):
        if not isinstance(value, list) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value
        ):
            raise ConfigError(f"{name} must be a list of numbers")
        return tuple(value)
    raise ConfigError(f"{name} cannot be set")  # pragma: no cover


def _apply(section: str, obj: Any, table: dict[str, Any]) -> Any:
    known = {f.name: f for f in fields(obj)}
    changes: dict[str, Any] = {}
    for key, value in table.items():
        if key not in known:
            where = f"vision.{section}" if section else "vision"
            raise ConfigError(f"unknown key {where}.{key}")
        current = getattr(obj, key)
        if hasattr(current, "__dataclass_fields__"):
            if not isinstance(value, dict):
                raise ConfigError(f"vision.{key} must be a table")
            changes[key] = _apply(key, current, value)
        else:
            changes[key] = _coerce(section, key, value, current)
    try:
        return replace(obj, **changes)
    except ValueError as exc:
        raise ConfigError(f"vision.{section}: {exc}") from exc


def vision_config_from_mapping(table: dict[str, Any]) -> VisionConfig:
    """Build a :class:`VisionConfig` from the ``[vision]`` table of a TOML document."""
    config: VisionConfig = _apply("", DEFAULT_CONFIG, table)
    if config.corners is not None and len(config.corners) != 8:
        raise ConfigError("vision.corners must hold 8 numbers (x, y for 4 corners)")
    return config


def load_vision_config(path: str | Path) -> VisionConfig:
    """Read a table's TOML file and return its vision settings (defaults where absent)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"configuration file not found: {p}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read configuration file {p}: {exc}") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"configuration file {p} is not valid TOML: {exc}") from None
    table = doc.get("vision", {})
    if not isinstance(table, dict):
        raise ConfigError("vision must be a table")
    return vision_config_from_mapping(table)
