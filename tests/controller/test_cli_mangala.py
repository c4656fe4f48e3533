"""``hakem mangala play|judge|check``: the DESIGN.md JSON contract, text output and errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "mangala"
START_B = '{"a": [4,4,4,4,4,4], "a_store": 0, "b": [4,4,4,4,4,4], "b_store": 0, "to_move": "b"}'


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_play_json_is_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["mangala", "play", START_B, "4", "--json"], capsys)
    assert code == 0
    obj = json.loads(out)
    assert list(obj) == ["position", "captured", "extra_turn", "set_over", "winner"]
    assert obj == {
        "position": {
            "a": [4] * 6,
            "a_store": 0,
            "b": [4, 4, 4, 1, 5, 5],
            "b_store": 1,
            "to_move": "b",
        },
        "captured": 0,
        "extra_turn": True,
        "set_over": False,
        "winner": None,
    }


def test_play_capture_and_set_end(capsys: pytest.CaptureFixture[str]) -> None:
    # b's side emptied by a's capture: b takes a's two stones (MG-4).
    state = json.dumps(
        {
            "a": [3, 0, 0, 0, 0, 0],
            "a_store": 20,
            "b": [0, 0, 0, 4, 0, 0],
            "b_store": 21,
            "to_move": "a",
        }
    )
    code, out, _ = run(["--json", "mangala", "play", state, "1"], capsys)
    assert code == 0
    assert json.loads(out) == {
        "position": {"a": [0] * 6, "a_store": 25, "b": [0] * 6, "b_store": 23, "to_move": None},
        "captured": 5,
        "extra_turn": False,
        "set_over": True,
        "winner": "a",
    }


def test_play_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["mangala", "play", START_B, "5"], capsys)
    assert code == 0
    assert "last stone falls into a's pit 1" in out
    assert "a 5 4 4 4 4 4 [0] | b 4 4 4 4 1 5 [1], a to move" in out


def test_play_reads_a_file_and_stdin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "state.json"
    path.write_text(START_B, encoding="utf-8")
    code, out, _ = run(["mangala", "play", f"@{path}", "1", "--json"], capsys)
    assert code == 0 and json.loads(out)["position"]["b"] == [1, 5, 5, 5, 4, 4]
    monkeypatch.setattr("sys.stdin", io.StringIO(START_B))
    code, out, _ = run(["mangala", "play", "-", "1", "--json"], capsys)
    assert code == 0 and json.loads(out)["position"]["to_move"] == "a"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["mangala", "play", START_B, "7"], "pit '7'"),
        (["mangala", "play", START_B, "x"], "pit 'x'"),
        (["mangala", "play", "{", "1"], "not valid JSON"),
        (["mangala", "play", START_B.replace("4,4,4,4,4,4]", "4,4,4,4,4,5]", 1), "1"], "49 stones"),
        (
            [
                "mangala",
                "play",
                START_B.replace('"b": [4,4,4,4,4,4]', '"b": [0,4,4,4,4,4]').replace(
                    '"a_store": 0', '"a_store": 4'
                ),
                "1",
            ],
            "pit 1 is empty",
        ),
        (["mangala", "play", "@/nonexistent/state.json", "1"], "no such file"),
        # a digit int() does not read: it was a ValueError traceback
        (["mangala", "play", START_B, "\u00b2"], "pit '\u00b2' is not a pit number 1..6"),
        (["mangala", "play", START_B.replace('"b"}', "null}"), "1"], "to_move is null"),
        (["mangala", "judge", "-", "-"], "stdin"),
        (["mangala", "check", "/nonexistent/record.txt"], "no such file"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(START_B))
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_files_that_are_not_utf8_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state.json"
    state.write_bytes(START_B.replace('"b"}', '"b", "by": "caf\xe9"}').encode("latin-1"))
    code, _, err = run(["mangala", "play", f"@{state}", "1"], capsys)
    assert code == 2 and err.startswith(f"hakem: {state} is not UTF-8 text (byte 0xe9")
    record = tmp_path / "record.txt"
    record.write_bytes("player a caf\xe9\n".encode("latin-1"))
    code, _, err = run(["mangala", "check", str(record)], capsys)
    assert code == 2 and err == f"hakem: {record} is not UTF-8 text (byte 0xe9 at offset 12)\n"
    latin1 = io.TextIOWrapper(io.BytesIO(b"caf\xe9"), encoding="utf-8")
    monkeypatch.setattr("sys.stdin", latin1)
    code, _, err = run(["mangala", "check", "-"], capsys)
    assert code == 2 and err == "hakem: RECORD: stdin is not UTF-8 text (byte 0xe9 at offset 3)\n"


def test_judge_legal_and_illegal(capsys: pytest.CaptureFixture[str]) -> None:
    after = '{"a": [5,4,4,4,4,4], "a_store": 0, "b": [4,4,4,4,1,5], "b_store": 1}'
    code, out, _ = run(["mangala", "judge", START_B, after, "--json"], capsys)
    obj = json.loads(out)
    assert code == 0
    assert (obj["legal"], obj["mover"], obj["pit"], obj["pits"], obj["rule"]) == (
        True,
        "b",
        5,
        [5],
        None,
    )
    # The same pit, with the stone that should land in a's pit 1 dropped in a's store.
    wrong = '{"a": [4,4,4,4,4,4], "a_store": 1, "b": [4,4,4,4,1,5], "b_store": 1}'
    code, out, _ = run(["mangala", "judge", START_B, wrong, "--json"], capsys)
    obj = json.loads(out)
    assert code == 0 and obj["legal"] is False and obj["rule"] == "MG-2"
    assert "a's store" in obj["reason"] and obj["closest_pit"] == 5
    code, out, _ = run(["mangala", "judge", START_B, wrong], capsys)
    assert out.startswith("illegal (MG-2): ")


def test_check_record_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["mangala", "check", str(DATA / "round_win_draw_draw.txt")], capsys)
    assert code == 0
    assert "set 3 (started by a): a 14 b 27, drawn, b's time ran out (MG-CLOCK-3)" in out
    assert "round over: won by a; points a 1 b 0 (MG-T-1)" in out
    code, out, _ = run(["mangala", "check", "--json", str(DATA / "illegal_skip.txt")], capsys)
    obj = json.loads(out)
    assert obj["legal"] is False and obj["moves"] == 3 and obj["round_over"] is False
    assert obj["first_illegal"]["line"] == 7 and obj["first_illegal"]["rule"] == "MG-1"
    code, _, err = run(["mangala", "check", str(DATA / "malformed.txt")], capsys)
    assert code == 2 and err.startswith("hakem: line 3: ")


def test_entry_point_runs_mangala_play() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "controller.cli", "mangala", "play", START_B, "6", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    # b6, b's store, a1, a2: a2 made 5, odd; a to move.
    assert json.loads(proc.stdout)["position"] == {
        "a": [5, 5, 4, 4, 4, 4],
        "a_store": 0,
        "b": [4, 4, 4, 4, 4, 1],
        "b_store": 1,
        "to_move": "a",
    }


def test_check_an_empty_record_says_it_is_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "round.txt"
    empty.write_text("# nothing played yet\n", encoding="utf-8")
    assert main(["mangala", "check", str(empty)]) == 2
    err = capsys.readouterr().err
    assert err == f"hakem: the record {empty} is empty: no set or move lines to check\n"


def test_check_names_the_set_under_way_where_a_record_stops(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A record cut off in its second set listed the finished set only (QA): the set under
    way is named with its position (``--json``: ``in_progress``)."""
    from engine.mangala.position import Position as MangalaPosition
    from engine.mangala.sowing import play as sow

    after = sow(MangalaPosition.initial("a"), 1).position
    record = tmp_path / "cut.txt"
    record.write_text("# hakem mangala round record\nplayer a A\nplayer b B\nset 1 start a\n"
                      f"1 a 1 -> {' '.join(_line_of(after))}\n", encoding="utf-8")
    assert main(["mangala", "check", str(record)]) == 0
    text = capsys.readouterr().out
    assert f"set 1 under way: {after.describe()}" in text
    assert main(["--json", "mangala", "check", str(record)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["in_progress"] == {"set": 1, "position": after.to_obj()}


def _line_of(position: Any) -> list[str]:
    a, b = position.pits("a"), position.pits("b")
    return ["a", *map(str, a), f"[{position.a_store}]", "b", *map(str, b),
            f"[{position.b_store}]", "next", position.to_move or "-"]
