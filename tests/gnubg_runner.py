"""Run a Python script inside GNU Backgammon (``gnubg -t -q -p``) and return what it printed.

GNU Backgammon is the outside oracle for legal plays, Position/Match IDs and ``.mat`` import;
nothing here reimplements it.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path


def gnubg_binary() -> str:
    """The gnubg binary; Debian puts it in /usr/games, which root's PATH often lacks."""
    path = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games:/usr/local/games")
    if path is None:
        raise RuntimeError("gnubg is not installed: run setup.sh")
    return path


def run_gnubg_script(script: str, *, timeout: float = 1200.0) -> str:
    """Run ``script`` (Python source using the ``gnubg`` module) and return its stdout."""
    with tempfile.TemporaryDirectory(prefix="hakem-gnubg-") as tmp:
        path = Path(tmp) / "script.py"
        path.write_text(script, encoding="utf-8")
        proc = subprocess.run(
            [gnubg_binary(), "-t", "-q", "-r", "-p", str(path)],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",  # gnubg echoes Latin-1 names from the records it imports
            timeout=timeout,
            cwd=tmp,
            stdin=subprocess.DEVNULL,
        )
    if proc.returncode != 0:
        raise RuntimeError(f"gnubg exited with {proc.returncode}: {proc.stderr[-2000:]}")
    return proc.stdout
