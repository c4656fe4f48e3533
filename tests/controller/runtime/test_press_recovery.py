"""Every press the clock counted is journalled exactly once, across restarts of the host.

The clock (the real firmware core) lives on an in-memory cable and survives the host; the
host side (link, referee, journal) is killed at random moments of a real match, including the
worst one: after the host acknowledged a press (so the clock will not send it again) and before
the referee journalled it. The restarted host compares the journal's last press number with
the clock's count and recovers the press (``controller.runtime.presses``); the camera still
sees the board as it was, so the still frames since hands last moved are shown again. The
finished journal must be the uninterrupted run's (the clock's times aside: the restarts take
time on the clock), with every press number once, in order.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controller.clock.host import HostClock
from controller.clock.messages import ClockEvent, PressEvent, Status
from controller.clock.sim import SimulatedClock
from controller.clock.timebase import FakeTime
from controller.clock.wire import Wire
from controller.records.journal import Journal, read_journal
from controller.records.mat_export import export_match
from controller.referee.api import ClockHoldPressed, ClockPressed, Event, MotionSeen
from controller.referee.machine import Referee
from controller.runtime.effects import Executor, LiveLog
from controller.runtime.loop import press_event
from controller.runtime.presses import explain, journalled_press, reconcile, recover
from controller.runtime.session import start_referee
from tests.controller.referee.harness import config_for, read_mat
from tests.controller.referee.tablesim import TableSim

MATCH = Path(__file__).parents[2] / "data" / "matches" / "match10058734.txt"


class SteppedHost(HostClock):
    """The host's link to the firmware core on an in-memory cable; each poll runs the clock's
    loop and lets 5 ms pass."""

    def __init__(self, wire: Wire, time: FakeTime, sim: SimulatedClock,
                 last_press: tuple[int, int] | None) -> None:
        super().__init__(wire.host_end, time, session=None, last_press=last_press)
        self.sim = sim
        self.fake = time
        self.held: list[ClockEvent] = []  # what the handshake's polls heard, for the next poll

    def poll(self) -> list[ClockEvent]:
        self.sim.step()
        events = super().poll()
        self.sim.step()
        self.fake.advance(5)
        held, self.held = self.held, []
        return held + events

    def handshake(self) -> None:
        """Poll until the link is up, keeping what it hears (a press the clock resends at
        once) for the next :meth:`poll`."""
        for _ in range(100):
            self.held += self.poll()
            if self.connected:
                break


class Host:
    """One life of the host process: journal, referee, executor, link. The clock survives
    the host, so a restarted host sends it none of the restore's clock state, as ``hakem
    run`` does for a clock that kept time (``restore_clock=False``)."""

    def __init__(self, path: Path, config: Any, wire: Wire, sim: SimulatedClock,
                 time: FakeTime) -> None:
        self.journal = Journal(path)
        entries = self.journal.entries
        self.referee: Referee
        self.referee, startup = start_referee(config, entries, restore_clock=False)
        self.clock = SteppedHost(wire, time, sim, journalled_press(entries))
        self.executor = Executor(self.journal, self.clock, None, None, LiveLog(),
                                 frame_jpeg=lambda: None)
        self.executor.run(startup)
        self.clock.handshake()

    def handle(self, event: Event) -> None:
        self.executor.run(self.referee.handle(event))

    def wait_press(self) -> PressEvent:
        for _ in range(200):
            for event in self.clock.poll():
                if isinstance(event, PressEvent):
                    return event
        raise AssertionError("the press never reached the host")

    def close(self) -> None:
        self.journal.close()


def _play(path: Path, kills: set[int], seed: int = 3) -> tuple[list[dict[str, Any]], int]:
    record = read_mat(MATCH)
    config = config_for(record)
    stream = TableSim(record, config, seed, illegal=0.1, invalid=0.05).run()
    events = stream.events
    time = FakeTime(0)
    wire = Wire()
    sim = SimulatedClock(wire.clock_end, time, boot_id=7)
    host = Host(path, config, wire, sim, time)
    recovered = 0
    for i, event in enumerate(events):
        if isinstance(event, ClockPressed | ClockHoldPressed):
            sim.press(event.side if isinstance(event, ClockPressed) else "hold")
            press = host.wait_press()
            host.clock.poll()  # the acknowledgement reaches the clock: it will not resend
            if i in kills:  # killed before the referee journalled the press
                host.close()
                host = Host(path, config, wire, sim, time)
                found = recover(host.clock, host.journal.entries, time, sleep=False)
                assert found.recovered == {press.number}, found.notes
                recovered += 1
                for e in found.events:
                    assert isinstance(e, PressEvent)
                    host.handle(press_event(e, event.t_ms, recovered=e.number in found.recovered))
                _show_still_frames(host, events, i)
                continue
            host.handle(press_event(press, event.t_ms))
        else:
            host.handle(event)
            if i in kills:  # killed after the event's entries were written
                host.close()
                host = Host(path, config, wire, sim, time)
                found = recover(host.clock, host.journal.entries, time, sleep=False)
                assert not found.recovered and not found.events, found.notes
                _show_still_frames(host, events, i + 1)
        host.clock.poll()
    entries = host.journal.entries
    host.close()
    return entries, recovered


def _show_still_frames(host: Host, events: list[Event], upto: int) -> None:
    """The camera keeps seeing the board after the restart: the still frames since hands last
    moved, shown again."""
    start = upto
    while start > 0 and not isinstance(events[start - 1], MotionSeen):
        start -= 1
    for event in events[start:upto]:
        if not isinstance(event, ClockPressed | ClockHoldPressed):
            host.handle(event)


def _comparable(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    skip = {"seq", "time", "times_ms", "recovered"}
    return [{k: v for k, v in e.items() if k not in skip} for e in entries]


def test_presses_lost_between_acknowledgement_and_journal_are_recovered(tmp_path: Path) -> None:
    whole, none = _play(tmp_path / "whole.jsonl", set())
    assert none == 0
    presses = [i for i, e in enumerate(whole) if e["type"] == "clock"]
    numbers = [e["press"] for e in whole if e["type"] == "clock"]
    assert numbers == [[7, n] for n in range(1, len(numbers) + 1)]  # every press, in order

    record = read_mat(MATCH)
    stream = TableSim(record, config_for(record), 3, illegal=0.1, invalid=0.05).run()
    rng = random.Random(20261122)
    press_events = [i for i, e in enumerate(stream.events)
                    if isinstance(e, ClockPressed | ClockHoldPressed)]
    other_events = [i for i, e in enumerate(stream.events)
                    if not isinstance(e, ClockPressed | ClockHoldPressed | MotionSeen)]
    kills = set(rng.sample(press_events, 8)) | set(rng.sample(other_events, 4))
    killed, recovered = _play(tmp_path / "killed.jsonl", kills)
    assert recovered == 8
    assert sum(1 for e in killed if e.get("recovered")) == 8
    assert _comparable(killed) == _comparable(whole)
    assert export_match(killed).mat_text == export_match(whole).mat_text
    assert len(presses) > 40


def _status(presses: int, state: str, running: str | None) -> Status:
    return Status(1000, "delay", state, running, (5000, 6000), 0, presses, None,  # type: ignore[arg-type]
                  1)


def test_the_press_that_explains_the_clock() -> None:
    assert explain(_status(5, "run", "right"), 7, 5, False).button == "left"  # type: ignore[union-attr]
    assert explain(_status(5, "run", "left"), 7, 5, False).button == "right"  # type: ignore[union-attr]
    assert explain(_status(5, "run", "left"), 7, 5, True).button == "hold"  # type: ignore[union-attr]
    assert explain(_status(5, "hold", None), 7, 5, False).button == "hold"  # type: ignore[union-attr]
    assert explain(_status(5, "flag", None), 7, 5, False) is None


def test_reconcile_cases() -> None:
    entries = [{"type": "clock", "press": [7, 4], "means": "move"}]
    # nothing missing
    assert reconcile(entries, _status(4, "run", "left"), 7, []).events == []
    # one missing: recovered
    found = reconcile(entries, _status(5, "run", "left"), 7, [])
    assert found.recovered == {5} and isinstance(found.events[0], PressEvent)
    # missing presses the clock resends arrive as events and are not invented
    resent = PressEvent(5, "right", 900, "left", (1, 2), 0, "run", boot=7)
    found = reconcile(entries, _status(5, "run", "left"), 7, [resent])
    assert found.events == [resent] and not found.recovered
    # two missing: which buttons cannot be told; they are handed over as lost, with the side
    # whose time runs, for the referee to take the turn from (TTB-6.1)
    found = reconcile(entries, _status(6, "run", "left"), 7, [])
    assert not found.events and found.lost == [(7, 5), (7, 6)] and found.unseen
    assert found.running == "left" and "5..6" in found.notes[0]
    # one missing and one resent: two presses unseen
    resent6 = PressEvent(6, "left", 950, "right", (1, 2), 0, "run", boot=7)
    found = reconcile(entries, _status(6, "run", "right"), 7, [resent6])
    assert found.lost == [(7, 5)] and found.events == [resent6] and found.unseen
    # another boot of the clock: its count starts afresh
    found = reconcile(entries, _status(2, "run", "left"), 8, [])
    assert not found.events and "restarted" in found.notes[0]
    # no press journalled yet
    assert reconcile([], _status(3, "run", "left"), 7, []).events == []


class _NoFrames:
    """A camera that has ended: ``run_table`` resumes, reconciles and stops."""

    def read(self) -> None:
        return None

    def close(self) -> None:
        pass


def presses_while_down(wire: Wire, sim: SimulatedClock, time: FakeTime,
                       buttons: Sequence[str], gap: int = 100) -> None:
    """The host is down (the cable out): the players press ``buttons``, ``gap`` clock steps
    (5 ms each) apart; the clock queues them; the cable goes back in."""
    wire.unplug()
    for button in buttons:
        for _ in range(gap):
            sim.step()
            time.advance(5)
        sim.press(button)  # type: ignore[arg-type]
    wire.plug()


def journal_after_opening(folder: Path) -> tuple[Any, FakeTime, Wire, SimulatedClock]:
    """A table's journal through the opening and its first press, (7, 1), as ``run_table``
    finds it on a restart; its configuration, time, cable and clock (which counted it)."""
    from controller.config.table import ClockSection, JournalSection, TableConfig
    from tests.controller.referee.table import Table

    table = Table()
    table.opening(3, 5)
    config = TableConfig(clock=ClockSection(port="/dev/null"),
                         journal=JournalSection(directory=str(folder)))
    time = FakeTime(0)
    wire = Wire()
    sim = SimulatedClock(wire.clock_end, time, boot_id=7)
    sim.press("right")
    with Journal(folder / "journal.jsonl") as journal:
        for entry in table.journal():
            journal.append(entry["type"], **{k: v for k, v in entry.items() if k != "type"})
        journal.append("clock", event="press", player=1, side="right", times_ms=[1, 2],
                       running=0, means="start", press=[7, 1])
    return config, time, wire, sim


def run_restarted(config: Any, time: FakeTime, host: HostClock) -> list[dict[str, Any]]:
    """``run_table`` restarted on ``host`` with a camera that has ended; its journal."""
    from gpiozero.pins.mock import MockFactory

    from controller.runtime.table import run_table

    with open(os.devnull, "w") as sink:
        run_table(config, log=sink, time=time, source=_NoFrames(), clock=host,
                  pin_factory=MockFactory())
    return Journal(Path(config.journal.directory) / "journal.jsonl").entries


def test_hakem_run_recovers_the_press_on_restart(tmp_path: Path) -> None:
    """``run_table`` after a restart: the clock counted one press more than the journal holds;
    the press is journalled as recovered, and the live log says so."""
    config, time, wire, sim = journal_after_opening(tmp_path)
    first = SteppedHost(wire, time, sim, (7, 1))  # the host that is about to die
    for _ in range(100):
        first.poll()
    sim.press("left")  # press 2: acknowledged by the host, never journalled
    got = [e for _ in range(100) for e in first.poll() if isinstance(e, PressEvent)]
    assert [e.number for e in got] == [2]
    first.poll()
    entries = run_restarted(config, time, SteppedHost(wire, time, sim, None))
    recovered = [e for e in entries if e.get("recovered")]
    assert len(recovered) == 1 and recovered[0]["press"] == [7, 2]
    assert recovered[0]["side"] == "left"
    assert "recovered from the clock" in (tmp_path / "live.log").read_text()


def test_presses_made_while_the_host_was_down_are_all_awaited(tmp_path: Path) -> None:
    """Presses the clock queued while the host was down come one by one after the restarted
    link hears the clock (stop-and-wait): the recovery waits for those the clock's count says
    are coming, rather than calling them lost ("cannot be told apart", end-to-end QA) and then
    seeing them arrive."""
    record = read_mat(MATCH)
    config = config_for(record)
    time = FakeTime(0)
    wire = Wire()
    sim = SimulatedClock(wire.clock_end, time, boot_id=7)
    host = Host(tmp_path / "j.jsonl", config, wire, sim, time)
    sim.press("right")
    first = host.wait_press()
    host.handle(press_event(first, time.now_ms()))
    for _ in range(50):
        host.clock.poll()
    host.close()
    presses_while_down(wire, sim, time, ("left", "right", "left"))
    entries = read_journal(tmp_path / "j.jsonl").entries
    clock = SteppedHost(wire, time, sim, journalled_press(entries))
    found = recover(clock, entries, time, sleep=False)
    assert [e.number for e in found.events if isinstance(e, PressEvent)] == [2, 3, 4]
    assert found.notes == [] and found.recovered == set()


def test_presses_of_a_clock_that_restarted_are_all_awaited(tmp_path: Path) -> None:
    """The clock itself restarted (power) while the host was down, and the players pressed
    three times: its count starts afresh, and all three are waited for (review: the wait
    stopped at once, and the third came later as an ordinary press)."""
    entries = [{"type": "clock", "press": [7, 5], "means": "move"}]
    time = FakeTime(0)
    wire = Wire()
    sim = SimulatedClock(wire.clock_end, time, boot_id=8)
    presses_while_down(wire, sim, time, ("left", "right", "left"))
    found = recover(SteppedHost(wire, time, sim, (7, 5)), entries, time, sleep=False)
    assert [(e.boot, e.number) for e in found.presses] == [(8, 1), (8, 2), (8, 3)]
    assert found.unseen and "restarted" in found.notes[0]
