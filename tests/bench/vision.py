"""Board-reading speed against JPEG decoding, and the pipeline's peak memory.

Run ``.venv/bin/python -m tests.bench.vision``. It renders 1280x720 frames, then, in a fresh
process that holds only the reading pipeline, times OpenCV decoding each frame's JPEG and
reading the decoded frame (calibration from corners, warp, checkers, bar, colours, occlusion,
dice and cube), and the same reading without the dice/cube pass, interleaved, as CPU time of
the (single) working thread so that other processes on a busy machine do not count, and prints
them side by side with their ratios and the process's peak resident memory. Targets live in
``vision.config.BenchConfig``: decode plus read at most 2.5 decodes (reading at most 1.5),
under 150 MB. One OpenCV thread.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np


def _peak_rss_mb() -> float:
    """Peak resident memory of this process image: VmHWM (Linux), which, unlike ru_maxrss,
    does not inherit the parent's peak across fork and exec."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return float(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _worker(folder: Path, repeat: int) -> int:
    """Time decode vs read for every frame in ``folder``; print one JSON result."""
    from vision.board_reader import read_board

    cv2.setNumThreads(1)
    rows = []
    for meta_path in sorted(folder.glob("*.json")):
        meta = json.loads(meta_path.read_text())
        buf = np.frombuffer(meta_path.with_suffix(".jpg").read_bytes(), np.uint8)
        corners = np.array(meta["corners"], np.float32).reshape(4, 2)
        image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        read_board(image, corners=corners)  # warm caches
        dec, rd, board = [], [], []
        for _ in range(repeat):
            t0 = time.thread_time()
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
            t1 = time.thread_time()
            read_board(img, corners=corners)
            t2 = time.thread_time()
            read_board(img, corners=corners, dice=False)
            t3 = time.thread_time()
            dec.append((t1 - t0) * 1000.0)
            rd.append((t2 - t1) * 1000.0)
            board.append((t3 - t2) * 1000.0)
        rows.append({"frame": meta["seed"], "decode": statistics.median(dec),
                     "read": statistics.median(rd), "board": statistics.median(board)})
    print(json.dumps({"rows": rows, "rss_mb": _peak_rss_mb()}))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=60)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return _worker(Path(args.worker), args.repeat)
    from vision.config import DEFAULT_CONFIG
    from vision.render import random_scene, render_scene

    target = DEFAULT_CONFIG.bench
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.frames):
            seed = 900 + k
            frame = render_scene(random_scene(seed, hand_probability=0.0))
            Path(tmp, f"{seed}.jpg").write_bytes(frame.jpeg)
            Path(tmp, f"{seed}.json").write_text(
                json.dumps({"seed": seed, "corners": frame.corners_flat}))
        proc = subprocess.run(
            [sys.executable, "-m", "tests.bench.vision", "--worker", tmp,
             "--repeat", str(args.repeat)],
            capture_output=True, text=True, check=True,
        )
    result = json.loads(proc.stdout)
    print(f"{'frame':>8} {'decode ms':>10} {'read ms':>9} {'read/decode':>12} "
          f"{'(decode+read)/decode':>21} {'board ms':>9} {'board/decode':>13}")
    ratios, board_ratios = [], []
    for row in result["rows"]:
        r = row["read"] / row["decode"]
        b = row["board"] / row["decode"]
        ratios.append(r)
        board_ratios.append(b)
        print(f"{row['frame']:>8} {row['decode']:>10.2f} {row['read']:>9.2f} {r:>12.2f} "
              f"{r + 1.0:>21.2f} {row['board']:>9.2f} {b:>13.2f}")
    ratio = statistics.median(ratios)
    board_ratio = statistics.median(board_ratios)
    rss = result["rss_mb"]
    print(f"median: reading costs {ratio:.2f} decodes; decode+read {ratio + 1:.2f} decodes "
          f"(target <= {target.max_read_to_decode_ratio:.1f})")
    board_ok = board_ratio + 1.0 <= target.max_read_to_decode_ratio
    print(f"of which the board alone (no dice/cube pass): {board_ratio:.2f} decodes; "
          f"decode+board {board_ratio + 1:.2f} decodes "
          f"({'within' if board_ok else 'OUTSIDE'} the target for the board alone)")
    print(f"peak memory of the reading process: {rss:.1f} MB resident "
          f"(target < {target.max_memory_mb:.0f} MB)")
    ok = ratio + 1.0 <= target.max_read_to_decode_ratio and rss < target.max_memory_mb
    print("within targets" if ok else "OUTSIDE targets")
    return 0


if __name__ == "__main__":
    sys.exit(main())
