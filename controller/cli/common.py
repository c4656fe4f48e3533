"""Pieces every subcommand module shares: the one-line parser, ``--json``, and output."""

from __future__ import annotations

import argparse
import errno
import io
import json
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from controller.records.files import write_whole
from engine.errors import HakemError, InvalidInputError


class CommandError(InvalidInputError):
    """A command-line argument is wrong in a way argparse cannot see."""


class OneLineArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        # every error line starts "hakem: " (what scripts look for); the subcommand follows
        command = self.prog.removeprefix("hakem").strip()
        where = f"{command}: " if command else ""
        self.exit(2, f"hakem: {where}{one_line(message)}\n")


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


def shown(text: str) -> str:
    """``text`` printable: bytes that were not UTF-8 (kept as surrogates) shown as ``\\xNN``."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


# what str.splitlines breaks a line at; a message shows them escaped to stay one line
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
LONGEST_MESSAGE = 2000  # characters: a message quoting a huge input shows its start and end


def one_line(message: str) -> str:
    """``message`` as one line of reasonable length: line breaks (in a file name, a quoted
    value) escaped, and the middle of a very long one left out."""
    text = "".join(ch.encode("unicode_escape").decode("ascii") if ch in LINE_BREAKS else ch
                   for ch in message)
    if len(text) <= LONGEST_MESSAGE:
        return text
    head, tail = LONGEST_MESSAGE * 2 // 3, LONGEST_MESSAGE // 4
    return f"{text[:head]} [... {len(text) - head - tail} characters ...] {text[-tail:]}"


def is_utf8(text: str) -> bool:
    """True when ``text`` holds no stray surrogate (a byte that was not UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def utf8_arg(text: str) -> str:
    """An argparse type for text that is written somewhere: it must be UTF-8."""
    if not is_utf8(text):
        raise argparse.ArgumentTypeError(f"not UTF-8 text: '{shown(text)}'")
    return text


def open_stdin(what: str) -> TextIO:
    """The process's stdin to read ``what`` from; an error naming it when stdin is closed."""
    # started with stdin closed (``<&-``) Python sets it to None; one closed since (main()
    # called in-process after its caller closed it) raised ValueError on the first read
    if sys.stdin is None or sys.stdin.closed:
        raise CommandError(f"{what}: stdin is closed, there is nothing to read")
    return sys.stdin


def read_utf8(path: str | Path) -> str:
    """A text file's contents; one that is not UTF-8 is an error naming it."""
    return _decoded(Path(path).read_bytes(), str(path))


def read_stdin(what: str) -> str:
    """All of stdin as text, for ``what``: bytes that are not UTF-8 are an error naming the
    first (Python's own stdin would pass them on as stray surrogates, which the parsers then
    quote as a garbled value)."""
    stream = open_stdin(what)
    raw = getattr(stream, "buffer", None)
    if raw is None:  # a text stream with no bytes below it (a test's StringIO)
        text = stream.read()
        if is_utf8(text):
            return text
        raise CommandError(f"{what}: stdin is not UTF-8 text")
    return _decoded(raw.read(), f"{what}: stdin")


def stdin_line_utf8(line: str, number: int) -> str:
    """Line ``number`` of stdin read as text, checked: a line holding bytes that are not UTF-8
    (stray surrogates) is an error naming the line and its first such byte rather than a
    garbled value."""
    if is_utf8(line):
        return line
    at = next((i for i, ch in enumerate(line) if "\udc80" <= ch <= "\udcff"), None)
    if at is None:  # a surrogate that came from no byte (a text stream given one)
        raise CommandError(f"line {number}: not UTF-8 text")
    raise CommandError(f"line {number}: not UTF-8 text (byte 0x{ord(line[at]) - 0xdc00:02x} "
                       f"at column {at + 1})")


def stdin_lines(what: str) -> Iterator[tuple[int, str]]:
    """Stdin's lines for ``what``, numbered from 1 and checked (:func:`stdin_line_utf8`), read
    as they come. Decoded here from stdin's bytes: how Python's own stdin takes a bad byte
    depends on the locale (under most UTF-8 ones, not C.UTF-8, it stops the read with an
    offset into the chunk it had buffered, naming no line)."""
    stream = open_stdin(what)
    raw = getattr(stream, "buffer", None)
    if raw is None:  # a text stream with no bytes below it (a test's StringIO)
        for number, line in enumerate(stream, start=1):
            yield number, stdin_line_utf8(line, number)
        return
    text = io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape", newline=None)
    try:
        for number, line in enumerate(text, start=1):
            yield number, stdin_line_utf8(line, number)
    finally:
        text.detach()  # stdin's bytes stay open (a wrapper closes what it wraps when dropped)


def _decoded(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text; an error naming ``name`` and the first bad byte otherwise."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CommandError(f"{name} is not UTF-8 text (byte 0x{data[exc.start]:02x} at "
                           f"offset {exc.start})") from None


def non_negative_int(text: str) -> int:
    """An argparse type for counts and seeds: a whole number 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def number_in(low: float, high: float, *, above_low: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number in ``low..high`` (more than ``low`` if ``above_low``);
    checked while parsing, so nothing starts with a value it cannot use."""
    wanted = (f"more than {low:g} and at most {high:g}" if above_low
              else f"a number in {low:g}..{high:g}")

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value > high or value < low or (
                above_low and value == low):
            raise argparse.ArgumentTypeError(f"must be {wanted}, not {text!r}")
        return value

    return parse


def os_reason(exc: OSError) -> str:
    """What went wrong, lowercased ("no space left on device"), without the file name."""
    return str(exc.strerror or exc).lower()


def write_output(path: str, data: str | bytes) -> None:
    """Write an output file (text as UTF-8, or bytes as they are) whole or not at all: a file
    it replaces stays as it was when the write fails (a full disk, a crash). A missing folder,
    a full disk... is an error naming the file. A device or a pipe (``/dev/stdout``) is
    written to as it is, and a symbolic link's file is replaced, not the link; ``-`` is
    refused (it would make a file of that name where a user meant standard output), and so
    is a file that holds a table's journal."""
    if path == "-":  # read as standard output elsewhere (``mangala check -`` reads stdin)
        raise CommandError("cannot write -: give a file name (/dev/stdout for the terminal)")
    target = Path(path)
    folder = target.parent
    blocker = file_in_the_way(folder)
    if blocker is not None:
        raise CommandError(f"cannot write {path}: {blocker} is a file, not a folder")
    if not folder.is_dir():
        raise CommandError(f"cannot write {path}: no such folder {folder}")
    refuse_journal_output(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        if target.exists() and not target.is_file():
            target.write_bytes(raw)
        else:
            write_whole(Path(os.path.realpath(target)), raw)
    except FileNotFoundError:  # the folder is there: it takes no new files (/proc)
        raise CommandError(f"cannot write {path}: {folder} takes no new files") from None
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {os_reason(exc)}") from None


def file_in_the_way(folder: Path) -> Path | None:
    """The nearest existing path at or above ``folder`` when it is a file, not a folder: what
    stops ``folder`` being made or used. None when nothing is in the way."""
    for step in (folder, *folder.parents):
        if step.exists():
            return None if step.is_dir() else step
    return None


def check_out_folder(path: str | Path, option: str) -> Path:
    """An output folder that is made on demand, refused (naming ``option``) before anything
    is written when it, or a folder on its way, is a file."""
    folder = Path(path)
    blocker = file_in_the_way(folder)
    if blocker == folder:
        raise CommandError(f"{option} {folder} is a file, not a folder")
    if blocker is not None:
        raise CommandError(f"{option} {folder}: {blocker} is a file, not a folder")
    return folder


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
    for _, path in asked:  # another table's journal: refused before any output is written
        refuse_journal_output(path)


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun in the number it takes: "1 legal play", "2 legal plays", "1 die"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def refuse_journal(text: str, name: str, record: str, instead: str) -> None:
    """Refuse a table's journal given where a ``record`` (a .mat, a round record) is read,
    saying what to do ``instead`` (its parser would only quote the journal's long first line
    back as a malformed record line)."""
    if is_journal(text):
        raise CommandError(f"{name} is a table's journal, not {record}: {instead}")


def is_journal(text: str) -> bool:
    """Whether ``text`` is a table's journal: its first line a JSON entry with seq and type."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if not first.startswith("{"):
        return False
    try:
        entry = json.loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(entry, dict) and "type" in entry and "seq" in entry


def refuse_journal_output(path: str) -> None:
    """Refuse to write over a file that holds a table's journal (the source of truth of a
    match): checked for every output before any is written, and again at each write."""
    target = Path(path)
    if target.is_file() and _holds_journal(target):
        raise CommandError(f"cannot write {path}: it holds a table's journal, which is never "
                           "overwritten; give another file")


def _holds_journal(path: Path) -> bool:
    """Whether the file at ``path`` holds a table's journal (read as far as its first line)."""
    try:
        with path.open("rb") as file:
            head = file.readline(1 << 20)
    except OSError:
        return False
    return is_journal(head.decode("utf-8", "replace"))


def os_error_line(exc: OSError) -> str:
    """An operating system error as one line naming the file (when the error names one)."""
    name = exc.filename
    if name is None:
        if exc.errno == errno.ENOSPC:
            return f"cannot write the output: {os_reason(exc)}"
        return os_reason(exc)
    shown_name = shown(os.fsdecode(name)) if isinstance(name, (str, bytes)) else str(name)
    if isinstance(exc, FileNotFoundError):
        return f"no such file: {shown_name}"
    if isinstance(exc, IsADirectoryError):
        return f"is a directory, not a file: {shown_name}"
    if isinstance(exc, PermissionError):
        return f"permission denied: {shown_name}"
    return f"cannot use {shown_name}: {os_reason(exc)}"


def each_image(args: argparse.Namespace, read: Callable[[str], None]) -> int:
    """``read`` every image of ``args.images``. One that cannot be read (no such file, no
    board found) is one line on stderr naming it (``--json``: also ``{"image", "error"}``),
    and the images after it are still read; exit code 2 when any failed."""
    failed = 0
    for path in args.images:
        try:
            read(path)
        except BrokenPipeError:
            raise  # the reader of the output left: no error (main)
        except (HakemError, OSError) as exc:
            failed += 1
            text = os_error_line(exc) if isinstance(exc, OSError) else str(exc)
            message = text if path in text else f"{path}: {text}"
            if wants_json(args):
                emit_json({"image": path, "error": message})
            print(f"hakem: {one_line(message)}", file=sys.stderr)
    return 2 if failed else 0


def wants_json(args: argparse.Namespace) -> bool:
    """True when ``--json`` was given before or after the subcommand."""
    return bool(getattr(args, "json", False))


__all__ = [
    "CommandError",
    "HakemError",
    "OneLineArgumentParser",
    "add_command",
    "add_group",
    "check_out_folder",
    "count",
    "emit_json",
    "file_in_the_way",
    "is_journal",
    "is_utf8",
    "json_parent",
    "non_negative_int",
    "number_in",
    "one_line",
    "open_stdin",
    "os_reason",
    "read_stdin",
    "read_utf8",
    "refuse_clobbering",
    "refuse_journal_output",
    "shown",
    "stdin_line_utf8",
    "stdin_lines",
    "utf8_arg",
    "wants_json",
    "write_output",
]
