"""A tournament director's actions at a backgammon table: accept or reject a move, set the
position, the dice or the cube, resign, end the match, have an early throw thrown again, note;
each checked before it is journalled, so a refused one leaves no trace."""

from __future__ import annotations

from typing import Any

from controller.referee.api import (
    ClockCommand,
    DieSeen,
    DirectorAction,
    director_command,
    director_fields,
    director_note,
    director_refusal,
)
from controller.referee.cube_set import corrected, cube_words, face_advice
from controller.referee.dice_places import sig_json, signature, unmatched
from controller.referee.throws import RefereeThrows
from engine.backgammon.match import Phase, Resign, apply
from engine.backgammon.position import CHECKERS, Position
from engine.backgammon.scoring import WinKind
from engine.errors import HakemError, InvalidInputError


class RefereeDirector(RefereeThrows):
    """Carries out a director's actions and what they decide."""

    def _director(self, ev: DirectorAction) -> None:
        """Carry out a director's action: checked first (a refused one is only said and
        journals nothing), then journalled and said; what it decides follows in the steps."""
        action, args = ev.action, dict(ev.args)
        try:
            self._check_director(action, args)
        except (HakemError, KeyError, TypeError, ValueError) as exc:
            self._say(director_refusal(action, exc))
            return
        self._emit("director", **director_fields(ev, args))
        if action == "set_position":
            on_roll = self.match.on_roll
            whom = "" if on_roll is None else f", {self.config.players[on_roll]} on roll"
            self._say(f"The director set the position to {args['position_id']}{whom}")
        elif action == "note":
            self._say(director_note(args))
        elif action == "rethrow":
            self._say("The early throw is thrown again at the mover's request (BG-ROLL-5)")
        elif action == "set_cube":
            self._say_cube()

    def _say_cube(self) -> None:
        """The cube the director put right (journalled and folded just before), and what to
        do with the physical cube when the camera sees it otherwise; a game scored again says
        its new result next (``_step``)."""
        m = self.match
        names = self.config.players
        if self._rescored:
            last = m.results[-1]
            self._say(f"The director put game {m.game}'s cube right, {cube_words(m.cube, names)}"
                      f" (BG-CUBE-5): {names[last.winner]}'s win is scored again")
            return
        self._say(f"The director put the cube right: {cube_words(m.cube, names)} (BG-CUBE-5)")
        advice = face_advice(self.config, m.cube, self._cube)
        if advice is not None:
            self._say(advice)

    def _director_follow(self, action: str, args: dict[str, Any]) -> None:
        """What a director's action (journalled just before) decides."""
        m = self.match
        names = self.config.players
        if action == "accept":
            self._stand("The director accepted the move")
        elif action == "reject":
            undo = self._undo
            if undo is None or undo.on_roll is None or undo.dice is None:
                return
            seen = m.position.swap()
            label = self._snapshot_label()
            self._emit(
                "illegal_move",
                player=undo.on_roll,
                dice=[undo.dice[0], undo.dice[1]],
                rule="TTB-4.9",
                reason=str(args.get("reason", "the director ruled the move illegal")),
                position_id=seen.position_id,
                snapshot=label,
                reopen=True,
            )
            self._flag_commands(undo.on_roll, label)
        elif action == "end_match":
            winner = int(args["winner"])
            self._emit("match_end", winner=winner, score=list(m.score), how="director")
            self._do(ClockCommand("hold"))
            reason = str(args.get("reason") or args.get("note") or "").strip()
            self._say(f"The director ends the match: {names[winner]} wins"
                      f"{f' ({reason})' if reason else ''}")
        elif action == "resign":
            loser = int(args["player"])
            kind = int(args.get("kind", 1))
            self._emit("resign", player=loser, resigned=kind)
            self._say(f"{names[loser]} resigns ({WinKind(kind).word})")
        elif action == "set_dice":
            dice = (int(args["dice"][0]), int(args["dice"][1]))
            if m.phase is Phase.DECIDE and m.on_roll is not None:
                # the dice lying now are the throw the camera could not read: they (and
                # anything taken for a die with them) are no part of the next throw
                self._roll(m.on_roll, dice, sig_json(signature(self._dice)),
                           thrown=self._entered(dice))
            elif m.phase is Phase.OPENING:
                self._director_opening(dice)
            else:
                self._say(f"The director set the dice to {dice[0]}{dice[1]}")

    def _entered(self, dice: tuple[int, int]) -> list[DieSeen]:
        """The dice lying that a director's throw names: for each number, the new die read
        flat with it, surest first (a throw the director enters is a valid one). All the dice
        lying when they cannot all be found (then none is taken for a phantom)."""
        fresh = unmatched(self._dice, self._stale, self.config.recognition.dice_moved)
        pool = sorted((d for d in fresh if d.flat), key=lambda d: -d.confidence)
        out: list[DieSeen] = []
        for pips in dice:
            die = next((d for d in pool if d.pips == pips), None)
            if die is None:
                return list(self._dice)
            pool.remove(die)
            out.append(die)
        return out

    def _director_opening(self, dice: tuple[int, int]) -> None:
        """The director enters the opening throw the camera could not read: (player 0's die,
        player 1's die); the higher starts (BG-OPEN-1) and the other starts its clock."""
        starter = 0 if dice[0] > dice[1] else 1
        self._signal("throw_again", False)
        self._emit("opening_roll", dice=[dice[0], dice[1]], player=starter,
                   seen=sig_json(signature(self._dice)))
        names = self.config.players
        self._say(f"Opening throw set by the director: {names[0]} {dice[0]}, {names[1]} "
                  f"{dice[1]}: {names[starter]} starts (BG-OPEN-1, BG-OPEN-3)")

    def _check_director(self, action: str, args: dict[str, Any]) -> None:
        """Raise why a director's action cannot be carried out now (nothing flagged, a
        move past correcting under TTB-4.8, dice out of range), before anything is journalled."""
        m = self.match
        if action == "accept":
            if "pit" in args:  # the command cannot tell the table's game: say, don't ignore
                raise InvalidInputError(f"accept takes no pit at a backgammon table (a pit, "
                                        f"{args['pit']!r}, is a Mangala table's)")
            if self._flag is None:
                raise InvalidInputError("no flagged move to accept")
        elif action == "reject":
            if (self._undo is None or not self._rejectable or m.phase is not Phase.DECIDE
                    or self._flag is not None):
                raise InvalidInputError("no accepted move that can still be corrected (TTB-4.8;"
                                        " TTB-4.9: only before the next roll or double, and"
                                        " not once the director set the position)")
        elif action == "end_match":
            if args.get("winner") not in (0, 1):
                raise InvalidInputError(f"winner must be 0 or 1, not {args.get('winner')!r}")
            if self._over:
                raise InvalidInputError("the match is already over: there is no match to end")
        elif action == "resign":
            if args.get("player") not in (0, 1) or args.get("kind", 1) not in (1, 2, 3):
                raise InvalidInputError(f"resign needs player 0 or 1 and kind 1..3, not {args}")
            apply(m, Resign(int(args["player"]), WinKind(int(args.get("kind", 1)))))
        elif action == "set_position":
            _settable(args.get("position_id"))
            if m.phase not in (Phase.DECIDE, Phase.MOVE):
                raise InvalidInputError("the position can be set only during a game")
            if "player" in args and args["player"] not in (0, 1):
                raise InvalidInputError(f"the player on roll is 0 or 1, not {args['player']!r}")
        elif action == "set_dice":
            dice = args["dice"]
            if len(dice) != 2 or not all(1 <= int(d) <= 6 for d in dice):
                raise InvalidInputError(f"dice must be two numbers 1..6, not {dice!r}")
            if m.phase not in (Phase.OPENING, Phase.DECIDE, Phase.MOVE):
                raise InvalidInputError("dice can be set only during a game")
            if m.phase is Phase.OPENING and int(dice[0]) == int(dice[1]):
                raise InvalidInputError(f"opening dice are thrown again when equal (BG-OPEN-1),"
                                        f" not {dice!r}")
        elif action == "set_cube":
            corrected(m, self._last_over, args, self._over)
        elif action == "rethrow":
            if self._early is None and self._before_early_roll is None:
                raise InvalidInputError("no early throw to have thrown again (BG-ROLL-5)")
        elif action != "note":
            raise InvalidInputError(f"{director_command(action)} is not an action at a "
                                    f"backgammon table")


def _settable(position_id: object) -> Position:
    """The position a director sets: a Position ID of a game under way (both sides with
    checkers still to bear off: a game where one side has borne off all 15 is over, and the
    director ends it instead, BG-SCORE-1)."""
    if not isinstance(position_id, str):
        raise InvalidInputError(f"a backgammon position is a Position ID (14 characters, as "
                                f"gnubg writes it), not {position_id!r}")
    position = Position.from_id(position_id)
    for off, who in ((position.my_off, "the player on roll"), (position.their_off,
                                                               "the opponent")):
        if off == CHECKERS:
            raise InvalidInputError(
                f"position {position_id} is no game under way: {who} has borne off all "
                f"{CHECKERS} checkers (BG-SCORE-1; end the game with end-match or resign)")
    return position
