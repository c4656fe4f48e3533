"""Board-reading speed against JPEG decoding, and the pipeline's peak memory.

Run ``.venv/bin/python -m tests.bench.vision``. For rendered 1280x720 frames it prints, side by
side, what OpenCV spends decoding each frame's JPEG and what reading the decoded frame costs
(calibration from corners, warp, checkers, bar, colours, occlusion), their ratio, and the peak
memory of the process (resident set, from the kernel). Targets live in
``vision.config.BenchConfig``: reading at most 1.5 decodes (decode plus read at most 2.5), and
under 150 MB.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
import tracemalloc

import cv2
import numpy as np

from vision.board_reader import read_board
from vision.config import DEFAULT_CONFIG
from vision.render import random_scene, render_scene


def _best_of(fn: object, repeat: int) -> float:
    """Median of ``repeat`` timings, in milliseconds (the median resists a busy machine)."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append((time.perf_counter() - t) * 1000.0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)  # one core, as on a busy Pi; both sides measured alike
    target = DEFAULT_CONFIG.bench
    print(f"{'frame':>8} {'decode ms':>10} {'read ms':>9} {'read/decode':>12} "
          f"{'(decode+read)/decode':>21}")
    ratios = []
    tracemalloc.start()
    for k in range(args.frames):
        frame = render_scene(random_scene(900 + k, hand_probability=0.0))
        buf = np.frombuffer(frame.jpeg, np.uint8)
        image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        assert image.shape[:2] == (720, 1280)
        corners = frame.corners
        read_board(image, corners=corners)  # warm the caches
        decode = _best_of(lambda b=buf: cv2.imdecode(b, cv2.IMREAD_COLOR), args.repeat)
        read = _best_of(lambda i=image, c=corners: read_board(i, corners=c), args.repeat)
        ratios.append(read / decode)
        print(f"{900 + k:>8} {decode:>10.2f} {read:>9.2f} {read / decode:>12.2f} "
              f"{(decode + read) / decode:>21.2f}")
    _, py_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    ratio = statistics.median(ratios)
    print(f"median read/decode: {ratio:.2f} (target <= {target.max_read_to_decode_ratio - 1:.1f}; "
          f"decode+read <= {target.max_read_to_decode_ratio:.1f} decodes)")
    print(f"peak memory: {rss_mb:.1f} MB resident for the whole process (renderer included), "
          f"{py_peak / 2**20:.1f} MB of Python allocations; target < {target.max_memory_mb:.0f} MB")
    ok = ratio + 1.0 <= target.max_read_to_decode_ratio and rss_mb < target.max_memory_mb
    print("within targets" if ok else "OUTSIDE targets")
    return 0


if __name__ == "__main__":
    sys.exit(main())
