"""Write Jellyfish ``.mat`` match records that GNU Backgammon, eXtreme Gammon and BGBlitz import.

The layout is the usual one: tags as ``; [Name "value"]``, ``N point match``, then per game a
``Game n`` line, the score line and numbered move lines with the first-named player on the
left. :func:`record_from_replay` rewrites a replayed record with the engine's move text
(``bar/22*``, ``6/off``, ``8/5(2)``) and the points the rules give each game.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from engine.backgammon.mat_reader import (
    ActionKind,
    MatAction,
    MatGame,
    MatMatch,
    MatMove,
    parse_move,
)
from engine.backgammon.mat_replayed import Replay
from engine.backgammon.match import (
    Beaver,
    Double,
    Drop,
    Event,
    Move,
    NextGame,
    Phase,
    Resign,
    Take,
    apply,
    new_match,
)
from engine.backgammon.moves import result_boards
from engine.backgammon.notation import format_steps
from engine.backgammon.rules import Rules
from engine.errors import RecordFormatError

LEFT_WIDTH = 28
"""Width of the first player's column after the ``NN) `` move number."""


def action_text(action: MatAction) -> str:
    """One action as written in its column."""
    kind = action.kind
    if kind is ActionKind.ROLL:
        assert action.dice is not None
        moves = " ".join(move.text for move in action.moves)
        if action.cannot_move and not moves:
            moves = "Cannot Move"
        return f"{action.dice[0]}{action.dice[1]}: {moves}".rstrip()
    if kind is ActionKind.DOUBLE:
        return f"Doubles => {action.value}"
    if kind is ActionKind.BEAVER:
        return f"Beavers => {action.value}"
    if kind is ActionKind.TAKE:
        return "Takes"
    if kind is ActionKind.DROP:
        return "Drops"
    if kind is ActionKind.WIN:
        unit = "point" if action.value == 1 else "points"
        tail = " and the match" if action.and_match else ""
        return f"Wins {action.value} {unit}{tail}"
    # Backgammon Galaxy's spelling; other programs skip the line, the Wins line decides.
    unit = "point" if action.value == 1 else "points"
    return f"Losses {action.value} {unit}"


def _rows(game: MatGame) -> list[tuple[str, str, bool]]:
    """Pair actions into lines: a left action opens a line, a right action fills the open
    line's right column or opens a line of its own. The flag is True for a line holding only
    a game's result (``Wins``/``Losses``), written without a move number as Backgammon Galaxy
    does: GNU Backgammon then keeps a roll with no move just before it as a turn. The take of
    a beaver is left out, as GNU Backgammon writes it (it misreads one written on a line of its
    own); a dropped beaver keeps its ``Drops``."""
    return [(left, right, only) for left, right, only, _ in _laid_out(game)]


def _laid_out(game: MatGame) -> list[tuple[str, str, bool, list[int]]]:
    """:func:`_rows` with, for each line, the indexes of the actions written on it."""
    rows: list[list[str]] = []
    results: list[bool] = []
    owners: list[list[int]] = []
    open_row = False
    previous: ActionKind | None = None
    for index, action in enumerate(game.actions):
        beaver_taken = previous is ActionKind.BEAVER and action.kind is ActionKind.TAKE
        previous = action.kind
        if beaver_taken:
            continue
        text = action_text(action)
        is_result = action.kind in (ActionKind.WIN, ActionKind.LOSS)
        if action.player == 0:
            rows.append([text, ""])
            results.append(is_result)
            owners.append([index])
            open_row = True
        elif open_row:
            rows[-1][1] = text
            results[-1] = results[-1] and is_result
            owners[-1].append(index)
            open_row = False
        else:
            rows.append(["", text])
            results.append(is_result)
            owners.append([index])
    return [(left, right, only, who)
            for (left, right), only, who in zip(rows, results, owners, strict=True)]


def move_numbers(game: MatGame) -> list[int]:
    """For each of ``game``'s actions, the move number :func:`format_mat` writes on its line
    (what ``hakem mat check`` calls the move); 0 for a line holding only the result and for a
    beaver's take, which is not written."""
    numbers = [0] * len(game.actions)
    number = 0
    for _, _, only_result, owners in _laid_out(game):
        if not only_result:
            number += 1
            for index in owners:
                numbers[index] = number
    return numbers


def format_mat(record: MatMatch) -> str:
    """The text of ``record`` as a ``.mat`` file."""
    out: list[str] = []
    for name, value in record.tags:
        out.append(f'; [{name} "{value}"]')
    for comment in record.comments:
        out.append(f"; {comment}")
    if out:
        out.append("")
    out.append(f"{record.length} point match")
    out.append("")
    names = writable_names(record)
    for game in record.games:
        out.append("")
        out.append(f" Game {game.number}")
        left = f"{names[0]} : {game.score[0]}"
        out.append(f" {left.ljust(LEFT_WIDTH + 4)}{names[1]} : {game.score[1]}".rstrip())
        number = 0
        for lcol, rcol, only_result in _rows(game):
            pad = lcol.ljust(LEFT_WIDTH) if len(lcol) < LEFT_WIDTH else lcol + " "
            if only_result:
                out.append(f"     {pad}{rcol}".rstrip())
                continue
            number += 1
            line = f"{number:3d}) {pad}{rcol}"
            # A take alone on its line keeps the padding to the second column, as GNU
            # Backgammon writes it: stripped, gnubg imports a result on the next line (the
            # doubler resigned) as a second double by the doubler.
            out.append(line if (lcol, rcol) == ("Takes", "") else line.rstrip())
        out.append("")
    return "\n".join(out) + "\n"


def record_from_events(
    events: Iterable[Event],
    *,
    length: int,
    players: tuple[str, str],
    rules: Rules | None = None,
    tags: tuple[tuple[str, str], ...] = (),
) -> MatMatch:
    """The ``.mat`` record of a match given as its events (what a referee's journal holds).

    Every event is applied to the match state, so an illegal event raises the rules' error. A
    beaver is GNU Backgammon's ``Beavers => N``. Cube corrections (BG-CUBE-5) leave no trace in
    a ``.mat`` record. A money session's record gets ``Jacoby`` and ``Beaver`` tags (eXtreme
    Gammon's) unless ``tags`` has them: a reader assumes both on otherwise (BG-SCORE-4).
    """
    state = new_match(length, rules)
    if not length:
        named = {name for name, _ in tags}
        for name, on in (("Jacoby", state.rules.jacoby), ("Beaver", state.rules.beavers)):
            if name not in named:
                tags += ((name, "On" if on else "Off"),)
    games: list[MatGame] = []
    actions: list[MatAction] = []
    start = state.score

    def add(player: int, kind: ActionKind, **fields: Any) -> None:
        actions.append(MatAction(0, player, kind, "", **fields))

    def close(number: int) -> None:
        if actions:
            games.append(MatGame(number, 0, start, tuple(actions)))

    for event in events:
        before = state
        state = apply(state, event)
        if isinstance(event, NextGame):
            close(before.game)
            actions = []
            start = state.score
            continue
        if isinstance(event, Move):
            assert before.on_roll is not None and before.dice is not None
            steps = result_boards(before.position, before.dice).get(event.result.board, ())
            text = format_steps(before.position.board, steps)
            moves = tuple(parse_move(tok) for tok in text.split())
            add(
                before.on_roll,
                ActionKind.ROLL,
                dice=before.dice,
                moves=moves,
                cannot_move=not moves,
            )
        elif isinstance(event, Double):
            assert before.on_roll is not None
            add(before.on_roll, ActionKind.DOUBLE, value=before.cube.value * 2)
        elif isinstance(event, Beaver):
            assert before.cube.offered_by is not None
            add(1 - before.cube.offered_by, ActionKind.BEAVER, value=before.cube.value * 4)
        elif isinstance(event, (Take, Drop)):
            assert before.cube.offered_by is not None
            kind = ActionKind.TAKE if isinstance(event, Take) else ActionKind.DROP
            add(1 - before.cube.offered_by, kind)
        elif isinstance(event, Resign) and before.phase is Phase.MOVE:
            assert before.on_roll is not None and before.dice is not None
            add(before.on_roll, ActionKind.ROLL, dice=before.dice)  # rolled, then resigned
        if len(state.results) > len(before.results):
            result = state.results[-1]
            over = state.phase is Phase.MATCH_OVER
            add(result.winner, ActionKind.WIN, value=result.points, and_match=over)
    close(state.game)
    return MatMatch(length, players, tuple(games), tags)


def write_match_text(detail: Mapping[str, Any]) -> str:
    """A ``.mat`` text from the hub's match detail (``players``, ``length``, ``moves`` with
    ``game``, ``player``, ``dice``, ``move`` text, and ``games`` with ``game``, ``winner``,
    ``points``, ``score`` after it). Entries of ``moves`` whose ``action`` is ``double``
    (with ``cube``), ``take`` or ``drop`` are written as cube actions; the hub's detail has
    none yet, so a dropped double shows only as the winner's points. Bad fields raise
    RecordFormatError naming the entry."""
    players_raw = detail.get("players") or ["", ""]
    if not isinstance(players_raw, (list, tuple)) or len(players_raw) != 2:
        raise RecordFormatError(f"match detail: players must be two names, not {players_raw!r}")
    players = (str(players_raw[0]), str(players_raw[1]))
    length = detail.get("length") or 0
    if not isinstance(length, int) or length < 0:
        raise RecordFormatError(f"match detail: bad match length {length!r}")
    by_game: dict[int, list[MatAction]] = {}
    for index, entry in enumerate(detail.get("moves") or []):
        where = f"match detail: moves[{index}]"
        try:
            number = int(entry["game"])
            player = int(entry["player"])
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordFormatError(f"{where}: needs a game number and a player 0 or 1") from exc
        if player not in (0, 1) or number < 1:
            raise RecordFormatError(f"{where}: bad game {number} or player {player}")
        action = str(entry.get("action") or "move")
        actions = by_game.setdefault(number, [])
        if action == "double":
            cube = entry.get("cube")
            if not isinstance(cube, int) or cube < 2:
                raise RecordFormatError(f"{where}: a double needs the new cube value")
            actions.append(MatAction(0, player, ActionKind.DOUBLE, "", value=cube))
            continue
        if action in ("take", "drop"):
            kind = ActionKind.TAKE if action == "take" else ActionKind.DROP
            actions.append(MatAction(0, player, kind, ""))
            continue
        dice = entry.get("dice")
        if (
            not isinstance(dice, (list, tuple))
            or len(dice) != 2
            or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice)
        ):
            raise RecordFormatError(f"{where}: dice must be two values 1..6, not {dice!r}")
        text = str(entry.get("move") or "")
        try:
            moves = tuple(parse_move(tok) for tok in text.split())
        except RecordFormatError as exc:
            raise RecordFormatError(f"{where}: {str(exc).split(': ', 1)[1]}") from exc
        actions.append(
            MatAction(
                0, player, ActionKind.ROLL, "", dice=(dice[0], dice[1]), moves=moves,
                cannot_move=not moves,
            )
        )  # fmt: skip
    score = (0, 0)
    starts: dict[int, tuple[int, int]] = {}
    ends = {int(g["game"]): g for g in detail.get("games") or [] if "game" in g}
    for number in sorted(set(by_game) | set(ends)):
        starts[number] = score
        end = ends.get(number)
        if end is None:
            continue
        winner, points = end.get("winner"), end.get("points")
        if winner in (0, 1) and isinstance(points, int) and points > 0:
            after = end.get("score")
            if isinstance(after, (list, tuple)) and len(after) == 2:
                new_score = (int(after[0]), int(after[1]))
            else:
                new = list(score)
                new[winner] += points
                new_score = (new[0], new[1])
            over = bool(length) and new_score[winner] >= length
            by_game.setdefault(number, []).append(
                MatAction(0, winner, ActionKind.WIN, "", value=points, and_match=over)
            )
            score = new_score
    games = tuple(
        MatGame(number, 0, starts[number], tuple(by_game.get(number, [])))
        for number in sorted(starts)
    )
    return format_mat(MatMatch(length, players, games))


def writable_names(record: MatMatch) -> tuple[str, str]:
    """The players' names as written: an empty name (real files have them) becomes the
    ``Player n`` tag or "Player n", because GNU Backgammon 1.07 aborts on an empty first name."""
    names = []
    for index, name in enumerate(record.players):
        fallback = (record.tag(f"Player {index + 1}") or "").strip() or f"Player {index + 1}"
        names.append(name.strip() or fallback)
    return names[0], names[1]


def record_from_replay(replay: Replay) -> MatMatch:
    """The replayed record with the engine's move text and the rules' points per game; games
    after a problem are kept as written."""
    turns = {(t.line, t.player): t for g in replay.games for t in g.turns}
    results = {g.number: g.result for g in replay.games if g.result is not None}
    length = replay.record.length
    score = [0, 0]
    games: list[MatGame] = []
    for game in replay.record.games:
        actions: list[MatAction] = []
        result = results.get(game.number)
        replayed = replay.problem is None or game.number < replay.problem.game
        for action in game.actions:
            turn = turns.get((action.line, action.player))
            if turn is not None and action.kind is ActionKind.ROLL:
                text = turn.play_text
                moves: tuple[MatMove, ...] = tuple(parse_move(tok) for tok in text.split())
                action = dataclasses.replace(action, moves=moves, cannot_move=not moves)
            elif action.kind is ActionKind.WIN and result is not None and replayed:
                after = score[result.winner] + result.points
                action = dataclasses.replace(
                    action,
                    player=result.winner,
                    value=result.points,
                    and_match=bool(length) and after >= length,
                )
            actions.append(action)
        start = (score[0], score[1]) if replayed else game.score
        games.append(dataclasses.replace(game, score=start, actions=tuple(actions)))
        if result is not None and replayed:
            score[result.winner] += result.points
    return dataclasses.replace(replay.record, games=tuple(games))


__all__ = [
    "LEFT_WIDTH",
    "action_text",
    "format_mat",
    "move_numbers",
    "record_from_events",
    "record_from_replay",
    "writable_names",
    "write_match_text",
]
