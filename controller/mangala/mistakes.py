"""Boards players get by the typical mistakes of sowing a pit (MG-1, MG-2, MG-3): the illegal
outcomes the referee weighs against the legal ones, and the demo's players plant.

Each is a whole board of 48 stones that no legal sowing of the position gives: the first stone
not put back into its pit, a stone sown into the opponent's store, a capture not taken, the
last stone put into one's own store instead of the pit it falls into.
"""

from __future__ import annotations

from engine.mangala.position import STONES, Position
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


def mistakes(position: Position, pit: int) -> list[tuple[str, Board]]:
    """Boards a player gets by a typical mistake sowing ``pit`` (never a legal result)."""
    mover = position.to_move
    assert mover is not None
    ring0 = to_ring(position, mover)
    start = pit - 1
    stones = ring0[start]
    legal = {play(position, p).position.board() for p in legal_pits(position)}
    legal |= {play(position, p).sown.board() for p in legal_pits(position)}
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


def all_mistakes(position: Position) -> list[tuple[int, str, Board]]:
    """Every modelled mistake of every legal pit: (pit, what went wrong, board)."""
    return [(pit, name, board) for pit in legal_pits(position)
            for name, board in mistakes(position, pit)]


__all__ = ["all_mistakes", "mistakes"]
