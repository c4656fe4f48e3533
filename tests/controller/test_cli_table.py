"""``hakem run``, ``hakem demo`` and ``hakem replay`` on the command line: arguments, one-line
errors with exit code 2, and a live table run from a folder of camera frames."""

from __future__ import annotations

import json
import os
import random
import signal
import threading
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.cli import main
from controller.config.table import (
    CameraSection,
    ClockSection,
    JournalSection,
    TableConfig,
)
from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from controller.demo.players import hand, opening_dice
from controller.records.journal import read_journal
from controller.runtime.table import StopFlag, run_table
from controller.signals import Signals
from controller.table_layout import DEFAULT_LAYOUT
from engine.backgammon.position import Position
from tests.controller.frames import starting_frames
from vision.sources import Frame


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_publish_needs_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["demo", "--publish", "mqtt://localhost:1883"], capsys)
    assert code == 2 and "--table" in err


def test_demo_needs_an_existing_match(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["demo", "--match", str(tmp_path / "nope.mat"), "--out",
                         str(tmp_path / "o")], capsys)
    assert code == 2 and "nope.mat" in err


def test_demo_counts_must_not_be_negative(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["demo", "--illegal", "-2"])
    assert info.value.code == 2
    assert "--illegal" in capsys.readouterr().err


def test_demo_help_shows_its_long_example_on_two_lines(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The example too long for one line is printed as typed, with its backslash, so it can be
    copied into a shell as it stands."""
    with pytest.raises(SystemExit) as info:
        main(["demo", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "--ca hall-ca.crt \\\n      --broker-password-file hub-password" in out


def test_replay_needs_a_recording(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["replay", str(tmp_path)], capsys)
    assert code == 2 and "not a recording" in err
    code, _, err = _run(["replay", str(tmp_path / "missing")], capsys)
    assert code == 2 and "missing" in err


def test_an_output_folder_that_is_a_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain"
    plain.write_text("x", encoding="utf-8")
    code, _, err = _run(["demo", "--out", str(plain)], capsys)
    assert code == 2 and err == f"hakem: --out {plain} is a file, not a folder\n"
    code, _, err = _run(["demo", "--game", "mangala", "--out", str(plain / "sub")], capsys)
    assert code == 2 and err == f"hakem: --out {plain / 'sub'}: {plain} is a file, not a folder\n"
    recording = tmp_path / "rec"
    recording.mkdir()
    code, _, err = _run(["replay", str(recording), "--out", str(plain)], capsys)
    assert code == 2 and err == f"hakem: --out {plain} is a file, not a folder\n"
    config = tmp_path / "table.toml"
    config.write_text(f'[journal]\ndirectory = "{plain}"\n', encoding="utf-8")
    code, _, err = _run(["run", "--config", str(config)], capsys)
    assert code == 2 and "journal.directory" in err and "is a file, not a folder" in err


def test_a_file_for_a_folder_and_a_folder_for_a_file_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain"
    plain.write_text("x", encoding="utf-8")
    code, _, err = _run(["replay", str(plain)], capsys)
    assert code == 2 and err == f"hakem: {plain} is a file, not a recording folder\n"
    code, _, err = _run(["demo", "--match", str(tmp_path), "--out", str(tmp_path / "o")],
                        capsys)
    assert code == 2 and err == f"hakem: --match {tmp_path} is a folder, not a match file\n"


def test_replay_refuses_meta_that_is_not_an_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "timeline.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "meta.json").write_text("[]", encoding="utf-8")
    code, _, err = _run(["replay", str(tmp_path), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "meta.json: must hold a JSON object, not list" in err


def test_demo_seed_must_not_be_negative(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["demo", "--seed", "-1"])
    assert info.value.code == 2
    assert capsys.readouterr().err == "hakem: demo: argument --seed: must be 0 or more, not -1\n"


def test_run_names_the_bad_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[clock]\ndelay_s = "soon"\n', encoding="utf-8")
    code, _, err = _run(["run", "--config", str(path)], capsys)
    assert code == 2 and "clock.delay_s" in err


class RenderedCamera:
    """A frame source showing a rendered table: a hand setting up, then the opening throw;
    it sends itself SIGTERM after ``stop_after`` frames, as systemd does to stop the table."""

    def __init__(self, stop_after: int | None) -> None:
        # a camera whose starting position reads without a phantom die: this test is about
        # the table's wiring (seeds 5 and 7 draw a checker edge the dice reader takes for a
        # cocked 3, and with no still frame before the throw the opening has three dice)
        self.camera = DemoCamera(seed=4)
        c = DEFAULT_LAYOUT.counts(Position.initial())
        contents = contents_from_counts(c.slots, c.bar, c.off)
        rng = random.Random(3)
        g = self.camera.geometry
        arms = [hand(g, k % 2, (150.0 + 90 * k, 200.0 + 40 * k), rng) for k in range(3)]
        self.frames = [Shot(contents, (), None, (a,)) for a in arms]
        self.frames += [Shot(contents, opening_dice(g, (5, 2), rng))] * 12
        self.count = 0
        self.stop_after = stop_after
        self.closed = 0

    def read(self) -> Frame | None:
        if self.stop_after is not None and self.count == self.stop_after:
            os.kill(os.getpid(), signal.SIGTERM)
        if self.count >= len(self.frames):
            return None
        image, _ = self.camera.render(self.frames[self.count])
        self.count += 1
        return Frame(image, float(self.count), f"frame{self.count}")

    def close(self) -> None:
        self.closed += 1


def _config(tmp_path: Path, corners: list[float]) -> TableConfig:
    return TableConfig(camera=CameraSection(source="test", corners=tuple(corners)),
                       clock=ClockSection(port="sim"),
                       journal=JournalSection(directory=str(tmp_path / "table")))


def test_run_table_referees_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    source = RenderedCamera(stop_after=14)
    config = _config(tmp_path, source.camera.corners_flat())
    log = open(os.devnull, "w")  # noqa: SIM115
    with log:
        run_table(config, source=source, pin_factory=MockFactory(), log=log)
    assert source.closed == 1  # the camera was released
    journal = tmp_path / "table" / "journal.jsonl"
    entries = read_journal(journal).entries
    assert [e["type"] for e in entries][:2] == ["match_start", "game_start"]
    assert any(e["type"] == "opening_roll" and e["dice"] == [5, 2] for e in entries)
    assert (tmp_path / "table" / "live.log").read_text().count("Opening throw") >= 1
    # a restart resumes the same match: no second match_start
    again = RenderedCamera(stop_after=None)
    with open(os.devnull, "w") as log2:
        run_table(config, source=again, pin_factory=MockFactory(), log=log2,
                  stop=StopFlag(threading.Event()))
    types = [e["type"] for e in read_journal(journal).entries]
    assert types.count("match_start") == 1 and types.count("game_start") == 1


def test_run_json_reports_the_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "frames"
    camera = starting_frames(folder, 6)
    path = tmp_path / "table.toml"
    corners = ", ".join(str(v) for v in camera.corners_flat())
    path.write_text(
        f'[camera]\nsource = "{folder}"\ncorners = [{corners}]\n[clock]\nport = "sim"\n'
        f'[journal]\ndirectory = "{tmp_path / "j"}"\n', encoding="utf-8")
    original = Signals.__init__

    def mock_pins(self, pins=None, *, time=None, pin_factory=None):  # type: ignore[no-untyped-def]
        original(self, pins, time=time, pin_factory=MockFactory())  # no GPIO off a Pi

    monkeypatch.setattr(Signals, "__init__", mock_pins)
    code, out, err = _run(["run", "--config", str(path), "--json"], capsys)
    # six pictures and no more: the camera gave out before the match ended, a failure (the
    # service manager starts the table again, which resumes; it exited 0, end-to-end QA)
    assert code == 2 and err.startswith(f"hakem: the camera ({folder}) gave no more frames "
                                        "before the match ended; the journal is complete")
    assert err.count("\n") == 1
    assert len(read_journal(tmp_path / "j" / "journal.jsonl").entries) >= 2
    # stopped by SIGTERM (the service stopped): exit 0 and the report
    monkeypatch.setattr(StopFlag, "is_set", property(lambda self: True))
    code, out, _ = _run(["run", "--config", str(path), "--json"], capsys)
    assert code == 0
    report = json.loads(out.strip().splitlines()[-1])
    assert report["entries"] >= 2 and report["journal"].endswith("journal.jsonl")


def test_a_demo_table_closes_twice_safely(tmp_path: Path) -> None:
    from controller.demo.table import DemoOptions, DemoTable

    table = DemoTable(DemoOptions(out=tmp_path / "demo", record=False))
    with table:
        assert [e["type"] for e in table.journal.entries] == ["match_start", "game_start"]
    table.close()
    assert table.journal.closed


def test_run_referees_mangala_when_the_table_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``match.game = "mangala"`` sends ``hakem run`` to the Mangala table loop, which needs the
    board's corners (one line, exit 2); an unknown game is refused by its key's name."""
    config = tmp_path / "table.toml"
    config.write_text(
        '[match]\ngame = "mangala"\n[camera]\nsource = "test"\n[clock]\nport = "sim"\n'
        f'[journal]\ndirectory = "{tmp_path}"\n'
    )
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err.strip()
    assert "corners" in err and "\n" not in err
    config.write_text('[match]\ngame = "go"\n')
    assert main(["run", "--config", str(config)]) == 2
    assert "match.game" in capsys.readouterr().err
