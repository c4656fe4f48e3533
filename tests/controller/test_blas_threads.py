"""The table's processes, and the tools that import ``vision`` first, run OpenBLAS on one thread
unless told otherwise (``controller``, ``vision``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHOW = "import {package}, os; print(os.environ.get('OPENBLAS_NUM_THREADS'))"


def _threads_seen(env_value: str | None, package: str = "controller") -> str:
    """What a fresh process importing ``package`` holds as OPENBLAS_NUM_THREADS."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if env_value is not None:
        env["OPENBLAS_NUM_THREADS"] = env_value
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, "-c", SHOW.format(package=package)], env=env,
                         capture_output=True, text=True, check=True, timeout=60)
    return out.stdout.strip()


def test_one_blas_thread_by_default() -> None:
    assert _threads_seen(None) == "1"


def test_the_environment_still_decides() -> None:
    assert _threads_seen("3") == "3"


def test_vision_first_gets_one_blas_thread_too() -> None:
    """``tests.eval`` and ``tests.bench`` import ``vision`` before ``controller`` (and numpy
    with it): their dice networks' timings are the table's."""
    assert _threads_seen(None, "vision") == "1"
    assert _threads_seen("2", "vision") == "2"
