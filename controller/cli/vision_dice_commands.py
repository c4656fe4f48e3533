"""``hakem vision dice``: dice in any photo (filled in by the dice vision issue)."""

from __future__ import annotations

import argparse
from typing import Any


def register(vision_subparsers: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add the dice subcommands to ``hakem vision``."""
