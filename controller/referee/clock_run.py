"""Whose time runs on the match clock, as the journal tells it: a restarted table whose clock
lost its state (power) sets the journal's times and starts that player's time again, so the
match continues where it was (DESIGN.md, Records). The clock is on hold only where the rules
hold it: between games (TTB-CLOCK-4), before the opening's press (BG-OPEN-3), after the hold
button (a drop, BG-CUBE-3; a correction or a dispute, TTB-4.5, TTB-6.1)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# entries after which the referee has put the clock on hold (or the match is over)
HOLDING = frozenset({"game_start", "game_end", "match_end", "time_out"})


@dataclass
class ClockRun:
    """Folded from the journal like the rest of the referee's state: ``running`` is the player
    whose time runs, ``held`` the one whose turn the hold button interrupted (None: neither);
    ``known`` is False after a press nobody saw, which leaves both unknown."""

    running: int | None = None
    held: int | None = None
    known: bool = True

    @property
    def on_hold(self) -> bool:
        """Whether the journal leaves the clock on hold (between games, before the opening's
        press, after the hold button): nobody's time runs, as far as the journal knows."""
        return self.known and self.running is None

    def fold(self, kind: str, fields: Mapping[str, Any]) -> None:
        """Follow one journal entry as the clock followed the press or command behind it."""
        if kind in HOLDING:
            self.running, self.held, self.known = None, None, True
        elif kind == "illegal_move":
            # held, then the mover's time started again for the correction (TTB-4.5)
            self.running, self.held, self.known = int(fields["player"]), None, True
        elif kind == "clock":
            self._press(fields)

    def _press(self, fields: Mapping[str, Any]) -> None:
        """A player's button starts the opponent's time (on hold too, and pressed out of turn
        it leaves the opponent's running); the hold button holds a running turn and resumes a
        held one. A press the clock counted but nobody saw leaves it unknown."""
        player = fields.get("player")
        if fields.get("event") == "hold":  # unknown stays unknown: held or resumed, who knows
            if self.running is not None:
                self.running, self.held = None, self.running
            elif self.held is not None:
                self.running, self.held = self.held, None
        elif player in (0, 1) and fields.get("side") is not None:
            self.running, self.held, self.known = 1 - int(player), None, True
        else:
            self.running, self.held, self.known = None, None, False


__all__ = ["ClockRun"]
