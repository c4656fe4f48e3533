"""``hakem demo`` resumed on a journal whose last line is torn (the demo killed, or the power
lost, half-way through writing an entry): the torn line is cut off, the run says so on stderr,
and the match goes on after the last whole entry. Short: the match is stopped a few entries on."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

from controller.cli import main
from controller.demo.script import BUNDLED
from controller.demo.table import DemoOptions, DemoTable
from controller.records.journal import read_journal

SEED = 1
pytestmark = pytest.mark.slow  # three short demo sessions (a few seconds)


def test_a_torn_last_line_is_cut_off_and_said(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The resumed demo cut the torn line off without a word (``hakem run`` says it)."""
    out = tmp_path / "torn"
    first = DemoOptions(match=BUNDLED, out=out, seed=SEED, record=False, stop_after=6)
    with open(os.devnull, "w") as sink, DemoTable(first, log=sink) as table:
        table.run()
    journal = out / "journal.jsonl"
    whole = read_journal(journal).entries
    with journal.open("ab") as f:
        f.write(b'{"seq":%d,"time":"2026-11-25T14:2' % (len(whole) + 1))
    monkeypatch.setattr("controller.demo.table.DemoOptions",
                        functools.partial(DemoOptions, record=False,
                                          stop_after=len(whole) + 2))
    code = main(["demo", "--out", str(out), "--seed", str(SEED), "--quiet"])
    err = capsys.readouterr().err
    assert code == 0
    assert (f"hakem: the journal's last line was torn (power lost?); it was cut off, and "
            f"{journal} resumes after entry {len(whole)}\n") in err
    entries = read_journal(journal)
    assert not entries.torn_tail and entries.entries[:len(whole)] == whole
    assert [e["seq"] for e in entries.entries] == list(range(1, len(entries.entries) + 1))
    assert len(entries.entries) >= len(whole) + 2  # the match went on
    # a whole journal run again says nothing of it
    monkeypatch.setattr("controller.demo.table.DemoOptions",
                        functools.partial(DemoOptions, record=False,
                                          stop_after=len(entries.entries) + 1))
    assert main(["demo", "--out", str(out), "--seed", str(SEED), "--quiet"]) == 0
    assert "torn" not in capsys.readouterr().err


def test_a_refused_resume_of_a_torn_journal_says_only_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Run again with other options than the folder's: refused in one line (the torn line is
    not said to resume anything: nothing resumes)."""
    out = tmp_path / "torn"
    first = DemoOptions(match=BUNDLED, out=out, seed=SEED, record=False, stop_after=4)
    with open(os.devnull, "w") as sink, DemoTable(first, log=sink) as table:
        table.run()
    with (out / "journal.jsonl").open("ab") as f:
        f.write(b'{"seq":5,"time":"2026-11-25T14:2')
    code = main(["demo", "--out", str(out), "--seed", str(SEED + 4), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "last line was torn" not in err, err
    assert f"--seed {SEED}" in err
