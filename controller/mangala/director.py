"""A tournament director's actions at a Mangala table: set the position, accept a sowing,
warn, end the match, note; each checked before it is journalled so a refused one leaves no
trace."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.mangala.recognition import Decision, Line
from controller.mangala.sets import end_round
from controller.referee.api import (
    ClockCommand,
    DirectorAction,
    director_command,
    director_fields,
    director_note,
)
from engine.errors import InvalidInputError
from engine.mangala.position import Position
from engine.mangala.sowing import MoveResult, play

if TYPE_CHECKING:
    from controller.mangala.referee import MangalaReferee


def act(ref: MangalaReferee, ev: DirectorAction) -> None:
    """Carry out a director's action, or refuse it (InvalidInputError) before the journal."""
    action, args = ev.action, dict(ev.args)
    if action == "set_position":
        if "position" not in args and "position_id" in args:
            raise InvalidInputError(
                f"a mangala position is a JSON object of pits, stores and who moves, not "
                f"the backgammon Position ID {args['position_id']!r}")
        check_set_position(ref, args.get("position"))  # before anything is journalled
        ref._emit("director", **director_fields(ev, args))
        ref._signal("illegal_move", False)
        ref._say(f"Director {ev.director}: the position is set to "
                 f"{Position.from_obj(args['position']).describe()}")
        mover = ref.mover
        if mover is not None:
            ref._start(mover)  # a flag that fell waits for its player's turn
    elif action == "accept":
        position = ref.position
        pit = args.get("pit")
        if position is None:
            raise InvalidInputError("no set is being played: there is no sowing to accept")
        if pit is None:  # a backgammon accept, sent to a Mangala table
            raise InvalidInputError("a mangala accept names the pit that was sown: hakem "
                                    "director accept PIT (1..6)")
        if isinstance(pit, bool) or not isinstance(pit, int):
            raise InvalidInputError(f"the pit to accept is 1..6, not {pit!r}")
        check_flagged(ref, pit)
        play(position, pit)  # a pit that cannot be sown is refused before the journal
        ref._emit("director", **director_fields(ev, args))
        follow(ref, action, args)
    elif action == "warn":
        player = args.get("player")
        if ref.round.over:
            raise InvalidInputError("the round is already over: no warning can be given "
                                    "(MG-T-4)")
        if player not in ("a", "b"):
            raise InvalidInputError(f"a warning is given to player a or b, not {player!r}")
        ref._emit("director", **director_fields(ev, args))
        reason = str(args.get("reason") or "").strip()
        ref._say(f"Director {ev.director}: warning to {ref.name(player)}"
                 f"{f' ({reason})' if reason else ''} (MG-T-4)")
        if ref.round.over:
            end_round(ref, "warnings")
    elif action == "end_match":
        winner = args.get("winner")
        if winner not in ("a", "b"):
            raise InvalidInputError(f"a mangala match's winner is a or b, not {winner!r}")
        if ref._over:
            raise InvalidInputError("the round is already over: there is no match to end")
        ref._emit("director", **director_fields(ev, args))
        follow(ref, action, args)
        reason = str(args.get("reason") or args.get("note") or "").strip()
        ref._say(f"Director {ev.director} ends the round: {ref.name(winner)} ({winner}) "
                 f"wins{f' ({reason})' if reason else ''}")
    elif action == "note":  # said as at a backgammon table: the live log and the answer
        ref._emit("director", **director_fields(ev, args))
        ref._say(director_note(args))
    else:
        raise InvalidInputError(f"{director_command(action)} is not an action at a "
                                f"mangala table")


def follow(ref: MangalaReferee, action: str, args: dict[str, Any]) -> None:
    """What a director's accepted sowing or ending (journalled just before) decides."""
    if action == "accept" and ref.position is not None:
        pit = int(args["pit"])
        result = play(ref.position, pit)
        line = Line((pit,), (result,), result.position.board())
        unseen = ref.unseen_turns
        # among turns played unseen it is the next of them, journalled as the search journals
        # one: pressed once its turn passes, so it counts as one of them
        ref._accept(Decision("legal", line, (line,), gap=0.0),
                    pressed=not (unseen and result.extra_turn),
                    marks={"unseen": True} if unseen else None)
        _give_the_turn(ref, result, unseen)
    elif action == "end_match":
        winner = args.get("winner")
        # round points as for any won round (MG-T-1): the round record gives the same
        ref._emit("match_end", winner=winner,
                  points={"a": float(winner == "a"), "b": float(winner == "b")},
                  how="director", sets=[s.to_obj() for s in ref.round.sets])
        ref._do(ClockCommand("hold"))


def _give_the_turn(ref: MangalaReferee, result: MoveResult, unseen: bool) -> None:
    """After the director's sowing: while unseen turns are still looked for the clock is left
    alone (its time runs for the player to move after all of them); else a sowing that passed
    the turn starts the next player's time, which neither a flagged sowing's correction nor
    unseen turns left running (MG-CLOCK-2)."""
    left = ref.unseen_left
    mover = ref.mover
    if left:
        what = "turn is" if left == 1 else f"{left} turns are"
        ref._say(f"The director entered an unseen sowing: {what} still looked for on the "
                 "board (MG-CLOCK-2)")
    elif not result.set_over and not result.extra_turn and mover is not None:
        what = "the last unseen turn is entered" if unseen else "the turn passes"
        ref._say(f"Director's sowing: {what}; {ref._start(mover)}")


def check_flagged(ref: MangalaReferee, pit: int) -> None:
    """Refuse an accept while nothing waits for the director: a sowing is judged at its
    player's press (MG-CLOCK-2), so only a flagged one, a press not yet judged or turns
    nobody saw can be entered by the director."""
    if ref.flagged or ref.judging or ref.unseen_turns:
        return
    mover = ref.mover
    whose = f"{mover}'s " if mover is not None else ""
    raise InvalidInputError(
        f"nothing is flagged: no sowing of {whose}pit {pit} waits to be accepted (it is judged "
        "when its player presses the clock, MG-CLOCK-2)")


def check_set_position(ref: MangalaReferee, obj: Any) -> None:
    """Refuse a director's position the round record could not replay: outside a set being
    played, without 48 stones (MG-EQ-1), with nobody to move or a side already empty."""
    if ref.position is None or ref.stage in ("sweep", "over"):
        raise InvalidInputError("the position can be set only while a set is being "
                                f"played, not at stage {ref.stage}")
    position = Position.from_obj(obj)
    position.check_stones()
    if position.to_move is None:
        raise InvalidInputError("the position set needs to_move a or b: who moves next")
    if position.set_over:
        raise InvalidInputError(
            f"the position {position.describe()} has a side with no stones: the set would "
            f"be over (MG-4)")


__all__ = ["act", "check_flagged", "check_set_position", "follow"]
