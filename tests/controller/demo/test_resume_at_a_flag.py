"""``hakem demo`` stopped at a planted illegal move and resumed with the same ``--out``: stopped
after the press that played it (its verdict not yet journalled) or just after its flag, the
resumed players make the turn as an uninterrupted run does: the illegal move is flagged once,
then corrected with a press of its own and accepted (QA: the resumed players showed the legal
move and it was never flagged; or they took the flagged press for the correction's and never
pressed again, and the demo stalled). Only the match's first three acts are played."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from controller.demo.harness import StopNow
from controller.demo.script import BUNDLED, build_script
from controller.demo.table import DemoOptions, DemoStats, DemoTable
from controller.records.journal import read_journal

SEED = 5  # the bundled match's third act (game 1) is played illegally first
Shape = list[tuple[object, ...]]


def _corrected(entries: Sequence[dict[str, Any]]) -> None:
    """A ``before_frame`` hook: the demo stops once the flagged move's correction is accepted."""
    flags = [i for i, e in enumerate(entries) if e["type"] == "illegal_move"]
    if flags and any(e["type"] == "move" for e in entries[flags[0]:]):
        raise StopNow()


def _play(out: Path, *, stop_after: int | None = None,
          hook: Callable[[Sequence[dict[str, Any]]], None] | None = None) -> DemoStats:
    options = DemoOptions(match=BUNDLED, out=out, illegal=1, seed=SEED, record=False,
                          stop_after=stop_after)
    with open(os.devnull, "w") as sink, DemoTable(options, log=sink) as table:
        table.before_frame = hook
        return table.run()


def _shape(out: Path) -> Shape:
    """The journal without its times and press numbers (a restarted clock counts afresh)."""
    return [(e["type"], e.get("player"), e.get("means"), e.get("position_id"), e.get("dice"))
            for e in read_journal(out / "journal.jsonl").entries]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Shape:
    """The journal of a run that is not stopped, up to the planted move's correction (the
    resumed runs stop there too)."""
    script = build_script(BUNDLED, illegal=1, seed=SEED)
    assert script.games[0].acts[2].illegal is not None
    out = tmp_path_factory.mktemp("uninterrupted")
    stats = _play(out, hook=_corrected)
    assert (stats.planted_illegal, stats.planted_illegal_flagged) == (1, 1)
    return _shape(out)


@pytest.mark.parametrize("at", ["press", "flag"])
def test_stopped_at_a_planted_illegal_move_it_resumes_the_same_turn(
        uninterrupted: Shape, tmp_path: Path, at: str) -> None:
    """Stopped after the illegal move's press or after its flag, the resumed run journals
    the turn as the uninterrupted run did: one flag, the correction, the move."""
    flag = next(i for i, e in enumerate(uninterrupted) if e[0] == "illegal_move")
    assert uninterrupted[flag - 1][:3] == ("clock", uninterrupted[flag][1], "move")
    stop = flag if at == "press" else flag + 1  # entries journalled when stopped
    first = _play(tmp_path, stop_after=stop)
    assert _shape(tmp_path) == uninterrupted[:stop]
    assert first.planted_illegal == 1
    resumed = _play(tmp_path, stop_after=len(uninterrupted))
    assert _shape(tmp_path) == uninterrupted
    # the run that shows the illegal move again (its press made before the stop) counts it
    assert (resumed.planted_illegal, resumed.planted_illegal_flagged) == (
        (1, 1) if at == "press" else (0, 0))
