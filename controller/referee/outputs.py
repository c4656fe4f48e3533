"""What a referee hands its table for one event, shared by the backgammon and Mangala referees:
journal entries (each folded into the referee's state as it is made, so the state is always
the fold of the journal), clock and other commands, live-log lines and signal (LED) changes."""

from __future__ import annotations

from typing import Any

from controller.referee.api import Command, JournalEntry, Say, SetSignal, Signal


class Outputs:
    """The output buffer of one event; a referee fills ``_out`` and ``_signals`` and folds."""

    _out: list[Command]
    _signals: set[str]

    def _fold(self, kind: str, f: dict[str, Any]) -> None:
        """Change the state as the journal entry says; each referee gives its own fold."""
        raise NotImplementedError

    def _emit(self, entry_type: str, /, **fields: Any) -> None:
        """Journal one decision and fold it into the state."""
        self._out.append(JournalEntry(entry_type, fields))
        self._fold(entry_type, fields)

    def _do(self, command: Command) -> None:
        """Hand the table a command to carry out (clock, buzzer, snapshot)."""
        self._out.append(command)

    def _say(self, text: str) -> None:
        """Add a line to the live log the players and the director read."""
        self._out.append(Say(text))

    def _signal(self, signal: Signal, on: bool) -> None:
        """Turn a signal on or off, once: a change only."""
        if on == (signal in self._signals):
            return
        if on:
            self._signals.add(signal)
        else:
            self._signals.discard(signal)
        self._out.append(SetSignal(signal, on))


__all__ = ["Outputs"]
