"""The journal: durable appends, sequence continuity, torn tails and damage reported by line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from controller.records.journal import Journal, match_start_fields, read_journal
from engine.errors import HakemError, RecordFormatError


def fixed_clock() -> str:
    return "2026-11-22T10:00:00.000+00:00"


def test_append_writes_contract_fields_and_reopen_continues_seq(tmp_path: Path) -> None:
    path = tmp_path / "j" / "journal.jsonl"
    with Journal(path, clock=fixed_clock) as journal:
        first = journal.append("match_start", players=["a", "b"], length=5)
        journal.append("roll", player=0, dice=[3, 1])
    assert first == {
        "seq": 1,
        "time": "2026-11-22T10:00:00.000+00:00",
        "type": "match_start",
        "players": ["a", "b"],
        "length": 5,
    }
    with Journal(path, clock=fixed_clock) as journal:
        assert journal.next_seq == 3
        journal.append("move", player=0, move="8/5 6/5")
    lines = path.read_text().splitlines()
    assert [json.loads(line)["seq"] for line in lines] == [1, 2, 3]


def test_flag_without_rule_or_reason_is_refused(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.jsonl") as journal:
        with pytest.raises(RecordFormatError, match="rule"):
            journal.append("illegal_move", reason="a checker moved backwards")
        with pytest.raises(RecordFormatError, match="reason"):
            journal.append("invalid_throw", rule="BG-ROLL-2")
        entry = journal.append("invalid_throw", rule="BG-ROLL-2", reason="a die is cocked")
        assert entry["seq"] == 1


def test_reserved_fields_cannot_be_overridden(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.jsonl") as journal, pytest.raises(RecordFormatError, match="seq"):
        journal.append("roll", seq=99)


def test_torn_last_line_is_cut_off_on_reopen(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path) as journal:
        journal.append("roll", dice=[6, 5])
    with path.open("ab") as handle:
        handle.write(b'{"seq": 2, "time": "x", "ty')
    contents = read_journal(path)
    assert contents.torn_tail and len(contents.entries) == 1
    with Journal(path) as journal:
        assert journal.recovered_torn_tail
        assert journal.append("roll", dice=[2, 1])["seq"] == 2
    assert read_journal(path).torn_tail is False
    assert [e["seq"] for e in read_journal(path).entries] == [1, 2]


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (b"not json\n", "line 2: not a JSON object"),
        (b"[1, 2]\n", "line 2: not a JSON object, got list"),
        (b'{"seq": 5, "time": "t", "type": "roll"}\n', "line 2: seq 5 does not follow 1"),
        (b'{"seq": 2, "type": "roll"}\n', "line 2: time must be"),
    ],
)
def test_damage_in_the_middle_names_the_line(tmp_path: Path, damage: bytes, message: str) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path) as journal:
        journal.append("roll", dice=[6, 5])
    with path.open("ab") as handle:
        handle.write(damage)
        handle.write(b'{"seq": 3, "time": "t", "type": "roll"}\n')
    with pytest.raises(RecordFormatError, match=message) as excinfo:
        read_journal(path)
    assert isinstance(excinfo.value, HakemError) and isinstance(excinfo.value, ValueError)


def test_close_twice_is_harmless_and_append_after_close_fails(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.jsonl")
    journal.close()
    journal.close()
    assert journal.closed
    with pytest.raises(RecordFormatError, match="closed"):
        journal.append("roll")


def test_killed_writer_loses_no_acknowledged_entry(tmp_path: Path) -> None:
    """A writer killed at an arbitrary moment keeps every entry whose append had returned."""
    path = tmp_path / "j.jsonl"
    ack = tmp_path / "ack"
    script = textwrap.dedent(
        f"""
        import os
        from controller.records.journal import Journal
        j = Journal({str(path)!r})
        ack = os.open({str(ack)!r}, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        n = 0
        while True:
            n += 1
            j.append("clock", press=n, pad="x" * (n % 97))
            os.write(ack, b"%d\\n" % n)
        """
    )
    child = subprocess.Popen([sys.executable, "-c", script], cwd=Path(__file__).parents[2])
    try:
        # Wait (by I/O, not by time) until enough entries are acknowledged, then kill hard.
        while not ack.exists() or ack.read_bytes().count(b"\n") < 200:
            if child.poll() is not None:
                pytest.fail(f"writer exited early with {child.returncode}")
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    acknowledged = int(ack.read_bytes().splitlines()[-1])
    with Journal(path) as journal:
        presses = [entry["press"] for entry in journal.entries]
    assert presses == list(range(1, len(presses) + 1))
    assert len(presses) >= acknowledged


def test_an_entry_may_carry_a_field_named_kind(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.jsonl") as journal:
        entry = journal.append("game_end", kind="gammon", points=2)
    assert entry["type"] == "game_end" and entry["kind"] == "gammon"


def test_match_start_fields_resume_only_the_same_game() -> None:
    """A journal resumes only as the game its match_start names; old journals name none and
    are backgammon."""
    start = {"seq": 1, "time": "t", "type": "match_start", "length": 5, "players": ["a", "b"]}
    assert match_start_fields([start], "backgammon") == {"length": 5, "players": ["a", "b"]}
    with pytest.raises(RecordFormatError, match=r"'backgammon'.*not a mangala match_start"):
        match_start_fields([start], "mangala")
    mangala = {**start, "game": "mangala"}
    assert match_start_fields([mangala], "mangala") == {"length": 5, "players": ["a", "b"]}
    with pytest.raises(RecordFormatError, match=r"'roll'.*cannot resume"):
        match_start_fields([{**start, "type": "roll"}], "backgammon")
