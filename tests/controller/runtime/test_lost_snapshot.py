"""A table that went down between journalling a flag and keeping its snapshot (the snapshot is
taken just after the fsynced flag, DESIGN.md): the journal named a picture that was never kept,
and the restarted table left it missing for good (export, hub: a flag without its evidence,
TTB-6.1). Restarted, it keeps it from the first still frame and says so."""

from __future__ import annotations

import io
from pathlib import Path

from gpiozero.pins.mock import MockFactory

from controller.config.table import CameraSection, ClockSection, JournalSection, TableConfig
from controller.records.journal import Journal, read_journal
from controller.referee.api import TakeSnapshot, lost_snapshot
from controller.runtime.table import run_table
from tests.conftest import SHARED_DATA
from tests.controller.referee.harness import simulate
from tests.controller.runtime.test_director_inbox import StartCamera

MATCH = SHARED_DATA / "matches" / "match10058734.txt"


def _journal_ending_with_a_flag(folder: Path) -> dict[str, object]:
    """A real match's journal up to its first flagged move, as a table killed just after
    journalling it leaves it (no snapshot kept); the flag."""
    _, _, run = simulate(MATCH, seed=11, illegal=0.3)
    cut = next(i for i, e in enumerate(run.entries) if e["type"] == "illegal_move") + 1
    with Journal(folder / "journal.jsonl") as journal:
        for entry in run.entries[:cut]:
            journal.append(str(entry["type"]),
                           **{k: v for k, v in entry.items() if k != "type"})
    return run.entries[cut - 1]


def test_the_snapshot_of_the_last_flag_is_kept_after_the_restart(tmp_path: Path) -> None:
    flag = _journal_ending_with_a_flag(tmp_path)
    name = flag["snapshot"]
    assert isinstance(name, str) and not (tmp_path / "snapshots" / name).exists()
    source = StartCamera(8)
    config = TableConfig(camera=CameraSection(source="test",
                                              corners=source.camera.corners_flat()),
                         clock=ClockSection(port="sim"),
                         journal=JournalSection(directory=str(tmp_path)))
    log = io.StringIO()
    run_table(config, source=source, pin_factory=MockFactory(), log=log)
    kept = tmp_path / "snapshots" / name
    assert kept.read_bytes()[:2] == b"\xff\xd8"  # a JPEG
    assert (f"The table went down before it kept the snapshot {name} of its last flag: taken "
            "now, as the board lies after the restart") in log.getvalue()
    # restarted again, the picture kept is left as it is
    before = kept.stat().st_mtime_ns
    entries = read_journal(tmp_path / "journal.jsonl").entries
    log = io.StringIO()
    run_table(config, source=StartCamera(8), pin_factory=MockFactory(), log=log)
    assert kept.stat().st_mtime_ns == before and "went down before" not in log.getvalue()
    assert read_journal(tmp_path / "journal.jsonl").entries[:len(entries)] == entries


def test_only_a_journal_ending_with_a_flag_asks_for_its_snapshot() -> None:
    flag = {"seq": 9, "type": "cannot_read", "rule": "MG-CLOCK-2", "reason": "r",
            "snapshot": "cannot-read-set1.jpg"}
    assert lost_snapshot([flag]) == [TakeSnapshot("cannot-read-set1.jpg", missing=True)]
    assert lost_snapshot([flag, {"seq": 10, "type": "clock"}]) == []
    assert lost_snapshot([]) == []
