"""``hakem vision stones IMAGE...``: stones in photos of one Mangala pit or store (DESIGN.md).

JSON, one object per image per line: ``{"image": path, "stones": n, "confidence": p}``; the
photo frames one pit or store (no calibration). Without ``--json`` one readable line per image.
A file that is not a picture is a one-line error (exit code 2).
"""

from __future__ import annotations

import argparse
from typing import Any

from controller.cli.common import add_command, count, each_image, emit_json, wants_json
from vision.imageio import load_image
from vision.mangala.photo import read_cell_photo


def register(vision: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``hakem vision stones`` to the ``vision`` group."""
    p = add_command(vision, "stones", parents,
                    "the number of stones in photos of one Mangala pit or store")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.set_defaults(func=_stones)


def _stones(args: argparse.Namespace) -> int:
    def read(path: str) -> None:
        reading = read_cell_photo(load_image(path))
        stones, confidence = reading.best, round(reading.confidence, 4)
        if wants_json(args):
            emit_json({"image": path, "stones": stones, "confidence": confidence})
        else:
            print(f"{path}: {count(stones, 'stone')} (confidence {confidence:.2f})")

    return each_image(args, read)
