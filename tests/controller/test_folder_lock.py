"""One process at a time in a table's folder (``controller.records.folder_lock``): a second
``hakem run`` on the same journal folder interleaved its lines with the first one's, tore them
and took the director's requests twice (QA pass); it is refused now, naming the holder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.records.folder_lock import LOCK_NAME, FolderInUseError, folder_lock


def test_a_held_folder_is_refused_naming_its_holder(tmp_path: Path) -> None:
    folder = tmp_path / "table"
    with folder_lock(folder, "hakem run"):
        with pytest.raises(FolderInUseError) as info, folder_lock(folder, "hakem run"):
            pass
        assert str(info.value) == (
            f"{folder} is in use by another hakem run (pid {os.getpid()}): one journal folder "
            "per table; stop that one, or give this one another folder")
        assert isinstance(info.value, BlockingIOError)
    with folder_lock(folder, "hakem run"):  # released on the way out
        pass


def test_a_killed_holder_leaves_no_stale_lock(tmp_path: Path) -> None:
    folder = tmp_path / "table"
    code = ("import sys, os; from pathlib import Path; "
            "from controller.records.folder_lock import folder_lock; "
            "folder_lock(Path(sys.argv[1]), 'hakem run').__enter__(); os._exit(9)")
    done = subprocess.run([sys.executable, "-c", code, str(folder)], check=False,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 9 and (folder / LOCK_NAME).exists()
    with folder_lock(folder, "hakem run"):  # the file is there, the lock went with the process
        pass


def test_two_demos_into_one_folder(tmp_path: Path) -> None:
    from controller.demo.table import DemoOptions, DemoTable

    with DemoTable(DemoOptions(out=tmp_path / "d", record=False)), pytest.raises(
            FolderInUseError, match="in use by another demo"):
        DemoTable(DemoOptions(out=tmp_path / "d", record=False))
