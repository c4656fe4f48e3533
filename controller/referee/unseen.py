"""Turns the table could not see: clock presses made while the host was down (TTB-6.1).

A restarted table is sent the presses the players made meanwhile. Their turns cannot be
judged on the picture seen now, which already shows what came after them, so the referee
journals them as unseen, gives the turn to the player whose time runs, takes the position
(and the cube) the board then shows whole, and calls the director to check it. These are
the pure parts of that: which player is on roll after the presses, and the match state
before and after the position is taken.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from controller.referee.api import ClockHoldPressed, ClockPressed, CubeSeen, Side
from controller.referee.config import RefereeConfig
from engine.backgammon.match import MatchState, Phase, borne_off
from engine.backgammon.position import Position

# the phases in which unseen turns can be followed: a game under way (or its opening)
FOLLOWED = (Phase.OPENING, Phase.DECIDE, Phase.MOVE, Phase.DOUBLED)


def on_roll_after(config: RefereeConfig, presses: Sequence[ClockPressed | ClockHoldPressed],
                  running: Side | None, before: int | None) -> int | None:
    """The player on roll once the presses were made: the one whose time runs, as the clock
    says; else the opponent of the last player who pressed their side (TTB-CLOCK-2); else
    the player on roll ``before`` (only the hold button was pressed)."""
    if running is not None:
        return config.player_of_side(running)
    sides = [p.side for p in presses if isinstance(p, ClockPressed)]
    if sides:
        return 1 - config.player_of_side(sides[-1])
    return before


def after_gap(m: MatchState, player: int, turns: int) -> MatchState:
    """The match once unseen turns end with ``player`` on roll, before the position is
    taken: a throw is due (a double pending then was taken: the game went on), the position
    turned to ``player``'s view until the board's is taken."""
    position = m.position if m.on_roll in (None, player) else m.position.swap()
    cube = m.cube if m.cube.offered_by is None else m.cube.take()
    return dataclasses.replace(m, position=position, on_roll=player, phase=Phase.DECIDE,
                               dice=None, cube=cube, moves_made=m.moves_made + max(1, turns))


def cube_fields(config: RefereeConfig, m: MatchState, seen: CubeSeen | None) -> dict[str, Any]:
    """The cube as the board shows it, for the ``position_taken`` entry: its value and
    owner (None: centred), when it is in play and lies still in a place that says both (not
    offered, not off the board)."""
    if seen is None or not m.cube.in_play or seen.zone in ("offered", "off-board"):
        return {}
    value = 1 if seen.value == 64 else seen.value
    if seen.zone == "centre":
        return {"cube": value, "owner": None} if value == 1 else {}
    owner = next((p for p in (0, 1) if seen.zone == f"{config.colour_of(p)}-side"), None)
    return {} if owner is None or value < 2 else {"cube": value, "owner": owner}


def taken(m: MatchState, fields: dict[str, Any]) -> MatchState:
    """The match once the position of a ``position_taken`` entry is taken."""
    cube = m.cube
    if "cube" in fields:
        owner = fields.get("owner")
        cube = cube.corrected(int(fields["cube"]), None if owner is None else int(owner))
    position = Position.from_id(str(fields["position_id"]))
    player = int(fields["player"])
    now = dataclasses.replace(m, position=position, on_roll=player, phase=Phase.DECIDE,
                              dice=None, cube=cube)
    # the game ended meanwhile: the last checker came off unseen (BG-SCORE-1)
    if position.their_off == 15:
        return borne_off(now, 1 - player, position)
    if position.my_off == 15:
        return borne_off(now, player, position.swap())
    return now


def plausible(seen: Position, before: Position) -> bool:
    """Whether the board's position can follow ``before`` (the same player's view): no
    checker borne off comes back, and a side with more borne off has every checker left in
    its home board (a checker hidden from the camera is no checker borne off)."""
    board = seen.board
    if seen.my_off < before.my_off or seen.their_off < before.their_off:
        return False
    if seen.my_off > before.my_off and any(board[p] > 0 for p in range(7, 26)):
        return False
    return not (seen.their_off > before.their_off and any(board[p] < 0 for p in range(0, 19)))


__all__ = ["FOLLOWED", "after_gap", "cube_fields", "on_roll_after", "plausible", "taken"]
