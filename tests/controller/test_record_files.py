"""Records written whole and durably (``controller.records.files``): a derived record
(``round.txt``, ``match.mat``, ``summary.json``, ``demo.json``) and a flag's snapshot reach the
disk (fsync) before they replace the file they supersede, and the rename is synced too, so a
power cut leaves the old file or the new one, never an empty or torn one."""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from controller.clock.messages import PressEvent
from controller.records.files import write_changed
from controller.records.journal import Journal
from controller.referee.api import TakeSnapshot
from controller.runtime.effects import Executor, LiveLog
from controller.runtime.recording import FRAMES, META, SYNC_MS, TIMELINE, Recorder, Recording
from tests.conftest import REPO


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


def test_a_recordings_meta_cut_off_half_way_is_not_left_torn(tmp_path: Path) -> None:
    # the disk fills while a recording's meta.json is written (a file size limit stops the
    # write as a full disk would): no torn meta.json may stay, since a session run again keeps
    # the one it finds and a replay could never read it; the next session writes it whole
    folder = tmp_path / "recording"
    meta = {"table": {"note": "x" * 4000}}
    limit = 1000

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    script = ("import json, sys\nfrom controller.runtime.recording import Recorder\n"
              "Recorder(sys.argv[1], json.loads(sys.argv[2]))")
    done = subprocess.run([sys.executable, "-c", script, str(folder), json.dumps(meta)],
                          cwd=REPO, capture_output=True, text=True, check=False,
                          preexec_fn=small_files)
    assert done.returncode != 0 and "File too large" in done.stderr
    assert not (folder / META).exists()
    assert sorted(p.name for p in folder.iterdir()) == ["frames"]
    Recorder(folder, meta).close()
    assert Recording(folder).meta == meta


@pytest.mark.parametrize("write", ["write_output", "write_changed"])
def test_a_file_rewritten_keeps_its_permissions(write: str, tmp_path: Path) -> None:
    # a record or an export kept from other users (0640) stays so when it is written again:
    # the file put in its place is new, and a new file gets the umask's 0644
    from controller.cli.common import write_output

    path = tmp_path / "round.txt"
    path.write_text("# the round so far\n", encoding="utf-8")
    path.chmod(0o640)
    old_umask = os.umask(0o022)
    try:
        if write == "write_output":
            write_output(str(path), "# the whole round\n")
        else:
            assert write_changed(path, "# the whole round\n")
    finally:
        os.umask(old_umask)
    assert path.read_text(encoding="utf-8") == "# the whole round\n"
    assert oct(path.stat().st_mode & 0o777) == oct(0o640)
    new = tmp_path / "new.txt"
    old_umask = os.umask(0o027)
    try:
        write_output(str(new), "x")
    finally:
        os.umask(old_umask)
    assert oct(new.stat().st_mode & 0o777) == oct(0o640)  # a new file: as the umask says


def test_a_recordings_frames_are_synced_before_its_timeline_names_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a power cut must not leave a timeline naming a frame that is missing or empty: frames
    # are synced at a checkpoint, a press (journalled at once) or SYNC_MS after a line, and
    # only then are their lines written to the timeline and synced
    folder = tmp_path / "rec"
    recorder = Recorder(folder, {"config": {}})
    disk = DiskLog(monkeypatch)
    timeline = folder / TIMELINE

    def frame(key: str, t_ms: int) -> None:
        recorder("frame", t_ms, (key, key.encode() * 100))

    def checkpoint(keys: list[str], lines: int) -> None:
        frames = [str(folder / FRAMES / f"{key}.jpg") for key in keys]
        synced = [e[1:] for e in disk.events if e[0] == "sync"]
        sizes = [len(key) * 100 for key in keys]
        assert synced == [*zip(frames, sizes, strict=True), (str(folder / FRAMES), None),
                          (str(timeline), timeline.stat().st_size)], disk.events
        assert len(timeline.read_bytes().splitlines()) == lines
        disk.events.clear()

    frame("a", 0)
    frame("b", SYNC_MS // 4)
    frame("a", SYNC_MS // 2)  # the same picture again: one file, two lines
    assert [e for e in disk.events if e[0] == "sync"] == [] and timeline.read_bytes() == b""
    recorder("clock", SYNC_MS // 2, PressEvent(1, "left", 10, "right", (5, 6), 0, "run"))
    checkpoint(["a", "b"], 4)
    frame("c", SYNC_MS)
    frame("d", 2 * SYNC_MS - 1)
    assert [e for e in disk.events if e[0] == "sync"] == []
    frame("e", 2 * SYNC_MS)  # the frame c has waited SYNC_MS of the table's time
    checkpoint(["c", "d", "e"], 7)
    frame("f", 2 * SYNC_MS + 1)
    recorder.close()
    checkpoint(["f"], 8)
    assert [s.frame for s in Recording(folder).steps()] == [
        "a", "b", "a", None, "c", "d", "e", "f"]


def test_a_frame_a_power_cut_left_empty_is_written_again(tmp_path: Path) -> None:
    # the power went while a frame's data was not yet on the disk: its file is there, empty,
    # and the timeline does not name it; the session resumed writes it again when it sees it,
    # and keeps the frames its timeline names
    folder = tmp_path / "rec"
    (folder / FRAMES).mkdir(parents=True)
    (folder / META).write_text("{}", encoding="utf-8")
    (folder / FRAMES / "a.jpg").write_bytes(b"picture a")
    (folder / FRAMES / "b.jpg").write_bytes(b"")
    (folder / TIMELINE).write_text('{"t":0,"frame":"a"}\n', encoding="utf-8")
    recorder = Recorder(folder, {"config": {}}, resumed=True)
    recorder("frame", 0, ("a", b"picture a, not written again"))
    recorder("frame", 10, ("b", b"picture b"))
    recorder.close()
    assert (folder / FRAMES / "a.jpg").read_bytes() == b"picture a"
    assert (folder / FRAMES / "b.jpg").read_bytes() == b"picture b"
    assert sorted(p.name for p in (folder / FRAMES).iterdir()) == ["a.jpg", "b.jpg"]


def test_a_frame_part_a_killed_session_left_goes_when_it_resumes(tmp_path: Path) -> None:
    # killed while a frame was written: its part file (named after that process) was left in
    # frames/ for good, since the frame is written again under a new part name
    folder = tmp_path / "rec"
    (folder / FRAMES).mkdir(parents=True)
    (folder / META).write_text("{}", encoding="utf-8")
    child = os.fork()
    if child == 0:  # pragma: no cover - the child only ends
        os._exit(0)
    os.waitpid(child, 0)
    (folder / FRAMES / f"b.jpg.{child}-7.part").write_bytes(b"half a pict")
    recorder = Recorder(folder, {"config": {}}, resumed=True)
    recorder("frame", 0, ("b", b"picture b"))
    recorder.close()
    assert sorted(p.name for p in (folder / FRAMES).iterdir()) == ["b.jpg"]


class _FullOnce:
    """A timeline file whose first flush fails as on a full disk: what was written stays in
    its buffer for the next flush."""

    def __init__(self, real: io.TextIOWrapper) -> None:
        self.real = real
        self.failed = False

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)

    def flush(self) -> None:
        if not self.failed:
            self.failed = True
            raise OSError(28, "No space left on device")
        self.real.flush()


def test_a_checkpoint_that_failed_on_a_full_disk_writes_its_lines_once(tmp_path: Path) -> None:
    # the press's checkpoint fails to flush; closing flushes the file's buffer, which holds
    # the lines already: taken again from the held lines, they were written twice (a replay
    # would have seen the press twice)
    folder = tmp_path / "rec"
    recorder = Recorder(folder, {"config": {}})
    real = recorder._timeline
    recorder._timeline = _FullOnce(real)  # type: ignore[assignment]
    recorder("frame", 0, ("a", b"picture a"))
    with pytest.raises(OSError):
        recorder("clock", 10, PressEvent(1, "left", 10, "right", (5, 6), 0, "run"))
    recorder.close()
    assert real.closed
    assert [s.frame for s in Recording(folder).steps()] == ["a", None]
