"""Reading the Mangala round record (the format is described in :mod:`engine.mangala.record`):
each line parsed into its entry, a malformed line named by its number."""

from __future__ import annotations

from engine.errors import PositionError, RecordFormatError
from engine.mangala.position import PITS, Position, Side
from engine.mangala.record import (
    Caution,
    DirectorDecision,
    Entry,
    Move,
    RoundEnd,
    RoundRecord,
    SetEnd,
    SetPosition,
    SetStart,
    TimeOut,
)
from engine.mangala.sowing import Winner


def parse_record(text: str) -> RoundRecord:
    """Read a round record; :class:`RecordFormatError` names the first malformed line. A byte
    order mark (a record saved by a Windows editor) is not part of the first line."""
    text = text.removeprefix("\ufeff")
    players: dict[Side, str] = {}
    entries: list[Entry] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        try:
            if words[0] == "player":
                side, name = _player_line(words)
                players[side] = name
            else:
                entries.append(_entry(number, words))
        except (RecordFormatError, PositionError) as exc:
            raise RecordFormatError(f"line {number}: {exc}: {_clip(line)}") from None
    return RoundRecord(players, tuple(entries))


def _player_line(words: list[str]) -> tuple[Side, str]:
    if len(words) < 3:
        raise RecordFormatError("a player line is 'player a|b NAME'")
    return _side(words[1]), " ".join(words[2:])


def _entry(line: int, words: list[str]) -> Entry:
    head = words[0]
    if head == "set":
        if len(words) == 4 and words[2] == "start":
            return SetStart(line, _set_number(words[1]), _side(words[3]))
        if (
            len(words) == 9
            and words[2:4] == ["end", "a"]
            and words[5] == "b"
            and (words[7] == "winner")
        ):
            return SetEnd(
                line,
                _set_number(words[1]),
                _count(words[4]),
                _count(words[6]),
                _winner(words[8]),
            )
        raise RecordFormatError("a set line is 'set N start X' or 'set N end a S b S winner W'")
    if head == "position":
        return _set_position(line, words)
    if head == "warning":
        if len(words) < 3:
            raise RecordFormatError("a warning line is 'warning N X [reason]'")
        return Caution(line, _set_number(words[1]), _side(words[2]), " ".join(words[3:]))
    if head == "timeout":
        if len(words) != 3:
            raise RecordFormatError("a time-out line is 'timeout N X'")
        return TimeOut(line, _set_number(words[1]), _side(words[2]))
    if head == "director":
        return _director(line, words)
    if head == "round":
        if (
            len(words) != 9
            or words[1:3] != ["end", "winner"]
            or words[4:6] != ["points", "a"]
            or words[7] != "b"
        ):
            raise RecordFormatError("a round line is 'round end winner W points a P b P'")
        return RoundEnd(line, _winner(words[3]), _points(words[6]), _points(words[8]))
    if head.isdecimal():
        return _move(line, words)
    raise RecordFormatError(f"unknown line kind {head!r}")


def _move(line: int, words: list[str]) -> Move:
    # N X P -> a p p p p p p [s] b p p p p p p [s] next Y
    if (
        len(words) != 22
        or words[3] != "->"
        or words[4] != "a"
        or words[12] != "b"
        or (words[20] != "next")
    ):
        raise RecordFormatError(
            "a move line is 'N X P -> a p p p p p p [s] b p p p p p p [s] next X|-'"
        )
    pit_text = words[2]
    if not pit_text.isdecimal() or not 1 <= int(pit_text) <= PITS:
        raise RecordFormatError(f"pit {pit_text!r} is not 1..6")
    after = _position(words[4:])
    return Move(line, _set_number(words[0]), _side(words[1]), int(pit_text), after)


def _position(words: list[str]) -> Position:
    # a p p p p p p [s] b p p p p p p [s] next X (checked for shape by the caller)
    a = tuple(_count(w) for w in words[1:7])
    b = tuple(_count(w) for w in words[9:15])
    next_text = words[17]
    to_move: Side | None = None if next_text == "-" else _side(next_text)
    return Position(a, _store(words[7]), b, _store(words[15]), to_move)


def _set_position(line: int, words: list[str]) -> SetPosition:
    # position N a p p p p p p [s] b p p p p p p [s] next X
    if len(words) != 20 or words[2] != "a" or words[10] != "b" or words[18] != "next":
        raise RecordFormatError(
            "a position line is 'position N a p p p p p p [s] b p p p p p p [s] next X'"
        )
    if words[19] not in ("a", "b"):
        raise RecordFormatError(f"a set position names who moves next, a or b, not {words[19]!r}")
    return SetPosition(line, _set_number(words[1]), _position(words[2:]))


def _director(line: int, words: list[str]) -> DirectorDecision:
    # director N end winner W [reason ...]
    if len(words) < 5 or words[2] != "end" or words[3] != "winner":
        raise RecordFormatError("a director line is 'director N end winner a|b [reason]'")
    number = _set_number(words[1])
    if words[4] not in ("a", "b"):
        raise RecordFormatError(f"the director's winner {words[4]!r} is not a or b")
    winner: Side = "a" if words[4] == "a" else "b"
    return DirectorDecision(line, number, winner, " ".join(words[5:]))


def _side(text: str) -> Side:
    if text == "a":
        return "a"
    if text == "b":
        return "b"
    raise RecordFormatError(f"player {text!r} is not a or b")


def _winner(text: str) -> Winner:
    return "draw" if text == "draw" else _side(text)


def _set_number(text: str) -> int:
    if text not in ("1", "2", "3"):
        raise RecordFormatError(f"set number {text!r} is not 1, 2 or 3")
    return int(text)


def _count(text: str) -> int:
    if not text.isdecimal():
        raise RecordFormatError(f"stone count {text!r} is not a whole number")
    return int(text)


def _store(text: str) -> int:
    if not (text.startswith("[") and text.endswith("]")):
        raise RecordFormatError(f"store {text!r} is not written [n]")
    return _count(text[1:-1])


def _points(text: str) -> float:
    if text not in ("0", "0.5", "1"):
        raise RecordFormatError(f"round points {text!r} are not 0, 0.5 or 1")
    return float(text)


def _clip(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


__all__ = [
    "parse_record",
]
