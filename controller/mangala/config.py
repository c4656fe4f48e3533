"""A Mangala table's round settings: players, first starter, clock side and timings,
journalled in ``match_start`` so that a restart rebuilds the same referee."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.clock.messages import Side as ClockSide
from controller.mangala.recognition import Settings
from engine.errors import ConfigError, RecordFormatError
from engine.mangala.position import Side
from engine.mangala.scoring import CLOCK_SECONDS_PER_SET


@dataclass(frozen=True)
class MangalaConfig:
    """One table's round: the players (a sits at the bottom of the picture), who starts set 1
    (MG-T-2: by draw or the pairing program), which clock side is a's, the set time and how
    long to wait for a readable frame."""

    players: tuple[str, str] = ("a", "b")
    first_starter: Side = "a"
    clock_a: ClockSide = "left"
    set_ms: int = CLOCK_SECONDS_PER_SET * 1000
    cannot_read_ms: int = 8_000
    sweep_wait_ms: int = 30_000
    settings: Settings = field(default_factory=Settings)

    def __post_init__(self) -> None:
        if self.first_starter not in ("a", "b"):
            raise ConfigError(f"first_starter must be a or b, not {self.first_starter!r}")
        if self.clock_a not in ("left", "right"):
            raise ConfigError(f"clock_a must be left or right, not {self.clock_a!r}")
        if self.set_ms <= 0:
            raise ConfigError(f"set_ms must be positive, not {self.set_ms!r}")

    def to_json(self) -> dict[str, Any]:
        """The settings journalled in ``match_start`` (what a restart needs)."""
        return {
            "players": list(self.players),
            "first_starter": self.first_starter,
            "clock_a": self.clock_a,
            "set_ms": self.set_ms,
            "cannot_read_ms": self.cannot_read_ms,
            "sweep_wait_ms": self.sweep_wait_ms,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> MangalaConfig:
        """The settings from a ``match_start`` entry."""
        try:
            players = obj.get("players", ["a", "b"])
            return cls(
                players=(str(players[0]), str(players[1])),
                first_starter=obj.get("first_starter", "a"),
                clock_a=obj.get("clock_a", "left"),
                set_ms=int(obj.get("set_ms", CLOCK_SECONDS_PER_SET * 1000)),
                cannot_read_ms=int(obj.get("cannot_read_ms", 8_000)),
                sweep_wait_ms=int(obj.get("sweep_wait_ms", 30_000)),
            )
        except (TypeError, ValueError, IndexError) as exc:
            raise RecordFormatError(f"mangala match_start settings are malformed: {exc}") from None


__all__ = ["MangalaConfig"]
