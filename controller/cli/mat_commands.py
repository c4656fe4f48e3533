"""``hakem mat check FILE [--write OUT]``: referee a Jellyfish ``.mat`` match move by move.

Text output is a game-by-game account for people; ``--json`` gives DESIGN.md's object. Exit 0
whether every move, cube action and result is legal or the record breaks a rule (the verdict is
the output: the first illegal action is reported), 2 for a file that cannot be read as a match
record.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from controller.cli.common import (
    add_command,
    add_group,
    count,
    emit_json,
    refuse_clobbering,
    refuse_journal,
    wants_json,
    write_output,
)
from engine.backgammon.mat_problems import Problem
from engine.backgammon.mat_reader import ActionKind, MatMatch, parse_mat_bytes
from engine.backgammon.mat_replay import replay
from engine.backgammon.mat_replayed import Replay, ReplayedGame
from engine.backgammon.mat_writer import format_mat, record_from_replay
from engine.backgammon.match import result_words


def register(subparsers: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``hakem mat check`` to ``hakem``."""
    mat = add_group(subparsers, "mat", "Jellyfish .mat match records")
    check = add_command(
        mat,
        "check",
        parents,
        "replay a .mat match through the rules engine: every move legal or the first illegal"
        " one with its rule, and the score after each game (exit 0 either way: the verdict is"
        " the output)",
    )
    check.add_argument("file", metavar="FILE", help="a Jellyfish .mat match record")
    check.add_argument(
        "--write",
        metavar="OUT",
        help="write the match back out as .mat (engine move notation, rules' points)",
    )
    check.set_defaults(func=run_check)


def check_json(result: Replay) -> dict[str, Any]:
    """DESIGN.md's JSON object for ``hakem mat check``."""
    problem = result.problem
    return {
        "legal": result.legal,
        "games": len(result.record.games),
        "final_score": [result.final_score[0], result.final_score[1]],
        "complete": result.complete,
        "note": ending_note(result),
        "first_illegal": None
        if problem is None
        else {
            "game": problem.game,
            "move": problem.move,
            "text": problem.text,
            "rule": problem.rule,
            "reason": problem.reason,
        },
    }


def run_check(args: argparse.Namespace) -> int:
    """Read, replay, report, and optionally write the record back out."""
    refuse_clobbering([("record", args.file)], [("--write", args.write)])
    data = Path(args.file).read_bytes()
    refuse_journal(data.decode("utf-8", "replace"), args.file, "a .mat record",
                   f"make one with hakem export {args.file} --mat OUT.mat")
    record = parse_mat_bytes(data)
    result = replay(record)
    if args.write:
        write_output(args.write, format_mat(record_from_replay(result)))
    if wants_json(args):
        emit_json(check_json(result))
    else:
        sys.stdout.write(check_text(result, written=args.write))
        sys.stdout.flush()
    return 0


def player_names(record: MatMatch) -> tuple[str, str]:
    """The players' names; a record without names gets its tags' or "player 1/2"."""
    names = []
    for index, name in enumerate(record.players):
        tag = record.tag(f"Player {index + 1}")
        names.append(name or tag or f"player {index + 1}")
    return names[0], names[1]


def _game_lines(
    game: ReplayedGame, record: MatMatch, names: tuple[str, str], problem: Problem | None
) -> list[str]:
    title = f"Game {game.number}"
    if game.crawford:
        title += " (Crawford game: no doubling, BG-MATCH-2)"
    lines = [f"{title}, score {game.start_score[0]}-{game.start_score[1]}"]
    source = next((g for g in record.games if g.number == game.number), None)
    if game.turns:
        opener = names[game.turns[0].player]
        dice = game.turns[0].dice
        verdict = (
            "all legal"
            if problem is None or problem.game != game.number
            else "legal up to the one below"
        )
        lines.append(
            f"  {opener} opens with {dice[0]}{dice[1]}; {count(len(game.turns), 'move')}, {verdict}"
        )
    stop = problem.line if problem is not None and problem.game == game.number else None
    if source is not None:
        for action in source.actions:
            if stop is not None and action.line >= stop:
                break
            if action.kind is ActionKind.DOUBLE:
                lines.append(
                    f"  move {action.number}: {names[action.player]} doubles to {action.value}"
                )
            elif action.kind is ActionKind.BEAVER:
                lines[-1] += f", {names[action.player]} beavers to {action.value}"
            elif action.kind is ActionKind.TAKE:
                lines[-1] += f", {names[action.player]} takes"
            elif action.kind is ActionKind.DROP:
                lines[-1] += f", {names[action.player]} drops"
    result = game.result
    if result is not None:
        words = result_words(result.points, result.kind.word, result.how.value,
                             result.cube_value, names[1 - result.winner])
        lines.append(f"  {names[result.winner]} wins {words}")
    return lines


def ending_note(result: Replay) -> str | None:
    """What a record that stops short says: a match not yet won, or a money session (no end of
    its own, BG-MATCH-1 needs a length) cut off inside a game; None when nothing is missing."""
    if result.complete or result.problem is not None:
        return None
    final = result.final_score
    if result.record.length:
        return f"The record ends before the match is over, at {final[0]}-{final[1]}."
    game = result.games[-1].number if result.games else 1
    return f"The record ends inside game {game} of the session, at {final[0]}-{final[1]}."


def check_text(result: Replay, *, written: str | None = None) -> str:
    """The account for people: the match, each game with its score, the verdict."""
    record = result.record
    names = player_names(record)
    where = ", ".join(v for v in (record.tag("Site"), record.tag("EventDate")) if v)
    length = f"{record.length}-point match" if record.length else "money session"
    head = f"{names[0]} vs {names[1]}, {length}" + (f" ({where})" if where else "")
    out = [head, ""]
    score = [0, 0]
    for game in result.games:
        out.extend(_game_lines(game, record, names, result.problem))
        if game.result is not None:
            score[game.result.winner] += game.result.points
            out.append(f"  score after game {game.number}: {score[0]}-{score[1]}")
        out.append("")
    for note in result.notes:
        out.append(f"Note: game {note.game}, line {note.line}: {note.reason} ({note.rule}).")
    if result.notes:
        out.append("")
    problem = result.problem
    final = result.final_score
    if problem is not None:
        out.append(
            f"ILLEGAL: game {problem.game}, move {problem.move} (line {problem.line}):"
            f" {problem.text!r}"
        )
        out.append(f"  {problem.rule}: {problem.reason}")
        out.append(f"Stopped at the first illegal action; score then {final[0]}-{final[1]}.")
    else:
        moves = sum(len(g.turns) for g in result.games)
        games = len(result.games)
        every = "The 1 move" if moves == 1 else f"All {moves} moves"
        head = f"{every} in {count(games, 'game')} {'is' if moves == 1 else 'are'} legal"
        if result.notes:
            slips = len(result.notes)
            out.append(
                f"{head} and every cube action agrees with the rules; the record's own points"
                f" differ from the rules' count in {slips} place{'' if slips == 1 else 's'}"
                " (noted above)."
            )
        else:
            out.append(f"{head}, and every cube action and score agrees with the rules.")
        winner = result.state.winner
        if winner is not None:
            out.append(f"{names[winner]} wins the match {final[winner]}-{final[1 - winner]}.")
        else:
            out.append(ending_note(result) or f"The session stands at {final[0]}-{final[1]}.")
    if written:
        out.append(f"Written to {written}.")
    return "\n".join(out) + "\n"


__all__ = ["check_json", "check_text", "ending_note", "player_names", "register", "run_check"]
