"""A scripted table for the referee's behaviour tests: players throw, move and press the clock,
and the camera's still frames are synthesised (noise-free unless asked) from the board."""

from __future__ import annotations

import random
from typing import Any

from controller.referee.api import (
    ClockHoldPressed,
    ClockPressed,
    Command,
    CubeSeen,
    DieSeen,
    DirectorAction,
    Event,
    FlagFell,
    FrameSeen,
    JournalEntry,
    MotionSeen,
)
from controller.referee.config import RefereeConfig
from controller.referee.machine import Referee
from engine.backgammon.moves import legal_plays
from engine.backgammon.position import Position
from tests.controller.referee.tablesim import NoisyView


class Table:
    """Drive a :class:`Referee` the way a table would."""

    def __init__(self, config: RefereeConfig | None = None, seed: int = 0) -> None:
        self.config = config or RefereeConfig(players=("Ayse", "Mehmet"), length=5)
        self.referee = Referee(self.config)
        self.rng = random.Random(seed)
        self.t = 0
        self.board0 = Position.initial()  # the checkers as they lie, player 0's view
        self.dice: tuple[DieSeen, ...] = ()
        self.cube: CubeSeen | None = CubeSeen(64, "centre", 0.95)
        self.occluded = False
        self.log: list[Command] = []
        self.events: list[Event] = []
        self.produced: list[int] = []  # for each journal entry, the index of its event
        self.times = [300_000, 300_000]

    # --- low level ------------------------------------------------------------------------------

    def send(self, event: Event) -> list[Command]:
        out = self.referee.handle(event)
        self.log.extend(out)
        self.produced.extend([len(self.events)] * len(self.entries(out)))
        self.events.append(event)
        return out

    def frames(self, n: int = 3) -> list[Command]:
        out: list[Command] = []
        for _ in range(n):
            self.t += 150
            counts = self.config.layout.counts(self.board0)
            view = NoisyView(counts.slots, counts.bar, self.rng, misread=0.0,
                             occlude=self.occluded)
            out += self.send(FrameSeen(self.t, view, self.dice, self.cube))
        return out

    def motion(self) -> list[Command]:
        self.t += 300
        return self.send(MotionSeen(self.t))

    def die(self, pips: int, player: int, **kw: Any) -> DieSeen:
        half = self.config.right_half(player)
        if kw.get("wrong_half"):
            half = "left" if half == "right" else "right"
        return DieSeen(pips, half,  # type: ignore[arg-type]
                       bool(kw.get("flat", True)), bool(kw.get("on_checker", False)), 0.95)

    # --- what players do ------------------------------------------------------------------------

    def opening(self, d0: int, d1: int) -> list[Command]:
        """Each player throws one die (player 0's die first)."""
        out = self.motion()
        self.dice = (self.die(d0, 0), self.die(d1, 1))
        return out + self.frames()

    def throw(self, player: int, a: int, b: int, **bad: Any) -> list[Command]:
        out = self.motion()
        self.dice = (self.die(a, player, **bad), self.die(b, player))
        return out + self.frames()

    def press(self, player: int, frames: int = 3) -> list[Command]:
        self.t += 200
        self.times[player] -= 2_000
        side = self.config.side_of(player)
        left = self.config.clock_sides.index("left")
        out = self.send(ClockPressed(self.t, side, (self.times[left], self.times[1 - left])))
        return out + self.frames(frames)

    def hold(self) -> list[Command]:
        self.t += 200
        left = self.config.clock_sides.index("left")
        return self.send(ClockHoldPressed(self.t, (self.times[left], self.times[1 - left])))

    def place(self, result: Position, player: int) -> list[Command]:
        """The mover leaves ``result`` (their own view) on the board."""
        out = self.motion()
        self.board0 = result if player == 0 else result.swap()
        return out + self.frames()

    def play_first_legal(self, index: int = 0) -> list[Command]:
        """The player on roll plays a legal move and presses the clock."""
        m = self.referee.match
        assert m.on_roll is not None and m.dice is not None
        plays = legal_plays(m.position, m.dice)
        result = plays[index % len(plays)].result if plays else m.position
        return self.place(result, m.on_roll) + self.press(m.on_roll)

    def offer(self, player: int) -> list[Command]:
        out = self.motion()
        self.cube = CubeSeen(self.referee.match.cube.value * 2, "offered", 0.95)
        return out + self.frames() + self.press(player)

    def take(self, player: int) -> list[Command]:
        out = self.motion()
        colour = self.config.colour_of(player)
        self.cube = CubeSeen(self.referee.match.cube.value * 2, f"{colour}-side", 0.95)  # type: ignore[arg-type]
        return out + self.frames() + self.press(player)

    def drop(self) -> list[Command]:
        out = self.motion()
        self.cube = CubeSeen(64, "centre", 0.95)
        return out + self.frames() + self.hold()

    def flag(self, player: int) -> list[Command]:
        self.t += 100
        return self.send(FlagFell(self.t, self.config.side_of(player)))

    def director(self, action: str, **args: Any) -> list[Command]:
        self.t += 100
        return self.send(DirectorAction(self.t, action, args, director="td"))

    # --- reading the output -----------------------------------------------------------------------

    @staticmethod
    def entries(out: list[Command], kind: str | None = None) -> list[dict[str, Any]]:
        return [
            {"type": c.type, **c.fields}
            for c in out
            if isinstance(c, JournalEntry) and (kind is None or c.type == kind)
        ]

    @staticmethod
    def types(out: list[Command]) -> list[str]:
        return [c.type for c in out if isinstance(c, JournalEntry)]

    def journal(self) -> list[dict[str, Any]]:
        return self.entries(self.log)
