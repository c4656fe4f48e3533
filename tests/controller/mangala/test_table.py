"""The live Mangala table loop (``run_mangala_table``): camera frames from a source, presses on
the simulated clock, the journal, a stop and a resume from the journal."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from controller.clock.sim import LoopbackClock
from controller.clock.timebase import FakeTime
from controller.config.table import (
    CameraSection,
    ClockSection,
    JournalSection,
    PlayersSection,
    TableConfig,
)
from controller.mangala.reading import MangalaFrameReader
from controller.mangala.table import mangala_config, run_mangala_table
from controller.mangala.view import MangalaFrameSeen
from controller.records.journal import read_journal
from engine.errors import ConfigError
from engine.mangala.position import Position
from engine.mangala.sowing import play
from tests.controller.mangala.synthetic import SyntheticView
from vision.sources import Frame

CORNERS = (100.0, 100.0, 1180.0, 100.0, 1180.0, 500.0, 100.0, 500.0)


class Pictures:
    """Flat pictures standing for boards, and a reader that knows which is which."""

    def __init__(self) -> None:
        self.boards: dict[int, tuple[int, ...]] = {}
        self.images: list[np.ndarray] = []

    def of(self, board: tuple[int, ...]) -> np.ndarray:
        image = np.full((90, 160, 3), 40 + 9 * len(self.images) % 200, np.uint8)
        self.images.append(image)
        self.boards[id(image)] = board
        return image

    def reader(self, config: TableConfig) -> MangalaFrameReader:
        pictures = self

        class Reader(MangalaFrameReader):
            def read(self, image: np.ndarray, t_ms: int) -> MangalaFrameSeen:
                return MangalaFrameSeen(t_ms, SyntheticView(pictures.boards[id(image)]))

        return Reader(CORNERS)


class Scripted:
    """A camera showing boards for a number of frames; a step may press a clock button."""

    def __init__(self, time: FakeTime, clock: LoopbackClock,
                 steps: list[tuple[np.ndarray, int, str | None]]) -> None:
        self.time, self.clock, self.steps = time, clock, list(steps)
        self.shown = 0

    def read(self) -> Frame | None:
        while self.steps and self.steps[0][1] == 0:
            _, _, button = self.steps.pop(0)
            if button is not None:
                self.clock.press(button)  # type: ignore[arg-type]
        if not self.steps:
            return None
        image, left, button = self.steps[0]
        self.steps[0] = (image, left - 1, button)
        self.time.advance(250)
        self.shown += 1
        return Frame(image, self.time.now_ms() / 1000, f"f{self.shown}")

    def close(self) -> None:
        pass


def config(folder: Path) -> TableConfig:
    return TableConfig(players=PlayersSection(left="Ayşe", right="Mehmet", bottom="left"),
                       camera=CameraSection(source="test", corners=CORNERS),
                       clock=ClockSection(port="sim"),
                       journal=JournalSection(directory=str(folder)))


def test_a_table_referees_from_its_camera_and_resumes(tmp_path: Path) -> None:
    pics = Pictures()
    time = FakeTime(0)
    hand = pics.of(Position.initial().board())
    p0 = Position.initial("a")
    r1 = play(p0, 4)  # ends in a's store: a sows again without pressing (MG-1)
    r2 = play(r1.position, 1)
    r3 = play(r2.position, 2)
    steps: list[tuple[np.ndarray, int, str | None]] = [
        (pics.of(p0.board()), 12, None),
        (hand, 1, None), (pics.of(r1.position.board()), 12, None),
        (hand, 1, None), (pics.of(r2.position.board()), 8, None), (hand, 0, "left"),
        (pics.of(r2.position.board()), 8, None),
    ]
    clock = LoopbackClock(time)
    cam = Scripted(time, clock, steps)
    cfg = config(tmp_path)
    assert mangala_config(cfg).players == ("Ayşe", "Mehmet")
    run_mangala_table(cfg, time=time, source=cam, clock=clock, pin_factory=MockFactory(),
                      reader=pics.reader, log=io.StringIO())
    entries = read_journal(tmp_path / "journal.jsonl").entries
    assert [e["pit"] for e in entries if e["type"] == "move"] == [4, 1]
    # a restart: the journal brings the round back, b sows pit 2 and presses
    clock2 = LoopbackClock(time, boot_id=2)
    cam2 = Scripted(time, clock2, [(pics.of(r2.position.board()), 8, None), (hand, 1, None),
                                   (pics.of(r3.position.board()), 8, None), (hand, 0, "right"),
                                   (pics.of(r3.position.board()), 8, None)])
    out2 = io.StringIO()
    run_mangala_table(cfg, time=time, source=cam2, clock=clock2, pin_factory=MockFactory(),
                      reader=pics.reader, log=out2)
    entries = read_journal(tmp_path / "journal.jsonl").entries
    assert [e["pit"] for e in entries if e["type"] == "move"] == [4, 1, 2]
    assert sum(1 for e in entries if e["type"] == "match_start") == 1
    assert "Resumed" in out2.getvalue()


def test_a_mangala_table_needs_the_board_corners(tmp_path: Path) -> None:
    cfg = TableConfig(camera=CameraSection(source="test"), clock=ClockSection(port="sim"),
                      journal=JournalSection(directory=str(tmp_path)))
    with pytest.raises(ConfigError, match="corners"):
        run_mangala_table(cfg)
