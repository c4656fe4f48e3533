"""The dice on the board as the referee compares them from frame to frame: each die's
signature (pips, half, flat, on a checker, centre), and whether dice still lie where they lay
(a throw is a change of them; a die lying where it lay was not thrown again)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.referee.api import DieSeen

DieSig = tuple[int, str, bool, bool, float | None, float | None]
Sig = tuple[DieSig, ...]


def die_sig(d: DieSeen) -> DieSig:
    """A die's signature: pips, half, flat, on a checker and its centre (None where
    unknown)."""
    cx, cy = d.centre if d.centre is not None else (None, None)
    return (d.pips, d.half, d.flat, d.on_checker, cx, cy)


def signature(dice: Sequence[DieSeen]) -> Sig:
    """The dice on the board as compared between frames: a throw is a change of this."""
    return tuple(sorted((die_sig(d) for d in dice), key=lambda s: s[:4]))


def sig_json(sig: Sig) -> list[list[Any]]:
    """A signature as journalled: lists, the centre left out where it is unknown."""
    return [list(d[:4]) if d[4] is None else list(d) for d in sig]


def sig_of_json(value: Any) -> Sig:
    """The signature a journal entry holds (the inverse of :func:`sig_json`); items
    of another shape are skipped, so a damaged entry reads as fewer dice, not an error."""
    if not isinstance(value, list):
        return ()
    out: list[DieSig] = []
    for item in value:
        if isinstance(item, list) and len(item) in (4, 6):
            cx = float(item[4]) if len(item) == 6 and item[4] is not None else None
            cy = float(item[5]) if len(item) == 6 and item[5] is not None else None
            out.append((int(item[0]), str(item[1]), bool(item[2]), bool(item[3]), cx, cy))
    return tuple(sorted(out, key=lambda s: s[:4]))


def same_die(a: DieSig, b: DieSig, tolerance: float) -> bool:
    """Whether two signatures are the same die lying still: equal but for the centre,
    within ``tolerance`` of each other (a die without a centre matches on the rest)."""
    if a[:4] != b[:4]:
        return False
    if a[4] is None or b[4] is None or a[5] is None or b[5] is None:
        return True
    return (a[4] - b[4]) ** 2 + (a[5] - b[5]) ** 2 <= tolerance**2


def in_place(a: DieSig, b: DieSig, tolerance: float) -> bool:
    """``a`` lies where ``b`` lay (both with centres): the same die not thrown again, whatever
    face it is read with now (a die does not turn over by itself; a changed face there is a
    misread, not a throw)."""
    if a[4] is None or b[4] is None or a[5] is None or b[5] is None:
        return False
    return (a[4] - b[4]) ** 2 + (a[5] - b[5]) ** 2 <= tolerance**2


def all_lie(dice: Sequence[DieSeen], sigs: Sig, tolerance: float) -> bool:
    """Every die of ``sigs`` still lies where it lay among ``dice`` (read alike, or so close
    that a changed face is a misread): nobody has picked them up to throw."""
    left = [die_sig(d) for d in dice]
    for sig in sigs:
        match = next((s for s in left if same_die(s, sig, tolerance)), None)
        if match is None:
            match = next((s for s in left if in_place(s, sig, tolerance / 3)), None)
        if match is None:
            return False
        left.remove(match)
    return True


def less(sig: Sig, some: Sig) -> Sig:
    """``sig`` without the dice of ``some`` (each taken once)."""
    left = list(some)
    out = []
    for d in sig:
        if d in left:
            left.remove(d)
        else:
            out.append(d)
    return tuple(out)


def at_place(sig: DieSig, place: DieSig, tolerance: float) -> bool:
    """``sig`` is read as the phantom ``place`` was (pips, flat or cocked) where it was seen."""
    return sig[0] == place[0] and sig[2] == place[2] and in_place(sig, place, tolerance)


def unmatched(dice: Sequence[DieSeen], stale: Sig, tolerance: float) -> list[DieSeen]:
    """The dice that are not one of ``stale`` lying where it lay."""
    left = list(stale)
    out = []
    for die in dice:
        sig = die_sig(die)
        match = next((s for s in left if same_die(sig, s, tolerance)), None)
        if match is None:  # a changed face where a die lay: a misread, if it lies very close
            match = next((s for s in left if in_place(sig, s, tolerance / 3)), None)
        if match is None:
            out.append(die)
        else:
            left.remove(match)
    return out
