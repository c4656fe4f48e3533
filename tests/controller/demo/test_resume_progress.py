"""A resumed ``hakem demo`` says once where it resumes (the game and the act) and shows progress
only for the acts it plays: the acts done before the crash are passed over silently (was: a
progress line for each of them, as if played again). The crash is a stop after a number of
journal entries, as the other resume tests make it."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from controller.demo.table import DemoOptions, DemoStats, DemoTable

pytestmark = pytest.mark.slow  # two short demo sessions

MATCH = Path(__file__).with_name("data") / "match910138.txt"
SEED = 3
ACT = re.compile(r"game (\d+)/\d+  act (\d+)/\d+")


class Terminal(io.StringIO):
    """A stream taken for a terminal: the progress line is rewritten at every act."""

    def isatty(self) -> bool:
        return True


def _run(out: Path, stop_after: int, progress: io.StringIO, log: io.StringIO) -> DemoStats:
    options = DemoOptions(match=MATCH, out=out, seed=SEED, record=False, stop_after=stop_after)
    with DemoTable(options, log=log, progress=progress) as table:
        return table.run()


def test_a_resumed_demo_shows_progress_only_for_the_acts_it_plays(tmp_path: Path) -> None:
    first = Terminal()
    _run(tmp_path, 40, first, io.StringIO())
    played_first = [int(a) for _, a in ACT.findall(first.getvalue())]
    assert len(played_first) >= 3  # the crash came after a few acts
    again, log = Terminal(), io.StringIO()
    stats = _run(tmp_path, 52, again, log)
    resumed = stats.resumed_from_act
    assert resumed is not None and resumed > played_first[-1]
    acts = [int(a) for _, a in ACT.findall(again.getvalue())]
    assert acts and min(acts) == resumed  # none of the acts done before the crash
    assert acts == sorted(set(acts))
    said = [line for line in log.getvalue().splitlines() if line.startswith("Resuming")]
    assert len(said) == 1
    assert f"(40 entries) at game 1, act {resumed} of {stats.acts};" in said[0]
