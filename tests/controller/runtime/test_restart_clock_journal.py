"""A restarted backgammon table and a clock the journal disagrees with: one that kept its state
but never heard the start of the mover's time after an illegal move (TTB-4.5) gets it; one
that lost its state before any press was journalled (no boot id to compare) is told by its
settings; the presses of a late-answering clock that lost its state follow its configuration.
The first life referees a real match with the simulated clock on an in-memory cable; the
restart runs on a pty pair."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.clock.sim import SimulatedClock
from controller.clock.timebase import FakeTime
from controller.clock.wire import Wire
from controller.records.journal import read_journal
from controller.runtime.presses import journalled_press
from controller.runtime.table import JOURNAL_NAME
from firmware import clock_core
from tests.controller.runtime.test_restart_clock_power import (
    DELAY_MS,
    RESERVE_MS,
    _first_life,
    _restart,
)

SIDE = {clock_core.LEFT: "left", clock_core.RIGHT: "right"}


@pytest.mark.parametrize("hold_reached", [False, True])
def test_the_movers_time_runs_again_after_an_illegal_move_the_clock_never_heard_of(
        tmp_path: Path, hold_reached: bool) -> None:
    """Neither command reached the clock (it runs the opponent's time, as the press left it),
    or the hold did and the start did not (on hold)."""
    time = FakeTime(0)
    clock: list[SimulatedClock] = []
    entries = _first_life(tmp_path, time, presses=10_000, clock=clock, flagged=True)
    flag = entries[-1]
    assert flag["type"] == "illegal_move"
    mover = entries[0]["clock_sides"][flag["player"]]
    core = clock[0].device.core
    assert core.state == clock_core.STATE_HOLD and SIDE[core.held] != mover  # the hold came
    if not hold_reached:
        core.resume(time.now_ms())  # the clock as the mover's press left it
    sim, log = _restart(tmp_path, time, entries, kept=clock[0])
    assert sim.device.core.state == clock_core.STATE_RUN
    assert SIDE[sim.device.core.running] == mover  # was: the opponent's time (or on hold)
    assert "The clock kept time" in log and f"the {mover} side's time is started" in log


def test_a_press_since_the_journal_leaves_the_clock_as_it_is(tmp_path: Path) -> None:
    """A press the clock counted beyond the journal changed whose time runs: the clock knows
    better than the journal, so nothing is started."""
    time = FakeTime(0)
    clock: list[SimulatedClock] = []
    entries = _first_life(tmp_path, time, presses=10_000, clock=clock, flagged=True)
    core = clock[0].device.core
    core.resume(time.now_ms())  # the clock as the mover's press left it: the opponent's time
    opponent = SIDE[core.running]
    clock[0].press(opponent)  # ... who ends their turn while the Pi is down
    assert SIDE[core.running] != opponent
    _, log = _restart(tmp_path, time, entries, kept=clock[0])
    assert "time is started" not in log


def test_a_clock_that_lost_its_state_before_any_press_gets_the_matchs_settings(
        tmp_path: Path) -> None:
    """No press journalled yet (the opening's dice are on the board) when a power cut reset
    the clock too: no boot id to compare, but its HI reports the firmware's delay and reserve,
    not the match's, so it gets the match's (was: kept its firmware's 12 s and 14 minutes)."""
    time = FakeTime(0)
    entries = _first_life(tmp_path, time, presses=0)
    assert journalled_press(entries) is None
    sim, log = _restart(tmp_path, time, entries)  # a fresh clock: the firmware's settings
    core = sim.device.core
    assert (core.delay_ms, core.start_ms) == (DELAY_MS, [RESERVE_MS, RESERVE_MS])
    assert core.state == clock_core.STATE_HOLD  # nobody's time runs before the opening press
    assert "The clock lost the match's settings: it gets the match's settings" in log


def test_a_clock_that_took_the_matchs_settings_before_any_press_is_left_alone(
        tmp_path: Path) -> None:
    time = FakeTime(0)
    clock: list[SimulatedClock] = []
    entries = _first_life(tmp_path, time, presses=0, clock=clock)
    core = clock[0].device.core
    core.configure_delay(DELAY_MS, RESERVE_MS, time.now_ms())  # the match_start's settings
    core.set_times(RESERVE_MS - 5_000, RESERVE_MS - 7_000, time.now_ms())  # a reset's loss
    _, log = _restart(tmp_path, time, entries, kept=clock[0])
    assert core.reserve == [RESERVE_MS - 5_000, RESERVE_MS - 7_000]
    assert "The clock kept time" in log and "settings" not in log


@pytest.mark.parametrize("line", [False, True])
def test_presses_that_come_with_a_late_clocks_hello_follow_its_configuration(
        tmp_path: Path, line: bool) -> None:
    """A power cut reset the clock, and a player pressed it (on hold, with the firmware's
    times) before it answered, 6.5 s after the restart: the press arrives with its hello. The
    match's settings and the journal's times reach the clock first, then the referee takes the
    press, with those times, and the side it started runs (was: the press was taken first, its
    firmware times journalled and then set on the clock as the journal's). ``line``: at the
    serial line's speed, the clock's hello and status reach the table a frame before the press
    (its status counts it): the table waits for the press (was: the clock was set up without
    it, and the side the press started never ran: the press ends a move and starts the
    opponent's time, TTB-CLOCK-2)."""
    time = FakeTime(0)
    entries = _first_life(tmp_path, time, presses=7, judged=True)
    last = [e for e in entries if e["type"] == "clock"][-1]
    runs = entries[0]["clock_sides"][last["running"]]  # the player whose turn it is presses
    starts = "left" if runs == "right" else "right"
    times = dict(zip(entries[0]["clock_sides"], last["times_ms"], strict=True))
    fresh = SimulatedClock(Wire().clock_end, time, boot_id=8)
    fresh.press(runs)  # on hold: it starts the other side's time, from the firmware's times
    sim, log = _restart(tmp_path, time, entries, kept=fresh, silent_ms=6500, frames=22,
                        line=line)
    core = sim.device.core
    assert "The clock does not answer yet" in log
    assert (core.delay_ms, core.start_ms) == (DELAY_MS, [RESERVE_MS, RESERVE_MS])
    assert (core.state, SIDE[core.running]) == (clock_core.STATE_RUN, starts)
    idle = clock_core.LEFT if runs == "left" else clock_core.RIGHT
    assert core.reserve[idle] == times[runs]  # the journal's time, not the firmware's 14 min
    again = read_journal(tmp_path / JOURNAL_NAME).entries
    press = next(e for e in again[len(entries):] if e["type"] == "clock")
    assert press["press"] == [8, 1]
    assert dict(zip(entries[0]["clock_sides"], press["times_ms"], strict=True)) == times
