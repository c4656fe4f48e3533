"""Replay a ``.mat`` record through the rules: every move checked against the legal plays, every
cube action and result against the cube, scoring and match rules.

The record's move text is matched to a legal play: the play the text describes exactly, or the
one legal play that leaves the mover's checkers where the text puts them (records often leave
out a ``*`` for a checker hit on the way). A roll with no move followed by ``Wins`` is a
resignation after the roll (by either player); a roll with no move otherwise is "no move" and
must be forced.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import NamedTuple

from engine.backgammon.judge import judge_steps
from engine.backgammon.mat_reader import ActionKind, MatAction, MatGame, MatMatch, MatMove
from engine.backgammon.match import (
    Beaver,
    Double,
    Drop,
    EndHow,
    Event,
    GameResult,
    MatchState,
    Move,
    NextGame,
    OpeningRoll,
    Phase,
    Resign,
    Roll,
    Take,
    apply,
    new_match,
)
from engine.backgammon.match_id import decode_match_id
from engine.backgammon.moves import result_boards
from engine.backgammon.notation import format_steps
from engine.backgammon.position import Position
from engine.backgammon.rules import Opening, Rules
from engine.backgammon.scoring import WinKind, resignation_kind
from engine.errors import HakemError, PositionError

Step = tuple[int, int]


@dataclass(frozen=True)
class Problem:
    """The first thing in a record the rules do not allow: where, what was written, which rule."""

    game: int
    move: int
    line: int
    text: str
    rule: str
    reason: str


@dataclass(frozen=True)
class Turn:
    """One replayed roll and move: the position before (mover's view), the play, the result."""

    game: int
    move: int
    line: int
    player: int
    dice: tuple[int, int]
    before: Position
    steps: tuple[Step, ...]
    result: Position
    text: str
    match_id: str

    @property
    def play_text(self) -> str:
        """The move in the usual notation, as the engine writes it."""
        return format_steps(self.before.board, self.steps)


@dataclass(frozen=True)
class Snapshot:
    """The match just before one recorded action (``move`` after its roll, ``double``,
    ``take``, ``drop``, ``resign``): the granularity of GNU Backgammon's game records."""

    game: int
    kind: str
    player: int
    position_id: str
    match_id: str


@dataclass(frozen=True)
class ReplayedGame:
    """One game of the record as replayed."""

    number: int
    start_score: tuple[int, int]
    crawford: bool
    turns: tuple[Turn, ...]
    result: GameResult | None
    snapshots: tuple[Snapshot, ...] = ()


@dataclass(frozen=True)
class Replay:
    """The outcome of replaying a record."""

    record: MatMatch
    rules: Rules
    games: tuple[ReplayedGame, ...]
    state: MatchState
    problem: Problem | None
    notes: tuple[Problem, ...] = ()
    """Record slips that do not change the replay: a "Wins N" that disagrees with the game's
    worth (the engine's count stands, as in GNU Backgammon)."""

    @property
    def legal(self) -> bool:
        """True when every move, cube action and result agrees with the rules."""
        return self.problem is None

    @property
    def final_score(self) -> tuple[int, int]:
        return self.state.score

    @property
    def complete(self) -> bool:
        """True when the record ends with the match won (or a money session's last game over)."""
        if self.state.length:
            return self.state.phase is Phase.MATCH_OVER
        return self.state.phase in (Phase.GAME_OVER, Phase.MATCH_OVER)


class _Stop(Exception):
    """Internal: the replay met a problem and stops there."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.reason)
        self.problem = problem


_RULE_RE = re.compile(r"\b((?:BG|TTB)-[A-Z0-9.]+(?:-[0-9]+)?)\b")


def _rule_of(message: str, default: str) -> str:
    found = _RULE_RE.findall(message)
    return found[-1] if found else default


def _switch(value: str | None, default: bool) -> bool:
    """An ``On``/``Off`` tag's value; ``default`` when the tag is missing."""
    if value is None:
        return default
    return value.strip().lower() not in ("off", "false", "no", "0")


def rules_for(record: MatMatch) -> Rules:
    """The rules a record was played by, from its tags: Crawford on/off, the cube limit, and
    for money sessions (length 0) Jacoby and beavers (BG-SCORE-4). GNU Backgammon writes no
    such tags (eXtreme Gammon writes ``Jacoby`` and ``Beaver``); without them Jacoby is on, as
    GNU Backgammon's import assumes (but see :func:`replay`), and beavers are allowed (a
    record shows one only where it was played)."""
    if record.length == 0:
        base = Rules.money(
            jacoby=_switch(record.tag("Jacoby"), True),
            beavers=_switch(record.tag("Beaver"), True),
        )
    else:
        base = Rules.tournament()
    crawford = _switch(record.tag("Crawford"), True)
    limit_text = (record.tag("CubeLimit") or "").strip()
    limit = int(limit_text) if limit_text.isdigit() else 0
    if limit & (limit - 1):
        limit = 0
    return dataclasses.replace(base, crawford=crawford and record.length > 0, cube_limit=limit)


def _mine(board: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(c if c > 0 else 0 for c in board)


def _judge_reason(before: Position, written: list[Step], dice: tuple[int, int]) -> tuple[str, str]:
    """The rule and a sentence for an illegal written move, from the engine's judge."""
    verdict = judge_steps(before, written, dice)
    if verdict.legal:  # the judge found the steps legal although no candidate matched
        return "BG-MOVE-6", f"{format_steps(before.board, written)} is not a legal play"
    return verdict.rule or "BG-MOVE-6", verdict.reason or "not a legal play"


class FoundPlay(NamedTuple):
    """The legal play a record's move text stands for."""

    steps: tuple[Step, ...]
    result: Position


class NotAPlay(NamedTuple):
    """Move text that is no legal play: the rule it breaks and why."""

    rule: str
    reason: str


def find_play(
    position: Position, dice: tuple[int, int], moves: tuple[MatMove, ...]
) -> FoundPlay | NotAPlay:
    """The legal play a record's move text describes, or the rule and reason why there is
    none."""
    legal = result_boards(position, dice)
    written: list[Step] = [step for move in moves for step in move.steps()]
    if not written:
        if not legal:
            return FoundPlay((), position)
        return NotAPlay(
            "BG-MOVE-6",
            f"no move was made with {dice[0]}{dice[1]} although a legal play exists"
            f" (for example {format_steps(position.board, next(iter(legal.values())))})",
        )
    try:
        physical: Position | None = position.apply_steps(written)
    except PositionError:
        physical = None
    if physical is not None and physical.board in legal:
        return FoundPlay(legal[physical.board], physical)
    mine = list(_mine(position.board))
    for src, dst in written:
        mine[src] -= 1
        if dst:
            mine[dst] += 1
    target = tuple(mine)
    candidates = sorted(board for board in legal if _mine(board) == target)
    if candidates:
        if physical is not None:
            want_hits = -physical.board[0]
            candidates.sort(key=lambda b: abs(-b[0] - want_hits))
        board = candidates[0]
        return FoundPlay(legal[board], Position(board))
    if not legal:
        return NotAPlay(
            "BG-MOVE-7",
            f"{dice[0]}{dice[1]} cannot be played in this position (no legal move), but the"
            " record moves checkers",
        )
    return NotAPlay(*_judge_reason(position, written, dice))


def replay(record: MatMatch, rules: Rules | None = None) -> Replay:
    """Replay ``record`` by ``rules`` (else :func:`rules_for`); stops at the first problem,
    which the result reports. A money session whose tags say nothing of Jacoby is replayed
    without it when its running score counts a gammon with the cube not turned in full (so it
    was played without Jacoby: GNU Backgammon writes the score it played by) and the Jacoby
    count would break it (BG-MATCH-4)."""
    if rules is not None:
        return _replay(record, rules)
    chosen = rules_for(record)
    result = _replay(record, chosen)
    problem = result.problem
    if (
        chosen.jacoby
        and record.length == 0
        and record.tag("Jacoby") is None
        and problem is not None
        and problem.rule == "BG-MATCH-4"
    ):
        plain = _replay(record, dataclasses.replace(chosen, jacoby=False))
        if plain.problem is None or plain.problem.line > problem.line:
            return plain
    return result


def _replay(record: MatMatch, rules: Rules) -> Replay:
    """Replay ``record`` by ``rules``."""
    state = new_match(record.length, rules)
    games: list[ReplayedGame] = []
    notes: list[Problem] = []
    problem: Problem | None = None
    for game in record.games:
        turns: list[Turn] = []
        shots: list[Snapshot] = []
        crawford = False
        try:
            if state.phase is Phase.MATCH_OVER:
                raise _Stop(
                    Problem(
                        game.number,
                        0,
                        game.line,
                        f"Game {game.number}",
                        "BG-MATCH-1",
                        f"the match was already won {state.score[0]}-{state.score[1]} before"
                        f" game {game.number}",
                    )
                )
            if state.phase is Phase.GAME_OVER:
                state = apply(state, NextGame())
            crawford = state.crawford_game
            if game.score != state.score:
                raise _Stop(
                    Problem(
                        game.number,
                        0,
                        game.line,
                        f"Game {game.number}",
                        "BG-MATCH-4",
                        f"the record starts game {game.number} at {game.score[0]}-{game.score[1]}"
                        f" but the games before it make the score {state.score[0]}-"
                        f"{state.score[1]}",
                    )
                )
            state = _replay_game(state, game, turns, notes, shots)
        except _Stop as stop:
            problem = stop.problem
        result = (
            state.results[-1] if state.results and state.results[-1].game == game.number else None
        )
        games.append(
            ReplayedGame(game.number, game.score, crawford, tuple(turns), result, tuple(shots))
        )
        if problem is not None:
            break
    return Replay(record, rules, tuple(games), state, problem, tuple(notes))


def _stop(game: MatGame, action: MatAction, rule: str, reason: str) -> _Stop:
    return _Stop(Problem(game.number, action.number, action.line, action.text, rule, reason))


def _do(
    state: MatchState, event: Event, game: MatGame, action: MatAction, default: str
) -> MatchState:
    try:
        return apply(state, event)
    except HakemError as exc:
        rule = _rule_of(str(exc), default)
        # the report names the rule first: the engine's closing "(RULE)" would say it twice
        reason = str(exc).removesuffix(f" ({rule})")
        raise _stop(game, action, rule, reason) from exc


def _shot(shots: list[Snapshot], game: MatGame, kind: str, player: int, state: MatchState) -> None:
    shots.append(Snapshot(game.number, kind, player, state.position_id, state.match_id))


def _replay_game(
    state: MatchState,
    game: MatGame,
    turns: list[Turn],
    notes: list[Problem],
    shots: list[Snapshot],
) -> MatchState:
    actions = game.actions
    for index, action in enumerate(actions):
        if state.phase in (Phase.GAME_OVER, Phase.MATCH_OVER) and action.kind not in (
            ActionKind.WIN,
            ActionKind.LOSS,
        ):
            raise _stop(game, action, "BG-MATCH-1", f"game {game.number} is already over")
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
                raise _stop(
                    game, action, "BG-CUBE-2", "only the player whose turn it is may double"
                )
            _check_cube_value(state, game, action, 2)
            _shot(shots, game, "double", action.player, state)
            state = _do(state, Double(), game, action, "BG-CUBE-2")
        elif action.kind is ActionKind.BEAVER:
            state = _replay_beaver(state, game, action, later, shots)
        elif action.kind in (ActionKind.TAKE, ActionKind.DROP):
            if state.cube.offered_by is not None and action.player == state.cube.offered_by:
                raise _stop(game, action, "BG-CUBE-4", "a player cannot answer their own double")
            event: Event = Take() if action.kind is ActionKind.TAKE else Drop()
            _shot(shots, game, action.kind.value, action.player, state)
            state = _do(state, event, game, action, "BG-CUBE-4")
        elif action.kind is ActionKind.WIN:
            if state.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER, Phase.OPENING):
                _shot(shots, game, "resign", 1 - action.player, state)
            state = _replay_win(state, game, action, notes)
        elif (
            action.kind is ActionKind.LOSS
            and not any(a.kind is ActionKind.WIN for a in later)
            and state.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER)
        ):
            _shot(shots, game, "resign", action.player, state)
            state = _resign(state, game, action, action.player)
    return state


def _check_cube_value(state: MatchState, game: MatGame, action: MatAction, factor: int) -> None:
    """The value a double (``factor`` 2) or a beaver (4) writes is the cube's (BG-CUBE-5)."""
    if action.value != state.cube.value * factor:
        raise _stop(
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
        raise _stop(game, action, "BG-SCORE-4", "only a player just doubled may beaver")
    _check_cube_value(state, game, action, 4)
    _shot(shots, game, "double", action.player, state)  # GNU Backgammon logs it so
    state = _do(state, Beaver(), game, action, "BG-SCORE-4")
    answer = later[0].kind if later else None
    if answer in (ActionKind.TAKE, ActionKind.DROP, ActionKind.BEAVER):
        return state  # answered in the record (a second beaver is refused then)
    _shot(shots, game, "take", doubler, state)
    return _do(state, Take(), game, action, "BG-SCORE-4")


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
                raise _stop(
                    game,
                    action,
                    "BG-OPEN-1",
                    f"a game never opens with a double ({dice[0]}{dice[1]}): equal opening dice"
                    " are thrown again",
                )
            high, low = max(dice), min(dice)
            opening = (high, low) if action.player == 0 else (low, high)
            state = _do(state, OpeningRoll(opening), game, action, "BG-OPEN-1")
            state = dataclasses.replace(state, dice=dice)
        else:
            opening = (6, 1) if action.player == 0 else (1, 6)
            state = _do(state, OpeningRoll(opening), game, action, "BG-OPEN-T")
            state = _do(state, Roll(dice), game, action, "BG-OPEN-T")
    else:
        if state.on_roll != action.player:
            raise _stop(
                game,
                action,
                "BG-MOVE-7",
                "a player rolled out of turn: the players take turns",
            )
        state = _do(state, Roll(dice), game, action, "BG-CUBE-2")
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
        raise _stop(game, action, found.rule, reason)
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
    return _do(state, Move(result), game, action, "BG-MOVE-6")


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


def _resign(state: MatchState, game: MatGame, action: MatAction, loser: int) -> MatchState:
    kind = resignation_kind(action.value, state.cube.value)
    return _do(state, Resign(loser, kind), game, action, "BG-SCORE-5")


def _capped(state: MatchState, winner: int, written: int, worth: int) -> bool:
    """True when "Wins N" is the game's worth cut to what the winner needed for the match."""
    if not state.length:
        return False
    before = state.score[winner] - worth
    return written == state.length - before and worth >= written


def _jacoby_single(state: MatchState, result: GameResult) -> bool:
    """True when the Jacoby rule counted a gammon or backgammon single (BG-SCORE-4)."""
    return (
        not state.length
        and state.rules.jacoby
        and result.kind is not WinKind.SINGLE
        and result.points == result.cube_value
    )


def _replay_win(
    state: MatchState, game: MatGame, action: MatAction, notes: list[Problem]
) -> MatchState:
    if state.phase is Phase.OPENING:
        raise _stop(game, action, "BG-OPEN-1", "a game cannot end before its opening roll")
    if state.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER):
        state = _resign(state, game, action, 1 - action.player)
    last = state.results[-1]
    if last.winner != action.player:
        raise _stop(
            game,
            action,
            "BG-SCORE-1",
            f"the record gives game {game.number} to the player who lost it",
        )
    if last.points != action.value and not _capped(state, last.winner, action.value, last.points):
        rule = {1: "BG-SCORE-1", 2: "BG-SCORE-2", 3: "BG-SCORE-3"}[int(last.kind)]
        what = {
            EndHow.PLAYED: last.kind.word,
            EndHow.DROPPED: "a dropped double",
            EndHow.RESIGNED: f"a resigned {last.kind.word}",
        }[last.how]
        reason = f"{what} with the cube at {last.cube_value} is worth {last.points}"
        if _jacoby_single(state, last):
            rule = "BG-SCORE-4"
            won = f"a {what}" if last.how is EndHow.PLAYED else what
            reason = (
                f"under the Jacoby rule (on in a money session unless the record says off) {won}"
                f" with the cube not turned counts single: {last.points}"
            )
        notes.append(
            Problem(
                game.number,
                action.number,
                action.line,
                action.text,
                rule,
                f"the record says {action.value} point(s), but {reason}; the rules' count stands",
            )
        )
    return state


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
    "FoundPlay",
    "NotAPlay",
    "Problem",
    "Replay",
    "ReplayedGame",
    "Snapshot",
    "Turn",
    "find_play",
    "replay",
    "replay_events",
    "rules_for",
]
