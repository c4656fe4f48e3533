"""Board-reading evaluation: a seeded synthetic set and the real photographs of boards_dev/.

Run ``.venv/bin/python -m tests.eval.board [--frames 1000] [--csv FILE]``. Writes one CSV row
per image and prints per-slot count accuracy, boards entirely right, bar accuracy and occlusion
detection (hands over slots: claims made for a hidden slot must be zero). The real photographs
are GPL-licensed and read in place from ``../shared/data/boards_dev``, never copied.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.board_reader import BoardReading, read_board
from vision.calibration import CornersOutsideImageError
from vision.imageio import load_image
from vision.render import random_scene, render_scene

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = Path(os.environ.get("HAKEM_SHARED", REPO.parent / "shared")) / "data"
BOARDS_DEV = SHARED_DATA / "boards_dev"
FIELDS = [
    "image", "kind", "scheme", "occluded_truth", "occluded_read", "slots_right", "slots_claimed",
    "slots_wrong", "hidden_truth", "hidden_claimed", "bar_right", "off_right", "board_right",
    "confidence", "read_ms", "wrong_detail",
]


@dataclass
class Tally:
    """Running totals for one set of images."""

    images: int = 0
    slots: int = 0  # visible slots (not under a hand)
    slots_right: int = 0
    claimed: int = 0  # counts given (a slot the reader calls hidden gets none)
    claimed_right: int = 0
    clear_slots: int = 0  # slots of frames without a hand
    clear_right: int = 0
    boards_clear: int = 0  # frames with no hand over any slot
    boards_right: int = 0
    bar_total: int = 0
    bar_right: int = 0
    off_total: int = 0  # frames without a hand whose trays are both in the picture
    off_right: int = 0
    hand_frames: int = 0
    hand_frames_flagged: int = 0
    clear_frames_flagged: int = 0
    hidden_slots: int = 0
    hidden_claimed: int = 0
    frames_claiming_hidden: int = 0
    # synthetic frames whose random camera put a board corner outside the picture: the reader
    # refuses those (CornersOutsideImageError), as it should; they are not scored
    outside: list[int] = field(default_factory=list)  # their seeds
    times: list[float] = field(default_factory=list)

    def report(self, title: str) -> str:
        def pct(a: int, b: int) -> str:
            return f"{100.0 * a / b:.2f}% ({a}/{b})" if b else "n/a"

        lines = [
            f"== {title}: {self.images} images",
            "per-slot count accuracy, frames without a hand (a slot left unread counts as "
            f"wrong): {pct(self.clear_right, self.clear_slots)}",
            f"counts given that are right (all frames): {pct(self.claimed_right, self.claimed)}",
            "per-slot accuracy over every slot no hand covers (unread near a hand = wrong): "
            f"{pct(self.slots_right, self.slots)}",
            "boards entirely right (no hand over a slot): "
            f"{pct(self.boards_right, self.boards_clear)}",
            f"bar right: {pct(self.bar_right, self.bar_total)}",
            f"borne off right (read in the trays, frames without a hand): "
            f"{pct(self.off_right, self.off_total)}",
            f"frames with a hand over slots reported occluded: "
            f"{pct(self.hand_frames_flagged, self.hand_frames)}",
            f"frames without a hand reported occluded (false alarms): "
            f"{pct(self.clear_frames_flagged, self.boards_clear)}",
            f"hidden slots given a count anyway: {pct(self.hidden_claimed, self.hidden_slots)}; "
            f"frames doing so: {self.frames_claiming_hidden}",
        ]
        if self.outside:
            lines.append("frames refused, a board corner outside the picture (not scored): "
                         + ", ".join(f"synthetic-{seed}" for seed in self.outside))
        if self.times:
            t = np.array(self.times)
            lines.append(f"read time ms: median {np.median(t):.2f}, p95 {np.percentile(t, 95):.2f}")
        return "\n".join(lines)


def score(reading: BoardReading, truth_slots: list[tuple[int, int]],
          truth_bar: tuple[int, int] | None, hidden_truth: set[int], tally: Tally,
          occluded_truth: bool, truth_off: tuple[int, int] | None = None) -> dict[str, object]:
    """Compare one reading with its truth and add it to ``tally``."""
    counts = reading.slot_counts()
    right = wrong = claimed_hidden = 0
    detail = []
    for i, got in enumerate(counts):
        if i in hidden_truth:
            if got is not None:
                claimed_hidden += 1
            continue
        if got is None:
            continue
        if tuple(got) == tuple(truth_slots[i]):
            right += 1
        else:
            wrong += 1
            detail.append(f"{i}:{got[0]},{got[1]}!={truth_slots[i][0]},{truth_slots[i][1]}")
    visible = 24 - len(hidden_truth)
    tally.images += 1
    tally.slots += visible
    tally.slots_right += right
    tally.claimed += right + wrong
    tally.claimed_right += right
    if not hidden_truth:
        tally.clear_slots += 24
        tally.clear_right += right
    bar_ok = None
    if truth_bar is not None and not reading.bar.hidden and not (False):
        bar_ok = tuple(reading.bar.counts) == tuple(truth_bar)
        tally.bar_total += 1
        tally.bar_right += int(bar_ok)
    off_ok = None
    if truth_off is not None and not occluded_truth and reading.off_probs is not None:
        off_ok = reading.off_in_trays() == tuple(truth_off)
        tally.off_total += 1
        tally.off_right += int(off_ok)
    board_ok = False
    if not hidden_truth:
        tally.boards_clear += 1
        board_ok = right == 24
        tally.boards_right += int(board_ok)
        tally.clear_frames_flagged += int(reading.occluded)
    else:
        tally.hand_frames += 1
        tally.hand_frames_flagged += int(reading.occluded)
        tally.hidden_slots += len(hidden_truth)
        tally.hidden_claimed += claimed_hidden
        tally.frames_claiming_hidden += int(claimed_hidden > 0)
    return {
        "occluded_truth": occluded_truth,
        "occluded_read": reading.occluded,
        "slots_right": right,
        "slots_claimed": right + wrong,
        "slots_wrong": wrong,
        "hidden_truth": len(hidden_truth),
        "hidden_claimed": claimed_hidden,
        "bar_right": "" if bar_ok is None else bar_ok,
        "off_right": "" if off_ok is None else off_ok,
        "board_right": board_ok,
        "confidence": round(reading.confidence, 4),
        "wrong_detail": " ".join(detail),
    }


def run_synthetic(frames: int, seed0: int, writer: csv.DictWriter[str], tally: Tally,
                  progress: bool) -> None:
    for k in range(frames):
        seed = seed0 + k
        frame = render_scene(random_scene(seed))
        t = time.perf_counter()
        try:
            reading = read_board(frame.image, corners=frame.corners, name=f"synthetic-{seed}")
        except CornersOutsideImageError:
            tally.outside.append(seed)
            continue
        ms = (time.perf_counter() - t) * 1000.0
        tally.times.append(ms)
        hidden = set(frame.hidden_slots)
        row = score(reading, list(frame.contents.slots), frame.contents.bar
                    if frame.bar_cover < 0.02 else None, hidden, tally, frame.occluded,
                    frame.contents.off)
        row.update(image=f"synthetic-{seed}", kind="synthetic", scheme=frame.spec.scheme.name,
                   read_ms=round(ms, 2))
        writer.writerow(row)
        if progress and (k + 1) % 100 == 0:
            print(f"  {k + 1}/{frames} frames", file=sys.stderr)


def run_real(writer: csv.DictWriter[str], tally: Tally) -> None:
    labels = json.loads((BOARDS_DEV / "labels.json").read_text())["images"]
    for name, lab in sorted(labels.items()):
        c = lab["corners"]
        corners = np.array([c["top_left"], c["top_right"], c["bottom_right"], c["bottom_left"]],
                           dtype=np.float32)
        img = load_image(BOARDS_DEV / name)
        t = time.perf_counter()
        reading = read_board(img, corners=corners, name=name)
        ms = (time.perf_counter() - t) * 1000.0
        tally.times.append(ms)
        truth = [tuple(s) for s in lab["slots"]]
        if lab["occluded"]:
            # the labels do not say which slots the arm hides: only the flag is scored
            tally.images += 1
            tally.hand_frames += 1
            tally.hand_frames_flagged += int(reading.occluded)
            row: dict[str, object] = {
                "occluded_truth": True, "occluded_read": reading.occluded,
                "confidence": round(reading.confidence, 4),
            }
        else:
            row = score(reading, truth, tuple(lab["bar"]), set(), tally, False)
        row.update(image=name, kind="real", scheme=lab["colours"]["a"], read_ms=round(ms, 2))
        writer.writerow(row)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=100_000)
    parser.add_argument("--csv", default=str(Path(tempfile.gettempdir()) / "hakem_board_eval.csv"),
                        help="where to write one row per image (default: the temp folder)")
    parser.add_argument("--no-real", action="store_true")
    args = parser.parse_args(argv)
    synthetic, real = Tally(), Tally()
    with open(args.csv, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        run_synthetic(args.frames, args.seed, writer, synthetic, progress=True)
        if not args.no_real:
            if BOARDS_DEV.is_dir():
                run_real(writer, real)
            else:
                print(f"real photographs not found at {BOARDS_DEV}", file=sys.stderr)
    print(synthetic.report("synthetic"))
    if real.images:
        print(real.report("real boards_dev"))
    print(f"rows written to {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
