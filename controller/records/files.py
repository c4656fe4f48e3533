"""Writing a record (``match.mat``, ``round.txt``, ``summary.json``, a flag's snapshot, an
exported file): whole or not at all, synced before it replaces the file it supersedes, so that
a crash, a power cut or a full disk leaves the old file or the new one, never a torn one; and
only when its text changed, so that a finished match or round run again leaves its files (and
their times) as they were."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


def write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically and durably: into ``NAME.part`` beside it, synced,
    renamed over ``path``, and the folder synced. A file replaced keeps its permissions (one
    kept private stays private). On an error ``path`` is left as it was and the part file
    removed; the error is raised."""
    tmp = path.with_name(path.name + ".part")
    try:
        mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:  # a new file: the umask's permissions
        mode = None
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    sync_folder(path.parent)


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


__all__ = ["sync_folder", "write_changed", "write_whole"]
