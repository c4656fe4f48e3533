"""Turns the Mangala table could not see: presses made while the host was down (MG-CLOCK-2).

A restarted table is sent the presses the players made meanwhile; the picture seen now already
shows what came after the first. Mangala hides nothing and a sowing follows from its pit, so
the turns can often be found again: every way that many turns may have gone from the last
position is played out (MG-1's extra turns included) and the boards they leave are weighed
against the still frames, as one turn's sowings are (``controller.mangala.recognition``).

- One way explains the frames, clearly better than any other board: its sowings are the
  turns played (journalled as moves, marked ``unseen``), and the record stays whole.
- One board, reached by several ways: the board is taken as the position (``position_taken``;
  which pits were sown cannot be told).
- No way explains the frames: vision's own board of 48 stones, read with every cell in view,
  is taken, with the player whose time runs to move.
- Otherwise nothing is taken until the director sets the position.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from controller.mangala.recognition import Line, Settings, lines, score, usable, vision_board
from controller.mangala.view import MangalaView
from engine.mangala.position import STONES, Position, Side

# ways of playing the unseen turns weighed at most (six pits, extra turns: a few turns give
# a few thousand); more and none is weighed, the board alone is taken
MAX_WAYS = 20_000


@dataclass(frozen=True)
class Found:
    """What the frames say of the unseen turns: the sowings (``turns``, each turn's line) when
    one way explains them, else the position to take (``position``), with how well the board
    fits (nats per frame behind vision's best)."""

    turns: tuple[Line, ...] | None
    position: Position | None
    gap: float


def _turn_lines(position: Position, depth: int) -> list[Line]:
    """The ways one turn may have gone that pass the turn on (its last sowing no extra turn)
    and leave the set going (a set's end is no unseen turn's: the sweep would be seen)."""
    return [line for line in lines(position, depth)
            if not line.last.extra_turn and not line.last.set_over and not line.sweep_pending]


def ways(position: Position, turns: int, depth: int) -> list[tuple[Line, ...]]:
    """Every way ``turns`` turns may have gone from ``position`` (empty when more than
    :data:`MAX_WAYS`)."""
    out: list[tuple[tuple[Line, ...], Position]] = [((), position)]
    for _ in range(turns):
        out = [((*way, line), line.last.position)
               for way, at in out for line in _turn_lines(at, depth)]
        if len(out) > MAX_WAYS:
            return []
    return [way for way, _ in out]


def find(views: Sequence[MangalaView], position: Position, turns: int, to_move: Side | None,
         settings: Settings) -> Found | None:
    """What the still frames tell of ``turns`` unseen turns played from ``position``, the
    player whose time runs being ``to_move`` (None: unknown); None while they tell nothing
    sure (too few frames, a cell hidden, two boards alike)."""
    frames = usable(views, settings)
    if len(frames) < settings.frames or any(any(v.hidden) for v in frames):
        return None
    n = len(frames)
    by_board: dict[tuple[int, ...], list[tuple[Line, ...]]] = {}
    for way in ways(position, turns, settings.depth):
        last = way[-1].last.position
        if to_move is None or last.to_move == to_move:
            by_board.setdefault(last.board(), []).append(way)
    raw, fixed = vision_board(frames)
    scored = sorted(((s, board) for board in by_board
                     if (s := score(frames, board)) is not None), reverse=True)
    tops = [s for s in (score(frames, raw), score(frames, fixed)) if s is not None]
    top = max([*tops, *(s for s, _ in scored[:1])], default=-math.inf)
    if scored:
        best, board = scored[0]
        margin = (best - scored[1][0]) / n if len(scored) > 1 else math.inf
        gap = (top - best) / n
        if gap <= settings.accept_gap and margin >= settings.ambiguity:
            found = by_board[board]
            if len({tuple(line.pits for line in way) for way in found}) == 1:
                return Found(found[0], None, gap)
            return Found(None, found[0][-1].last.position, gap)
    fixed_score = score(frames, fixed)
    if (to_move is None or sum(fixed) != STONES or fixed_score is None
            or (top - fixed_score) / n > settings.accept_gap):
        return None
    return Found(None, Position.from_board(fixed, to_move), (top - fixed_score) / n)


__all__ = ["MAX_WAYS", "Found", "find", "ways"]
