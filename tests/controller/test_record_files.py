"""Records written whole and durably (``controller.records.files``): a derived record
(``round.txt``, ``match.mat``, ``summary.json``, ``demo.json``) and a flag's snapshot reach the
disk (fsync) before they replace the file they supersede, and the rename is synced too, so a
power cut leaves the old file or the new one, never an empty or torn one."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from controller.records.files import write_changed
from controller.records.journal import Journal
from controller.referee.api import TakeSnapshot
from controller.runtime.effects import Executor, LiveLog


class DiskLog:
    """What reaches the disk, in order: ``("sync", path, bytes synced)`` for a file or a
    folder synced, ``("rename", source, target)`` for a rename."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.events: list[tuple[str, str, object]] = []
        real_fsync, real_replace = os.fsync, os.replace

        def fsync(fd: int) -> None:
            path = os.readlink(f"/proc/self/fd/{fd}")
            size = None if os.path.isdir(path) else os.fstat(fd).st_size
            self.events.append(("sync", path, size))
            real_fsync(fd)

        def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
            self.events.append(("rename", os.fspath(src), os.fspath(dst)))
            real_replace(src, dst)

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "replace", replace)

    def check_durable(self, target: Path) -> None:
        """``target`` was renamed into place from a file synced whole before, and its folder
        synced after."""
        renames = [i for i, e in enumerate(self.events) if e[0] == "rename" and e[2] == str(target)]
        assert renames, f"{target} was not renamed into place: {self.events}"
        at = renames[-1]
        source = self.events[at][1]
        synced = [e for e in self.events[:at] if e[:2] == ("sync", source)]
        assert synced and synced[-1][2] == target.stat().st_size, self.events
        assert ("sync", str(target.parent), None) in self.events[at + 1:], self.events


def test_a_record_rewritten_is_synced_before_it_replaces_the_last_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "round.txt"
    path.write_text("# the round so far\n", encoding="utf-8")
    disk = DiskLog(monkeypatch)
    assert write_changed(path, "# the whole round\nset 1 start a\n")
    disk.check_durable(path)
    assert path.read_text(encoding="utf-8") == "# the whole round\nset 1 start a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["round.txt"]


def test_a_flags_snapshot_is_synced_before_it_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the journal names the snapshot; a power cut must not leave an empty picture there
    with Journal(tmp_path / "journal.jsonl") as journal:
        executor = Executor(journal, None, None, tmp_path / "snapshots",
                            LiveLog(stream=io.StringIO()), frame_jpeg=lambda: b"\xff\xd8jpeg")
        disk = DiskLog(monkeypatch)
        executor.run([TakeSnapshot("flag-0001.jpg")])
    picture = tmp_path / "snapshots" / "flag-0001.jpg"
    disk.check_durable(picture)
    assert picture.read_bytes() == b"\xff\xd8jpeg"
