"""The Mangala referee's verdicts on what the still frames show: the set-up, sowings legal,
illegal or early, extra turns, turns played unseen and the sweep at a set's end."""

from __future__ import annotations

from typing import Any

from controller.mangala.recognition import Decision, score, usable, vision_board
from controller.mangala.sets import end_round, end_set
from controller.mangala.state import RefereeState
from controller.mangala.unseen import find
from controller.referee.api import (
    Buzz,
    ClockCommand,
    ClockPressed,
    PressesUnseen,
    TakeSnapshot,
    press_fields,
)
from engine.mangala.scoring import set_result
from engine.mangala.sowing import explain


class RefereeVerdicts(RefereeState):
    """Judging the board in the still frames against the position (MG-1, MG-4, MG-CLOCK-2)."""

    def _setup_check(self) -> bool:
        position = self.position
        assert position is not None
        frames = usable(self._still, self.config.settings)
        if len(frames) < 2:
            return False
        initial = score(frames, position.board())
        raw, fixed = vision_board(frames)
        top = max(s for s in (score(frames, raw), score(frames, fixed), initial)
                  if s is not None) if initial is not None else None
        if initial is None or top is None:
            return False
        if (top - initial) / len(frames) > self.config.settings.accept_gap:
            return False
        starter = position.to_move
        assert starter is not None
        self._emit("clock", button=None, player=starter, times_ms=list(self._lr(self._times)),
                   means="start")
        self._do(ClockCommand("start", self.side_of(starter)))
        self._say(f"The board is set up; {self.name(starter)}'s clock runs "
                  f"(set {self.set_number})")
        return True

    def _accept(self, decision: Decision, *, pressed: bool,
                marks: dict[str, Any] | None = None) -> None:
        line = decision.line
        assert line is not None
        corrected = self._flag is not None
        if corrected:
            self._signal("illegal_move", False)
        self._signal("cannot_read", False)
        mover = line.results[0].mover
        for k, result in enumerate(line.results):
            last = k == len(line.results) - 1
            self._emit(
                "move",
                set=self.set_number,
                player=result.mover,
                pit=result.pit,
                position=result.position.to_obj(),
                board=list(result.position.board()),
                captured=result.captured,
                capture_rule=result.capture_rule,
                extra_turn=result.extra_turn,
                set_over=result.set_over,
                swept=result.swept,
                pressed=pressed and last,
                corrected=corrected,
                fit=round(decision.gap, 2),
                note=decision.reason or None,
                **(marks or {}),
            )
            stores = f" [stores a {result.position.a_store}, b {result.position.b_store}]"
            self._say(f"{self.name(result.mover)} ({result.mover}): {explain(result)}"
                      + (" (corrected)" if corrected else "") + stores)
        if "MG-T-6" in decision.reason:
            self._say(f"Note: {decision.reason}")
        last_result = line.last
        if last_result.set_over:
            self._sweep_t = None
            self._do(ClockCommand("hold"))
            return
        if last_result.extra_turn and pressed:
            # the press gave the time away, but the turn has not passed (MG-1)
            self._say(f"{self.name(mover)} moves again: {self._start(mover)} (MG-1)")

    def _unseen(self, ev: PressesUnseen) -> None:
        """Presses made while the table could not see (MG-CLOCK-2): each journalled as unseen;
        the turns they ended are found again from the board (:meth:`_find_unseen`), and the
        director is called to check."""
        self._still = []  # what was seen before is not the board now
        # in the set-up the first press started the set (the players' own start)
        start = self.stage == "setup" and self.position is not None
        turns = 0
        for press in ev.presses:
            if isinstance(press, ClockPressed):
                means = "start" if start else "unseen"
                turns += not start
                start = False
                self._emit("clock", button=press.side, player=self.player_of(press.side),
                           times_ms=list(press.times_ms), means=means, **press_fields(press))
            else:
                self._emit("clock", button="hold", times_ms=list(press.times_ms),
                           means="unseen", **press_fields(press))
        for boot, number in ev.lost:
            turns += not start
            self._emit("clock", means="start" if start else "unseen", press=[boot, number])
            start = False
        if self.position is None or self.stage not in ("turn", "correcting") or turns == 0:
            return
        to_move = self.player_of(ev.running) if ev.running is not None else None
        self._emit("cannot_read", set=self.set_number, player=to_move, rule="MG-CLOCK-2",
                   about="turns_unseen", turns=turns,
                   reason=f"{turns} clock presses were made while the table could not see the"
                   " board: the sowings are found again from the board, or the director sets"
                   " the position")
        self._signal("cannot_read", True)
        self._do(TakeSnapshot(f"unseen-set{self.set_number}.jpg"))
        whose = f"; {self.name(to_move)} is to move" if to_move is not None else ""
        self._say(f"{turns} presses were made while the table could not see the board{whose}:"
                  " the sowings are looked for on the board; call the director to check them"
                  " (MG-CLOCK-2)")

    def _find_unseen(self) -> bool:
        """The unseen turns from the still frames (``controller.mangala.unseen``): their
        sowings when one way explains the board, else the board itself as the position."""
        assert self._retake is not None and self.position is not None
        turns, to_move = self._retake
        found = find(self._still, self.position, turns, to_move, self.config.settings)
        if found is None:
            return False
        if found.turns is not None:
            marks: dict[str, Any] = {"unseen": True}
            if found.ways > 1:
                marks["guessed"] = True
            for line in found.turns:
                self._accept(Decision("legal", line, (line,), gap=found.gap), pressed=True,
                             marks=marks)
            if found.ways > 1:
                self._say(f"The set ended while the table could not see it: the stores stand; "
                          f"the sowings above are one of the {found.ways} ways to them "
                          "(MG-4, MG-CLOCK-2)")
            else:
                what = "turn" if turns == 1 else f"{turns} turns"
                self._say(f"The unseen {what} found on the board: the sowings above "
                          "(MG-CLOCK-2)")
            return True
        assert found.position is not None
        self._emit("position_taken", set=self.set_number, position=found.position.to_obj(),
                   player=found.position.to_move, rule="MG-CLOCK-2", fit=round(found.gap, 2))
        self._signal("cannot_read", False)
        self._say(f"Position taken as the board shows it (which pits were sown cannot be told): "
                  f"{found.position.describe()}")
        return True

    def _early(self, decision: Decision) -> bool:
        """The opponent sowed before the mover pressed (MG-CLOCK-2): not illegal. Before the
        press the referee says so once and waits; at the press the mover's sowing is recorded
        and the opponent's, made before it, is theirs to take back and play on their time."""
        then, line = decision.then, decision.line
        assert then is not None and line is not None
        mover, opponent = line.results[0].mover, then.results[0].mover
        pressed = self._pending
        if not pressed and self._early_seen == then.board:
            return False
        self._early_seen = then.board
        how = then.wrongly
        if pressed:
            self._accept(Decision("legal", line, decision.lines, gap=decision.gap), pressed=True)
        self._emit("early_move", set=self.set_number, player=opponent, mover=mover,
                   pits=list(then.pits), mover_pits=list(line.pits), rule="MG-CLOCK-2",
                   reason=decision.reason, mover_pressed=pressed,
                   **({"mistake": then.mistake} if then.mistake else {}))
        if pressed:
            # a wrong early sowing is the opponent's to correct before their press: no warning
            # to the mover, whose sowing was legal, nor yet to the opponent (MG-T-4)
            self._say(f"{self.name(opponent)} sowed pit {then.pits[0]}{how} before "
                      f"{self.name(mover)} pressed: not illegal (MG-CLOCK-2); "
                      f"{self.name(opponent)} takes it back and plays on their own time")
        else:
            self._say(f"{self.name(mover)} has not pressed the clock and {self.name(opponent)} "
                      f"sowed pit {then.pits[0]}{how}: not illegal; {self.name(opponent)} takes it "
                      f"back and waits for {self.name(mover)}'s press (MG-CLOCK-2)")
        return pressed

    def _extra_turn_press(self) -> None:
        """The mover pressed after a sowing into their own store (already recorded): the turn
        has not passed, the clock goes back to them (MG-1)."""
        mover = self.mover
        assert mover is not None
        self._emit("extra_turn", set=self.set_number, player=mover, rule="MG-1")
        self._say(f"{self.name(mover)} moves again (the last stone fell into the store): "
                  f"{self._start(mover)} (MG-1)")

    def _illegal(self, decision: Decision) -> None:
        mover = self.mover
        assert mover is not None and decision.seen is not None
        repeated = self._flag is not None and self._flag[1] == decision.seen
        warnings = self.round.warning_count(mover) + (0 if repeated else 1)
        self._emit(
            "illegal_move",
            set=self.set_number,
            player=mover,
            rule=decision.rule or "MG-1",
            reason=decision.reason,
            seen=list(decision.seen),
            closest_pits=[line.pits[0] for line in decision.lines][:1],
            warning=not repeated,
            warnings=warnings,
            snapshot=f"illegal-set{self.set_number}-{mover}-{warnings}.jpg",
        )
        self._signal("illegal_move", True)
        self._do(Buzz("illegal"))
        self._do(TakeSnapshot(f"illegal-set{self.set_number}-{mover}-{warnings}.jpg"))
        rule = decision.rule or "MG-1"
        why = decision.reason if rule in decision.reason else f"{decision.reason} ({rule})"
        if self.round.over:
            self._say(f"ILLEGAL sowing by {self.name(mover)}: {why} "
                      f"Third warning: the round is lost (MG-T-4)")
            end_round(self, "warnings")
            return
        self._start(mover)  # the correction on the mover's time (MG-CLOCK-2)
        note = ("the same board again: no new warning" if repeated
                else f"warning {warnings} of 3 (MG-T-4)")
        self._say(f"ILLEGAL sowing by {self.name(mover)}: {why} "
                  f"{note[0].upper()}{note[1:]}; correct the sowing and press again (MG-CLOCK-2)")

    def _maybe_cannot_read(self, t_ms: int, why: str) -> None:
        if self._said_cannot_read or t_ms - self._press_t < self.config.cannot_read_ms:
            return
        mover = self.mover
        self._emit("cannot_read", set=self.set_number, player=mover, rule="MG-CLOCK-2",
                   reason=f"the referee cannot read the sowing yet: {why}")
        self._signal("cannot_read", True)
        self._do(Buzz("cannot_read"))
        self._do(TakeSnapshot(f"cannot-read-set{self.set_number}.jpg"))
        self._say(f"Cannot read the board after {self.name(mover or 'a')}'s press: {why}; "
                  f"waiting (keep hands off the board)")

    def _sweep_check(self, t_ms: int) -> bool:
        final = self._final
        assert final is not None
        if self._sweep_t is None:
            self._sweep_t = t_ms
        frames = usable(self._still, self.config.settings)
        result = set_result(final.position, self.set_number,
                            self.round.starter(self.set_number))
        board = final.position.board()
        if len(frames) >= 2:
            # the sweep is made (the swept board beats the one before it) and the stores in
            # view agree with the recorded sowings, within what big piles allow (MG-4)
            expected = score(frames, board)
            before = score(frames, final.sown.board()) if final.swept else None
            raw, fixed = vision_board(frames)
            tops = [s for s in (score(frames, raw), score(frames, fixed)) if s is not None]
            if expected is not None and tops and (before is None or expected > before):
                gap = (max([*tops, expected]) - expected) / len(frames)
                if gap <= self.config.settings.sweep_gap:
                    end_set(self, result, checked=True, seen=(raw[6], raw[13]))
                    return True
        if t_ms - self._sweep_t >= self.config.sweep_wait_ms:
            self._say("The stores could not be checked in view; the set is scored from the "
                      "recorded sowings (MG-4)")
            end_set(self, result, checked=False, seen=None)
            return True
        return False


__all__ = ["RefereeVerdicts"]
