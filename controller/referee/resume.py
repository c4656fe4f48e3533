"""Rebuild the referee from its journal, so a restarted table continues where it was.

The referee's match state is the fold of its journal entries (``Referee._fold``), so a new
referee that folds the same entries is in the same state. What the journal shows was due but
not yet written (a crash between two entries of one decision, such as a game's end after its
last move) is decided again and returned as commands, together with the lights and the clock
times the table must show again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from controller.referee.api import Command
from controller.referee.config import RefereeConfig
from controller.referee.machine import Referee
from engine.errors import HakemError, RecordFormatError


def config_from_journal(entries: Sequence[Mapping[str, Any]]) -> RefereeConfig:
    """The table's settings as journalled in the first entry (``match_start``)."""
    if not entries or entries[0].get("type") != "match_start":
        first = entries[0].get("type") if entries else None
        raise RecordFormatError(f"a referee journal starts with match_start, not {first!r}")
    fields = {k: v for k, v in entries[0].items() if k not in ("seq", "time", "type")}
    return RefereeConfig.from_json(fields)


def resume(
    entries: Sequence[Mapping[str, Any]],
    config: RefereeConfig | None = None,
    *,
    restore_clock: bool = True,
) -> tuple[Referee, list[Command]]:
    """A referee in the state the journal leaves it, and the commands to carry out now
    (journal entries first, as always). ``config`` overrides the journalled settings (the
    players, length and rules must agree with the journal for the entries to fold);
    ``restore_clock`` as in :meth:`Referee.restore`."""
    config = config or config_from_journal(entries)
    referee = Referee(config)
    try:
        commands = referee.restore([dict(e) for e in entries], restore_clock=restore_clock)
    except (HakemError, KeyError, TypeError, ValueError) as exc:
        raise RecordFormatError(f"the journal cannot be replayed: {exc}") from None
    return referee, commands


__all__ = ["config_from_journal", "resume"]
