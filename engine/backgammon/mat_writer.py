"""Write Jellyfish ``.mat`` match records that GNU Backgammon, eXtreme Gammon and BGBlitz import.

The layout is the usual one: tags as ``; [Name "value"]``, ``N point match``, then per game a
``Game n`` line, the score line and numbered move lines with the first-named player on the
left. :func:`record_from_replay` rewrites a replayed record with the engine's move text
(``bar/22*``, ``6/off``, ``8/5(2)``) and the points the rules give each game.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from engine.backgammon.mat_reader import (
    ActionKind,
    MatAction,
    MatGame,
    MatMatch,
    MatMove,
    parse_move,
)
from engine.backgammon.mat_replay import Replay

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
    does: GNU Backgammon then keeps a roll with no move just before it as a turn."""
    rows: list[list[str]] = []
    results: list[bool] = []
    open_row = False
    for action in game.actions:
        text = action_text(action)
        is_result = action.kind in (ActionKind.WIN, ActionKind.LOSS)
        if action.player == 0:
            rows.append([text, ""])
            results.append(is_result)
            open_row = True
        elif open_row:
            rows[-1][1] = text
            results[-1] = results[-1] and is_result
            open_row = False
        else:
            rows.append(["", text])
            results.append(is_result)
    return [(left, right, only) for (left, right), only in zip(rows, results, strict=True)]


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
            out.append(f"{number:3d}) {pad}{rcol}".rstrip())
        out.append("")
    return "\n".join(out) + "\n"


def writable_names(record: MatMatch) -> tuple[str, str]:
    """The players' names as written: an empty name (real files have them) becomes the
    ``Player n`` tag or "Player n", because GNU Backgammon 1.07 aborts on an empty first name."""
    names = []
    for index, name in enumerate(record.players):
        fallback = (record.tag(f"Player {index + 1}") or "").strip() or f"Player {index + 1}"
        names.append(name.strip() or fallback)
    return names[0], names[1]


def write_mat(record: MatMatch, path: str | Path) -> None:
    """Write ``record`` to ``path`` as UTF-8 text."""
    Path(path).write_text(format_mat(record), encoding="utf-8")


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
    "record_from_replay",
    "writable_names",
    "write_mat",
]
