"""``hakem replay`` of a demo's recording that lost its last frames (the demo killed before the
recorder's checkpoint synced them, while their verdicts were journalled at once): the replay
still plays what there is, and says in one line on stderr where the recording ends and how far
the journal it was made with goes on. A recording that ends with its journal says nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from controller.cli import main
from controller.demo.script import BUNDLED
from controller.demo.table import DemoOptions, DemoTable
from controller.records.journal import read_journal
from controller.runtime.recording import Recorder

SEED = 1
STOP = 3  # the demo stops once the opening throw is journalled, read from a frame
pytestmark = pytest.mark.slow  # a short demo session and two replays (a few seconds)


def _demo(out: Path) -> None:
    with open(os.devnull, "w") as sink, DemoTable(
            DemoOptions(match=BUNDLED, out=out, seed=SEED, stop_after=STOP), log=sink) as table:
        table.run()


def _replay(recording: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["replay", str(recording), "--out", str(out)])
    return code, capsys.readouterr().err


def test_a_replay_that_ends_before_its_journal_says_where(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed: the lines the recorder held for its next checkpoint never reach the disk."""
    monkeypatch.setattr(Recorder, "close", lambda self: self._timeline.close())
    out = tmp_path / "demo"
    _demo(out)
    journal = out / "journal.jsonl"
    held = len(read_journal(journal).entries)
    code, err = _replay(out / "recording", tmp_path / "again", capsys)
    replayed = len(read_journal(tmp_path / "again" / "journal.jsonl").entries)
    assert code == 0 and replayed < held
    lines = (out / "recording" / "timeline.jsonl").read_text().splitlines()
    last_ms = int(lines[-1].split('"t":')[1].split(",")[0])
    assert err == (f"hakem: the recording ends at {last_ms} ms (timeline line {len(lines)}), "
                   f"after journal entry {replayed}; the journal it was made with, "
                   f"{journal}, goes on to entry {held} "
                   "(the session stopped before its last frames reached the disk)\n")


def test_a_whole_recording_replays_without_a_word(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo"
    _demo(out)
    code, err = _replay(out / "recording", tmp_path / "again", capsys)
    again = read_journal(tmp_path / "again" / "journal.jsonl").entries
    assert code == 0 and err == ""
    assert len(again) == len(read_journal(out / "journal.jsonl").entries)
