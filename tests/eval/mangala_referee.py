"""Evaluation of the Mangala referee's recognition on rendered turns: does it name the pit played?

Run ``.venv/bin/python -m tests.eval.mangala_referee [--turns N] [--illegal N] [--seed0 S]``.

Each turn: a position from a seeded game (random and greedy sowings from the set-up, MG-1..MG-4),
a seeded legal pit, the board after it rendered by ``vision.mangala.render`` (stones of mixed
colours, tilt, uneven light, noise, JPEG) and read by ``vision.mangala.reader``; the referee's
recognition (``controller.mangala.recognition.decide``, on that one still frame) must accept a
legal sowing giving the true board. Printed: pit identified (the issue asks for 99.9%), another
pit taken, flagged as illegal (a false accusation), left undecided (the referee would wait for
more frames and in the end say "cannot read"). With ``--illegal N``, N more turns show a planted
mistake, alternately one recognition models (``mistakes``) and one it does not
(``other_mistakes``: sowing to the left, a pit passed over, two stones in one pit, a stone kept
back, an odd pit captured, the opponent's pit sown), each plain to a camera (``plain``: not
a stone or two between piles a reader miscounts, nor a difference in the stores alone):
flagged, accepted as legal, undecided. With ``--early N``, N turns show the mover's sowing and
then the opponent's, made before the mover pressed: not illegal (MG-CLOCK-2), to be told apart.

The recognition thresholds (``controller.mangala.recognition.Settings``) were tuned looking at
the misses of seeds 500000..500999; report figures from other seeds (e.g. ``--seed0 900000``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from controller.mangala.mistakes import mistakes, other_mistakes
from controller.mangala.reading import ReadingView
from controller.mangala.recognition import Decision, decide, lines, visibility
from controller.mangala.script import VISIBLE, plain
from engine.mangala.position import Position
from engine.mangala.sowing import legal_pits, play
from vision.mangala.reader import read_mangala
from vision.mangala.render import render_mangala

Board = tuple[int, ...]


def position_for(rng: random.Random) -> Position:
    """A position met in play: the set-up and 0..40 seeded sowings, the set still going."""
    while True:
        position = Position.initial(rng.choice(("a", "b")))
        for _ in range(rng.randrange(0, 41)):
            pits = legal_pits(position)
            side = position.to_move
            if not pits or side is None:
                break
            if rng.random() < 0.5:
                pit = rng.choice(pits)
            else:
                pit = max(pits, key=lambda p: (play(position, p).position.store(side),
                                               rng.random()))
            result = play(position, pit)
            if result.set_over:
                break
            position = result.position
        if legal_pits(position):
            return position


def judge_frame(board: tuple[int, ...], seed: int, before: Position,
                size: tuple[int, int]) -> Decision:
    image, corners = render_mangala(list(board), seed, size=size)
    view = ReadingView(read_mangala(image, corners))
    return decide([view], before)


def planted(count: int, seed0: int, size: tuple[int, int]
            ) -> list[tuple[str, str, int, str, str]]:
    """``count`` turns with a planted mistake, modelled and unmodelled alternately (cached):
    (kind, decision, seed, mistake, reason)."""
    key = (count, seed0, size)
    if key not in _PLANTED:
        out: list[tuple[str, str, int, str, str]] = []
        for k in range(count):
            seed = seed0 + 1_000_000 + k
            rng = random.Random(seed)
            kind = "modelled" if k % 2 == 0 else "other"
            made = None
            while made is None:  # a position where such a plain mistake can be made
                made = planted_turn(rng, kind)
            before, name, board = made
            d = judge_frame(board, seed, before, size)
            out.append((kind, d.kind, seed, name, d.reason))
        _PLANTED[key] = out
    return _PLANTED[key]


_PLANTED: dict[tuple[int, int, tuple[int, int]], list[tuple[str, str, int, str, str]]] = {}


def planted_turn(rng: random.Random, kind: str) -> tuple[Position, str, Board] | None:
    """A position and a mistaken board of the kind asked for, plain to a camera."""
    before = position_for(rng)
    source = mistakes if kind == "modelled" else other_mistakes
    options = [(name, board) for p in legal_pits(before) for name, board in source(before, p)
               if plain(before, p, board)]
    if not options:
        return None
    name, board = rng.choice(options)
    return before, name, board


def early_turn(rng: random.Random) -> tuple[Position, Board]:
    """A position, and the board after a legal sowing of the mover followed by one of the
    opponent's made before the mover pressed (MG-CLOCK-2), plain to a camera."""
    while True:
        before = position_for(rng)
        result = play(before, rng.choice(legal_pits(before)))
        if result.set_over or result.extra_turn:
            continue
        then = play(result.position, rng.choice(legal_pits(result.position)))
        board = then.position.board()
        if min(visibility(board, line.board) for line in lines(before)) >= VISIBLE:
            return before, board


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=1000, help="legal turns (default 1000)")
    parser.add_argument("--illegal", type=int, default=0, help="turns with a planted mistake")
    parser.add_argument("--early", type=int, default=0,
                        help="turns where the opponent sows before the mover pressed")
    parser.add_argument("--seed0", type=int, default=500_000)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=720)
    args = parser.parse_args(argv)
    size = (args.width, args.height)
    counts = {"identified": 0, "other_pit": 0, "flagged": 0, "undecided": 0}
    misses: list[str] = []
    start = time.perf_counter()
    for k in range(args.turns):
        rng = random.Random(args.seed0 + k)
        before = position_for(rng)
        pit = rng.choice(legal_pits(before))
        after = play(before, pit).position.board()
        d = judge_frame(after, args.seed0 + k, before, size)
        if d.kind == "legal" and d.line is not None and d.line.board == after:
            counts["identified"] += 1
        elif d.kind == "legal":
            counts["other_pit"] += 1
            misses.append(f"turn {k}: pit {pit} taken for {d.line.pits if d.line else None}")
        elif d.kind == "early":
            counts["other_pit"] += 1
            misses.append(f"turn {k}: pit {pit} taken for an early move of the opponent")
        elif d.kind == "illegal":
            counts["flagged"] += 1
            misses.append(f"turn {k}: pit {pit} flagged: {d.rule} {d.reason[:90]}")
        else:
            counts["undecided"] += 1
            misses.append(f"turn {k}: pit {pit} undecided: {d.reason[:90]}")
        if (k + 1) % 50 == 0:
            print(f"  {k + 1} turns, {counts}", file=sys.stderr, flush=True)
    n = max(1, args.turns)
    print(f"Mangala referee on {args.turns} rendered legal turns ({size[0]}x{size[1]}, "
          f"one still frame each, seeds {args.seed0}..):")
    print(f"  pit identified        {counts['identified']}/{args.turns} = "
          f"{100.0 * counts['identified'] / n:.2f}%")
    print(f"  another pit taken     {counts['other_pit']}")
    print(f"  flagged as illegal    {counts['flagged']}")
    print(f"  undecided (waits)     {counts['undecided']}")
    for line in misses[:20]:
        print("   ", line)
    if args.illegal:
        print(f"Planted mistakes on {args.illegal} rendered turns (modelled and unmodelled "
              f"alternately, each plain to a camera: visibility >= {VISIBLE} from every "
              f"legal result, and not in the stores alone):")
        for label, key in (("modelled (mistakes.py)", "modelled"),
                           ("unmodelled (other_mistakes)", "other")):
            got = [r for r in planted(args.illegal, args.seed0, size) if r[0] == key]
            n_done = max(1, len(got))
            flagged = sum(1 for r in got if r[1] == "illegal")
            accepted = sum(1 for r in got if r[1] == "legal")
            early = sum(1 for r in got if r[1] == "early")
            waits = len(got) - flagged - accepted - early
            print(f"  {label:28s} flagged {flagged}/{len(got)} = "
                  f"{100.0 * flagged / n_done:.2f}%, accepted as legal {accepted}, taken for "
                  f"an early move {early}, undecided {waits}")
            for r in got:
                if r[1] != "illegal":
                    print(f"    seed {r[2]}: {r[3]} -> {r[1]}: {r[4][:90]}")
    if args.early:
        got_early = {"early": 0, "illegal": 0, "other": 0}
        for k in range(args.early):
            seed = args.seed0 + 2_000_000 + k
            rng = random.Random(seed)
            before, board = early_turn(rng)
            d = judge_frame(board, seed, before, size)
            got_early[d.kind if d.kind in got_early else "other"] += 1
        print(f"The opponent sowing before the mover pressed (MG-CLOCK-2), {args.early} turns:")
        print(f"  told apart (not illegal) {got_early['early']}, flagged as illegal (false) "
              f"{got_early['illegal']}, other {got_early['other']}")
    print(f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
