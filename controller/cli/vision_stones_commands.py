"""``hakem vision stones``: stones in photos of one Mangala pit or store (DESIGN.md)."""

from __future__ import annotations

import argparse
from typing import Any


def register(vision: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``hakem vision stones`` to the ``vision`` group (filled in by the Mangala vision)."""
