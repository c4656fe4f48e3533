"""Dice read again only where the picture changed: one table's memory of its last dice
readings (owned by its frame reader, never module-wide). The change map it compares frames with
is ``vision.dice.change_map``'s, the raster stage it keeps ``vision.dice.raster_peaks``'s; the
table's cube has a memory of its own (``vision.dice.cube_memory``).

The camera and the board of a table do not move, and between throws the dice and the cube lie
as they lay, so most still frames the referee reads show them unchanged. :class:`DiceMemory`
keeps a small grey top-down raster of the whole case (trays and frame included: a die thrown
off the playing surface counts too, BG-ROLL-2) as it looked when each part was last read, and
the dice read then. On a new frame a change map (``change_mask``: the difference with that
raster, blurred against camera noise and scaled to the frame's exposure) says where anything
changed by more than ``CHANGE_LEVEL`` grey levels. About the dice read every pixel is
compared with itself; elsewhere a pixel changed only when it leaves the range its neighbours
had (``SHIFT_PX``) over a block of ``MIN_BLOCK_PX`` pixels: the picture or a checker
a few millimetres aside is no new die (a die, the cube or a checker put down or taken away
changes its whole inside). Then:

- nothing changed: the last dice, as they were;
- a die whose own square (:data:`DIE_REACH_DIES` about it, every pixel against the one it
  was read on) changed is dropped and read again: a die nudged (BG-MOVE-8), picked up, a
  checker put down against it, a hand over it; a checker moved a little farther off leaves
  its reading as it was (a die comes onto a checker or tips only by moving);
- candidates are looked for only where the picture changed (a new throw lands where it
  changed) and around the dice dropped, yet ranked as a fresh read ranks them: the raster
  model's first stage (``RasterPeaks``: the corner peaks of the whole case and the ray
  model's places about the strongest) is kept and updated only in the changed parts, so the
  same few places (the strongest peaks of the whole board, the most probable places) are
  read; every later stage is ``vision.dice.board.read_board_dice``'s own (``read_dice_at``);
- at a table with one pair of dice (BG-EQ-2), while the two dice of the throw the referee
  judged lie untouched (:meth:`DiceMemory.hold_pair`), no changed part is read for dice: nobody
  has picked the pair up to throw. Nothing is ranked then either: the raster stage of those
  parts is worked out with the next frame whose changed parts are read (the throw's), and the
  pair is kept as it lies, even where the moved checkers' peaks would rank a die of it out of
  a fresh read's places (a one on a light field: the raster gives it little);
- a change of the light beyond ``MAX_FLICKER``, or over more than
  ``MAX_CHANGED_SHARE`` of the case (a bump of the camera), reads the frame whole.

On streams where a scene shown again is the very same picture, these readings equal a fresh
read of each frame (``tests.vision.test_dice_reuse``; ``tests.bench.dice`` counts it), but
where a fresh read reads a die (or none) under a checker laid again a few millimetres aside
(the demo lays every checker again when any moves): the memory sees no change there. Under
live camera noise a fresh read itself flickers (a borderline die or board-texture candidate
in one frame and not the next); the memory then keeps the reading of the frame it read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.errors import ConfigError
from vision.dice.board import read_board_dice
from vision.dice.board_die import BoardDie
from vision.dice.candidates import SPOT_REACH_DIES
from vision.dice.change_map import (
    CHANGE_PPM,
    MAX_CHANGED_SHARE,
    ChangeWarp,
    Halvings,
    absorb,
    absorb_if_still,
    change_map_box,
    change_mask,
    change_warp,
    frame_key,
    inverse,
    pixel_change,
    warp_raster,
)
from vision.dice.raster import RASTER_PPM
from vision.dice.raster_peaks import (
    RasterPeaks,
    ranked_places,
    raster_peaks,
    read_dice_at,
    update_peaks,
)
from vision.geometry import BoardGeometry, Canonical

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


# a camera set-up (corners as float32 bytes, geometry, frame rows and columns) and what depends
# on it alone: its key, board mm to image px, the change raster's warp
_Pose = tuple[bytes, BoardGeometry, tuple[int, ...], bytes, np.ndarray, ChangeWarp]


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
    # the last frame's change raster, the picture of the board before the throw it was
    # compared with, and its change map since then
    _since: tuple[np.ndarray, np.ndarray, np.ndarray | None] | None = None
    # at a one-pair table, the places of the last throw judged as last told (hold_pair) and
    # the dice of this memory read there when told: while both are kept untouched, no other
    # die lies on the board
    _pair_at: tuple[tuple[float, float], ...] = ()
    _pair: list[BoardDie] = field(default_factory=list)
    # the camera set-up last read (:meth:`_pose_of`)
    _pose: _Pose | None = None
    # the change-map parts (uint8 masks) searched while that pair lay, read for no die, and
    # those that changed (the raster stage not brought up to date there): the next partial
    # read works the changed ones' peaks out
    _stale: tuple[np.ndarray, np.ndarray] | None = None

    def forget(self) -> None:
        """The next frame is read whole."""
        self.raster = None
        self._key = None
        self._reference = None
        self._peaks = None
        self._stale = None
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
        every frame; when the places are new (or the frame before was read whole), the two dice
        this memory holds there are taken as that throw's. While both are kept untouched
        (:meth:`read` drops a die whose square changed), nobody has picked the pair up to
        throw, so no other die can lie anywhere: the parts that changed (checkers moved, the
        cube turned) are not read for dice. Dice of the memory that only happen to lie
        elsewhere as a pair (a phantom) never hold it."""
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

    def prime(self, image: np.ndarray, corners: np.ndarray, geometry: BoardGeometry) -> bool:
        """Read ``image`` (a table's calibration frame) as the picture the next frame is
        compared with, counted in no stats and leaving a pending press mark for that frame:
        the first frame of a scene unchanged since is then read as unchanged, not whole
        again. False (nothing read) when reuse is off or a thorough read is due, which must
        read the next frame whole."""
        if not self.enabled or self._thorough:
            return False
        stats, mark = self.stats, self._mark_before
        self.stats, self._mark_before = ReuseStats(), False
        try:
            self._read(image, corners, geometry, Halvings(image))
        finally:
            self.stats, self._mark_before = stats, mark
        return True

    def read(self, image: np.ndarray, corners: np.ndarray, geometry: BoardGeometry,
             halvings: Halvings | None = None) -> list[BoardDie]:
        """Every die on (or beside) the board in a camera frame, at most four, as
        ``read_board_dice`` reads them, reading only where the frame changed (``halvings``:
        the frame's, when a reader before this one halved it)."""
        dice = self._read(image, corners, geometry,
                          Halvings(image) if halvings is None else halvings)
        if self._mark_before and self.raster is not None and self._key is not None:
            # kept, not copied: a change raster is never written to (read-only)
            self._before = (self._key, self.raster[1])
            self._mark_before = False
        return dice

    def _read(self, image: np.ndarray, corners: np.ndarray, geometry: BoardGeometry,
              halvings: Halvings) -> list[BoardDie]:
        from vision.dice.reading import image_to_mm  # the reading module imports the pass

        self.stats.frames += 1
        key, from_mm, warp = self._pose_of(corners, geometry, image.shape)
        canonical, now = warp_raster(image, warp)
        self.raster = (canonical, now)
        ref, known = self._reference, self._peaks
        if (not self.enabled or key != self._key or ref is None or known is None
                or ref.shape != now.shape):
            return self._full(image, image_to_mm(corners, geometry), geometry, key, now,
                              halvings)
        diff = cv2.absdiff(now, ref)
        if absorb_if_still(ref, now, diff):  # the usual still frame: no change map to make
            return self._unchanged()
        to_mm = image_to_mm(corners, geometry)
        g = geometry
        core = DIE_REACH_DIES * g.die_size_mm
        about_dice = [change_map_box(canonical, now.shape, *d.centre_mm, core)
                      for d in self._dice]
        found = change_mask(now, ref, about_dice, diff)
        if found is None:  # the light changed
            return self._full(image, to_mm, geometry, key, now, halvings)
        changed = found
        absorb(ref, now, changed, diff)
        count = int(np.count_nonzero(changed))
        if count == 0:
            return self._unchanged()
        if count > MAX_CHANGED_SHARE * changed.size:
            return self._full(image, to_mm, geometry, key, now, halvings)
        kept: list[BoardDie] = []
        dropped: list[BoardDie] = []
        for d, (u0, v0, u1, v1) in zip(self._dice, about_dice, strict=True):
            (dropped if changed[v0:v1, u0:u1].any() else kept).append(d)
        grow = max(1, round(SEARCH_DIES * g.die_size_mm * CHANGE_PPM))
        search: np.ndarray = cv2.dilate(changed.view(np.uint8),
                                        np.ones((2 * grow + 1, 2 * grow + 1), np.uint8))
        for d in dropped:
            u0, v0, u1, v1 = change_map_box(canonical, search.shape, *d.centre_mm, g.die_size_mm)
            search[v0:v1, u0:u1] = 1
        if (self._mark_before and self._one_pair and not dropped and len(kept) >= 2) \
                or self._pair_lies(kept):
            # BG-EQ-2's one pair lies as it was read, untouched: nothing else on the board is a
            # die, so the changed parts (checkers moved) are taken as read and holding none.
            # Nor is the raster stage brought up to date there, for nothing is ranked (the most
            # of such a frame's dice time): those parts wait (_stale) for the next frame whose
            # changed parts are read (the pair picked up and thrown), which works their peaks
            # out with its own; the pair stays as it lies, untouched, whatever the moved
            # checkers' peaks would do to its dice's rank
            redo = _redo(changed, dropped, canonical, core)
            self._stale = (search, redo) if self._stale is None else (
                self._stale[0] | search, self._stale[1] | redo)
            return self._settle(kept, [], dropped, search)
        # the parts changed while the pair lay are searched for peaks with this frame's, but
        # their places are not read unless this frame changed there too: they were taken as
        # read, holding no die, on the frame they changed (as a place ranked then would be)
        held, self._stale = self._stale, None
        redo = _redo(changed, dropped, canonical, core)
        stale = None if held is None else held[0]
        peaks = update_peaks(known, image, from_mm, g, canonical,
                             redo if held is None else redo | held[1], halvings)
        raster = Canonical.whole_board(g, RASTER_PPM)
        ranked = ranked_places(peaks, g)
        # a die kept is one a fresh read still finds: a place it takes lies at it
        tops = [raster.px_to_mm(u, v) for u, v, _ in ranked]
        kept = [d for d in kept if any(math.hypot(d.centre_mm[0] - x, d.centre_mm[1] - y)
                                       < g.die_size_mm * (SPOT_REACH_DIES + 0.5)
                                       for x, y in tops)]
        places = []
        for u, v, p in ranked:
            x, y = raster.px_to_mm(u, v)
            cu, cv = canonical.mm_to_px(x, y)
            iu = min(max(round(cu), 0), search.shape[1] - 1)
            iv = min(max(round(cv), 0), search.shape[0] - 1)
            fresh = (u, v) not in known.top and (stale is None or not stale[iv, iu])
            if ((search[iv, iu] or fresh)
                    and all(math.hypot(d.centre_mm[0] - x, d.centre_mm[1] - y) >= core
                            for d in kept)):
                places.append((x, y, p))
        # at a move's press no throw can have landed: a cocked die is only one already read
        # (tipped by the hand), so only about those are second chances given (a changed part
        # elsewhere is a checker moved, whose highlights a second chance would read for long)
        tilted_near = [d.centre_mm for d in dropped] if self._mark_before else None
        new = [d for d in read_dice_at(image, to_mm, g, places, tilted_near)
               if all(_apart_mm(d, k) >= 0.7 * g.die_size_mm for k in kept)]
        peaks.top = {(u, v) for u, v, _ in ranked}
        self._peaks = peaks
        return self._settle(kept, new, dropped, search)

    def _pose_of(self, corners: np.ndarray, geometry: BoardGeometry, shape: tuple[int, ...]
                 ) -> tuple[bytes, np.ndarray, ChangeWarp]:
        """The camera set-up's key, board-mm-to-image homography and change-raster warp,
        worked out once per set-up (the camera and the board stay put): not looked up again
        on every frame."""
        corner_bytes = np.asarray(corners, np.float32).tobytes()
        pose = self._pose
        if (pose is None or pose[0] != corner_bytes or pose[1] is not geometry
                or pose[2] != shape[:2]):
            from vision.dice.reading import image_to_mm  # the reading module imports the pass

            from_mm = inverse(image_to_mm(corners, geometry).tobytes())
            pose = (corner_bytes, geometry, shape[:2], frame_key(corners, geometry), from_mm,
                    change_warp(from_mm, geometry, shape))
            self._pose = pose
        return pose[3], pose[4], pose[5]

    def _unchanged(self) -> list[BoardDie]:
        """A frame where nothing changed: the last dice, as they were."""
        self.stats.unchanged += 1
        self.stats.last = "unchanged"
        return list(self._dice)

    def _settle(self, kept: list[BoardDie], new: list[BoardDie], dropped: list[BoardDie],
                search: np.ndarray) -> list[BoardDie]:
        """A partial read's end: the dice kept and the ``new`` ones read (the most confident
        four) are the memory's, and its reference takes the frame's picture where it was
        ``search``ed (see there)."""
        assert self.raster is not None and self._reference is not None
        canonical, now = self.raster
        g = canonical.geometry
        out = sorted([*kept, *new], key=lambda d: -d.confidence)
        self._dice = sorted(out[:4], key=lambda d: (d.centre_mm[0], d.centre_mm[1]))
        # the reference moves on where the frame was read again and about the dice read on it
        # (each die is compared with the picture it was read on), not about the dice kept:
        # drift below the level, frame after frame, still adds up to a change there
        update = search.astype(bool)
        reach = NEIGHBOURHOOD_CHECKERS * g.checker_diameter_mm
        for d in new:
            u0, v0, u1, v1 = change_map_box(canonical, update.shape, *d.centre_mm, reach)
            update[v0:v1, u0:u1] = True
        core = DIE_REACH_DIES * g.die_size_mm
        for d in kept:
            u0, v0, u1, v1 = change_map_box(canonical, update.shape, *d.centre_mm, core)
            update[v0:v1, u0:u1] = False
        np.copyto(self._reference, now, where=update)
        self.stats.partial += 1
        self.stats.dice_read_again += len(dropped)
        self.stats.last = "partial"
        return list(self._dice)

    def _full(self, image: np.ndarray, to_mm: np.ndarray, geometry: BoardGeometry, key: bytes,
              now: np.ndarray, halvings: Halvings | None = None) -> list[BoardDie]:
        self._key = key  # this frame's pose, before a thorough read compares it (_before)
        # the raster stage once: its places are the ones a fresh read_board_dice would take
        peaks = raster_peaks(image, inverse(to_mm.tobytes()), geometry, halvings)
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
        self._stale = None
        # the dice just read are new readings: the places of the throw judged (hold_pair),
        # told again after this frame, are taken as new, so the two read there are held (the
        # same dice, where they lay: a light change or a hand over the case read them whole,
        # and the pair was else held no more until the next throw was judged)
        self._pair_at, self._pair = (), []
        # a copy: the reference moves on (absorb) while the raster stays this frame's
        self._reference = now.copy()
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
        if before is now:  # the press frame itself: nothing changed since, no map to work out
            return False
        if self._since is None or self._since[0] is not now or self._since[1] is not before:
            changed = None if before.shape != now.shape else pixel_change(now, before)
            self._since = (now, before, changed)
        changed = self._since[2]
        if changed is None:
            return None
        half = THROWN_REACH_DIES * canonical.geometry.die_size_mm
        u0, v0, u1, v1 = change_map_box(canonical, changed.shape, *centre_mm, half)
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
    face and its side face together as one flat face (see :func:`settle_doubt`). Several
    times slower than a read."""
    dice = read_board_dice(image, to_mm, geometry, places=places, thorough=True)
    spotted = read_board_dice(image, to_mm, geometry, spots=True, thorough=True)
    near = 0.7 * geometry.die_size_mm
    dice = [settle_doubt(k, spotted, near, doubt) for k in dice]
    more = [d for d in spotted
            if all(_apart_mm(d, k) >= near for k in dice)]
    out = sorted([*dice, *more], key=lambda d: -d.confidence)[:4]
    return sorted(out, key=lambda d: (d.centre_mm[0], d.centre_mm[1]))


def settle_doubt(die: BoardDie, spotted: list[BoardDie], near: float,
                  doubt: float = FLAT_DOUBT) -> BoardDie:
    """``die``, or the die the spots read finds cocked within ``near`` (mm) of it when ``die``
    is read flat in doubt: two reads of the same place, one unsure of flat, the other sure of a
    tilted face (a thorough second chance is kept only at ``pose.second_chance_threshold``)."""
    if not die.flat or die.p_cocked < doubt:
        return die
    cocked = [d for d in spotted if not d.flat and _apart_mm(d, die) < near]
    return max(cocked, key=lambda d: d.confidence) if cocked else die


def _redo(changed: np.ndarray, dropped: list[BoardDie], canonical: Canonical, core: float
          ) -> np.ndarray:
    """Where the raster stage is worked out again (uint8 change-map mask): where the picture
    changed and about the dice dropped. Not the wider part searched for dice: a peak and its
    places depend on the raster only a few px about it (``raster_peaks.PEAK_PAD``, which
    ``update_peaks`` adds), so elsewhere they are as kept."""
    out = changed.astype(np.uint8)
    for d in dropped:
        u0, v0, u1, v1 = change_map_box(canonical, out.shape, *d.centre_mm, core)
        out[v0:v1, u0:u1] = 1
    return out


def _rounded(centre_mm: tuple[float, float]) -> tuple[float, float]:
    """A die's centre (mm) to 0.1 mm, as the referee is told it (``DieSeen.centre``)."""
    return (round(float(centre_mm[0]), 1), round(float(centre_mm[1]), 1))


def _apart_mm(a: BoardDie, b: BoardDie) -> float:
    """How far apart two dice's read centres lie (mm)."""
    return math.hypot(a.centre_mm[0] - b.centre_mm[0], a.centre_mm[1] - b.centre_mm[1])
