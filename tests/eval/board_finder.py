"""Board-finder evaluation: the playing surface found with no markers and no corners.

Run ``.venv/bin/python -m tests.eval.board_finder [--frames 200] [--csv FILE]``. On the real
photographs of ``../shared/data/boards_dev`` (GPL, read in place) it prints each photo's corner
error against the labelled corners and how many slots the reader gets right from the found
corners; on a seeded synthetic set (every colour scheme, tilt, lens distortion, light, hands)
the found rate, the corner error (median, 95th percentile, worst) and the boards read entirely
right from the found corners, next to the same reader given the true corners.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

import numpy as np

from engine.errors import ImageError
from tests.eval.board import BOARDS_DEV, Tally, score
from vision.board_finder import find_board
from vision.board_reader import read_board
from vision.calibration import BoardNotFoundError, from_corners
from vision.geometry import BoardGeometry
from vision.imageio import load_image
from vision.render import random_scene, render_scene

FIELDS = ["image", "kind", "scheme", "found", "corner_error_px", "mean_error_px", "inlier_share",
          "find_ms", "hand", "slots_right", "board_right", "board_right_true_corners"]
ORDER = ("top_left", "top_right", "bottom_right", "bottom_left")


def corner_errors(found: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """Largest and mean distance (px) between found and true corners."""
    d = np.linalg.norm(np.asarray(found, np.float64) - np.asarray(truth, np.float64), axis=1)
    return float(d.max()), float(d.mean())


def run_real(writer: csv.DictWriter[str]) -> list[str]:
    """Each labelled photo: corner error and slots right from the found corners."""
    labels = json.loads((BOARDS_DEV / "labels.json").read_text())["images"]
    lines = []
    g = BoardGeometry()
    for name, lab in sorted(labels.items()):
        img = load_image(BOARDS_DEV / name)
        truth = np.array([lab["corners"][k] for k in ORDER], dtype=np.float64)
        t = time.perf_counter()
        try:
            found = find_board(img, g)
        except BoardNotFoundError as exc:
            lines.append(f"{name}: not found ({exc})")
            writer.writerow({"image": name, "kind": "real", "found": False})
            continue
        ms = (time.perf_counter() - t) * 1000.0
        worst, mean = corner_errors(found.corners, truth)
        reading = read_board(img, corners=found.corners, name=name)
        counts = [list(c) if c else None for c in reading.slot_counts()]
        right = sum(c == s for c, s in zip(counts, lab["slots"], strict=True))
        occ = "occluded (labelled so)" if lab["occluded"] else "clear"
        flag = "reported occluded" if reading.occluded else "not reported occluded"
        slots = "" if lab["occluded"] else f", slots right {right}/24"
        lines.append(f"{name} [{occ}]: corner error worst {worst:.1f} px, mean {mean:.1f} px, "
                     f"fit {found.inlier_share:.0%}{slots}, {flag}, {ms:.0f} ms")
        writer.writerow({"image": name, "kind": "real", "scheme": lab["colours"]["a"],
                         "found": True, "corner_error_px": round(worst, 2),
                         "mean_error_px": round(mean, 2),
                         "inlier_share": round(found.inlier_share, 3), "find_ms": round(ms, 1),
                         "hand": lab["occluded"], "slots_right": right,
                         "board_right": (right == 24) if not lab["occluded"] else ""})
    return lines


def run_synthetic(frames: int, seed0: int, writer: csv.DictWriter[str],
                  progress: bool) -> list[str]:
    """The seeded synthetic set: found rate, corner error, boards right."""
    g = BoardGeometry()
    errors: list[float] = []
    times: list[float] = []
    found_n = 0
    by_scheme: dict[str, list[int]] = {}
    found_tally, true_tally = Tally(), Tally()
    for k in range(frames):
        seed = seed0 + k
        frame = render_scene(random_scene(seed))
        scheme = frame.spec.scheme.name
        row: dict[str, object] = {"image": f"synthetic-{seed}", "kind": "synthetic",
                                  "scheme": scheme, "hand": bool(frame.spec.hands)}
        stats = by_scheme.setdefault(scheme, [0, 0])
        stats[1] += 1
        t = time.perf_counter()
        try:
            found = find_board(frame.image, g)
            cal = from_corners(found.corners, frame.image.shape, g, "found")
        except BoardNotFoundError:
            row["found"] = False
            writer.writerow(row)
            continue
        ms = (time.perf_counter() - t) * 1000.0
        row["inlier_share"] = round(found.inlier_share, 3)
        found_n += 1
        stats[0] += 1
        times.append(ms)
        worst, mean = corner_errors(cal.corners, frame.corners)
        errors.append(worst)
        hidden = set(frame.hidden_slots)
        truth = list(frame.contents.slots)
        reading = read_board(frame.image, calibration=cal, name=row["image"].__str__())
        res = score(reading, truth, None, hidden, found_tally, frame.occluded)
        try:
            reference = read_board(frame.image, corners=frame.corners)
        except ImageError:  # the true corners lie outside the picture: no reference reading
            ref: dict[str, object] = {"board_right": ""}
        else:
            ref = score(reference, truth, None, hidden, true_tally, frame.occluded)
        row.update(found=True, corner_error_px=round(worst, 2), mean_error_px=round(mean, 2),
                   find_ms=round(ms, 1), slots_right=res["slots_right"],
                   board_right=res["board_right"], board_right_true_corners=ref["board_right"])
        writer.writerow(row)
        if progress and (k + 1) % 50 == 0:
            print(f"  {k + 1}/{frames} frames", file=sys.stderr)
    e = np.array(errors) if errors else np.array([np.nan])
    lines = [
        f"== synthetic: {frames} frames (seeds {seed0}..{seed0 + frames - 1}, no markers)",
        f"found: {100.0 * found_n / frames:.1f}% ({found_n}/{frames})",
        f"corner error (worst corner, px): median {np.median(e):.2f}, "
        f"95th percentile {np.percentile(e, 95):.2f}, worst {e.max():.2f}",
        f"found within 3 px: {int((e <= 3).sum())}, within 6 px: {int((e <= 6).sum())}, "
        f"over 10 px: {int((e > 10).sum())}",
        "boards entirely right, frames without a hand, from the found corners: "
        f"{found_tally.boards_right}/{found_tally.boards_clear}; "
        f"from the true corners: {true_tally.boards_right}/{true_tally.boards_clear}",
        "per-slot accuracy over slots no hand covers, found corners: "
        f"{100.0 * found_tally.slots_right / max(1, found_tally.slots):.2f}%; true corners: "
        f"{100.0 * true_tally.slots_right / max(1, true_tally.slots):.2f}%",
        "per scheme found: " + ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(
            by_scheme.items())),
    ]
    if times:
        lines.append(f"find time ms: median {np.median(times):.0f}, worst {max(times):.0f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--seed", type=int, default=70000)
    ap.add_argument("--csv", help="write one row per image here")
    ap.add_argument("--no-real", action="store_true")
    ap.add_argument("--progress", action="store_true")
    args = ap.parse_args(argv)
    out = open(args.csv, "w", newline="") if args.csv else open("/dev/null", "w")  # noqa: SIM115
    with out:
        writer = csv.DictWriter(out, fieldnames=FIELDS)
        writer.writeheader()
        if not args.no_real:
            if Path(BOARDS_DEV).is_dir():
                print("== real photographs (boards_dev, labelled corners as truth)")
                for line in run_real(writer):
                    print(line)
            else:
                print(f"real photographs not found at {BOARDS_DEV}", file=sys.stderr)
        if args.frames > 0:
            for line in run_synthetic(args.frames, args.seed, writer, args.progress):
                print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
