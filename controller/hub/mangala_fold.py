"""What the hub reads from a Mangala table's journal, folded into the same match state.

A Mangala referee (``controller/mangala/referee.py``) journals its round with players "a" and
"b" (a sits at the bottom of the picture, MG-EQ-1), sowings as ``pit`` moves with the position
after them, sets as games and the round as the match. The hub keeps players as indices, a = 0
and b = 1, so a card, ``/api/results`` and a director's ``end`` read alike for both games; the
score is the round's set points (win 1, draw 0.5 each, MG-T-1).

Fields read (a wrong type is ignored, never fatal, as in :mod:`controller.hub.contract`):

- ``match_start``: ``players``, ``clock_a`` (the clock side of a: clock times are journalled
  left, right).
- ``game_start``: ``set``, ``starter``, ``clock_ms``: a new set, 4 stones in every pit and both
  clocks full (MG-EQ-1, MG-T-2, MG-CLOCK-1).
- ``clock``: ``times_ms`` [left, right], ``means`` (``start``, ``move``, ``unseen``, ``hold``),
  ``player`` (who pressed).
- ``move``: ``player``, ``pit``, ``position`` (after the sowing), ``captured``, ``extra_turn``,
  ``set_over``, ``corrected`` (resolves the open ``illegal_move``).
- ``illegal_move``: ``player``, ``warning`` (a new MG-T-4 warning); ``extra_turn``:
  ``player`` (MG-1); ``cannot_read`` about ``turns_unseen``: ``player``; ``position_taken``:
  ``position``; ``director``: ``set_position`` (``args.position``), ``warn``
  (``args.player``).
- ``flag_fell``: ``player``, ``rule``, ``reason`` (a flag that fell before it was that
  player's turn, MG-CLOCK-2): their time stands at 0 and no time runs until the set's end (the
  clock stands flagged); the card's ``mangala.flag_pending`` names the player until the
  ``time_out`` that follows on their turn replaces it with a flag (or the set ends first).
  One that arrives after the round's end (a director's on the hub) changes nothing.
- ``time_out``: ``player``, ``stores`` (a flag under MG-CLOCK-3).
- ``game_end``: ``set``, ``stores``, ``winner`` (a, b or draw), ``points`` {a, b} (set points
  after the set).
- ``match_end``: ``winner`` (a, b or draw), ``points`` {a, b} (the round points).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from engine.mangala.position import Position
from engine.mangala.scoring import HALF

if TYPE_CHECKING:
    from controller.hub.contract import MatchState

SIDES: Final = ("a", "b")


def side_index(value: Any) -> int | None:
    """0 for side a, 1 for side b, None for anything else."""
    return SIDES.index(value) if value in SIDES else None


def _number(value: Any) -> int | float | None:
    """A count or points as JSON shows it best: 1 rather than 1.0, 0.5 as it is."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if float(value).is_integer() else float(value)


def _sides(value: Any) -> list[int | float] | None:
    """``{"a": x, "b": y}`` as [x, y]."""
    if not isinstance(value, dict):
        return None
    a, b = _number(value.get("a")), _number(value.get("b"))
    return None if a is None or b is None else [a, b]


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass
class MangalaInfo:
    """What a Mangala round adds to the match state: whose clock side is whose, the MG-T-4
    warnings, and the round's points and result once it is over."""

    clock_a: str = "left"
    warnings: list[int] = field(default_factory=lambda: [0, 0])
    round_points: list[int | float] | None = None
    result: str | None = None  # "a", "b" or "draw" once the round is over
    flag_down: int | None = None  # whose flag stands until the set's end (flag_fell)
    # the flag that fell before its player's turn, until its time_out (or the set's end)
    flag_pending: dict[str, Any] | None = None

    def summary(self, position: Any) -> dict[str, Any]:
        """The ``mangala`` block of a card: warnings, the stores now, the round's outcome."""
        stores = None
        if isinstance(position, dict):
            a, b = _count(position.get("a_store")), _count(position.get("b_store"))
            stores = None if a is None or b is None else [a, b]
        return {
            "warnings": list(self.warnings),
            "stores": stores,
            "round_points": list(self.round_points) if self.round_points is not None else None,
            "result": self.result,
            "flag_pending": dict(self.flag_pending) if self.flag_pending is not None else None,
        }


def fold_mangala(s: MatchState, e: dict[str, Any], who: int | None) -> None:
    """Fold one Mangala journal entry into ``s`` (``who``: the entry's player as an index)."""
    if s.mangala is None:
        s.mangala = MangalaInfo()
    handler = _HANDLERS.get(str(e.get("type")))
    if handler is not None:
        handler(s, s.mangala, e, who)
    if s.mangala.flag_down is not None:
        s.running = None  # the clock stands flagged: a press or a verdict starts no time


def flag_words(s: MatchState, e: dict[str, Any], who: int | None) -> tuple[str, str]:
    """A flag's rule and reason: the entry's own, or for a time-out (which journals neither)
    MG-CLOCK-3 and what the flagged player's store makes of the set."""
    rule, reason = e.get("rule"), e.get("reason")
    if e.get("type") == "time_out" and who is not None and not reason:
        stores = e.get("stores")
        own = _count(stores[who]) if isinstance(stores, list) and len(stores) == 2 else None
        name = s.players[who] or SIDES[who]
        if own is None:
            reason = f"{name}'s time ran out"
        else:
            # MG-CLOCK-3: half the stones or more in the store draws the set
            verdict = "a drawn set" if own >= HALF else "the set is lost"
            reason = f"{name}'s time ran out with {own} stones in the store: {verdict}"
        rule = rule or "MG-CLOCK-3"
    return (rule if isinstance(rule, str) else "", reason if isinstance(reason, str) else "")


def end_result(info: MangalaInfo, winner: int | None) -> None:
    """A director ended the round on the hub: its result and round points (1 and 0, MG-T-1, as
    the table gives a director's end), or neither without a winner."""
    info.result = SIDES[winner] if winner is not None else None
    info.flag_pending = None  # no time-out follows once the round is over
    info.round_points = None if winner is None else [int(winner == 0), int(winner == 1)]


def _to_move(position: Any) -> int | None:
    return side_index(position.get("to_move")) if isinstance(position, dict) else None


def _match_start(s: MatchState, m: MangalaInfo, e: dict[str, Any], who: int | None) -> None:
    s.game = "mangala"
    m.clock_a = "right" if e.get("clock_a") == "right" else "left"


def _game_start(s: MatchState, m: MangalaInfo, e: dict[str, Any], who: int | None) -> None:
    s.game_number = _count(e.get("set")) or s.game_number + 1
    m.flag_down = None  # the set's countdown resets the clock (MG-CLOCK-1)
    m.flag_pending = None
    starter = e.get("starter")
    start = Position.initial().to_obj()  # MG-EQ-1: 4 stones in every pit
    start["to_move"] = starter if starter in SIDES else None
    s.position = start
    s.to_move, s.running, s.dice = side_index(starter), None, None
    full = _count(e.get("clock_ms"))
    if full:
        s.clocks_ms = [full, full]


def _clock(s: MatchState, m: MangalaInfo, e: dict[str, Any], who: int | None) -> None:
    times = e.get("times_ms")
    if isinstance(times, list) and len(times) == 2 and all(_count(t) is not None for t in times):
        left, right = int(times[0]), int(times[1])
        s.clocks_ms = [left, right] if m.clock_a == "left" else [right, left]
    means = e.get("means")
    if means == "start":
        s.running = s.to_move
    elif means in ("move", "unseen") and who is not None:
        s.running = 1 - who  # the press gives the time to the opponent until the verdict
    elif means == "hold":
        s.running = None


def _move(s: MatchState, m: MangalaInfo, e: dict[str, Any], who: int | None) -> None:
    position = e.get("position")
    if isinstance(position, dict):
        s.position = position
        s.to_move = _to_move(position)
    pit = _count(e.get("pit"))
    words = [f"pit {pit}" if pit is not None else "pit ?"]
    captured = _count(e.get("captured"))
    if captured:
        words.append(f"captures {captured}")
    if e.get("extra_turn") is True:
        words.append("moves again")  # MG-1
    if e.get("set_over") is True:
        words.append("set over")  # MG-4
    s.moves.append({"action": "move", "seq": _count(e.get("seq")), "game": s.game_number,
                    "player": who, "dice": None, "move": ", ".join(words), "position_id": None,
                    "pit": pit})
    if e.get("corrected") is True:
        for flag in reversed(s.flags):
            if flag["type"] == "illegal_move" and not flag["corrected"]:
                flag["corrected"] = True
                break
    s.running = None if e.get("set_over") is True else s.to_move


def _illegal_move(s: MatchState, m: MangalaInfo, e: dict[str, Any], who: int | None) -> None:
    if who is not None:
        s.to_move = s.running = who  # the clock goes back to the mover to correct it
        if e.get("warning") is True:
            m.warnings[who] += 1


def _extra_turn(s: MatchState, m: MangalaInfo, e: dict[str, Any], who: int | None) -> None:
    if who is not None:
        s.to_move = s.running = who


def _cannot_read(s: MatchState, m: MangalaInfo, e: dict[str, Any], who: int | None) -> None:
    if e.get("about") == "turns_unseen" and who is not None:
        s.to_move = s.running = who


def _position_taken(s: MatchState, m: MangalaInfo, e: dict[str, Any], who: int | None) -> None:
    position = e.get("position")
    if isinstance(position, dict):
        s.position = position
        s.to_move = s.running = _to_move(position)


def _director(s: MatchState, m: MangalaInfo, e: dict[str, Any], who: int | None) -> None:
    args = e.get("args")
    if not isinstance(args, dict):
        return
    if e.get("action") == "set_position" and isinstance(args.get("position"), dict):
        s.position = args["position"]
        s.to_move = s.running = _to_move(args["position"])
    elif e.get("action") == "warn":
        warned = side_index(args.get("player"))
        if warned is not None:
            m.warnings[warned] += 1


def _flag_fell(s: MatchState, m: MangalaInfo, e: dict[str, Any], who: int | None) -> None:
    """A flag fell before its player's turn; after the round's end (a director's on the hub,
    the table not told yet) it is kept as received but changes nothing: no time-out follows."""
    if who is not None and not s.finished:
        m.flag_down = who
        if s.clocks_ms is not None:
            s.clocks_ms[who] = 0
        rule, reason = flag_words(s, e, who)
        m.flag_pending = {"player": who, "seq": _count(e.get("seq")), "set": s.game_number,
                          "time": e.get("time"), "rule": rule or "MG-CLOCK-2",
                          "reason": reason}


def _time_out(s: MatchState, m: MangalaInfo, e: dict[str, Any], who: int | None) -> None:
    s.running = None
    m.flag_pending = None  # the time-out's flag replaces it


def _game_end(s: MatchState, m: MangalaInfo, e: dict[str, Any], who: int | None) -> None:
    points = _sides(e.get("points"))
    outcome = e.get("winner")
    winner = side_index(outcome)
    if points is not None:
        s.score = points
    elif winner is not None:
        s.score[winner] += 1
    elif outcome == "draw":
        s.score = [_number(p + 0.5) or 0 for p in s.score]
    stores = e.get("stores")
    s.games.append({
        "game": _count(e.get("set")) or s.game_number,
        "winner": winner,
        "drawn": outcome == "draw",
        "points": 1 if winner is not None else 0.5 if outcome == "draw" else None,
        "score": list(s.score),
        "stores": list(stores) if isinstance(stores, list) else None,
        "ended_by": e.get("ended_by"),
    })
    s.running, s.to_move = None, None
    m.flag_pending = None  # the set ended before the flagged player's turn came


def _match_end(s: MatchState, m: MangalaInfo, e: dict[str, Any], who: int | None) -> None:
    outcome = e.get("winner")
    s.winner = side_index(outcome)
    m.result = outcome if outcome in (*SIDES, "draw") else None
    m.round_points = _sides(e.get("points"))
    s.finished = True
    s.running, s.to_move, s.dice = None, None, None
    m.flag_pending = None


_Handler = Callable[["MatchState", MangalaInfo, dict[str, Any], "int | None"], None]
_HANDLERS: Final[dict[str, _Handler]] = {
    "match_start": _match_start,
    "game_start": _game_start,
    "clock": _clock,
    "move": _move,
    "illegal_move": _illegal_move,
    "extra_turn": _extra_turn,
    "cannot_read": _cannot_read,
    "position_taken": _position_taken,
    "director": _director,
    "flag_fell": _flag_fell,
    "time_out": _time_out,
    "game_end": _game_end,
    "match_end": _match_end,
}

__all__ = ["MangalaInfo", "end_result", "flag_words", "fold_mangala", "side_index"]
