"""Places where the dice reader sees a die that nobody threw (a phantom: part of the board, a
checker's rim, a reflection taken for a die), for one game. A die read alike at such a place
later is no part of a throw (BG-ROLL-2 judges the thrown dice only)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.referee.api import DieSeen
from controller.referee.dice_places import DieSig, at_place, die_sig, sig_json


@dataclass
class Phantoms:
    """The phantoms of a game, each with the frame it was first seen in, and those learnt
    from frames since the last clock press (journalled with the next press, so a restart
    knows them). ``tolerance``: how close a die must lie to a phantom's place to be it."""

    tolerance: float
    places: list[tuple[DieSig, int]] = field(default_factory=list)
    unsaid: list[DieSig] = field(default_factory=list)

    def clear(self) -> None:
        """A new game, or an opening thrown: what was seen so far were only guesses."""
        self.places, self.unsaid = [], []

    def remember(self, place: DieSig, frame: int, *, unsaid: bool = False) -> bool:
        """Note ``place`` (a die as read, with its centre) as a phantom; False if known or
        without a centre. ``unsaid``: learnt from frames, for the next press's entry."""
        if place[4] is None or place[5] is None:
            return False
        if any(at_place(place, known, self.tolerance) for known, _ in self.places):
            return False
        self.places.append((place, frame))
        if unsaid:
            self.unsaid.append(place)
        return True

    def first_seen(self, die: DieSeen) -> int | None:
        """The frame the phantom ``die`` is read as was first seen in, or None."""
        sig = die_sig(die)
        return next((first for place, first in self.places
                     if at_place(sig, place, self.tolerance)), None)

    def without(self, dice: list[DieSeen], *, opening: bool) -> list[DieSeen]:
        """``dice`` less those read alike where a phantom was seen. In the opening only while
        more than two are left, the longest seen first (the set-up's phantoms were there
        before anybody threw), and never below two dice."""
        if not self.places:
            return dice
        if not opening:
            return [d for d in dice if self.first_seen(d) is None]
        out = list(dice)
        while len(out) > 2:
            ages = [(self.first_seen(d), d) for d in out]
            known = [(a, d) for a, d in ages if a is not None]
            if not known:
                break
            oldest = min(a for a, _ in known)
            drop = [d for a, d in known if a == oldest]
            if len(out) - len(drop) < 2:
                break
            out = [d for d in out if not any(d is x for x in drop)]
        return out

    def press_field(self) -> dict[str, Any]:
        """``phantoms`` of a clock entry: those learnt from frames since the last press."""
        return {"phantoms": sig_json(tuple(self.unsaid))} if self.unsaid else {}
