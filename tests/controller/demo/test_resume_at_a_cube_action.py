"""``hakem demo`` killed between a cube action's press and its verdict (the press journalled and
fsynced, the ``double``, ``take`` or ``drop`` not yet), then resumed with the same ``--out``: the
restarted referee journals the cube action once, from the press the journal holds, with the
cube's value and the player as an uninterrupted run journals them, and the players do not press
again. The kill is made by cutting the journal back to the press (what a SIGKILL between the two
appends leaves; both are written by one step of the referee, so no stop between frames can land
there). Two short real matches: a double taken early in game 1, and one dropped."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from controller.demo.harness import StopNow
from controller.demo.table import DemoOptions, DemoStats, DemoTable
from controller.records.journal import read_journal

pytestmark = pytest.mark.slow  # a few short demo sessions (about a minute in all)

TAKEN = Path(__file__).with_name("data") / "match910138.txt"  # game 1: move 5 doubled, taken
DROPPED = "match11958254.txt"  # shared data; game 1: move 3 doubled, dropped
SEED = 2
Shape = list[tuple[object, ...]]


def _past(kind: str) -> Any:
    """A ``before_frame`` hook: the demo stops once the journal holds an entry of ``kind`` and
    the move after it (the match went on from the cube action)."""
    def hook(entries: Sequence[dict[str, Any]]) -> None:
        at = next((i for i, e in enumerate(entries) if e["type"] == kind), None)
        if at is not None and any(e["type"] == "move" for e in entries[at:]):
            raise StopNow()
    return hook


def _play(match: Path, out: Path, *, stop_after: int | None = None, hook: Any = None
          ) -> DemoStats:
    options = DemoOptions(match=match, out=out, seed=SEED, record=False, stop_after=stop_after)
    with open(os.devnull, "w") as sink, DemoTable(options, log=sink) as table:
        table.before_frame = hook
        return table.run()


def _shape(out: Path) -> Shape:
    """The journal without its times and press numbers (a restarted clock counts afresh)."""
    return [(e["type"], e.get("player"), e.get("means"), e.get("position_id"), e.get("dice"),
             e.get("cube"), e.get("points"), e.get("score"))
            for e in read_journal(out / "journal.jsonl").entries]


def _cut_after(journal: Path, lines: int) -> None:
    """Keep the journal's first ``lines`` lines: the process died right after appending them."""
    kept = journal.read_bytes().splitlines(keepends=True)[:lines]
    journal.write_bytes(b"".join(kept))


@pytest.fixture(scope="module")
def references(tmp_path_factory: pytest.TempPathFactory, shared_data: Path
               ) -> dict[str, tuple[Path, Shape]]:
    """Uninterrupted runs of both matches, each to the move after its cube action's verdict."""
    out: dict[str, tuple[Path, Shape]] = {}
    for verdict, match in (("take", TAKEN), ("drop", shared_data / "matches" / DROPPED)):
        folder = tmp_path_factory.mktemp(verdict)
        _play(match, folder, hook=_past(verdict))
        out[verdict] = (match, _shape(folder))
    return out


@pytest.mark.parametrize(("verdict", "match"), [("double", "take"), ("take", "take"),
                                                ("drop", "drop")])
def test_killed_between_a_cube_press_and_its_verdict_it_journals_the_verdict_once(
        references: dict[str, tuple[Path, Shape]], tmp_path: Path, verdict: str, match: str
) -> None:
    source, whole = references[match]
    at = next(i for i, e in enumerate(whole) if e[0] == verdict)
    press = whole[at - 1]
    assert press[0] == "clock" and press[2] == verdict  # the press that asks for the verdict
    _play(source, tmp_path, stop_after=at + 1)
    assert _shape(tmp_path)[:at + 1] == whole[:at + 1]
    _cut_after(tmp_path / "journal.jsonl", at)  # the press kept, its verdict never written
    assert _shape(tmp_path)[-1] == press
    _play(source, tmp_path, stop_after=len(whole))
    resumed = _shape(tmp_path)
    assert resumed == whole  # the verdict right after the press, the match on as before
    assert [e[0] for e in resumed].count(verdict) == 1
    assert sum(1 for e in resumed if e[0] == "clock" and e[2] == verdict) == 1  # not pressed again
