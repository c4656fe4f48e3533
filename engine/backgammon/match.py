"""Match state: score, game number, Crawford, cube, who is on roll, game results.

Pure: :func:`apply` takes a state and one event and returns the new state, or raises
:class:`RuleViolationError` citing the rule when the event is not allowed now. Players are 0 and
1 (0 is the first-named player of a ``.mat`` record, and GNU Backgammon's player 0). The
position is always seen from the player on roll (before the opening roll: from player 0).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum

from engine.backgammon.cube import Cube, new_cube
from engine.backgammon.dice import check_dice
from engine.backgammon.judge import judge
from engine.backgammon.match_id import GameState, MatchIdState, encode_match_id
from engine.backgammon.moves import result_boards
from engine.backgammon.position import Position
from engine.backgammon.rules import Opening, Rules
from engine.backgammon.scoring import WinKind, game_points, win_kind_of_board
from engine.errors import InvalidInputError, RuleViolationError


class Phase(StrEnum):
    """Where a game stands."""

    OPENING = "opening"
    """Waiting for the opening roll (BG-OPEN-1, BG-OPEN-T)."""
    DECIDE = "decide"
    """The player on roll may double or roll (BG-CUBE-2)."""
    MOVE = "move"
    """The dice are rolled; the player on roll moves."""
    DOUBLED = "doubled"
    """A double waits for take or drop (BG-CUBE-4)."""
    GAME_OVER = "game-over"
    MATCH_OVER = "match-over"


class EndHow(StrEnum):
    """How a game ended."""

    PLAYED = "played"
    DROPPED = "dropped"
    RESIGNED = "resigned"


@dataclass(frozen=True)
class GameResult:
    """The end of one game: who won, how many points, and why."""

    game: int
    winner: int
    points: int
    kind: WinKind
    how: EndHow
    cube_value: int


def result_words(points: int, kind_word: str, how: str, cube_value: int, loser: str) -> str:
    """A game's points and why, as the live log, ``hakem mat`` and the hub say them: "2 points
    (lasse dropped the double, cube 2)", "4 points (a gammon, cube 2)", "1 point"."""
    played = "" if kind_word == "single game" else f"a {kind_word}"
    why = {EndHow.PLAYED.value: played,
           EndHow.DROPPED.value: f"{loser} dropped the double",
           EndHow.RESIGNED.value: f"{loser} resigned a {kind_word}"}.get(how, how)
    parts = [part for part in (why, f"cube {cube_value}" if cube_value > 1 else "") if part]
    said = f"{points} point" if points == 1 else f"{points} points"
    return f"{said} ({', '.join(parts)})" if parts else said


# --- events ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class OpeningRoll:
    """Each player throws one die: ``dice`` is (player 0's die, player 1's die)."""

    dice: tuple[int, int]


@dataclass(frozen=True)
class Roll:
    """The player on roll throws both dice (order as thrown)."""

    dice: tuple[int, int]


@dataclass(frozen=True)
class Move:
    """The player on roll's move, given as the resulting position (mover's view, not swapped).
    An unchanged position is "no move" (BG-MOVE-7)."""

    result: Position


@dataclass(frozen=True)
class Double:
    """The player on roll turns the cube before rolling (BG-CUBE-2)."""


@dataclass(frozen=True)
class Take:
    """The doubled player takes (BG-CUBE-4)."""


@dataclass(frozen=True)
class Drop:
    """The doubled player drops: the game ends (BG-CUBE-4)."""


@dataclass(frozen=True)
class Beaver:
    """The doubled player takes and at once redoubles, keeping the cube (``002`` option 2)."""


@dataclass(frozen=True)
class Resign:
    """``player`` resigns a single game, gammon or backgammon and the opponent accepts."""

    player: int
    kind: WinKind = WinKind.SINGLE


@dataclass(frozen=True)
class CorrectCube:
    """The cube is found with a wrong value or place and is put right (BG-CUBE-5, TTB annex
    6); in the Crawford game a double noticed before the next game is void, so the cube goes
    back to 1 and off the board (BG-MATCH-2, TTB annex 5). ``owner`` None is centred. Until the
    next game starts; after a match game ends it rescores that game (``004`` annexes 5, 6)."""

    value: int
    owner: int | None = None


@dataclass(frozen=True)
class NextGame:
    """Start the next game after a game ended (BG-MATCH-4: the score is written first)."""


Event = OpeningRoll | Roll | Move | Double | Take | Drop | Beaver | Resign | CorrectCube | NextGame


class IllegalMoveError(RuleViolationError):
    """A move that is not one of the legal plays for the position and dice."""

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


# --- state ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchState:
    """Everything the referee knows about a match between two events."""

    rules: Rules
    length: int
    score: tuple[int, int] = (0, 0)
    game: int = 1
    crawford_game: bool = False
    post_crawford: bool = False
    cube: Cube = dataclasses.field(default_factory=Cube)
    position: Position = dataclasses.field(default_factory=Position.initial)
    on_roll: int | None = None
    phase: Phase = Phase.OPENING
    dice: tuple[int, int] | None = None
    rolls: tuple[int, int] = (0, 0)
    moves_made: int = 0
    results: tuple[GameResult, ...] = ()
    resigned: int = 0

    @property
    def to_act(self) -> int | None:
        """The player who must act now: the player on roll, or the doubled player while a
        double waits for an answer; None before the opening roll and after a game."""
        if self.phase is Phase.DOUBLED and self.cube.offered_by is not None:
            return 1 - self.cube.offered_by
        if self.phase in (Phase.DECIDE, Phase.MOVE):
            return self.on_roll
        return None

    @property
    def winner(self) -> int | None:
        """The match winner once the match is over (BG-MATCH-1)."""
        if self.phase is not Phase.MATCH_OVER:
            return None
        return 0 if self.score[0] >= self.length else 1

    @property
    def position_id(self) -> str:
        """The GNU Backgammon Position ID from the player on roll's view."""
        return self.position.position_id

    def match_id_state(self) -> MatchIdState:
        """This state in GNU Backgammon's Match ID terms."""
        on_roll = self.on_roll if self.on_roll is not None else 0
        turn = on_roll
        if self.phase is Phase.DOUBLED and self.cube.offered_by is not None:
            turn = 1 - self.cube.offered_by
        last = self.results[-1] if self.results and self.phase in _OVER else None
        if last is None:
            state = GameState.PLAYING if self.phase is not Phase.OPENING else GameState.NONE
        else:
            state = {
                EndHow.PLAYED: GameState.OVER,
                EndHow.DROPPED: GameState.DROPPED,
                EndHow.RESIGNED: GameState.RESIGNED,
            }[last.how]
        return MatchIdState(
            match_length=self.length,
            score=self.score,
            cube_value=self.cube.value,
            cube_owner=self.cube.owner,
            on_roll=on_roll,
            crawford=self.crawford_game,
            game_state=state,
            turn=turn,
            double_offered=self.phase is Phase.DOUBLED,
            resignation=self.resigned,
            # GNU Backgammon's form: the higher die first, whatever order they were thrown in.
            dice=(max(self.dice), min(self.dice)) if self.dice is not None else (0, 0),
            jacoby=self.rules.jacoby,
        )

    @property
    def match_id(self) -> str:
        """The GNU Backgammon Match ID of this state."""
        return encode_match_id(self.match_id_state())


_OVER = (Phase.GAME_OVER, Phase.MATCH_OVER)


def new_match(length: int, rules: Rules | None = None) -> MatchState:
    """A match to ``length`` points (0 = money play) before the first opening roll."""
    rules = rules or Rules.tournament()
    if not isinstance(length, int) or length < 0:
        raise InvalidInputError(f"match length must be 0 (money) or more points, not {length!r}")
    rules.check_match(length)
    return MatchState(rules=rules, length=length, cube=new_cube(in_play=rules.cube))


def apply(state: MatchState, event: Event) -> MatchState:
    """The state after ``event``; RuleViolationError (with the rule ID) when it is not allowed."""
    if isinstance(event, OpeningRoll):
        return _opening(state, event)
    if isinstance(event, Roll):
        return _roll(state, event)
    if isinstance(event, Move):
        return _move(state, event)
    if isinstance(event, Double):
        return _double(state)
    if isinstance(event, Beaver):
        return _beaver(state)
    if isinstance(event, Take):
        return _take(state)
    if isinstance(event, Drop):
        return _drop(state)
    if isinstance(event, Resign):
        return _resign(state, event)
    if isinstance(event, CorrectCube):
        return _correct_cube(state, event)
    if isinstance(event, NextGame):
        return _next_game(state)
    raise InvalidInputError(f"unknown match event {event!r}")


def apply_all(state: MatchState, events: list[Event]) -> MatchState:
    """Apply events in order."""
    for event in events:
        state = apply(state, event)
    return state


def may_double(state: MatchState) -> str | None:
    """Why the player on roll may not double now, or None (BG-CUBE-2, BG-MATCH-2, BG-MATCH-3)."""
    if state.phase is not Phase.DECIDE or state.on_roll is None:
        if state.phase is Phase.MOVE:
            return (
                "the dice are already rolled: a double comes before the roll (BG-CUBE-2, BG-ROLL-6)"
            )
        return f"the game is at {state.phase.value} (BG-CUBE-2)"
    if not state.rules.cube:
        return "this table plays without the doubling cube (BG-OPEN-T)"
    if state.crawford_game:
        return "the Crawford game is played without the cube (BG-MATCH-2)"
    if state.moves_made == 0:
        return "the game's first move is not played yet (BG-CUBE-2)"
    rules = state.rules
    if rules.holland and state.post_crawford and min(state.rolls) < rules.holland_rolls:
        return (
            f"after the Crawford game a double waits until each side has rolled"
            f" {rules.holland_rolls} time(s) (BG-MATCH-3 Holland rule)"
        )
    return state.cube.may_double(state.on_roll, limit=rules.cube_limit)


def _need(state: MatchState, *phases: Phase, what: str, rule: str) -> None:
    if state.phase not in phases:
        raise RuleViolationError(
            f"{what} is not possible now: the game is at {state.phase.value} ({rule})"
        )


def _opening(state: MatchState, event: OpeningRoll) -> MatchState:
    _need(state, Phase.OPENING, what="an opening roll", rule="BG-OPEN-1")
    a, b = check_dice(event.dice)
    rules = state.rules
    if a == b:
        cube = state.cube
        if (
            rules.opening is Opening.MODERN
            and rules.automatic_doubles
            and cube.in_play
            and cube.automatic < rules.automatic_doubles
        ):
            cube = cube.automatic_double()
        return dataclasses.replace(state, cube=cube)  # equal dice: both throw again (BG-OPEN-1)
    starter = 0 if a > b else 1
    if rules.opening is Opening.TURKISH:
        # BG-OPEN-T: the higher die throws both dice afresh for the first move.
        return dataclasses.replace(state, on_roll=starter, phase=Phase.DECIDE, dice=None)
    dice = (a, b) if starter == 0 else (b, a)
    rolls = (1, 0) if starter == 0 else (0, 1)
    return dataclasses.replace(state, on_roll=starter, phase=Phase.MOVE, dice=dice, rolls=rolls)


def _roll(state: MatchState, event: Roll) -> MatchState:
    _need(state, Phase.DECIDE, what="a roll", rule="BG-CUBE-2")
    dice = check_dice(event.dice)
    assert state.on_roll is not None
    rolls = list(state.rolls)
    rolls[state.on_roll] += 1
    return dataclasses.replace(state, phase=Phase.MOVE, dice=dice, rolls=(rolls[0], rolls[1]))


def legal_results(state: MatchState) -> dict[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """The legal resulting boards for the rolled dice (mover's view), ``{}`` for no move."""
    if state.phase is not Phase.MOVE or state.dice is None:
        return {}
    return result_boards(state.position, state.dice)


def _move(state: MatchState, event: Move) -> MatchState:
    _need(state, Phase.MOVE, what="a move", rule="BG-MOVE-1")
    assert state.on_roll is not None and state.dice is not None
    legal = legal_results(state)
    result = event.result
    if (legal and result.board not in legal) or (not legal and result != state.position):
        verdict = judge(state.position, result, state.dice)
        rule = verdict.rule or ("BG-MOVE-6" if legal else "BG-MOVE-7")
        reason = verdict.reason or f"not a legal play for {state.dice[0]}{state.dice[1]}"
        raise IllegalMoveError(f"{reason} ({rule})", rule)
    mover = state.on_roll
    moved = dataclasses.replace(state, moves_made=state.moves_made + 1)
    if result.my_off == 15:
        return borne_off(dataclasses.replace(moved, position=result), mover, result.swap())
    return dataclasses.replace(
        moved, position=result.swap(), on_roll=1 - mover, phase=Phase.DECIDE, dice=None
    )


def _double(state: MatchState) -> MatchState:
    reason = may_double(state)
    if reason is not None:
        raise RuleViolationError(f"no double: {reason}")
    assert state.on_roll is not None
    cube = state.cube.double(state.on_roll, limit=state.rules.cube_limit)
    return dataclasses.replace(state, cube=cube, phase=Phase.DOUBLED)


def _beaver(state: MatchState) -> MatchState:
    _need(state, Phase.DOUBLED, what="a beaver", rule="BG-SCORE-4")
    if not state.rules.beavers or state.length:
        raise RuleViolationError("beavers are not played at this table (BG-SCORE-4)")
    doubler = state.cube.offered_by
    assert doubler is not None
    return dataclasses.replace(state, cube=state.cube.beaver_double(1 - doubler))


def _take(state: MatchState) -> MatchState:
    _need(state, Phase.DOUBLED, what="a take", rule="BG-CUBE-4")
    return dataclasses.replace(state, cube=state.cube.take(), phase=Phase.DECIDE)


def _drop(state: MatchState) -> MatchState:
    _need(state, Phase.DOUBLED, what="a drop", rule="BG-CUBE-4")
    winner, points = state.cube.drop()
    cube = dataclasses.replace(state.cube, offered_by=None, beaver=False)
    return _end_game(
        dataclasses.replace(state, cube=cube), winner, points, WinKind.SINGLE, EndHow.DROPPED
    )


def _resign(state: MatchState, event: Resign) -> MatchState:
    _need(state, Phase.DECIDE, Phase.MOVE, Phase.DOUBLED, what="a resignation", rule="BG-SCORE-5")
    if event.player not in (0, 1):
        raise InvalidInputError(f"players are 0 and 1, not {event.player}")
    cube = dataclasses.replace(state.cube, offered_by=None, beaver=False)
    points = game_points(
        event.kind, cube.value, state.rules, in_match=state.length > 0, cube_turned=cube.turned
    )
    ended = dataclasses.replace(state, cube=cube, resigned=int(event.kind))
    return _end_game(ended, 1 - event.player, points, event.kind, EndHow.RESIGNED)


def _correct_cube(state: MatchState, event: CorrectCube) -> MatchState:
    _need(state, Phase.DECIDE, Phase.MOVE, *_OVER, what="a cube correction", rule="BG-CUBE-5")
    value, owner = event.value, event.owner
    if value < 1 or value & (value - 1):
        raise InvalidInputError(f"a cube value is a power of two, not {value}")
    if owner not in (None, 0, 1):
        raise InvalidInputError(f"the cube's owner is player 0, 1 or nobody, not {owner}")
    if (value == 1) != (owner is None):
        raise InvalidInputError(
            f"a cube at {value} is {'centred' if value == 1 else 'owned'} (BG-CUBE-1, BG-CUBE-4)"
        )
    if state.crawford_game and value != 1:
        raise RuleViolationError("in the Crawford game the cube stays at 1 (BG-MATCH-2)")
    if not state.cube.in_play and value != 1:
        raise RuleViolationError(
            f"the cube cannot be put right to {value}: this game is played without it")
    limit = state.rules.cube_limit
    if limit and value > limit:
        raise RuleViolationError(
            f"the cube cannot be put right to {value}: these rules stop it at {limit} (BG-CUBE-4)")
    cube = state.cube.corrected(value, owner)
    if state.phase in _OVER:
        return _rescored(state, cube)
    return dataclasses.replace(state, cube=cube)


def _rescored(state: MatchState, cube: Cube) -> MatchState:
    """The game just ended, scored again with the cube put right (TTB annexes 5, 6; matches)."""
    if state.length <= 0 or not state.results:
        raise RuleViolationError(
            "a cube correction after the game is a match ruling (TTB annexes 5, 6): in money"
            " play the game stands as settled (BG-CUBE-5)"
        )
    last = state.results[-1]
    if last.how is EndHow.DROPPED:
        points = cube.value  # the doubler wins the value before the double (BG-CUBE-4)
    else:
        points = game_points(last.kind, cube.value, state.rules, in_match=True)
    score = list(state.score)
    score[last.winner] += points - last.points
    result = dataclasses.replace(last, points=points, cube_value=cube.value)
    over = max(score) >= state.length
    return dataclasses.replace(
        state,
        cube=cube,
        score=(score[0], score[1]),
        results=(*state.results[:-1], result),
        phase=Phase.MATCH_OVER if over else Phase.GAME_OVER,
    )


def borne_off(state: MatchState, winner: int, loser_view: Position) -> MatchState:
    """The game won by ``winner``, who has borne off all 15 checkers (BG-SCORE-1), scored as
    played from the loser's board (``loser_view``: the loser's own view; gammon and
    backgammon, BG-SCORE-2/3) and the cube. Also for a game found over whose last move was
    not seen (turns played while the table could not see, TTB-6.1)."""
    if winner not in (0, 1):
        raise InvalidInputError(f"players are 0 and 1, not {winner}")
    kind = win_kind_of_board(loser_view.board)
    points = game_points(
        kind,
        state.cube.value,
        state.rules,
        in_match=state.length > 0,
        cube_turned=state.cube.turned,
        loser_on_bar=loser_view.my_bar > 0,
    )
    return _end_game(state, winner, points, kind, EndHow.PLAYED)


def _end_game(
    state: MatchState, winner: int, points: int, kind: WinKind, how: EndHow
) -> MatchState:
    score = list(state.score)
    score[winner] += points
    result = GameResult(state.game, winner, points, kind, how, state.cube.value)
    over = state.length > 0 and max(score) >= state.length
    return dataclasses.replace(
        state,
        score=(score[0], score[1]),
        results=(*state.results, result),
        phase=Phase.MATCH_OVER if over else Phase.GAME_OVER,
        dice=None,
    )


def _next_game(state: MatchState) -> MatchState:
    _need(state, Phase.GAME_OVER, what="a new game", rule="BG-MATCH-1")
    rules = state.rules
    n = state.length
    played_crawford = state.crawford_game or state.post_crawford
    crawford = rules.crawford and n > 1 and not played_crawford and max(state.score) == n - 1
    post = rules.crawford and n > 1 and played_crawford
    base = dataclasses.replace(
        state,
        game=state.game + 1,
        crawford_game=crawford,
        post_crawford=post,
        cube=new_cube(in_play=rules.cube and not crawford),
        position=Position.initial(),
        dice=None,
        rolls=(0, 0),
        moves_made=0,
        resigned=0,
    )
    if rules.opening is Opening.TURKISH:
        # BG-OPEN-T: from the second game on, the previous winner starts with a fresh roll.
        return dataclasses.replace(base, on_roll=state.results[-1].winner, phase=Phase.DECIDE)
    return dataclasses.replace(base, on_roll=None, phase=Phase.OPENING)


__all__ = [
    "Beaver",
    "CorrectCube",
    "Double",
    "Drop",
    "EndHow",
    "Event",
    "GameResult",
    "IllegalMoveError",
    "MatchState",
    "Move",
    "NextGame",
    "OpeningRoll",
    "Phase",
    "Resign",
    "Roll",
    "Take",
    "apply",
    "apply_all",
    "borne_off",
    "legal_results",
    "may_double",
    "new_match",
]
