"""Writing a record (``match.mat``, ``round.txt``, ``summary.json``, a flag's snapshot, an
exported file): whole or not at all, synced before it replaces the file it supersedes, so that
a crash, a power cut or a full disk leaves the old file or the new one, never a torn one; and
only when its text changed, so that a finished match or round run again leaves its files (and
their times) as they were.

A file replaced keeps what a director set on the old one: its permissions, its owner and group
(when the writer is root: ``sudo hakem export`` over the tournament user's file) and its other
names (a hard link into a results folder is written in place, not broken). Each write has a
part file of its own, so two writers of one file at once leave one of their writes whole.

Two writes are not whole: a hard-linked file's and one in a folder that takes no new files are
written in place, so a crash during them can tear the file (the hard-linked one's new text is
then whole in its part file beside it). A part file a killed writer left is removed by the next
whole write of the same file (:func:`remove_stale_parts`)."""

from __future__ import annotations

import contextlib
import itertools
import os
import stat
from collections.abc import Iterator
from pathlib import Path

_PARTS = itertools.count()  # with the process id: a part name no other write uses


@contextlib.contextmanager
def naming(path: str | os.PathLike[str]) -> Iterator[None]:
    """Re-raise an OSError that names no file (a write() on a full disk) naming ``path``, so
    that its one line on stderr says which file could not be written."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror, os.fspath(path)) from exc


def write_whole(path: Path, data: bytes, *, synced: bool = True) -> None:
    """Write ``data`` to ``path`` atomically and durably: into a part file of its own beside
    it, synced, renamed over ``path``, and the folder synced (``synced=False``: neither synced,
    for a caller that syncs later). On an error ``path`` is left as it was and the part file
    removed; the error is raised. A hard-linked file, and a file in a folder that takes no new
    files, are written in place (:func:`_write_in_place`)."""
    try:
        old: os.stat_result | None = os.stat(path)
    except OSError:  # a new file: the umask's permissions, the writer's owner
        old = None
    try:
        fd, part = _open_part(path)
    except PermissionError:
        if old is None or not stat.S_ISREG(old.st_mode):
            raise
        _write_in_place(path, data)  # the folder's mode forbids a part file, not the file's
        return
    try:
        try:
            if old is not None:
                _keep_owner_and_mode(fd, old)
            _write_all(fd, data)
            if synced:
                os.fsync(fd)
        finally:
            os.close(fd)
        if old is not None and stat.S_ISREG(old.st_mode) and old.st_nlink > 1:
            _relink(part, path, data)
        else:
            os.replace(part, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            part.unlink()
        if isinstance(exc, OSError):
            with naming(path):
                raise
        raise
    if synced:
        sync_folder(path.parent)
        remove_stale_parts(path.parent, path.name)  # a frame's caller sweeps its folder once


def _part_stem(name: str) -> str:
    """The start of a part file's name for a file called ``name`` (within NAME_MAX)."""
    return name if len(os.fsencode(name)) <= 200 else name[:50]


def remove_stale_parts(folder: Path, name: str | None = None) -> int:
    """Remove the part files in ``folder`` (of the file called ``name`` only, if given) whose
    writer is gone: a process killed mid-write leaves ``NAME.PID-N.part``, a name no later
    write reuses. Parts of a live process (another writer's, under way) are left; how many
    were removed."""
    prefix = "" if name is None else _part_stem(name) + "."
    try:
        entries = [e.name for e in os.scandir(folder)]
    except OSError:
        return 0
    removed = 0
    for entry in entries:
        if not entry.startswith(prefix) or not entry.endswith(".part"):
            continue
        writer, dash, count = entry[:-len(".part")].rpartition(".")[2].partition("-")
        if not (dash and writer.isascii() and writer.isdigit() and count.isascii()
                and count.isdigit()) or not _gone(int(writer)):
            continue
        with contextlib.suppress(OSError):
            os.unlink(folder / entry)
            removed += 1
    return removed


def _gone(pid: int) -> bool:
    """Whether no process has the id ``pid`` (this one's own parts are never stale)."""
    if pid == os.getpid() or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # another user's process: alive
        return False
    return False


def _open_part(path: Path) -> tuple[int, Path]:
    """A new part file beside ``path`` (opened for writing) that no other write shares: named
    after the process and a count, and made only if no file has its name (O_EXCL: neither a
    part another writer left nor a link planted there is written through)."""
    stem = _part_stem(path.name)
    while True:
        part = path.with_name(f"{stem}.{os.getpid()}-{next(_PARTS)}.part")
        try:
            return os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), part
        except FileExistsError:  # left by a process of the same id that was killed
            continue


def _keep_owner_and_mode(fd: int, old: os.stat_result) -> None:
    """Give the new file ``fd`` the old file's owner and group (only root may, and a file
    system without owners refuses even root: then it stays the writer's) and its mode."""
    new = os.fstat(fd)
    if (new.st_uid, new.st_gid) != (old.st_uid, old.st_gid) and os.geteuid() == 0:
        with contextlib.suppress(OSError):
            os.fchown(fd, old.st_uid, old.st_gid)
    os.fchmod(fd, stat.S_IMODE(old.st_mode))  # after the owner: a chown clears set-id bits


def _relink(part: Path, path: Path, data: bytes) -> None:
    """Put ``data``, already whole and synced in ``part``, into the hard-linked file ``path``
    in place, so its other names see it too; ``part`` stays until that is synced (a crash in
    between leaves the new text whole beside it). Should the write in place fail or be
    interrupted, ``path`` is replaced by ``part`` instead: the link is broken rather than the
    file left torn."""
    try:
        _write_in_place(path, data)
    except OSError:
        os.replace(part, path)
        return
    except BaseException:  # interrupted half way (Ctrl-C): the whole new text, not a torn one
        with contextlib.suppress(OSError):
            os.replace(part, path)
        raise
    part.unlink()


def _write_in_place(path: Path, data: bytes) -> None:
    """Overwrite the file at ``path`` with ``data``, cut it to that length and sync it: the
    same file (its inode, links, owner and mode) with new contents, not written whole."""
    fd = os.open(path, os.O_WRONLY)
    try:
        _write_all(fd, data)
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` at ``fd``'s position (a write may take only part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def sync_file(path: Path) -> None:
    """Make what was written to the file at ``path`` durable (a file written unsynced)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_folder(folder: Path) -> None:
    """Make a rename or a new file in ``folder`` durable (a file system that cannot sync a
    folder is left to its own order)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def write_changed(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` atomically unless it holds that already; whether it wrote."""
    with contextlib.suppress(FileNotFoundError, UnicodeDecodeError):  # none, or garbled
        if path.read_text(encoding="utf-8") == text:
            return False
    write_whole(path, text.encode("utf-8"))
    return True


__all__ = [
    "naming",
    "remove_stale_parts",
    "sync_file",
    "sync_folder",
    "write_changed",
    "write_whole",
]
