"""Subcommands of ``hakem`` for this area (filled in by the referee issue)."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add this area's subcommands to ``hakem``."""
