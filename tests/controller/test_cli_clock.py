"""``hakem clock sim`` and ``hakem clock status`` end to end: the simulator in its own process
on a pty, the status command in this one (the JSON contract of DESIGN.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from controller.cli import main

JSON_KEYS = ["connected", "mode", "times_ms", "running", "firmware"]


@pytest.fixture
def sim_process() -> Iterator[tuple[subprocess.Popen[str], str]]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "controller.cli",
            "clock",
            "sim",
            "--port",
            "pty",
            "--json",
            "--mode",
            "countdown",
            "--time-s",
            "900",
            "--duration",
            "60",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        assert first["mode"] == "countdown"
        yield proc, first["port"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def status(port: str, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["clock", "status", "--port", port, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    return json.loads(out)


def test_status_of_the_simulated_clock(
    sim_process: tuple[subprocess.Popen[str], str], capsys: pytest.CaptureFixture[str]
) -> None:
    proc, port = sim_process
    got = status(port, capsys)
    assert list(got) == JSON_KEYS
    assert got == {
        "connected": True,
        "mode": "countdown",
        "times_ms": [900000, 900000],
        "running": None,
        "firmware": "1.2.0",
    }
    assert proc.stdin is not None
    proc.stdin.write("l\n")  # the left player presses: the right player's time runs
    proc.stdin.flush()
    for _ in range(50):
        got = status(port, capsys)
        if got["running"] is not None:
            break
    assert got["running"] == "right" and got["times_ms"][0] == 900000
    assert main(["clock", "status", "--port", port]) == 0
    assert "running right, presses since power-on: 1" in capsys.readouterr().out


def test_no_such_port_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clock", "status", "--port", "/dev/no-such-clock", "--json"]) == 2
    err = capsys.readouterr().err
    assert err == "hakem: cannot open clock port /dev/no-such-clock: no such port\n"


def test_no_answer_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clock", "status", "--port", "loop://", "--timeout", "0.3"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "hakem: no answer from a clock on loop:// within 0.3 s\n"
    assert captured.out == ""


def test_sim_on_a_missing_port_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clock", "sim", "--port", "/dev/no-such-clock"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["clock", "status", "--port", "loop://", "--timeout", "nan"], "--timeout"),
        (["clock", "status", "--port", "loop://", "--timeout", "inf"], "--timeout"),
        (["clock", "status", "--port", "loop://", "--timeout", "-1"], "--timeout"),
        (["clock", "sim", "--port", "pty", "--duration", "inf"], "--duration"),
        (["clock", "sim", "--port", "pty", "--duration", "-1"], "--duration"),
        (["clock", "sim", "--port", "pty", "--delay-s", "inf"], "--delay-s"),
        (["clock", "sim", "--port", "pty", "--reserve-s", "1e30"], "--reserve-s"),
        (["clock", "sim", "--port", "pty", "--mode", "countdown", "--time-s", "0"], "--time-s"),
    ],
)
def test_times_are_checked_before_anything_starts(
    argv: list[str], option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no banner: the simulator never started
    assert captured.err.startswith(f"hakem: clock {argv[1]}: argument {option}: must be ")
    assert captured.err.count("\n") == 1
