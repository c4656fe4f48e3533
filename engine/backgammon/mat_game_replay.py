"""Replaying one game of a ``.mat`` record action by action: rolls and their moves, cube
actions, beavers and resignations, each checked by the match rules."""

from __future__ import annotations

import dataclasses

from engine.backgammon.mat_game_end import replay_win, resign
from engine.backgammon.mat_play import NotAPlay, find_play
from engine.backgammon.mat_problems import Problem, do, stop
from engine.backgammon.mat_reader import ActionKind, MatAction, MatGame
from engine.backgammon.mat_replayed import Snapshot, Turn
from engine.backgammon.match import (
    Beaver,
    Double,
    Drop,
    Event,
    MatchState,
    Move,
    OpeningRoll,
    Phase,
    Roll,
    Take,
)
from engine.backgammon.moves import result_boards
from engine.backgammon.rules import Opening


def _shot(shots: list[Snapshot], game: MatGame, kind: str, player: int, state: MatchState) -> None:
    shots.append(Snapshot(game.number, kind, player, state.position_id, state.match_id))


def replay_game(
    state: MatchState,
    game: MatGame,
    turns: list[Turn],
    notes: list[Problem],
    shots: list[Snapshot],
) -> MatchState:
    """One game of the record replayed from ``state``: its turns, notes and snapshots collected."""
    actions = game.actions
    for index, action in enumerate(actions):
        if state.phase in (Phase.GAME_OVER, Phase.MATCH_OVER) and action.kind not in (
            ActionKind.WIN,
            ActionKind.LOSS,
        ):
            raise stop(game, action, "BG-MATCH-1", f"game {game.number} is already over")
        later = actions[index + 1 :]
        if action.kind is ActionKind.ROLL:
            before_turns = len(turns)
            rolled = _replay_roll(state, game, action, later, turns)
            if len(turns) > before_turns:
                turn = turns[-1]
                shots.append(
                    Snapshot(
                        game.number, "move", turn.player, turn.before.position_id, turn.match_id
                    )
                )
            state = rolled
        elif action.kind is ActionKind.DOUBLE:
            if state.on_roll is not None and action.player != state.on_roll:
                raise stop(
                    game, action, "BG-CUBE-2", "only the player whose turn it is may double"
                )
            _check_cube_value(state, game, action, 2)
            _shot(shots, game, "double", action.player, state)
            state = do(state, Double(), game, action, "BG-CUBE-2")
        elif action.kind is ActionKind.BEAVER:
            state = _replay_beaver(state, game, action, later, shots)
        elif action.kind in (ActionKind.TAKE, ActionKind.DROP):
            if state.cube.offered_by is not None and action.player == state.cube.offered_by:
                raise stop(game, action, "BG-CUBE-4", "a player cannot answer their own double")
            event: Event = Take() if action.kind is ActionKind.TAKE else Drop()
            _shot(shots, game, action.kind.value, action.player, state)
            state = do(state, event, game, action, "BG-CUBE-4")
        elif action.kind is ActionKind.WIN:
            if state.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER, Phase.OPENING):
                _shot(shots, game, "resign", 1 - action.player, state)
            state = replay_win(state, game, action, notes)
        elif (
            action.kind is ActionKind.LOSS
            and not any(a.kind is ActionKind.WIN for a in later)
            and state.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER)
        ):
            _shot(shots, game, "resign", action.player, state)
            state = resign(state, game, action, action.player)
    return state


def _check_cube_value(state: MatchState, game: MatGame, action: MatAction, factor: int) -> None:
    """The value a double (``factor`` 2) or a beaver (4) writes is the cube's (BG-CUBE-5)."""
    if action.value != state.cube.value * factor:
        raise stop(
            game,
            action,
            "BG-CUBE-5",
            f"the cube goes from {state.cube.value} to {state.cube.value * factor}, not to"
            f" {action.value}",
        )


def _replay_beaver(
    state: MatchState,
    game: MatGame,
    action: MatAction,
    later: tuple[MatAction, ...],
    shots: list[Snapshot],
) -> MatchState:
    """``Beavers => N``: the doubled player takes and redoubles at once (BG-SCORE-4). GNU
    Backgammon writes no ``Takes`` for the doubler's acceptance, so unless the doubler's
    ``Takes`` or ``Drops`` follows, the beaver counts as taken, as GNU Backgammon reads it."""
    doubler = state.cube.offered_by
    if doubler is None or action.player == doubler:
        raise stop(game, action, "BG-SCORE-4", "only a player just doubled may beaver")
    _check_cube_value(state, game, action, 4)
    _shot(shots, game, "double", action.player, state)  # GNU Backgammon logs it so
    state = do(state, Beaver(), game, action, "BG-SCORE-4")
    answer = later[0].kind if later else None
    if answer in (ActionKind.TAKE, ActionKind.DROP, ActionKind.BEAVER):
        return state  # answered in the record (a second beaver is refused then)
    _shot(shots, game, "take", doubler, state)
    return do(state, Take(), game, action, "BG-SCORE-4")


def _replay_roll(
    state: MatchState,
    game: MatGame,
    action: MatAction,
    later: tuple[MatAction, ...],
    turns: list[Turn],
) -> MatchState:
    assert action.dice is not None
    dice = action.dice
    if state.phase is Phase.OPENING:
        if state.rules.opening is Opening.MODERN:
            if dice[0] == dice[1]:
                raise stop(
                    game,
                    action,
                    "BG-OPEN-1",
                    f"a game never opens with a double ({dice[0]}{dice[1]}): equal opening dice"
                    " are thrown again",
                )
            high, low = max(dice), min(dice)
            opening = (high, low) if action.player == 0 else (low, high)
            state = do(state, OpeningRoll(opening), game, action, "BG-OPEN-1")
            state = dataclasses.replace(state, dice=dice)
        else:
            opening = (6, 1) if action.player == 0 else (1, 6)
            state = do(state, OpeningRoll(opening), game, action, "BG-OPEN-T")
            state = do(state, Roll(dice), game, action, "BG-OPEN-T")
    else:
        if state.on_roll != action.player:
            raise stop(
                game,
                action,
                "BG-MOVE-7",
                "a player rolled out of turn: the players take turns",
            )
        state = do(state, Roll(dice), game, action, "BG-CUBE-2")
    before = state.position
    match_id = state.match_id
    if (
        not action.moves
        and not action.cannot_move
        and _resigns_after(later)
        and result_boards(before, dice)
    ):
        return state  # rolled, then a resignation instead of the move
    found = find_play(before, dice, action.moves)
    if isinstance(found, NotAPlay):
        reason = found.reason
        if action.cannot_move and found.rule == "BG-MOVE-6":
            reason = f"'cannot move' was written, but {reason.split(' although ')[-1]}"
        raise stop(game, action, found.rule, reason)
    steps, result = found
    turns.append(
        Turn(
            game.number,
            action.number,
            action.line,
            action.player,
            dice,
            before,
            tuple(steps),
            result,
            action.text,
            match_id,
        )
    )
    return do(state, Move(result), game, action, "BG-MOVE-6")


def _resigns_after(later: tuple[MatAction, ...]) -> bool:
    """True when the roll is directly followed by a ``Wins``: a resignation came instead of the
    move. The opponent's ``Wins``: the roller resigned (the data README's "a roll and then
    Wins"); the roller's own: the opponent resigned on seeing the roll (GNU Backgammon writes
    and imports that so). ``Losses`` lines sit in either column in real files: skipped."""
    for action in later:
        if action.kind is ActionKind.LOSS:
            continue
        return action.kind is ActionKind.WIN
    return False
