"""A director's note at a Mangala table, as at a backgammon one: journalled, a line in the live
log ("Director's note: ..."), and that line as the answer ``hakem director note`` prints (it
printed "taken: taken" and the live log had nothing)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.referee.api import DirectorAction, Say
from tests.controller.mangala.harness import Table, director_command
from tests.controller.mangala.test_referee import setup


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    """A Mangala table whose first set has begun (the board set up, the starter's clock on)."""
    at = Table(tmp_path)
    setup(at)
    yield at
    at.close()


def test_a_note_is_journalled_and_said_in_the_live_log(table: Table) -> None:
    out = table.pipeline.handle(DirectorAction(table.time.now_ms(), "note",
                                               {"text": "board checked"}, "td"))
    assert [c.text for c in out if isinstance(c, Say)] == ["Director's note: board checked"]
    assert table.types()[-1] == "director"
    assert table.last("director")["args"] == {"text": "board checked"}


def test_the_command_prints_the_note_and_the_live_log_has_it(
        table: Table, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``hakem director note board checked`` against a live Mangala table."""
    code, taken, said = director_command(table, tmp_path,
                                         ["note", "board", "checked", "--by", "td"])
    assert code == 0 and taken == 1 and said == []
    assert capsys.readouterr().out == "taken: Director's note: board checked\n"
    assert "Director's note: board checked" in table.log.lines
    assert table.last("director")["args"] == {"text": "board checked"}
