"""One process at a time in a table's folder: two ``hakem run`` (or demos) writing one journal
interleave their lines and tear each other's, and both take the director's requests. The lock
is the operating system's (``flock``), so a process killed outright leaves no stale lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from engine.errors import HakemError

LOCK_NAME = ".hakem.lock"


class FolderInUseError(HakemError, BlockingIOError):
    """Another process holds the folder (its journal, its director's inbox)."""


@contextlib.contextmanager
def folder_lock(folder: Path, what: str) -> Iterator[None]:
    """Hold ``folder`` for this process while the block runs (creating it if need be), or raise
    :class:`FolderInUseError` naming the process that holds it (``what``: the holder's kind)."""
    folder.mkdir(parents=True, exist_ok=True)
    handle = (folder / LOCK_NAME).open("a", encoding="utf-8")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _holder(folder / LOCK_NAME)
            holder = f" (pid {pid})" if pid is not None else ""
            raise FolderInUseError(
                f"{folder} is in use by another {what}{holder}: one journal folder per "
                "table; stop that one, or give this one another folder") from None
        yield
    finally:
        handle.close()  # releases the lock


def _holder(path: Path) -> int | None:
    """The process holding ``path``'s lock, from the kernel's list of locks (the lock file
    itself is never written: a run that finds a finished match touches no file)."""
    try:
        st = os.stat(path)
        lines = Path("/proc/locks").read_text(encoding="ascii").splitlines()
    except OSError:
        return None
    where = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in lines:
        parts = line.split()
        if len(parts) > 5 and parts[1] == "FLOCK" and parts[5] == where:
            return int(parts[4]) if parts[4].isdigit() else None
    return None


__all__ = ["LOCK_NAME", "FolderInUseError", "folder_lock"]
