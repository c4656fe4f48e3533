"""Benchmark: the table referee on the demo, in ms and frames per second.

Run: ``.venv/bin/python -m tests.bench.referee [--match FILE.mat] [--seeds N]``.
Plays the bundled match (or FILE) through the full pipeline with planted faults and prints:

- press to verdict: from a clock press that ends a move to the journal entry judging it
  (``move`` or ``illegal_move``), as table time (the referee waits for still frames that agree
  after the press, so this is bounded below by the camera's re-read interval) and as the
  computing time the pipeline spent on that press and those frames, median and worst;
- frames per second: the whole demo (rendering included) and the pipeline alone;
- planted faults flagged and missed, legal moves flagged.

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

from controller.clock.messages import PressEvent
from controller.demo.script import BUNDLED
from controller.demo.table import DemoOptions, DemoTable


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
        return {
            "table_ms": table_ms, "compute_ms": compute_ms, "frames": stats.frames,
            "wall": wall, "busy": busy, "stats": stats,
        }
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--match", type=Path, default=BUNDLED)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--illegal", type=int, default=3)
    parser.add_argument("--invalid-throws", type=int, default=3)
    args = parser.parse_args()
    table_ms: list[float] = []
    compute_ms: list[float] = []
    frames = 0
    wall = busy = 0.0
    flagged_illegal = flagged_invalid = missed_illegal = missed_invalid = other = 0
    for seed in range(1, args.seeds + 1):
        r = _one(args.match, seed, args.illegal, args.invalid_throws)
        table_ms += r["table_ms"]
        compute_ms += r["compute_ms"]
        frames += r["frames"]
        wall += r["wall"]
        busy += r["busy"]
        s = r["stats"]
        flagged_illegal += s.planted_illegal_flagged
        flagged_invalid += s.planted_invalid_flagged
        missed_illegal += len(s.planted_illegal_missed)
        missed_invalid += len(s.planted_invalid_missed)
        other += len(s.unplanted_flags)
        print(f"seed {seed}: {r['wall']:.1f} s, {r['frames']} frames")
    print(f"match: {args.match.name}, {args.seeds} run(s)")
    print(f"press to verdict, table time: median {statistics.median(table_ms):.0f} ms, "
          f"worst {max(table_ms):.0f} ms ({len(table_ms)} presses)")
    print(f"press to verdict, computing:  median {statistics.median(compute_ms):.1f} ms, "
          f"worst {max(compute_ms):.1f} ms")
    print(f"frames per second: {frames / wall:.1f} for the whole demo (rendering included), "
          f"{frames / busy:.1f} for the pipeline alone")
    print(f"planted illegal moves flagged {flagged_illegal}/{args.seeds * args.illegal} "
          f"(missed {missed_illegal}); planted invalid throws flagged "
          f"{flagged_invalid}/{args.seeds * args.invalid_throws} (missed {missed_invalid}); "
          f"other flags (legal throws or moves flagged) {other}")


if __name__ == "__main__":
    main()
