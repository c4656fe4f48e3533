"""Turns played while the table could not see the board (TTB-6.1): the presses journalled
as unseen, and the position taken as the board next shows it whole."""

from __future__ import annotations

from controller.referee.api import ClockPressed, PressesUnseen, TakeSnapshot, press_fields
from controller.referee.clock import RefereeClock
from controller.referee.dice import RefereeDice
from controller.referee.dice_places import sig_json, signature
from controller.referee.flags import RefereeFlags
from controller.referee.recognition import StillViews, position_of_counts
from controller.referee.unseen import FOLLOWED, cube_fields, on_roll_after, plausible


class RefereeUnseen(RefereeClock, RefereeDice, RefereeFlags):
    """Follows the match across a gap in what the table saw."""

    def _unseen(self, ev: PressesUnseen) -> None:
        """Presses made while the table could not see (TTB-6.1): each journalled as unseen,
        their turns not judged (the picture shows what came after them); the turn goes to the
        player whose time runs, the position is taken as the board next shows it whole
        (:meth:`_take_position`), and the director is called to check it."""
        if self._over:
            return
        self._still, self._view_fresh = [], False  # what was seen before is not the board now
        for press in ev.presses:
            fields = press_fields(press)
            times = self._times_json(press.times_ms)
            if isinstance(press, ClockPressed):
                presser = self.config.player_of_side(press.side)
                self._emit("clock", event="press", player=presser, side=press.side,
                           times_ms=times, running=1 - presser, means="unseen", **fields)
            else:
                self._emit("clock", event="hold", player=None, times_ms=times, running=None,
                           means="unseen", **fields)
        for boot, number in ev.lost:
            self._emit("clock", event="press", means="unseen", press=[boot, number])
        m = self.match
        player = on_roll_after(self.config, ev.presses, ev.running, m.on_roll)
        count = len(ev.presses) + len(ev.lost)
        if m.phase not in FOLLOWED or player is None or count == 0:
            return
        names = self.config.players
        label = self._snapshot_label()
        self._emit(
            "cannot_read",
            player=player,
            rule="TTB-6.1",
            reason=f"{count} clock presses were made while the table could not see the board:"
            " the turns they ended were not judged; the position is taken as the board shows it"
            " and the director checks it",
            about="turns_unseen",
            turns=count,
            snapshot=label,
        )
        self._signal("cannot_read", True)
        self._signal("illegal_move", False)  # nothing before the gap can be corrected now
        self._signal("throw_again", False)
        self._do(TakeSnapshot(label))
        self._say(f"{count} presses were made while the table could not see the board: their"
                  f" turns were not judged; {names[player]} is on roll; the position is taken"
                  " as the board shows it; call the director to check it (TTB-6.1)")

    def _take_position(self) -> None:
        """After unseen turns (TTB-6.1): the position the still frames since the last motion
        show (at least ``agree`` of them, their counts weighed together, the board whole), from
        the view of the player on roll, is taken, with the cube where it lies. The dice lying
        then are a throw only when they are a valid one of the player on roll (the last
        mover's dice lie in the other half); else they are no throw."""
        m = self.match
        player = m.on_roll
        if player is None or len(self._still) < self.config.recognition.agree:
            return
        read = StillViews(self._still).best_counts()
        if read is None:
            return
        seen = position_of_counts(self.config.layout, read[0], read[1], player)
        if seen is None or not plausible(seen, m.position):
            return
        dice = self._dice
        rec = self.config.recognition
        # with a pair each (BG-EQ-2) the player's own pair lies in their half from their
        # last turn: only dice seen moving are a throw
        thrown = (self.config.rules.dice.value != "pair-each" and len(dice) == 2
                  and rec.judgeable(dice)
                  and all(self._die_problem(d, player) is None for d in dice))
        stale = {} if thrown else {"seen": sig_json(signature(dice))}
        self._emit("position_taken", player=player, position_id=seen.position_id,
                   rule="TTB-6.1", **cube_fields(self.config, m, self._cube), **stale)
        names = self.config.players
        self._say(f"Position taken as the board shows it, {names[player]} on roll:"
                  f" {seen.position_id} (the director checks it, TTB-6.1)")
