"""The Mangala referee: a pure state machine following one round at the table.

Events in (still frames, motion, clock presses, flag falls, director actions; time passed in
``t_ms``), commands out (journal entries first, then clock, LEDs, buzzer, snapshots and the
live log), as the backgammon referee does (``controller.referee.api``). Every decision is a
journal entry and the round's state is the fold of those entries, so :meth:`restore` rebuilds
the referee from a journal after a restart.

The rules it applies, with the decisions taken where the rules leave room:

- A round is up to 3 sets; 2 set points (win 1, draw 0.5) end it early; round points win 1,
  draw 0.5 (MG-T-1, seed rule e). Set 2 is started by the player who moved second in set 1,
  set 3 by the starter of set 1 (MG-T-2).
- Each set starts with 15 minutes per player, reset for every set (MG-CLOCK-1). The referee
  starts the starter's time once the set-up (4 stones in every pit, MG-EQ-1) is seen, or when
  a player presses to start it.
- A move is complete when the mover presses the clock (MG-CLOCK-2): the board seen in the still
  frames at the press is judged against the legal sowings of the position. Before the press a
  wrong sowing may be corrected, so nothing is flagged before it.
- The extra turn (MG-1): the turn has not passed, so the mover does NOT press after a sowing
  ending in their own store; they sow again and press once at the end of the turn (seed rule
  1: "oyuncu tekrar oynama hakkına sahip olur"; the press completes the move, seed rule j).
  A sowing ending in the store seen in still frames before the press is recorded then (a legal
  move may not be changed, MG-CLOCK-2); chains of sowings seen only at the press are followed
  too. If the mover presses after such a sowing anyway, the clock is given back to them.
- A player forgets to press and the opponent sows anyway: that sowing is not illegal
  (MG-CLOCK-2's last clause). Seen before the press, the referee says so once (``early_move``,
  no warning) and waits for the mover's press while the opponent takes it back; seen at the
  mover's press, the mover's sowing is recorded and the opponent's, made early, is theirs to
  take back or keep and press on their own time. A wrong early sowing is no warning to the
  mover who pressed: it is judged, and warned, at its own player's press (MG-T-4).
- An illegal sowing at the press: ``illegal_move`` with the rule and the reason, the LED, the
  buzzer, a snapshot and a warning; the clock goes back to the mover to correct the move and
  press again. The third warning of the round loses it (MG-T-4). The referee counts nothing
  for the players (MG-T-3 as the seed has it: only for the even-capture rule). A board that
  does not hold 48 stones is never an accusation: a stone that left the board is reported by
  the players and put back by the referee (MG-T-6 as seed rule g has it); the referee notes it.
- A director's ``set_position`` is journalled and written into the round record as a
  ``position`` line, so the record replays; one the record could not hold (not 48 stones,
  nobody to move, a side empty, no set being played) is refused. A director's ``end_match``
  (winner a or b) ends the round with round points 1 and 0 (MG-T-1), written into the round
  record as a ``director N end`` line; once the round is over it is refused. A director's
  ``accept`` of a pit is taken only while something waits for the director (an illegal sowing
  flagged, a press not yet judged, turns unseen); with nothing flagged it is refused. With
  turns unseen it enters the next of them (marked ``unseen``, counted once the turn passes)
  and the rest are looked for from the position after it.
- The set ends when a side is empty (MG-4): after the last sowing the players make the sweep;
  the referee checks the stores in view, that they hold all 48 stones, and journals
  ``game_end`` with ``stores: [a, b]``. A player whose time runs out loses the set unless their
  store holds 24 or more, a draw (MG-CLOCK-3). Only the mover's time runs (MG-CLOCK-2): a flag
  of the other player (a press awaiting its verdict, turns unseen) is journalled as
  ``flag_fell`` and their ``time_out`` waits for their turn, so the round record replays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.mangala import director
from controller.mangala.clock import RefereeClock
from controller.mangala.config import MangalaConfig
from controller.mangala.recognition import decide, usable
from controller.mangala.sets import begin_round, end_round, end_set, score_text, start_set
from controller.mangala.state import Stage
from controller.mangala.verdicts import RefereeVerdicts
from controller.mangala.view import MangalaFrameSeen
from controller.records.journal import match_start_fields
from controller.referee.api import (
    ClockHoldPressed,
    ClockPressed,
    Command,
    DirectorAction,
    FlagFell,
    MotionSeen,
    PressesUnseen,
    lost_snapshot,
    press_fields,
)
from engine.errors import InvalidInputError, RecordFormatError
from engine.mangala.position import Side
from engine.mangala.scoring import time_out

MangalaEvent = (
    MangalaFrameSeen | MotionSeen | ClockPressed | ClockHoldPressed | PressesUnseen | FlagFell
    | DirectorAction
)


class MangalaReferee(RefereeClock, RefereeVerdicts):
    """Follows one round: ``handle(event)`` returns the commands to carry out, in order."""

    def begin(self) -> list[Command]:
        """Journal the round's start (done by the first :meth:`handle` if not called)."""
        self._out = []
        if not self._started:
            begin_round(self)
        self._lights()
        return self._out

    def handle(self, event: MangalaEvent) -> list[Command]:
        """One event in, the commands to carry out in order (journal entries first)."""
        self._out = []
        if not self._started:
            begin_round(self)
        if isinstance(event, MangalaFrameSeen):
            if not event.view.occluded:
                self._still = [*self._still[-7:], event.view]
        elif isinstance(event, MotionSeen):
            self._still = []
        elif isinstance(event, ClockPressed):
            self._press(event)
        elif isinstance(event, ClockHoldPressed):
            self._emit("clock", button="hold", times_ms=list(event.times_ms), means="hold",
                       **press_fields(event))
        elif isinstance(event, PressesUnseen):
            self._unseen(event)
        elif isinstance(event, FlagFell):
            self._flag_fell(event)
        elif isinstance(event, DirectorAction):
            director.act(self, event)
        else:  # pragma: no cover - the event union is closed
            raise InvalidInputError(f"unknown referee event {event!r}")
        for _ in range(8):
            if not self._step(event.t_ms):
                break
        self._lights()
        return self._out

    def restore(self, entries: Sequence[dict[str, Any]], *, restore_clock: bool = True
                ) -> list[Command]:
        """Fold a journal's entries; return what brings the table back (clock, LEDs).
        ``restore_clock``: with :meth:`clock_restore`, for a clock that lost its state with
        the host (a table whose clock may have kept it asks for it once it answers)."""
        if not entries or entries[0].get("type") != "match_start":
            raise RecordFormatError("a mangala journal starts with match_start")
        for entry in entries:
            fields = {k: v for k, v in entry.items() if k not in ("seq", "time", "type")}
            try:
                self._fold(str(entry["type"]), fields)
            except (KeyError, TypeError, ValueError) as exc:
                raise RecordFormatError(
                    f"journal entry {entry.get('seq')} ({entry.get('type')}) cannot be "
                    f"replayed: {exc}") from None
        self._out = []
        self._complete(entries[-1])
        if restore_clock:
            self._out.extend(self.clock_restore())
        self._signals = set()
        self._lights()
        self._out.extend(lost_snapshot(entries))
        if not self._over:  # a finished round is said to be over by the table or the demo
            self._say(f"Resumed the round: {score_text(self)}")
        return self._out

    def _complete(self, last: dict[str, Any]) -> None:
        """Journal what the journal's ``last`` entry decided but a table going down just after
        it did not write: the set's end after a time-out, the first set after the round's start,
        the next set or the round's end after a set's end or a third warning, a director's
        accepted sowing or ending."""
        if self._over:
            return
        kind = last.get("type")
        if kind == "time_out" and self.position is not None and self.stage != "sweep":
            player: Side = "a" if last.get("player") == "a" else "b"
            end_set(self, time_out(self.position, player, self.set_number,
                                   self.round.starter(self.set_number)), checked=None, seen=None)
        elif self._due is not None and self._time_out_now(self._due):
            self._time_out(self._due)  # the flagged player's turn came (MG-CLOCK-2)
        elif self.round.over:
            end_round(self, "played" if kind == "game_end" else "warnings")
        elif kind in ("game_end", "match_start"):
            start_set(self)  # the next set, or the first: the round's start is journalled
        elif kind == "director" and last.get("action") in ("accept", "end_match"):
            director.follow(self, str(last["action"]), dict(last.get("args") or {}))
            if not self._over and self._due is not None and self._time_out_now(self._due):
                self._time_out(self._due)  # the accepted sowing gave the flagged player the turn

    def _step(self, t_ms: int) -> bool:
        """Decide what the frames and the press allow now; True when something was decided."""
        if self._over or self.position is None:
            return False
        if self._due is not None and self._time_out_now(self._due):
            self._time_out(self._due)
            return True
        if self._retake is not None:
            return self._find_unseen()
        if self.stage == "setup":
            return self._setup_check()
        if self.stage == "sweep":
            return self._sweep_check(t_ms)
        if not self._still:
            if self._pending:
                self._maybe_cannot_read(t_ms, "no still frame of the board since the press")
            return False
        decision = decide(self._still, self.position, self.config.settings)
        if decision.kind == "early":
            return self._early(decision)
        if self._pending:
            if decision.kind == "legal":
                self._accept(decision, pressed=True)
                return True
            if decision.kind == "illegal" and self._again and self.position is not None \
                    and decision.seen == self.position.board():
                self._extra_turn_press()
                return True
            if decision.kind == "illegal":
                self._illegal(decision)
                return True
            self._maybe_cannot_read(t_ms, decision.reason)
            return False
        if (decision.kind == "legal" and decision.line is not None
                and len(usable(self._still, self.config.settings)) >= 2
                and all(r.extra_turn for r in decision.line.results)):
            self._accept(decision, pressed=False)
            return True
        return False

    def _lights(self) -> None:
        mover = self.mover if self.stage in ("turn", "correcting") else None
        if self._retake is not None and self._retake[1] is not None:
            mover = self._retake[1]  # after unseen turns: the player whose time runs
        left = mover is not None and self.side_of(mover) == "left"
        right = mover is not None and self.side_of(mover) == "right"
        self._signal("turn_left", left)
        self._signal("turn_right", right)
        self._signal("illegal_move", self._flag is not None)
        if self._retake is not None:
            self._signal("cannot_read", True)  # the director is called until they are found
        elif not self._pending and "cannot_read" in self._signals:
            self._signal("cannot_read", False)


def start_referee(config: MangalaConfig, entries: Sequence[dict[str, Any]], *,
                  restore_clock: bool = True) -> tuple[MangalaReferee, list[Command]]:
    """A referee for a new round (no entries) or one resumed from a journal's entries, and the
    commands to carry out before anything else (``restore_clock`` as in
    :meth:`MangalaReferee.restore`)."""
    if not entries:
        referee = MangalaReferee(config)
        return referee, referee.begin()
    fields = match_start_fields(entries, "mangala")
    referee = MangalaReferee(MangalaConfig.from_json(fields))
    return referee, referee.restore(entries, restore_clock=restore_clock)


__all__ = ["MangalaConfig", "MangalaEvent", "MangalaReferee", "Stage", "start_referee"]
