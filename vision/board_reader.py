"""The board reader behind ``hakem vision read``: one still frame in, a :class:`BoardReading` out.

Stages: locate the board (corners or markers) -> warp to the canonical reading raster ->
column and bar evidence (``vision.checkers``) -> colours (darker/lighter) -> occlusion ->
counts with probabilities. ``BoardReading.to_json`` gives the DESIGN.md fields; dice and cube
come from :func:`dice_and_cube` (the dice/cube readers plug in there).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from vision.borne_off import read_off_zones
from vision.calibration import Calibration, locate_board
from vision.checker_bar import BarCandidate, bar_candidates, not_the_bar
from vision.checker_edges import edge_maps_and_gradients
from vision.checker_layout import Layout, layout_for
from vision.checkers import (
    BY_CUBE,
    BY_DIE,
    READ_MARGIN_MM,
    disc_colours,
    read_columns,
    slot_disc_colours,
)
from vision.column_hypotheses import hypotheses
from vision.config import DEFAULT_CONFIG, CheckerConfig, VisionConfig
from vision.foreign_pixels import median_axis0
from vision.geometry import BoardGeometry, Canonical
from vision.imageio import check_image
from vision.occlusion import Occlusion, find_occlusion
from vision.remap import homography_maps

if TYPE_CHECKING:
    from vision.dice.reading import DiceAndCube

CHECKERS_PER_SIDE = 15


@dataclass
class PreparedFrame:
    """A frame warped to the canonical reading raster, shared by every reader of the frame."""

    image: np.ndarray  # the original BGR picture
    calibration: Calibration
    canonical: Canonical
    bgr: np.ndarray  # the reading raster (BGR)
    gray: np.ndarray
    edges: np.ndarray  # vertical rim-edge map (see vision.checker_edges.edge_maps)
    side_edges: np.ndarray  # horizontal rim-edge map
    config: VisionConfig
    # the raster's 3x3 Sobel gradients (x, y; int16) behind the edge maps, when kept
    gradients: tuple[np.ndarray, np.ndarray] | None = None
    # the picture halved (cv2.pyrDown) when the raster was warped from it, else None: the dice
    # memory's candidate raster starts from the same halving (vision.dice.change_map.Halvings)
    halved: np.ndarray | None = None


def prepare(image: np.ndarray, calibration: Calibration,
            config: VisionConfig = DEFAULT_CONFIG) -> PreparedFrame:
    """Warp the picture to the reading raster (halving it first when it is much larger)."""
    c = np.asarray(calibration.corners, dtype=np.float32)
    canonical, halve, map1, map2 = _reading_warp(
        c.tobytes(), calibration.geometry, config.checkers.px_per_mm,
        min(image.shape[:2]) >= 64)
    src = cv2.pyrDown(image) if halve else image
    bgr = cv2.remap(src, map1, map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    edges, side_edges, gradients = edge_maps_and_gradients(gray, config.checkers)
    return PreparedFrame(image, calibration, canonical, bgr, gray, edges, side_edges, config,
                         gradients, src if halve else None)


@functools.lru_cache(maxsize=8)
def _reading_warp(corners: bytes, geometry: BoardGeometry, px_per_mm: float,
                  big_enough: bool) -> tuple[Canonical, bool, np.ndarray, np.ndarray]:
    """The reading raster, whether to halve the picture first, and the remap tables, for
    corners (TL, TR, BR, BL as float32 bytes): the camera and the board stay put between
    frames, so this is computed once per calibration rather than once per frame."""
    c = np.frombuffer(corners, dtype=np.float32).reshape(4, 2)
    canonical = Canonical(geometry, px_per_mm, READ_MARGIN_MM)
    hmat = canonical.homography_from_image(c)
    img_width = 0.5 * (np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[2] - c[3]))
    can_width = geometry.width_mm * canonical.px_per_mm
    halve = bool(img_width >= 2.0 * can_width and big_enough)
    if halve:
        hmat = hmat @ np.diag([2.0, 2.0, 1.0])
    map1, map2 = homography_maps(tuple(np.round(hmat, 9).reshape(-1).tolist()), canonical.size)
    return canonical, halve, map1, map2


@dataclass
class SlotReading:
    """One slot: P(count = n) and P(its checkers are the darker ones)."""

    count_probs: np.ndarray
    p_darker: float
    hidden: bool = False

    def joint(self, darker: int, lighter: int) -> float:
        """P(darker = a, lighter = b); a point holds one colour, so mixed counts are ~0."""
        m = len(self.count_probs) - 1
        if darker < 0 or lighter < 0 or darker > m or lighter > m:
            return 0.0
        if darker and lighter:
            return 1e-9
        if darker == 0 and lighter == 0:
            return float(self.count_probs[0])
        n = darker or lighter
        p = self.p_darker if darker else 1.0 - self.p_darker
        return float(self.count_probs[n] * p)

    @property
    def counts(self) -> tuple[int, int]:
        """The most likely (darker, lighter)."""
        n = int(np.argmax(self.count_probs))
        if n == 0:
            return (0, 0)
        return (n, 0) if self.p_darker >= 0.5 else (0, n)

    @property
    def confidence(self) -> float:
        a, b = self.counts
        return self.joint(a, b)


@dataclass
class BarReading:
    """Checkers on the bar: P(count = n) for each colour."""

    darker_probs: np.ndarray
    lighter_probs: np.ndarray
    hidden: bool = False
    centres: list[tuple[float, float]] = field(default_factory=list)

    @property
    def counts(self) -> tuple[int, int]:
        return (int(np.argmax(self.darker_probs)), int(np.argmax(self.lighter_probs)))

    def joint(self, darker: int, lighter: int) -> float:
        m = len(self.darker_probs) - 1
        if not (0 <= darker <= m and 0 <= lighter <= m):
            return 0.0
        return float(self.darker_probs[darker] * self.lighter_probs[lighter])

    @property
    def confidence(self) -> float:
        return self.joint(*self.counts)


@dataclass
class BoardReading:
    """What one frame shows; ``to_json`` gives the ``hakem vision read`` object."""

    slots: list[SlotReading]
    bar: BarReading
    occlusion: Occlusion
    calibration: Calibration
    dice: list[dict[str, Any]] = field(default_factory=list)
    cube: dict[str, Any] | None = None
    image: str | None = None
    # reads the trays when first asked (see ``off_probs``)
    off_source: Callable[[], tuple[np.ndarray, np.ndarray] | None] | None = None
    # median colour (BGR) of the checkers seen on each slot (zeros for an empty slot)
    slot_colours: np.ndarray | None = None

    @property
    def occluded(self) -> bool:
        return self.occlusion.occluded

    @property
    def hidden_slots(self) -> tuple[int, ...]:
        return self.occlusion.hidden_slots

    def slot_counts(self) -> list[tuple[int, int] | None]:
        """Most likely (darker, lighter) per slot; None where hidden."""
        return [None if s.hidden else s.counts for s in self.slots]

    @functools.cached_property
    def off_probs(self) -> tuple[np.ndarray, np.ndarray] | None:
        """P(borne off = n) of the darker and of the lighter checkers, read in the trays
        (None when a tray is out of the picture). Read on first use: a referee that does not
        ask does not pay for it."""
        return None if self.off_source is None else self.off_source()

    def off_in_trays(self) -> tuple[int, int] | None:
        """Borne off as seen standing in the trays (None when a tray is out of the picture).
        Where the trays are not where the board's measurements put them, this is wrong: the
        ``off`` of the JSON object stays the count the board lacks."""
        if self.off_probs is None:
            return None
        return (int(np.argmax(self.off_probs[0])), int(np.argmax(self.off_probs[1])))

    def off(self) -> tuple[int, int] | None:
        """Borne off, as the checkers of 15 a side not seen on the board or the bar; None when
        part of the board is hidden (then the count is unknown)."""
        if self.occluded:
            return None
        a = sum(s.counts[0] for s in self.slots) + self.bar.counts[0]
        b = sum(s.counts[1] for s in self.slots) + self.bar.counts[1]
        return (max(0, CHECKERS_PER_SIDE - a), max(0, CHECKERS_PER_SIDE - b))

    def seen_totals(self) -> tuple[int, int]:
        """Darker and lighter checkers counted on the visible slots and the bar."""
        seen = [c for c in self.slot_counts() if c is not None]
        if not self.bar.hidden:
            seen.append(self.bar.counts)
        return (sum(c[0] for c in seen), sum(c[1] for c in seen))

    def warnings(self) -> list[str]:
        """What makes the counts impossible: more checkers of a colour seen than a side has
        (BG-EQ-1). The counts are left as read; the reading says it cannot be right."""
        out = []
        for total, colour in zip(self.seen_totals(), ("darker", "lighter"), strict=True):
            if total > CHECKERS_PER_SIDE:
                out.append(f"impossible: {total} {colour} checkers "
                           f"(at most {CHECKERS_PER_SIDE}, BG-EQ-1)")
        return out

    @property
    def visible_share(self) -> float:
        """Share of the board's places (the 24 slots and the bar) the picture shows."""
        seen = sum(1 for s in self.slots if not s.hidden) + (0 if self.bar.hidden else 1)
        return seen / (len(self.slots) + 1)

    @property
    def confidence(self) -> float:
        """P(every count is right): the visible counts' probabilities (slots independent)
        times the share of the board visible, since nothing is known of a hidden place (a
        reading that sees nothing is sure of nothing; a whole board keeps the product as it
        is). 0 for counts no board can show (:meth:`warnings`): one of them is surely wrong."""
        if self.warnings():
            return 0.0
        p = 1.0
        for s in self.slots:
            if not s.hidden:
                p *= s.confidence
        if not self.bar.hidden:
            p *= self.bar.confidence
        return float(p * self.visible_share)  # p * 1.0 is p exactly

    def to_json(self) -> dict[str, Any]:
        """The DESIGN.md object; hidden slots (and a hidden bar) are null, listed in
        ``hidden``; ``slot_confidence`` gives each slot's probability of its count;
        ``off_trays`` the borne-off checkers seen in the trays (null: a tray out of sight);
        ``hidden.frame`` the sides of the case's frame something lies across (then every slot
        within its reach is hidden: a hand, or a clock or score sheet left on the frame);
        ``warnings`` why the counts cannot be right (empty when they may be)."""
        off = self.off()
        trays = self.off_in_trays()
        return {
            "image": self.image,
            "occluded": self.occluded,
            "slots": [None if c is None else [c[0], c[1]] for c in self.slot_counts()],
            "bar": None if self.bar.hidden else list(self.bar.counts),
            "off": None if off is None else [off[0], off[1]],
            "off_trays": None if trays is None else [trays[0], trays[1]],
            "dice": self.dice,
            "cube": self.cube,
            "confidence": round(self.confidence, 4),
            "warnings": self.warnings(),
            "hidden": {"slots": list(self.hidden_slots), "bar": self.bar.hidden,
                       "frame": list(self.occlusion.frame_sides)},
            "slot_confidence": [
                None if s.hidden else round(s.confidence, 4) for s in self.slots
            ],
            "corners": [[round(float(x), 1), round(float(y), 1)]
                        for x, y in self.calibration.corners],
        }


def _otsu_split(values: np.ndarray) -> tuple[float, float]:
    """Best threshold between two groups of 1-D values and the gap between group means."""
    v = np.sort(np.asarray(values, dtype=np.float64))
    n = len(v)
    if n < 2:
        return (float(v[0]) if n else 0.0, 0.0)
    csum = np.cumsum(v)
    i = np.arange(1, n)  # split before index i
    mean_a = csum[:-1] / i
    mean_b = (csum[-1] - csum[:-1]) / (n - i)
    score = i * (n - i) * (mean_b - mean_a) ** 2
    k = int(np.argmax(score))
    return float((v[k] + v[k + 1]) / 2.0), float(mean_b[k] - mean_a[k])


def _lightness(bgr: np.ndarray) -> np.ndarray:
    """A scalar per colour that puts white above gold, red, maroon and black checkers."""
    b, g, r = bgr[..., 0], bgr[..., 1], bgr[..., 2]
    gray = 0.114 * b + 0.587 * g + 0.299 * r
    # channel by channel: numpy reduces a short last axis slowly
    chroma = np.maximum(np.maximum(b, g), r) - np.minimum(np.minimum(b, g), r)
    out: np.ndarray = gray - chroma
    return out


class _ColourModel:
    """Darker vs lighter, from configured colours or split from this frame's checkers."""

    def __init__(self, samples: np.ndarray, weights: np.ndarray, config: CheckerConfig) -> None:
        self.config = config
        self.fixed = config.darker_bgr is not None and config.lighter_bgr is not None
        if self.fixed:
            return
        keep = weights > 0.5
        vals = _lightness(samples[keep]) if keep.any() else np.zeros(0)
        thr, gap = _otsu_split(vals)
        if len(vals) < 2 or gap < config.min_colour_gap:
            # one colour on the board: call it by absolute lightness
            thr, gap = 140.0, 80.0
        self.threshold = thr
        self.scale = max(gap / 8.0, 4.0)

    def p_darker(self, bgr: np.ndarray) -> np.ndarray:
        if self.fixed:
            dk = np.asarray(self.config.darker_bgr, dtype=np.float32)
            lt = np.asarray(self.config.lighter_bgr, dtype=np.float32)
            d1 = np.linalg.norm(bgr - dk, axis=-1)
            d2 = np.linalg.norm(bgr - lt, axis=-1)
            out: np.ndarray = 1.0 / (1.0 + np.exp(np.clip((d1 - d2) / 10.0, -40, 40)))
            return out
        x = (self.threshold - _lightness(bgr)) / self.scale
        res: np.ndarray = 1.0 / (1.0 + np.exp(-np.minimum(np.maximum(x, -40), 40)))
        return res


def _bar_distribution(cands: list[BarCandidate], p_dark: np.ndarray,
                      max_count: int) -> tuple[np.ndarray, np.ndarray]:
    dark = np.array([1.0])
    light = np.array([1.0])
    for c, pd in zip(cands, p_dark, strict=True):
        dark = np.convolve(dark, [1.0 - c.p * pd, c.p * pd])
        light = np.convolve(light, [1.0 - c.p * (1 - pd), c.p * (1 - pd)])
    out = []
    for dist in (dark, light):
        arr = np.zeros(max_count + 1)
        n = min(len(dist), max_count + 1)
        arr[:n] = dist[:n]
        out.append(arr / arr.sum())
    return out[0], out[1]


def _checker_colours(colours: np.ndarray, present: np.ndarray,
                     p_dark: np.ndarray) -> np.ndarray | None:
    """Median colour of the darker and of the lighter checkers seen in the columns."""
    out = []
    for dark in (True, False):
        keep = (present > 0.5) & ((p_dark >= 0.5) == dark)
        if keep.any():
            out.append(median_axis0(colours[keep]))
    return np.array(out, np.float32) if out else None


def _off_distribution(frame: PreparedFrame,
                      colours: _ColourModel) -> tuple[np.ndarray, np.ndarray] | None:
    """P(borne off = n) per colour from the stacks in the trays (None unless both trays are
    in the picture)."""
    geometry = frame.calibration.geometry
    to_mm = Canonical(geometry, 1.0, (0.0, 0.0)).homography_from_image(
        frame.calibration.corners)
    zones = read_off_zones(frame.image, to_mm, geometry, frame.config.checkers)
    if len(zones) < 4:  # a tray out of the picture may hold borne-off checkers
        return None
    m = frame.config.checkers.max_count
    dark = np.zeros(m + 1)
    dark[0] = 1.0
    light = dark.copy()
    for z in zones:
        pd = 0.5 if z.colour is None else float(colours.p_darker(z.colour[None, :])[0])
        # each stack is one colour: its count goes to the colour it most likely is
        target = (dark, light)[0 if pd >= 0.5 else 1]
        target[:] = np.convolve(target, z.count_probs)[: m + 1]
    return dark / dark.sum(), light / light.sum()


def _masked_row_median(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per row of ``values`` (N, M, C), the median over the M entries ``mask`` (N, M) keeps
    (zeros for a row with none), in one sort rather than a call per row."""
    n = mask.sum(axis=1)
    srt = np.where(mask[..., None], np.asarray(values, np.float32), np.float32(np.inf))
    srt.sort(axis=1)
    rows = np.arange(len(values))
    lo = np.maximum(n - 1, 0) // 2
    hi = np.maximum(n // 2, lo)
    med = 0.5 * (srt[rows, lo] + srt[rows, hi])
    out: np.ndarray = np.where((n > 0)[:, None], med, np.float32(0.0)).astype(np.float32)
    return out


@functools.lru_cache(maxsize=4)
def _hypothesis_arrays(cap: int) -> tuple[np.ndarray, np.ndarray]:
    """Per column hypothesis (``hypotheses(cap)``): where its checkers' colour is sampled (H, M
    bool) and how many checkers touch from the edge (H,). The colour is sampled where a whole
    disc shows; a full column with a checker laid over every one of them (2 * cap - 1
    checkers) shows none, and is sampled where the laid checkers lie instead (sampled nowhere,
    its colour was black: nine white checkers were read as the darker player's)."""
    hyps = hypotheses(cap)
    shows = np.array([[e == 1 for e in h.expect] for h in hyps])
    laid = np.array([[e == 3 for e in h.expect] for h in hyps])
    bare = ~shows.any(axis=1)
    shows[bare] = laid[bare]
    n0s = np.array([h.n0 for h in hyps], dtype=np.float64)
    return shows, n0s


def dice_and_cube(frame: PreparedFrame, slot_counts: list[tuple[int, int] | None] | None = None
                  ) -> DiceAndCube:
    """Dice and cube on the board (see ``vision.dice.board_pass``; ``slot_counts``: this
    frame's, for what a die could lean on)."""
    from vision.dice.board_pass import read_frame  # late: board_pass imports this module

    return read_frame(frame, slot_counts=slot_counts)


# A die lying on the board (not on a checker) within this many mm of a column place's centre
# means no checker stands there: with one, the die would overlap it (a checker's radius and
# half a die, 29.5 mm, less what the die's read centre and the checker's place may be off
# by). A checker whose whole rim shows there stays all the same (``read_columns``), so the
# reach is not held down to a checker's radius as it was (15 mm): with 20 mm, the table's
# readings of synthetic throws 3000-3199 and 16000-16599 get 19 -> 16 of 19,200 slots wrong,
# none newly.
CLEAR_REACH_MM = 20.0
# ... and the cube (offered, BG-CUBE-3, it lies on the board), a checker's radius less a
# little: a cube of any usual size (25 to 40 mm) centred this near would lie on the checker.
# Chosen on synthetic throws 3000-3199 (board slots wrong 7 -> 4 of 4800, with 15 mm 6 and
# 25 mm 4) and checked on 12000-12199 (7 -> 5).
CUBE_CLEAR_REACH_MM = 20.0


def clear_places(frame: PreparedFrame, dice_mm: Sequence[tuple[float, float]],
                 cube_mm: tuple[float, float] | None = None) -> np.ndarray | None:
    """(24 x M uint8) the column places (``Layout.centres``) a die lying on the board at one
    of ``dice_mm`` (board mm; dice on no checker: ``BY_DIE``), or the cube at ``cube_mm``
    (``BY_CUBE``, where both), leaves no room for a checker (``read_columns``' ``clear``);
    None for none."""
    reach = [CLEAR_REACH_MM] * len(dice_mm)
    at = list(dice_mm)
    by = [BY_DIE] * len(dice_mm)
    if cube_mm is not None:
        at.append(cube_mm)
        reach.append(CUBE_CLEAR_REACH_MM)
        by.append(BY_CUBE)
    if not at:
        return None
    lay = layout_for(frame.canonical)
    s = frame.canonical.px_per_mm
    px = np.array([frame.canonical.mm_to_px(x, y) for x, y in at])  # (K, 2)
    gap = lay.centres[:, :, None, :] - px[None, None, :, :]  # (24, M, K, 2)
    near = np.hypot(gap[..., 0], gap[..., 1]) < np.array(reach) * s
    cleared = np.where(near, np.array(by, np.uint8), np.uint8(0)).max(axis=-1)
    return cleared if cleared.any() else None


def read_prepared(frame: PreparedFrame, name: str | None = None, *,
                  dice: bool = True,
                  clear_at: Sequence[tuple[float, float]] = (),
                  cube_at: tuple[float, float] | None = None) -> BoardReading:
    """Count every slot and the bar of a prepared frame, and find what is hidden (and, unless
    ``dice`` is False, read the dice and the cube). ``clear_at``: where dice lie on the board
    on no checker (board mm), and ``cube_at``, where the cube lies, leaving no room there for
    a checker, whatever their edges look like (but a die where a checker's whole rim shows:
    ``read_columns``); with ``dice``, those read are taken so as well (the board read again
    when any lies in a column), but for a die read less surely than the table's camera floors
    keep (``vision.dice.reading.kept_die``: a reflection)."""
    given = clear_places(frame, clear_at, cube_at)
    reading = _read_checkers(frame, name, given, cube_at)
    if dice:
        from vision.dice.reading import kept_die  # late: the dice pass imports this module

        found = dice_and_cube(frame, reading.slot_counts())
        cube = cube_at if found.cube is None else found.cube.centre_mm
        clear = clear_places(frame, [*clear_at, *(d.centre_mm for d in found.dice
                                                  if not d.on_checker
                                                  and kept_die(d.flat, d.confidence))], cube)
        if ((clear is not None and (given is None or (clear != given).any()))
                or (cube != cube_at and _on_bar(frame, cube))):
            # only when the dice clear more, or the cube lies on the bar (where the bar's
            # checker search may have taken it for a checker, or its light for theirs)
            reading = _read_checkers(frame, name, clear, cube)
        reading.dice, reading.cube = found.dice_json(), found.cube_json()
    return reading


def _cube_reach(frame: PreparedFrame, cube_mm: tuple[float, float] | None
                ) -> tuple[float, float, float] | None:
    """Where the cube lies (reading raster px) and :data:`CUBE_CLEAR_REACH_MM` in px: no bar
    checker is read that near it (the cube itself, centred on the bar, BG-CUBE-1's place,
    shows a disc's four rims there); None for no cube."""
    if cube_mm is None:
        return None
    u, v = frame.canonical.mm_to_px(*cube_mm)
    return float(u), float(v), CUBE_CLEAR_REACH_MM * frame.canonical.px_per_mm


def _on_bar(frame: PreparedFrame, cube_mm: tuple[float, float] | None) -> bool:
    """Whether a cube at ``cube_mm`` (board mm; None: no cube) lies on the bar."""
    return cube_mm is not None and frame.calibration.geometry.bar.contains(*cube_mm)


def _read_checkers(frame: PreparedFrame, name: str | None, clear: np.ndarray | None,
                   cube_mm: tuple[float, float] | None = None) -> BoardReading:
    """:func:`read_prepared` without the dice and the cube (``cube_mm``: where the cube lies,
    board mm: no bar checker is read under it)."""
    config = frame.config
    cfg = config.checkers
    lay: Layout = layout_for(frame.canonical)
    cols = read_columns(frame.edges, lay, cfg, frame.side_edges, clear)
    dists = cols.count_distribution(cfg.max_count)
    best_idx = cols.posterior.argmax(axis=1)
    shows, n0s = _hypothesis_arrays(lay.cap)
    # colour samples at the discs each slot's most likely hypothesis shows (only there)
    m_count = lay.centres.shape[1]
    show = shows[best_idx]  # (24, M)
    shown = np.flatnonzero(show)
    colours_at = np.zeros((24 * m_count, 3), np.float32)
    if len(shown):
        colours_at[shown] = slot_disc_colours(frame.bgr, lay, shown)
    colours_at = colours_at.reshape(24, m_count, 3)
    slot_colour = _masked_row_median(colours_at, show)
    slot_present = 1.0 - dists[:, 0]
    cands = bar_candidates(frame.bgr, frame.edges, frame.side_edges, lay, cfg, frame.gradients,
                           _cube_reach(frame, cube_mm))
    bar_bgr = (
        disc_colours(frame.bgr, np.array([[c.x, c.y] for c in cands]), lay)
        if cands
        else np.zeros((0, 3), np.float32)
    )
    cands = not_the_bar(frame.bgr, lay, cands, bar_bgr, slot_colour[slot_present > 0.5], cfg)
    samples = np.concatenate([slot_colour, bar_bgr])  # float32 both
    weights = np.concatenate([slot_present, np.array([c.p for c in cands])])
    colours = _ColourModel(samples, weights, cfg)
    p_dark_slots = colours.p_darker(slot_colour)
    p_dark_bar = colours.p_darker(bar_bgr) if cands else np.zeros(0)
    # occlusion: how far each column is filled (in checker diameters)
    filled = n0s[best_idx]
    occ = find_occlusion(frame.bgr, frame.canonical, filled,
                         [c.y for c in cands if c.p > 0.5], config.occlusion, frame.side_edges,
                         _checker_colours(slot_colour, slot_present, p_dark_slots))
    hidden = set(occ.hidden_slots)
    # each slot's probabilities are a row of this frame's own table (read only by everyone)
    slots = [
        SlotReading(row, pd, hidden=i in hidden)
        for i, (row, pd) in enumerate(zip(dists, p_dark_slots.tolist(), strict=True))
    ]
    dark, light = _bar_distribution(cands, p_dark_bar, cfg.max_count)
    centres = [(c.x, c.y) for c in cands if c.p > 0.5]
    bar = BarReading(dark, light, hidden=occ.bar_hidden, centres=centres)
    reading = BoardReading(slots, bar, occ, frame.calibration, image=name)
    reading.off_source = functools.partial(_off_distribution, frame, colours)
    reading.slot_colours = slot_colour
    return reading


# A side's checkers at the start of a game, by point: 2, 5, 3 and 5 (BG-EQ-3).
START_STACKS = (2, 3, 5, 5)


def start_colours(reading: BoardReading) -> tuple[tuple[int, int, int],
                                                  tuple[int, int, int]] | None:
    """The two checker colours (BGR, darker first), learned from a frame that shows the
    starting position: every slot read, none hidden, eight slots taken, four of each colour
    holding 2, 3, 5 and 5 checkers. None for any other frame. Put them in the configuration
    (``with_colours``) and later frames tell the sides apart by these colours rather than by
    which is darker in the frame."""
    if reading.occluded or reading.slot_colours is None:
        return None
    counts = reading.slot_counts()
    groups: dict[int, list[int]] = {0: [], 1: []}
    for i, c in enumerate(counts):
        if c is None:
            return None
        a, b = c
        if a:
            groups[0].append(i)
        elif b:
            groups[1].append(i)
    if reading.bar.counts != (0, 0):
        return None
    for side in (0, 1):
        if tuple(sorted(sum(counts[i] or (0, 0)) for i in groups[side])) != START_STACKS:
            return None
    out = []
    for side in (0, 1):
        med = np.median(reading.slot_colours[groups[side]], axis=0)
        out.append((round(float(med[0])), round(float(med[1])), round(float(med[2]))))
    return out[0], out[1]


def with_colours(config: VisionConfig,
                 colours: tuple[tuple[int, int, int], tuple[int, int, int]]) -> VisionConfig:
    """``config`` with the checker colours (darker, lighter BGR) fixed."""
    checkers = replace(config.checkers, darker_bgr=colours[0], lighter_bgr=colours[1])
    return replace(config, checkers=checkers)


def read_board(
    image: np.ndarray,
    *,
    corners: np.ndarray | None = None,
    config: VisionConfig = DEFAULT_CONFIG,
    name: str | None = None,
    calibration: Calibration | None = None,
    dice: bool = True,
) -> BoardReading:
    """Read one picture: corners (TL, TR, BR, BL px) if given, else the configured corners,
    else the ArUco markers. Raises ImageError (or a leaf) for a picture it cannot use."""
    img = check_image(image, name or "image")
    if calibration is None:
        if corners is None and config.corners is not None:
            corners = np.array(config.corners, dtype=np.float32).reshape(4, 2)
        calibration = locate_board(img, config.geometry, corners)
    frame = prepare(img, calibration, config)
    return read_prepared(frame, name, dice=dice)
