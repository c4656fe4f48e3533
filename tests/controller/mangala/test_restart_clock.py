"""A Mangala table restarted with a clock that answers only after the restart's 3 s wait: one
that ran on through the Pi's crash is left as it is (its countdown configured again would put
both times back to the set's full time, on hold), and one that lost its state (power) gets the
countdown (MG-CLOCK-1), the journal's times and the mover's time once it answers. The first
life runs on an in-memory cable, the restart on a pty pair, both with the simulated clock."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from controller.clock.sim import SimulatedClock
from controller.clock.timebase import FakeTime
from controller.clock.transport import PtyPair, SerialTransport
from controller.clock.wire import Wire
from controller.config.table import ClockSection
from controller.mangala.mistakes import mistakes
from controller.mangala.table import run_mangala_table
from controller.records.journal import Journal, read_journal
from controller.referee.api import DirectorAction
from controller.runtime.presses import journalled_press
from engine.mangala.position import Position
from engine.mangala.sowing import play
from firmware import clock_core
from tests.controller.mangala.harness import Table
from tests.controller.mangala.test_referee import setup, sow
from tests.controller.mangala.test_table import Pictures, Scripted, config
from tests.controller.runtime.test_restart_clock_power import SteppedHost

SET_MS = 15 * 60_000  # MG-CLOCK-1
SILENT_MS = 6500  # the clock answers this long after the restart


def _first_life(folder: Path, pics: Pictures, time: FakeTime) -> SimulatedClock:
    """a sows pit 1 and presses: b's time runs; then the Pi goes down."""
    wire = Wire()
    sim = SimulatedClock(wire.clock_end, time, boot_id=5)
    p0 = Position.initial("a")
    a1 = play(p0, 1).position
    camera = Scripted(time, sim, [(pics.of(p0.board()), 12, None),
                                (pics.of(Position.initial().board()), 1, None),
                                (pics.of(a1.board()), 8, None), (pics.of(a1.board()), 0, "left"),
                                (pics.of(a1.board()), 8, None)])
    run_mangala_table(config(folder), time=time, source=camera,
                      clock=SteppedHost(wire.host_end, time, sim), pin_factory=MockFactory(),
                      reader=pics.reader, log=io.StringIO())
    return sim


def _restart(folder: Path, pics: Pictures, time: FakeTime, sim: SimulatedClock,
             board: tuple[int, ...] | None = None, silent_ms: int = SILENT_MS) -> str:
    """The table starts again with ``sim`` on a pty pair, silent for ``silent_ms``; the camera
    shows ``board`` (by default, the board after a's first sowing)."""
    entries = read_journal(folder / "journal.jsonl").entries
    if board is None:
        board = play(Position.initial("a"), 1).position.board()
    pair = PtyPair()
    try:
        sim.transport = pair.clock_side
        host = SteppedHost(SerialTransport(pair.port_name), time, sim,
                           last_press=journalled_press(entries),
                           awake_ms=time.now_ms() + silent_ms)
        camera = Scripted(time, sim, [(pics.of(board), 24, None)])
        cfg = replace(config(folder), clock=ClockSection(port="pty"))
        log = io.StringIO()
        run_mangala_table(cfg, time=time, source=camera, clock=host,
                          pin_factory=MockFactory(), reader=pics.reader, log=log)
        return log.getvalue()
    finally:
        pair.close()


def _journal_of(entries: list[dict[str, Any]], folder: Path) -> Path:
    """A table folder whose journal holds ``entries`` (as the table that went down left it)."""
    with Journal(folder / "journal.jsonl") as journal:
        for entry in entries:
            journal.append(entry["type"], **{k: v for k, v in entry.items()
                                             if k not in ("seq", "time", "type")})
    return folder


def test_a_clock_that_ran_on_and_answers_late_is_not_reset(tmp_path: Path) -> None:
    """(was: the countdown configured again once it answered, then the journal's times: b got
    back the time that ran while the Pi was down)"""
    pics, time = Pictures(), FakeTime(0)
    sim = _first_life(tmp_path, pics, time)
    core = sim.device.core
    assert (core.state, core.running) == (clock_core.STATE_RUN, clock_core.RIGHT)
    time.advance(20_000)  # b thinks on while the Pi is down
    log = _restart(tmp_path, pics, time, sim)
    core.update(time.now_ms())
    # still b's time, never reset to the set's full time nor put back to the journal's
    assert (core.state, core.running) == (clock_core.STATE_RUN, clock_core.RIGHT)
    assert core.reserve[clock_core.RIGHT] < SET_MS - 20_000 - SILENT_MS
    assert core.reserve[clock_core.LEFT] < SET_MS  # a's sowing took time: not reset either
    assert "The clock does not answer yet" in log and "The clock kept time" in log


def test_a_clock_that_lost_its_state_and_answers_late_is_set_up_when_it_answers(
        tmp_path: Path) -> None:
    pics, time = Pictures(), FakeTime(0)
    _first_life(tmp_path, pics, time)
    entries = read_journal(tmp_path / "journal.jsonl").entries
    journal_times = [e for e in entries if e["type"] == "clock" and e.get("times_ms")][-1]
    fresh = SimulatedClock(Wire().clock_end, time, boot_id=9)  # the power cut: firmware defaults
    log = _restart(tmp_path, pics, time, fresh)
    core = fresh.device.core
    assert (core.mode, core.start_ms) == (clock_core.MODE_COUNTDOWN, [SET_MS, SET_MS])
    assert (core.state, core.running) == (clock_core.STATE_RUN, clock_core.RIGHT)
    assert core.reserve[clock_core.LEFT] == journal_times["times_ms"][0]  # (left, right)
    assert "The clock restarted since the journal's last press" in log


def test_a_set_end_whose_clock_commands_were_never_sent_resets_a_clock_that_ran_on(
        tmp_path: Path) -> None:
    """The table journalled set 1's end and went down before the hold and the new set's
    countdown reached the clock, which ran on with set 1's times: the restarted table
    journals set 2's start and resets the clock for it (MG-CLOCK-1), on hold, although the
    clock kept its state (was: set 1's times ran on into set 2)."""
    pics = Pictures()
    entries, sim, _last, time = _set_one_ended(tmp_path)
    cut = max(i for i, e in enumerate(entries) if e["type"] == "game_end")
    folder = _journal_of(entries[:cut + 1], tmp_path / "again")
    press = journalled_press(entries[:cut + 1])
    assert press is not None
    core = sim.device.core  # as the press left it: set 1's times, the opponent's running
    core.configure_countdown(SET_MS, time.now_ms())
    core.set_times(SET_MS - 9_000, SET_MS - 7_000, time.now_ms())
    core.start(clock_core.RIGHT, time.now_ms())
    core.presses = press[1]
    # the camera shows no board set up for set 2 yet: nobody's time is started
    log = _restart(folder, pics, time, sim, silent_ms=0)
    again = read_journal(folder / "journal.jsonl").entries
    assert [e["type"] for e in again[cut + 1:cut + 2]] == ["game_start"]
    assert (core.state, core.reserve) == (clock_core.STATE_HOLD, [SET_MS, SET_MS])
    assert "The clock kept time" in log


def test_an_illegal_sowing_whose_clock_command_was_never_sent_gives_the_mover_the_clock(
        tmp_path: Path) -> None:
    """The table journalled a's illegal sowing and went down before the start of a's time (to
    correct it, MG-T-4) reached the clock, which ran b's time on as a's press left it: the
    restarted table starts a's time, though the clock kept its state (was: b's time ran)."""
    pics, time = Pictures(), FakeTime(0)
    first = Table(tmp_path / "first")
    position = setup(first)
    _, wrong = mistakes(position, 1)[0]
    first.show(wrong)
    first.press("a")
    entries = first.journal.entries
    assert entries[-1]["type"] == "illegal_move"
    folder = _journal_of(entries, tmp_path / "again")
    press = journalled_press(entries)
    assert press is not None
    sim = first.clock.sim
    first.close()
    core = sim.device.core  # as a's press left it: b's time runs
    core.configure_countdown(SET_MS, time.now_ms())
    core.set_times(SET_MS - 9_000, SET_MS, time.now_ms())
    core.start(clock_core.RIGHT, time.now_ms())
    core.presses = press[1]
    sim.time = time
    log = _restart(folder, pics, time, sim, board=tuple(wrong), silent_ms=0)
    assert (core.state, core.running) == (clock_core.STATE_RUN, clock_core.LEFT)
    assert "The clock kept time" in log and "the left side's time is started" in log


def test_a_clock_that_lost_its_state_before_any_press_gets_the_countdown(
        tmp_path: Path) -> None:
    """The set-up seen started a's time, no press journalled yet, when a power cut reset the
    clock too: no boot id to compare, but it reports the firmware's own settings (its HI),
    not the set's countdown, so it gets the countdown and a's time runs again (was: taken for
    a clock that kept its state and left on its firmware's delay and reserve, on hold)."""
    pics, time = Pictures(), FakeTime(0)
    first = Table(tmp_path / "first")
    setup(first)
    entries = first.journal.entries
    assert journalled_press(entries) is None and first.clock.state().running == "left"
    folder = _journal_of(entries, tmp_path / "again")
    first.close()
    fresh = SimulatedClock(Wire().clock_end, time, boot_id=9)
    log = _restart(folder, pics, time, fresh, board=Position.initial("a").board(), silent_ms=0)
    core = fresh.device.core
    assert (core.mode, core.start_ms) == (clock_core.MODE_COUNTDOWN, [SET_MS, SET_MS])
    assert (core.state, core.running) == (clock_core.STATE_RUN, clock_core.LEFT)
    assert "The clock lost the match's settings" in log


def _set_one_ended(tmp_path: Path) -> tuple[list[dict[str, Any]], SimulatedClock,
                                            tuple[int, int], FakeTime]:
    """Set 1 ended by a's last sowing (MG-4): the live journal, its simulated clock, the
    journal's last press and the time going on from there."""
    first = Table(tmp_path / "first")
    setup(first)
    first.send(DirectorAction(first.time.now_ms(), "set_position", {"position": {
        "a": [0, 0, 0, 0, 0, 1], "a_store": 20, "b": [4, 4, 4, 4, 4, 3], "b_store": 4,
        "to_move": "a"}}, "td"))
    position = first.referee.position
    assert position is not None
    sow(first, position, 6)
    entries = first.journal.entries
    press = journalled_press(entries)
    assert press is not None
    sim = first.clock.sim
    time = FakeTime(first.time.now_ms())
    first.close()
    sim.time = time
    return entries, sim, press, time


@pytest.mark.parametrize("clock_left", ["running", "flagged"])
def test_a_set_start_whose_countdown_was_never_sent_resets_a_clock_that_kept_its_state(
        tmp_path: Path, clock_left: str) -> None:
    """The table journalled set 2's start and went down before its countdown (MG-CLOCK-1)
    reached the clock, which kept set 1's times, still running, or flagged (a time-out's
    set): the restarted table resets it for set 2, on hold, with no press since (was: held
    at set 1's times, or left flagged, refusing every start of set 2)."""
    pics = Pictures()
    entries, sim, press, time = _set_one_ended(tmp_path)
    cut = max(i for i, e in enumerate(entries) if e["type"] == "game_start")
    assert entries[cut]["set"] == 2 and entries[cut - 1]["type"] == "game_end"
    folder = _journal_of(entries[:cut + 1], tmp_path / "again")
    core = sim.device.core
    core.configure_countdown(SET_MS, time.now_ms())
    core.set_times(SET_MS - 9_000, 4_000 if clock_left == "flagged" else SET_MS - 7_000,
                   time.now_ms())
    core.start(clock_core.RIGHT, time.now_ms())
    if clock_left == "flagged":
        time.advance(5_000)
        core.update(time.now_ms())
        assert core.state == clock_core.STATE_FLAG
    core.presses = press[1]
    # the camera shows no board set up for set 2 yet: nobody's time is started
    log = _restart(folder, pics, time, sim, silent_ms=0)
    core.update(time.now_ms())
    assert (core.state, core.reserve) == (clock_core.STATE_HOLD, [SET_MS, SET_MS])
    assert "it is reset for the set" in log
    assert "The clock kept time" in log


def test_a_round_whose_first_set_was_never_journalled_starts_it(tmp_path: Path) -> None:
    """The table journalled the round's start and went down before set 1's: the restarted
    table journals set 1's start (MG-T-2) and refs it (was: no set, every frame ignored)."""
    first = Table(tmp_path / "first")
    entries = first.journal.entries
    first.close()
    assert [e["type"] for e in entries] == ["match_start", "game_start"]
    again = Table(_journal_of(entries[:1], tmp_path / "again"))
    assert again.types() == ["match_start", "game_start"]
    assert again.referee.set_number == 1 and again.referee.stage == "setup"
    setup(again)
    assert again.referee.stage == "turn"
    again.close()
