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
from vision.bounds import (
    CHECKERS,
    GREY,
    MAX_CORNER_PX,
    POSITIVE,
    SHARE,
    Bound,
    check_fields,
    check_length,
    check_order,
)
from vision.geometry import BoardGeometry

# The reading rasters' scale (px per mm): below it a checker is a few pixels, above it the
# raster of a board no longer fits in memory.
RASTER_PX_PER_MM = Bound(0.25, 4.0, unit="px per mm")
# A colour channel (B, G or R).
CHANNEL = Bound(0.0, 255.0)
# Corners of the playing surface in a picture (pixels).
CORNER_PX = Bound(-MAX_CORNER_PX, MAX_CORNER_PX, unit="px")

# Each section's fields that are not merely a threshold or weight of 0 up (see vision.bounds).
CHECKER_BOUNDS = {
    "px_per_mm": RASTER_PX_PER_MM,
    "rim_edge_min": Bound(0.0, 2000.0, unit="grey levels per px"),
    "rim_dominance": Bound(0.0, 16.0, open_low=True),
    "disc_score_threshold": SHARE,
    "disc_score_scale": POSITIVE,
    "edge_dilate_along": Bound(1, 50, unit="px"),
    "cover_line_threshold": SHARE,
    "line_clear_min": POSITIVE,
    "evidence_floor": SHARE,
    "whole_disc_score": SHARE,
    "side_rim_threshold": SHARE,
    "seam_disc_threshold": SHARE,
    "seam_floor": SHARE,
    "overlay_one_arc": SHARE,
    "overlay_prior": POSITIVE,
    "bar_own_scale": POSITIVE,
    "bar_own_clear": CHECKERS,
    "bar_round_min": SHARE,
    "darker_bgr": CHANNEL,
    "lighter_bgr": CHANNEL,
    "off_px_per_mm": RASTER_PX_PER_MM,
    "off_spacing_mm": Bound(0.0, 100.0, open_low=True, unit="mm"),
    "off_inset_mm": Bound(0.0, 100.0, unit="mm"),
    "off_gap_mm": Bound(0.0, 100.0, open_low=True, unit="mm"),
    "off_count_sd": POSITIVE,
    # a slot may hold all 15 checkers of a side (BG-EQ-1): a table covering fewer cannot
    # read a legal board
    "max_count": Bound(15, 30, unit="checkers"),
}
OCCLUSION_BOUNDS = {
    "downscale": Bound(1, 16),
    "chroma_threshold": GREY,
    "dark_offset": Bound(0.0, 765.0),
    "min_brightness_ratio": POSITIVE,
    "max_brightness_ratio": POSITIVE,
    "loose_chroma_threshold": GREY,
    "loose_brightness_ratio": POSITIVE,
    "loose_gap_checkers": CHECKERS,
    "checker_chroma_threshold": GREY,
    "checker_brightness_ratio": POSITIVE,
    "glare_gain": POSITIVE,
    "glare_residual": GREY,
    "min_blob_checkers": CHECKERS,
    "huge_blob_checkers": Bound(0.0, 100.0, open_low=True, unit="checker diameters"),
    "margin_checkers": CHECKERS,
    "edge_margin_checkers": CHECKERS,
    "slot_hidden_fraction": SHARE,
    "rail_band_mm": Bound(0.0, 1000.0, unit="mm"),
    "rail_reach_checkers": CHECKERS,
    "side_band_mm": Bound(0.0, 1000.0, unit="mm"),
    "side_reach_checkers": CHECKERS,
    "frame_step_threshold": Bound(0.0, 500.0),
    "frame_step_px": Bound(1, 100, unit="px"),
    "frame_step_faint": Bound(0.0, 500.0),
    "confirm_depth_checkers": CHECKERS,
    "confirm_share": SHARE,
    "band_end_checkers": CHECKERS,
    "frame_step_confirm": Bound(0.0, 500.0),
    "missing_edge_checkers": CHECKERS,
    "min_point_edge_visibility": SHARE,
}
STILLNESS_BOUNDS = {
    "pixel_threshold": GREY,
    "diff_threshold": SHARE,
    "still_frames": Bound(1, 1000, unit="frames"),
    "thumb_width": Bound(8, 4096, unit="px"),
}
BENCH_BOUNDS = {"max_read_to_decode_ratio": POSITIVE, "max_memory_mb": POSITIVE}
FINDER_BOUNDS = {
    "coarse_width": Bound(32, 4096, unit="px"),
    "min_board_share": Bound(0.0, 1.0, open_low=True),
    "max_board_share": Bound(0.0, 1.0, open_low=True),
    # each step must grow the board tried, or the search never ends
    "scale_step": Bound(1.0, 2.0, open_low=True),
    "rotations_deg": Bound(-45.0, 45.0, unit="degrees"),
    "aspects": Bound(0.0, 4.0, open_low=True),
    "template_blur_px": Bound(0.0, 50.0, unit="px"),
    "candidates": Bound(1, 100),
    "levels": Bound(1.0, 64.0),
    "search_px": Bound(0.0, 1000.0, open_low=True, unit="px"),
    "iterations": Bound(1, 100),
    "robust_px": POSITIVE,
    "sample_mm": Bound(0.0, 1000.0, open_low=True, unit="mm"),
    "row_search_level": Bound(0, 64),
    "row_edge_scale": POSITIVE,
    "lens_from_level": Bound(0, 64),
    "max_k1": Bound(0.0, 1.0),
    "strong_share": SHARE,
    "inlier_px": POSITIVE,
    "inlier_alignment": SHARE,
    "inlier_contrast": POSITIVE,
    "inlier_window_px": Bound(1, 100, unit="px"),
    "min_inlier_share": SHARE,
    "accept_share": SHARE,
}


@dataclass(frozen=True)
class CheckerConfig:
    """Checker counting: the canonical raster used for reading and the disc detector."""

    # Pixels per millimetre of the reading raster: about 20 px across a checker.
    px_per_mm: float = 0.7
    # A disc is present when this fraction of its rim shows a radial edge...
    rim_edge_min: float = 8.0  # grey levels per pixel of vertical gradient counted as a rim
    # ... running steeply enough across the column to be a rim above or below a centre: the
    # vertical gradient over the horizontal one above this (1.2: a rim whose normal is at
    # least 50 degrees from the column's cross direction). The arcs tested reach 42 degrees;
    # 1.5 (56 degrees) left a lone checker's arc ends to the edge maps' thickening and read
    # it unsurely (``tests.eval.lone_checkers``); a point's slanted edges sit near 6 degrees.
    rim_dominance: float = 1.2
    disc_score_threshold: float = 0.5
    # ... and the logistic width turning a disc score into a probability.
    disc_score_scale: float = 0.06
    # Edge maps are thickened across the edge by this many pixels (size tolerance).
    edge_dilate_along: int = 5
    # A rim crosses a column's axis where this share of a short line across it is edge.
    cover_line_threshold: float = 0.5
    # Weight of the mean rim-line evidence when a full column is told from one with checkers
    # laid over it.
    centre_line_weight: float = 8.0
    # A full column shows no rim across its axis at 4 positions or more; with fewer clear ones
    # (marbled checkers) the weight above is scaled down in proportion.
    line_clear_min: float = 4.0
    # Evidence for one position is never taken as more certain than this (robustness).
    evidence_floor: float = 0.01
    # Both arcs of a disc at least this share of rim: a whole checker's rim, which no die
    # (16 mm against a 43 mm disc) shows, so a die read on the board there does not clear the
    # place (a phantom die read at a column checker's edge took that checker away; a die the
    # reader counted as a checker showed at most 0.67 on synthetic throws 15400-15999).
    whole_disc_score: float = 0.75
    # Side rims of a checker laid over a column: the share of its left and right arcs on
    # near-vertical edges above which one is there, and the weight of that evidence.
    side_rim_threshold: float = 0.72
    side_rim_weight: float = 1.0
    # Both arcs of a disc at a full column's first seam above this share: a checker laid over
    # it (the weight of that evidence; a probability never below the floor).
    seam_disc_threshold: float = 0.72
    seam_weight: float = 1.0
    seam_floor: float = 0.05
    # How far one arc alone (not both) counts for a checker laid over a column when the
    # column's length is weighed (1: fully; hands' fingers show one arc).
    overlay_one_arc: float = 0.5
    # Prior odds of each checker laid over a full column (the sixth or later checker).
    overlay_prior: float = 0.3
    # A bar checker's colour to one side of the bar may differ from its middle's (the darker
    # two of three heights: a lighter streak may cross one) by at most this much.
    bar_side_colour_max: float = 40.0
    # A bar candidate of the bar's own colour is the bar (its end against the frame): its
    # presence is lowered by the logistic of (distance to the bar's colour - the nearer of
    # the distance to any column checker's colour and the reach) over the scale (BGR); the
    # bar's colour is sampled this many checker diameters or more from every candidate.
    bar_own_reach: float = 20.0
    bar_own_scale: float = 5.0
    bar_own_clear: float = 0.75
    # Share of a bar checker's four diagonals where its round rim must show (hinges fail).
    bar_round_min: float = 0.6
    # Brightness gap below which all checkers count as one colour class is not trusted.
    min_colour_gap: float = 18.0
    # Optional colours (B, G, R) of the darker and lighter checkers, from configuration.
    darker_bgr: tuple[int, int, int] | None = None
    lighter_bgr: tuple[int, int, int] | None = None
    # Borne-off checkers standing on edge in the trays: the trays' raster (px/mm), the space
    # between two checkers (mm), how far in from the tray's long sides the stack is looked at,
    # the colour difference from the empty tray that is a checker, the empty stretch that ends
    # a stack (mm), and the spread of the count.
    off_px_per_mm: float = 0.8
    off_spacing_mm: float = 0.6
    off_inset_mm: float = 9.0
    off_colour_diff: float = 28.0
    off_gap_mm: float = 4.0
    off_count_sd: float = 0.3
    # Highest count a slot's probability table covers.
    max_count: int = 15

    def __post_init__(self) -> None:
        check_fields(self, "vision.checkers", CHECKER_BOUNDS)
        check_length(self, "vision.checkers", "darker_bgr", 3)
        check_length(self, "vision.checkers", "lighter_bgr", 3)


@dataclass(frozen=True)
class OcclusionConfig:
    """Something over the board: colour against the empty-board model, missing point edges."""

    downscale: int = 4  # the colour model works on the reading raster shrunk this many times
    chroma_threshold: float = 18.0  # chromaticity distance (x255) from the model called foreign
    # Added to the channel sums before chromaticity and brightness ratios are taken, so the
    # noisy hue of near-black pixels does not count as foreign.
    dark_offset: float = 60.0
    min_brightness_ratio: float = 0.45  # darker than this times the model: foreign (not shadow)
    max_brightness_ratio: float = 2.3  # brighter than this: foreign (not glare)
    # Looser thresholds followed from a hand already found (hysteresis), across gaps this wide.
    loose_chroma_threshold: float = 11.0
    loose_brightness_ratio: tuple[float, ...] = (0.65, 1.6)
    loose_gap_checkers: float = 1.0
    # A pixel this close to a checker colour seen on the board does not seed a hand.
    checker_chroma_threshold: float = 10.0
    checker_brightness_ratio: tuple[float, ...] = (0.6, 1.6)
    # Glare: a pixel that is the model times a gain in this range plus white light, to within
    # this many grey levels per channel, is a reflection, not a hand.
    glare_gain: tuple[float, ...] = (0.6, 1.6)
    glare_residual: float = 14.0
    min_blob_checkers: float = 0.7  # a foreign blob reaching the board's edge must be this big
    huge_blob_checkers: float = 5.0  # a blob this big hides wherever it is
    margin_checkers: float = 3.5  # hidden area grown by this many diameters around a blob
    edge_margin_checkers: float = 2.5  # the same around a column whose point edge is hidden
    hide_whole_half: bool = False  # a hand over a half hides both rows of that half
    slot_hidden_fraction: float = 0.01  # share of a slot's column a blob must cover to hide it
    rail_band_mm: tuple[float, ...] = (4.0, 11.0)  # the rail looked at, outside the surface
    rail_reach_checkers: float = 3.0  # slots this far from an arm over the rail are hidden
    side_band_mm: tuple[float, ...] = (5.5, 10.5)  # the frame looked at left and right
    side_reach_checkers: float = 14.0  # an arm over a side frame hides slots this far in
    # A sharp change of colour along the frame (an arm's outline, even an arm coloured like the
    # frame): the mean of frame_step_px pixels after against those before, colour distance.
    frame_step_threshold: float = 45.0
    frame_step_px: int = 3
    # A fainter change counts where, just inside the frame (this many diameters deep, within a
    # diameter either side), this share of the surface is faintly unlike the empty board.
    frame_step_faint: float = 30.0
    confirm_depth_checkers: float = 1.5
    confirm_share: float = 0.1
    # The ends of each band (the frame's corners) left out, in checker diameters.
    band_end_checkers: float = 0.7
    # A stretch of frame unlike the rest counts only with a change this sharp at one end.
    frame_step_confirm: float = 15.0
    missing_edge_checkers: float = 1.5  # point edge missing this long (diameters): hidden
    min_point_edge_visibility: float = 0.7  # below this board-wide, point edges are not used

    def __post_init__(self) -> None:
        check_fields(self, "vision.occlusion", OCCLUSION_BOUNDS)
        for name in ("loose_brightness_ratio", "checker_brightness_ratio", "glare_gain",
                     "rail_band_mm", "side_band_mm"):
            check_length(self, "vision.occlusion", name, 2)
        check_order(self, "vision.occlusion", "min_brightness_ratio", "max_brightness_ratio")


@dataclass(frozen=True)
class StillnessConfig:
    """Motion gate: a frame is read only after the scene has been still for a while."""

    pixel_threshold: int = 14  # grey levels a thumbnail pixel must change by to count as moving
    diff_threshold: float = 0.004  # share of moving pixels above which the frame is in motion
    still_frames: int = 3  # consecutive still frames before a reading is taken
    thumb_width: int = 160  # frames are compared at this width

    def __post_init__(self) -> None:
        check_fields(self, "vision.stillness", STILLNESS_BOUNDS)


@dataclass(frozen=True)
class FinderConfig:
    """Finding the playing surface without markers or corners (``vision.board_finder``)."""

    # The coarse search: the picture shrunk to this width, the board's width tried from
    # min to max share of the picture's width in steps of this ratio, these rotations (degrees).
    coarse_width: int = 200
    min_board_share: float = 0.25
    max_board_share: float = 0.98
    scale_step: float = 1.05
    rotations_deg: tuple[float, ...] = (-3.0, 0.0, 3.0)
    aspects: tuple[float, ...] = (0.94, 1.0, 1.06)  # height/width against the model's
    template_blur_px: float = 1.0  # the model's lines are blurred this much in the template
    candidates: int = 3  # the best coarse matches refined
    # Refinement levels (picture shrink factors, finest last) and how far (px of that level)
    # each looks for an edge across a model line.
    # (search_px and the per-level weights below hold one value per level)
    levels: tuple[float, ...] = (4.0, 2.0, 1.0)
    search_px: tuple[float, ...] = (7.0, 4.0, 3.0)
    iterations: int = 6  # edge searches per level
    min_edge: float = 4.0  # grey levels per pixel a model line's edge must show
    robust_px: float = 2.5  # residuals beyond this (px of the level) weigh nothing (Tukey)
    sample_mm: float = 6.0  # model lines are sampled this often
    # How much one sample of the surface's outline counts against one of a point's edge, per
    # refinement level (coarse levels follow the points: the frame's own edges are near).
    outline_weights: tuple[float, ...] = (1.0, 2.0, 3.0)
    # The same for a point's tip, found a little short of the true tip (blur): it fixes how
    # far down the board reaches while the outline is still far, then gives way to it.
    apex_weights: tuple[float, ...] = (4.0, 2.0, 0.0)
    # Before the refinement at level ``row_search_level`` (an index into ``levels``), the top
    # and bottom edges are each tried this many px (of that level) either way, scoring the edge
    # under the whole model (edges clipped at row_edge_scale grey levels per px; a point's tip
    # and an outline sample weigh as much as these many samples of a point's side).
    row_search_level: int = 1
    row_search_px: float = 24.0
    row_edge_scale: float = 12.0
    row_apex_weight: float = 4.0
    row_outline_weight: float = 0.5
    # From this level on (an index into ``levels``) the lens's radial distortion is fitted too,
    # up to this much (the corners are then where the lens puts them). Off by default (an index
    # past the last level): the board reader maps the board with the corners' homography alone,
    # and on the real photographs it reads best from the corners of a fit without the lens.
    lens_from_level: int = 3
    max_k1: float = 0.1
    # Across a model line, the nearest edge at least this share of the strongest one is taken.
    strong_share: float = 0.5
    # Found only when this share of the model's samples sits on an edge within inlier_px.
    inlier_px: float = 1.5
    # ... an edge whose gradient lies within acos(inlier_alignment) of the line's normal and
    # is inlier_contrast times the median edge across the line over inlier_window_px more px.
    inlier_alignment: float = 0.9
    inlier_contrast: float = 2.0
    inlier_window_px: int = 4
    min_inlier_share: float = 0.5
    # A candidate fitting this well ends the search (the other coarse matches are not refined).
    accept_share: float = 0.6

    def __post_init__(self) -> None:
        # the per-level tuples' lengths are checked where the levels are used (find_board)
        check_fields(self, "vision.finder", FINDER_BOUNDS)
        check_order(self, "vision.finder", "min_board_share", "max_board_share")


@dataclass(frozen=True)
class BenchConfig:
    """Targets the benchmark checks (the issue's speed and memory requirements)."""

    max_read_to_decode_ratio: float = 2.5
    max_memory_mb: float = 150.0

    def __post_init__(self) -> None:
        check_fields(self, "vision.bench", BENCH_BOUNDS)


@dataclass(frozen=True)
class VisionConfig:
    """Everything the board reader needs; the defaults read a standard board."""

    geometry: BoardGeometry = field(default_factory=BoardGeometry)
    checkers: CheckerConfig = field(default_factory=CheckerConfig)
    occlusion: OcclusionConfig = field(default_factory=OcclusionConfig)
    stillness: StillnessConfig = field(default_factory=StillnessConfig)
    bench: BenchConfig = field(default_factory=BenchConfig)
    finder: FinderConfig = field(default_factory=FinderConfig)
    # Playing-surface corners (x, y) x 4 for a fixed camera, used when none are given.
    corners: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        check_fields(self, "vision", {"corners": CORNER_PX})
        check_length(self, "vision", "corners", 8)


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
    # every section checks its own values (and names the key) as it is built
    return replace(obj, **changes)


def vision_config_from_mapping(table: dict[str, Any]) -> VisionConfig:
    """Build a :class:`VisionConfig` from the ``[vision]`` table of a TOML document."""
    config: VisionConfig = _apply("", DEFAULT_CONFIG, table)
    return config


def load_vision_config(path: str | Path) -> VisionConfig:
    """Read a table's TOML file and return its vision settings (defaults where absent)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")  # a byte order mark (Windows editors) is no error
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
