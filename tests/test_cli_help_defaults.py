"""``hakem ... --help`` says what an option does when it is not given."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from controller.cli import build_parser, main

# options whose default needs no words: a repeatable option that starts with none given
OBVIOUS_DEFAULTS = {"hakem hub --allow-host"}


def _help(argv: list[str], capsys: pytest.CaptureFixture[str],
          monkeypatch: pytest.MonkeyPatch) -> str:
    """The help text of ``hakem ARGV --help``, its lines joined (wide, so no word is split)."""
    monkeypatch.setenv("COLUMNS", "250")
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--help"])
    assert stop.value.code == 0
    return " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["clock", "sim"], "--delay-s DELAY_S delay per move in seconds, delay mode (default 12)"),
        (["clock", "sim"], "reserve per player in seconds, delay mode (default 840)"),
        (["clock", "sim"], "countdown per player per set in seconds, countdown mode "
                           "(MG-CLOCK-1; default 900)"),
        (["clock", "sim"], "(default delay)"),
        (["clock", "sim"], "(default: run until q or Ctrl-C)"),
        (["director", "resign"], "--kind {1,2,3} 1 single game, 2 gammon, 3 backgammon "
                                 "(default 1)"),
        (["director", "reject"], "(default: the director ruled the move illegal)"),
        (["director", "note"], "(instead of --config; with neither, the default journal "
                               "folder, /var/lib/hakem)"),
        (["demo"], "--seed S random seed, 0 or more: the same seed plays the same demo "
                   "(default 0)"),
        (["demo"], "--illegal N illegal moves the players make and correct when flagged "
                   "(default 0)"),
        (["vision", "markers"], "default hakem-markers.png in the current folder"),
        (["vision", "render"], "(default gold-white-cream)"),
        (["run"], "--config FILE the table's TOML configuration (default: every setting's "
                  "default)"),
        (["hub"], "--broker URL the MQTT broker (mqtt:// or mqtts://); needed to run the hub, "
                  "not with --add-user or --list-users"),
        (["hub"], "--http PORT port of the web dashboard; needed to run the hub"),
    ],
)
def test_help_says_the_default(argv: list[str], shown: str, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    assert shown in _help(argv, capsys, monkeypatch)


def _options(parser: argparse.ArgumentParser, path: tuple[str, ...]
             ) -> Iterator[tuple[tuple[str, ...], argparse.Action]]:
    """Every option of every subcommand, with the words that name its command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _options(sub, (*path, name))
        elif action.option_strings and action.help is not argparse.SUPPRESS:
            yield path, action


def test_every_option_with_a_default_names_it() -> None:
    # a default a user must otherwise read the code for: %(default)s, or words for it (a 0
    # is a default to say; None and a flag's False are "not given")
    named = {
        f"hakem {' '.join(path)} {action.option_strings[0]}": action
        for path, action in _options(build_parser(), ())
    }
    unsaid = [
        name for name, action in named.items()
        if not any(action.default is nothing for nothing in (None, False, argparse.SUPPRESS))
        and not isinstance(action, argparse._HelpAction)
        and name not in OBVIOUS_DEFAULTS
        and "default" not in (action.help or "")
    ]
    assert unsaid == []
    assert "hakem demo --seed" in named  # the walk reaches the subcommands' options
