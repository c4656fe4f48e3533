"""Writing a record derived from the journal (``match.mat``, ``round.txt``, ``summary.json``):
whole or not at all, and only when its text changed, so that a finished match or round run
again leaves its files (and their times) as they were."""

from __future__ import annotations

import contextlib
from pathlib import Path


def write_changed(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` atomically unless it holds that already; whether it wrote."""
    with contextlib.suppress(FileNotFoundError, UnicodeDecodeError):  # none, or garbled
        if path.read_text(encoding="utf-8") == text:
            return False
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return True


__all__ = ["write_changed"]
