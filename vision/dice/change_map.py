"""The change map the dice and cube memories (``vision.dice.reuse``,
``vision.dice.cube_memory``) compare frames with: a small grey top-down raster of the whole case
(:func:`change_raster`), where it changed from a reference (:func:`change_mask`) and the
reference taking the picture where nothing counts as a change (:func:`absorb`); also the key
of a camera set-up a memory belongs to. Kept apart from the memories, which both use it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import cv2
import numpy as np

from vision.dice.candidates import local_scale
from vision.dice.pips import to_gray
from vision.dice.raster import topdown_maps
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
MAX_CHANGED_SHARE = 0.35  # more of the case changed than this: the frame is read whole


@functools.lru_cache(maxsize=4)
def inverse(to_mm: bytes) -> np.ndarray:
    """The inverse of a 3x3 homography (float64 bytes), worked out once per camera set-up
    (the camera and the board stay put); not to be written to."""
    out: np.ndarray = np.linalg.inv(np.frombuffer(to_mm, np.float64).reshape(3, 3))
    out.flags.writeable = False
    return out


def frame_key(corners: np.ndarray, geometry: BoardGeometry) -> bytes:
    """The camera set-up a memory belongs to (another set-up starts afresh)."""
    return np.asarray(corners, np.float32).tobytes() + _geometry_text(geometry)


@functools.lru_cache(maxsize=4)
def _geometry_text(geometry: BoardGeometry) -> bytes:
    """A board geometry's repr, encoded: written out once, not for every frame's key (the dice
    and the cube memories each ask for one a frame)."""
    return repr(geometry).encode()


@functools.lru_cache(maxsize=4)
def _change_warp(from_mm: tuple[float, ...], geometry: BoardGeometry, shape: tuple[int, int]
                 ) -> tuple[Canonical, tuple[slice, slice], np.ndarray, np.ndarray]:
    """The change map's raster of the whole case, the rows and columns of a camera frame of
    ``shape`` (rows, columns) the warp reads, every few each way (the stride: the most that
    leaves the frame at least as fine as the change map about the board's centre), and the
    remap tables from those; kept per camera set-up."""
    canonical = Canonical.whole_board(geometry, CHANGE_PPM)
    h = np.array(from_mm, np.float64).reshape(3, 3)
    scale = local_scale(h, geometry.width_mm / 2, geometry.height_mm / 2)
    stride = max(1, math.floor(scale / CHANGE_PPM))
    h = np.diag([1.0 / stride, 1.0 / stride, 1.0]) @ h
    m1, m2 = topdown_maps(h, -canonical.margin_mm[0], -canonical.margin_mm[1], canonical.size,
                          CHANGE_PPM)
    # each output pixel blends the strided frame's pixels (x, y) to (x + 1, y + 1) of its table
    # entry (the nearest edge's where they lie off it): the part copied holds all of those, and
    # reaches the frame's edge wherever they lie past it (its replicated border is the frame's)
    (v0, v1), (u0, u1) = (_read_span(m1[..., axis], -(-shape[1 - axis] // stride))
                          for axis in (1, 0))
    shifted = m1 - np.array([u0, v0], np.int16)
    part = (slice(v0 * stride, v1 * stride, stride), slice(u0 * stride, u1 * stride, stride))
    return canonical, part, shifted, np.asarray(m2)


def _read_span(table: np.ndarray, size: int) -> tuple[int, int]:
    """The first and one past the last of ``size`` strided rows (or columns) a remap with
    these whole-pixel entries reads, bilinear: each entry and the next, clamped to the frame."""
    first = min(max(0, int(table.min())), size - 1)
    return first, max(first + 1, min(size, int(table.max()) + 2))


class Halvings:
    """A camera frame and its halvings (``cv2.pyrDown``), each worked out once: the
    candidate raster of a frame much finer than it starts from the first (about a
    millisecond on a 1280 x 720 frame), for each part read. ``halved``: the frame's first
    halving when another reader made it already (the board reader's ``PreparedFrame.halved``)."""

    def __init__(self, image: np.ndarray, halved: np.ndarray | None = None) -> None:
        self.levels = [image] if halved is None else [image, halved]

    def level(self, k: int) -> np.ndarray:
        """The frame halved ``k`` times."""
        while len(self.levels) <= k:
            self.levels.append(cv2.pyrDown(self.levels[-1]))
        return self.levels[k]


ChangeWarp = tuple[Canonical, tuple[slice, slice], np.ndarray, np.ndarray]


def change_warp(from_mm: np.ndarray, geometry: BoardGeometry, shape: tuple[int, ...]
                ) -> ChangeWarp:
    """What :func:`change_raster` warps a camera frame of ``shape`` (rows, columns, ...) with
    (:func:`_change_warp`'s, kept per camera set-up): a memory keeps it with the set-up, so
    a frame's raster costs no look-up of it (:func:`warp_raster`)."""
    key = tuple(np.round(from_mm, 9).reshape(-1).tolist())
    return _change_warp(key, geometry, (shape[0], shape[1]))


def warp_raster(image: np.ndarray, warp: ChangeWarp) -> tuple[Canonical, np.ndarray]:
    """:func:`change_raster` of a frame, with its camera set-up's :func:`change_warp`."""
    canonical, (rows, cols), m1, m2 = warp
    # only the rows and columns the warp reads are copied (two thirds of the strided frame on
    # the demo's 1280 x 720 frames)
    grey = image[rows, cols, 1] if image.ndim == 3 else image[rows, cols]
    src = np.ascontiguousarray(grey)
    warped = cv2.remap(src, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    out = cv2.GaussianBlur(to_gray(warped).astype(np.float32), (0, 0), CHANGE_BLUR)
    # read-only: the memories keep a frame's raster as it is, not a copy (a reference that
    # moves on is copied from it)
    out.flags.writeable = False
    return canonical, out


def change_raster(image: np.ndarray, from_mm: np.ndarray, geometry: BoardGeometry
                  ) -> tuple[Canonical, np.ndarray]:
    """The whole case top-down at :data:`CHANGE_PPM`, grey, blurred (float32, read-only):
    what the change map compares from frame to frame. Its grey is the frame's green (of a
    colour frame), read every few pixels each way (:func:`_change_warp`) before the warp: a
    strided copy of one channel draws in a third of the rows of a frame not in the cache,
    where a warp of the whole frame drew in most of it (the demo's 1280 x 720 frames: 0.37 ms
    a raster, 0.55 so); ``tests.bench.digest``'s readings are those of the whole frame's grey."""
    return warp_raster(image, change_warp(from_mm, geometry, image.shape))


class LazyRaster:
    """A frame's :func:`change_raster`, worked out when first asked for (then kept): a frame
    whose dice are not read needs it for the cube only when the cube's patch changed, and a
    cube lying still needs it only once it moves (:class:`~vision.dice.cube_memory.CubeMemory`
    keeps this, not the raster, as the picture it was last seen on). Holds the frame: a
    frame read is not written to afterwards (each camera frame is an array of its own)."""

    def __init__(self, image: np.ndarray, from_mm: np.ndarray, geometry: BoardGeometry
                 ) -> None:
        self._args: tuple[np.ndarray, np.ndarray, BoardGeometry] | None = (
            image, from_mm, geometry)
        self._raster: tuple[Canonical, np.ndarray] | None = None

    @classmethod
    def known(cls, raster: tuple[Canonical, np.ndarray]) -> LazyRaster:
        """A raster already worked out (the dice memory's)."""
        out = cls.__new__(cls)
        out._args, out._raster = None, raster
        return out

    @property
    def ready(self) -> bool:
        """Whether the raster is worked out already (then it may be the dice memory's array,
        read-only like every change raster: a reader may keep it as it is)."""
        return self._raster is not None

    def get(self) -> tuple[Canonical, np.ndarray]:
        """The raster (worked out on the first call)."""
        if self._raster is None:
            assert self._args is not None
            self._raster = change_raster(*self._args)
            self._args = None  # the frame is let go once its raster is known
        return self._raster


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


Boxes = Sequence[tuple[int, int, int, int]]


def change_mask(now: np.ndarray, ref: np.ndarray, strict: np.ndarray | Boxes | None = None,
                diff: np.ndarray | None = None) -> np.ndarray | None:
    """Where ``now`` changed from ``ref`` (two :func:`change_raster` outputs), after the
    reference is scaled to the frame's light; None when the light itself changed by more than
    :data:`MAX_FLICKER`. Inside ``strict`` (a bool mask, or the boxes (u0, v0, u1, v1;
    change-map px, end exclusive) whose union it is: about the dice read) each pixel is
    compared with the same pixel; elsewhere with the range of its neighbours within
    :data:`SHIFT_PX` (see there). ``diff``: ``cv2.absdiff(now, ref)``, when the caller has it."""
    level = np.float32(CHANGE_LEVEL)
    if diff is None:
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
    mask = strict.astype(bool, copy=False) if isinstance(strict, np.ndarray) else None
    if mask is not None and mask.all():
        return same
    # the range test and speck filter only about where the pixels differ (see _range_box):
    # a few dozen change-map px a frame, not the whole case
    shifted = np.zeros(now.shape, bool)
    box = _range_box(diff, level)
    if box is not None:
        v0, v1, u0, u1 = box
        shifted[v0:v1, u0:u1] = _shifted(now[v0:v1, u0:u1], scaled[v0:v1, u0:u1], level)
    if mask is not None:
        np.copyto(shifted, same, where=mask)
    elif strict is not None:  # boxes: each pixel against itself there, and nowhere else
        for u0, v0, u1, v1 in strict:
            shifted[v0:v1, u0:u1] = same[v0:v1, u0:u1]
    return shifted


def pixel_change(now: np.ndarray, ref: np.ndarray) -> np.ndarray | None:
    """:func:`change_mask` with every pixel compared with the same pixel (``strict``
    everywhere), without a mask saying so: where a die was put down, picked up or thrown
    since, even within a hair of where it lay."""
    level = np.float32(CHANGE_LEVEL)
    same: np.ndarray = cv2.absdiff(now, ref) > level
    if not same.any():
        return same
    gain = exposure_gain(now, ref)
    if abs(gain - 1.0) > MAX_FLICKER:
        return None
    if abs(gain - 1.0) > GAIN_STEADY:
        same = cv2.absdiff(now, ref * np.float32(gain)) > level
    return same


def _range_box(diff: np.ndarray, level: np.float32) -> tuple[int, int, int, int] | None:
    """The rows v0:v1 and columns u0:u1 of the change map outside which :func:`_shifted` finds
    nothing (None: nowhere), from ``diff``, each pixel's difference with its own reference.
    The range of a pixel's neighbours holds the pixel itself, so it can be left only where
    ``diff`` passes the level (a grey level less: float rounding); the speck filter's blocks
    reach a pixel beyond such pixels, and telling them needs the range test's neighbours."""
    # the box of the pixels past the level, from the mask's bytes (a bool array is 0 or 1)
    x, y, w, h = cv2.boundingRect((diff > level - 1.0).view(np.uint8))
    if w == 0:
        return None
    m = max(SHIFT_PX, MIN_BLOCK_PX - 1)
    rows, cols = diff.shape
    return max(0, y - m), min(rows, y + h + m), max(0, x - m), min(cols, x + w + m)


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


def absorb_if_still(ref: np.ndarray, now: np.ndarray, diff: np.ndarray) -> bool:
    """When no pixel of ``diff`` (``cv2.absdiff(now, ref)``) passes the change level (the
    usual still frame, where :func:`change_mask` finds nothing): :func:`absorb` with nothing
    changed, and True; else False, nothing done. One pass over ``diff`` tells both, and a
    frame differing nowhere by :data:`ABSORB_LEVEL` leaves the reference as it is."""
    top = float(diff.max(initial=0.0))
    if top > CHANGE_LEVEL:
        return False
    if top > ABSORB_LEVEL:
        absorb(ref, now, None, diff)
    return True


def absorb(ref: np.ndarray, now: np.ndarray, changed: np.ndarray | None,
           diff: np.ndarray | None = None) -> None:
    """The reference takes the frame's picture where the two differ by more than
    :data:`ABSORB_LEVEL` but by what :func:`change_mask` counts as no change (a shift of a
    hair, a speck, the exposure), so the next still frame compares with what the camera now
    sees (and, nothing moving, costs no more than one difference). About the dice every
    difference over :data:`CHANGE_LEVEL` counts as a change, so drift there still adds up
    frame after frame. ``changed`` None: nothing did; ``diff``: ``cv2.absdiff(now, ref)``,
    when the caller has it."""
    if diff is None:
        diff = cv2.absdiff(now, ref)
    quiet = diff > np.float32(ABSORB_LEVEL)
    if changed is not None:
        quiet &= ~changed
    np.copyto(ref, now, where=quiet)


def component_boxes(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    """The bounding boxes (x, y, w, h px) of a mask's 8-connected parts (a part lying inside
    another's hole is left out: its box lies in the other's)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        out.append((int(x), int(y), int(w), int(h)))
    return out


def change_map_box(canonical: Canonical, shape: tuple[int, ...], x: float, y: float, half_mm: float
         ) -> tuple[int, int, int, int]:
    """Change-map pixels (u0, v0, u1, v1; end exclusive) of a square about (x, y) mm."""
    u0, v0 = canonical.mm_to_px(x - half_mm, y - half_mm)
    u1, v1 = canonical.mm_to_px(x + half_mm, y + half_mm)
    h, w = shape[:2]
    return (max(0, math.floor(u0)), max(0, math.floor(v0)),
            min(w, math.ceil(u1) + 1), min(h, math.ceil(v1) + 1))
