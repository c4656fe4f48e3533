"""A Mangala table that went down just after journalling an entry whose consequences it had not
journalled yet (found killing ``hakem demo --game mangala`` at such entries): restarted, it
carries on as the uninterrupted table did. After a set's end the next set begins (the round
waited for ever: "the referee did not start the clock for set 2"); after a time-out the set
ends; after a director's ending or accepted sowing the match ends or the sowing is journalled;
after a mover's press awaiting its verdict the opponent's time runs, as the press left it, on a
clock that lost its state (the mover was charged for the opponent's thinking)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller.clock.messages import FlagEvent
from controller.records.journal import Journal
from controller.referee.api import DirectorAction, MotionSeen
from engine.mangala.sowing import play
from tests.controller.mangala.harness import Table
from tests.controller.mangala.test_referee import setup, sow


def _restarted(folder: Path, first: Table, cut: int) -> Table:
    """A table restarted on ``first``'s journal cut after its entry ``cut`` (0-based), as a
    table killed just after writing it leaves it."""
    entries = first.journal.entries[:cut + 1]
    with Journal(folder / "journal.jsonl") as journal:
        for entry in entries:
            journal.append(entry["type"], **{k: v for k, v in entry.items()
                                             if k not in ("seq", "time", "type")})
    return Table(folder, start_ms=first.time.now_ms())


def _end_set_one(table: Table) -> None:
    """The director sets a position whose next sowing empties a's side: set 1 ends (MG-4)."""
    table.send(DirectorAction(table.time.now_ms(), "set_position", {"position": {
        "a": [0, 0, 0, 0, 0, 1], "a_store": 20, "b": [4, 4, 4, 4, 4, 3], "b_store": 4,
        "to_move": "a"}}, "td"))
    position = table.referee.position
    assert position is not None
    sow(table, position, 6)


def _time_out(table: Table) -> None:
    table.pipeline.on_clock(FlagEvent(table.referee.side_of("a"), table.time.now_ms()))


def _director_ends(table: Table) -> None:
    table.send(DirectorAction(table.time.now_ms(), "end_match", {"winner": "b"}, "td"))


def _director_accepts(table: Table) -> None:
    """a presses with hands over the board; the director enters a's sowing of pit 3."""
    table.send(MotionSeen(table.time.now_ms()))
    table.press("a")
    table.send(DirectorAction(table.time.now_ms(), "accept", {"pit": 3}, "td"))


@pytest.mark.parametrize(("act", "last", "due"), [
    (_end_set_one, "game_end", ["game_start"]),
    (_time_out, "time_out", ["game_end", "game_start"]),
    (_director_ends, "director", ["match_end"]),
    (_director_accepts, "director", ["move"]),
])
def test_what_the_last_entry_decided_is_journalled_on_the_restart(
        tmp_path: Path, act: Callable[[Table], None], last: str, due: list[str]) -> None:
    whole = Table(tmp_path / "whole")
    setup(whole)
    act(whole)
    entries: list[dict[str, Any]] = whole.journal.entries
    cut = max(i for i, e in enumerate(entries) if e["type"] == last)
    expected = [{k: v for k, v in e.items() if k != "time"}
                for e in entries[cut + 1:cut + 1 + len(due)]]
    assert [e["type"] for e in expected] == due
    again = _restarted(tmp_path / "again", whole, cut)
    got = [{k: v for k, v in e.items() if k != "time"}
           for e in again.journal.entries[cut + 1:]]
    assert got[:len(due)] == expected
    whole.close()
    again.close()


def test_a_press_awaiting_its_verdict_leaves_the_opponents_time_running(tmp_path: Path) -> None:
    first = Table(tmp_path / "first")
    position = setup(first)
    position = sow(first, position, 1)  # a sows pit 1: b to move
    assert position.to_move == "b"
    board = play(position, 2).position.board()
    sow(first, position, 2)  # b sows pit 2 and presses
    press = max(i for i, e in enumerate(first.journal.entries) if e.get("means") == "move")
    assert first.journal.entries[press + 1]["type"] == "move"  # the verdict the crash lost
    first.close()
    again = _restarted(tmp_path / "again", first, press)
    again.tick(300)  # the restart's commands reach the clock over the link
    a_side = again.referee.side_of("a")
    assert again.clock.state().running == a_side  # b pressed: a's time runs
    again.show(board)  # the verdict: b's sowing
    assert again.last("move")["player"] == "b" and again.referee.mover == "a"
    before = again.clock.sim.times_ms()
    again.tick(4_000)
    after = again.clock.sim.times_ms()
    b = 1 if a_side == "left" else 0
    assert after[b] == before[b] and after[1 - b] < before[1 - b] - 3_000
    again.close()
