"""A table's memory of its last cube search (:class:`CubeMemory`): read again only where the
picture changed (split from ``vision.dice.reuse``, whose dice memory it mirrors).

It takes a cube lying still again (its patch unchanged), and looks for one whose patch changed
where it lay and where the picture changed since (the whole case when it is not there); after
a search that found none it searches only where the change map shows a change of a die's size
or more (a die that leaves may uncover a cube it hid); every :data:`NONE_WHOLE_EVERY`-th frame
again where the picture changed since the last such search and still differs, and every
:data:`WHOLE_EVERY_ROUNDS`-th time the whole case instead; a cube lost is looked for where it
could have gone on the frame it was lost (where it lay, where the picture had changed since it
was seen).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.cube import CubeReading
from vision.cube_search import cube_patch
from vision.dice.change_map import (
    MAX_CHANGED_SHARE,
    LazyRaster,
    absorb,
    change_mask,
    component_boxes,
    pixel_change,
)
from vision.geometry import Canonical

STILL_DIFF = 25.0  # the cube's patch (6 x 6 means) changed by less: it has not moved
NONE_SEARCH_EVERY = 4  # with no cube found and nothing changed, one frame in this many searches
# with no cube found, a table's frames are searched only where the picture changed, but one in
# this many again where it changed since the last such search and still differs from what it
# showed then (a cube a search missed on one frame's noise is not missed for long: it can only
# lie where the picture changed, and changes it for as long as it lies there; a die thrown and
# picked up again, a checker moved and moved back, leave nothing to find) ...
NONE_WHOLE_EVERY = 12
# ... and one such search in this many is of the whole case (a cube missed twice)
WHOLE_EVERY_ROUNDS = 4
# a part where the picture changed is searched again on this many frames after (a search may
# miss a cube on one frame's noise)
PART_RETRIES = 0
# a cube found and found no more (taken away, or missed on one frame's noise): where it could
# have gone on the frame it was lost (where it lay and where the picture had changed since it
# was seen: :meth:`CubeMemory.moved_parts`) is searched on this many frames. Not where the
# picture changed since: what changes after the loss is searched as any change is
# (:meth:`CubeMemory.none_parts`), and at a game's end (a double dropped, the cube lifted,
# the checkers laid out again) those retries searched most of the case eight times over
LOST_RETRIES = 8
# a cube put down changes the picture over most of its face; a change narrower than this many
# cube sides both ways (a speck, an edge a hair aside) is no new cube. A die thrown or picked up
# (about 0.4 of a cube's side) counts: a die lying against a cube (BG-CUBE-3's offer) may hide
# it from the search, which finds it once the die leaves (0.7 left such a cube unfound until a
# whole search: the offered cube of table stream 3, tests.bench.dice, was read on 48 of 120
# frames, 99 fresh)
MIN_CUBE_CHANGE = 0.3


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
    for x, y, w, h in component_boxes(changed.astype(np.uint8)):
        if w >= least or h >= least:
            x0, y0 = canonical.px_to_mm(x - 0.5, y - 0.5)
            x1, y1 = canonical.px_to_mm(x + w - 0.5, y + h - 0.5)
            out.append((x0 - half, y0 - half, x1 + half, y1 + half))
    return out


def _moved(patch: np.ndarray, before: np.ndarray) -> bool:
    """Whether a cube's patch changed from ``before`` by :data:`STILL_DIFF` or more in one of
    its 6 x 6 means. Where no pixel changed that much no mean did: the frames where the cube
    lies still (most of a match's) are settled without the means."""
    change = cv2.absdiff(patch, before)
    if int(change.max()) < STILL_DIFF:
        return False
    means = cv2.resize(change, (6, 6), interpolation=cv2.INTER_AREA)
    return float(means.max()) >= STILL_DIFF


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
    # the change raster of that search, and how many searches again since the whole one
    since: np.ndarray | None = None
    since_raster: np.ndarray | None = None
    rounds: int = 0
    # the change raster the cube was last seen on (read-only: kept, not copied, when it is a
    # later frame's)
    seen_raster: np.ndarray | None = None
    seen_levels: tuple[float, float] | None = None  # ... and its search's light levels
    # a later frame the cube lay still on, whose raster is not worked out yet: the picture it
    # was last seen on (:meth:`_seen`), taken into seen_raster only when it is needed
    seen_later: LazyRaster | None = None
    lost_from: np.ndarray | None = None  # that raster, when the cube has just been lost
    # where the cube found may lie now (board mm: this frame's :meth:`moved_parts`) and, when
    # it is lost on such a frame, where it could have gone then
    moved: list[tuple[float, float, float, float]] | None = None
    lost_to: list[tuple[float, float, float, float]] | None = None
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
        self.seen_later = None
        self.lost_from = None
        self.moved, self.lost_to = None, None
        self.pending = []
        self.since, self.since_raster = None, None
        self.rounds = 0

    def none_parts(self, key: bytes, canonical: Canonical, now: np.ndarray
                   ) -> list[tuple[float, float, float, float]] | None:
        """After a search that found no cube at this set-up: the boxes (x0, y0, x1, y1 board
        mm) a new search need look at (``[]``: none, still no cube), or None: search whole
        (no such search, another set-up, the light or most of the case changed, or every
        :data:`WHOLE_EVERY_ROUNDS`-th search again). Every :data:`NONE_WHOLE_EVERY`-th
        frame, where it changed since the last whole search or search again and still
        differs from what it showed then is searched again (the search there may have missed
        a cube on its frame's noise: :meth:`_still_changed`).

        The boxes are about where the picture (``now``, :func:`change_raster`'s, on
        ``canonical``) changed since, over :data:`MIN_CUBE_CHANGE` of a cube's side (half a
        cube's side wider: :func:`_cube_boxes`), each looked at again on
        the next :data:`PART_RETRIES` frames (a search missing a cube on one frame's noise),
        and, once a cube found has been lost, where it could have gone then (its place and
        where the picture had changed since it was seen: :meth:`moved_parts`; without those,
        where the picture changed since), on the next :data:`LOST_RETRIES` frames."""
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
            self.pending += [(b, 1) for b in _cube_boxes(self._still_changed(now), canonical)]
            self.none_taken, self.rounds, self.since = 0, self.rounds + 1, None
            self.since_raster = now.copy()
        if self.lost_to is not None:
            self.pending += [(b, LOST_RETRIES) for b in self.lost_to]
        elif self.lost_from is not None and self.lost_from.shape == now.shape:
            # lost where most of the case or the light changed: no such boxes were worked out
            moved = change_mask(now, self.lost_from)
            if moved is not None:
                self.pending += [(b, LOST_RETRIES) for b in _cube_boxes(moved, canonical)]
        self.lost_from, self.lost_to = None, None
        if changed.any():
            self.pending += [(b, PART_RETRIES + 1) for b in _cube_boxes(changed, canonical)]
            # the reference moves on where the parts are searched (or ruled out)
            grown = cv2.dilate(changed.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
            ref[grown] = now[grown]
        out = [box for box, _left in self.pending]
        self.pending = [(box, left - 1) for box, left in self.pending if left > 1]
        return out

    def _still_changed(self, now: np.ndarray) -> np.ndarray:
        """Where the picture (``now``) changed on a frame since the last whole search or
        search again and still differs from what it showed then (change-map px): where a cube
        a search missed since can lie. Without that picture (or the light changed since by more
        than :func:`change_mask` allows), wherever it changed."""
        assert self.since is not None
        then = self.since_raster
        differs = None if then is None or then.shape != now.shape else change_mask(now, then)
        return self.since if differs is None else self.since & differs

    def moved_parts(self, key: bytes, canonical: Canonical, now: np.ndarray
                    ) -> list[tuple[float, float, float, float]] | None:
        """For a cube found at this set-up whose patch has changed (turned, moved, taken
        away, or a hand over it): the boxes (board mm) where it can lie now, its place and
        where the picture (``now``) changed since it was last seen there (each pixel against
        itself, over :data:`MIN_CUBE_CHANGE` of a cube's side, half a cube's side wider:
        :func:`_cube_boxes`); None: search whole (no such cube, the light or most of the case
        changed). Kept (:attr:`moved`) until the frame's search is kept: where a cube lost
        on this frame could have gone."""
        self.moved = None
        self._seen()
        if (self.still is None or self.still[0] != key or self.seen_raster is None
                or self.seen_levels is None or self.seen_raster.shape != now.shape):
            return None
        changed = pixel_change(now, self.seen_raster)
        if changed is None or np.count_nonzero(changed) > MAX_CHANGED_SHARE * changed.size:
            return None
        x, y = self.still[2].centre_mm
        half = 0.5 * canonical.geometry.cube_size_mm
        self.moved = [(x - half, y - half, x + half, y + half), *_cube_boxes(changed, canonical)]
        return self.moved

    def _seen(self) -> None:
        """The raster of the last frame the cube lay still on (:attr:`seen_later`) worked out
        and taken as the picture it was last seen on."""
        later, self.seen_later = self.seen_later, None
        if later is not None and self.seen_raster is not None:
            now = later.get()[1]
            if now.shape == self.seen_raster.shape:
                self.seen_raster = now  # not copied: a change raster is never written to

    def reuse(self, key: bytes, image: np.ndarray, from_mm: np.ndarray, size_mm: float,
              raster: LazyRaster | None = None) -> CubeReading | None:
        """The cube found before, when its patch has not changed (the same face at the same
        place); None when it must be searched for. ``raster``: this frame's change raster,
        kept as the picture the cube was last seen on when it has not (a cube moved later
        lies where it lay or where the picture changed since: :meth:`moved_parts`); a
        :class:`LazyRaster` is worked out only when a later frame needs it."""
        if self.still is None or self.still[0] != key:
            return None
        before = self.still[2]
        if _moved(cube_patch(image, from_mm, before.centre_mm, size_mm), self.still[1]):
            return None
        if raster is None or self.seen_raster is None:
            return before
        if not raster.ready:
            self.seen_later = raster
            return before
        now = raster.get()[1]
        if now.shape == self.seen_raster.shape:
            self.seen_later = None
            # kept, not copied (a copy of the whole case on every frame whose dice are read):
            # a change raster is never written to (change_raster makes it read-only)
            self.seen_raster = now
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
            self.seen_later = None
            self.seen_raster = None if raster is None else raster.copy()
            self.seen_levels = levels
            self.lost_from, self.pending = None, []
        elif self.still is not None:  # the cube found before is lost: where has it gone?
            self._seen()
            self.lost_from, self.seen_raster, self.seen_levels = self.seen_raster, None, None
            self.lost_to = self.moved
        self.moved = None
        self.none_for = key if found is None else None
        self.none_taken = 0
        self.since, self.rounds = None, 0
        if found is None and raster is not None and levels is not None:
            self.none_raster, self.none_levels = raster.copy(), levels
            self.since_raster = raster.copy()
        else:
            self.none_raster, self.none_levels, self.since_raster = None, None, None
        self.still = None if found is None else (
            key, cube_patch(image, from_mm, found.centre_mm, size_mm), found)
