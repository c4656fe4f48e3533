"""``hakem demo --game mangala`` resumed on a journal whose last line is torn (the demo killed,
or the power lost, half-way through writing an entry): the torn line is cut off, the run says
so on stderr, and the round goes on to its end from the last whole entry."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

import pytest

from controller.cli import main
from controller.mangala.demo import MangalaDemoOptions, MangalaDemoStats
from controller.mangala.records import RECORD_NAME
from controller.records.journal import read_journal
from engine.mangala.record_check import check_record
from engine.mangala.record_reader import parse_record
from tests.controller.mangala.test_demo_flow import cheap


def test_a_torn_last_line_is_cut_off_and_said(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    def fast(options: MangalaDemoOptions, *, log: TextIO | None = None,
             progress: TextIO | None = None) -> MangalaDemoStats:
        with cheap(options, log=log, progress=progress) as demo:
            return demo.run()

    with cheap(MangalaDemoOptions(out=tmp_path, illegal=1, seed=3, stop_after=20)) as demo:
        demo.run()
    journal = tmp_path / "journal.jsonl"
    whole = read_journal(journal).entries
    with journal.open("ab") as f:
        f.write(b'{"seq":%d,"time":"2026-11-25T14:2' % (len(whole) + 1))
    monkeypatch.setattr("controller.mangala.cli.run_mangala_demo", fast)
    code = main(["demo", "--game", "mangala", "--illegal", "1", "--seed", "3", "--out",
                 str(tmp_path), "--quiet"])
    err = capsys.readouterr().err
    assert code == 0
    assert (f"hakem: the journal's last line was torn (power lost?); it was cut off, and "
            f"{journal} resumes after entry {len(whole)}\n") in err
    entries = read_journal(journal).entries
    assert entries[:len(whole)] == whole and entries[-1]["type"] == "match_end"
    assert check_record(parse_record((tmp_path / RECORD_NAME).read_text())).legal
