"""The live table's wiring that both games share (``controller.runtime.table``): the devices
opened in the journal's folder and closed whatever happens, the loop's order (clock events,
then a frame, then the LEDs' timers), its three ends (over, camera ended, stopped), the hub
publisher, and a torn journal tail reported; a Mangala round gets all of it too."""

from __future__ import annotations

import io
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from controller.clock.messages import ClockEvent, PressEvent
from controller.clock.sim import LoopbackClock
from controller.clock.timebase import FakeTime
from controller.config.table import (
    CameraSection,
    ClockSection,
    JournalSection,
    PlayersSection,
    TableConfig,
)
from controller.mangala.table import run_mangala_table
from controller.records.journal import read_journal
from controller.runtime.table import StopFlag, TableDevices, drive, open_table
from vision.sources import Frame

CORNERS = (100.0, 100.0, 1180.0, 100.0, 1180.0, 500.0, 100.0, 500.0)


class Camera:
    """``count`` grey frames 250 ms apart; remembers being closed."""

    def __init__(self, time: FakeTime, count: int, size: tuple[int, int] = (80, 60)) -> None:
        self.time, self.left, self.size = time, count, size
        self.closed = False

    def read(self) -> Frame | None:
        if self.left == 0:
            return None
        self.left -= 1
        self.time.advance(250)
        w, h = self.size
        return Frame(np.full((h, w, 3), 90, np.uint8), self.time.now_ms() / 1000, "f")

    def close(self) -> None:
        self.closed = True


class Sink:
    """A pipeline that writes down what reached it, in order."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def on_clock(self, event: ClockEvent) -> None:
        self.seen.append(type(event).__name__)

    def on_frame(self, image: np.ndarray, *, jpeg: bytes | None = None,
                 key: str | None = None) -> None:
        self.seen.append("frame")


def config(folder: Path) -> TableConfig:
    return TableConfig(players=PlayersSection(left="Ayşe", right="Mehmet", bottom="left"),
                       camera=CameraSection(source="test", corners=CORNERS),
                       clock=ClockSection(port="sim"),
                       journal=JournalSection(directory=str(folder)))


def connected(time: FakeTime) -> LoopbackClock:
    clock = LoopbackClock(time)
    for _ in range(400):
        time.advance(5)
        clock.poll()
        if clock.host.connected:
            return clock
    raise AssertionError("the simulated clock did not answer")


def test_the_loop_reads_until_the_camera_ends_and_closes_every_device(
        tmp_path: Path) -> None:
    time = FakeTime(0)
    clock = connected(time)
    camera = Camera(time, 3)
    log = io.StringIO()
    sink = Sink()
    with open_table(config(tmp_path), time=time, source=camera, clock=clock,
                    pin_factory=MockFactory(), log=log) as table:
        assert isinstance(table, TableDevices) and not table.resuming
        assert table.time is time and table.folder == tmp_path
        drive(table, sink, lambda: False)
    assert sink.seen == ["frame"] * 3
    assert "The camera has no more frames" in log.getvalue()
    assert "Stopped" not in log.getvalue()
    assert camera.closed  # every device closed on the way out
    assert (tmp_path / "live.log").is_file()


def test_a_stopped_table_says_so_and_an_over_one_reads_nothing(tmp_path: Path) -> None:
    time = FakeTime(0)
    log = io.StringIO()
    flag = StopFlag(threading.Event())

    class Signalled(Sink):
        def on_frame(self, image: np.ndarray, *, jpeg: bytes | None = None,
                     key: str | None = None) -> None:
            super().on_frame(image)
            if self.seen.count("frame") == 2:
                flag.set()  # SIGTERM while the second frame is handled

    sink = Signalled()
    with open_table(config(tmp_path), time=time, source=Camera(time, 100),
                    clock=connected(time), pin_factory=MockFactory(), log=log,
                    stop=flag) as table:
        drive(table, sink, lambda: False)
    assert sink.seen.count("frame") == 2
    assert "Stopped; the journal is complete up to here" in log.getvalue()
    sink2 = Sink()
    with open_table(config(tmp_path), time=time, source=Camera(time, 5),
                    clock=connected(time), pin_factory=MockFactory(), log=io.StringIO()
                    ) as table:
        drive(table, sink2, lambda: True)
    assert sink2.seen == []


def test_a_mangala_round_gets_the_hub_publisher_and_the_torn_tail_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    published: list[dict[str, Any]] = []
    closed: list[bool] = []
    resumed: list[list[dict[str, Any]]] = []

    class Publisher:
        def publish(self, entry: dict[str, Any]) -> None:
            published.append(entry)

        def resume(self, entries: list[dict[str, Any]]) -> None:
            resumed.append(list(entries))

        def close(self) -> None:
            closed.append(True)

    time = FakeTime(0)
    run_mangala_table(config(tmp_path), time=time, source=Camera(time, 4, (1280, 720)),
                      clock=connected(time), pin_factory=MockFactory(), log=io.StringIO(),
                      publisher_factory=lambda folder: Publisher())
    entries = read_journal(tmp_path / "journal.jsonl").entries
    assert entries and entries[0]["type"] == "match_start" and entries[0]["game"] == "mangala"
    assert [e["seq"] for e in published] == [e["seq"] for e in entries]
    assert closed == [True] and resumed == []  # a new round: nothing to rebuild
    # restarted: the hub's retained state is rebuilt from the journal so far (hakem run did
    # not, and the dashboard showed a resumed table with no players, end-to-end QA)
    run_mangala_table(config(tmp_path), time=time, source=Camera(time, 1, (1280, 720)),
                      clock=connected(time), pin_factory=MockFactory(), log=io.StringIO(),
                      publisher_factory=lambda folder: Publisher())
    assert resumed == [entries]
    entries = read_journal(tmp_path / "journal.jsonl").entries
    # power lost in the middle of a line: the next start cuts it off and says so
    with (tmp_path / "journal.jsonl").open("ab") as f:
        f.write(b'{"seq": 99, "type": "mo')
    run_mangala_table(config(tmp_path), time=time, source=Camera(time, 2, (1280, 720)),
                      clock=connected(time), pin_factory=MockFactory(), log=io.StringIO())
    assert "journal's last line was torn" in capsys.readouterr().err
    assert read_journal(tmp_path / "journal.jsonl").entries[:len(entries)] == entries


def test_press_events_reach_the_loop(tmp_path: Path) -> None:
    """A press made on the clock is handed to the pipeline by the loop, before the frame
    that follows it."""
    time = FakeTime(0)
    clock = connected(time)
    sink = Sink()

    class PressingCamera(Camera):
        def read(self) -> Frame | None:
            if self.left == 2:
                clock.press("right")
            return super().read()

    with open_table(config(tmp_path), time=time, source=PressingCamera(time, 6), clock=clock,
                    pin_factory=MockFactory(), log=io.StringIO()) as table:
        drive(table, sink, lambda: False)
    assert sink.seen.count(PressEvent.__name__) == 1
    press_at = sink.seen.index(PressEvent.__name__)
    assert sink.seen[press_at + 1] == "frame"
    assert sink.seen[:press_at].count("frame") >= 4


def test_a_second_table_on_the_same_journal_folder_is_refused(tmp_path: Path) -> None:
    """Two tables writing one journal tear each other's lines (QA pass): the second is
    refused before it opens the journal, and the first goes on."""
    from controller.records.folder_lock import FolderInUseError

    time = FakeTime(0)
    with open_table(config(tmp_path), time=time, source=Camera(time, 2), clock=connected(time),
                    pin_factory=MockFactory(), log=io.StringIO()) as table:
        with pytest.raises(FolderInUseError, match="in use by another hakem run"), open_table(
                config(tmp_path), time=time, source=Camera(time, 2), clock=connected(time),
                pin_factory=MockFactory(), log=io.StringIO()):
            pass
        drive(table, Sink(), lambda: False)
