"""Dice and cube read again only where the picture changed: one table's memory of its last
readings (owned by its frame reader, never module-wide).

The camera and the board of a table do not move, and between throws the dice and the cube lie
as they lay, so most still frames the referee reads show them unchanged. :class:`DiceMemory`
keeps a small grey top-down raster of the whole case (trays and frame included: a die thrown
off the playing surface counts too, BG-ROLL-2) as it looked when each part was last read, and
the dice read then. On a new frame a change map (:func:`change_mask`: the difference with that
raster, blurred against camera noise and scaled to the frame's exposure) says where anything
changed by more than :data:`CHANGE_LEVEL` grey levels. About the dice read every pixel is
compared with itself; elsewhere a pixel changed only when it leaves the range its neighbours
had (:data:`SHIFT_PX`) over a block of :data:`MIN_BLOCK_PX` pixels: the picture or a checker
a few millimetres aside is no new die (a die, the cube or a checker put down or taken away
changes its whole inside). Then:

- nothing changed: the last dice, as they were;
- a die whose own square (:data:`DIE_REACH_DIES` about it, every pixel against the one it
  was read on) changed is dropped and read again: a die nudged (BG-MOVE-8), picked up, a
  checker put down against it, a hand over it; a checker moved a little farther off leaves
  its reading as it was (a die comes onto a checker or tips only by moving);
- candidates are looked for only where the picture changed (a new throw lands where it
  changed) and around the dice dropped, yet ranked as a fresh read ranks them: the raster
  model's first stage (:class:`RasterPeaks`: the corner peaks of the whole case and the ray
  model's places about the strongest) is kept and updated only in the changed parts, so the
  same few places (the strongest peaks of the whole board, the most probable places) are
  read; every later stage is ``vision.dice.board.read_board_dice``'s own (:func:`read_dice_at`);
- at a table with one pair of dice (BG-EQ-2), while the two dice of the throw the referee
  judged lie untouched (:meth:`DiceMemory.hold_pair`), no changed part is read for dice: nobody
  has picked the pair up to throw;
- a change of the light beyond :data:`MAX_FLICKER`, or over more than
  :data:`MAX_CHANGED_SHARE` of the case (a bump of the camera), reads the frame whole.

:class:`CubeMemory` takes a cube lying still again (its patch unchanged), and looks for one
whose patch changed where it lay and where the picture changed since (the whole case when it
is not there); after a search that found none it searches only where the same change map
shows a change of a die's size or more (a die that leaves may uncover a
cube it hid); every :data:`NONE_WHOLE_EVERY`-th frame again where the
picture changed since the last such search, and every :data:`WHOLE_EVERY_ROUNDS`-th time the
whole case instead; a cube lost is looked for where the picture changed since it was found.

On streams where a scene shown again is the very same picture, these readings equal a fresh
read of each frame (``tests.vision.test_dice_reuse``; ``tests.bench.dice`` counts it), but
where a fresh read reads a die (or none) under a checker laid again a few millimetres aside
(the demo lays every checker again when any moves): the memory sees no change there. Under
live camera noise a fresh read itself flickers (a borderline die or board-texture candidate
in one frame and not the next); the memory then keeps the reading of the frame it read.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.errors import ConfigError
from vision.cube import CubeReading, cube_patch
from vision.dice.board import BoardDie, read_board_dice
from vision.dice.candidates import (
    READ_THRESHOLD,
    SPOT_REACH_DIES,
    _local_scale,
    _raster_warp,
    within_budget,
)
from vision.dice.pips import to_gray
from vision.dice.raster import (
    EIGEN_BLOCK,
    MAX_PEAKS,
    OFFSETS,
    PATCH_PX,
    PEAK_WINDOW,
    RASTER_PPM,
    SUM_BOX,
    die_probability,
    nonzero_2d,
    ray_features,
    ray_samples,
    topdown_maps,
)
from vision.geometry import BoardGeometry, Canonical

CHANGE_PPM = 0.35  # the change map's scale: ~2.9 mm a pixel (a die is ~5.6 px)
CHANGE_BLUR = 0.6  # Gaussian sigma (change-map px) against camera noise before the difference
# grey levels a change-map pixel must move by to count as changed: camera noise moves the
# blurred, downscaled raster by a few levels; a die's edge shifted by a millimetre, a pip, a
# hand, a checker, by tens
CHANGE_LEVEL = 10.0
# away from the dice a change map pixel counts as changed only when it leaves the range of
# grey its neighbours within this many change-map px (~2.9 mm each) had, both ways: a checker
# or the board a hair's breadth aside (a player's sleeve, a jolt of the table, the demo's
# checkers laid again) is no new die or cube, while a die, a cube or a checker put down or
# taken away changes its whole inside. About a die already read every pixel is compared with
# the same pixel (:func:`change_mask`): a die nudged by a millimetre is read again (BG-MOVE-8)
SHIFT_PX = 1
MIN_BLOCK_PX = 2  # ... and (away from the dice) changes a block of this many px square
# the light of a whole frame may flicker by this share (a camera's exposure): the reference is
# scaled by the frame's overall gain first; a larger change of the light reads the frame whole
MAX_FLICKER = 0.06
GAIN_FLOOR = 40.0  # grey levels: darker change-map pixels do not measure the gain
# where the frame differs from the reference by more than this but by no change (a shift,
# a speck), the reference takes the frame's picture: camera noise (a grey level or so on
# the change map) will not carry it over CHANGE_LEVEL on a later frame
ABSORB_LEVEL = 0.5 * CHANGE_LEVEL
GAIN_STEADY = 0.005  # a gain closer to 1 than this is no flicker (the reference is not scaled)
# the camera frame is halved first (its pixels averaged: less noise) while still this many
# times finer than the change map (halving a 1280 x 720 frame costs more than the rest)
HALVE_ABOVE = 4.0
# a die's reading depends on the picture this many checker diameters about its centre (half
# the side of a square): the on-checker test's patch is 2.2 checker radii either side; the
# reference takes the picture there when a die is read
NEIGHBOURHOOD_CHECKERS = 1.15
# a die is read again only when the picture changed within this many dice of its centre (half
# a square's side: its face, a tilted die's side face, a few mm about them, every pixel against
# the one it was read on); a checker moved beside it leaves it as it lay (it can come to rest on
# a checker, or off one, only by moving), so it keeps the reading it had
DIE_REACH_DIES = 0.75
# changed pixels are widened by this many dice before candidates are looked for there: a die
# only partly changed (nudged by less than its size) is still looked for whole
SEARCH_DIES = 1.0
# a die lies where the picture changed since the board before the throw when it changed within
# this many dice of its centre (half a square's side: the die itself, and the few mm a tilted
# die's read centre may lie off): a thorough read keeps only such dice, and the referee counts
# such a die as thrown again even where a die lay (DiceMemory.changed_since_press)
THROWN_REACH_DIES = 0.75
# a die read flat with a cocked probability from this on is more likely cocked than not: a
# thorough read takes another read's tilted face there for it (thorough_dice). The default
# only: the pipeline passes the referee's RecognitionSettings.flat_doubt (which leaves such a
# throw unjudged) to read_thoroughly, so one table setting moves both
FLAT_DOUBT = 0.5
MAX_CHANGED_SHARE = 0.35  # more of the case changed than this: the frame is read whole
STILL_DIFF = 25.0  # the cube's patch (6 x 6 means) changed by less: it has not moved
NONE_SEARCH_EVERY = 4  # with no cube found and nothing changed, one frame in this many searches
# with no cube found, a table's frames are searched only where the picture changed, but one in
# this many again where it changed since the last such search (a cube a search missed on one
# frame's noise is not missed for long: it can only lie where the picture changed) ...
NONE_WHOLE_EVERY = 12
# ... and one such search in this many is of the whole case (a cube missed twice)
WHOLE_EVERY_ROUNDS = 4
# a part where the picture changed is searched again on this many frames after (a search may
# miss a cube on one frame's noise)
PART_RETRIES = 0
# a cube found and found no more (taken away, or missed on one frame's noise): where the
# picture changed since it was found is searched on this many frames
LOST_RETRIES = 8
# a cube put down changes the picture over most of its face; a change narrower than this many
# cube sides both ways (a speck, an edge a hair aside) is no new cube. A die thrown or picked up
# (about 0.4 of a cube's side) counts: a die lying against a cube (BG-CUBE-3's offer) may hide
# it from the search, which finds it once the die leaves (0.7 left such a cube unfound until a
# whole search: the offered cube of table stream 3, tests.bench.dice, was read on 48 of 120
# frames, 99 fresh)
MIN_CUBE_CHANGE = 0.3


@functools.lru_cache(maxsize=4)
def _inverse(to_mm: bytes) -> np.ndarray:
    """The inverse of a 3x3 homography (float64 bytes), worked out once per camera set-up
    (the camera and the board stay put); not to be written to."""
    out: np.ndarray = np.linalg.inv(np.frombuffer(to_mm, np.float64).reshape(3, 3))
    out.flags.writeable = False
    return out


def frame_key(corners: np.ndarray, geometry: BoardGeometry) -> bytes:
    """The camera set-up a memory belongs to (another set-up starts afresh)."""
    return np.asarray(corners, np.float32).tobytes() + repr(geometry).encode()


@functools.lru_cache(maxsize=4)
def _change_warp(from_mm: tuple[float, ...], geometry: BoardGeometry, shape: tuple[int, int]
                 ) -> tuple[Canonical, int, np.ndarray, np.ndarray]:
    """The change map's raster of the whole case, how many times the camera frame is halved
    first (so each raster pixel averages the pixels it covers: less noise) and the remap
    tables from the halved frame; kept per camera set-up."""
    canonical = Canonical.whole_board(geometry, CHANGE_PPM)
    h = np.array(from_mm, np.float64).reshape(3, 3)
    scale = _local_scale(h, geometry.width_mm / 2, geometry.height_mm / 2)
    halvings = 0
    size = min(shape)
    while scale / 2 >= CHANGE_PPM * HALVE_ABOVE and size >= 128:
        scale, size, halvings = scale / 2, size // 2, halvings + 1
    h = np.diag([0.5 ** halvings, 0.5 ** halvings, 1.0]) @ h
    m1, m2 = topdown_maps(h, -canonical.margin_mm[0], -canonical.margin_mm[1], canonical.size,
                          CHANGE_PPM)
    return canonical, halvings, np.asarray(m1), np.asarray(m2)


class Halvings:
    """A camera frame and its halvings (``cv2.pyrDown``), each worked out once: a read
    needs the first for the change map and again for the candidate raster (about a
    millisecond each time on a 1280 x 720 frame)."""

    def __init__(self, image: np.ndarray) -> None:
        self.levels = [image]

    def level(self, k: int) -> np.ndarray:
        """The frame halved ``k`` times."""
        while len(self.levels) <= k:
            self.levels.append(cv2.pyrDown(self.levels[-1]))
        return self.levels[k]


def change_raster(image: np.ndarray, from_mm: np.ndarray, geometry: BoardGeometry,
                  halvings: Halvings | None = None) -> tuple[Canonical, np.ndarray]:
    """The whole case top-down at :data:`CHANGE_PPM`, grey, blurred (float32): what the
    change map compares from frame to frame (``halvings``: the frame's, shared)."""
    key = tuple(np.round(from_mm, 9).reshape(-1).tolist())
    canonical, times, m1, m2 = _change_warp(key, geometry, image.shape[:2])
    src = (halvings or Halvings(image)).level(times)
    gray = to_gray(cv2.remap(src, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
    return canonical, cv2.GaussianBlur(gray.astype(np.float32), (0, 0), CHANGE_BLUR)


def exposure_gain(now: np.ndarray, ref: np.ndarray) -> float:
    """The light of ``now`` over that of ``ref`` (median ratio of their lit pixels, a sample
    of them): 1.0 for the same light, whatever changed on a small part of the case."""
    a, b = now[::3, ::3].reshape(-1), ref[::3, ::3].reshape(-1)
    lit = b > GAIN_FLOOR
    if int(np.count_nonzero(lit)) < 16:
        return 1.0
    return _median(a[lit] / b[lit])


def _median(values: np.ndarray) -> float:
    """``np.median`` of float32 values (the middle one, or the two middle ones' float32 mean:
    the same value), from a sort: several times faster than its partition here."""
    ranked = np.sort(values)
    half = len(ranked) // 2
    return float(ranked[half] if len(ranked) % 2 else (ranked[half - 1] + ranked[half]) / 2)


def change_mask(now: np.ndarray, ref: np.ndarray, strict: np.ndarray | None = None
                ) -> np.ndarray | None:
    """Where ``now`` changed from ``ref`` (two :func:`change_raster` outputs), after the
    reference is scaled to the frame's light; None when the light itself changed by more than
    :data:`MAX_FLICKER`. Inside ``strict`` (a bool mask: about the dice read) each pixel is
    compared with the same pixel; elsewhere with the range of its neighbours within
    :data:`SHIFT_PX` (see there)."""
    level = np.float32(CHANGE_LEVEL)
    diff = cv2.absdiff(now, ref)
    same: np.ndarray = diff > level
    if not same.any():  # the usual still frame: nothing moved, the light steady
        return same
    gain = exposure_gain(now, ref)
    if abs(gain - 1.0) > MAX_FLICKER:
        return None
    scaled = ref
    if abs(gain - 1.0) > GAIN_STEADY:
        scaled = ref * np.float32(gain)
        diff = cv2.absdiff(now, scaled)
        same = diff > level
    if strict is not None and strict.all():
        return same
    # the range test and speck filter only about where the pixels differ (see _range_box):
    # a few dozen change-map px a frame, not the whole case
    shifted = np.zeros(now.shape, bool)
    box = _range_box(diff, level)
    if box is not None:
        v0, v1, u0, u1 = box
        shifted[v0:v1, u0:u1] = _shifted(now[v0:v1, u0:u1], scaled[v0:v1, u0:u1], level)
    if strict is not None:
        np.copyto(shifted, same, where=strict.astype(bool, copy=False))
    return shifted


def _range_box(diff: np.ndarray, level: np.float32) -> tuple[int, int, int, int] | None:
    """The rows v0:v1 and columns u0:u1 of the change map outside which :func:`_shifted` finds
    nothing (None: nowhere), from ``diff``, each pixel's difference with its own reference.
    The range of a pixel's neighbours holds the pixel itself, so it can be left only where
    ``diff`` passes the level (a grey level less: float rounding); the speck filter's blocks
    reach a pixel beyond such pixels, and telling them needs the range test's neighbours."""
    rows, cols = nonzero_2d(diff > level - 1.0)
    if len(rows) == 0:
        return None
    m = max(SHIFT_PX, MIN_BLOCK_PX - 1)
    h, w = diff.shape
    return (max(0, int(rows.min()) - m), min(h, int(rows.max()) + 1 + m),
            max(0, int(cols.min()) - m), min(w, int(cols.max()) + 1 + m))


def _shifted(now: np.ndarray, scaled: np.ndarray, level: np.float32) -> np.ndarray:
    """Where ``now`` leaves the range of grey ``scaled`` had within :data:`SHIFT_PX` (or the
    reverse) by more than ``level``, specks narrower than :data:`MIN_BLOCK_PX` left out."""
    k = np.ones((2 * SHIFT_PX + 1, 2 * SHIFT_PX + 1), np.uint8)
    shifted = ((now > cv2.dilate(scaled, k) + level) | (now < cv2.erode(scaled, k) - level)
               | (scaled > cv2.dilate(now, k) + level) | (scaled < cv2.erode(now, k) - level))
    # a speck of a change-map pixel or two is an edge that moved: whatever is new on the case
    # (a die, the cube, a checker) changes a block of pixels at least this wide
    speck = np.ones((MIN_BLOCK_PX, MIN_BLOCK_PX), np.uint8)
    out: np.ndarray = cv2.morphologyEx(shifted.astype(np.uint8), cv2.MORPH_OPEN, speck
                                       ).astype(bool)
    return out


def absorb(ref: np.ndarray, now: np.ndarray, changed: np.ndarray) -> None:
    """The reference takes the frame's picture where the two differ by more than
    :data:`ABSORB_LEVEL` but by what :func:`change_mask` counts as no change (a shift of a
    hair, a speck, the exposure), so the next still frame compares with what the camera now
    sees (and, nothing moving, costs no more than one difference). About the dice every
    difference over :data:`CHANGE_LEVEL` counts as a change, so drift there still adds up
    frame after frame."""
    quiet = (cv2.absdiff(now, ref) > np.float32(ABSORB_LEVEL)) & ~changed
    np.copyto(ref, now, where=quiet)


def _cube_boxes(changed: np.ndarray, canonical: Canonical
                ) -> list[tuple[float, float, float, float]]:
    """Where a cube's centre can lie after the picture changed: boxes (x0, y0, x1, y1 board
    mm) about the parts of a change map at least :data:`MIN_CUBE_CHANGE` of a cube's side
    across one way or the other, half a cube's side wider all round. A light cube put on a
    light field changes little more than its number and its shadow, so the changed part need
    not hold its centre (a cube offered where a die lay was missed for that: match7986278)."""
    side = canonical.geometry.cube_size_mm
    least = MIN_CUBE_CHANGE * side * canonical.px_per_mm
    half = 0.5 * side
    out = []
    for x, y, w, h in _component_boxes(changed.astype(np.uint8)):
        if w >= least or h >= least:
            x0, y0 = canonical.px_to_mm(x - 0.5, y - 0.5)
            x1, y1 = canonical.px_to_mm(x + w - 0.5, y + h - 0.5)
            out.append((x0 - half, y0 - half, x1 + half, y1 + half))
    return out


def _component_boxes(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    """The bounding boxes (x, y, w, h px) of a mask's 8-connected parts (a part lying inside
    another's hole is left out: its box lies in the other's)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        out.append((int(x), int(y), int(w), int(h)))
    return out


def _box(canonical: Canonical, shape: tuple[int, ...], x: float, y: float, half_mm: float
         ) -> tuple[int, int, int, int]:
    """Change-map pixels (u0, v0, u1, v1; end exclusive) of a square about (x, y) mm."""
    u0, v0 = canonical.mm_to_px(x - half_mm, y - half_mm)
    u1, v1 = canonical.mm_to_px(x + half_mm, y + half_mm)
    h, w = shape[:2]
    return (max(0, math.floor(u0)), max(0, math.floor(v0)),
            min(w, math.ceil(u1) + 1), min(h, math.ceil(v1) + 1))


@dataclass
class ReuseStats:
    """What a memory did, frame by frame: for benchmarks and evaluations."""

    frames: int = 0
    unchanged: int = 0  # nothing changed: the last dice, no reading at all
    partial: int = 0  # only the changed parts read
    full: int = 0  # read whole (first frame, another set-up, a change over most of the case)
    thorough: int = 0  # read whole with the spot candidates as well (read_thoroughly)
    dice_read_again: int = 0  # dice dropped and read again in partial reads
    unthrown_dropped: int = 0  # dice a thorough read found where nothing changed since the press
    last: str = ""  # what the last frame was: "unchanged", "partial", "full" or "thorough"


@dataclass
class CubeStats:
    """How a table's cube was read, frame by frame: for benchmarks and evaluations."""

    frames: int = 0
    still: int = 0  # the cube found before, its patch unchanged: taken again
    none_kept: int = 0  # no cube before and nothing changed: no search
    parts: int = 0  # searched only where the picture changed (no cube before, or it moved)
    whole: int = 0  # searched whole


@dataclass
class CubeMemory:
    """The last cube search at a table: the camera set-up, the patch about the cube found
    and its reading, or that none was found, with the picture it was not found on and the
    searched raster's light levels (BG-CUBE-*: between throws the cube lies still; where no
    cube lay, one can only have been put where the picture changed)."""

    still: tuple[bytes, np.ndarray, CubeReading] | None = None
    none_for: bytes | None = None  # the set-up whose last search found no cube
    none_taken: int = 0  # frames since that search which took its "no cube" again
    none_raster: np.ndarray | None = None  # the change raster no cube was found on
    none_levels: tuple[float, float] | None = None  # the whole search's light levels
    # where the picture changed since the last whole search or search again (change-map px),
    # and how many searches again there have been since the whole one
    since: np.ndarray | None = None
    rounds: int = 0
    seen_raster: np.ndarray | None = None  # the change raster the cube was last seen on
    seen_levels: tuple[float, float] | None = None  # ... and its search's light levels
    lost_from: np.ndarray | None = None  # that raster, when the cube has just been lost
    # parts still to be searched again (board mm) and on how many more frames
    pending: list[tuple[tuple[float, float, float, float], int]] = field(default_factory=list)
    stats: CubeStats = field(default_factory=CubeStats)

    def forget(self) -> None:
        """The next frame is searched whole."""
        self.still = None
        self.none_for = None
        self.none_raster = None
        self.none_levels = None
        self.seen_raster = None
        self.seen_levels = None
        self.lost_from = None
        self.pending = []
        self.since = None
        self.rounds = 0

    def none_parts(self, key: bytes, canonical: Canonical, now: np.ndarray
                   ) -> list[tuple[float, float, float, float]] | None:
        """After a search that found no cube at this set-up: the boxes (x0, y0, x1, y1 board
        mm) a new search need look at (``[]``: none, still no cube), or None: search whole
        (no such search, another set-up, the light or most of the case changed, or every
        :data:`WHOLE_EVERY_ROUNDS`-th search again). Every :data:`NONE_WHOLE_EVERY`-th
        frame, where it changed since the last whole search or search again is searched
        again (the search there may have missed a cube on its frame's noise).

        The boxes are about where the picture (``now``, :func:`change_raster`'s, on
        ``canonical``) changed since, over :data:`MIN_CUBE_CHANGE` of a cube's side (half a
        cube's side wider: :func:`_cube_boxes`), each looked at again on
        the next :data:`PART_RETRIES` frames (a search missing a cube on one frame's noise),
        and, once a cube found has been lost, where the picture changed since it was found,
        on the next :data:`LOST_RETRIES` frames (wherever it was put, the picture changed)."""
        ref = self.none_raster
        again = self.none_taken + 1 >= NONE_WHOLE_EVERY
        if (self.none_for != key or ref is None or self.none_levels is None
                or ref.shape != now.shape or (again and self.rounds + 1 >= WHOLE_EVERY_ROUNDS)):
            return None
        changed = change_mask(now, ref)
        if changed is None or np.count_nonzero(changed) > MAX_CHANGED_SHARE * changed.size:
            return None
        self.none_taken += 1
        absorb(ref, now, changed)
        self.since = changed if self.since is None else self.since | changed
        if again:
            self.pending += [(b, 1) for b in _cube_boxes(self.since, canonical)]
            self.none_taken, self.rounds, self.since = 0, self.rounds + 1, None
        if self.lost_from is not None and self.lost_from.shape == now.shape:
            moved = change_mask(now, self.lost_from)
            if moved is not None:
                self.pending += [(b, LOST_RETRIES) for b in _cube_boxes(moved, canonical)]
        self.lost_from = None
        if changed.any():
            self.pending += [(b, PART_RETRIES + 1) for b in _cube_boxes(changed, canonical)]
            # the reference moves on where the parts are searched (or ruled out)
            grown = cv2.dilate(changed.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
            ref[grown] = now[grown]
        out = [box for box, _left in self.pending]
        self.pending = [(box, left - 1) for box, left in self.pending if left > 1]
        return out

    def moved_parts(self, key: bytes, canonical: Canonical, now: np.ndarray
                    ) -> list[tuple[float, float, float, float]] | None:
        """For a cube found at this set-up whose patch has changed (turned, moved, taken
        away, or a hand over it): the boxes (board mm) where it can lie now, its place and
        where the picture (``now``) changed since it was last seen there (each pixel against
        itself, over :data:`MIN_CUBE_CHANGE` of a cube's side, half a cube's side wider:
        :func:`_cube_boxes`); None: search whole (no such cube, the light or most of the case
        changed)."""
        if (self.still is None or self.still[0] != key or self.seen_raster is None
                or self.seen_levels is None or self.seen_raster.shape != now.shape):
            return None
        changed = change_mask(now, self.seen_raster, np.ones(now.shape, bool))
        if changed is None or np.count_nonzero(changed) > MAX_CHANGED_SHARE * changed.size:
            return None
        x, y = self.still[2].centre_mm
        half = 0.5 * canonical.geometry.cube_size_mm
        return [(x - half, y - half, x + half, y + half), *_cube_boxes(changed, canonical)]

    def reuse(self, key: bytes, image: np.ndarray, from_mm: np.ndarray, size_mm: float,
              raster: np.ndarray | None = None) -> CubeReading | None:
        """The cube found before, when its patch has not changed (the same face at the same
        place); None when it must be searched for. ``raster``: this frame's change raster,
        kept as the picture the cube was last seen on when it has not (a cube moved later
        lies where it lay or where the picture changed since: :meth:`moved_parts`)."""
        if self.still is None or self.still[0] != key:
            return None
        before = self.still[2]
        patch = cube_patch(image, from_mm, before.centre_mm, size_mm)
        change = cv2.resize(cv2.absdiff(patch, self.still[1]), (6, 6),
                            interpolation=cv2.INTER_AREA)
        if float(change.max()) >= STILL_DIFF:
            return None
        if raster is not None and self.seen_raster is not None \
                and raster.shape == self.seen_raster.shape:
            self.seen_raster[...] = raster
        return before

    def none_still(self, key: bytes, unchanged: bool) -> bool:
        """No cube was found on the last search and nothing on the whole case has changed
        since (``unchanged``: a :class:`DiceMemory`'s word for this frame): the search is not
        repeated, but for every :data:`NONE_SEARCH_EVERY`-th such frame (a cube the search
        missed on one frame's noise is not missed for long)."""
        if not unchanged or self.none_for != key or self.none_taken + 1 >= NONE_SEARCH_EVERY:
            return False
        self.none_taken += 1
        return True

    def keep(self, key: bytes, image: np.ndarray, from_mm: np.ndarray, size_mm: float,
             found: CubeReading | None, raster: np.ndarray | None = None,
             levels: tuple[float, float] | None = None) -> None:
        """Remember the cube just found or that none was, on the change raster ``raster``,
        by a search with the whole raster's light ``levels`` (for :meth:`none_parts` and
        :meth:`moved_parts`)."""
        if found is not None:
            self.seen_raster = None if raster is None else raster.copy()
            self.seen_levels = levels
            self.lost_from, self.pending = None, []
        elif self.still is not None:  # the cube found before is lost: where has it gone?
            self.lost_from, self.seen_raster, self.seen_levels = self.seen_raster, None, None
        self.none_for = key if found is None else None
        self.none_taken = 0
        self.since, self.rounds = None, 0
        if found is None and raster is not None and levels is not None:
            self.none_raster, self.none_levels = raster.copy(), levels
        else:
            self.none_raster, self.none_levels = None, None
        self.still = None if found is None else (
            key, cube_patch(image, from_mm, found.centre_mm, size_mm), found)


@dataclass
class DiceMemory:
    """One table's dice as last read and the picture they were read on (see the module
    docstring). :meth:`read` gives the dice of a new frame, read again only where it
    changed; ``enabled=False`` reads every frame whole (for comparison)."""

    enabled: bool = True
    stats: ReuseStats = field(default_factory=ReuseStats)
    _key: bytes | None = None
    _reference: np.ndarray | None = None
    _peaks: RasterPeaks | None = None
    _dice: list[BoardDie] = field(default_factory=list)
    _thorough: bool = False  # the next whole read adds the spot candidates
    _doubt: float = FLAT_DOUBT  # ... and settles dice read flat from this cocked probability on
    _mark_before: bool = False  # the next read's picture is the board before a throw
    _one_pair: bool = False  # ... at a table with one pair of dice (read_before_throw)
    # the change raster (and frame key) of the board before the throw: what a thorough read
    # keeps dice against (only where the picture changed since, a die can have been thrown)
    _before: tuple[bytes, np.ndarray] | None = None
    # the change raster of the last frame read (the cube memory's word on where it changed)
    raster: tuple[Canonical, np.ndarray] | None = None
    # the last frame's change raster and its change map since the board before the throw
    _since: tuple[np.ndarray, np.ndarray | None] | None = None
    # at a one-pair table, the places of the last throw judged as last told (hold_pair) and
    # the dice of this memory read there when told: while both are kept untouched, no other
    # die lies on the board
    _pair_at: tuple[tuple[float, float], ...] = ()
    _pair: list[BoardDie] = field(default_factory=list)

    def forget(self) -> None:
        """The next frame is read whole."""
        self.raster = None
        self._key = None
        self._reference = None
        self._peaks = None
        self._dice = []

    def read_before_throw(self, one_pair: bool = False) -> None:
        """The next frame's picture is kept as the board before the next throw (the table
        calls this at a move's press, where the referee learns what lies on the board): a
        later thorough read keeps only the dice where the picture changed since. A die where
        nothing changed was not thrown; one the thorough read finds there that the reads
        before it did not is board texture (checkers' highlights and gaps read as a die's
        pips), which would otherwise count as a cocked die of the throw (BG-ROLL-2). That
        frame is read like any other, only where it changed: a whole read there cost a
        third of the demo's dice time and told the referee nothing the thorough read's
        filter does not already keep out. Its second chances (cocked dice) are only about
        the dice read before (no throw is due): the checkers just moved gave that frame's
        reads most of their second chances, and their cost (see :func:`read_dice_at`).

        ``one_pair``: the table plays with one pair of dice (BG-EQ-2's "shared-pair"). When that
        frame shows at least two dice read before, none of them touched, no die can lie
        anywhere else (a throw picks the pair up first): the parts that changed (the checkers
        just moved) are then not read for dice at all. That was two fifths of a press frame's
        dice time in the demo, and it keeps the moved checkers' highlights from being read as
        dice there."""
        self._mark_before = True
        self._one_pair = one_pair

    def hold_pair(self, places: Sequence[tuple[float, float]]) -> None:
        """At a one-pair table (BG-EQ-2's "shared-pair"), where the two dice of the last throw
        the referee judged lay then (``places``: board mm, rounded to 0.1 mm as the referee
        sees a die; empty: none, or dice of another kind of table). The table calls this after
        every frame; when the places are new, the two dice this memory holds there are taken as
        that throw's. While both are kept untouched (:meth:`read` drops a die whose square
        changed), nobody has picked the pair up to throw, so no other die can lie anywhere:
        the parts that changed (checkers moved, the cube turned) are not read for dice. Dice
        of the memory that only happen to lie elsewhere as a pair (a phantom) never hold it."""
        at = tuple(sorted((float(x), float(y)) for x, y in places))
        if at == self._pair_at:
            return
        self._pair_at = at
        pair = [d for d in self._dice if _rounded(d.centre_mm) in at]
        self._pair = pair if len(at) == 2 and sorted(
            _rounded(d.centre_mm) for d in pair) == list(at) else []

    def _pair_lies(self, kept: list[BoardDie]) -> bool:
        """Both dice of the judged throw (:meth:`hold_pair`) are among ``kept``, the very
        readings held then: untouched since."""
        return len(self._pair) == 2 and all(any(p is k for k in kept) for p in self._pair)

    def keep_as_before_throw(self) -> bool:
        """Take the last frame read as the board before the next throw when none of this
        camera pose is kept: a restarted table's memory is new, and its referee knows from the
        journal that the dice lying in that frame are the last throw's (the dice lying as they
        lay at the press). False when one is kept already, or no frame was read."""
        if self.raster is None or self._key is None:
            return False
        if self._before is not None and self._before[0] == self._key:
            return False
        self._before = (self._key, self.raster[1].copy())
        return True

    def read_thoroughly(self, doubt: float = FLAT_DOUBT) -> None:
        """The next frame is read whole and thoroughly (:func:`thorough_dice`: more second
        chances, and the whole frame's pip spots as candidates as well as the raster's): for
        a throw whose dice the usual read did not all find (a one, white on a light field,
        gives the raster little to go on; the face of a die leaning on a checker may lie
        farther from the raster's place than a second chance looks). ``doubt``: the cocked
        probability from which a die read flat is in doubt (the referee's ``flat_doubt``)."""
        if not 0.0 <= doubt <= 1.0:
            raise ConfigError(f"doubt must be between 0 and 1, not {doubt!r}")
        self.forget()
        self._thorough = True
        self._doubt = doubt

    def read(self, image: np.ndarray, corners: np.ndarray, geometry: BoardGeometry
             ) -> list[BoardDie]:
        """Every die on (or beside) the board in a camera frame, at most four, as
        ``read_board_dice`` reads them, reading only where the frame changed."""
        dice = self._read(image, corners, geometry)
        if self._mark_before and self.raster is not None and self._key is not None:
            self._before = (self._key, self.raster[1].copy())
            self._mark_before = False
        return dice

    def _read(self, image: np.ndarray, corners: np.ndarray, geometry: BoardGeometry
              ) -> list[BoardDie]:
        from vision.dice.reading import image_to_mm  # the reading module imports the pass

        to_mm = image_to_mm(corners, geometry)
        self.stats.frames += 1
        key = frame_key(corners, geometry)
        from_mm = _inverse(to_mm.tobytes())
        halvings = Halvings(image)
        canonical, now = change_raster(image, from_mm, geometry, halvings)
        self.raster = (canonical, now)
        ref, known = self._reference, self._peaks
        if (not self.enabled or key != self._key or ref is None or known is None
                or ref.shape != now.shape):
            return self._full(image, to_mm, geometry, key, now, halvings)
        g = geometry
        reach = NEIGHBOURHOOD_CHECKERS * g.checker_diameter_mm
        core = DIE_REACH_DIES * g.die_size_mm
        about_dice = np.zeros(now.shape, bool)
        for d in self._dice:
            u0, v0, u1, v1 = _box(canonical, now.shape, *d.centre_mm, core)
            about_dice[v0:v1, u0:u1] = True
        found = change_mask(now, ref, about_dice)
        if found is None:  # the light changed
            return self._full(image, to_mm, geometry, key, now, halvings)
        changed = found
        absorb(ref, now, changed)
        count = int(np.count_nonzero(changed))
        if count == 0:
            self.stats.unchanged += 1
            self.stats.last = "unchanged"
            return list(self._dice)
        if count > MAX_CHANGED_SHARE * changed.size:
            return self._full(image, to_mm, geometry, key, now, halvings)
        kept: list[BoardDie] = []
        dropped: list[BoardDie] = []
        for d in self._dice:
            u0, v0, u1, v1 = _box(canonical, changed.shape, *d.centre_mm, core)
            (dropped if changed[v0:v1, u0:u1].any() else kept).append(d)
        grow = max(1, round(SEARCH_DIES * g.die_size_mm * CHANGE_PPM))
        search: np.ndarray = cv2.dilate(changed.astype(np.uint8),
                                        np.ones((2 * grow + 1, 2 * grow + 1), np.uint8))
        for d in dropped:
            u0, v0, u1, v1 = _box(canonical, search.shape, *d.centre_mm, g.die_size_mm)
            search[v0:v1, u0:u1] = 1
        peaks = update_peaks(known, image, from_mm, g, canonical, search, halvings)
        raster = Canonical.whole_board(g, RASTER_PPM)
        ranked = ranked_places(peaks, g)
        # a die kept is one a fresh read still finds: a place it takes lies at it
        tops = [raster.px_to_mm(u, v) for u, v, _ in ranked]
        kept = [d for d in kept if any(math.hypot(d.centre_mm[0] - x, d.centre_mm[1] - y)
                                       < g.die_size_mm * (SPOT_REACH_DIES + 0.5)
                                       for x, y in tops)]
        about_kept = np.zeros(changed.shape, bool)
        for d in kept:
            u0, v0, u1, v1 = _box(canonical, changed.shape, *d.centre_mm, core)
            about_kept[v0:v1, u0:u1] = True
        places = []
        for u, v, p in ranked:
            x, y = raster.px_to_mm(u, v)
            cu, cv = canonical.mm_to_px(x, y)
            iu = min(max(round(cu), 0), search.shape[1] - 1)
            iv = min(max(round(cv), 0), search.shape[0] - 1)
            if ((search[iv, iu] or (u, v) not in known.top)
                    and all(math.hypot(d.centre_mm[0] - x, d.centre_mm[1] - y) >= core
                            for d in kept)):
                places.append((x, y, p))
        # at a move's press no throw can have landed: a cocked die is only one already read
        # (tipped by the hand), so only about those are second chances given (a changed part
        # elsewhere is a checker moved, whose highlights a second chance would read for long)
        tilted_near = [d.centre_mm for d in dropped] if self._mark_before else None
        if (self._mark_before and self._one_pair and not dropped and len(kept) >= 2) \
                or self._pair_lies(kept):
            # BG-EQ-2's one pair lies as it was read, untouched: nothing else on the board is a
            # die, so the changed parts (checkers moved) are taken as read and holding none
            places = []
        new = [d for d in read_dice_at(image, to_mm, g, places, tilted_near)
               if all(_apart_mm(d, k) >= 0.7 * g.die_size_mm for k in kept)]
        out = sorted([*kept, *new], key=lambda d: -d.confidence)
        self._dice = sorted(out[:4], key=lambda d: (d.centre_mm[0], d.centre_mm[1]))
        peaks.top = {(u, v) for u, v, _ in ranked}
        self._peaks = peaks
        # the reference moves on where the frame was read again and about the dice read on it
        # (each die is compared with the picture it was read on), not about the dice kept:
        # drift below the level, frame after frame, still adds up to a change there
        update = search.astype(bool)
        for d in new:
            u0, v0, u1, v1 = _box(canonical, update.shape, *d.centre_mm, reach)
            update[v0:v1, u0:u1] = True
        update &= ~about_kept
        np.copyto(ref, now, where=update)
        self.stats.partial += 1
        self.stats.dice_read_again += len(dropped)
        self.stats.last = "partial"
        return list(self._dice)

    def _full(self, image: np.ndarray, to_mm: np.ndarray, geometry: BoardGeometry, key: bytes,
              now: np.ndarray, halvings: Halvings | None = None) -> list[BoardDie]:
        self._key = key  # this frame's pose, before a thorough read compares it (_before)
        # the raster stage once: its places are the ones a fresh read_board_dice would take
        peaks = raster_peaks(image, _inverse(to_mm.tobytes()), geometry, halvings)
        ranked = ranked_places(peaks, geometry)
        raster = Canonical.whole_board(geometry, RASTER_PPM)
        places = [(*raster.px_to_mm(u, v), p) for u, v, p in ranked]
        if self._thorough:
            self._dice = []
            for d in thorough_dice(image, to_mm, geometry, places, self._doubt):
                if self.changed_since_press(d.centre_mm) is False:
                    self.stats.unthrown_dropped += 1
                else:
                    self._dice.append(d)
            self.stats.thorough += 1
            self.stats.last = "thorough"
        else:
            self._dice = read_board_dice(image, to_mm, geometry, places=places)
            self.stats.full += 1
            self.stats.last = "full"
        self._thorough = False
        peaks.top = {(u, v) for u, v, _ in ranked}
        self._peaks = peaks
        self._reference = now
        return list(self._dice)

    def changed_since_press(self, centre_mm: tuple[float, float]) -> bool | None:
        """Whether the last frame read differs from the board before the throw
        (:meth:`read_before_throw`) within :data:`THROWN_REACH_DIES` of a place (mm), each
        pixel against itself: a die there was put down, picked up or thrown since, even if it
        landed within a hair of where it lay. None when there is no such picture of this
        camera pose, or the light changed since."""
        # after a read, _key is that frame's (a partial read needs it; a whole read sets it)
        if self.raster is None or self._before is None or self._before[0] != self._key:
            return None
        canonical, now = self.raster
        before = self._before[1]
        if self._since is None or self._since[0] is not now:
            changed = None if before.shape != now.shape else change_mask(
                now, before, np.ones(now.shape, bool))
            self._since = (now, changed)
        changed = self._since[1]
        if changed is None:
            return None
        half = THROWN_REACH_DIES * canonical.geometry.die_size_mm
        u0, v0, u1, v1 = _box(canonical, changed.shape, *centre_mm, half)
        return bool(changed[v0:v1, u0:u1].any())


def thorough_dice(image: np.ndarray, to_mm: np.ndarray, geometry: BoardGeometry,
                  places: list[tuple[float, float, float]] | None = None,
                  doubt: float = FLAT_DOUBT) -> list[BoardDie]:
    """A thorough read: ``read_board_dice`` with its raster candidates (or ``places``) and more
    second chances, around them too (``thorough``), and the dice a thorough read from the whole
    frame's pip spots finds elsewhere (``spots``: it finds some dice the raster never offers);
    the most confident four, in ``read_board_dice``'s order. A die the raster read finds flat
    in doubt (a cocked probability of ``doubt`` or more) that the spots read finds cocked, as a
    tilted face, is taken as that: the raster may read a die leaning on the rail with its top
    face and its side face together as one flat face (see :func:`_settle_doubt`). Several
    times slower than a read."""
    dice = read_board_dice(image, to_mm, geometry, places=places, thorough=True)
    spotted = read_board_dice(image, to_mm, geometry, spots=True, thorough=True)
    near = 0.7 * geometry.die_size_mm
    dice = [_settle_doubt(k, spotted, near, doubt) for k in dice]
    more = [d for d in spotted
            if all(_apart_mm(d, k) >= near for k in dice)]
    out = sorted([*dice, *more], key=lambda d: -d.confidence)[:4]
    return sorted(out, key=lambda d: (d.centre_mm[0], d.centre_mm[1]))


def _settle_doubt(die: BoardDie, spotted: list[BoardDie], near: float,
                  doubt: float = FLAT_DOUBT) -> BoardDie:
    """``die``, or the die the spots read finds cocked within ``near`` (mm) of it when ``die``
    is read flat in doubt: two reads of the same place, one unsure of flat, the other sure of a
    tilted face (a thorough second chance is kept only at ``pose.second_chance_threshold``)."""
    if not die.flat or die.p_cocked < doubt:
        return die
    cocked = [d for d in spotted if not d.flat and _apart_mm(d, die) < near]
    return max(cocked, key=lambda d: d.confidence) if cocked else die


def _rounded(centre_mm: tuple[float, float]) -> tuple[float, float]:
    """A die's centre (mm) to 0.1 mm, as the referee is told it (``DieSeen.centre``)."""
    return (round(float(centre_mm[0]), 1), round(float(centre_mm[1]), 1))


def _apart_mm(a: BoardDie, b: BoardDie) -> float:
    """How far apart two dice's read centres lie (mm)."""
    return math.hypot(a.centre_mm[0] - b.centre_mm[0], a.centre_mm[1] - b.centre_mm[1])


PEAK_PAD = 11  # raster px about a peak its response and ray features depend on (3 + 5 + 3)


@dataclass
class RasterPeaks:
    """The raster model's first stage over the whole case, kept between frames: every local
    maximum of the corner response (raster px and strength) and, for the strongest
    :data:`~vision.dice.raster.MAX_PEAKS`, the places about each the ray model gives at least
    ``READ_THRESHOLD`` (u, v, p). Updated only where the picture changed, it ranks the
    candidates of the changed parts against the whole board as a fresh read does."""

    uv: np.ndarray
    strength: np.ndarray
    places: dict[tuple[int, int], list[tuple[float, float, float]]]
    top: set[tuple[float, float]] = field(default_factory=set)  # the places read last time


_PEAK_KERNEL = np.ones((PEAK_WINDOW, PEAK_WINDOW), np.uint8)  # a peak's neighbourhood


def _local_peaks(gray: np.ndarray, inner: tuple[int, int, int, int]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Local maxima of the corner response of a raster crop (``raster.peaks``' stage without
    its cut), inside ``inner`` (crop px): (N, 2) u, v and their strength."""
    corner = cv2.cornerMinEigenVal(gray, EIGEN_BLOCK, ksize=3)
    resp = cv2.boxFilter(corner, -1, (SUM_BOX, SUM_BOX))
    grown = cv2.dilate(resp, _PEAK_KERNEL)
    a0, b0, a1, b1 = inner
    at = resp[b0:b1, a0:a1]  # only the inner part's peaks are kept: only it is compared
    ys, xs = nonzero_2d((at >= grown[b0:b1, a0:a1]) & (at > 1e-4))
    ys, xs = ys + b0, xs + a0
    return np.stack([xs, ys], axis=1), resp[ys, xs]


# a crop of the candidate raster, the peaks (whole-raster px) to place in it, and its origin
PeakCrop = tuple[np.ndarray, np.ndarray, tuple[int, int]]


def _places(parts: list[PeakCrop], size: tuple[int, int]
            ) -> list[dict[tuple[int, int], list[tuple[float, float, float]]]]:
    """For each crop (holding its peaks with a margin) and each of its peaks the places about
    it the ray model gives at least ``READ_THRESHOLD``. The ray features of all the crops'
    places are worked out at once (each place's are its own); the model runs crop by crop,
    as before (its matrix product's batch size moves the last bits of the probabilities)."""
    if not parts:
        return []
    w, h = size
    centres = [np.clip((peaks[:, None, :] + OFFSETS[None, :, :]).reshape(-1, 2), 0,
                       [w - 1, h - 1]) for _bgr, peaks, _origin in parts]
    rays = [ray_samples(bgr, at - np.array(origin))
            for (bgr, _peaks, origin), at in zip(parts, centres, strict=True)]
    features = ray_features(np.concatenate(rays))
    out = []
    start = 0
    n = len(OFFSETS)
    least = float(np.float32(READ_THRESHOLD))  # as a float32 probability is compared with it
    for (_bgr, peaks, _origin), at in zip(parts, centres, strict=True):
        p = die_probability(features[start:start + len(at)]).tolist()
        start += len(at)
        every = [(float(u), float(v), q) for (u, v), q in zip(at.tolist(), p, strict=True)]
        out.append({(u, v): [c for c in every[k * n:(k + 1) * n] if c[2] >= least]
                    for k, (u, v) in enumerate(peaks.tolist())})
    return out


def _remap(src: np.ndarray, m1: np.ndarray, m2: np.ndarray, box: tuple[int, int, int, int]
           ) -> np.ndarray:
    u0, v0, u1, v1 = box
    out: np.ndarray = cv2.remap(src, m1[v0:v1, u0:u1], m2[v0:v1, u0:u1], cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    return out


def _warp_for(image: np.ndarray, from_mm: np.ndarray, geometry: BoardGeometry,
              halvings: Halvings | None = None
              ) -> tuple[Canonical, np.ndarray, np.ndarray, np.ndarray]:
    """The candidate raster's description, remap tables and source (the frame, halved as
    ``vision.dice.candidates.scored_raster_candidates`` halves it; ``halvings``: the
    frame's, shared)."""
    raster, m1, m2, halve = _candidate_warp(np.ascontiguousarray(from_mm, np.float64).tobytes(),
                                            geometry, image.shape[:2])
    src = (halvings or Halvings(image)).level(1) if halve else image
    return raster, m1, m2, src


@functools.lru_cache(maxsize=4)
def _candidate_warp(from_mm: bytes, geometry: BoardGeometry, shape: tuple[int, ...]
                    ) -> tuple[Canonical, np.ndarray, np.ndarray, bool]:
    """:func:`_warp_for`'s raster, remap tables and whether the frame is halved first, for
    a camera set-up (``from_mm``: float64 bytes) and frame size: worked out once, not on
    every frame."""
    h = np.frombuffer(from_mm, np.float64).reshape(3, 3)
    halve = bool(_local_scale(h, geometry.width_mm / 2, geometry.height_mm / 2)
                 >= 2.0 * RASTER_PPM and min(shape) >= 64)
    key = tuple(np.round(h, 9).reshape(-1).tolist())
    raster, m1, m2 = _raster_warp(key, geometry, halve)
    return raster, m1, m2, halve


def _evaluate(uv: np.ndarray, strength: np.ndarray, known: RasterPeaks | None,
              crops: list[tuple[tuple[int, int, int, int], tuple[int, int, int, int],
                                np.ndarray]],
              src: np.ndarray, m1: np.ndarray, m2: np.ndarray, size: tuple[int, int]
              ) -> RasterPeaks:
    """The strongest peaks' places: from the crops just warped where a peak lies inside one,
    kept from ``known`` where it does not, warped anew around the rest."""
    order = np.argsort(-strength, kind="stable")[:MAX_PEAKS]
    top = uv[order]
    w, h = size
    r = PATCH_PX // 2 + 4
    batches: list[list[tuple[int, int]]] = [[] for _ in crops]
    # the peaks' places in the order they are taken (those kept from known, or the index of
    # the crop read for them): ranked_places keeps that order among equal probabilities
    order_of: list[tuple[tuple[int, int], list[tuple[float, float, float]]] | int] = []
    reads: list[PeakCrop] = []
    for (u, v), inside in zip(top.tolist(), _first_inside(top, crops).tolist(), strict=True):
        if inside < len(crops):
            batches[inside].append((u, v))
        elif known is not None and (u, v) in known.places:
            order_of.append(((u, v), known.places[(u, v)]))
        else:  # newly among the strongest, outside the parts warped: warped about it alone
            box = (max(0, u - r), max(0, v - r), min(w, u + r + 1), min(h, v + r + 1))
            order_of.append(len(reads))
            reads.append((_remap(src, m1, m2, box), np.array([[u, v]]), (box[0], box[1])))
    for (box, _inner, bgr), batch in zip(crops, batches, strict=True):
        if batch:
            order_of.append(len(reads))
            reads.append((bgr, np.array(batch), (box[0], box[1])))
    found = _places(reads, size)
    places: dict[tuple[int, int], list[tuple[float, float, float]]] = {}
    for at in order_of:
        if isinstance(at, int):
            places.update(found[at])
        else:
            places[at[0]] = at[1]
    return RasterPeaks(uv, strength, places)


def _first_inside(uv: np.ndarray, crops: list[tuple[tuple[int, int, int, int],
                                                    tuple[int, int, int, int], np.ndarray]]
                  ) -> np.ndarray:
    """For each peak (raster px) the first crop whose inner part holds it (``len(crops)``:
    none), for all peaks at once rather than peak by peak."""
    out = np.full(len(uv), len(crops))
    for n in range(len(crops) - 1, -1, -1):  # the last written is the first crop
        out[_inside(uv, crops[n][1])] = n
    return out


def _inside(uv: np.ndarray, inner: tuple[int, int, int, int]) -> np.ndarray:
    """Which peaks (raster px) lie in a crop's inner part (a0, b0, a1, b1; end exclusive)."""
    return ((uv[:, 0] >= inner[0]) & (uv[:, 0] < inner[2])
            & (uv[:, 1] >= inner[1]) & (uv[:, 1] < inner[3]))


def raster_peaks(image: np.ndarray, from_mm: np.ndarray, geometry: BoardGeometry,
                 halvings: Halvings | None = None) -> RasterPeaks:
    """:class:`RasterPeaks` of a whole frame."""
    raster, m1, m2, src = _warp_for(image, from_mm, geometry, halvings)
    w, h = raster.size
    box = (0, 0, w, h)
    bgr = _remap(src, m1, m2, box)
    uv, strength = _local_peaks(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), box)
    return _evaluate(uv, strength, None, [(box, box, bgr)], src, m1, m2, (w, h))


def update_peaks(known: RasterPeaks, image: np.ndarray, from_mm: np.ndarray,
                 geometry: BoardGeometry, canonical: Canonical, search: np.ndarray,
                 halvings: Halvings | None = None) -> RasterPeaks:
    """``known`` with the peaks about the searched part of the change map found anew."""
    raster, m1, m2, src = _warp_for(image, from_mm, geometry, halvings)
    w, h = raster.size
    mask = np.ascontiguousarray(search, np.uint8)
    pad = 2 * PEAK_PAD + 2
    crops: list[tuple[tuple[int, int, int, int], tuple[int, int, int, int], np.ndarray]] = []
    drop = np.zeros(len(known.uv), bool)
    new_uv, new_strength = [], []
    for x, y, bw, bh in sorted(_component_boxes(mask), key=lambda b: (b[1], b[0])):
        x0, y0 = canonical.px_to_mm(float(x), float(y))
        x1, y1 = canonical.px_to_mm(float(x + bw), float(y + bh))
        a0, b0 = raster.mm_to_px(x0, y0)
        a1, b1 = raster.mm_to_px(x1, y1)
        box = (max(0, math.floor(a0) - pad), max(0, math.floor(b0) - pad),
               min(w, math.ceil(a1) + pad), min(h, math.ceil(b1) + pad))
        inner = (box[0] + (PEAK_PAD if box[0] > 0 else 0),
                 box[1] + (PEAK_PAD if box[1] > 0 else 0),
                 box[2] - (PEAK_PAD if box[2] < w else 0),
                 box[3] - (PEAK_PAD if box[3] < h else 0))
        bgr, uv, strength = _crop_peaks(src, m1, m2, box, inner)
        # a peak of an overlapping crop's inner part is found there already
        fresh = _first_inside(uv, crops) == len(crops)
        new_uv.append(uv[fresh])
        new_strength.append(strength[fresh])
        drop |= _inside(known.uv, inner)
        crops.append((box, inner, bgr))
    uv = np.concatenate([known.uv[~drop], *new_uv]).reshape(-1, 2).astype(int)
    strength = np.concatenate([known.strength[~drop], *new_strength]).astype(np.float32)
    return _evaluate(uv, strength, known, crops, src, m1, m2, (w, h))


def _crop_peaks(src: np.ndarray, m1: np.ndarray, m2: np.ndarray,
                box: tuple[int, int, int, int], inner: tuple[int, int, int, int]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A part of the candidate raster warped (``box``) and the peaks inside its ``inner``
    part (whole-raster px) with their strength."""
    bgr = _remap(src, m1, m2, box)
    local = (inner[0] - box[0], inner[1] - box[1], inner[2] - box[0], inner[3] - box[1])
    uv, strength = _local_peaks(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), local)
    return bgr, uv + np.array([box[0], box[1]]), strength


def ranked_places(peaks: RasterPeaks, geometry: BoardGeometry
                  ) -> list[tuple[float, float, float]]:
    """The raster candidates a fresh read takes (``die_candidates`` at ``READ_THRESHOLD``,
    the first :data:`MAX_RASTER_CANDIDATES`), raster px and p, most probable first."""
    every = [c for cs in peaks.places.values() for c in cs]
    every.sort(key=lambda c: -c[2])
    raster = Canonical.whole_board(geometry, RASTER_PPM)
    return within_budget(_apart(every, 0.8 * geometry.die_size_mm * RASTER_PPM), geometry,
                         lambda c: raster.px_to_mm(c[0], c[1]))


def _apart(ranked: list[tuple[float, float, float]], reach: float
           ) -> Iterator[tuple[float, float, float]]:
    """The places (u, v, p; most probable first) at least ``reach`` (px) from every more
    probable one kept, one at a time: the budget takes only the first few."""
    out: list[tuple[float, float, float]] = []
    limit = reach ** 2
    for u, v, p in ranked:
        if any((u - a) ** 2 + (v - b) ** 2 < limit for a, b, _ in out):
            continue
        out.append((u, v, p))
        yield u, v, p


def read_dice_at(image: np.ndarray, to_mm: np.ndarray, geometry: BoardGeometry,
                 places: list[tuple[float, float, float]],
                 tilted_near: list[tuple[float, float]] | None = None) -> list[BoardDie]:
    """The dice ``read_board_dice`` reads from the given raster places (x mm, y mm, p; most
    probable first) instead of the whole raster's: every later stage (pip spots about each
    place, face, pose, second chances, on-checker) is ``vision.dice.board``'s own
    (``tilted_near``: second chances only about these places, as it takes them)."""
    if not places:
        return []
    return read_board_dice(image, to_mm, geometry, places=places, tilted_near=tilted_near)
