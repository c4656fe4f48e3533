"""Move text in the usual notation: ``24/18 13/11*``, ``bar/22``, ``6/off``, ``6/4(2)``.

Formatting follows GNU Backgammon's habits: one checker's consecutive steps are joined
(``13/3``) unless it hit on the way (``13/9*/3``), identical parts are counted (``8/5(2)``),
parts are listed from the highest origin down. Parsing accepts what people and ``.mat`` files
write: ``bar``/``25`` for the bar, ``off``/``0`` for off, ``*`` hits, ``(2)`` repeats,
``13/9/3`` chains, and the Turkish ``k`` (kırık) and ``al`` words.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

from engine.errors import InvalidInputError

Step = tuple[int, int]


class MoveTextError(InvalidInputError):
    """Move text that cannot be read (names the text)."""


def point_text(point: int) -> str:
    """``bar`` for 25, ``off`` for 0, the number otherwise."""
    if point == 25:
        return "bar"
    if point == 0:
        return "off"
    return str(point)


_NAMES = ("off", *(str(p) for p in range(1, 25)), "bar")


def format_steps(board: tuple[int, ...], steps: tuple[Step, ...] | list[Step]) -> str:
    """The text of ``steps`` played from ``board`` (hits are read off the board)."""
    names = _NAMES
    landed: set[int] = set()
    # each chain: [origin, last landing, text before the last landing, last landing hit]
    chains: list[list[Any]] = []
    for src, dst in steps:
        hit = dst != 0 and board[dst] == -1 and dst not in landed
        landed.add(dst)
        for chain in reversed(chains):
            if chain[1] == src:
                if chain[3]:  # keep a point where the checker hit on its way (13/9*/3)
                    chain[2] += "/" + names[src] + "*"
                chain[1] = dst
                chain[3] = hit
                break
        else:
            chains.append([src, dst, names[src], hit])
    if len(chains) > 1:
        _join_chains(chains, names)
        chains.sort(key=lambda c: (-c[0], -c[1]))
        # A hit on a point two checkers reached is written on the first one (10/5* 8/5).
        hit_ends = {c[1] for c in chains if c[3]}
        for end in hit_ends:
            ending = [c for c in chains if c[1] == end]
            for c in ending:
                c[3] = c is ending[0]
    out: list[str] = []
    last = ""
    count = 0
    star = False
    for _origin, end, prefix, hit in chains:
        text = prefix + "/" + names[end]
        if text == last:  # the same move again: 6/4(2), and 7/4*(2) when one of them hit
            count += 1
            star = star or hit
            continue
        if count:
            out.append(_counted(last, star, count))
        last, count, star = text, 1, hit
    if count:
        out.append(_counted(last, star, count))
    return " ".join(out)


def _counted(text: str, hit: bool, count: int) -> str:
    return text + ("*" if hit else "") + (f"({count})" if count > 1 else "")


def _join_chains(chains: list[list[Any]], names: tuple[str, ...]) -> None:
    """Join a chain that ends, without hitting, where another starts (21/20 20/17 is 21/17)."""
    joined = True
    while joined:
        joined = False
        for first in chains:
            if first[3] or first[1] == 0:
                continue
            for second in chains:
                if second is not first and second[0] == first[1]:
                    first[2] += second[2][len(names[second[0]]) :]
                    first[1] = second[1]
                    first[3] = second[3]
                    chains.remove(second)
                    joined = True
                    break
            if joined:
                break


_PART_RE = re.compile(r"^(?P<chain>[^()]+?)(?:\((?P<count>\d)\))?$")
_POINT_WORDS = {"bar": 25, "b": 25, "k": 25, "off": 0, "al": 0, "o": 0}


def _parse_point(token: str, text: str) -> int:
    token = token.strip().rstrip("*").strip().lower()
    if token in _POINT_WORDS:
        return _POINT_WORDS[token]
    if token.isdigit() and 0 <= int(token) <= 25:
        return int(token)
    raise MoveTextError(f"not a point in move {text!r}: {token!r}")


def parse_move(text: str) -> list[Step]:
    """Read move text into ``(from, to)`` pieces, one per chain link (pips not checked).

    ``13/9/3`` gives ``[(13, 9), (9, 3)]``; ``6/4(2)`` gives two ``(6, 4)``; ``13/3`` stays one
    piece that may cover two dice. Empty text (or ``-``) means no move.
    """
    cleaned = text.replace(",", " ").strip()
    if cleaned in ("", "-", "--") or cleaned.lower() in ("no move", "gele", "cannot move"):
        return []
    steps: list[Step] = []
    for part in cleaned.split():
        match = _PART_RE.match(part)
        if not match:
            raise MoveTextError(f"cannot read move part {part!r} in {text!r}")
        tokens = match.group("chain").split("/")
        if len(tokens) < 2:
            raise MoveTextError(f"a move part needs from/to: {part!r} in {text!r}")
        points = [_parse_point(tok, text) for tok in tokens]
        count = int(match.group("count") or 1)
        if not 1 <= count <= 4:
            raise MoveTextError(f"bad repeat count in {part!r}")
        for _ in range(count):
            for a, b in pairwise(points):
                if a == 0:
                    raise MoveTextError(f"cannot move from off in {part!r}")
                steps.append((a, b))
    return steps
