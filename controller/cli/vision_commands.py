"""``hakem vision ...``: board readers here, dice readers in ``vision_dice_commands``."""

from __future__ import annotations

import argparse
from typing import Any

from controller.cli import vision_dice_commands
from controller.cli.common import add_group


def register(subparsers: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``hakem vision`` and its subcommands."""
    vision = add_group(subparsers, "vision", "read boards, dice and stones in photos")
    vision_dice_commands.register(vision, parents)
