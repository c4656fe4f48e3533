"""The referee: a pure state machine that follows a backgammon match at the table.

Events in (frames, clock presses, flag falls, director actions), commands out (journal entries
first, then clock, LED, buzzer, snapshot and log commands). Every decision is a journal entry,
and the referee's match state is the fold of those entries (:meth:`Referee._fold`), so a journal
rebuilds the referee exactly (``controller.referee.resume``). What only frames carry (the last
picture, the dice lying on the board) is not journalled; the next frames supply it again. The
places where the dice reader sees a die that nobody threw (phantoms) are journalled with the
throws they lay beside and the presses they were seen before, so a restart knows them too.

The class is put together from mixins, each in a module named for what it holds: ``state``
(the state and its fold), ``clock``, ``dice``, ``flags``, ``setup_check``, ``throws``,
``verdicts``, ``unseen_turns`` and ``director``; this module holds the events' dispatch and
the decisions taken between them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.referee.api import (
    ClockCommand,
    ClockHoldPressed,
    ClockPressed,
    Command,
    DirectorAction,
    Event,
    FlagFell,
    FrameSeen,
    MotionSeen,
    PressesUnseen,
    RefereeProtocol,
    lost_snapshot,
)
from controller.referee.cube_set import cube_words
from controller.referee.dice_places import sig_json, signature
from controller.referee.director import RefereeDirector
from controller.referee.flags import diff_text
from controller.referee.unseen_turns import RefereeUnseen
from controller.referee.verdicts import RefereeVerdicts
from engine.backgammon.match import MatchState, NextGame, Phase, apply, result_words
from engine.backgammon.moves import closed_out
from engine.errors import InvalidInputError


class Referee(RefereeDirector, RefereeVerdicts, RefereeUnseen):
    """Follows one match: ``handle(event)`` returns the commands to carry out, in order.

    The first call journals ``match_start`` and ``game_start``. Pure: no I/O, no clock, no
    randomness; the same events give the same commands.
    """

    def begin(self) -> list[Command]:
        """Journal the match's start (done by the first :meth:`handle` if not called)."""
        self._out = []
        self._begin()
        self._lights()
        return self._out

    def handle(self, event: Event) -> list[Command]:
        """One event in, the commands to carry out in order (journal entries first)."""
        self._out = []
        if not self._started:
            self._begin()
        if isinstance(event, FrameSeen):
            self._frame(event)
        elif isinstance(event, MotionSeen):
            self._view_fresh = False
            self._still = []
        elif isinstance(event, ClockPressed):
            self._press(event)
        elif isinstance(event, ClockHoldPressed):
            self._hold(event)
        elif isinstance(event, PressesUnseen):
            self._unseen(event)
        elif isinstance(event, FlagFell):
            self._flag_fell(event)
        elif isinstance(event, DirectorAction):
            self._director(event)
        else:  # pragma: no cover - the Event union is closed
            raise InvalidInputError(f"unknown referee event {event!r}")
        self._advance(event.t_ms)
        self._lights()
        return self._out

    # --- the start --------------------------------------------------------------------------

    def _begin(self) -> None:
        """Journal the match's start with its settings (enough to rebuild the referee on a
        restart), set the clock up and open the first game."""
        cfg = self.config
        self._emit("match_start", game="backgammon", **cfg.to_json())
        self._configure_clock()
        self._signal("system_ok", True)
        names = cfg.players
        self._say(f"{cfg.length}-point match: {names[0]} against {names[1]}")
        self._game_start()

    def _game_start(self) -> None:
        """Journal a game's start with the score and whether it is the Crawford game
        (BG-MATCH-2), the clock on hold between games (TTB-CLOCK-4)."""
        m = self.match
        number = m.game + (1 if m.phase is Phase.GAME_OVER else 0)
        crawford_next = m.crawford_game
        if m.phase is Phase.GAME_OVER:
            after = apply(m, NextGame())
            crawford_next = after.crawford_game
        self._emit("game_start", number=number, score=list(m.score), crawford=crawford_next)
        self._do(ClockCommand("hold"))
        names = self.config.players
        extra = " (Crawford game: no cube, BG-MATCH-2)" if crawford_next else ""
        self._say(f"Game {number}: {names[0]} {m.score[0]}, {names[1]} {m.score[1]}{extra}")
        if self.match.phase is Phase.OPENING:
            self._say("Opening throw: one die each into your right half (BG-OPEN-1)")

    # --- frames -----------------------------------------------------------------------------

    def _frame(self, ev: FrameSeen) -> None:
        """Take a frame's reading and judge what it shows at this stage: the opening throw, a
        throw, an early throw (BG-ROLL-5), the last checker off, a flagged move standing."""
        self._view = ev.board
        self._view_fresh = True
        self._frame_no += 1
        if not ev.board.occluded:
            self._still = [*self._still[-7:], ev.board]
        self._dice = ev.dice
        self._cube = ev.cube
        if self._over:
            return
        stage = self.stage
        if stage != "opening":
            self._note_phantoms()
        if stage == "opening":
            self._opening_frame(ev)
        elif stage == "decide":
            if self._retake:
                self._take_position()
            elif not self._setup_correction():
                self._throw_frame(ev)
        elif stage == "move" and self._pending is None:
            self._early_frame(ev)
            self._last_checker_off()
        elif stage == "correcting":
            mover = self.match.on_roll
            assert mover is not None
            if self._opponent_threw(1 - mover):
                self._stand("the opponent threw")
                self._throw_frame(ev)
        if stage == "opening" and self.stage == "opening":
            self._note_phantoms()

    # --- decisions that need no new input ------------------------------------------------------

    def _advance(self, t_ms: int) -> None:
        """Take the decisions the state calls for now, one after another (at most 8, so that
        a state that keeps asking cannot loop)."""
        for _ in range(8):
            if not self._step(t_ms):
                return

    def _step(self, t_ms: int) -> bool:
        """Take one decision the state calls for; False when there is none to take now."""
        if self._over:
            return False
        m = self.match
        names = self.config.players
        if self._started_game < m.game and m.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER):
            self._game_start()  # the match's first game_start was not journalled yet
            return True
        if self._timed_out is not None:
            winner = 1 - self._timed_out
            self._emit(
                "match_end", winner=winner, score=list(m.score), how="time_out", game=m.game
            )
            self._do(ClockCommand("hold"))
            self._say(f"{names[winner]} wins the match on time")
            return True
        if m.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
            if self._ended_game != m.game or self._rescored:
                last = m.results[-1]
                # a game scored again after the director put its cube right (BG-CUBE-5): its
                # end is journalled again, marked, for the records to replace the first
                again = {"rescored": True} if self._rescored else {}
                self._emit(
                    "game_end",
                    winner=last.winner,
                    points=last.points,
                    score=list(m.score),
                    win=last.kind.word,
                    how=last.how.value,
                    cube=last.cube_value,
                    game=m.game,
                    **again,
                )
                self._do(ClockCommand("hold"))
                self._signal("illegal_move", False)
                self._signal("cannot_read", False)
                words = result_words(last.points, last.kind.word, last.how.value,
                                     last.cube_value, names[1 - last.winner])
                head = f"Game {m.game} scored again: " if again else ""
                self._say(f"{head}{names[last.winner]} wins {words}; score {names[0]} "
                          f"{m.score[0]}, {names[1]} {m.score[1]}")
                return True
            if m.phase is Phase.MATCH_OVER:
                winner = 0 if m.score[0] >= m.length else 1
                self._emit("match_end", winner=winner, score=list(m.score), how="played")
                self._say(f"{names[winner]} wins the match {m.score[0]}-{m.score[1]}")
                return True
            self._game_start()
            return True
        if self._director_due is not None:
            action, args = self._director_due
            self._director_due = None
            self._director_follow(action, args)
            return True
        if self._corrected is not None:
            self._emit_move(self._corrected)
            return True
        if self._double_wait is not None and self._double_after is None and self._cube_offered():
            # the opponent's press while the flagged move waited, its cube seen offered now
            self._double_after = self._double_wait
        doubler = self._double_after
        if doubler is not None and self._pending is None:
            if self._flag is not None and m.on_roll == 1 - doubler:
                self._stand("The opponent doubled")  # TTB-4.8: a double ends the correction
                return True
            if m.phase is Phase.DECIDE and m.on_roll == doubler:
                self._pending = "double"
                return self._double()
            self._double_after = None
        pending = self._pending
        if pending == "double":
            return self._double()
        if pending == "take":
            doubler = m.cube.offered_by
            assert doubler is not None
            self._emit("take", player=1 - doubler, cube=m.cube.value * 2)
            self._say(f"{names[1 - doubler]} takes: the cube is at {m.cube.value * 2}")
            self._cube_place_check(1 - doubler)
            return True
        if pending == "drop":
            doubler = m.cube.offered_by
            assert doubler is not None
            self._emit("drop", player=1 - doubler)
            self._say(f"{names[1 - doubler]} drops (BG-CUBE-4)")
            return True
        if pending == "move":
            return self._judge_move(t_ms)
        if pending == "unclear":
            return self._unclear_press(t_ms)
        if pending == "pass":
            self._pass_turn("pressed the clock without throwing")
            return True
        if self._early is not None and m.phase is Phase.DECIDE and m.on_roll == self._early[0]:
            player, dice, sig = self._early
            self._roll(player, dice, sig_json(sig), early=True)
            return True
        return False

    # --- resume -----------------------------------------------------------------------------

    def restore(
        self, entries: Sequence[dict[str, Any]], *, restore_clock: bool = True
    ) -> list[Command]:
        """Fold journalled entries (``seq``/``time`` ignored) into a fresh referee and return the
        commands that bring the table back: the lights, the clock times, and any decision the
        journal shows was due but not yet written (a game's end after its last move...).

        ``restore_clock`` configures the clock again (the match's delay and reserve), sets it
        to the last journalled times and starts the time of the player whose time ran
        (``set_times`` with that side; none between games, before the opening's press, after
        the hold button): right for a clock that lost its state with the host (the simulated
        clock, a power cut); a clock that kept running through the restart knows better
        (DESIGN.md, Clock), so pass False and read its times instead (:meth:`clock_restore`
        gives the same clock commands later, for a clock found to have lost its state).
        """
        self._out = []
        kind = ""
        for entry in entries:
            kind = str(entry.get("type", ""))
            fields = {k: v for k, v in entry.items() if k not in ("seq", "time", "type")}
            self._fold(kind, fields)
        self._started = True
        if self._flag is not None:
            self._signal("illegal_move", True)
        if self._throw_again:
            self._signal("throw_again", True)
        if kind == "cannot_read":  # said last, and nothing has answered it yet
            self._signal("cannot_read", True)
        if not self._over:
            self._signal("system_ok", True)
            if restore_clock:
                self._configure_clock()  # a clock that lost its state lost its settings too
        self._advance(0)  # decisions due first: a game's end puts the clock on hold
        if restore_clock:
            self._out.extend(self._clock_times())
        if not self._over:  # a finished match is said to be over by the table or the demo
            self._say("The match stands at "
                      f"{_standing_words(self.match, self.config.players, self.flagged)}")
        held = self._clock_run.held
        if held is not None and not self._over:
            names = self.config.players
            self._say(f"The clock is on hold, as it was when the table stopped: "
                      f"{names[1 - held]} presses their button to start {names[held]}'s time "
                      "again (TTB-4.5)")
        self._press_t = None  # the next event's time starts the cannot-read wait afresh
        self._lights()
        self._out.extend(lost_snapshot(entries))
        return self._out


__all__ = ["Referee", "closed_out", "diff_text", "signature"]


def _standing_words(m: MatchState, names: tuple[str, str], flagged: bool) -> str:
    """Where a resumed match stands, for the live log: the game and the score, the cube when
    it is not centred at 1 (or the Crawford game's none), and who is to act and how (a move
    ``flagged`` waits for its correction), so that a director sees at a glance that a restart
    lost nothing."""
    parts = [f"game {m.game}: {names[0]} {m.score[0]}, {names[1]} {m.score[1]}"]
    if m.crawford_game:
        parts.append("the Crawford game (no cube, BG-MATCH-2)")
    elif m.cube.value > 1 or m.cube.owner is not None:
        parts.append(f"the cube {cube_words(m.cube, names)}")
    if m.phase is Phase.OPENING:
        parts.append("the opening throw")
    elif m.phase is Phase.DOUBLED and m.cube.offered_by is not None:
        doubler = m.cube.offered_by
        parts.append(f"{names[1 - doubler]} to take or drop {names[doubler]}'s double to "
                     f"{m.cube.value * 2}")
    elif m.phase is Phase.MOVE and m.on_roll is not None and m.dice is not None:
        dice = f"{m.dice[0]}{m.dice[1]}"
        parts.append(f"{names[m.on_roll]} to correct the flagged move with {dice} (TTB-4.8)"
                     if flagged else f"{names[m.on_roll]} to play {dice}")
    elif m.phase is Phase.DECIDE and m.on_roll is not None:
        parts.append(f"{names[m.on_roll]} to throw")
    return "; ".join(parts)


def _conforms(referee: Referee) -> RefereeProtocol:
    """Type-checked proof that :class:`Referee` is what the runtime drives (mypy runs it)."""
    return referee
