"""Frame to frame: a throw that has settled, dice still rolling, dice picked up, a die nudged.

The referee feeds one :class:`DieSighting` list per frame (from ``vision.dice.board``) into a
:class:`ThrowTracker`; it answers with an event when something happens: the dice came to rest
(``settled``, read once), the dice were picked up (``picked-up``), or a die that had settled was
moved while the throw stands (``nudged``: BG-MOVE-8, moving a checker where the dice lie).
:func:`landing_problems` says why a settled throw is not valid (BG-ROLL-2).
Pure logic: no clock, no images; frames are counted, positions are board millimetres.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from engine.errors import ConfigError

EventKind = Literal["settled", "picked-up", "nudged"]
Half = Literal["left", "right"]


@dataclass(frozen=True)
class DieSighting:
    """A die in one frame: face, position (board mm), how it rests, where."""

    pips: int
    x_mm: float
    y_mm: float
    flat: bool = True
    on_checker: bool = False
    half: str | None = None  # "left"/"right" half of the picture; None: bar or off the board


@dataclass(frozen=True)
class ThrowEvent:
    """Something that happened to the dice, with the rule it concerns when there is one."""

    kind: EventKind
    dice: tuple[DieSighting, ...]
    rule: str | None = None
    reason: str = ""


def _match(a: Sequence[DieSighting], b: Sequence[DieSighting]) -> list[tuple[int, int, float]]:
    """Greedy nearest pairs (index in a, index in b, distance mm)."""
    pairs = sorted(
        ((math.hypot(x.x_mm - y.x_mm, x.y_mm - y.y_mm), i, j)
         for i, x in enumerate(a) for j, y in enumerate(b)),
    )
    used_a: set[int] = set()
    used_b: set[int] = set()
    out = []
    for d, i, j in pairs:
        if i in used_a or j in used_b:
            continue
        used_a.add(i)
        used_b.add(j)
        out.append((i, j, d))
    return out


def _same(a: Sequence[DieSighting], b: Sequence[DieSighting], tolerance_mm: float) -> bool:
    """Same dice, same faces, same places (within the tolerance)."""
    if len(a) != len(b):
        return False
    return all(a[i].pips == b[j].pips and d <= tolerance_mm for i, j, d in _match(a, b))


class ThrowTracker:
    """Follows the dice from frame to frame and reports settled throws, pick-ups and nudges.

    ``settle_frames``: consecutive unchanged frames before a throw counts as settled (dice
    still rolling change place or face between frames). ``still_mm``: how far a die may seem
    to move between frames from reading noise alone. ``nudge_mm``: how far a settled die must
    move (and come to rest again) to count as nudged.
    """

    def __init__(self, *, dice_expected: int = 2, settle_frames: int = 3,
                 still_mm: float = 2.5, nudge_mm: float = 5.0) -> None:
        if dice_expected not in (1, 2):
            raise ConfigError(f"dice_expected {dice_expected} is not 1 or 2")
        if settle_frames < 1:
            raise ConfigError(f"settle_frames {settle_frames} must be at least 1")
        self.dice_expected = dice_expected
        self.settle_frames = settle_frames
        self.still_mm = still_mm
        self.nudge_mm = nudge_mm
        self._last: tuple[DieSighting, ...] = ()
        self._stable = 0
        self._settled: tuple[DieSighting, ...] | None = None
        self._gone = 0

    @property
    def settled(self) -> tuple[DieSighting, ...] | None:
        """The throw as it settled, until the dice are picked up."""
        return self._settled

    @property
    def rolling(self) -> bool:
        """True while dice are on the board but not yet at rest."""
        return self._settled is None and bool(self._last) and self._stable < self.settle_frames

    def reset(self) -> None:
        """Forget everything (a new turn)."""
        self._last = ()
        self._stable = 0
        self._settled = None
        self._gone = 0

    def update(self, dice: Sequence[DieSighting]) -> ThrowEvent | None:
        """Take one frame's dice; return an event when the throw settles, is picked up or a
        settled die is nudged."""
        now = tuple(dice)
        if _same(now, self._last, self.still_mm):
            self._stable += 1
        else:
            self._stable = 1
        self._last = now
        if self._settled is None:
            if len(now) >= self.dice_expected and self._stable >= self.settle_frames:
                self._settled = now
                return ThrowEvent("settled", now)
            return None
        # a settled throw: picked up, or moved
        if len(now) < len(self._settled):
            self._gone += 1
            if self._gone >= self.settle_frames or not now:
                gone = self._settled
                self._settled = None
                self._gone = 0
                return ThrowEvent("picked-up", gone)
            return None
        self._gone = 0
        if self._stable >= self.settle_frames and not _same(now, self._settled, self.nudge_mm):
            before = self._settled
            self._settled = now
            moved = [now[j] for i, j, d in _match(before, now)
                     if d > self.nudge_mm or before[i].pips != now[j].pips]
            turned = any(before[i].pips != now[j].pips for i, j, _ in _match(before, now))
            reason = ("a settled die was turned to another face" if turned
                      else "a settled die was moved while the throw stands")
            return ThrowEvent("nudged", tuple(moved or now), "BG-MOVE-8", reason)
        return None


def landing_problems(dice: Sequence[DieSighting], thrower_right: Half) -> list[tuple[str, str]]:
    """Why a settled throw is invalid, as (rule, reason) pairs; empty when it is valid.

    ``thrower_right`` is the half of the picture on the thrower's right, where both dice must
    rest flat (BG-ROLL-2): not cocked, not on a checker or the other die, not off the board.
    """
    problems: list[tuple[str, str]] = []
    for k, die in enumerate(dice, start=1):
        name = f"die {k} ({die.pips})"
        if die.half is None:
            problems.append(("BG-ROLL-2", f"{name} is off the board or on the bar"))
        elif die.half != thrower_right:
            problems.append(("BG-ROLL-2", f"{name} rests outside the thrower's right half"))
        if not die.flat:
            problems.append(("BG-ROLL-2", f"{name} is cocked"))
        if die.on_checker:
            problems.append(("BG-ROLL-2", f"{name} rests on a checker"))
    for i, a in enumerate(dice):
        for b in dice[i + 1:]:
            if math.hypot(a.x_mm - b.x_mm, a.y_mm - b.y_mm) < 8.0:
                problems.append(("BG-ROLL-2", "one die rests on the other"))
    return problems
