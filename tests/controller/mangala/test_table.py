"""The live Mangala table loop (``run_mangala_table``): camera frames from a source, presses on
the simulated clock, the journal, a stop and a resume from the journal; a director's end of the
round in round.txt, and the live log's words for a refused director's request."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from controller.cli import main
from controller.clock.sim import LoopbackClock, SimulatedClock
from controller.clock.timebase import FakeTime
from controller.config.table import (
    CameraSection,
    ClockSection,
    JournalSection,
    PlayersSection,
    TableConfig,
)
from controller.mangala.reading import MangalaFrameReader
from controller.mangala.records import RECORD_NAME, round_record, round_text
from controller.mangala.referee import start_referee
from controller.mangala.table import mangala_config, run_mangala_table
from controller.mangala.view import MangalaFrameSeen
from controller.records.journal import read_journal
from controller.runtime.director_inbox import post_request, read_answer
from engine.errors import ConfigError, RecordFormatError
from engine.mangala.position import Position
from engine.mangala.record_reader import parse_record
from engine.mangala.record_writer import format_position, format_record
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

    def __init__(self, time: FakeTime, clock: LoopbackClock | SimulatedClock,
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


class Directed(Scripted):
    """:class:`Scripted`, and a ``hakem director`` command typed once ``at`` frames were shown
    (the table takes it on its next turn of the loop)."""

    def __init__(self, time: FakeTime, clock: LoopbackClock,
                 steps: list[tuple[np.ndarray, int, str | None]], at: int,
                 command: list[str]) -> None:
        super().__init__(time, clock, steps)
        self.at, self.command, self.code = at, command, -1

    def read(self) -> Frame | None:
        frame = super().read()
        if self.shown == self.at and self.code == -1:
            self.code = main(self.command)
        return frame


def test_a_directors_end_is_in_the_round_record_and_checks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``hakem director end-match a --reason ...`` during set 1 at a live table: round.txt ends
    with the director's line after the sowings played, and ``hakem mangala check`` reports the
    round ended by the director, won by a (points 1 and 0, MG-T-1); it said "round not
    finished" when the record left the director's end out."""
    pics = Pictures()
    time = FakeTime(0)
    hand = pics.of(Position.initial().board())
    p0 = Position.initial("a")
    r1 = play(p0, 4)  # ends in a's store: a sows again (MG-1)
    r2 = play(r1.position, 1)
    steps: list[tuple[np.ndarray, int, str | None]] = [
        (pics.of(p0.board()), 12, None),
        (hand, 1, None), (pics.of(r1.position.board()), 12, None),
        (hand, 1, None), (pics.of(r2.position.board()), 8, None), (hand, 0, "left"),
        (pics.of(r2.position.board()), 20, None),
    ]
    clock = LoopbackClock(time)
    cfg = config(tmp_path)
    cam = Directed(time, clock, steps, 38, ["director", "end-match", "a", "--reason",
                                             "b left the hall", "--by", "td", "--folder",
                                             str(tmp_path), "--wait", "0"])
    log = io.StringIO()
    run_mangala_table(cfg, time=time, source=cam, clock=clock, pin_factory=MockFactory(),
                      reader=pics.reader, log=log)
    assert cam.code == 0 and cam.steps  # posted; the round ended before the camera did
    entries = read_journal(tmp_path / "journal.jsonl").entries
    assert [e["pit"] for e in entries if e["type"] == "move"] == [4, 1]
    director = [e for e in entries if e["type"] == "director"]
    assert [(e["action"], e["args"], e["director"]) for e in director] == [
        ("end_match", {"winner": "a", "reason": "b left the hall"}, "td")]
    end = entries[-1]
    assert (end["type"], end["how"], end["winner"], end["points"]) == (
        "match_end", "director", "a", {"a": 1.0, "b": 0.0})
    assert "Director td ends the round: Ayşe (a) wins (b left the hall)" in log.getvalue()
    record = tmp_path / RECORD_NAME
    lines = record.read_text(encoding="utf-8").splitlines()
    assert lines[-3:-1] == [f"1 a 4 -> {format_position(r1.position)}",
                            f"1 a 1 -> {format_position(r2.position)}"]
    assert lines[-1] == "director 1 end winner a b left the hall"
    capsys.readouterr()
    assert main(["mangala", "check", str(record)]) == 0
    out = capsys.readouterr().out
    assert "round ended by the director in set 1 (b left the hall)" in out
    assert "round over: won by a; points a 1 b 0 (MG-T-1)" in out
    assert "round not finished" not in out and "all 2 moves legal" in out
    assert main(["--json", "mangala", "check", str(record)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["legal"], report["round_over"], report["winner"], report["sets"]) == (
        True, True, "a", [])
    assert report["director_end"] == {"set": 1, "winner": "a", "reason": "b left the hall"}
    # a restart folds the director's end: the round stays over, won by a
    referee, _ = start_referee(mangala_config(cfg), entries)
    assert referee.over and referee.round.winner == "a"


def test_a_directors_end_the_record_cannot_hold_is_refused_naming_it(tmp_path: Path) -> None:
    """A journal whose director's end names no winner a or b (written by hand or by another
    tool) gives no round record: the error names the value."""
    start = {"type": "match_start", "game": "mangala", "players": ["A", "B"]}
    entries = [start, {"type": "game_start", "set": 1, "starter": "a"},
               {"type": "director", "action": "end_match", "args": {"winner": 1}}]
    with pytest.raises(RecordFormatError, match="the director's end_match winner 1 is not a or b"):
        round_record(entries)


def test_a_directors_reason_with_a_hash_keeps_the_record_whole() -> None:
    """``#`` starts a comment in the record: a reason holding one is written without it, so
    the line reads back as written."""
    entries = [{"type": "match_start", "game": "mangala", "players": ["A", "B"]},
               {"type": "game_start", "set": 1, "starter": "a"},
               {"type": "director", "action": "end_match",
                "args": {"winner": "b", "note": "no show at table #7"}}]
    text = round_text(entries)
    assert text.splitlines()[-1] == "director 1 end winner b no show at table no. 7"
    assert format_record(parse_record(text)) == text


def test_the_live_log_names_a_refused_director_action_as_typed(tmp_path: Path) -> None:
    """A Mangala table refusing a director's request says so in the command's own words
    ("The director's end-match was refused: ..."), not the inner name ('end_match')."""
    time = FakeTime(0)
    pics = Pictures()
    clock = LoopbackClock(time)
    cam = Scripted(time, clock, [(pics.of(Position.initial("a").board()), 6, None)])
    end = post_request(tmp_path, "end_match", {"winner": 0}, "td")
    dice = post_request(tmp_path, "set_dice", {"dice": [5, 3]}, "td")
    log = io.StringIO()
    run_mangala_table(config(tmp_path), time=time, source=cam, clock=clock,
                      pin_factory=MockFactory(), reader=pics.reader, log=log)
    said = {
        end.id: "The director's end-match was refused: a mangala match's winner is a or b, "
                "not 0",
        dice.id: "The director's set-dice was refused: set-dice is not an action at a "
                 "mangala table",
    }
    for rid, text in said.items():
        assert text in log.getvalue()
        answer = read_answer(tmp_path, rid)
        assert answer is not None and not answer["ok"] and answer["text"] == text
    assert "end_match" not in log.getvalue() and "set_dice" not in log.getvalue()
