"""What the simulated players will do: a real ``.mat`` match as a list of acts per game, checked
by the engine, with the planted faults (illegal moves, invalid throws) chosen by seed.

Player 0 is the record's first-named player; they sit at the bottom of the picture, on the
clock's left side. Positions are kept from player 0's view (the layout's first player).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from engine.backgammon.mat_reader import ActionKind, MatMatch, parse_mat_bytes
from engine.backgammon.mat_replay import replay
from engine.backgammon.mat_replayed import Replay, Turn
from engine.backgammon.match import EndHow
from engine.backgammon.moves import closed_out, result_boards
from engine.backgammon.position import Position
from engine.errors import InvalidInputError, PositionError, RecordFormatError

ActKind = Literal["move", "double", "take", "drop", "resign"]
InvalidKind = Literal["cocked", "wrong-half", "on-checker"]
INVALID_KINDS: tuple[InvalidKind, ...] = ("cocked", "wrong-half", "on-checker")
BUNDLED = Path(__file__).with_name("data") / "match6711953.txt"


@dataclass(frozen=True)
class Act:
    """One thing a player does on their turn.

    ``move``: throw ``dice`` and play from ``before`` to ``after`` (player 0's view), the move
    text as the engine writes it. ``double``/``take``/``drop``: the cube procedure (BG-CUBE-3)
    with the cube's value after the act (``cube``). ``resign``: the player resigns the game
    (``resigned``: 1 single, 2 gammon, 3 backgammon), which the opponent accepts; the table
    cannot see it, so the director enters it (``hakem director resign``).
    """

    kind: ActKind
    player: int
    before: Position
    after: Position
    dice: tuple[int, int] = (0, 0)
    move: str = ""
    cube: int = 1
    illegal: Position | None = None  # a planted illegal result (player 0's view)
    invalid: InvalidKind | None = None  # a planted invalid throw before the valid one
    resigned: int = 0  # the resignation's kind (``resign``)


@dataclass(frozen=True)
class GameScript:
    """One game: the opening dice per player, the acts, how it ended."""

    number: int
    score: tuple[int, int]
    crawford: bool
    opening: tuple[int, int]  # (player 0's die, player 1's die)
    opening_invalid: tuple[InvalidKind | None, InvalidKind | None]
    acts: tuple[Act, ...]
    winner: int
    points: int
    dropped: bool


@dataclass(frozen=True)
class MatchScript:
    """The whole match as the simulated players will play it."""

    record: MatMatch
    replay: Replay
    games: tuple[GameScript, ...]
    planted_illegal: int = 0
    planted_invalid: int = 0
    path: Path = field(default=BUNDLED)

    @property
    def players(self) -> tuple[str, str]:
        """The record's players; one with no name (``[Player 2 ""]``) is "Player 2"."""
        a, b = self.record.players
        return (a.strip() or "Player 1", b.strip() or "Player 2")

    @property
    def length(self) -> int:
        return self.record.length


def _view0(position: Position, player: int) -> Position:
    return position if player == 0 else position.swap()


def load_match(path: str | Path = BUNDLED) -> tuple[MatMatch, Replay]:
    """Read and replay a ``.mat`` match; refuse one the demo cannot play through."""
    try:
        record = parse_mat_bytes(Path(path).read_bytes())
    except RecordFormatError as exc:  # its line named in the match file (not the demo's)
        raise RecordFormatError(f"{path}: {exc}") from None
    result = replay(record)
    if not result.legal:
        problem = result.problem
        assert problem is not None
        raise RecordFormatError(
            f"{path}: game {problem.game} move {problem.move} is not legal ({problem.rule}: "
            f"{problem.reason})")
    for mgame in record.games:  # money play only (BG-SCORE-4); named before the session
        beaver = next((a for a in mgame.actions if a.kind is ActionKind.BEAVER), None)
        if beaver is not None:
            raise InvalidInputError(
                f"{path}: game {mgame.number} holds a beaver ({beaver.text!r}, line"
                f" {beaver.line}), which the referee does not play; the demo plays matches to"
                " N points")
    if record.length < 1:
        raise InvalidInputError(f"{path}: a money session, not a match to N points")
    if not result.complete:
        # the demo plays a match to its end; the record stops before it, or its results (as
        # the rules count them: a "Wins" beyond the game's worth counts the worth) fall short
        a, b = result.final_score
        raise InvalidInputError(
            f"{path}: the record ends at {a}-{b}, before the {record.length}-point match is "
            "over; the demo plays a whole match (hakem mat check shows the record)")
    for game in result.games:
        if game.result is None:
            raise InvalidInputError(f"{path}: game {game.number} is unfinished")
        if not game.turns:
            raise InvalidInputError(f"{path}: game {game.number} has no moves")
        first = game.turns[0].dice
        if first[0] == first[1]:
            raise InvalidInputError(
                f"{path}: game {game.number} opens with a double {first[0]}{first[1]}, which "
                "the modern opening roll cannot give (BG-OPEN-1)")
    return record, result


def build_script(path: str | Path = BUNDLED, *, illegal: int = 0, invalid_throws: int = 0,
                 seed: int = 0, invalid_kinds: tuple[InvalidKind, ...] = INVALID_KINDS
                 ) -> MatchScript:
    """The match as acts, with ``illegal`` illegal moves and ``invalid_throws`` invalid throws
    (of the ``invalid_kinds``) planted at places chosen by ``seed``."""
    if not invalid_kinds or any(k not in INVALID_KINDS for k in invalid_kinds):
        raise InvalidInputError(f"invalid throw kinds must be some of {INVALID_KINDS}: "
                                f"{invalid_kinds}")
    if illegal < 0 or invalid_throws < 0:
        raise InvalidInputError(f"planted faults must be 0 or more: {illegal}, {invalid_throws}")
    record, result = load_match(path)
    rng = random.Random(seed)
    games: list[GameScript] = []
    for rgame, mgame in zip(result.games, record.games, strict=False):
        turns = list(rgame.turns)
        acts: list[Act] = []
        cube = 1
        position0 = Position.initial()
        k = 0
        for action in mgame.actions:
            if action.kind is ActionKind.ROLL:
                if k >= len(turns):
                    continue  # rolled, then resigned instead of moving: the resignation counts
                turn: Turn = turns[k]
                k += 1
                before = _view0(turn.before, turn.player)
                after = _after0(turn)
                acts.append(Act("move", turn.player, before, after, turn.dice, turn.play_text,
                                cube))
                position0 = after
            elif action.kind is ActionKind.DOUBLE:
                cube *= 2
                acts.append(Act("double", action.player, position0, position0, cube=cube))
            elif action.kind is ActionKind.TAKE:
                acts.append(Act("take", action.player, position0, position0, cube=cube))
            elif action.kind is ActionKind.DROP:
                acts.append(Act("drop", action.player, position0, position0, cube=cube // 2))
        res = rgame.result
        assert res is not None
        if res.how is EndHow.RESIGNED:
            acts.append(Act("resign", 1 - res.winner, position0, position0, cube=cube,
                            resigned=int(res.kind)))
        first = turns[0]
        hi, lo = max(first.dice), min(first.dice)
        opening = (hi, lo) if first.player == 0 else (lo, hi)
        games.append(GameScript(rgame.number, rgame.start_score, rgame.crawford, opening,
                                (None, None), tuple(acts), res.winner, res.points,
                                res.how is EndHow.DROPPED))
    games = _plant(games, illegal, invalid_throws, rng, invalid_kinds)
    return MatchScript(record, result, tuple(games), illegal, invalid_throws, Path(path))


def _after0(turn: Turn) -> Position:
    """The position after ``turn`` from player 0's view (a turn's result is the mover's view)."""
    return turn.result if turn.player == 0 else turn.result.swap()


def _plant(games: list[GameScript], illegal: int, invalid: int, rng: random.Random,
           kinds: tuple[InvalidKind, ...]) -> list[GameScript]:
    moves = [(g, a) for g, game in enumerate(games) for a, act in enumerate(game.acts)
             if act.kind == "move"]
    candidates = [(g, a) for g, a in moves
                  if a > 0 and illegal_result(games[g].acts[a], rng) is not None]
    if illegal > len(candidates):
        raise InvalidInputError(
            f"--illegal {illegal}: this match has room for at most {len(candidates)} illegal moves")
    # a game's first move is played with the opening dice: no throw of two dice to spoil
    throws = [(g, a) for g, a in moves if a > 0 and _plantable(games[g].acts[a], kinds)]
    if invalid > len(throws):
        raise InvalidInputError(
            f"--invalid-throws {invalid}: this match has room for at most {len(throws)} "
            f"invalid throws of {', '.join(kinds)}")
    chosen_illegal = set(rng.sample(candidates, illegal))
    chosen_invalid = set(rng.sample(throws, invalid))
    out: list[GameScript] = []
    for g, game in enumerate(games):
        acts = list(game.acts)
        for a, act in enumerate(acts):
            bad = illegal_result(act, rng) if (g, a) in chosen_illegal else None
            kind = rng.choice(_plantable(act, kinds)) if (g, a) in chosen_invalid else None
            if bad is not None or kind is not None:
                acts[a] = Act(act.kind, act.player, act.before, act.after, act.dice, act.move,
                              act.cube, bad, kind)
        out.append(GameScript(game.number, game.score, game.crawford, game.opening,
                              game.opening_invalid, tuple(acts), game.winner, game.points,
                              game.dropped))
    return out


def _plantable(act: Act, kinds: tuple[InvalidKind, ...]) -> tuple[InvalidKind, ...]:
    """The invalid throws that can be planted on ``act``: a player closed out (BG-BAR-4) who
    throws anyway into the wrong half throws where the opponent's own valid throw lands, which
    a table cannot tell apart from the opponent throwing (the closed-out player need not
    throw), so that player never plants a wrong-half throw (none at all when that is the only
    kind)."""
    mover = act.before if act.player == 0 else act.before.swap()
    if not closed_out(mover):
        return kinds
    return tuple(k for k in kinds if k != "wrong-half")


def illegal_result(act: Act, rng: random.Random) -> Position | None:
    """A result a careless player might leave (one checker a pip short or long), that no legal
    play gives; None when the move offers no such slip."""
    if act.kind != "move":
        return None
    mover_before = act.before if act.player == 0 else act.before.swap()
    legal = result_boards(mover_before, act.dice)
    if not legal:
        return None
    steps = legal.get((act.after if act.player == 0 else act.after.swap()).board)
    if not steps:
        return None
    options: list[Position] = []
    for i, (src, dst) in enumerate(steps):
        for delta in (-1, 1):
            wrong = dst + delta
            if dst == 0 or not 1 <= wrong <= 24 or wrong == src:
                continue
            new_steps = list(steps)
            new_steps[i] = (src, wrong)
            try:
                result = mover_before.apply_steps(new_steps)
            except PositionError:
                continue
            if result.board in legal or result.board[0] != (mover_before.apply_steps(
                    steps).board[0]):
                continue  # legal after all, or it changes who is hit (too subtle to render)
            options.append(result)
    if not options:
        return None
    pick = options[rng.randrange(len(options))]
    return pick if act.player == 0 else pick.swap()
