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


def format_steps(board: tuple[int, ...], steps: tuple[Step, ...] | list[Step]) -> str:
    """The text of ``steps`` played from ``board`` (hits are read off the board)."""
    if not steps:
        return ""
    b = list(board)
    # chains: [points visited], [hit flags per landing]
    chains: list[tuple[list[int], list[bool]]] = []
    for src, dst in steps:
        hit = dst != 0 and b[dst] == -1
        b[src] -= 1
        if dst:
            if hit:
                b[dst] = 0
                b[0] -= 1
            b[dst] += 1
        for points, hits in reversed(chains):
            if points[-1] == src and src != 0:
                points.append(dst)
                hits.append(hit)
                break
        else:
            chains.append(([src, dst], [hit]))
    parts: list[tuple[int, int, str]] = []
    for points, hits in chains:
        text = point_text(points[0])
        for i in range(1, len(points)):
            last = i == len(points) - 1
            if hits[i - 1] or last:
                text += "/" + point_text(points[i]) + ("*" if hits[i - 1] else "")
        parts.append((points[0], points[-1], text))
    parts.sort(key=lambda part: (-part[0], -part[1]))
    out: list[str] = []
    i = 0
    while i < len(parts):
        j = i
        while j + 1 < len(parts) and parts[j + 1][2] == parts[i][2]:
            j += 1
        count = j - i + 1
        out.append(parts[i][2] + (f"({count})" if count > 1 else ""))
        i = j + 1
    return " ".join(out)


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
