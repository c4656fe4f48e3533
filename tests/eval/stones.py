"""Stone counting on rendered Mangala boards: ``python -m tests.eval.stones [--boards N]
[--turns T] [--hands F] [--csv FILE]``.

Prints exact-count accuracy for piles of at most 8 and at most 15 stones (pits and stores), the
confusion per true count, how honest the probabilities are (the mean probability the reader
gives its answer against how often the answer is right, and the mean log probability of the
truth), and the figure the referee needs: over turns of random games played
by the rules engine (``engine.mangala``), how often the sowing that was really played gives the
frame the best ``log_likelihood`` among all the legal ones (MG-1). Writes one CSV row per image.
Seeds are fixed (``--seed``, default 500 000: boards from it, turns from it + 100 000) and never
overlap the ones the count model was fitted on (``vision/mangala/train.py``: 20 000 000..).
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from engine.mangala import Position, legal_pits, play
from vision.mangala.reader import log_likelihood, read_mangala
from vision.mangala.render import render_mangala

EVAL_SEED = 500_000


def cells_of(position: Position) -> list[int]:
    """A position's 14 counts in the vision contract's order."""
    return [*position.a, position.a_store, *position.b, position.b_store]


def random_board(rng: np.random.Generator) -> list[int]:
    """Pits with 0..15 stones, stores with 0..48, each count equally likely."""
    return [int(rng.integers(0, 49)) if i in (6, 13) else int(rng.integers(0, 16))
            for i in range(14)]


def count_eval(boards: int, writer: Any, seed0: int = EVAL_SEED
               ) -> tuple[dict[int, Counter[int]], int, list[tuple[int, float, bool, float]]]:
    """Read ``boards`` rendered boards; returns predictions per true count, boards done, and
    per cell (true count, confidence, right, probability of the truth)."""
    rng = np.random.default_rng(seed0)
    confusion: dict[int, Counter[int]] = defaultdict(Counter)
    honesty: list[tuple[int, float, bool, float]] = []
    for k in range(boards):
        cells = random_board(rng)
        seed = seed0 + k
        img, corners = render_mangala(cells, seed)
        reading = read_mangala(img, corners)
        best = reading.counts
        for t, p, c in zip(cells, best, reading.cells, strict=True):
            confusion[t][p] += 1
            honesty.append((t, c.confidence, t == p, c.probs[t]))
        writer.writerow(["counts", seed, " ".join(map(str, cells)), " ".join(map(str, best)),
                         " ".join(f"{c.confidence:.3f}" for c in reading.cells),
                         sum(int(a == b) for a, b in zip(cells, best, strict=True)), "", ""])
    return confusion, boards, honesty


def random_turns(turns: int, rng: np.random.Generator) -> list[tuple[Position, int]]:
    """(position before, pit played) for ``turns`` turns of random legal games."""
    out: list[tuple[Position, int]] = []
    pos = Position.initial("a")
    while len(out) < turns:
        pits = legal_pits(pos)
        if not pits:
            pos = Position.initial("a" if rng.random() < 0.5 else "b")
            continue
        pit = int(rng.choice(pits))
        out.append((pos, pit))
        pos = play(pos, pit).position
    return out


def referee_eval(turns: int, writer: Any, hands: float, seed0: int = EVAL_SEED
                 ) -> tuple[int, int, int]:
    """Turns where the true sowing scores best; turns; turns with a hand over the board."""
    rng = np.random.default_rng(seed0 + 1)
    right = 0
    with_hand = 0
    for k, (before, pit) in enumerate(random_turns(turns, rng)):
        truth = cells_of(play(before, pit).position)
        candidates = {p: cells_of(play(before, p).position) for p in legal_pits(before)}
        seed = seed0 + 100_000 + k
        hand = bool(rng.random() < hands)
        with_hand += hand
        img, corners = render_mangala(truth, seed, hand=hand)
        reading = read_mangala(img, corners)
        scores = {p: log_likelihood(reading, c) for p, c in candidates.items()}
        top = max(scores.values())
        chosen = [p for p, s in scores.items() if s == top]
        ok = all(candidates[p] == truth for p in chosen)
        right += ok
        writer.writerow(["turn", seed, " ".join(map(str, truth)),
                         " ".join(map(str, reading.counts)),
                         " ".join(f"{c.confidence:.3f}" for c in reading.cells),
                         int(ok), pit, " ".join(map(str, chosen))])
    return right, turns, with_hand


def _accuracy(confusion: dict[int, Counter[int]], top: int) -> tuple[float, int]:
    n = sum(sum(c.values()) for t, c in confusion.items() if t <= top)
    ok = sum(c[t] for t, c in confusion.items() if t <= top)
    return (ok / n if n else float("nan")), n


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--boards", type=int, default=300, help="rendered boards for counting")
    ap.add_argument("--turns", type=int, default=1000, help="game turns for the referee figure")
    ap.add_argument("--seed", type=int, default=EVAL_SEED,
                    help="first seed (boards from it, referee turns from it + 100 000)")
    ap.add_argument("--hands", type=float, default=0.0,
                    help="fraction of referee frames with an arm over the board")
    ap.add_argument("--csv", default=str(Path(tempfile.gettempdir()) / "hakem_stones_eval.csv"),
                    help="one row per image (default in the temporary directory)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    with Path(args.csv).open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["kind", "seed", "truth", "read", "confidence", "right", "pit_played",
                         "pits_chosen"])
        confusion, boards, honesty = count_eval(args.boards, writer, args.seed)
        right, turns, with_hand = referee_eval(args.turns, writer, args.hands, args.seed)
    print(f"stone counting on {boards} rendered boards ({boards * 14} cells), seed {args.seed}")
    for top in (8, 15, 48):
        acc, n = _accuracy(confusion, top)
        print(f"  exact count, piles <= {top:2d}: {acc:.2%} of {n} cells")
    for lo, hi in ((0, 8), (9, 15), (16, 48)):
        sel = [h for h in honesty if lo <= h[0] <= hi]
        if sel:
            conf = float(np.mean([h[1] for h in sel]))
            hit = float(np.mean([h[2] for h in sel]))
            logp = float(np.mean([np.log(max(h[3], 1e-300)) for h in sel]))
            print(f"  piles {lo:2d}..{hi:2d}: mean confidence {conf:.3f}, right {hit:.3f}, "
                  f"mean log P(truth) {logp:.3f}")
    print("  per true count: cells, exact, read as (count: times)")
    for t in sorted(confusion):
        c = confusion[t]
        n = sum(c.values())
        others = ", ".join(f"{p}: {m}" for p, m in sorted(c.items()) if p != t)
        print(f"    {t:2d}: {n:4d} {c[t] / n:7.2%}  {others}")
    print(f"referee: the sowing played scores best in {right}/{turns} turns "
          f"({right / max(turns, 1):.2%}); {with_hand} frames with an arm over the board")
    print(f"csv: {args.csv}; {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
