"""``hakem run`` restarted after a power cut that also reset the match clock: the clock answers
as a fresh clock (a new boot id, default times, on hold), so the table sets the journal's times
and starts again the time of the player whose time ran when it went down (DESIGN.md, Records:
the match continues where it was). Between games, or after the hold button, it stays on hold
(TTB-CLOCK-4, TTB-4.5). The first life referees a real match on synthetic frames with the
simulated clock on an in-memory cable; the restart is the real runtime with a fresh simulated
clock on a pty pair."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from controller.clock.host import HostClock
from controller.clock.messages import ClockEvent, PressEvent
from controller.clock.sim import SimulatedClock
from controller.clock.timebase import FakeTime
from controller.clock.transport import BAUDRATE, PtyPair, SerialTransport, Transport
from controller.clock.wire import Wire
from controller.config.table import (
    CameraSection,
    ClockSection,
    JournalSection,
    PlayersSection,
    TableConfig,
)
from controller.records.journal import Journal, read_journal
from controller.referee.api import ClockHoldPressed, ClockPressed, JournalEntry
from controller.referee.resume import resume
from controller.runtime.effects import Executor, LiveLog
from controller.runtime.loop import press_event
from controller.runtime.presses import journalled_press
from controller.runtime.session import start_referee
from controller.runtime.table import JOURNAL_NAME, run_table
from firmware import clock_core
from tests.controller.referee.harness import config_for, read_mat
from tests.controller.referee.tablesim import TableSim
from tests.controller.test_clock_framing import Tampered
from vision.sources import Frame

MATCH = Path(__file__).parents[2] / "data" / "matches" / "match10058734.txt"
CORNERS = (100.0, 100.0, 1180.0, 100.0, 1180.0, 500.0, 100.0, 500.0)
# the match's clock settings (the firmware's own, after a power cut, are 12 s and 14 minutes)
DELAY_MS, RESERVE_MS = 10_000, 10 * 60_000


class SteppedHost(HostClock):
    """The host's link to the simulated clock; each poll runs the clock's loop and lets 5 ms
    pass (the test's stand-in for real time)."""

    def __init__(self, transport: Any, time: FakeTime, sim: SimulatedClock,
                 last_press: tuple[int, int] | None = None, awake_ms: int = 0) -> None:
        super().__init__(transport, time, last_press=last_press)
        self.sim, self.fake = sim, time
        self.awake_ms = awake_ms  # the clock does not answer before (it keeps time, though)

    def poll(self) -> list[ClockEvent]:
        awake = self.fake.now_ms() >= self.awake_ms
        if awake:
            self.sim.step()
        events = super().poll()
        if awake:
            self.sim.step()
        self.fake.advance(5)
        return events


class SerialLine(Tampered):
    """The host's end of a serial line at the clock's baud rate (8N1: ten bits a byte) in
    simulated time: a read gets only the bytes that have come down the line by now, so what
    the clock wrote at once (its answers to a pile of hellos, then a press) comes in pieces."""

    BYTES_PER_MS = BAUDRATE / 10 / 1000

    def __init__(self, port: Transport, time: FakeTime) -> None:
        super().__init__(port, lambda data: data)
        self.time = time
        self.queued = b""
        self.sent_ms = 0.0  # when the line began sending the first queued byte

    def read(self) -> bytes:
        now = self.time.now_ms()
        if not self.queued:
            self.sent_ms = now  # an idle line starts sending what comes now
        self.queued += self.inner.read()
        count = min(len(self.queued), int((now - self.sent_ms) * self.BYTES_PER_MS))
        self.sent_ms += count / self.BYTES_PER_MS
        data, self.queued = self.queued[:count], self.queued[count:]
        return data


class Camera:
    """``count`` grey frames 250 ms apart (the board is not what the restart is about)."""

    def __init__(self, time: FakeTime, count: int) -> None:
        self.time, self.left = time, count

    def read(self) -> Frame | None:
        if self.left == 0:
            return None
        self.left -= 1
        self.time.advance(250)
        return Frame(np.full((720, 1280, 3), 90, np.uint8), self.time.now_ms() / 1000, "f")

    def close(self) -> None:
        pass


def _first_life(folder: Path, time: FakeTime, presses: int, *, hold: bool = False,
                clock: list[SimulatedClock] | None = None, delay_ms: int = DELAY_MS,
                reserve_ms: int = RESERVE_MS, judged: bool = False,
                flagged: bool = False) -> list[dict[str, Any]]:
    """Referee a real match until ``presses`` clock presses are journalled (``hold``: and the
    hold button pressed after them; ``judged``: and the last press's move; ``flagged``: or
    until an illegal move is journalled, before its clock commands reach the clock), then
    die; the clock is appended to ``clock``."""
    record = read_mat(MATCH)
    config = config_for(record, delay_ms=delay_ms, reserve_ms=reserve_ms)
    wire = Wire()
    sim = SimulatedClock(wire.clock_end, time, boot_id=7)
    if clock is not None:
        clock.append(sim)
    host = SteppedHost(wire.host_end, time, sim)
    with Journal(folder / JOURNAL_NAME) as journal:
        referee, startup = start_referee(config, [])
        executor = Executor(journal, host, None, None, LiveLog(), frame_jpeg=lambda: None)
        executor.run(startup)
        events = TableSim(record, config, 3, illegal=0.5 if flagged else 0.04).run().events
        for event in events:
            if hold and sum(1 for e in journal.entries if e["type"] == "clock") >= presses:
                event = ClockHoldPressed(event.t_ms, (0, 0))  # a dispute (TTB-6.1)
            if isinstance(event, ClockPressed | ClockHoldPressed):
                sim.press(event.side if isinstance(event, ClockPressed) else "hold")
                got: list[PressEvent] = []
                for _ in range(200):
                    got += [e for e in host.poll() if isinstance(e, PressEvent)]
                    if got:
                        break
                executor.run(referee.handle(press_event(got[0], event.t_ms)))
            else:
                executor.run(referee.handle(event))
            if flagged and journal.entries[-1]["type"] == "illegal_move":
                return list(journal.entries)
            if (sum(1 for e in journal.entries if e["type"] == "clock") >= presses + hold
                    and (not judged or journal.entries[-1]["type"] == "move")):
                return list(journal.entries)
    raise AssertionError("the match has fewer presses")


def _restart(folder: Path, time: FakeTime, entries: list[dict[str, Any]],
             kept: SimulatedClock | None = None, *, silent_ms: int = 0,
             frames: int = 6, line: bool = False) -> tuple[SimulatedClock, str]:
    """The table starts again on the journal with a clock that lost its state (power), or
    with the clock ``kept`` that ran on (plugged into the new port); the clock answers only
    ``silent_ms`` after the restart, and the camera gives ``frames`` frames. ``line``: the
    clock's bytes reach the table at the serial line's speed (:class:`SerialLine`), else as
    soon as the pty delivers them."""
    config = TableConfig(players=PlayersSection(left="A", right="B", bottom="left"),
                         camera=CameraSection(source="test", corners=CORNERS),
                         clock=ClockSection(port="pty"),
                         journal=JournalSection(directory=str(folder)))
    pair = PtyPair()
    try:
        sim = kept if kept is not None else SimulatedClock(pair.clock_side, time, boot_id=8)
        sim.transport = pair.clock_side
        port: Transport = SerialTransport(pair.port_name)
        host = SteppedHost(SerialLine(port, time) if line else port, time, sim,
                           last_press=journalled_press(entries),
                           awake_ms=time.now_ms() + silent_ms)
        log = io.StringIO()
        run_table(config, time=time, source=Camera(time, frames), clock=host,
                  pin_factory=MockFactory(), log=log)
        return sim, log.getvalue()
    finally:
        pair.close()


def test_a_clock_that_lost_its_state_runs_again_for_the_player_whose_time_ran(
        tmp_path: Path) -> None:
    time = FakeTime(0)
    entries = _first_life(tmp_path, time, presses=7)
    last = [e for e in entries if e["type"] == "clock"][-1]
    assert last["event"] == "press" and last["means"] == "move"
    runs = last["running"]  # the mover pressed: the opponent's time runs (TTB-CLOCK-2)
    side = entries[0]["clock_sides"][runs]
    sim, log = _restart(tmp_path, time, entries)
    core = sim.device.core
    assert core.state == clock_core.STATE_RUN  # was: on hold until the next press
    assert (core.delay_ms, core.start_ms) == (DELAY_MS, [RESERVE_MS, RESERVE_MS])  # was: 12 s
    assert core.running == (clock_core.LEFT if side == "left" else clock_core.RIGHT)
    other = 1 - core.running
    times = dict(zip(entries[0]["clock_sides"], last["times_ms"], strict=True))
    assert core.reserve[other] == times["left" if other == clock_core.LEFT else "right"]
    assert core.reserve[core.running] <= times[side]  # it runs
    assert (f"The clock restarted since the journal's last press: its times are set from the "
            f"journal, and the {side} side's time runs again") in log
    assert read_journal(tmp_path / JOURNAL_NAME).entries[:len(entries)] == entries


def test_a_clock_that_kept_its_state_is_left_as_it_is(tmp_path: Path) -> None:
    """The Pi alone restarted: the clock ran on, so neither the match's settings (which would
    reset both times and hold the clock) nor the journal's times are sent to it."""
    time = FakeTime(0)
    clock: list[SimulatedClock] = []
    entries = _first_life(tmp_path, time, presses=7, clock=clock)
    before = (clock[0].device.core.state, clock[0].device.core.running)
    assert before[0] == clock_core.STATE_RUN
    sim, log = _restart(tmp_path, time, entries, kept=clock[0])
    assert (sim.device.core.state, sim.device.core.running) == before
    assert "The clock kept time" in log and "runs again" not in log


def test_between_games_a_clock_that_lost_its_state_stays_on_hold(tmp_path: Path) -> None:
    """The game ended (TTB-CLOCK-4): the journal's times are set, nobody's time runs."""
    time = FakeTime(0)
    entries = _first_life(tmp_path, time, presses=1)  # the opening's press started the clock
    with Journal(tmp_path / JOURNAL_NAME) as journal:  # ... and the director ended the game
        journal.append("director", action="resign", args={"player": 0, "kind": 1},
                       director="td")
    entries = read_journal(tmp_path / JOURNAL_NAME).entries
    sim, log = _restart(tmp_path, time, entries)
    kinds = [e["type"] for e in read_journal(tmp_path / JOURNAL_NAME).entries]
    assert kinds[len(entries):][:3] == ["resign", "game_end", "game_start"]
    assert sim.device.core.state == clock_core.STATE_HOLD
    assert "runs again" not in log


def test_a_clock_held_when_the_table_went_down_stays_on_hold_and_says_how_to_go_on(
        tmp_path: Path) -> None:
    """The hold button stopped the turn (a dispute, TTB-6.1): the restarted clock stays on
    hold, and the live log says who presses to start whose time again (TTB-4.5)."""
    time = FakeTime(0)
    entries = _first_life(tmp_path, time, presses=7, hold=True)
    last = [e for e in entries if e["type"] == "clock"]
    assert last[-1]["event"] == "hold" and last[-2]["event"] == "press"
    held = last[-2]["running"]
    names = entries[0]["players"]
    sim, log = _restart(tmp_path, time, entries)
    assert sim.device.core.state == clock_core.STATE_HOLD
    assert (f"The clock is on hold, as it was when the table stopped: {names[1 - held]} "
            f"presses their button to start {names[held]}'s time again (TTB-4.5)") in log
    assert "runs again" not in log


def _journal_times(entries: list[dict[str, Any]]) -> dict[str, int]:
    """The last journalled times by clock side."""
    last = [e for e in entries if e["type"] == "clock" and e.get("times_ms")][-1]
    return dict(zip(entries[0]["clock_sides"], last["times_ms"], strict=True))


@pytest.mark.parametrize(("action", "args", "last"), [
    ("resign", {"player": 0, "kind": 1}, "game_start"),
    ("end_match", {"winner": 1}, "match_end"),
])
def test_a_hold_that_never_reached_the_clock_is_sent_on_the_restart(
        tmp_path: Path, action: str, args: dict[str, int], last: str) -> None:
    """The table journalled a game's (or the match's) end and went down before its hold
    reached the clock, which ran on: the restarted table holds it (TTB-CLOCK-4) at the
    journal's times, though the clock kept its state."""
    time = FakeTime(0)
    clock: list[SimulatedClock] = []
    entries = _first_life(tmp_path, time, presses=7, clock=clock, judged=True)
    ruling = {"action": action, "args": args, "director": "td"}
    _, decided = resume([*entries, {"type": "director", **ruling}])
    with Journal(tmp_path / JOURNAL_NAME) as journal:
        journal.append("director", **ruling)
        for command in decided:
            if isinstance(command, JournalEntry):
                journal.append(command.type, **command.fields)
    entries = read_journal(tmp_path / JOURNAL_NAME).entries
    assert entries[-1]["type"] == last
    core = clock[0].device.core
    time.advance(5000)  # the clock runs on while the Pi is down
    core.update(time.now_ms())
    assert core.state == clock_core.STATE_RUN
    sim, log = _restart(tmp_path, time, entries, kept=clock[0])
    assert sim.device.core.state == clock_core.STATE_HOLD  # was: still running
    times = _journal_times(entries)
    assert sim.device.core.reserve == [times["left"], times["right"]]
    assert "The clock kept time" in log and "where the journal holds it (TTB-CLOCK-4)" in log


def test_a_clock_that_lost_its_state_and_answers_late_is_set_up_when_it_answers(
        tmp_path: Path) -> None:
    """A power cut reset the clock, and it answers only 6.5 s after the restart (the table
    waits 3 s for it): once it answers, it gets the match's delay and reserve and the journal's
    times, and the time that ran runs again (was: its firmware's 12 s and 14 minutes, on
    hold, until the table was restarted again)."""
    time = FakeTime(0)
    entries = _first_life(tmp_path, time, presses=7, judged=True)
    runs = [e for e in entries if e["type"] == "clock"][-1]["running"]
    side = entries[0]["clock_sides"][runs]
    sim, log = _restart(tmp_path, time, entries, silent_ms=6500, frames=22)
    core = sim.device.core
    assert "The clock does not answer yet" in log
    assert (core.delay_ms, core.start_ms) == (DELAY_MS, [RESERVE_MS, RESERVE_MS])
    assert core.state == clock_core.STATE_RUN
    assert core.running == (clock_core.LEFT if side == "left" else clock_core.RIGHT)
    times = _journal_times(entries)
    other = "right" if side == "left" else "left"
    assert core.reserve[1 - core.running] == times[other]
    assert f"the {side} side's time runs again" in log


def test_a_delay_only_match_starts_the_time_that_ran_on_a_clock_that_lost_its_state(
        tmp_path: Path) -> None:
    """No reserve (delay only): both journalled times are 0, which are times all the same
    (was: no times were sent, so nobody's time was started again)."""
    time = FakeTime(0)
    entries = _first_life(tmp_path, time, presses=7, delay_ms=60_000, reserve_ms=0)
    assert _journal_times(entries) == {"left": 0, "right": 0}
    runs = [e for e in entries if e["type"] == "clock"][-1]["running"]
    side = entries[0]["clock_sides"][runs]
    sim, log = _restart(tmp_path, time, entries)
    core = sim.device.core
    assert (core.delay_ms, core.start_ms) == (60_000, [0, 0])
    assert core.state == clock_core.STATE_RUN
    assert core.running == (clock_core.LEFT if side == "left" else clock_core.RIGHT)
    assert f"the {side} side's time runs again" in log
