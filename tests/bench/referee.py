"""Benchmark: the table referee on the demo, in ms and frames per second.

Run: ``.venv/bin/python -m tests.bench.referee [--match FILE.mat] [--seeds N] [--corpus N]``.
Plays the bundled match (or FILE, or the first N playable real matches of
``../shared/data/matches/`` with ``--corpus``) through the full pipeline with planted faults
and prints:

- press to verdict: from a clock press that ends a move to the journal entry judging it
  (``move`` or ``illegal_move``), as table time (the referee waits for still frames that agree
  after the press, so this is bounded below by the camera's re-read interval) and as the
  computing time the pipeline spent on that press and those frames, median and worst;
- frames per second: the whole demo (rendering included) and the pipeline alone;
- what the dice and the cube add to the board's reading over the whole match: CPU ms per still
  frame of each reader (``controller.runtime.view.ReadCosts``; OpenCV on one thread, as
  ``tests.bench.dice``), where the pipeline reads the dice only while a throw may come and
  again only where the picture changed, and (dice + cube) / board (issue 5 asks for <= 0.30);
- planted faults flagged and missed, legal moves flagged;
- with ``--corpus``: per match, whether the written ``match.mat`` equals the source match as the
  engine reads it.

Prints measured figures only; nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2

from controller.clock.messages import PressEvent
from controller.demo.script import BUNDLED, load_match
from controller.demo.table import DemoOptions, DemoTable
from controller.runtime.view import ReadCosts
from engine.backgammon.mat_reader import parse_mat_bytes
from engine.backgammon.mat_replay import replay as replay_mat
from engine.errors import HakemError
from tests.conftest import SHARED_DATA


def _same_record(mat: Path, source: Path) -> bool:
    """The written record replays to the same games, turns, cube and score as the source."""
    ours = replay_mat(parse_mat_bytes(mat.read_bytes()))
    theirs = replay_mat(parse_mat_bytes(source.read_bytes()))

    def turns(r: Any) -> list[Any]:
        return [(g.result, [(t.player, t.dice, t.before.board, t.result.board) for t in g.turns])
                for g in r.games]

    return bool(ours.legal and turns(ours) == turns(theirs)
                and ours.final_score == theirs.final_score)


def _playable(folder: Path, count: int) -> list[Path]:
    """The first ``count`` matches (by name) a table can referee from start to end."""
    out: list[Path] = []
    for path in sorted(folder.glob("*.txt")):
        try:
            load_match(path)
        except HakemError:
            continue
        out.append(path)
        if len(out) == count:
            break
    return out


def _one(match: Path, seed: int, illegal: int, invalid: int) -> dict[str, Any]:
    out = Path(tempfile.mkdtemp(prefix="hakem-bench-"))
    try:
        options = DemoOptions(match=match, out=out, illegal=illegal, invalid_throws=invalid,
                              seed=seed, record=False)
        presses: list[tuple[int, float]] = []  # (table ms, pipeline busy s) at a move press
        table_ms: list[float] = []
        compute_ms: list[float] = []
        with DemoTable(options, log=None) as table:
            pipeline = table.pipeline

            def observe(kind: str, t_ms: int, payload: object) -> None:
                if kind == "clock" and isinstance(payload, PressEvent):
                    presses.append((t_ms, pipeline.timings.busy_s))

            def entry(e: dict[str, Any]) -> None:
                if e["type"] in ("move", "illegal_move", "cannot_read") and presses:
                    t0, busy0 = presses[-1]
                    table_ms.append(float(table.time.now_ms() - t0))
                    compute_ms.append((pipeline.timings.busy_s - busy0) * 1000.0)
                    presses.clear()

            pipeline.observer = observe
            table.executor.on_entry = entry
            start = time.perf_counter()
            stats = table.run()
            wall = time.perf_counter() - start
            busy = pipeline.timings.busy_s
            costs = pipeline.reader.costs
        same = (out / "match.mat").is_file() and _same_record(out / "match.mat", match)
        return {
            "table_ms": table_ms, "compute_ms": compute_ms, "frames": stats.frames,
            "wall": wall, "busy": busy, "stats": stats, "same": same, "costs": costs,
        }
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--match", type=Path, default=BUNDLED)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--illegal", type=int, default=3)
    parser.add_argument("--invalid-throws", type=int, default=3)
    parser.add_argument("--corpus", type=int, default=0, metavar="N",
                        help="play the first N playable matches of ../shared/data/matches/")
    args = parser.parse_args()
    cv2.setNumThreads(1)  # the readers' CPU time is taken on this thread
    runs: list[tuple[Path, int]] = [(args.match, seed) for seed in range(1, args.seeds + 1)]
    if args.corpus:
        runs = [(path, 1) for path in _playable(SHARED_DATA / "matches", args.corpus)]
    table_ms: list[float] = []
    compute_ms: list[float] = []
    frames = 0
    wall = busy = 0.0
    flagged_illegal = flagged_invalid = missed_illegal = missed_invalid = other = 0
    same = stalled = 0
    costs = ReadCosts()
    for match, seed in runs:
        try:
            r = _one(match, seed, args.illegal, args.invalid_throws)
        except HakemError as exc:
            stalled += 1
            print(f"{match.name} seed {seed}: stopped: {exc}")
            continue
        same += r["same"]
        table_ms += r["table_ms"]
        compute_ms += r["compute_ms"]
        frames += r["frames"]
        wall += r["wall"]
        busy += r["busy"]
        for name in ("frames", "board_ms", "cube_ms"):
            setattr(costs, name, getattr(costs, name) + getattr(r["costs"], name))
        for kind, (count, ms) in r["costs"].dice_by_read.items():
            total = costs.dice_by_read.setdefault(kind, [0, 0.0])
            total[0] += count
            total[1] += ms
        s = r["stats"]
        flagged_illegal += s.planted_illegal_flagged
        flagged_invalid += s.planted_invalid_flagged
        missed_illegal += len(s.planted_illegal_missed)
        missed_invalid += len(s.planted_invalid_missed)
        other += len(s.unplanted_flags)
        print(f"{match.name} seed {seed}: {r['wall']:.1f} s, {r['frames']} frames, "
              f"illegal flagged {s.planted_illegal_flagged}/{args.illegal}, invalid throws "
              f"flagged {s.planted_invalid_flagged}/{args.invalid_throws}, other flags "
              f"{len(s.unplanted_flags)}, match.mat same as the source: {r['same']}")
    done = len(runs) - stalled
    print(f"{len(runs)} run(s): {done} played to the end, {stalled} stopped; match.mat equal "
          f"to the source in {same}/{done}")
    if not table_ms:
        return
    print(f"press to verdict, table time: median {statistics.median(table_ms):.0f} ms, "
          f"worst {max(table_ms):.0f} ms ({len(table_ms)} presses)")
    print(f"press to verdict, computing:  median {statistics.median(compute_ms):.1f} ms, "
          f"worst {max(compute_ms):.1f} ms")
    print(f"frames per second: {frames / wall:.1f} for the whole demo (rendering included), "
          f"{frames / busy:.1f} for the pipeline alone")
    n = max(costs.frames, 1)
    print(f"reading per still frame (CPU ms, {costs.frames} frames): board "
          f"{costs.board_ms / n:.2f}, dice {costs.dice_ms / n:.2f} (read on {costs.dice_frames}), "
          f"cube {costs.cube_ms / n:.2f}; dice and cube add {costs.ratio() or 0.0:.2f} of the "
          f"board's time over the match")
    print("  the dice by how they were read: " + "; ".join(
        f"{kind} {int(count)} x {ms / max(count, 1):.1f} ms "
        f"({100 * ms / max(costs.dice_ms, 1e-9):.0f}%)"
        for kind, (count, ms) in sorted(costs.dice_by_read.items())))
    print(f"planted illegal moves flagged {flagged_illegal}/{done * args.illegal} "
          f"(missed {missed_illegal}); planted invalid throws flagged "
          f"{flagged_invalid}/{done * args.invalid_throws} (missed {missed_invalid}); "
          f"other flags (legal throws or moves flagged) {other}")


if __name__ == "__main__":
    main()
