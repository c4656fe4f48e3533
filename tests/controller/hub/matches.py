"""Simulated whole matches as journal entries, seeded: what a table's referee would journal.

Moves are random but physically possible (``Position.apply_steps``), so every Position ID is
real; the hub does not judge moves, it shows them.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.backgammon.position import Position

START = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


def _random_move(
    rng: random.Random, position: Position, dice: tuple[int, int]
) -> tuple[str, Position]:
    steps_text: list[str] = []
    dies = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    for die in dies:
        board = position.board
        sources = [25] if board[25] > 0 else [p for p in range(1, 25) if board[p] > 0]
        rng.shuffle(sources)
        for src in sources:
            dst = src - die
            if dst >= 1 and board[dst] >= -1:
                position = position.apply_steps([(src, dst)])
                steps_text.append(f"{'bar' if src == 25 else src}/{dst}")
                break
    return " ".join(steps_text), position


def simulated_match(
    table: int, seed: int, *, length: int = 3, flags: bool = True, max_turns: int = 14
) -> list[dict[str, Any]]:
    """A whole match to ``length`` points; entries carry ``seq`` and ``time`` like a journal."""
    rng = random.Random(seed)
    entries: list[dict[str, Any]] = []

    def add(kind: str, **fields: Any) -> None:
        seq = len(entries) + 1
        time = (START + timedelta(seconds=seq, milliseconds=table)).isoformat(
            timespec="milliseconds"
        )
        entries.append({"seq": seq, "time": time, "type": kind, **fields})

    add(
        "match_start",
        players=[f"Ayse {table}", f"Mehmet {table}"],
        length=length,
        game="backgammon",
        match_id=f"m-{table}-{seed}",
    )
    score = [0, 0]
    times = [length * 120_000, length * 120_000]
    game = 0
    while max(score) < length:
        game += 1
        add(
            "game_start",
            number=game,
            score=list(score),
            crawford=(length - 1 in score and game > 1 and max(score) == length - 1),
        )
        while True:
            d0, d1 = rng.randint(1, 6), rng.randint(1, 6)
            if d0 != d1:
                break
        player = 0 if d0 > d1 else 1
        add("opening_roll", dice=[d0, d1], player=player)
        position = Position.initial()
        cube, owner = 1, None
        turns = rng.randint(6, max_turns)
        for turn in range(turns):
            dice = (
                (max(d0, d1), min(d0, d1)) if turn == 0 else (rng.randint(1, 6), rng.randint(1, 6))
            )
            if turn:
                add("roll", player=player, dice=list(dice))
            if flags and rng.random() < 0.04:
                add(
                    "invalid_throw",
                    player=player,
                    rule="BG-ROLL-2",
                    reason="a die landed cocked; throw both dice again",
                )
            text, after = _random_move(rng, position, dice)
            if flags and rng.random() < 0.04:
                add(
                    "illegal_move",
                    player=player,
                    rule="BG-MOVE-6",
                    reason="the move does not use the larger die",
                    snapshot=f"flag-{len(entries) + 1}.jpg",
                    position_id=after.position_id,
                )
                add("correction", player=player, position_id=after.position_id)
            add("move", player=player, dice=list(dice), move=text, position_id=after.position_id)
            times[player] -= rng.randint(1_000, 9_000)
            add("clock", times_ms=list(times), running=1 - player)
            if turn == turns // 2 and cube == 1 and rng.random() < 0.4:
                add("double", player=1 - player, cube=2)
                add("take", player=player)
                cube, owner = 2, player
            position = after.swap()
            player = 1 - player
        winner = rng.randint(0, 1)
        points = cube * rng.choice([1, 1, 1, 2])
        score[winner] += points
        add("game_end", winner=winner, points=points, score=list(score))
        del owner
    add("match_end", winner=0 if score[0] > score[1] else 1, score=list(score))
    return entries
