"""The ``hakem`` command: one entry point, subcommands registered by one module per area.

Every deliberate error becomes one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from controller.cli.common import CommandError, OneLineArgumentParser, json_parent
from engine.errors import HakemError

# Each module defines ``register(subparsers, parents)`` and adds its commands; the handler of a
# command is stored as ``func`` on the parsed namespace and returns the process exit code.
COMMAND_MODULES: tuple[str, ...] = (
    "controller.cli.engine_commands",
    "controller.cli.mat_commands",
    "controller.cli.mangala_commands",
    "controller.cli.vision_commands",
    "controller.cli.clock_commands",
    "controller.cli.hub_commands",
    "controller.cli.record_commands",
    "controller.cli.table_commands",
    "controller.cli.director_commands",
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every area's subcommands."""
    parser = OneLineArgumentParser(
        prog="hakem",
        description="Table referee for backgammon (tavla) and Mangala.",
        parents=[json_parent(top_level=True)],
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        module = importlib.import_module(name)
        module.register(subparsers, [json_parent(top_level=False)])
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``hakem`` command and return its exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.func(args)
    except (HakemError, CommandError) as exc:
        print(f"hakem: {exc}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"hakem: no such file: {exc.filename}", file=sys.stderr)
        return 2
    except IsADirectoryError as exc:
        print(f"hakem: is a directory, not a file: {exc.filename}", file=sys.stderr)
        return 2
    except PermissionError as exc:
        print(f"hakem: permission denied: {exc.filename}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("hakem: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
