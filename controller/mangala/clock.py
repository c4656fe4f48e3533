"""The clock's side of the Mangala referee: what the journal leaves the clock at (restore,
reset, which time runs), the presses, and flags with the time-out that waits for its turn
(MG-CLOCK-1..3)."""

from __future__ import annotations

from controller.clock.messages import Side as ClockSide
from controller.mangala.sets import end_set
from controller.mangala.state import RefereeState
from controller.referee.api import Buzz, ClockCommand, ClockPressed, Command, FlagFell, press_fields
from engine.mangala.position import STONES, Side, other
from engine.mangala.scoring import time_out
from engine.mangala.sowing import stones


class RefereeClock(RefereeState):
    """The referee's clock: its public state for a restarted table, presses and flags."""

    def clock_restore(self) -> list[Command]:
        """What puts a clock that lost its state (power) where the journal leaves it: the
        countdown (MG-CLOCK-1), both times and whose time runs; :meth:`restore` gives it, and a
        restarted table whose clock answers only later asks for it then."""
        out: list[Command] = [self._countdown()]
        if not self._over and self.stage != "setup":
            left, right = self._lr(self._times)
            out.append(ClockCommand("set_times", args={"left_ms": left, "right_ms": right}))
            runs = self.clock_runs
            if runs is not None:
                out.append(ClockCommand("start", runs))
        return out

    @property
    def clock_runs(self) -> ClockSide | None:
        """The clock side whose time the journal leaves running: the mover's, or after a press
        awaiting its verdict the opponent's (a verdict giving the turn back starts the
        mover's); None outside a set's play or with a flag down (the clock stops at it)."""
        mover = self.mover
        if self._over or mover is None or self.stage not in ("turn", "correcting") \
                or self._due is not None:
            return None
        if self._retake is not None:  # after unseen turns: the clock's side, if known
            return self.side_of(self._retake[1]) if self._retake[1] is not None else None
        return self.side_of(other(mover) if self._pending else mover)

    @property
    def clock_settings(self) -> tuple[str, int, int] | None:
        """What the clock reports of its set-up once configured for the round (its ``HI``:
        mode, delay, start time): the set's countdown (MG-CLOCK-1)."""
        return ("countdown", 0, self.config.set_ms)

    @property
    def clock_reset(self) -> list[Command]:
        """What a clock that kept its state through a restart still needs: with a set
        journalled but not started (its set-up), the set's countdown (MG-CLOCK-1), which the
        table may have gone down before sending (after a time-out the clock stands flagged)."""
        if self._over or self.stage != "setup" or self.position is None:
            return []
        return [self._countdown()]

    @property
    def clock_on_hold(self) -> bool:
        """Whether the journal leaves the clock on hold: the round over, a set not yet started
        by its first press, or a set whose last sowing is journalled (held for the sweep, MG-4;
        a restarted table holds a clock whose hold never reached it)."""
        return self._over or self.stage in ("setup", "sweep")

    @property
    def clock_hold_rule(self) -> str:
        """The rule a restarted table cites when it holds a clock that ran on: the round over
        (MG-T-1), the sweep of a set's end (MG-4), else a set's countdown that starts at its
        first press (MG-CLOCK-1)."""
        if self._over:
            return "MG-T-1"
        return "MG-4" if self.stage == "sweep" else "MG-CLOCK-1"

    def _press(self, ev: ClockPressed) -> None:
        player = self.player_of(ev.side)
        common = {"button": ev.side, "player": player, "times_ms": list(ev.times_ms),
                  **press_fields(ev)}
        if self._retake is not None and self.stage in ("turn", "correcting"):
            self._emit("clock", **common, means="unseen")
            self._say(f"{self.name(player)} pressed before the board could be read whole: that "
                      "turn is not seen either (MG-CLOCK-2)")
            return
        if self.stage == "setup" and self.position is not None:
            starter = self.position.to_move
            assert starter is not None
            self._emit("clock", **common, means="start")
            if player == starter:  # the clock started the wrong time: the starter moves first
                self._do(ClockCommand("start", self.side_of(starter)))
            self._say(f"{self.name(starter)}'s clock runs: set {self.set_number} begins")
            return
        mover = self.mover
        if self.stage in ("turn", "correcting") and player == mover:
            self._emit("clock", **common, means="move")
            self._press_t = ev.t_ms
            return
        self._emit("clock", **common, means="ignored")
        if mover is not None and self.stage in ("turn", "correcting"):
            self._say(f"{self.name(player)} pressed, but it is {self.name(mover)}'s turn "
                      f"(MG-CLOCK-2)")

    def _flag_fell(self, ev: FlagFell) -> None:
        """A flag fell: the set ends on the mover's time-out (MG-CLOCK-3). Only the mover's
        time runs (MG-CLOCK-2), so a flag of the other player (their time ran after a press
        whose verdict is not in, or after turns nobody saw) waits for their turn."""
        player = self.player_of(ev.side)
        position = self.position
        if position is None or self.stage == "over" or self.stage == "sweep" \
                or self._due == player:
            return
        if self._time_out_now(player):
            self._time_out(player)
            return
        mover = position.to_move
        self._emit("flag_fell", set=self.set_number, player=player, mover=mover,
                   rule="MG-CLOCK-2", reason=f"{player}'s flag fell before it was {player}'s "
                   "turn by the referee: the time-out is recorded when it is")
        self._do(Buzz("flag"))
        self._say(f"{self.name(player)}'s time ran out before the referee gave "
                  f"{self.name(player)} the turn: the time-out stands once "
                  f"{self.name(mover or other(player))}'s turn is settled (MG-CLOCK-2)")

    def _time_out_now(self, player: Side) -> bool:
        """Whether ``player``'s time-out can be recorded now: it is their turn, with no press
        awaiting its verdict and no turns unseen (MG-CLOCK-2)."""
        return (self.position is not None and self.position.to_move == player
                and not self._pending and self._retake is None
                and self.stage in ("setup", "turn", "correcting"))

    def _time_out(self, player: Side) -> None:
        """``player``'s time ran out on their turn: their store decides the set (MG-CLOCK-3)."""
        position = self.position
        assert position is not None
        self._emit("time_out", set=self.set_number, player=player,
                   stores=[position.a_store, position.b_store])
        self._do(Buzz("flag"))
        result = time_out(position, player, self.set_number,
                          self.round.starter(self.set_number))
        own = position.store(player)
        verdict = "a drawn set" if result.winner == "draw" else "the set is lost"
        self._say(f"{self.name(player)}'s time ran out: {stones(own)} in the store, "
                  f"{'24 or more' if own >= STONES // 2 else 'fewer than 24'}: {verdict} "
                  f"(MG-CLOCK-3)")
        end_set(self, result, checked=None, seen=None)


__all__ = ["RefereeClock"]
