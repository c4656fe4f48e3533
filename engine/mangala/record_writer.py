"""Writing the Mangala round record (the format is described in :mod:`engine.mangala.record`):
a position, an entry and a whole record as the text the reader reads back."""

from __future__ import annotations

from engine.mangala.position import SIDES, Position
from engine.mangala.record import (
    Caution,
    DirectorDecision,
    Entry,
    Move,
    RoundRecord,
    SetEnd,
    SetPosition,
    SetStart,
    TimeOut,
)

HEADER = "# hakem mangala round record"


def one_line(text: str) -> str:
    """Free text (a name, a reason) as a record line holds it: one line, single spaces, no
    ``#``, which the reader would take for the start of a comment."""
    return " ".join(text.replace("#", "no. ").split())


def format_position(position: Position) -> str:
    """A position as a move line writes it: ``a 4 4 4 1 5 5 [1] b 4 4 4 4 4 4 [0] next a``."""
    return (
        f"a {' '.join(map(str, position.a))} [{position.a_store}] "
        f"b {' '.join(map(str, position.b))} [{position.b_store}] "
        f"next {position.to_move or '-'}"
    )


def format_entry(entry: Entry) -> str:
    """One record line, without its newline."""
    if isinstance(entry, SetStart):
        return f"set {entry.number} start {entry.starter}"
    if isinstance(entry, Move):
        return f"{entry.number} {entry.mover} {entry.pit} -> {format_position(entry.after)}"
    if isinstance(entry, SetPosition):
        return f"position {entry.number} {format_position(entry.position)}"
    if isinstance(entry, Caution):
        return f"warning {entry.number} {entry.player} {one_line(entry.reason)}".rstrip()
    if isinstance(entry, TimeOut):
        return f"timeout {entry.number} {entry.player}"
    if isinstance(entry, SetEnd):
        return f"set {entry.number} end a {entry.a_store} b {entry.b_store} winner {entry.winner}"
    if isinstance(entry, DirectorDecision):
        reason = one_line(entry.reason)
        return f"director {entry.number} end winner {entry.winner} {reason}".rstrip()
    return (
        f"round end winner {entry.winner} points a {point_text(entry.a_points)} "
        f"b {point_text(entry.b_points)}"
    )


def point_text(points: float) -> str:
    """Points as a record writes them: ``0.5`` or a whole number."""
    return "0.5" if points == 0.5 else str(int(points))


def format_record(record: RoundRecord) -> str:
    """The text of a record, as :func:`parse_record` reads it back."""
    lines = [HEADER]
    lines += [f"player {side} {one_line(record.players[side]) or side}"
              for side in SIDES if side in record.players]
    lines += [format_entry(entry) for entry in record.entries]
    return "\n".join(lines) + "\n"


__all__ = [
    "HEADER",
    "format_entry",
    "format_position",
    "format_record",
    "one_line",
    "point_text",
]
