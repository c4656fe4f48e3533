"""The director's cube correction at a backgammon table (``hakem director set-cube``, BG-CUBE-5;
BG-MATCH-2's void Crawford double): which game it is for, why it is refused, and how the
live log says it. Pure: the referee (``controller.referee.director``) journals it and folds
it (``controller.referee.state``).

The engine's ``CorrectCube`` puts the cube right until the next game starts, and after a
match game's end scores that game again. At the table a game's end is followed at once by
the next game's ``game_start`` (the clock on hold, the players setting up), so "before the
next game starts" is read as the players see it: until the first throw of the next game.
"""

from __future__ import annotations

from typing import Any

from controller.referee.api import CubeSeen
from controller.referee.config import RefereeConfig
from engine.backgammon.cube import CUBE_FACES, Cube
from engine.backgammon.match import CorrectCube, EndHow, MatchState, Phase, apply
from engine.errors import InvalidInputError, RuleViolationError

# the values a director may set: those a physical cube shows (BG-EQ-1; 1 is the centred
# cube, its face 64 up)
CUBE_VALUES = (1, *sorted(CUBE_FACES))


def correction(args: dict[str, Any]) -> CorrectCube:
    """A ``set_cube`` action's cube (``args["value"]``, ``args["owner"]`` 0, 1 or None for
    centred), checked for what the command line checks too (a journal edited by hand)."""
    value, owner = args.get("value"), args.get("owner")
    if not isinstance(value, int) or isinstance(value, bool) or value not in CUBE_VALUES:
        raise InvalidInputError(f"the cube's value is 1, 2, 4, 8, 16, 32 or 64, not {value!r}")
    if owner is not None and (owner not in (0, 1) or isinstance(owner, bool)):
        raise InvalidInputError(f"the cube's owner is 0, 1 or none (centred), not {owner!r}")
    return CorrectCube(value, owner)


def corrected(m: MatchState, ended: MatchState | None, args: dict[str, Any],
              over: bool) -> MatchState:
    """The match once the cube is put right: in the game under way, or the game that ended
    (``ended``, while the next has had no throw), then scored again. Raises why it cannot
    be: the match is over, the game it names (``args["game"]``) is not the one it can be
    for, a double waits for its answer, a dropped game's cube on the dropper's side (only
    its owner doubled it, BG-CUBE-4), or the engine's refusal (the Crawford game, a table
    without the cube, the cube limit, a money game settled); a correction that changes
    nothing is refused too, so that a journalled one always put something right."""
    fix = correction(args)
    if over:
        raise InvalidInputError("the match is over: its result stands as the table ended it")
    base = ended if ended is not None else m
    game = args.get("game")
    if game is not None and game != base.game:
        raise RuleViolationError(_not_that_game(m, ended, game))
    if ended is None and m.phase is Phase.OPENING:
        raise RuleViolationError(_not_that_game(m, None, m.game - 1 if m.game > 1 else None))
    if base.phase is Phase.DOUBLED:
        raise RuleViolationError("a double waits for its answer: the cube is put right after the"
                                 " take (BG-CUBE-4, BG-CUBE-5)")
    last = base.results[-1] if ended is not None and base.results else None
    if last is not None and last.how is EndHow.DROPPED and fix.owner == 1 - last.winner:
        # the game is scored again from the cube before the dropped double, which only its
        # owner (or either player, centred) could turn: the doubler's
        raise RuleViolationError(
            f"game {base.game} ended in player {fix.owner}'s drop: the cube before that double"
            " was not on their side, as only its owner doubles (BG-CUBE-4); the cube at"
            f" {fix.value} lies on player {last.winner}'s side")
    fixed = apply(base, fix)
    if (fixed.cube.value, fixed.cube.owner) == (base.cube.value, base.cube.owner):
        if base.crawford_game:
            raise InvalidInputError(
                f"game {base.game} is the Crawford game, played without the cube (BG-MATCH-2): a"
                " double made in it is void, and the table counts it at 1 already")
        raise InvalidInputError(f"the cube is already {cube_words(base.cube, None)}: nothing to"
                                " put right")
    return fixed


def _not_that_game(m: MatchState, ended: MatchState | None, game: object) -> str:
    """Why a correction cannot be for ``game``: it has not started, or it ended and the next
    game has had its first throw (it stands as scored), or it is no game of the match."""
    if not isinstance(game, int) or isinstance(game, bool) or game < 1:
        return ("no game has been played yet: the cube is put right during a game, or after it"
                " until the next game's first throw (BG-CUBE-5)")
    if ended is not None and game == m.game:
        return (f"game {game} has not started: its cube lies centred at 1 until its first throw;"
                f" a correction now is for game {ended.game}, which just ended")
    if game > m.game:
        return f"game {game} has not started yet"
    if game < m.game:
        return (f"game {game} stands as scored: game {game + 1} has started (its first throw),"
                " and a cube is put right only until the next game starts (BG-CUBE-5,"
                " BG-MATCH-2)")
    return f"game {game} has not started: its cube lies centred at 1 until its first throw"


def cube_words(cube: Cube, names: tuple[str, str] | None) -> str:
    """The cube as the live log says it: "at 1 in the centre", "at 4, Mehmet's" (or
    "player 1's" without names)."""
    if cube.owner is None:
        return f"at {cube.value} in the centre"
    who = names[cube.owner] if names is not None else f"player {cube.owner}"
    return f"at {cube.value}, {who}'s"


def face_advice(config: RefereeConfig, cube: Cube, seen: CubeSeen | None) -> str | None:
    """What to do with the physical cube when the camera sees it otherwise than the cube put
    right (face and place, as ``unseen.cube_fields`` reads a cube lying still): None when it
    agrees, or it is not seen (or off the board: the game is played without it)."""
    if seen is None or seen.zone in ("off-board", "offered") or not cube.in_play:
        return None
    place = "centre" if cube.owner is None else f"{config.colour_of(cube.owner)}-side"
    if seen.value == cube.face and seen.zone == place:
        return None
    return (f"The cube belongs {_where(config, place)}, showing {cube.face}: the camera sees it"
            f" {_where(config, seen.zone)}, showing {seen.value} (BG-CUBE-5)")


def _where(config: RefereeConfig, zone: str) -> str:
    """A cube's place in words: "in the centre", "on Mehmet's side"."""
    owner = next((p for p in (0, 1) if zone == f"{config.colour_of(p)}-side"), None)
    return "in the centre" if owner is None else f"on {config.players[owner]}'s side"


__all__ = ["CUBE_VALUES", "corrected", "correction", "cube_words", "face_advice"]
