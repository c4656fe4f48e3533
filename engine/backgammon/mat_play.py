"""The legal play a ``.mat`` record's move text stands for: the play it describes exactly, or
the one legal play that leaves the mover's checkers where the text puts them; else the rule
the text breaks."""

from __future__ import annotations

from typing import NamedTuple

from engine.backgammon.judge import judge_steps
from engine.backgammon.mat_reader import MatMove
from engine.backgammon.moves import result_boards
from engine.backgammon.notation import format_steps
from engine.backgammon.position import Position
from engine.errors import PositionError

Step = tuple[int, int]


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


__all__ = [
    "FoundPlay",
    "NotAPlay",
    "Step",
    "find_play",
]
