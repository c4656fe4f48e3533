"""Benchmark: reading a Mangala board (14 cells) and one-pit photos, in ms per frame.

Run ``.venv/bin/python -m tests.bench.stones [N]``: N rendered 1280x720 boards from a game's
opening to piles of 15; prints the median and worst time of ``read_mangala`` (calibrated board,
all 14 cells with arm detection), of scoring 6 candidate sowings with ``log_likelihood``, of
``read_cell_photo`` (``hakem vision stones``) and, for scale, of decoding the JPEG frame.
The board reading's CPU time is printed too: on a shared, loaded machine it is the steadier
figure.
"""

from __future__ import annotations

import statistics
import sys
import time

import cv2
import numpy as np

from vision.mangala.geometry import DEFAULT_GEOMETRY, calibrate
from vision.mangala.photo import read_cell_photo
from vision.mangala.reader import log_likelihood, read_mangala
from vision.mangala.render import render_mangala


def _ms(t: float) -> float:
    return 1000.0 * (time.perf_counter() - t)


def main(argv: list[str]) -> int:
    """Time the readers and print the figures."""
    n = int(argv[0]) if argv else 20
    rng = np.random.default_rng(70_000)
    board_ms, score_ms, photo_ms, decode_ms, board_cpu = [], [], [], [], []
    for k in range(n):
        cells = [int(rng.integers(0, 16)) for _ in range(14)]
        img, corners = render_mangala(cells, 70_000 + k, hand=bool(k % 4 == 3))
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
        assert ok
        t = time.perf_counter()
        cv2.imdecode(buf, cv2.IMREAD_COLOR)
        decode_ms.append(_ms(t))
        t = time.perf_counter()
        c = time.process_time()
        reading = read_mangala(img, corners)
        board_ms.append(_ms(t))
        board_cpu.append(1000.0 * (time.process_time() - c))
        hyps = [[int(v) for v in np.clip(np.array(cells) + rng.integers(-1, 2, 14), 0, 48)]
                for _ in range(6)]
        t = time.perf_counter()
        for h in hyps:
            log_likelihood(reading, h)
        score_ms.append(_ms(t))
        cal = calibrate(corners, img.shape)
        cell = DEFAULT_GEOMETRY.cell(0)
        (cx, cy), (hx, hy) = cell.centre, cell.half_size
        box = cal.points_to_image(
            np.array([[cx - hx - 2, cy - hy - 2], [cx + hx + 2, cy + hy + 2]]))
        (x0, y0), (x1, y1) = box.astype(int)
        crop = np.ascontiguousarray(img[y0:y1, x0:x1])
        t = time.perf_counter()
        read_cell_photo(crop)
        photo_ms.append(_ms(t))

    def line(name: str, vals: list[float]) -> str:
        return f"{name:<42} median {statistics.median(vals):7.1f} ms, worst {max(vals):7.1f} ms"

    print(f"frames: {n} rendered 1280x720 Mangala boards (every 4th with an arm over it)")
    print(line("JPEG decode of the frame", decode_ms))
    print(line("read_mangala (14 cells, arm detection)", board_ms))
    print(line("  the same, CPU time of this process", board_cpu))
    print(line("log_likelihood of 6 candidate sowings", score_ms))
    print(line("read_cell_photo (one pit photo)", photo_ms))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
