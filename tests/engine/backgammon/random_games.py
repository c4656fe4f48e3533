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
