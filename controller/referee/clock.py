"""The clock's side of the backgammon referee: its set-up for the match, what the journal
leaves it at for a restarted table, the presses, the hold button, a flag's fall
(TTB-CLOCK-2..4), and the turn lights."""

from __future__ import annotations

from controller.referee.api import (
    Buzz,
    ClockCommand,
    ClockHoldPressed,
    ClockPressed,
    Command,
    FlagFell,
    Side,
    press_fields,
)
from controller.referee.state import RefereeState
from engine.backgammon.moves import closed_out


class RefereeClock(RefereeState):
    """The referee's clock: its settings and times, presses and flags, and the lights."""

    def _configure_clock(self) -> None:
        """The match's delay and reserve (TTB-CLOCK-4), when the table sets them; on hold."""
        self._out.extend(self._clock_settings())

    def _clock_settings(self) -> list[Command]:
        """``configure_delay`` with the match's delay and reserve, when the table sets them."""
        settings = self.clock_settings
        if settings is None:
            return []
        _mode, delay, reserve = settings
        return [ClockCommand("configure_delay", args={"delay_ms": delay, "reserve_ms": reserve})]

    def _clock_times(self) -> list[Command]:
        """The journal's last times, with the side whose time runs (none on hold). A reserve of
        0 is a time like any other (a delay-only match); 0 and 0 where the match sets no clock
        are times no clock reported."""
        configured = self.clock_settings is not None
        if not self._times_known or not (configured or any(self._times)):
            return []
        left = self._times[self.config.clock_sides.index("left")]
        right = self._times[self.config.clock_sides.index("right")]
        run = self._clock_run.running
        return [ClockCommand("set_times", None if run is None else self.config.side_of(run),
                             args={"left_ms": left, "right_ms": right})]

    def clock_restore(self) -> list[Command]:
        """What puts a clock that lost its state (power) where the journal leaves it: the
        match's delay and reserve, both times and whose time runs; for a restarted table whose
        clock answers only later (:meth:`restore` gives the same at once)."""
        return [*([] if self._over else self._clock_settings()), *self._clock_times()]

    @property
    def clock_on_hold(self) -> bool:
        """Whether the journal leaves the clock on hold (TTB-CLOCK-4, BG-OPEN-3, TTB-4.5, the
        match over): a restarted table holds a clock that ran on without a press since."""
        return self._over or self._clock_run.on_hold

    @property
    def clock_hold_rule(self) -> str:
        """The rule a restarted table cites when it holds a clock that ran on."""
        return "TTB-CLOCK-4"

    @property
    def clock_reset(self) -> list[Command]:
        """What a clock that kept its state through a restart needs at a game's start: nothing
        (the reserve runs on through the match, TTB-CLOCK-4; a Mangala set resets it)."""
        return []

    @property
    def clock_runs(self) -> Side | None:
        """The clock side whose time the journal leaves running (the opponent's after a press,
        TTB-CLOCK-2; the mover's after a flagged move, TTB-4.5); None on hold or not known."""
        run = self._clock_run.running
        if self._over or not self._clock_run.known or run is None:
            return None
        return self.config.side_of(run)

    @property
    def clock_settings(self) -> tuple[str, int, int] | None:
        """What the clock reports of its set-up once configured for the match (its ``HI``:
        mode, delay, reserve), None where the match leaves the clock's own (TTB-CLOCK-4)."""
        cfg = self.config
        if cfg.reserve_ms is None and cfg.delay_ms is None:
            return None
        return ("delay", cfg.delay_ms or 0, cfg.reserve_ms or 0)

    def _times_json(self, times_lr: tuple[int, int]) -> list[int]:
        """The clock's (left, right) times in player order, as the journal keeps them, so
        that a time reads the same whichever side each player sits on."""
        left, right = times_lr
        return [left if self.config.side_of(p) == "left" else right for p in (0, 1)]

    def _press(self, ev: ClockPressed) -> None:
        """Journal a press with what it means now (a move finished, TTB-CLOCK-2; a double or
        a take, BG-CUBE-3; a closed-out pass, BG-BAR-4; the opening start, BG-OPEN-3)."""
        if self._over:
            return
        player = self.config.player_of_side(ev.side)
        stage = self.stage
        m = self.match
        means = "none"
        if self._retake and stage == "decide" and player == m.on_roll:
            # the board was not taken yet since unseen turns: this turn is unseen too
            means = "unseen"
            self._say(f"{self.config.players[player]} pressed before the board could be read"
                      " whole: that turn is not judged either (TTB-6.1)")
        elif stage == "decide" and player == m.on_roll and self._cube_offered():
            means = "double"
        elif stage == "decide" and player == m.on_roll and closed_out(m.position):
            means = "pass"  # BG-BAR-4: closed out, the player need not throw
        elif stage == "decide" and player == m.on_roll:
            means = "unclear"  # a double whose cube is not seen yet, or a throw not read
        elif stage == "move" and player == m.on_roll:
            means = "move"
        elif stage == "move" and player != m.on_roll and self._cube_offered():
            # the opponent doubled before the mover pressed: the double counts and the move is
            # finished as it lies (``004`` 4.6; a flagged move then stands, TTB-4.8)
            means = "early_double"
        elif stage == "move" and m.moves_made == 0 and player != m.on_roll:
            means = "start"  # the opening: the smaller die starts the opponent's time (BG-OPEN-3)
        elif stage == "correcting" and player == m.on_roll:
            means = "move"
        elif stage == "correcting" and self._cube_offered():
            means = "double"  # the flagged move stands first (TTB-4.8): see _step
        elif stage == "correcting" and player != m.on_roll:
            # the opponent pressed with no cube seen offered yet (the hand over it): a double
            # once it is seen there (see _step), else nothing
            means = "double_unseen"
        elif stage == "doubled" and m.cube.offered_by is not None and player != m.cube.offered_by:
            means = "take"
        self._emit(
            "clock",
            event="press",
            player=player,
            side=ev.side,
            times_ms=self._times_json(ev.times_ms),
            running=1 - player,
            means=means,
            **press_fields(ev),
            **self._phantoms.press_field(),
        )
        self._press_t = ev.t_ms
        self._said_cannot_read = False

    def _hold(self, ev: ClockHoldPressed) -> None:
        """Journal the hold button: a drop while a double waits (BG-CUBE-3), otherwise the clock
        put on hold to call for a correction or the director (TTB-4.5, TTB-6.1)."""
        if self._over:
            return
        means = "drop" if self.stage == "doubled" else "hold"
        taker = None
        if means == "drop" and self.match.cube.offered_by is not None:
            taker = 1 - self.match.cube.offered_by
        self._emit(
            "clock",
            event="hold",
            player=taker,
            times_ms=self._times_json(ev.times_ms),
            running=None,
            means=means,
            **press_fields(ev),
        )
        if means == "hold":
            self._say("Clock on hold (TTB-4.5, TTB-6.1)")

    def _flag_fell(self, ev: FlagFell) -> None:
        """A player's time ran out: journal and say that they lose the match (TTB-CLOCK-3)
        and sound the buzzer."""
        if self._over:
            return
        player = self.config.player_of_side(ev.side)
        name = self.config.players[player]
        self._emit(
            "time_out",
            player=player,
            rule="TTB-CLOCK-3",
            reason=f"{name}'s time ran out: {name} loses the match",
        )
        self._do(Buzz("flag"))
        self._say(f"{name}'s time ran out: {name} loses the match (TTB-CLOCK-3)")

    # --- lights -----------------------------------------------------------------------------

    def _lights(self) -> None:
        """The turn lights follow whoever must act (the player on roll, or the doubled player)."""
        m = self.match
        who = None if self._over else m.to_act
        if who == self._lit:
            return
        for p in (0, 1):
            self._signal("turn_left" if self.config.side_of(p) == "left" else "turn_right",
                         p == who)
        self._lit = who
