"""GNU Backgammon imports the refereed record exactly like the source match (issue 7).

A few real matches are refereed from synthetic frames (planted faults included); the ``.mat``
exported from the journal and the source file are both imported by gnubg itself, and the two
imports must agree game by game: results, scores, every move (as the position it leads to,
with the same player and dice) and every cube action.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.records.mat_export import export_match
from tests.conftest import SHARED_DATA
from tests.controller.referee.gnubg_compare import gnubg_facts
from tests.controller.referee.harness import simulate

pytestmark = [pytest.mark.gnubg]

NAMES = ["match10058734.txt", "match10232587.txt", "match1148400.txt", "match2102483.txt"]


def test_gnubg_imports_the_exported_record_like_the_source(
    tmp_path: Path, gnubg: str
) -> None:
    paths: list[str] = []
    for name in NAMES:
        source = SHARED_DATA / "matches" / name
        _, _, run = simulate(source, seed=21, illegal=0.08, invalid=0.08)
        written = tmp_path / name
        written.write_text(export_match(run.entries).mat_text, encoding="utf-8")
        paths += [str(source), str(written)]
    seen = gnubg_facts([Path(p) for p in paths], timeout=600)
    assert len(seen) == len(paths)
    for name in NAMES:
        source = seen[str(SHARED_DATA / "matches" / name)]
        exported = seen[str(tmp_path / name)]
        assert exported == source, name
        assert sum(len(g) for g in exported) > 20
