"""``hakem demo --game mangala`` resumed after a crash shows the camera the pictures the
uninterrupted round showed from there on: each board is drawn from the scene the round had
reached, as the same seed promises the same round. (QA, killing the demo at random moments:
the resumed round counted its scenes from 0 again, so its boards were drawn otherwise, and
the journal's readings, ``fit`` and ``stores_seen``, differed from the uninterrupted round's.)
A crash is simulated by cutting the whole round's journal after the chosen entry."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from controller.mangala.demo import MangalaDemoOptions
from controller.records.journal import read_journal
from tests.controller.mangala.test_demo_flow import FlatCamera, cheap

ILLEGAL, SEED = 2, 3


class WatchedCamera(FlatCamera):
    """Notes every board it is asked for, with the scene it is drawn from."""

    boards: ClassVar[list[tuple[tuple[int, ...], int]]] = []

    def board(self, cells: tuple[int, ...], scene: int) -> np.ndarray:
        WatchedCamera.boards.append((cells, scene))
        return super().board(cells, scene)


def _round(out: Path) -> list[tuple[tuple[int, ...], int]]:
    """Play (or resume) the round in ``out``; the boards shown, in order."""
    WatchedCamera.boards = []
    with cheap(MangalaDemoOptions(out=out, illegal=ILLEGAL, seed=SEED)) as demo:
        demo.camera.__class__ = WatchedCamera
        demo.run()
    return [b for i, b in enumerate(WatchedCamera.boards)
            if i == 0 or b != WatchedCamera.boards[i - 1]]


def _cut_after(entries: list[dict[str, Any]], where: str) -> int:
    """The number of entries a crash left: just after the first entry of the kind asked for."""
    def first(test: Any) -> int:
        return 1 + next(i for i, e in enumerate(entries) if test(e))

    return {
        "a sowing": lambda: first(lambda e: e["type"] == "move" and e["seq"] > 12),
        "a flag": lambda: first(lambda e: e["type"] == "illegal_move"),
        "a flagged press": lambda: first(lambda e: e["type"] == "illegal_move") - 1,
        "a set's end": lambda: first(lambda e: e["type"] == "game_end"),
        "a set's start": lambda: first(lambda e: e["type"] == "clock" and e.get("means")
                                       == "start" and e["seq"] > 5),
    }[where]()


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    out = tmp_path_factory.mktemp("whole")
    return out, _round(out)


@pytest.mark.parametrize("where", ["a sowing", "a flag", "a flagged press", "a set's end",
                                   "a set's start"])
def test_a_resumed_round_is_shown_the_uninterrupted_rounds_pictures(
        whole: tuple[Path, list[Any]], tmp_path: Path, where: str) -> None:
    folder, boards = whole
    entries = read_journal(folder / "journal.jsonl").entries
    keep = _cut_after(entries, where)
    lines = (folder / "journal.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "journal.jsonl").write_text("".join(lines[:keep]), encoding="utf-8")
    resumed = _round(tmp_path)
    assert resumed[0] in boards  # the board the crash left, as the whole round drew it
    start = boards.index(resumed[0])
    assert resumed == boards[start:start + len(resumed)] and start + len(resumed) == len(boards)
    again = read_journal(tmp_path / "journal.jsonl").entries
    assert [e["type"] for e in again] == [e["type"] for e in entries]
