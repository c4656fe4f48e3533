"""What the backgammon referee says when it flags: an illegal move's clock, buzzer and
snapshot, a flagged move that stands (TTB-4.8), and "cannot read" said once (TTB-6.1)."""

from __future__ import annotations

from controller.referee.api import Buzz, ClockCommand, TakeSnapshot
from controller.referee.state import RefereeState
from engine.backgammon.position import Position


def diff_text(before: Position, after: Position) -> str:
    """A move text for a result that is no legal play (it stands under TTB-4.8): the mover's
    checkers that left each point paired with where checkers arrived, highest first."""
    b, a = before.board, after.board
    sources: list[int] = []
    dests: list[int] = []
    for point in range(25, 0, -1):
        mine_b, mine_a = max(b[point], 0), max(a[point], 0)
        sources.extend([point] * max(0, mine_b - mine_a))
        dests.extend([point] * max(0, mine_a - mine_b))
    off = after.my_off - before.my_off
    dests.extend([0] * max(0, off))
    parts = []
    for src, dst in zip(sources, dests, strict=False):
        parts.append(f"{'bar' if src == 25 else src}/{'off' if dst == 0 else dst}")
    return " ".join(parts)


class RefereeFlags(RefereeState):
    """The outputs of a flag, shared by the referee's throws, moves and director."""

    def _snapshot_label(self) -> str:
        """The file name of the next flag's snapshot (numbered by the flags journalled)."""
        return f"flag-{self._flags + 1:04d}.jpg"

    def _flag_commands(self, player: int, label: str) -> None:
        """What a flagged move does at the table: clock on hold, the illegal-move light
        and buzzer, a snapshot, then the mover's time restarted to correct it (TTB-4.5, TTB-4.9)."""
        self._do(ClockCommand("hold"))
        self._signal("illegal_move", True)
        self._do(Buzz("illegal"))
        self._do(TakeSnapshot(label))
        self._do(ClockCommand("start", side=self.config.side_of(player)))

    def _maybe_cannot_read(self, t_ms: int, player: int, why: str) -> bool:
        """Say "cannot read" once when the board after a press stays unreadable for
        ``cannot_read_ms`` (TTB-6.1) rather than guess a verdict; True when it is said now."""
        assert self._press_t is not None
        if self._said_cannot_read or t_ms - self._press_t < self.config.recognition.cannot_read_ms:
            return False
        self._announce_cannot_read(
            player,
            "TTB-6.1",
            f"the board cannot be read ({why}); keep hands off the board, or call the director",
            f"Cannot read the board after {self.config.players[player]}'s move: {why}",
            "board",
        )
        return True

    def _announce_cannot_read(self, player: int, rule: str, reason: str, line: str,
                              about: str) -> None:
        """Say "cannot read" once (journal, LED, snapshot, log) instead of guessing a verdict.
        ``about``: "throw" (a throw that cannot be judged), "press" (a press with no throw or
        double read) or "board" (the board after a press): journalled, so that a restarted
        table does not say it again."""
        self._said_cannot_read = True
        label = self._snapshot_label()
        self._emit("cannot_read", player=player, rule=rule, reason=reason, snapshot=label,
                   about=about)
        self._signal("cannot_read", True)
        self._do(TakeSnapshot(label))
        self._say(line)

    def _stand(self, why: str) -> None:
        """TTB-4.8: once the opponent throws or doubles, a flagged move stands as played."""
        flag = self._flag
        m = self.match
        if flag is None or m.on_roll is None or m.dice is None:
            return
        seen, rule, _ = flag
        player = m.on_roll
        self._emit(
            "move",
            player=player,
            dice=[m.dice[0], m.dice[1]],
            move=diff_text(m.position, seen),
            position_id=seen.position_id,
            stands=True,
            rule="TTB-4.8",
            flag_rule=rule,
        )
        self._signal("illegal_move", False)
        self._say(f"{why}: {self.config.players[player]}'s move stands as played (TTB-4.8)")


def cited(reason: str, rule: str) -> str:
    """A reason with its rule named after it, once (a reason may name it already)."""
    return reason if rule in reason else f"{reason} ({rule})"
