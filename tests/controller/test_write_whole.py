"""What a file rewritten by ``write_whole`` keeps (``controller.records.files``): it ends as one
whole write when two writers race, its hard links, its owner when root rewrites it, and it is
written at all where its folder takes no new files but the file itself may be written."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.records.files import write_changed, write_whole

NOBODY = 65534


def test_two_writers_of_one_file_at_once_leave_one_whole_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a second writer (another process, another thread) writes the same file while the first
    # one syncs its part file: each has its own, so neither renames the other's half-written
    # part nor finds its own gone, and the file ends as the write renamed last
    path = tmp_path / "match.mat"
    path.write_bytes(b"old\n")
    real_fsync = os.fsync
    parts: list[str] = []

    def fsync(fd: int) -> None:
        name = os.readlink(f"/proc/self/fd/{fd}")
        if name.endswith(".part"):
            parts.append(name)
            if len(parts) == 1:
                write_whole(path, b"second writer\n")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    write_whole(path, b"first writer, longer than the second\n" * 100)
    assert path.read_bytes() == b"first writer, longer than the second\n" * 100
    assert len(set(parts)) == 2, parts
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.mat"]


def test_a_write_that_fails_leaves_the_file_and_no_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "round.txt"
    path.write_bytes(b"old\n")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="No space"):
        write_whole(path, b"new\n")
    assert path.read_bytes() == b"old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["round.txt"]


def test_a_hard_linked_file_is_rewritten_in_place(tmp_path: Path) -> None:
    # a director linked the match file into a results folder: both names see the new match
    path = tmp_path / "match.mat"
    path.write_text("the match so far, a longer text than the whole match\n", encoding="utf-8")
    (tmp_path / "results").mkdir()
    results = tmp_path / "results" / "table-3.mat"
    os.link(path, results)
    inode = path.stat().st_ino
    assert write_changed(path, "the whole match\n")
    assert results.read_text(encoding="utf-8") == "the whole match\n"
    assert path.stat().st_ino == inode and path.stat().st_nlink == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.mat", "results"]


def test_a_hard_linked_file_that_cannot_be_written_in_place_is_replaced_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the write in place fails half way (a full disk): the link is broken, the file is whole
    path = tmp_path / "match.mat"
    path.write_bytes(b"old\n")
    os.link(path, tmp_path / "other.mat")

    def full(fd: int, length: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "ftruncate", full)
    write_whole(path, b"new match\n")
    assert path.read_bytes() == b"new match\n"
    assert path.stat().st_ino != (tmp_path / "other.mat").stat().st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.mat", "other.mat"]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may give a file to another user")
def test_root_rewriting_a_users_file_leaves_it_that_users(tmp_path: Path) -> None:
    path = tmp_path / "match.mat"
    path.write_bytes(b"old\n")
    os.chown(path, 4321, 4322)
    write_whole(path, b"new\n")
    assert (path.stat().st_uid, path.stat().st_gid) == (4321, 4322)
    assert path.read_bytes() == b"new\n"


@pytest.mark.parametrize("euid", [0, 1000])
def test_only_root_gives_the_new_file_the_old_owner(
    euid: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # seen from any user: the old file belongs to someone else; root hands the new one over,
    # anyone else cannot and does not try
    path = tmp_path / "match.mat"
    path.write_bytes(b"old\n")
    real_stat = os.stat
    owner = (os.getuid() + 7, os.getgid() + 9)

    def stat_(target: object, *args: object, **kwargs: object) -> os.stat_result:
        found = real_stat(target, *args, **kwargs)  # type: ignore[arg-type]
        if os.fspath(target) == str(path):  # type: ignore[call-overload]
            fields = list(found)
            fields[stat.ST_UID], fields[stat.ST_GID] = owner
            return os.stat_result(fields)
        return found

    chowns: list[tuple[int, int]] = []
    monkeypatch.setattr(os, "stat", stat_)
    monkeypatch.setattr(os, "geteuid", lambda: euid)
    monkeypatch.setattr(os, "fchown", lambda fd, uid, gid: chowns.append((uid, gid)))
    write_whole(path, b"new\n")
    assert chowns == ([owner] if euid == 0 else [])
    monkeypatch.setattr(os, "stat", real_stat)
    chowns.clear()
    write_whole(path, b"newer\n")  # the writer's own file: nothing to hand over
    assert chowns == []


def as_other_user(folder: Path, write: Callable[[], None]) -> str | None:
    """Run ``write`` in ``folder`` as a user who may not add files to it: root forks a child
    that becomes nobody (the folder stays root's 0755), anyone else makes it 0555. The error
    it raised, or None."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            write()
        except OSError as exc:
            return repr(exc)
        finally:
            folder.chmod(0o755)
        return None
    read, written = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's coverage is not gathered
        os.close(read)
        status = 0
        try:
            os.chdir(folder)  # as root: nobody may not pass the 0700 folders above
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            write()
        except BaseException as exc:  # everything goes back to the test
            os.write(written, repr(exc).encode())
            status = 1
        os._exit(status)
    os.close(written)
    with os.fdopen(read, "rb") as pipe:
        error = pipe.read().decode()
    os.waitpid(child, 0)
    return error or None


def test_a_file_in_a_folder_that_takes_no_new_files_is_written_in_place(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    path = folder / "match.mat"
    path.write_bytes(b"the match so far, longer than the whole one\n")
    path.chmod(0o666)
    if os.geteuid() == 0:
        os.chown(path, NOBODY, NOBODY)
    error = as_other_user(folder, lambda: write_whole(Path("match.mat"), b"the whole match\n"))
    assert error is None
    assert path.read_bytes() == b"the whole match\n"
    assert sorted(p.name for p in folder.iterdir()) == ["match.mat"]
    # a new file there cannot be made at all: the error says so
    error = as_other_user(folder, lambda: write_whole(Path("new.mat"), b"x\n"))
    assert error is not None and "PermissionError" in error
    assert sorted(p.name for p in folder.iterdir()) == ["match.mat"]


def test_a_hard_linked_file_interrupted_half_way_is_left_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ctrl-C while the new text is written in place: the part file (whole and synced) was
    # removed and the file left torn, the new text's head over the old text's tail
    path = tmp_path / "match.mat"
    path.write_bytes(b"the match so far, a longer text than the whole match\n")
    os.link(path, tmp_path / "other.mat")

    def interrupted(fd: int, length: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "ftruncate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_whole(path, b"the whole match\n")
    assert path.read_bytes() == b"the whole match\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.mat", "other.mat"]


def _dead_pid() -> int:
    """The id of a process that has ended (a child reaped)."""
    child = os.fork()
    if child == 0:  # pragma: no cover - the child only ends
        os._exit(0)
    os.waitpid(child, 0)
    return child


def test_a_part_file_a_killed_writer_left_goes_with_the_next_write(tmp_path: Path) -> None:
    # each write's part is named after its process: a writer killed mid-write left one that
    # no later write reused, and they piled up beside the records a director reads
    path = tmp_path / "match.mat"
    path.write_bytes(b"old\n")
    dead = _dead_pid()
    stale = tmp_path / f"match.mat.{dead}-0.part"
    stale.write_bytes(b"half a ")
    live = tmp_path / f"match.mat.{os.getppid()}-3.part"  # another writer's, under way
    live.write_bytes(b"being written")
    other = tmp_path / f"round.txt.{dead}-1.part"  # another file's: its own write's to clear
    other.write_bytes(b"half")
    assert write_changed(path, "new\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["match.mat", live.name, other.name])
    assert path.read_bytes() == b"new\n"
