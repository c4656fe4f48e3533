"""The command line's shared behaviour: one line on stderr and exit 2 for bad input."""

from __future__ import annotations

import subprocess
import sys

import pytest

from controller.cli import main


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
