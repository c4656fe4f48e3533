"""Test options shared by the whole suite: opt-in hardware tests, paths to shared data."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("HAKEM_SHARED", REPO.parent / "shared"))
SHARED_DATA = SHARED / "data"
TEST_DATA = Path(__file__).resolve().parent / "data"


def gnubg_path() -> str | None:
    """The GNU Backgammon binary (Debian installs it in /usr/games, not always on PATH)."""
    return shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games:/usr/local/games")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-hardware", action="store_true", default=False, help="run tests that need hardware"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-hardware"):
        return
    skip = pytest.mark.skip(reason="needs hardware; opt in with --run-hardware")
    for item in items:
        if "hardware" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data``; tests that need it fail loudly when it is missing."""
    if not SHARED_DATA.is_dir():
        pytest.fail(f"shared data not found at {SHARED_DATA} (set HAKEM_SHARED)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def gnubg() -> str:
    """Path of the gnubg binary; setup.sh installs it, so its absence is a failure, not a skip."""
    path = gnubg_path()
    if path is None:
        pytest.fail("gnubg not installed: run setup.sh")
    return path
