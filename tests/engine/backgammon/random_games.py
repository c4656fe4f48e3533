"""Seeded random games played through the engine: (position, dice) pairs for oracle tests."""

from __future__ import annotations

import random

from engine.backgammon.moves import legal_plays
from engine.backgammon.position import Position


def random_pairs(count: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    """``count`` (position, roll) pairs from whole random games, hits and bear-offs included."""
    rng = random.Random(seed)
    pairs: list[tuple[Position, tuple[int, int]]] = []
    while len(pairs) < count:
        position = Position.initial()
        while len(pairs) < count:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            pairs.append((position, dice))
            plays = legal_plays(position, dice)
            if plays:
                position = rng.choice(plays).result
            if position.my_off == 15:
                break
            position = position.swap()
    return pairs


def random_bear_off_positions(count: int, seed: int) -> list[Position]:
    """Seeded positions at or near the bear-off: our checkers on 1..9 (some still outside),
    some already off, the opponent's checkers scattered, sometimes in our home board."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        board = [0] * 26
        for _ in range(rng.randint(1, 15)):
            board[rng.choice((1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 7, 8, 9))] += 1
        for _ in range(rng.randint(1, 15)):
            point = rng.randint(0, 24)
            if board[point] <= 0:
                board[point] -= 1
        out.append(Position(tuple(board)))
    return out
