"""Boards players get by mistakes while sowing a pit (MG-1, MG-2, MG-3): the illegal outcomes
the referee weighs against the legal ones, and the ones the demo and the evaluation plant.

:func:`mistakes` gives the four typical ones the referee's recognition models (each a whole
board of 48 stones that no legal sowing gives): the first stone not put back into its pit, a
stone sown into the opponent's store, a capture not taken, the last stone put into one's own
store instead of the pit it falls into. :func:`other_mistakes` gives mistakes recognition does
NOT model (sowing to the left, a pit skipped, two stones into one pit, a stone kept back, an
odd pit captured, the opponent's pit sown): planted to check that a board no legal sowing
explains is flagged even when no model of the mistake exists, and weighed only so that a board
the mover's own wrong sowing gives is not taken for the opponent's early mistake (MG-CLOCK-2).
"""

from __future__ import annotations

from engine.mangala.position import STONES, Position, Side
from engine.mangala.sowing import (
    OPP_STORE,
    OWN_STORE,
    RING,
    from_ring,
    legal_pits,
    play,
    sow_path,
    to_ring,
)

Board = tuple[int, ...]


def _sowing(position: Position) -> tuple[Side, list[int], set[Board]]:
    """The mover, the mover's ring, and every board a legal sowing gives (sown, and after any
    capture): what a mistake is built from and must differ from."""
    mover = position.to_move
    assert mover is not None
    results = [play(position, p) for p in legal_pits(position)]
    legal = {r.position.board() for r in results} | {r.sown.board() for r in results}
    return mover, to_ring(position, mover), legal


def mistakes(position: Position, pit: int) -> list[tuple[str, Board]]:
    """Boards a player gets by a typical mistake sowing ``pit`` (never a legal result)."""
    mover, ring0, legal = _sowing(position)
    start = pit - 1
    stones = ring0[start]
    out: list[tuple[str, Board]] = []

    def add(name: str, ring: list[int]) -> None:
        board = from_ring(ring, mover, None).board()
        if sum(board) == STONES and board not in legal and board != position.board():
            out.append((name, board))

    if stones > 1:  # the first stone not put back into the pit it came from (MG-1)
        ring = list(ring0)
        ring[start] = 0
        for slot in [(start + 1 + j) % RING for j in range(stones)]:
            ring[slot] += 1
        add("first stone not put back (MG-1)", ring)
    path = sow_path(start, stones)
    if any(slot == 12 for slot in path[:-1]):  # the sowing passes the opponent's store
        ring = list(ring0)
        ring[start] = 0
        skipped = False
        for k, slot in enumerate(path):
            if not skipped and k > 0 and path[k - 1] == 12:
                ring[OPP_STORE] += 1  # ... and a stone goes into it (MG-2 skips it)
                skipped = True
            else:
                ring[slot] += 1
        if skipped:
            add("a stone sown into the opponent's store (MG-2)", ring)
    result = play(position, pit)
    if result.capture_rule is not None and not result.set_over:
        ring = list(ring0)
        ring[start] = 0
        for slot in path:
            ring[slot] += 1
        add(f"the capture not taken ({result.capture_rule})", ring)
    if not result.extra_turn and not result.set_over and stones >= 2:
        ring = list(to_ring(result.position, mover))
        last = path[-1]
        if ring[last] > 0 and ring[OWN_STORE] >= 0 and last != OWN_STORE:
            ring[last] -= 1
            ring[OWN_STORE] += 1
            add("the last stone put into the own store (MG-1)", ring)
    return out


def _finish(ring: list[int], last: int) -> list[int]:
    """The captures a player takes after sowing ``ring`` with the last stone at ``last``, as the
    rules would give them (MG-2 even pit, MG-3 empty own pit): players finish a wrong sowing the
    usual way."""
    out = list(ring)
    if 7 <= last <= 12 and out[last] % 2 == 0:
        out[OWN_STORE] += out[last]
        out[last] = 0
    elif 0 <= last <= 5 and out[last] == 1 and out[12 - last] > 0:
        out[OWN_STORE] += out[12 - last] + 1
        out[last] = 0
        out[12 - last] = 0
    return out


def other_mistakes(position: Position, pit: int) -> list[tuple[str, Board]]:
    """Boards of mistakes sowing ``pit`` that recognition has no model of (never a legal result,
    never one of :func:`mistakes`): for planting, and to tell the mover's mistake from an
    opponent's early one."""
    mover, ring0, legal = _sowing(position)
    start = pit - 1
    stones = ring0[start]
    modelled = {b for _, b in mistakes(position, pit)}
    out: list[tuple[str, Board]] = []
    seen: set[Board] = set()

    def add(name: str, path: list[int], *, capture: bool = True) -> None:
        ring = list(ring0)
        ring[start] = 0
        for slot in path:
            ring[slot] += 1
        if capture:
            ring = _finish(ring, path[-1])
        board = from_ring(ring, mover, None).board()
        if (sum(board) == STONES and board not in legal and board not in modelled
                and board != position.board() and board not in seen):
            seen.add(board)
            out.append((name, board))

    path = sow_path(start, stones)
    left = [(start - j) % RING for j in range(stones)] if stones > 1 else [(start - 1) % RING]
    add("sown to the left, clockwise (MG-1)", left)
    for k in range(1, len(path)):
        # one pit passed over: every later stone falls one pit further on (MG-1)
        skipped = path[:k] + [(s + 1) % RING for s in path[k:]]
        add(f"pit passed over at stone {k + 1} (MG-1)", skipped)
    if stones >= 3:
        # two stones dropped into one pit: the sowing ends one pit short (MG-1)
        doubled = path[:1] + path[1:2] + path[1:-1]
        add("two stones dropped into one pit (MG-1)", doubled)
        kept = path[:-1]
        kept_ring = [*kept, start]  # one stone kept back in the pit it came from
        add("a stone kept back in the pit (MG-1)", kept_ring, capture=False)
    ring = list(ring0)
    ring[start] = 0
    for slot in path:
        ring[slot] += 1
    last = path[-1]
    if 7 <= last <= 12 and ring[last] % 2 == 1:
        ring[OWN_STORE] += ring[last]
        ring[last] = 0
        board = from_ring(ring, mover, None).board()
        if board not in legal and board not in modelled and board not in seen:
            seen.add(board)
            out.append(("an odd pit captured (MG-2)", board))
    opp_ring = to_ring(position, "b" if mover == "a" else "a")
    if opp_ring[start] > 0:
        # the opponent's pit with that number sown instead, as if it were one's own (MG-1)
        theirs = Position(position.a, position.a_store, position.b, position.b_store,
                          "b" if mover == "a" else "a")
        board = play(theirs, pit).position.board()
        if board not in legal and board not in modelled and board not in seen \
                and board != position.board():
            seen.add(board)
            out.append(("the opponent's pit sown (MG-1)", board))
    return out


def all_mistakes(position: Position) -> list[tuple[int, str, Board]]:
    """Every modelled mistake of every legal pit: (pit, what went wrong, board)."""
    return [(pit, name, board) for pit in legal_pits(position)
            for name, board in mistakes(position, pit)]


__all__ = ["all_mistakes", "mistakes", "other_mistakes"]
