"""Turns the Mangala table could not see: presses made while the host was down (MG-CLOCK-2).

A restarted table is sent the presses the players made meanwhile; the picture seen now already
shows what came after the first. Mangala hides nothing and a sowing follows from its pit, so
the turns can often be found again: every way that many turns may have gone from the last
position is played out (MG-1's extra turns included) and the boards they leave are weighed
against the still frames, as one turn's sowings are (``controller.mangala.recognition``).

- One way explains the frames, clearly better than any other board: its sowings are the
  turns played (journalled as moves, marked ``unseen``), and the record stays whole. At a
  set's end many ways leave the same stores: one is recorded (``"guessed": true``), so that
  the set is scored (MG-4).
- One board, reached by several ways: the board is taken as the position (``position_taken``;
  which pits were sown cannot be told).
- No way explains the frames: vision's own board of 48 stones, read with every cell in view,
  is taken, with the player whose time runs to move.
- Otherwise nothing is taken until the director sets the position.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from controller.mangala.recognition import Line, Settings, lines, score, usable, vision_board
from controller.mangala.view import MangalaView
from engine.mangala.position import STONES, Position, Side

# ways of playing the unseen turns weighed at most: two turns give about 130 from the start,
# three about 1,400, four about 15,000 (a third of a second to play out on a Pi-class core, on
# every still frame while they are looked for); beyond, none is weighed and the board alone
# is taken
MAX_WAYS = 5_000


@dataclass(frozen=True)
class Found:
    """What the frames say of the unseen turns: the sowings (``turns``, each turn's line) when
    one way explains them, else the position to take (``position``), with how well the board
    fits (nats per frame behind vision's best)."""

    turns: tuple[Line, ...] | None
    position: Position | None
    gap: float
    ways: int = 1  # ways of sowing that leave the board: more than one only at a set's end


def ways(position: Position, turns: int, depth: int) -> list[tuple[Line, ...]]:
    """Every way ``turns`` turns may have gone from ``position``: each turn a line of
    sowings that passes the turn on (its last no extra turn), or ends the set (MG-4: the
    board before or after the sweep; no turn follows in that set). Empty when more than
    :data:`MAX_WAYS`."""
    return list(_ways(position, turns, depth))


@functools.lru_cache(maxsize=4)
def _ways(position: Position, turns: int, depth: int) -> tuple[tuple[Line, ...], ...]:
    """:func:`ways`, worked out once for the frames that follow (the position stays)."""
    ended: list[tuple[Line, ...]] = []
    out: list[tuple[tuple[Line, ...], Position]] = [((), position)]
    for _ in range(turns):
        going = []
        for way, at in out:
            for line in lines(at, depth):
                if line.last.set_over:
                    ended.append((*way, line))
                elif not line.last.extra_turn:
                    going.append(((*way, line), line.last.position))
            if len(going) + len(ended) > MAX_WAYS:
                return ()
        out = going
    return tuple(way for way, _ in out) + tuple(ended)


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
        line = way[-1]
        if to_move is None or line.last.set_over or line.last.position.to_move == to_move:
            by_board.setdefault(line.board, []).append(way)
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
            distinct = len({tuple(line.pits for line in way) for way in found})
            if distinct == 1 or found[0][-1].last.set_over:
                # at a set's end many ways leave the same stores (the sweep takes the rest):
                # one of them is recorded, so that the set is scored (MG-4) and the record
                # replays; the moves say they are one of several
                return Found(found[0], None, gap, distinct)
            return Found(None, found[0][-1].last.position, gap)
    fixed_score = score(frames, fixed)
    if (to_move is None or sum(fixed) != STONES or fixed_score is None
            or not any(fixed[:6]) or not any(fixed[7:13])  # a set over: no position to take
            or (top - fixed_score) / n > settings.accept_gap):
        return None
    return Found(None, Position.from_board(fixed, to_move), (top - fixed_score) / n)


__all__ = ["MAX_WAYS", "Found", "find", "ways"]
