"""The match events a replayed ``.mat`` record applied, in order: what a simulated table
plays back."""

from __future__ import annotations

from engine.backgammon.mat_replayed import Replay
from engine.backgammon.match import (
    Double,
    Drop,
    Event,
    Move,
    NextGame,
    OpeningRoll,
    Resign,
    Roll,
    Take,
)
from engine.backgammon.match_id import decode_match_id
from engine.backgammon.rules import Opening
from engine.backgammon.scoring import WinKind


def _throw(player: int, dice: tuple[int, int], opening: bool, turkish: bool) -> list[Event]:
    """The events of ``player`` rolling ``dice``: the game's opening roll if ``opening``."""
    if not opening:
        return [Roll(dice)]
    if turkish:
        return [OpeningRoll((6, 1) if player == 0 else (1, 6)), Roll(dice)]
    high, low = max(dice), min(dice)
    return [OpeningRoll((high, low) if player == 0 else (low, high))]


def replay_events(result: Replay) -> list[Event]:
    """The match events the replay applied, in order (opening roll, rolls, moves, cube
    actions, resignations, next games): what a simulated table plays back. Stops where the
    replay stopped."""
    events: list[Event] = []
    turkish = result.rules.opening is Opening.TURKISH
    for index, game in enumerate(result.games):
        if index:
            events.append(NextGame())
        turns = iter(game.turns)
        first = True
        for shot in game.snapshots:
            if shot.kind == "move":
                turn = next(turns)
                events += _throw(turn.player, turn.dice, first and (not turkish or index == 0),
                                 turkish)  # fmt: skip
                events.append(Move(turn.result))
                first = False
            elif shot.kind == "double":
                events.append(Double())
            elif shot.kind == "take":
                events.append(Take())
            elif shot.kind == "drop":
                events.append(Drop())
            elif shot.kind == "resign":
                seen = decode_match_id(shot.match_id)
                if seen.dice != (0, 0):  # rolled, then resigned instead of moving
                    opening = first and (not turkish or index == 0)
                    events += _throw(seen.on_roll, seen.dice, opening, turkish)
                kind = game.result.kind if game.result is not None else WinKind.SINGLE
                events.append(Resign(shot.player, kind))
    return events


__all__ = [
    "replay_events",
]
