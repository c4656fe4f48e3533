"""``hakem run`` on a journal that already holds a match: an edited configuration (players,
length, game) is named against the journal's match, in the live log and on stderr, and a
finished match says so and how to start the next one, through the real command."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.cli import main
from controller.records.journal import Journal, read_journal
from controller.signals import Signals
from tests.controller.frames import starting_frames


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """A folder of camera pictures of the starting position, and the ``[camera]`` and
    ``[clock]`` lines of a table that reads it with the simulated clock (mock GPIO pins)."""
    folder = tmp_path / "frames"
    camera = starting_frames(folder, 3)
    corners = ", ".join(str(v) for v in camera.corners_flat())
    original = Signals.__init__

    def mock_pins(self, pins=None, *, time=None, pin_factory=None):  # type: ignore[no-untyped-def]
        original(self, pins, time=time, pin_factory=MockFactory())  # no GPIO off a Pi

    monkeypatch.setattr(Signals, "__init__", mock_pins)
    return tmp_path / "j", (f'[camera]\nsource = "{folder}"\ncorners = [{corners}]\n'
                            f'[clock]\nport = "sim"\n[journal]\ndirectory = "{tmp_path / "j"}"\n')


def _run(path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    path.write_text(text, encoding="utf-8")
    code = main(["run", "--config", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def test_other_players_and_length_are_named_against_the_journals_match(
    table: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, devices = table
    config = tmp_path / "table.toml"
    first = '[match]\nlength = 5\n[players]\nleft = "Left"\nright = "Right"\n' + devices
    _run(config, first, capsys)  # the camera gives out: exit 2, the match is journalled
    assert read_journal(folder / "journal.jsonl").entries[0]["players"] == ["Left", "Right"]
    # the same configuration again: nothing to say
    _, out, err = _run(config, first, capsys)
    assert "Resumed the match" in out and "configuration" not in out + err
    edited = '[match]\nlength = 7\n[players]\nleft = "Ayşe"\nright = "Bora"\n' + devices
    code, out, err = _run(config, edited, capsys)
    assert code == 2  # the frames gave out again; the match was resumed, not started
    lines = [line for line in err.splitlines() if "configuration" in line]
    assert lines[0] == ("hakem: the configuration names the players Ayşe and Bora (bottom "
                        "first), but the match in the journal is Left against Right: that "
                        "match goes on with its own players")
    assert lines[1] == ("hakem: the configuration says match.length = 7, but the match in the "
                        "journal is played to 5 points: that match goes on to 5")
    assert lines[2].startswith("hakem: to start a new match instead: stop the table (sudo "
                               f"systemctl stop hakem-table), move the files of {folder} aside")
    log = (folder / "live.log").read_text(encoding="utf-8")
    assert "names the players Ayşe and Bora" in log and "match.length = 7" in log
    assert "names the players Ayşe and Bora" in out
    entries = read_journal(folder / "journal.jsonl").entries
    assert [e["type"] for e in entries].count("match_start") == 1


def test_another_game_is_refused_naming_both(
    table: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, devices = table
    config = tmp_path / "table.toml"
    _run(config, devices, capsys)
    code, _, err = _run(config, '[match]\ngame = "mangala"\n' + devices, capsys)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"hakem: match.game is 'mangala', but the journal in {folder} holds a "
                          "backgammon match: set match.game = 'backgammon' to resume it, or to "
                          "start a new match, stop the table")
    assert "Cannot start: match.game is 'mangala'" in (folder / "live.log").read_text()


def test_a_finished_match_says_it_is_over_and_how_to_start_the_next(
    table: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, devices = table
    config = tmp_path / "table.toml"
    _run(config, devices, capsys)
    with Journal(folder / "journal.jsonl") as journal:
        journal.append("director", action="end_match", args={"winner": 1}, director="td")
        journal.append("match_end", winner=1, score=[2, 3], how="director")
    code, out, err = _run(config, devices, capsys)
    assert code == 0
    assert "Resumed the match" not in out
    journal_path = folder / "journal.jsonl"
    said = (f"The match in {journal_path} is over (won by Right, score 2-3): there is nothing "
            "to referee, and the table stops")
    assert said in out and said in (folder / "live.log").read_text(encoding="utf-8")
    assert f"hakem: the match in {journal_path} is over (won by Right" in err
    assert ("hakem: to start the next match: stop the table (sudo systemctl stop hakem-table), "
            f"move the files of {folder} aside (they are this match's record), set [players] "
            "and [match] in the configuration, and start the table again") in err


def test_a_finished_mangala_round_names_its_winner_and_points(tmp_path: Path) -> None:
    from controller.runtime.resume_check import finished

    entries = [{"type": "match_start", "game": "mangala", "players": ["Ayşe", "Bora"]},
               {"type": "match_end", "winner": "b", "points": {"a": 0.0, "b": 1.0}}]
    lines = finished(entries, tmp_path / "journal.jsonl", tmp_path, "round")
    assert lines[0] == (f"The round in {tmp_path / 'journal.jsonl'} is over (won by Bora (b), "
                        "points a 0, b 1): there is nothing to referee, and the table stops")
    assert lines[1].startswith("To start the next round: stop the table")
