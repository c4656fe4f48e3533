"""What the hub reads from a table's journal, and the table's state folded from it.

The journal (``controller/records/journal.py``) is the source of truth; the hub never sees
anything a table did not journal. This module fixes, for each contract entry type, the fields
the hub reads (everything else is stored and shown raw but not interpreted), and folds a match's
entries, in ``seq`` order, into a :class:`MatchState`. The table side uses the same fold to build
the retained ``state`` snapshot it publishes, so the table and the hub cannot disagree on what
an entry means. Players are indices 0 and 1 into ``match_start.players``. A Mangala match
(``match_start.game`` "mangala") is read by :mod:`controller.hub.mangala_fold` instead: its
journal names players "a" and "b" (a = 0, b = 1) and sows pits.

Fields read (all optional unless marked *required*; a wrong type is ignored, never fatal,
because one bad entry must not blind the director to a whole table):

- ``match_start``: ``players`` (*required*, two names), ``length`` (points; 0 = unlimited),
  ``game`` ("backgammon" or "mangala", default "backgammon").
- ``game_start``: ``number`` (game number from 1), ``score`` [a, b], ``crawford`` (bool).
  The cube goes back to 1 in the centre.
- ``opening_roll``: ``dice`` [a, b] (player 0's die, player 1's die), ``player`` (who starts).
- ``roll``: ``player``, ``dice`` [a, b].
- ``move``: ``player``, ``dice``, ``move`` (text, e.g. "8/5 6/5"; "" when nothing can be
  played), ``position_id`` (GNU Backgammon Position ID after the move, seen from ``player``,
  as ``hakem plays`` prints results) or, for Mangala, ``position`` (the JSON position).
- ``invalid_throw``, ``illegal_move``, ``cannot_read`` (flags): ``rule`` and ``reason``
  (*required* by the journal), ``player``, ``snapshot`` (file name of the JPEG kept with the
  journal; the publisher sends its bytes along), ``position_id``.
- ``correction``: ``player``, ``position_id``; resolves the latest open ``illegal_move``.
- ``double``: ``player`` (who offers), ``cube`` (value offered; default twice the current).
- ``take``: ``player`` (who takes; becomes the owner). ``drop``: ``player`` (who drops).
  Cube actions also join the move list (``action`` "double", "take", "drop"), as in ``.mat``.
- ``game_end``: ``winner``, ``points``, ``score`` [a, b] after the game (*preferred*; without
  it the hub adds ``points`` to the winner). With ``rescored`` (and ``game``, its number) it
  is the end of a game scored again after the director put its cube right (BG-CUBE-5): it
  replaces that game's first end in the card's games (a ``game_start`` of the next game
  journalled again with the new score follows, or ``match_end``).
- ``match_end``: ``winner``, ``score`` [a, b], ``how``; the match is finished. One that is not
  ``how: director`` after a director's end on the hub has the last word: the card says the
  table's result stands over that end.
- ``director``: ``action`` ``end_match`` with ``director`` (who) and ``args.reason`` or
  ``args.note``: the card's ``ended_by`` when the director ended the match at the table;
  ``set_cube`` with ``args.value`` and ``args.owner`` (0, 1 or null: centred): the cube the
  director put right (BG-CUBE-5).
- ``time_out``: ``player``, ``rule`` (e.g. TTB-CLOCK-3), ``reason``; shown as a flag.
- ``clock``: ``times_ms`` [player 0, player 1] (reserve left), ``running`` (0, 1 or null).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Final

from controller.hub.mangala_fold import (
    MangalaInfo,
    end_result,
    flag_words,
    fold_mangala,
    side_index,
)

# The entry types that raise a flag on the dashboard (the journal's three, and time-outs).
DASHBOARD_FLAG_TYPES: Final = frozenset(
    {"invalid_throw", "illegal_move", "cannot_read", "time_out"}
)
VERDICTS: Final = ("upheld", "overturned")


def _player(value: Any) -> int | None:
    return value if value in (0, 1) and not isinstance(value, bool) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _pair(value: Any) -> list[int] | None:
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    if any(_int(v) is None for v in value):
        return None
    return [int(value[0]), int(value[1])]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass
class MatchState:
    """One match as the hub and the table's ``state`` snapshot see it."""

    match: str
    game: str = "backgammon"
    players: list[str] = field(default_factory=lambda: ["", ""])
    length: int = 0
    game_number: int = 0
    score: list[int | float] = field(default_factory=lambda: [0, 0])  # Mangala: 0.5 a draw
    cube: int = 1
    cube_owner: int | None = None
    cube_offered_by: int | None = None
    cube_offered_value: int | None = None
    crawford: bool = False
    clocks_ms: list[int] | None = None
    running: int | None = None
    position_id: str | None = None
    position_player: int | None = None
    position: Any = None
    dice: list[int] | None = None
    to_move: int | None = None
    moves: list[dict[str, Any]] = field(default_factory=list)
    flags: list[dict[str, Any]] = field(default_factory=list)
    games: list[dict[str, Any]] = field(default_factory=list)
    finished: bool = False
    table_ended: bool = False  # the table journalled the match's end (not only the hub's)
    winner: int | None = None
    ended_by: str | None = None
    # a director's end on the hub (winner, user, reason): the round record's director line
    # while the table has journalled no end, and what the card says the table's end overrode
    hub_end: dict[str, Any] | None = None
    last_seq: int = 0
    last_time: str | None = None
    started: str | None = None
    mangala: MangalaInfo | None = None  # a Mangala round's own state (mangala_fold)

    def apply(self, entry: dict[str, Any]) -> None:
        """Fold one journal entry (the next by ``seq``) into the state."""
        kind = entry.get("type")
        seq = _int(entry.get("seq")) or 0
        self.last_seq = max(self.last_seq, seq)
        self.last_time = _text(entry.get("time")) or self.last_time
        mangala = self.game == "mangala" or (kind == "match_start"
                                             and entry.get("game") == "mangala")
        who = side_index(entry.get("player")) if mangala else _player(entry.get("player"))
        handler = _HANDLERS.get(str(kind)) if not mangala or kind == "match_start" else None
        if handler is not None:
            handler(self, entry, who)
        if mangala:
            fold_mangala(self, entry, who)
        if self.finished:  # after a director's end on the hub, which the table may not carry out
            _finish(self)
        if kind == "match_end" and entry.get("how") != "director" and self.hub_end is not None:
            self.ended_by = _overruled(self.hub_end)
        elif kind == "director" and entry.get("action") == "end_match" and self.hub_end is None:
            self.ended_by = _director_words(entry)  # a director's end at the table
        if kind in DASHBOARD_FLAG_TYPES:
            rule, reason = (flag_words(self, entry, who) if mangala
                            else (_text(entry.get("rule")) or "", _text(entry.get("reason")) or ""))
            self.flags.append(
                {
                    "seq": seq,
                    "type": kind,
                    "time": entry.get("time"),
                    "rule": rule,
                    "reason": reason,
                    "player": who,
                    "game": self.game_number,
                    "snapshot": bool(entry.get("snapshot")),
                    "position_id": _text(entry.get("position_id")),
                    "corrected": False,
                    "acknowledged_by": None,
                    "override": None,
                }
            )

    # Director actions: not journal entries of the table, but folded the same way.
    def flag(self, seq: int) -> dict[str, Any] | None:
        """The flag raised by entry ``seq``, or None."""
        return next((f for f in self.flags if f["seq"] == seq), None)

    def acknowledge(self, seq: int, user: str) -> None:
        """A director has seen flag ``seq``."""
        found = self.flag(seq)
        if found is not None:
            found["acknowledged_by"] = user

    def override(self, seq: int, verdict: str, user: str, note: str) -> None:
        """A director upholds or overturns the verdict of flag ``seq`` (TTB-6.1 evidence)."""
        found = self.flag(seq)
        if found is not None:
            found["override"] = {"verdict": verdict, "by": user, "note": note}
            found["acknowledged_by"] = found["acknowledged_by"] or user

    def end(self, winner: int | None, user: str, reason: str) -> None:
        """A director ends the match (forfeit, time, withdrawal)."""
        self.winner = winner
        self.ended_by = _ended_by(user, reason)
        self.hub_end = {"winner": winner, "user": user, "reason": reason}
        if self.mangala is not None:
            end_result(self.mangala, winner)
        _finish(self)

    @property
    def end_pending(self) -> bool:
        """A director's end on the hub ended the match and the table has not carried it out
        (journalled its end) yet, being down: that end may still be replaced."""
        return self.finished and not self.table_ended and self.hub_end is not None

    def open_flags(self) -> int:
        """Flags nobody has acknowledged yet."""
        return sum(1 for f in self.flags if f["acknowledged_by"] is None)

    def summary(self) -> dict[str, Any]:
        """The small form: one dashboard card, and the retained ``state`` a table publishes."""
        last_flag = self.flags[-1] if self.flags else None
        out = {
            "match": self.match,
            "game": self.game,
            "players": list(self.players),
            "length": self.length,
            "game_number": self.game_number,
            "score": list(self.score),
            "cube": {
                "value": self.cube,
                "owner": self.cube_owner,
                "offered_by": self.cube_offered_by,
            },
            "crawford": self.crawford,
            "clocks_ms": list(self.clocks_ms) if self.clocks_ms is not None else None,
            "running": self.running,
            "position_id": self.position_id,
            "position_player": self.position_player,
            "dice": list(self.dice) if self.dice is not None else None,
            "to_move": self.to_move,
            "moves": len(self.moves),
            "flags": len(self.flags),
            "open_flags": self.open_flags(),
            "last_flag": copy.deepcopy(last_flag),
            "finished": self.finished,
            "winner": self.winner,
            "ended_by": self.ended_by,
            "seq": self.last_seq,
            "time": self.last_time,
        }
        if self.mangala is not None:
            out["mangala"] = self.mangala.summary(self.position)
        return out

    def detail(self) -> dict[str, Any]:
        """The full form for a table's page: the summary plus moves, flags and games."""
        out = self.summary()
        out["moves"] = copy.deepcopy(self.moves)  # moves and cube actions, each with "action"
        out["flags"] = copy.deepcopy(self.flags)
        out["games"] = copy.deepcopy(self.games)
        out["position"] = copy.deepcopy(self.position)
        out["started"] = self.started
        out["end_pending"] = self.end_pending  # the page offers to replace it
        return out


def _match_start(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    players = e.get("players")
    if isinstance(players, list) and len(players) == 2:
        s.players = [str(p) for p in players]
    s.length = _int(e.get("length")) or 0
    s.game = _text(e.get("game")) or "backgammon"
    s.started = _text(e.get("time"))


def _game_start(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    s.game_number = _int(e.get("number")) or s.game_number + 1
    score = _pair(e.get("score"))
    if score is not None:
        s.score = [*score]
    s.crawford = bool(e.get("crawford", False))
    s.cube, s.cube_owner, s.cube_offered_by, s.cube_offered_value = 1, None, None, None
    s.dice, s.to_move = None, None


def _opening_roll(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    s.dice = _pair(e.get("dice")) or s.dice
    s.to_move = who


def _roll(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    s.dice = _pair(e.get("dice")) or s.dice
    s.to_move = who if who is not None else s.to_move


def _move(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    dice = _pair(e.get("dice")) or s.dice
    position_id = _text(e.get("position_id"))
    if position_id is not None:
        s.position_id, s.position_player = position_id, who
    if "position" in e:
        s.position = e["position"]
    s.moves.append(
        {
            "action": "move",
            "seq": _int(e.get("seq")),
            "game": s.game_number,
            "player": who,
            "dice": dice,
            "move": _text(e.get("move")) or "",
            "position_id": position_id,
        }
    )
    s.to_move = 1 - who if who is not None else None


def _correction(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    position_id = _text(e.get("position_id"))
    if position_id is not None:
        s.position_id, s.position_player = position_id, who
    for flag in reversed(s.flags):
        if flag["type"] == "illegal_move" and not flag["corrected"]:
            flag["corrected"] = True
            break


def _cube_action(s: MatchState, e: dict[str, Any], who: int | None, action: str) -> None:
    """Cube actions join the move list (as the .mat record has them)."""
    if who is not None:
        s.moves.append({"action": action, "seq": _int(e.get("seq")), "game": s.game_number,
                        "player": who, "cube": s.cube_offered_value, "dice": None,
                        "move": action, "position_id": None})


def _double(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    s.cube_offered_by = who
    offered = _int(e.get("cube"))
    s.cube_offered_value = offered if offered else s.cube * 2
    _cube_action(s, e, who, "double")


def _take(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    if who is None and s.cube_offered_by is not None:
        who = 1 - s.cube_offered_by
    _cube_action(s, e, who, "take")
    _taken_cube(s, who)


def _taken_cube(s: MatchState, taker: int | None) -> None:
    """The offered double taken: the cube at the offered value, the taker's."""
    s.cube = s.cube_offered_value or s.cube * 2
    s.cube_owner = taker
    s.cube_offered_by, s.cube_offered_value = None, None


def _drop(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    if who is None and s.cube_offered_by is not None:
        who = 1 - s.cube_offered_by
    _cube_action(s, e, who, "drop")
    s.cube_offered_by, s.cube_offered_value = None, None


def _game_end(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    winner = _player(e.get("winner"))
    points = _int(e.get("points"))
    score = _pair(e.get("score"))
    if score is not None:
        s.score = [*score]
    elif winner is not None and points is not None:
        s.score[winner] += points
    game = _int(e.get("game")) if e.get("rescored") else None
    if game:
        # the game scored again is the card's game once more: the next game's start journalled
        # before the correction is void until journalled again (or the match ends here), and
        # a Crawford game has no cube to put right, so this one was none (BG-MATCH-2)
        s.game_number, s.crawford = game, False
    ended = {"game": game or s.game_number, "winner": winner, "points": points,
             "score": list(s.score)}
    # a game scored again (BG-CUBE-5) replaces its first end
    again = next((i for i, g in enumerate(s.games) if game and g["game"] == game), None)
    if again is None:
        s.games.append(ended)
    else:
        s.games[again] = ended
    s.running = None
    s.cube_offered_by = None


def _cannot_read(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    """Turns played while the table could not see (TTB-6.1): the player on roll is the one
    the flag names; the dice and the position are not known until the board is taken."""
    if e.get("about") == "turns_unseen" and who is not None:
        s.to_move, s.dice = who, None
        if s.cube_offered_by is not None:  # the game went on: the double was taken
            _taken_cube(s, 1 - s.cube_offered_by)


def _position_taken(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    """The position (and the cube) the board showed after unseen turns (TTB-6.1; Mangala:
    the position itself, MG-CLOCK-2)."""
    if isinstance(e.get("position"), dict):
        s.position = e["position"]
    position_id = _text(e.get("position_id"))
    if position_id is not None and who is not None:
        s.position_id, s.position_player, s.to_move = position_id, who, who
    if "cube" in e:
        s.cube = _int(e.get("cube")) or s.cube
        s.cube_owner = _player(e.get("owner"))


def _match_end(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    score = _pair(e.get("score"))
    if score is not None:
        s.score = [*score]
    s.winner = _player(e.get("winner"))
    s.table_ended = True
    _finish(s)


def _ended_by(user: str, reason: str) -> str:
    """``ended_by`` of a director's end: who, and why when they said."""
    return f"{user}: {reason}" if reason else user


def _director_words(e: dict[str, Any]) -> str:
    """``ended_by`` of a director's ``end_match`` journalled at the table (``hakem director``,
    or the hub's end carried out there): the director's name and reason, as for one on the
    hub."""
    args = e.get("args")
    reason = (args.get("reason") or args.get("note") or "") if isinstance(args, dict) else ""
    return _ended_by(_text(e.get("director")) or "a director", str(reason).strip())


def _overruled(end: dict[str, Any]) -> str:
    """``ended_by`` once the table's own end followed a director's on the hub: the table's
    result stands, and the card still says a director had ended the match first."""
    reason = f": {end['reason']}" if end["reason"] else ""
    return f"the table, whose result stands over {end['user']}'s end{reason}"


def _finish(s: MatchState) -> None:
    """The match is over: no clock runs, nobody is on roll and no flag is pending, so no card
    or page shows a player to move, dice left from the last turn or a flag still to come; kept
    so after each later entry (one the table journalled before it heard of a director's end)."""
    s.finished = True
    s.running, s.to_move, s.dice = None, None, None
    if s.mangala is not None:
        s.mangala.flag_pending = None


def _clock(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    s.clocks_ms = _pair(e.get("times_ms")) or s.clocks_ms
    if "running" in e:
        s.running = _player(e.get("running"))
    if e.get("means") == "unseen" and who is not None:
        s.to_move, s.dice = 1 - who, None  # a turn ended unseen (TTB-6.1)


def _director(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    """A director's correction at the table: the position (a Position ID from the view of
    the player on roll, as GNU Backgammon gives it; Mangala: the position itself), the dice
    the camera could not read, or the cube (BG-CUBE-5)."""
    args = e.get("args")
    if not isinstance(args, dict):
        return
    action = e.get("action")
    if action == "set_position":
        position_id = _text(args.get("position_id"))
        if position_id is not None:
            s.position_id = position_id
            player = _player(args.get("player"))
            if player is not None:  # the director says who is on roll
                s.to_move, s.dice = (player, None) if player != s.to_move else (player, s.dice)
            s.position_player = s.to_move if s.to_move is not None else 0
        if isinstance(args.get("position"), dict):
            s.position = args["position"]
    elif action == "set_dice":
        s.dice = _pair(args.get("dice")) or s.dice
    elif action == "set_cube" and _int(args.get("value")):
        s.cube, s.cube_owner = int(args["value"]), _player(args.get("owner"))


_HANDLERS: Final = {
    "match_start": _match_start,
    "game_start": _game_start,
    "opening_roll": _opening_roll,
    "roll": _roll,
    "move": _move,
    "correction": _correction,
    "double": _double,
    "take": _take,
    "drop": _drop,
    "game_end": _game_end,
    "match_end": _match_end,
    "clock": _clock,
    "director": _director,
    "cannot_read": _cannot_read,
    "position_taken": _position_taken,
}
