"""``hakem export JOURNAL --mat OUT.mat`` (DESIGN.md command line)."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main
from controller.records.journal import Journal
from engine.backgammon.mat_reader import parse_mat
from engine.backgammon.mat_replay import replay
from tests.conftest import REPO, SHARED_DATA
from tests.controller.mangala.test_demo_flow import run as mangala_demo
from tests.controller.referee.harness import match_facts, simulate

MATCH = SHARED_DATA / "matches" / "match10058734.txt"


@pytest.fixture(scope="module")
def journal_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[object]]:
    record, _, run = simulate(MATCH, seed=9, illegal=0.1, invalid=0.1)
    path = tmp_path_factory.mktemp("table") / "journal.jsonl"
    with Journal(path, clock=lambda: "2026-11-22T08:00:00.000+00:00") as journal:
        for entry in run.entries:
            fields = {k: v for k, v in entry.items() if k != "type"}
            journal.append(entry["type"], **fields)
    return path, match_facts(replay(record))


def test_export_writes_the_mat_and_the_summary(
    journal_file: tuple[Path, list[object]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, facts = journal_file
    out, summary = tmp_path / "match.mat", tmp_path / "summary.json"
    assert main(["export", str(path), "--mat", str(out), "--summary", str(summary)]) == 0
    assert match_facts(replay(parse_mat(out.read_text(encoding="utf-8")))) == facts
    data = json.loads(summary.read_text(encoding="utf-8"))
    assert data["final_score"] == [0, 5] and data["finished"] is True
    assert data["positions"] and all(len(p["position_id"]) == 14 for p in data["positions"])
    text = capsys.readouterr().out
    assert "0 - 5" in text and str(out) in text


def test_export_json_prints_the_summary(
    journal_file: tuple[Path, list[object]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = journal_file
    assert main(["export", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["players"] and data["length"] == 5 and data["winner"] == 1


def test_export_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.jsonl"
    assert main(["export", str(missing), "--mat", str(tmp_path / "x.mat")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope.jsonl" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"seq": 1, "time": "t", "type": "roll"}\n', encoding="utf-8")
    assert main(["export", str(bad), "--mat", str(tmp_path / "x.mat")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "match_start" in err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    assert main(["export", str(empty)]) == 2
    assert "no journal entries" in capsys.readouterr().err


def test_an_output_that_is_the_journal_or_the_other_output_is_refused_unwritten(
    journal_file: tuple[Path, list[object]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = journal_file
    before = path.read_bytes()
    link = tmp_path / "link.jsonl"
    link.symlink_to(path)
    for argv, words in (
        (["--mat", str(path)], f"--mat {path} is the journal being read"),
        (["--summary", str(link)], f"--summary {link} is the journal being read"),
        (["--mat", str(tmp_path / "x"), "--summary", str(tmp_path / "." / "x")],
         "are the same file"),
    ):
        assert main(["export", str(path), *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err
    assert path.read_bytes() == before and not (tmp_path / "x").exists()


def test_a_mangala_journal_and_a_bad_move_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mangala = tmp_path / "mangala.jsonl"
    mangala.write_text('{"seq": 1, "time": "t", "type": "match_start", "game": "mangala",'
                       ' "players": ["a", "b"]}\n', encoding="utf-8")
    assert main(["export", str(mangala), "--mat", str(tmp_path / "x.mat")]) == 2
    assert f"hakem: --mat is for backgammon journals: {mangala} is a Mangala journal" in \
        capsys.readouterr().err
    lines = [
        {"type": "match_start", "players": ["A", "B"], "length": 3},
        {"type": "game_start", "number": 1, "score": [0, 0]},
        {"type": "bogus"},
        {"type": "move", "player": 0, "dice": [3, 1], "move": "xx",
         "position_id": "4HPwATCwZ/ABMA"},
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps({"seq": n, "time": "t", **e}) + "\n"
                           for n, e in enumerate(lines, start=1)), encoding="utf-8")
    assert main(["export", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err == f"hakem: {bad} line 4 (seq 4, move): not a move: 'xx'\n"
    del lines[3]
    bad.write_text("".join(json.dumps({"seq": n, "time": "t", **e}) + "\n"
                           for n, e in enumerate(lines, start=1)), encoding="utf-8")
    assert main(["export", str(bad)]) == 0
    assert capsys.readouterr().err == (
        f"hakem: note: {bad} line 3 (seq 3, bogus): entry type 'bogus' is not one export knows;"
        " skipped\n")


def test_export_names_an_output_it_cannot_write(
    journal_file: tuple[Path, list[object]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = journal_file
    missing = tmp_path / "nodir" / "m.mat"
    assert main(["export", str(path), "--mat", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err == f"hakem: cannot write {missing}: no such folder {missing.parent}\n"
    if Path("/dev/full").exists():
        assert main(["export", str(path), "--summary", "/dev/full"]) == 2
        err = capsys.readouterr().err
        assert err == "hakem: cannot write /dev/full: no space left on device\n"


def test_a_dash_for_an_output_is_refused_not_made_a_file(
    journal_file: tuple[Path, list[object]], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``-`` reads standard input elsewhere (``hakem mangala check -``); as an output it made a
    file named ``-`` and said "wrote -"."""
    path, _ = journal_file
    monkeypatch.chdir(tmp_path)
    for option in ("--mat", "--summary"):
        assert main(["export", str(path), option, "-"]) == 2
        assert capsys.readouterr().err == (
            "hakem: cannot write -: give a file name (/dev/stdout for the terminal)\n")
    assert not (tmp_path / "-").exists()


def test_a_torn_last_line_is_named_not_dropped_silently(
    journal_file: tuple[Path, list[object]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A journal cut mid-line (the table stopped while writing) exports what is whole and
    says the rest was left out (it said nothing)."""
    path, _ = journal_file
    data = path.read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 40  # 40 bytes into the line after the middle
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(data[:cut])
    whole = data[:cut].count(b"\n")
    assert main(["export", str(torn), "--mat", str(tmp_path / "t.mat")]) == 0
    err = capsys.readouterr().err
    assert "last line is torn" in err and f"runs to entry {whole}" in err


def test_a_match_ended_before_its_first_game_writes_no_mat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A director's end before any game: a .mat of its header alone, which no analysis
    program (nor ``hakem mat check``) reads, was written; now it is refused, naming why, and
    the summary is still written."""
    from controller.referee.api import DirectorAction, JournalEntry
    from tests.controller.referee.table import Table

    table = Table()
    table.send(DirectorAction(100, "end_match", {"winner": 1}, director="td"))
    out = table.log  # the first event also journals the match's and the game's start
    path = tmp_path / "journal.jsonl"
    with Journal(path) as journal:
        for command in out:
            if isinstance(command, JournalEntry):
                journal.append(command.type, **command.fields)
    mat, summary = tmp_path / "m.mat", tmp_path / "s.json"
    assert main(["export", str(path), "--mat", str(mat), "--summary", str(summary)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no .mat written: no game was played" in err
    assert "by the director" in err
    assert not mat.exists()
    assert json.loads(summary.read_text())["finished"] is True


def test_a_match_under_way_before_its_first_move_is_not_said_to_have_ended(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A journal exported (or cut by a crash) before the first move: the refusal said "the
    match ended before its first game" of a match that is still being played."""
    from controller.referee.api import DirectorAction, JournalEntry
    from tests.controller.referee.table import Table

    table = Table()
    table.send(DirectorAction(100, "note", {"text": "board set up"}, director="td"))
    path = tmp_path / "journal.jsonl"
    with Journal(path) as journal:
        for command in table.log:
            if isinstance(command, JournalEntry):
                journal.append(command.type, **command.fields)
    assert main(["export", str(path), "--mat", str(tmp_path / "m.mat")]) == 2
    err = capsys.readouterr().err
    assert err == (f"hakem: no .mat written: no game was played in {path} (the match is under "
                   "way: its first game has no move yet); the summary holds what there is\n")


def test_an_export_that_fails_half_way_leaves_the_earlier_record_whole(
    journal_file: tuple[Path, list[object]], tmp_path: Path
) -> None:
    # a director exports the match again over an earlier .mat, and the disk fills half-way
    # (a file size limit stops the write as a full disk would): the earlier record stays
    # whole, no half-written one takes its place
    path, _ = journal_file
    out = tmp_path / "match.mat"
    assert main(["export", str(path), "--mat", str(out)]) == 0
    earlier = out.read_bytes()
    out.write_bytes(earlier[: len(earlier) // 3])  # a shorter earlier record
    earlier = out.read_bytes()
    limit = len(earlier) + 100

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "export", str(path), "--mat", str(out)],
        cwd=REPO, capture_output=True, text=True, check=False, preexec_fn=small_files)
    assert done.returncode == 2
    assert done.stderr == f"hakem: cannot write {out}: file too large\n"
    assert out.read_bytes() == earlier
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.mat"]


@pytest.fixture(scope="module")
def mangala_round(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of a Mangala demo's round (two planted illegal sowings): its journal and the
    round.txt the demo wrote."""
    folder = tmp_path_factory.mktemp("mangala")
    mangala_demo(folder, illegal=2, seed=5)
    return folder


def test_export_writes_a_mangala_round_txt_as_the_table_does(
    mangala_round: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # no command wrote round.txt from a journal (only the table, the demo and the hub did)
    out = tmp_path / "round.txt"
    assert main(["export", str(mangala_round / "journal.jsonl"), "--round", str(out)]) == 0
    assert out.read_bytes() == (mangala_round / "round.txt").read_bytes()
    said = capsys.readouterr().out.splitlines()
    assert said[0].startswith("Ayşe - Mehmet: ") and said[1] == f"wrote {out}"
    assert main(["export", str(mangala_round / "journal.jsonl"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["game"] == "mangala" and data["finished"] is True and data["round"] is None


def test_options_of_the_other_game_are_refused(
    mangala_round: Path, journal_file: tuple[Path, list[object]], tmp_path: Path,
    capsys: pytest.CaptureFixture[str]
) -> None:
    journal = mangala_round / "journal.jsonl"
    for option in ("--mat", "--summary"):
        assert main(["export", str(journal), option, str(tmp_path / "x")]) == 2
        assert capsys.readouterr().err == (
            f"hakem: {option} is for backgammon journals: {journal} is a Mangala journal (its "
            "round record: --round OUT.txt)\n")
    backgammon, _ = journal_file
    assert main(["export", str(backgammon), "--round", str(tmp_path / "x")]) == 2
    assert capsys.readouterr().err == (
        f"hakem: --round is for a Mangala journal: {backgammon} holds a backgammon match (its "
        "record: --mat OUT.mat)\n")
    assert list(tmp_path.iterdir()) == []


def test_a_damaged_mangala_entry_is_named_and_nothing_written(
    mangala_round: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (mangala_round / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if '"type":"move"' in line)
    move = json.loads(lines[at])
    del move["pit"]
    lines[at] = json.dumps(move)
    damaged = tmp_path / "journal.jsonl"
    damaged.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "round.txt"
    assert main(["export", str(damaged), "--round", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"hakem: {damaged} line {at + 1} (move): no 'pit'; no round record written\n")
    assert not out.exists()
