"""The command line's shared behaviour: one line on stderr and exit 2 for bad input."""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

from controller.cli import main
from tests.conftest import TEST_DATA

MAT = str(TEST_DATA / "mat" / "early_double.mat")


def test_unknown_command_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["no-such-command"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no-such-command" in err


def test_entry_point_runs_as_module() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "controller.cli", "--help"], capture_output=True, text=True
    )
    assert proc.returncode == 0
    assert "hakem" in proc.stdout


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["mat", "--json", "check", MAT],
         f"--json goes after the command: hakem mat check --json {MAT}"),
        (["--write", "out.mat", "mat", "check", MAT],
         f"--write goes after the command: hakem mat check --write out.mat {MAT}"),
        (["director", "--folder=t", "--json", "accept"],
         "--folder and --json go after the command: hakem director accept --folder=t --json"),
        (["vision", "--corners", "-5,-5,1,1,2,2,3,3", "read", "a b.jpg"],
         "--corners goes after the command: hakem vision read --corners=-5,-5,1,1,2,2,3,3 "
         "'a b.jpg'"),
    ],
    ids=["json", "option-with-value", "two-options", "corners"],
)
def test_an_option_between_a_commands_words_is_shown_where_it_goes(
    argv: list[str], line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # argparse said only "unrecognized arguments: --json" (or took the option's value for a
    # command name)
    assert main(argv) == 2
    assert capsys.readouterr().err == f"hakem: {line}\n"


def test_the_command_shown_for_a_misplaced_option_runs(
    capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mat", "--json", "check", MAT]) == 2
    shown = capsys.readouterr().err.split(": ", 2)[2]
    assert main(shlex.split(shown)[1:]) == 0
    assert '"legal": false' in capsys.readouterr().out


def argparse_exit(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str, str]:
    """The exit code argparse ends ``hakem ARGV`` with, and what it printed (out, err)."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    printed = capsys.readouterr()
    return exc.value.code, printed.out, printed.err


@pytest.mark.parametrize("argv", [["mat", "--bogus", "check", MAT], ["mat", "check", MAT, "-x"]])
def test_an_option_no_command_has_is_left_to_argparse(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = argparse_exit(argv, capsys)
    assert code == 2 and "unrecognized arguments" in err


@pytest.mark.parametrize("argv", [["vision", "--help", "--json", "markers"],
                                  ["director", "-h", "--folder", "t", "accept"],
                                  ["mat", "--json", "check", "-h"]])
def test_help_before_a_misplaced_option_is_shown(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # argparse shows the help of the level where -h stands; the misplaced option after it is
    # no error
    code, out, err = argparse_exit(argv, capsys)
    assert code == 0 and out.startswith(f"usage: hakem {argv[0]} ") and err == ""
    assert ("usage: hakem mat check" in out) == (argv[-1] == "-h")
