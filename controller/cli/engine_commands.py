"""``hakem plays`` and ``hakem judge``: the backgammon rules engine on the command line.

Positions are GNU Backgammon Position IDs seen from the player on roll; results stay seen from
that same player (not swapped), as DESIGN.md fixes.
"""

from __future__ import annotations

import argparse
from typing import Any

from controller.cli.common import (
    CommandError,
    add_command,
    count,
    emit_json,
    stdin_lines,
    wants_json,
)
from engine.backgammon.dice import parse_dice
from engine.backgammon.judge import judge
from engine.backgammon.moves import legal_plays
from engine.backgammon.position import CHECKERS, Position
from engine.errors import HakemError, PositionError, RuleViolationError


def register(subparsers: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``plays`` and ``judge`` to ``hakem``."""
    plays = add_command(
        subparsers,
        "plays",
        parents,
        "every distinct legal resulting position for a roll, with the move text",
    )
    plays.add_argument(
        "position",
        metavar="POSITION_ID",
        help="GNU Backgammon Position ID, or - to read 'POSITION_ID DICE' lines from stdin",
    )
    plays.add_argument("dice", metavar="DICE", nargs="?",
                       help="two digits, e.g. 31 or 66 (not given with -: each line has its own)")
    plays.set_defaults(func=run_plays)

    judge_cmd = add_command(
        subparsers,
        "judge",
        parents,
        "whether a move from BEFORE to AFTER is legal with DICE; if not, the rule and why",
    )
    judge_cmd.add_argument("before", metavar="BEFORE_ID", help="Position ID before the move")
    judge_cmd.add_argument(
        "after", metavar="AFTER_ID", help="Position ID after the move, from the mover's view"
    )
    judge_cmd.add_argument("dice", metavar="DICE", help="two digits, e.g. 31 or 66")
    judge_cmd.set_defaults(func=run_judge)


def _game_position(position_id: str) -> Position:
    """A Position ID a game can reach: not one where both players have borne off all their
    checkers (the game ends with the first, BG-SCORE-1)."""
    position = Position.from_id(position_id)
    if position.my_off == CHECKERS and position.their_off == CHECKERS:
        raise PositionError(f"no game has position {position_id}: both players have borne "
                            f"off all {CHECKERS} checkers (the game ends with the first, "
                            "BG-SCORE-1)")
    return position


def game_over(position: Position) -> str | None:
    """Why no move is made in a position whose game is over (a player has borne off all
    their checkers, BG-SCORE-1), or None."""
    for off, who in ((position.my_off, "the player on roll"),
                     (position.their_off, "the opponent")):
        if off == CHECKERS:
            return f"the game is over: {who} has borne off all {CHECKERS} checkers (BG-SCORE-1)"
    return None


def plays_json(position_id: str, dice_text: str) -> dict[str, Any]:
    """The ``hakem plays`` JSON object for one position and roll."""
    position = _game_position(position_id)
    dice = parse_dice(dice_text)
    return {
        "position": position.position_id,
        "dice": [dice[0], dice[1]],
        "plays": [
            {"move": play.move, "result": play.result.position_id}
            for play in legal_plays(position, dice)
        ],
    }


def run_plays(args: argparse.Namespace) -> int:
    """``hakem plays POSITION_ID DICE`` and the bulk form ``hakem plays -``."""
    if args.position == "-":
        if args.dice is not None:
            raise CommandError("hakem plays - reads 'POSITION_ID DICE' lines; give no DICE")
        return _bulk_plays()
    if args.dice is None:
        raise CommandError("hakem plays needs DICE after the position id (e.g. 31)")
    obj = plays_json(args.position, args.dice)
    if wants_json(args):
        emit_json(obj)
        return 0
    dice = obj["dice"]
    plays = obj["plays"]
    print(f"position {obj['position']}, dice {dice[0]}{dice[1]}: {count(len(plays), 'legal play')}")
    if not plays:
        print(game_over(Position.from_id(obj["position"])) or "no legal move (gele, BG-MOVE-7)")
    width = max((len(p["move"]) for p in plays), default=0)
    for play in plays:
        print(f"{play['move']:<{width}}  {play['result']}")
    return 0


def _bulk_plays() -> int:
    for number, line in stdin_lines("hakem plays -"):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        parts = text.split()
        if len(parts) != 2:
            raise CommandError(f"line {number}: expected 'POSITION_ID DICE', got {text!r}")
        try:
            obj = plays_json(parts[0], parts[1])
        except HakemError as exc:
            raise CommandError(f"line {number}: {exc}") from None
        emit_json(obj)
    return 0


def run_judge(args: argparse.Namespace) -> int:
    """``hakem judge BEFORE_ID AFTER_ID DICE``."""
    before = _game_position(args.before)
    over = game_over(before)
    if over is not None:
        raise RuleViolationError(f"{over}: no move follows {args.before}")
    after = Position.from_id(args.after)
    dice = parse_dice(args.dice)
    verdict = judge(before, after, dice)
    if wants_json(args):
        obj = {"before": before.position_id, "after": after.position_id, "dice": list(dice)}
        obj.update(verdict.to_json())
        emit_json(obj)
        return 0
    if verdict.legal:
        if verdict.play is not None:
            print(f"legal: {verdict.play.move}")
        else:
            print(f"legal: no move. {verdict.reason}")
    else:
        print(f"illegal ({verdict.rule}): {verdict.reason}")
    return 0
