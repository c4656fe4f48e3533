"""``hakem mat check FILE [--write OUT]`` with text and ``--json`` output (DESIGN.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main
from engine.backgammon.mat_reader import MatMatch, parse_mat_bytes
from engine.backgammon.mat_replay import replay
from tests.conftest import REPO, TEST_DATA

BUNDLED = TEST_DATA / "matches" / "match10058734.txt"
MAT_DATA = TEST_DATA / "mat"


def read_mat(path: Path) -> MatMatch:
    """Read a record file (the engine itself does no I/O)."""
    return parse_mat_bytes(path.read_bytes())


def test_text_account_of_the_bundled_match(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mat", "check", str(BUNDLED)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "lasse vs carsten_bg, 5-point match (BackgammonGalaxy, 2024.08.05)"
    assert "Game 1, score 0-0" in lines
    assert "  move 7: lasse doubles to 2, carsten_bg takes" in lines
    assert "  carsten_bg wins 2 points (lasse dropped the double, cube 2)" in lines
    assert "  score after game 1: 0-2" in lines
    assert "Game 3 (Crawford game: no doubling, BG-MATCH-2), score 0-4" in lines
    assert "  carsten_bg wins 1 point (lasse resigned a single game)" in lines
    assert lines[-1] == "carsten_bg wins the match 5-0."
    assert "All 154 moves in 3 games are legal" in out


def test_json_exactly_as_design_gives_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mat", "check", str(BUNDLED), "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    assert json.loads(out) == {
        "legal": True,
        "games": 3,
        "final_score": [0, 5],
        "complete": True,
        "note": None,
        "first_illegal": None,
    }
    assert main(["--json", "mat", "check", str(BUNDLED)]) == 0
    assert json.loads(capsys.readouterr().out)["final_score"] == [0, 5]


def test_first_illegal_move_with_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mat", "check", str(MAT_DATA / "illegal_move.mat"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["legal"] is False and data["games"] == 1 and data["final_score"] == [0, 0]
    first = data["first_illegal"]
    assert set(first) == {"game", "move", "text", "rule", "reason"}
    assert (first["game"], first["move"], first["text"]) == (1, 2, "52: 13/8 6/3")
    assert first["rule"].startswith("BG-") and first["reason"]
    assert main(["mat", "check", str(MAT_DATA / "illegal_move.mat")]) == 0
    out = capsys.readouterr().out
    assert "ILLEGAL: game 1, move 2 (line 8): '52: 13/8 6/3'" in out
    assert f"  {first['rule']}: {first['reason']}" in out


def test_crawford_double_is_reported_with_bg_match_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = BUNDLED.read_text(encoding="utf-8").replace(
        "  3) 41: 13/9 10/9               52: 8/3 24/22",
        "  3)  Doubles => 2                Takes\n  4) 41: 13/9 10/9               52: 8/3 24/22",
    )
    path = tmp_path / "crawford.mat"
    path.write_text(text, encoding="utf-8")
    assert main(["mat", "check", str(path), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)["first_illegal"]
    assert (first["game"], first["rule"]) == (3, "BG-MATCH-2")


def test_write_gives_a_record_that_replays_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "copy.mat"
    assert main(["mat", "check", str(BUNDLED), "--write", str(out)]) == 0
    assert f"Written to {out}." in capsys.readouterr().out
    again = replay(read_mat(out))
    first = replay(read_mat(BUNDLED))
    assert again.legal and again.final_score == first.final_score
    assert [t.result for g in again.games for t in g.turns] == [
        t.result for g in first.games for t in g.turns
    ]


@pytest.mark.parametrize(
    ("name", "line"),
    [("bad_move.mat", 8), ("no_length.mat", 3), ("binary.mat", 1), ("point_26.mat", 5)],
)
def test_malformed_file_is_one_line_and_exit_2(
    name: str, line: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mat", "check", str(MAT_DATA / name)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(f"hakem: line {line}:")


def test_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mat", "check", "/nonexistent/match.mat"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_resignation_after_a_roll(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mat", "check", str(MAT_DATA / "resigned.mat")]) == 0
    out = capsys.readouterr().out
    assert "  bob wins 1 point (alice resigned a single game)" in out
    assert out.splitlines()[-1] == "bob wins the match 1-0."


def test_readme_quick_start_command_runs_as_a_process() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "controller.cli", "mat", "check", str(BUNDLED)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "carsten_bg wins the match 5-0."


def test_write_may_not_replace_the_record_being_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "mine.mat"
    mine.write_bytes(BUNDLED.read_bytes())
    assert main(["mat", "check", str(mine), "--write", str(tmp_path / ".." / tmp_path.name
                                                          / "mine.mat")]) == 2
    assert "is the record being read: refusing to overwrite it" in capsys.readouterr().err
    assert mine.read_bytes() == BUNDLED.read_bytes()


def test_a_record_cut_short_says_so_in_json_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = BUNDLED.read_text(encoding="utf-8").splitlines()
    half = tmp_path / "half.mat"
    half.write_text("\n".join(lines[: len(lines) // 2]) + "\n", encoding="utf-8")
    assert main(["--json", "mat", "check", str(half)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["legal"] is True and data["complete"] is False
    assert data["note"].startswith("The record ends before the match is over")
    assert main(["--json", "mat", "check", str(BUNDLED)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["complete"] is True and data["note"] is None


def test_a_money_session_is_not_said_to_end_before_the_match_is_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = BUNDLED.read_text(encoding="utf-8").replace("\n5 point match", "\n0 point match", 1)
    money = tmp_path / "money.mat"
    money.write_text(text, encoding="utf-8")
    assert main(["mat", "check", str(money)]) == 0
    out = capsys.readouterr().out
    assert "money session" in out.splitlines()[0]
    assert "before the match is over" not in out


def test_the_early_double_reason_says_no_double_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mat", "check", str(MAT_DATA / "early_double.mat")]) == 0
    out = capsys.readouterr().out
    assert out.count("no double") == 1 and "BG-CUBE-2: no double: " in out
