"""Pieces every subcommand module shares: the one-line parser, ``--json``, and output."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, NoReturn

from engine.errors import HakemError, InvalidInputError


class CommandError(InvalidInputError):
    """A command-line argument is wrong in a way argparse cannot see."""


class OneLineArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\n")


def json_parent(*, top_level: bool) -> argparse.ArgumentParser:
    """A parent parser giving ``--json`` both before and after the subcommand name."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--json",
        action="store_true",
        default=False if top_level else argparse.SUPPRESS,
        help="machine-readable JSON output",
    )
    return parent


def add_command(
    subparsers: Any, name: str, parents: list[argparse.ArgumentParser], help_text: str
) -> argparse.ArgumentParser:
    """Add one subcommand that shares the one-line error behaviour and ``--json``."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, parents=parents, help=help_text, description=help_text
    )
    return parser


def add_group(subparsers: Any, name: str, help_text: str) -> Any:
    """Add a command with its own subcommands (``hakem mangala play``), returning its subparsers."""
    parser = subparsers.add_parser(name, help=help_text, description=help_text)
    sub = parser.add_subparsers(dest=f"{name}_command", metavar="COMMAND")
    sub.required = True
    return sub


def emit_json(obj: Any) -> None:
    """Write one JSON object as one line on stdout (the bulk and per-image form)."""
    sys.stdout.write(json.dumps(obj, separators=(", ", ": ")) + "\n")
    sys.stdout.flush()


def wants_json(args: argparse.Namespace) -> bool:
    """True when ``--json`` was given before or after the subcommand."""
    return bool(getattr(args, "json", False))


__all__ = [
    "CommandError",
    "HakemError",
    "OneLineArgumentParser",
    "add_command",
    "add_group",
    "emit_json",
    "json_parent",
    "wants_json",
]
