"""The real dice photographs, die by die: figures per split and every miss, misread and extra.

Run ``.venv/bin/python -m tests.eval.dice_photos [--split Train|Valid|both] [--errors]
[--crops DIR] [--photos DIR]``.

Prints, per split, dice found and found dice read right under the same matching rules as
``tests.eval.dice`` (IoU >= 0.5, 0.3, 0.2 and mutual centre containment). With ``--errors`` it
lists, by the centre rule, each labelled die that no detection matched (``MISS``), each matched
die read wrong (``READ``) and each detection that matched no label (``EXTRA``); with ``--crops``
it writes a crop of each around the die, labelled box green, detections red, pip candidates
blue (face score >= 0.5) or yellow (below), for looking at.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from tests.conftest import SHARED_DATA
from vision.dice.detect import DieFinding, find_dice
from vision.dice.faces import face_scores
from vision.dice.pips import find_pips
from vision.dice.train import read_labels

SHARED = SHARED_DATA / "dice_photos"  # ../shared, or HAKEM_SHARED
RULES = ("iou>=0.5", "iou>=0.3", "iou>=0.2", "centre")

Box = tuple[float, ...]


@dataclass(frozen=True)
class Error:
    """One error by the centre rule: kind (MISS, READ, EXTRA), image, label pips, found pips."""

    kind: str
    image: Path
    box: Box
    truth: int
    found: int


def _inside(p: tuple[float, float], box: Box) -> bool:
    return box[0] <= p[0] <= box[2] and box[1] <= p[1] <= box[3]


def _iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def match(rule: str, labels: list[tuple[int, Box]], found: list[DieFinding]
          ) -> list[int | None]:
    """For each label, the index of the detection matched to it (greedy, label by label: the
    eligible detection with the largest IoU), under ``rule``: ``centre`` or ``iou>=X``."""
    used: set[int] = set()
    out: list[int | None] = []
    for _, box in labels:
        centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        ok = []
        for i, f in enumerate(found):
            if i in used:
                continue
            if rule == "centre":
                hit = _inside(f.centre, box) and _inside(centre, f.box)
            else:
                hit = _iou(f.box, box) >= float(rule.split(">=")[1])
            if hit:
                ok.append(i)
        best = max(ok, key=lambda i: _iou(found[i].box, box)) if ok else None
        if best is not None:
            used.add(best)
        out.append(best)
    return out


def evaluate(split_dir: Path) -> tuple[dict[str, list[int]], list[Error]]:
    """Per rule (labelled, found, read right), and the centre rule's errors."""
    counts = {r: [0, 0, 0] for r in RULES}
    errors: list[Error] = []
    for path in sorted(split_dir.glob("*.jpg"), key=lambda p: (len(p.name), p.name)):
        image = cv2.imread(str(path))
        if image is None:
            continue
        labels = read_labels(path, image.shape[1], image.shape[0])
        found = find_dice(image)
        for rule in RULES:
            matched = match(rule, labels, found)
            for (pips, box), m in zip(labels, matched, strict=True):
                counts[rule][0] += 1
                if m is None:
                    if rule == "centre":
                        errors.append(Error("MISS", path, box, pips, 0))
                    continue
                counts[rule][1] += 1
                counts[rule][2] += found[m].pips == pips
                if rule == "centre" and found[m].pips != pips:
                    errors.append(Error("READ", path, box, pips, found[m].pips))
            if rule == "centre":
                for i, f in enumerate(found):
                    if i not in matched:
                        errors.append(Error("EXTRA", path, f.box, 0, f.pips))
    return counts, errors


def save_crop(err: Error, out_dir: Path, index: int) -> Path:
    """A 3x enlarged crop around the error, label green, detections red with their pips."""
    image = cv2.imread(str(err.image))
    if image is None:
        raise FileNotFoundError(f"cannot read {err.image}")
    labels = read_labels(err.image, image.shape[1], image.shape[0])
    found = find_dice(image)
    x0, y0, x1, y1 = err.box
    pad = max(x1 - x0, y1 - y0) * 1.2 + 20
    xa, ya = max(0, int(x0 - pad)), max(0, int(y0 - pad))
    xb, yb = min(image.shape[1], int(x1 + pad)), min(image.shape[0], int(y1 + pad))
    scale = 3
    crop = cv2.resize(image[ya:yb, xa:xb], None, fx=scale, fy=scale,
                      interpolation=cv2.INTER_CUBIC)

    def rect(box: Box, colour: tuple[int, int, int], text: str) -> None:
        p0 = (int((box[0] - xa) * scale), int((box[1] - ya) * scale))
        p1 = (int((box[2] - xa) * scale), int((box[3] - ya) * scale))
        cv2.rectangle(crop, p0, p1, colour, 1)
        cv2.putText(crop, text, (p0[0], max(p0[1] - 3, 10)), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                    colour, 1)

    candidates = find_pips(image)
    for pip, score in zip(candidates, face_scores(candidates), strict=True):
        if xa <= pip.x <= xb and ya <= pip.y <= yb:
            colour = (255, 0, 0) if score >= 0.5 else (0, 220, 220)
            cv2.ellipse(crop, ((int((pip.x - xa) * scale), int((pip.y - ya) * scale)),
                               (int(pip.major * scale), int(pip.minor * scale)), pip.angle),
                        colour, 1)
    for pips, box in labels:
        rect(box, (0, 200, 0), str(pips))
    for f in found:
        rect(f.box, (0, 0, 255), f"{f.pips} {f.confidence:.2f}")
    out = out_dir / f"{index:03d}_{err.kind}_{err.image.parent.name}_{err.image.stem}.png"
    cv2.imwrite(str(out), np.ascontiguousarray(crop))
    return out


def main(argv: list[str]) -> int:
    """Print the figures (and the errors if asked)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=SHARED)
    parser.add_argument("--split", choices=("Train", "Valid", "both"), default="both")
    parser.add_argument("--errors", action="store_true", help="list misses, misreads, extras")
    parser.add_argument("--crops", type=Path, help="write a crop per error into this folder")
    args = parser.parse_args(argv)
    if not args.photos.exists():
        print(f"photos: {args.photos} not found")
        return 1
    splits = ("Train", "Valid") if args.split == "both" else (args.split,)
    index = 0
    for split in splits:
        t = time.perf_counter()
        counts, errors = evaluate(args.photos / split)
        n_img = len(list((args.photos / split).glob("*.jpg")))
        ms = 1000.0 * (time.perf_counter() - t) / max(n_img, 1)
        print(f"photos {split} ({n_img} images, {ms:.1f} ms/image):")
        for rule, (total, hits, right) in counts.items():
            print(f"  match {rule:9s} found {hits}/{total} = {100.0 * hits / total:.2f}%, "
                  f"read right {right}/{hits} = {100.0 * right / max(hits, 1):.2f}%")
        kinds = {k: sum(e.kind == k for e in errors) for k in ("MISS", "READ", "EXTRA")}
        print("  centre rule errors: " + ", ".join(f"{k} {v}" for k, v in kinds.items()))
        if args.errors or args.crops:
            for err in errors:
                box = ", ".join(f"{v:.0f}" for v in err.box)
                line = (f"  {err.kind:5s} {split}/{err.image.name:14s} box ({box}) "
                        f"truth {err.truth} found {err.found}")
                if args.crops:
                    args.crops.mkdir(parents=True, exist_ok=True)
                    line += f"  {save_crop(err, args.crops, index).name}"
                    index += 1
                print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
