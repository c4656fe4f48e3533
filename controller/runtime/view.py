"""From a still camera frame to what the referee is told: the board as a :class:`BoardView`
over ``vision.scoring`` (engine-in-the-loop recognition), the dice and the cube.

The board is located once (configured corners, else the markers) and the same calibration is
used for every frame: the camera of a table does not move during a match. Unless the
configuration fixes the checker colours, they are learned from the first frame that shows the
starting position (BG-EQ-3) and kept, in a small file beside the journal when one is given, so a
restarted table still tells the sides apart by them.
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from controller.records.files import write_whole
from controller.referee.api import CubeSeen, DieSeen, FrameSeen, Zone
from engine.errors import ConfigError
from vision.board_reader import BoardReading, prepare, read_prepared, start_colours, with_colours
from vision.calibration import Calibration, from_corners, locate_board
from vision.config import DEFAULT_CONFIG, VisionConfig
from vision.cube import CubeReading
from vision.cube_search import find_cube, find_cube_in_parts, whole_raster_levels
from vision.dice.board_die import BoardDie
from vision.dice.change_map import Halvings, LazyRaster, frame_key
from vision.dice.cube_memory import CubeMemory
from vision.dice.reading import kept_die, settle_dice_and_cube
from vision.dice.reuse import DiceMemory
from vision.dice.scale import face_px
from vision.dice.support import one_reading_per_die, with_supports
from vision.geometry import BoardGeometry, Canonical
from vision.scoring import hypothesis_log_likelihood

# A die whose centre lies this far inside a counted checker's disc rests on it (a flat die
# beside a checker keeps its centre at least a die's half-width outside the disc).
OVER_CHECKER_MARGIN_MM = 4.0
# Fewer visible slots than this and a hypothesis cannot be judged at all.
MIN_VISIBLE_SLOTS = 12
CUBE_PX_PER_MM = 1.0
# set to "0" to read the dice and the cube of every still frame whole (for comparisons)
REUSE_ENV = "HAKEM_DICE_REUSE"

Colours = tuple[tuple[int, int, int], tuple[int, int, int]]


@dataclass
class ReadCosts:
    """CPU time (of the reading thread) each reader took, summed over the still frames read:
    what the dice and the cube add to the board's reading over a whole match, where the dice
    are read only while a throw may come and again only where the picture changed."""

    frames: int = 0
    board_ms: float = 0.0  # calibration aside: warp, checkers, bar, trays, occlusion
    cube_ms: float = 0.0
    # the frames whose dice were read (the referee wanted them) and their ms, by how the memory
    # read them: "full" (the first frame, a move's press, a throw not judged yet:
    # ``controller.runtime.loop``), "partial", "unchanged"
    dice_by_read: dict[str, list[float]] = field(default_factory=dict)

    @property
    def dice_frames(self) -> int:
        """Frames whose dice were read."""
        return int(sum(count for count, _ms in self.dice_by_read.values()))

    @property
    def dice_ms(self) -> float:
        """The dice's ms over those frames."""
        return float(sum(ms for _count, ms in self.dice_by_read.values()))

    def add_dice(self, kind: str, ms: float) -> None:
        """One frame's dice, read as ``kind``."""
        entry = self.dice_by_read.setdefault(kind, [0, 0.0])
        entry[0] += 1
        entry[1] += ms

    def ratio(self) -> float | None:
        """(dice + cube) / board over the frames read; None before any."""
        return (self.dice_ms + self.cube_ms) / self.board_ms if self.board_ms > 0 else None

    def as_json(self) -> dict[str, object]:
        """Per still frame, ms (the demo's summary)."""
        n = max(self.frames, 1)
        ratio = self.ratio()
        return {"frames": self.frames, "dice_frames": self.dice_frames,
                "board_ms": round(self.board_ms / n, 2), "dice_ms": round(self.dice_ms / n, 2),
                "cube_ms": round(self.cube_ms / n, 2),
                "ratio": None if ratio is None else round(ratio, 3),
                "dice_by_read": {k: {"frames": int(c), "ms_each": round(ms / max(c, 1), 2)}
                                 for k, (c, ms) in sorted(self.dice_by_read.items())}}


def frame_cover_text(sides: Sequence[str]) -> str | None:
    """The words for something lying across the case's frame at ``sides`` ("left",
    "right"), None for no side: a hand over the board, or a clock or a score sheet left on
    the frame, which must be moved off for the board to be read."""
    if not sides:
        return None
    where = " and ".join(sides)
    frame = "frame" if len(sides) == 1 else "frames"
    return (f"something lies across the case's {where} side {frame} (a hand over the board, "
            f"or a clock or a score sheet left on the frame: keep the frame clear)")


@dataclass(frozen=True)
class ReadingView:
    """A :class:`vision.board_reader.BoardReading` as the referee asks about it."""

    reading: BoardReading

    @property
    def occluded(self) -> bool:
        return self.reading.occluded

    @property
    def hidden_why(self) -> str | None:
        """What hides the board when the reading can tell: something across a side of the
        case's frame (then every slot within its reach is hidden while it lies there)."""
        return frame_cover_text(self.reading.occlusion.frame_sides)

    def log_likelihood(
        self, slots: Sequence[tuple[int, int]], bar: tuple[int, int]
    ) -> float | None:
        visible = sum(1 for s in self.reading.slots if not s.hidden)
        if visible < MIN_VISIBLE_SLOTS:
            return None
        return hypothesis_log_likelihood(self.reading, slots, bar).log_likelihood

    def best_counts(self) -> tuple[tuple[tuple[int, int], ...], tuple[int, int], float] | None:
        if self.reading.occluded:
            return None
        slots = tuple(s.counts for s in self.reading.slots)
        return slots, self.reading.bar.counts, self.reading.confidence


class FrameReader:
    """Reads still frames of one table: board, dice and cube, with a fixed calibration."""

    def __init__(self, config: VisionConfig = DEFAULT_CONFIG,
                 corners: Sequence[float] | None = None, *, darker_at_top: bool = False,
                 die_floor: float = 0.0, cocked_floor: float | None = None,
                 learn_colours: bool = True,
                 colours_file: Path | None = None, reuse: bool | None = None) -> None:
        self.config = config
        # this table's dice and cube as last read: read again only where the picture changed
        # (``vision.dice.reuse``); ``reuse`` False (or HAKEM_DICE_REUSE=0) reads every frame whole
        if reuse is None:
            reuse = os.environ.get(REUSE_ENV, "1") != "0"
        self.dice_memory = DiceMemory(enabled=reuse)
        self.cube_memory = CubeMemory()
        self.reuse = reuse
        fixed = config.checkers.darker_bgr is not None and config.checkers.lighter_bgr is not None
        self._learn = learn_colours and not fixed
        self._colours_file = colours_file if self._learn else None
        self.learned_colours: Colours | None = None
        if self._colours_file is not None and self._colours_file.exists():
            self._adopt(_load_colours(self._colours_file))
        self.die_floor = die_floor
        # a die called cocked is kept down to this confidence (None: the same floor as any die)
        self.cocked_floor = die_floor if cocked_floor is None else cocked_floor  # see kept_die
        self.darker_at_top = darker_at_top
        self._corners = None if not corners else np.array(corners, np.float32).reshape(4, 2)
        self.calibration: Calibration | None = None
        self._to_mm: np.ndarray | None = None
        self._from_mm = np.eye(3)  # its inverse (board mm to image px), once calibrated
        self.dice_face_px: float | None = None  # once calibrated (vision.dice.scale)
        # the cube is read on its own raster of the whole case (trays and frame: the Crawford
        # game's cube lies off the board), finer than the checkers' (its digits are small)
        self._cube_canonical = Canonical.whole_board(config.geometry, CUBE_PX_PER_MM)
        self._cube_h = np.eye(3)
        self.costs = ReadCosts()
        # the last frame's table_dice: its dice (the very readings), the rest of what it
        # depends on (geometry, floors, slot counts, cube place), and what it kept
        self._kept: tuple[tuple[BoardDie, ...], tuple[object, ...], list[BoardDie]] | None = None

    def _calibrate(self, image: np.ndarray) -> Calibration:
        if self.calibration is None:
            geometry = self.config.geometry
            if self._corners is not None:
                self.calibration = from_corners(self._corners, image.shape, geometry)
            else:
                self.calibration = locate_board(image, geometry, None, self.config.finder)
            unit = Canonical(geometry, 1.0, (0.0, 0.0))
            self._to_mm = unit.homography_from_image(self.calibration.corners)
            # how large the dice are in the picture (the table warns when too small to read)
            self._from_mm = np.linalg.inv(self._to_mm)
            self.dice_face_px = face_px(self._from_mm, geometry)
            self._cube_h = self._cube_canonical.homography_from_image(self.calibration.corners)
            self._warm_up(image, self.calibration)
        return self.calibration

    def _warm_up(self, image: np.ndarray, calibration: Calibration) -> None:
        """Read the calibration frame once, untimed, so that what each reader loads or works
        out once (the dice and cube models and templates, this camera's warp tables) is ready
        before the first throw: its verdict does not wait for them, and the reading costs
        (:class:`ReadCosts`) count each frame's own work. With reuse, the dice and cube
        memories keep that reading: the first frame is then read only where it changed since,
        not whole a second time (a whole dice read and a whole cube search a session). The
        dice memory's stats leave it out; the cube memory's count it, a frame searched whole."""
        g = self.config.geometry
        if not self.dice_memory.prime(image, calibration.corners, g):
            DiceMemory(enabled=False).read(image, calibration.corners, g)
        if self.reuse:
            self._cube(image, calibration, self._change_raster(image, with_dice=True))
        else:
            find_cube(cv2.warpPerspective(image, self._cube_h, self._cube_canonical.size),
                      self._cube_canonical)
        prepare(image, calibration, self.config)

    def read(self, image: np.ndarray, t_ms: int, *, with_dice: bool = True) -> FrameSeen:
        """The referee's event for one still frame."""
        calibration = self._calibrate(image)
        t0 = time.thread_time()
        # the board's raster first: the dice memory's candidate raster starts from the very
        # halving of the frame the board's warp made (when both halve it)
        frame = prepare(image, calibration, self.config)
        t1 = time.thread_time()
        read: list[BoardDie] = []
        halvings = Halvings(image, frame.halved)
        if with_dice and self._to_mm is not None:
            read = self.dice_memory.read(image, calibration.corners, self.config.geometry,
                                         halvings)
        t2 = time.thread_time()
        found = self._cube(image, calibration, self._change_raster(image, with_dice))
        # the cube's number read as a die's pips (a thorough read's spots find it): one of
        # the two readings of its face stays, as ``hakem vision read`` settles it
        read, found = settle_dice_and_cube(read, found, self.config.geometry)
        t3 = time.thread_time()
        # the dice and the cube read before the board's counts: where one lies on the board
        # (a die on no checker), no checker stands
        reading = read_prepared(frame, dice=False, clear_at=[
            d.centre_mm for d in read if not d.on_checker
            and kept_die(d.flat, d.confidence, self.die_floor, self.cocked_floor)],
            cube_at=None if found is None else found.centre_mm)
        if self._learn and self.learned_colours is None:
            learned = start_colours(reading)
            if learned is not None:
                self._adopt(learned)
                if self._colours_file is not None:
                    _save_colours(self._colours_file, learned)
        t4 = time.thread_time()
        # the slot counts serve the dice alone: a frame with none read does without them
        slots = reading.slot_counts() if read else []
        read = self._table_dice(read, slots, None if found is None else found.centre_mm)
        cube = None if found is None else CubeSeen(found.value, _zone(found.zone),
                                                   found.confidence)
        dice = tuple(DieSeen(pips=d.pips, half=_half(d.half), flat=d.flat,
                             on_checker=d.on_checker or self._over_checker(slots, _centre(d)),
                             confidence=d.confidence, centre=_centre(d),
                             touched=self.dice_memory.changed_since_press(d.centre_mm),
                             p_cocked=d.p_cocked)
                     for d in read)
        t5 = time.thread_time()
        costs = self.costs
        costs.frames += 1
        costs.board_ms += 1000.0 * ((t1 - t0) + (t4 - t3))
        # the cube and settling it with the dice; what the referee's view makes of the dice
        # (the table's filter, touched since the press) is the dice's, on frames they are read
        costs.cube_ms += 1000.0 * (t3 - t2)
        if with_dice and self._to_mm is not None:
            costs.add_dice(self.dice_memory.stats.last or "full",
                           1000.0 * ((t2 - t1) + (t5 - t4)))
        else:
            costs.cube_ms += 1000.0 * (t5 - t4)
        return FrameSeen(t_ms=t_ms, board=ReadingView(reading), dice=dice, cube=cube)

    def _table_dice(self, read: list[BoardDie], slots: list[tuple[int, int] | None],
                    cube_mm: tuple[float, float] | None) -> list[BoardDie]:
        """:func:`table_dice` of this frame, taken from the last frame when that had the very
        same dice readings (the dice memory's, nothing changed), slot counts and cube place
        (a tenth of a millisecond a frame, the frames whose dice lie as they lay)."""
        if not read:  # no die read (a frame whose dice are not wanted): none kept
            return []
        g = self.config.geometry
        given = (g, self.die_floor, self.cocked_floor, slots, cube_mm)
        last = self._kept
        if (last is not None and len(last[0]) == len(read)
                and all(a is b for a, b in zip(last[0], read, strict=True)) and last[1] == given):
            return list(last[2])
        out = table_dice(read, g, slots, cube_mm, self.die_floor, self.cocked_floor)
        self._kept = (tuple(read), given, out)
        return list(out)

    def _change_raster(self, image: np.ndarray, with_dice: bool) -> LazyRaster | None:
        """This frame's change raster for the cube: the dice memory's when it read the
        frame's dice, else worked out only when the cube needs it; None without reuse."""
        known = self.dice_memory.raster if with_dice else None
        if known is not None:
            return LazyRaster.known(known)
        if not self.reuse or self._to_mm is None:
            return None
        return LazyRaster(image, self._from_mm, self.config.geometry)

    def _cube(self, image: np.ndarray, calibration: Calibration,
              lazy: LazyRaster | None = None) -> CubeReading | None:
        """The cube (BG-CUBE-*) on its own raster; the last one found is taken again while
        its patch has not changed (between throws the cube lies still), and once it has, is
        looked for where it lay and where the picture changed since it was seen (the whole
        case when it is not there: gone, or under a hand); after a search that found none,
        only where the picture changed is searched (``lazy``: this frame's change raster,
        :meth:`_change_raster`)."""
        g = self.config.geometry
        key = frame_key(calibration.corners, g)
        from_mm = self._from_mm
        memory = self.cube_memory
        memory.stats.frames += 1
        if self.reuse:
            before = memory.reuse(key, image, from_mm, g.cube_size_mm, lazy)
            if before is not None:
                memory.stats.still += 1
                return before
        raster = None if lazy is None else lazy.get()
        if self.reuse:
            moved = None if raster is None else memory.moved_parts(key, *raster)
            if moved is not None and raster is not None:
                # the cube found has moved or turned (it lies where it lay or where the
                # picture changed since), else it has gone or a hand is over it: the whole
                # case is searched then
                levels = memory.seen_levels
                found = self._cube_in_parts(image, moved, levels)
                if found is not None:
                    memory.keep(key, image, from_mm, g.cube_size_mm, found, raster[1], levels)
                    return found
            boxes = None if raster is None else memory.none_parts(key, *raster)
            if boxes is not None and raster is not None and memory.none_levels is not None:
                if not boxes:
                    memory.stats.none_kept += 1
                    return None
                levels = memory.none_levels
                found = self._cube_in_parts(image, boxes, levels)
                if found is not None:
                    memory.keep(key, image, from_mm, g.cube_size_mm, found, raster[1], levels)
                return found
        memory.stats.whole += 1
        bgr = cv2.warpPerspective(image, self._cube_h, self._cube_canonical.size)
        levels = None
        if self.reuse and raster is not None:  # kept for a later search in parts
            levels = whole_raster_levels(bgr, self._cube_canonical)
        # the search takes the same levels of the same raster: given, not worked out again
        found = find_cube(bgr, self._cube_canonical, darker_at_top=self.darker_at_top,
                          levels=levels)
        memory.keep(key, image, from_mm, g.cube_size_mm, found,
                    None if raster is None else raster[1], levels)
        return found

    def _cube_in_parts(self, image: np.ndarray,
                       boxes: list[tuple[float, float, float, float]],
                       levels: tuple[float, float] | None) -> CubeReading | None:
        """The cube searched for only about ``boxes`` (board mm), as a whole search with the
        light ``levels`` would find it there."""
        assert levels is not None
        self.cube_memory.stats.parts += 1
        return find_cube_in_parts(functools.partial(self._cube_part, image),
                                  self._cube_canonical, boxes, levels,
                                  darker_at_top=self.darker_at_top)

    def _cube_part(self, image: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
        """Pixels (u0, v0, u1, v1; end exclusive) of the cube's raster, warped alone."""
        u0, v0, u1, v1 = box
        shift = np.array([[1.0, 0.0, -u0], [0.0, 1.0, -v0], [0.0, 0.0, 1.0]])
        out: np.ndarray = cv2.warpPerspective(image, shift @ self._cube_h, (u1 - u0, v1 - v0))
        return out

    def _adopt(self, colours: Colours) -> None:
        """Tell the sides apart by these colours (darker, lighter BGR) from now on."""
        self.learned_colours = colours
        self.config = with_colours(self.config, colours)

    def _over_checker(self, slots: Sequence[tuple[int, int] | None],
                      centre: tuple[float, float] | None) -> bool:
        """The die's centre lies over a checker the board reading counts (BG-ROLL-2: a die
        resting on a checker): the dice reader's own on-checker test, seen from the board
        (``slots``: the reading's ``slot_counts``, None where a slot is hidden)."""
        if centre is None:
            return False
        g = self.config.geometry
        reach = g.checker_diameter_mm / 2 - OVER_CHECKER_MARGIN_MM
        cx, cy = centre
        columns = _column_places(g, len(slots))
        for (x0, places), counts in zip(columns, slots, strict=True):
            # a column whose x alone is out of reach is passed over (its checkers share that x,
            # and the distance along the column only adds to it): the same answer, sooner
            if counts is None or (x0 - cx) ** 2 >= reach**2:
                continue
            # The outermost counted checker may be the die itself, read as one more checker
            # at the top of the stack: only the dice reader's own test judges that one.
            for x, y in places[:max(0, min(sum(counts), len(places)) - 1)]:
                if (x - cx) ** 2 + (y - cy) ** 2 < reach**2:
                    return True
        return False


@functools.lru_cache(maxsize=4)
def _column_places(geometry: BoardGeometry, slots: int
                   ) -> tuple[tuple[float, tuple[tuple[float, float], ...]], ...]:
    """Each of ``slots`` slots' column x (mm) and first-layer checker centres (board mm, as
    many as a column holds), worked out once: every die of every frame is tested against them
    (:meth:`FrameReader._over_checker`)."""
    cap = geometry.column_capacity()
    return tuple((geometry.slot_centre_x(slot),
                  tuple(geometry.checker_centre_mm(slot, i) for i in range(cap)))
                 for slot in range(slots))


def table_dice(dice: Sequence[BoardDie], geometry: BoardGeometry,
               slot_counts: Sequence[tuple[int, int] | None] | None,
               cube_mm: tuple[float, float] | None, die_floor: float,
               cocked_floor: float) -> list[BoardDie]:
    """The dice a table keeps of a reading: a die with nothing within reach to lean on lies
    flat (BG-ROLL-2's "cocked" is tilted against the rail, a checker or the other die;
    ``vision.dice.support``), then the camera floors (:func:`kept_die`) weigh the confidence
    once the pose is settled (a die read flat in doubt that nothing can hold cocked is surely
    flat, one the rail alone holds is cocked on less evidence); of more than two dice, two read
    closer than a die's side are one die (:func:`one_reading_per_die`)."""
    return one_reading_per_die(
        [d for d in with_supports(dice, geometry, slot_counts, cube_mm)
         if kept_die(d.flat, d.confidence, die_floor, cocked_floor)], geometry.die_size_mm)


def _load_colours(path: Path) -> Colours:
    """Colours learned earlier at this table (``_save_colours``)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        darker, lighter = (tuple(int(v) for v in data[k]) for k in ("darker", "lighter"))
        if len(darker) != 3 or len(lighter) != 3 or not all(
                0 <= v <= 255 for v in (*darker, *lighter)):
            raise ConfigError("not two bgr triples")
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        raise ConfigError(f"learned checker colours in {path} unreadable: {exc}") from exc
    return (darker[0], darker[1], darker[2]), (lighter[0], lighter[1], lighter[2])


def _save_colours(path: Path, colours: Colours) -> None:
    """Keep the learned colours for a restart: written whole or not at all, then synced."""
    text = json.dumps({"darker": list(colours[0]), "lighter": list(colours[1])})
    write_whole(path, text.encode("utf-8"))


def _centre(die: object) -> tuple[float, float] | None:
    """Where a die rests in board millimetres (rounded: the referee compares it between frames
    to tell a die thrown again from one lying where it lay), if the dice reader says."""
    centre = getattr(die, "centre_mm", None)
    if centre is None:
        return None
    return (round(float(centre[0]), 1), round(float(centre[1]), 1))


def _half(half: str | None) -> Literal["left", "right", "off-board"]:
    if half == "left":
        return "left"
    if half == "right":
        return "right"
    return "off-board"


def _zone(zone: str) -> Zone:
    zones: dict[str, Zone] = {
        "centre": "centre",
        "darker-side": "darker-side",
        "lighter-side": "lighter-side",
        "offered": "offered",
    }
    return zones.get(zone, "off-board")
