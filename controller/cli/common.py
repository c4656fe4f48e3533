"""Pieces every subcommand module shares: the one-line parser, ``--json``, and output."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
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


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name one file: the same resolved path, or (both existing) the same
    file reached another way (a hard or symbolic link)."""
    if Path(a).resolve() == Path(b).resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): only the resolved paths can tell
        return False


def refuse_clobbering(
    inputs: Sequence[tuple[str, str]], outputs: Sequence[tuple[str, str | None]]
) -> None:
    """Refuse, before anything is written, an output that is an input file or another output
    (writing it would destroy the record being read, or one output would replace the other).
    Each pair is (what it is, path); outputs not asked for are None."""
    asked = [(what, path) for what, path in outputs if path]
    for index, (what, path) in enumerate(asked):
        for source, read in inputs:
            if _same_file(path, read):
                raise CommandError(
                    f"{what} {path} is the {source} being read: refusing to overwrite it")
        for other, earlier in asked[:index]:
            if _same_file(path, earlier):
                raise CommandError(
                    f"{other} {earlier} and {what} {path} are the same file: give each its own")


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun in the number it takes: "1 legal play", "2 legal plays", "1 die"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def wants_json(args: argparse.Namespace) -> bool:
    """True when ``--json`` was given before or after the subcommand."""
    return bool(getattr(args, "json", False))


__all__ = [
    "CommandError",
    "HakemError",
    "OneLineArgumentParser",
    "add_command",
    "add_group",
    "count",
    "emit_json",
    "json_parent",
    "refuse_clobbering",
    "wants_json",
]
