"""The backgammon referee's verdicts at a press: a move judged legal, illegal (TTB-4.8) or
not yet readable, the last checker borne off, a double allowed or refused, the cube's place
after a take (BG-CUBE-3), and a press with neither a throw nor a double read."""

from __future__ import annotations

from controller.referee.api import Buzz
from controller.referee.flags import RefereeFlags, cited
from controller.referee.recognition import StillViews, recognise
from engine.backgammon.match import Move, apply, may_double
from engine.backgammon.moves import result_boards
from engine.backgammon.notation import format_steps
from engine.backgammon.position import Position


class RefereeVerdicts(RefereeFlags):
    """Judges the move, the cube and an unclear press once a player pressed the clock."""

    def _unclear_press(self, t_ms: int) -> bool:
        """The player on roll pressed with neither a throw nor an offered cube seen: a double
        once the cube is seen offered (BG-CUBE-3), else "cannot read" after the time-out."""
        m = self.match
        player = m.on_roll
        assert player is not None
        if self._cube_offered():
            self._pending = "double"
            return self._double()
        # (a throw seen later is journalled as the roll and clears this press)
        if self._press_t is None:
            self._press_t = t_ms
        if self._said_cannot_read or t_ms - self._press_t < self.config.recognition.cannot_read_ms:
            return False
        name = self.config.players[player]
        self._announce_cannot_read(
            player,
            "BG-ROLL-2",
            f"{name} pressed the clock, but neither a throw nor a double of {name}'s was"
            " read: throw the dice into your right half, or the director sets them",
            f"{name} pressed the clock without a throw or a double that could be read",
            "press",
        )
        return True

    def _double(self) -> bool:
        """Judge a double: refused with its rule (BG-CUBE-2, BG-CUBE-4, BG-MATCH-2; BG-ROLL-6
        after a throw), else journalled, the cube's face checked (BG-CUBE-5)."""
        m = self.match
        names = self.config.players
        player = m.on_roll
        assert player is not None
        reason = may_double(m)
        rule = "BG-CUBE-2"
        if self._throw_again:
            reason, rule = "the dice were thrown, even if invalidly: no double now", "BG-ROLL-6"
        elif reason is not None and "BG-MATCH-2" in reason:
            rule = "BG-MATCH-2"
        elif reason is not None and "BG-CUBE-4" in reason:
            rule = "BG-CUBE-4"
        if reason is not None:
            self._emit("cube_refused", player=player, rule=rule, reason=reason)
            self._do(Buzz("illegal"))
            self._say(f"{names[player]} may not double: {cited(reason, rule)}")
            return True
        offered = self._cube.value if self._cube is not None else m.cube.value * 2
        self._emit("double", player=player, cube=m.cube.value * 2)
        self._say(f"{names[player]} doubles to {m.cube.value * 2}")
        if offered != m.cube.value * 2:
            self._say(f"The cube shows {offered}: it should show {m.cube.value * 2} (BG-CUBE-5)")
        return True

    def _cube_place_check(self, taker: int) -> None:
        """After a take the cube belongs on the taker's side (BG-CUBE-3): say so when
        it is seen elsewhere."""
        cube = self._cube
        colour = self.config.colour_of(taker)
        if cube is not None and cube.zone not in (f"{colour}-side", "offered"):
            self._say(f"The cube should be on {self.config.players[taker]}'s side (BG-CUBE-3)")

    def _judge_move(self, t_ms: int) -> bool:
        """Judge the move a press finished from clear still frames: legal, a flagged move
        corrected, or illegal and flagged (TTB-4.8, TTB-4.9); "cannot read" after the time-out."""
        m = self.match
        player = m.on_roll
        assert player is not None and m.dice is not None
        if self._press_t is None:
            self._press_t = t_ms
        view = self._view
        names = self.config.players
        if view is None or not self._view_fresh:
            return self._maybe_cannot_read(t_ms, player, "no still picture of the board yet")
        if self._judged_frame == self._frame_no:
            return self._maybe_cannot_read(t_ms, player, "waiting for another still picture")
        self._judged_frame = self._frame_no
        if len(self._still) < self.config.recognition.agree:
            return self._maybe_cannot_read(t_ms, player, "waiting for a clear still picture")
        found = recognise(
            StillViews(self._still),
            m.position,
            m.dice,
            player,
            self.config.layout,
            self.config.recognition,
        )
        dice = [m.dice[0], m.dice[1]]
        if found.verdict == "legal":
            assert found.result is not None
            self._signal("cannot_read", False)
            if self._flag is not None:
                self._emit("correction", player=player, position_id=found.result.position_id)
                self._signal("illegal_move", False)
                self._say(f"{names[player]} corrected the move (TTB-4.8)")
                return True  # the move itself follows (_step), also after a restart
            self._emit_move(found.result)
            return True
        if found.verdict == "illegal":
            assert found.result is not None
            self._signal("cannot_read", False)
            label = self._snapshot_label()
            self._emit(
                "illegal_move",
                player=player,
                dice=dice,
                rule=found.rule,
                reason=found.reason,
                position_id=found.result.position_id,
                snapshot=label,
            )
            self._flag_commands(player, label)
            self._say(f"Illegal move by {names[player]}: {found.reason} ({found.rule}, TTB-4.8)")
            return True
        return self._maybe_cannot_read(t_ms, player, found.reason)

    def _emit_move(self, result: Position) -> None:
        """Journal the legal move that leaves ``result`` (mover's view)."""
        m = self.match
        player = m.on_roll
        assert player is not None and m.dice is not None
        legal = result_boards(m.position, m.dice)
        text = format_steps(m.position.board, legal[result.board]) if legal else ""
        after = apply(m, Move(result))
        dice = [m.dice[0], m.dice[1]]
        self._emit(
            "move",
            player=player,
            dice=dice,
            move=text,
            position_id=result.position_id,
            match_id=after.match_id,
        )
        name = self.config.players[player]
        self._say(f"{name} {dice[0]}{dice[1]}: {text or 'no move (BG-MOVE-7)'}")

    def _last_checker_off(self) -> None:
        """The move that bears off the last checker ends the game even if nobody presses."""
        m = self.match
        if m.dice is None or m.on_roll is None or m.position.my_off < 11:
            return
        if len(self._still) < self.config.recognition.agree:
            return
        legal = result_boards(m.position, m.dice)
        if not any(sum(c for c in board if c > 0) == 0 for board in legal):
            return
        found = recognise(
            StillViews(self._still),
            m.position,
            m.dice,
            m.on_roll,
            self.config.layout,
            self.config.recognition,
        )
        if found.verdict == "legal" and found.result is not None and found.result.my_off == 15:
            self._signal("cannot_read", False)
            self._emit_move(found.result)
