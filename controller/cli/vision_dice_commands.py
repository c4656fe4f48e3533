"""``hakem vision dice IMAGE...``: every die in a photo, no board needed (DESIGN.md).

JSON, one object per image per line: ``{"image": path, "dice": [{"box": [x0, y0, x1, y1],
"pips": n, "confidence": p}]}``, ``box`` around the die's upward face in pixels. Without
``--json`` one readable line per image. A file that is not a picture is a one-line error
(exit code 2), as every ``hakem`` command does.
"""

from __future__ import annotations

import argparse
from typing import Any

from controller.cli.common import add_command, count, each_image, emit_json, wants_json
from vision.dice.detect import DieFinding, find_dice
from vision.imageio import load_image


def register(vision_subparsers: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add the dice subcommands to ``hakem vision``."""
    p = add_command(vision_subparsers, "dice", parents,
                    "every die in photos (no board needed): upward face and box")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.set_defaults(func=_dice)


def _text(path: str, dice: list[DieFinding]) -> str:
    """One readable line: the faces left to right and where they are."""
    if not dice:
        return f"{path}: no dice found"
    parts = []
    for d in dice:
        x, y = d.centre
        parts.append(f"{d.pips} at ({x:.0f}, {y:.0f}) confidence {d.confidence:.2f}")
    faces = " ".join(str(d.pips) for d in dice)
    return f"{path}: {count(len(dice), 'die', 'dice')} [{faces}]: " + "; ".join(parts)


def _dice(args: argparse.Namespace) -> int:
    def read(path: str) -> None:
        dice = find_dice(load_image(path))
        if wants_json(args):
            emit_json({"image": path, "dice": [d.as_json() for d in dice]})
        else:
            print(_text(path, dice))

    return each_image(args, read)
