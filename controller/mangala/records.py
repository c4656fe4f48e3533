"""The round's record from the Mangala referee's journal, in the engine's text format
(``engine.mangala.record``): set starts, every sowing with the position after it, the
director's corrections of the position and the boards taken after turns the table could not
see (``position`` lines), warnings, time-outs, set ends, a director's end of the round
(``director N end winner W reason``) and the round's end. ``check_record`` replays it through
the rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from controller.records.files import write_changed
from engine.errors import PositionError, RecordFormatError
from engine.mangala.position import PITS, STONES, Position, Side
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
from engine.mangala.record_writer import format_record

RECORD_NAME = "round.txt"


def _side(value: Any) -> Side:
    if value == "a":
        return "a"
    if value == "b":
        return "b"
    raise RecordFormatError(f"player {value!r} is not a or b")


def _whole(value: Any, low: int, high: int, what: str) -> int:
    """A journal's whole number in ``low..high`` (a set, a pit), else an error naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RecordFormatError(f"{what} {value!r} is not a whole number {low}..{high}")
    return value


def _set_number(value: Any) -> int:
    """A set's number: a round has at most three sets (MG-T-1)."""
    return _whole(value, 1, 3, "set number")


def round_record(entries: Sequence[Mapping[str, Any]]) -> RoundRecord:
    """The round record of a Mangala journal (its ``match_start`` names the players)."""
    if not entries or entries[0].get("type") != "match_start" or \
            entries[0].get("game") != "mangala":
        raise RecordFormatError("not a mangala journal: it must start with a mangala match_start")
    names = entries[0].get("players") or ["a", "b"]
    players: dict[Side, str] = {"a": str(names[0]), "b": str(names[1])}
    out: list[Entry] = []
    for e in entries:
        kind = e.get("type")
        if kind == "game_start":
            out.append(SetStart(0, _set_number(e["set"]), _side(e["starter"])))
        elif kind == "move":
            after = Position.from_obj(e["position"])
            pit = _whole(e["pit"], 1, PITS, "pit")
            out.append(Move(0, _set_number(e["set"]), _side(e["player"]), pit, after))
        elif kind == "illegal_move" and e.get("warning"):
            reason = f"{e.get('rule', '')} {e.get('reason', '')}".strip()
            out.append(Caution(0, _set_number(e["set"]), _side(e["player"]), reason))
        elif kind == "director" and e.get("action") == "set_position":
            args = e.get("args") or {}
            try:
                position = Position.from_obj(args.get("position"))
            except PositionError as exc:
                raise RecordFormatError(f"director's set_position is malformed: {exc}") from None
            out.append(SetPosition(0, _current_set(out), position))
        elif kind == "position_taken":
            # the board after turns the table could not see, whose sowings could not be told
            try:
                position = Position.from_obj(e.get("position"))
            except PositionError as exc:
                raise RecordFormatError(f"position_taken is malformed: {exc}") from None
            out.append(SetPosition(0, _current_set(out), position))
        elif kind == "director" and e.get("action") == "warn":
            args = e.get("args") or {}
            number = _current_set(out)
            out.append(Caution(0, number, _side(args.get("player")),
                               str(args.get("reason", "director's warning"))))
        elif kind == "director" and e.get("action") == "end_match":
            if any(isinstance(x, (RoundEnd, DirectorDecision)) for x in out):
                continue  # ended already (a journal from before such ends were refused)
            args = e.get("args") or {}
            winner = args.get("winner")
            if winner not in ("a", "b"):
                raise RecordFormatError(f"the director's end_match winner {winner!r} is not "
                                        f"a or b")
            reason = args.get("reason") or args.get("note") or ""
            out.append(DirectorDecision(0, _current_set(out), winner, str(reason)))
        elif kind == "time_out":
            out.append(TimeOut(0, _set_number(e["set"]), _side(e["player"])))
        elif kind == "game_end":
            stores = e["stores"]
            winner = e["winner"]
            if winner not in ("a", "b", "draw"):
                raise RecordFormatError(f"set winner {winner!r} is not a, b or draw")
            a, b = (_whole(stores[i], 0, STONES, "store") for i in (0, 1))
            out.append(SetEnd(0, _set_number(e["set"]), a, b, winner))
        elif kind == "match_end" and e.get("how") != "director":
            points = e.get("points") or {}
            winner = e.get("winner")
            if winner not in ("a", "b", "draw"):
                raise RecordFormatError(f"round winner {winner!r} is not a, b or draw")
            out.append(RoundEnd(0, winner, float(points.get("a", 0.0)),
                                float(points.get("b", 0.0))))
    return RoundRecord(players, tuple(out))


def _current_set(entries: list[Entry]) -> int:
    """The set a director's line falls in: the one under way, or the one that just ended."""
    for entry in reversed(entries):
        if isinstance(entry, SetStart):
            return entry.number
    return 1


def unheld(entries: Sequence[Mapping[str, Any]]) -> list[str]:
    """What the round record of a journal cannot hold, one sentence each, naming the set and
    the turn (a turn: one player's sowings until the turn passes): the sowings of turns played
    unseen whose board was taken as it lay (the record has a ``position`` line), and a set
    whose last sowing emptied a side (MG-4) when the director ended the round before its
    sweep was checked (the journal leaves it not scored; the record's move line ends it, so
    its replay scores it)."""
    said: list[str] = []
    number, turn, mover = 1, 0, None
    unseen: int | None = None
    ended: tuple[int, int, Position] | None = None  # set, turn, the position after the sweep
    for e in entries:
        kind = e.get("type")
        if kind == "game_start":
            number, turn, mover, unseen, ended = e.get("set", number), 0, None, None, None
        elif kind == "move":
            if e.get("player") != mover:
                turn, mover = turn + 1, e.get("player")
            if e.get("unseen") and e.get("pressed") and unseen:
                unseen -= 1
            if e.get("set_over"):
                ended = (number, turn, Position.from_obj(e.get("position")))
        elif kind == "cannot_read" and e.get("about") == "turns_unseen":
            turns = e.get("turns")  # a journal from disk: a count only when it is one
            unseen = turns if isinstance(turns, int) and not isinstance(turns, bool) \
                and turns >= 1 else 1
        elif kind == "clock" and e.get("means") == "unseen" and unseen is not None:
            unseen += 1
        elif kind == "position_taken":
            turns = unseen or 1
            what = "1 unseen turn" if turns == 1 else f"{turns} unseen turns"
            said.append(f"set {number}, turn {turn + 1}: {what} taken as the board lay: the "
                        "record holds the board as a position line, not the sowings (which "
                        "pits were sown cannot be told, MG-CLOCK-2)")
            turn, mover, unseen = turn + turns, None, None
        elif kind == "game_end":
            ended = None
        elif kind == "director" and e.get("action") == "end_match" and ended is not None:
            at, when, position = ended
            said.append(f"set {at}, turn {when}: the director ended the round after the sowing "
                        f"that ended set {at} (MG-4) but before its sweep was checked: the "
                        f"journal leaves set {at} not scored, while the record's move line ends "
                        f"it and its replay scores it (a {position.a_store} b "
                        f"{position.b_store})")
            ended = None
    return said


def round_text(entries: Sequence[Mapping[str, Any]]) -> str:
    """The round record of a journal as the engine's text."""
    return format_record(round_record(entries))


def write_round_record(entries: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """Write the round record of a journal to ``path`` atomically (a file that holds it already
    is left alone); return the path."""
    write_changed(path, round_text(entries))
    return path


__all__ = ["RECORD_NAME", "round_record", "round_text", "unheld", "write_round_record"]
