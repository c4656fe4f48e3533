"""Benchmark: legal-play generation, Position IDs and judge, in calls per second / ms.

Run: ``.venv/bin/python -m tests.bench.moves`` (uses ``../shared/data/positions/``).
Prints measured figures only; nothing here asserts a speed.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial

from engine.backgammon.dice import ALL_ROLLS
from engine.backgammon.judge import judge
from engine.backgammon.moves import legal_plays
from engine.backgammon.position import Position
from tests.conftest import SHARED_DATA


def _timed(fn: Callable[[], object], repeat: int = 3) -> float:
    """Best of ``repeat`` wall-clock runs, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _corpus(name: str) -> list[Position]:
    ids = (SHARED_DATA / "positions" / name).read_text().split()
    return [Position.from_id(pid) for pid in ids]


def bench_generation(positions: list[Position], label: str) -> None:
    def run() -> None:
        for position in positions:
            for roll in ALL_ROLLS:
                legal_plays(position, roll)

    def run_with_text() -> None:
        for position in positions:
            for roll in ALL_ROLLS:
                for play in legal_plays(position, roll):
                    _ = play.move

    def run_with_ids() -> None:
        for position in positions:
            for roll in ALL_ROLLS:
                for play in legal_plays(position, roll):
                    _ = play.result.position_id

    calls = len(positions) * len(ALL_ROLLS)
    t = _timed(run)
    cpu_start = time.process_time()
    run()
    cpu = time.process_time() - cpu_start
    t_text = _timed(run_with_text, 1)
    t_ids = _timed(run_with_ids, 1)
    print(
        f"legal_plays {label:8s}: {calls / t:9,.0f} calls/s "
        f"({calls} calls in {t:.2f} s wall; {calls / cpu:,.0f}/s by CPU time); "
        f"with move text {calls / t_text:,.0f}/s; "
        f"with result Position IDs {calls / t_ids:,.0f}/s"
    )


def bench_ids(positions: list[Position]) -> None:
    ids = [p.position_id for p in positions]
    n = len(positions) * 10

    def encode() -> None:
        for _ in range(10):
            for p in positions:
                _ = p.position_id

    def decode() -> None:
        for _ in range(10):
            for pid in ids:
                Position.from_id(pid)

    print(f"Position ID encode: {n / _timed(encode):,.0f}/s; decode: {n / _timed(decode):,.0f}/s")


def _worst_positions(corpus: list[Position]) -> list[tuple[Position, tuple[int, int]]]:
    """Constructed spread-out positions with doubles, and the corpus pairs with most plays."""
    spread = [
        # one checker on each of 2..16; the opponent's blots on 17..24
        Position.from_checkers({p: 1 for p in range(2, 17)}, {q: 1 for q in range(1, 9)} | {25: 7}),
        # blots for both sides alternating over the whole board
        Position.from_checkers(
            {p: 1 for p in range(24, 0, -2)} | {1: 3},
            {q: 1 for q in range(2, 23, 2)} | {25: 4},
        ),
        # pairs from 13 down to 7 against a three-point prime
        Position.from_checkers(
            {13: 2, 12: 2, 11: 2, 10: 2, 9: 2, 8: 2, 7: 2, 6: 1}, {6: 5, 5: 5, 4: 5}
        ),
    ]
    pairs = [(p, (d, d)) for p in spread for d in range(1, 7)]
    scored = []
    for position in corpus:
        for roll in ALL_ROLLS:
            scored.append((len(legal_plays(position, roll)), position, roll))
    scored.sort(key=lambda item: -item[0])
    pairs += [(p, r) for _, p, r in scored[:20]]
    return pairs


def bench_judge(corpus: list[Position]) -> None:
    worst_legal = worst_illegal = 0.0
    worst_case = ""
    most = 0
    for position, roll in _worst_positions(corpus):
        plays = legal_plays(position, roll)
        most = max(most, len(plays))
        if not plays:
            continue
        legal_after = plays[-1].result
        board = list(legal_after.board)
        # An illegal "after": one checker pushed a point further (or a checker lost).
        p = max(i for i in range(1, 26) if board[i] > 0)
        board[p] -= 1
        illegal_after = Position(tuple(board))
        for after, is_legal in ((legal_after, True), (illegal_after, False)):
            t = _timed(partial(judge, position, after, roll), 5) * 1000
            verdict = judge(position, after, roll)
            if is_legal:
                worst_legal = max(worst_legal, t)
            elif t > worst_illegal:
                worst_illegal = t
                worst_case = f"{position.position_id} {roll[0]}{roll[1]} -> {verdict.rule}"
    print(
        f"judge worst case: legal {worst_legal:.2f} ms, illegal {worst_illegal:.2f} ms "
        f"({worst_case}); most legal plays seen {most}"
    )


def bench_judge_typical(corpus: list[Position]) -> None:
    """judge on ordinary positions: a legal play and a one-checker slip, per corpus pair."""
    legal_ms: list[float] = []
    illegal_ms: list[float] = []
    for position in corpus[::20]:
        for roll in ALL_ROLLS:
            plays = legal_plays(position, roll)
            if not plays:
                continue
            good = plays[len(plays) // 2].result
            board = list(good.board)
            p = max(i for i in range(2, 26) if board[i] > 0 or i == 2)
            if board[p] > 0 and board[p - 1] >= 0:
                board[p] -= 1
                board[p - 1] += 1
            bad = Position(tuple(board))
            legal_ms.append(_timed(partial(judge, position, good, roll), 3) * 1000)
            illegal_ms.append(_timed(partial(judge, position, bad, roll), 3) * 1000)
    print(
        f"judge on corpus pairs ({len(legal_ms)}): legal median "
        f"{statistics.median(legal_ms):.3f} ms, max {max(legal_ms):.2f} ms; "
        f"slipped median {statistics.median(illegal_ms):.3f} ms, max {max(illegal_ms):.2f} ms"
    )


def main() -> None:
    contact = _corpus("contact.csv")
    race = _corpus("race.csv")
    bench_generation(contact, "contact")
    bench_generation(race, "race")
    bench_generation(contact + race, "both")
    bench_ids(contact + race)
    bench_judge_typical(contact + race)
    bench_judge(contact + race)


if __name__ == "__main__":
    main()
