"""A Mangala table killed between journalling the director's accept of the last turn played
unseen (MG-CLOCK-2) and that sowing's clock command reaching a clock that kept its state: the
restarted table leaves the clock as the live table did. A sowing that passes the turn starts
the next player's time (the journal's side, derived from the fold); one that ends the set holds
the clock for the sweep (MG-4; was: the old side's time ran on through the sweep). Also the
rule a restarted table cites when it holds a clock that ran on after the round's end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.clock.timebase import FakeTime
from controller.referee.api import DirectorAction
from controller.runtime.presses import journalled_press
from engine.mangala.position import Position
from engine.mangala.sowing import play
from firmware import clock_core
from tests.controller.mangala.harness import Table
from tests.controller.mangala.test_referee import setup, sow
from tests.controller.mangala.test_restart_clock import SET_MS, _journal_of, _restart
from tests.controller.mangala.test_table import Pictures
from tests.controller.mangala.test_unseen_director import _accept, _passing
from tests.controller.mangala.test_unseen_turns import _unseen

# b to move, b's last stone in pit 6: its sowing empties b's side and ends the set (MG-4)
LAST_STONE = {"a": [4, 4, 4, 4, 4, 3], "a_store": 4, "b": [0, 0, 0, 0, 0, 1], "b_store": 20,
              "to_move": "b"}


def _unseen_then_accepted(table: Table, ends_set: bool) -> tuple[str, Position]:
    """b's turns played unseen (the clock runs a's time, as b's press left it), each entered
    by the director; returns the side whose time ran before the last accept and the board."""
    if ends_set:
        setup(table)
        table.send(DirectorAction(table.time.now_ms(), "set_position",
                                  {"position": LAST_STONE}, "td"))
        _unseen(table, "b")
        pits = [6]
    else:
        sow(table, setup(table), 1)
        _unseen(table, "b", "b")
        pits = []
    old = table.referee.side_of("a")
    table.clock.start(old)
    table.tick(200)
    position = table.referee.position
    assert position is not None
    for k in range(len(pits) or 2):
        pit = pits[k] if pits else _passing(position)
        result = play(position, pit)
        _accept(table, pit)
        position = result.position if not result.set_over else result.sown
    table.tick(200)
    assert not table.referee.unseen_turns
    return old, position


def _restarted_with_running_clock(whole: Table, entries: list[dict[str, Any]], side: str,
                                  position: Position, folder: Path
                                  ) -> tuple[str, clock_core.ClockCore]:
    """The table killed with ``entries`` journalled and its clock, which kept its state, running
    ``side``'s time; restarted from them: the restart's live log and the clock's core."""
    press = journalled_press(entries)
    assert press is not None
    sim = whole.clock.sim
    time = FakeTime(whole.time.now_ms())
    whole.close()
    sim.time = time
    core = sim.device.core
    core.configure_countdown(SET_MS, time.now_ms())
    core.set_times(SET_MS - 9_000, SET_MS - 7_000, time.now_ms())
    core.start(clock_core.LEFT if side == "left" else clock_core.RIGHT, time.now_ms())
    core.presses = press[1]
    log = _restart(_journal_of(entries, folder), Pictures(), time, sim, board=position.board(),
                   silent_ms=0)
    core.update(time.now_ms())
    return log, core


@pytest.mark.parametrize("ends_set", [False, True], ids=["passes_the_turn", "ends_the_set"])
def test_a_kill_before_the_last_unseen_sowings_clock_command_ends_as_the_live_table(
        tmp_path: Path, ends_set: bool) -> None:
    whole = Table(tmp_path / "whole")
    old, position = _unseen_then_accepted(whole, ends_set)
    live = whole.clock.state().running  # the live table's clock after the accept
    assert live == (None if ends_set else whole.referee.side_of("b"))
    entries = whole.journal.entries
    cut = max(i for i, e in enumerate(entries) if e["type"] == "move")
    assert entries[cut].get("unseen") and entries[cut - 1]["action"] == "accept"
    # as the crash left it: the old side's time runs
    log, core = _restarted_with_running_clock(whole, entries[:cut + 1], old, position,
                                              tmp_path / "again")
    running = None if core.state == clock_core.STATE_HOLD else (
        "left" if core.running == clock_core.LEFT else "right")
    assert running == live, log
    assert "The clock kept time" in log
    if ends_set:  # the sweep's hold cites the set's end, not backgammon's between-games hold
        assert "where the journal holds it (MG-4): it is held" in log, log


def test_a_round_ended_by_the_director_holds_a_clock_that_ran_on_citing_the_round(
        tmp_path: Path) -> None:
    """The director ends the round at the table; the table goes down after journalling the end
    but before the hold reached a clock that kept running: the restart holds it, citing the
    round's end (MG-T-1), not a set's countdown (MG-CLOCK-1)."""
    whole = Table(tmp_path / "whole")
    position = sow(whole, setup(whole), 1)
    whole.tick(200)
    whole.send(DirectorAction(whole.time.now_ms(), "end_match", {"winner": "a"}, "td"))
    whole.tick(200)
    assert whole.referee.over and whole.referee.clock_on_hold
    # as the crash left it: b's time runs
    log, core = _restarted_with_running_clock(whole, whole.journal.entries, "right", position,
                                              tmp_path / "again")
    assert core.state == clock_core.STATE_HOLD, log
    assert "where the journal holds it (MG-T-1): it is held" in log, log
