"""Options given between the words of a command (``hakem mat --json check F``): argparse only
says "unrecognized arguments" (or takes the option's value for a command name); this names the
option and shows the command with it where it belongs, after the command's last word."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser] | None:
    """The sub-commands of a parser that has them (``hakem``, ``hakem mat``), else None."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            choices: dict[str, argparse.ArgumentParser] = action.choices
            return choices
    return None


def _values_wanted(action: argparse.Action) -> tuple[int, int]:
    """How many values an option takes: at least, at most (``*`` and ``+``: any number)."""
    nargs = action.nargs
    if nargs is None:
        return 1, 1
    if isinstance(nargs, int):
        return nargs, nargs
    if nargs == "?":
        return 0, 1
    return (1 if nargs == "+" else 0), 1 << 30


def _asks_help(parser: argparse.ArgumentParser, token: str) -> bool:
    """Whether ``token`` is ``parser``'s ``-h``/``--help`` (argparse shows the help then)."""
    return isinstance(parser._option_string_actions.get(token), argparse._HelpAction)


def misplaced_options(parser: argparse.ArgumentParser, argv: Sequence[str]) -> str | None:
    """The error line for options that stand before a command's last word but belong to the
    command (with the command as it should be typed), or None: argparse judges the rest."""
    args = list(argv)
    current, i, end = parser, 0, 0
    pending: list[int] = []  # options the parser at their level does not know
    loose: list[int] = []  # words that are no command name: an option's value, or a mistake
    while (commands := _commands(current)) is not None:
        if i >= len(args) or args[i] == "--":
            return None
        token = args[i]
        if _asks_help(current, token):
            return None  # argparse shows this level's help, whatever follows
        if token in commands:
            current, end = commands[token], i
        elif not token.startswith("-") or len(token) == 1:
            if not pending:
                return None
            loose.append(i)
        elif token.split("=", 1)[0] not in current._option_string_actions:
            pending.append(i)
        i += 1
    rest = args[i:args.index("--", i)] if "--" in args[i:] else args[i:]
    if not pending or any(_asks_help(current, a) for a in rest):
        return None
    moved: list[int] = []
    for start in pending:
        action = current._option_string_actions.get(args[start].split("=", 1)[0])
        if action is None:
            return None
        low, high = _values_wanted(action)
        if "=" in args[start]:
            if high == 0:
                return None
            low = high = 0
        after = [j for j in loose if j > start]  # its values follow it, one after another
        values = [j for n, j in enumerate(after) if j == start + 1 + n][:high]
        if len(values) < low:
            return None
        moved += [start, *values]
    if set(loose) - set(moved):
        return None
    kept = [a for j, a in enumerate(args) if j not in moved]
    at = end + 1 - sum(1 for j in moved if j < end)
    fixed = [*kept[:at], *(args[j] for j in moved), *kept[at:]]
    names = [args[j].split("=", 1)[0] for j in pending]
    subject = names[0] + " goes" if len(names) == 1 else (
        ", ".join(names[:-1]) + f" and {names[-1]} go")
    return (f"{subject} after the command: {parser.prog} "
            + " ".join(shlex.quote(a) for a in fixed))


__all__ = ["misplaced_options"]
