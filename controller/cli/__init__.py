"""The ``hakem`` command: one entry point, subcommands registered by one module per area.

Every deliberate error becomes one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import codecs
import importlib
import io
import re
import sys
from collections.abc import Sequence

from controller.cli.common import (
    CommandError,
    OneLineArgumentParser,
    json_parent,
    one_line,
    os_error_line,
    shown,
)
from controller.cli.placement import misplaced_options
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
    escape_what_stdout_cannot_show()
    parser = build_parser()
    words = joined_negative_lists(sys.argv[1:] if argv is None else argv)
    misplaced = misplaced_options(parser, words)
    if misplaced is not None:  # argparse would only say "unrecognized arguments"
        return _fail(misplaced)
    args = parser.parse_args(words)
    try:
        code = args.func(args)
    except (HakemError, CommandError) as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        print("hakem: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        return _fail(os_error_line(exc))
    except UnicodeError as exc:
        return _fail(unicode_error_line(exc))
    return int(code or 0)


# options whose value is a comma-separated list of numbers that may start with a minus sign
NUMBER_LIST_OPTIONS = ("--corners",)
_NUMBER_LIST = re.compile(r"-\d[\d.,eE+-]*")


def joined_negative_lists(argv: Sequence[str]) -> list[str]:
    """``--corners -5,-5,...`` as ``--corners=-5,-5,...``: argparse takes a value starting
    with a minus sign (and not a plain number) for another option and refuses the command
    ("expected one argument"); given, the value meets the command's own check, which names
    the corner."""
    out: list[str] = []
    items = list(argv)
    i = 0
    while i < len(items):
        item = items[i]
        if (item in NUMBER_LIST_OPTIONS and i + 1 < len(items)
                and _NUMBER_LIST.fullmatch(items[i + 1])):
            out.append(f"{item}={items[i + 1]}")
            i += 2
            continue
        out.append(item)
        i += 1
    return out


def escape_what_stdout_cannot_show() -> None:
    """On a terminal whose encoding is not UTF-8 (``PYTHONIOENCODING=ascii``), a name it cannot
    show ("Ayşe") is printed escaped ("Ay\\u015fe"): the command's output is not lost to an
    encoding error after its files are written. A UTF-8 stdout is left as it is."""
    stream = sys.stdout
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        utf8 = codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        utf8 = False
    if not utf8 and isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
        stream.reconfigure(errors="backslashreplace")


def _fail(message: str) -> int:
    """The one error line on stderr; exit code 2."""
    print(f"hakem: {one_line(message)}", file=sys.stderr)
    return 2


def unicode_error_line(exc: UnicodeError) -> str:
    """Text that is not UTF-8 (a file, stdin, an argument) as one line."""
    if isinstance(exc, UnicodeDecodeError):
        return (f"the input is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
                f"{exc.start})")
    if isinstance(exc, UnicodeEncodeError):
        return f"not UTF-8 text: '{shown(exc.object)[:80]}'"
    return f"not UTF-8 text: {exc}"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
