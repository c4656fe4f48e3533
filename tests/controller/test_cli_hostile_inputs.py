"""Hostile inputs found by fuzzing the CLI: each is one "hakem: " line on stderr and exit code 2
(never a traceback), and a record that a bad input cannot be exported to is not written."""

from __future__ import annotations

import errno
import io
import json
import os
import re
import struct
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main, os_error_line
from controller.cli.clock_commands import _read_buttons
from controller.cli.common import LONGEST_MESSAGE, one_line
from controller.config.loader import load_toml_file
from controller.config.table import TableConfig
from controller.demo.harness import pin_settings
from controller.mangala.records import round_record
from controller.records.files import write_whole
from controller.records.journal import Journal
from controller.records.mat_export import export_match
from controller.referee.config import RefereeConfig
from controller.runtime.director_inbox import ANSWERS_NAME, post_request, read_answer
from controller.runtime.effects import LiveLog
from controller.runtime.recording import Recording
from controller.runtime.resume_check import check_game
from engine.errors import ConfigError, ImageError, RecordFormatError
from tests.controller.test_journal_check import journal as small_journal
from vision.config import load_vision_config
from vision.imageio import decode_image

DEEP = "[" * 100_000  # past Python's recursion limit in the json decoder
START_ID = "4HPwATDgc/ABMA"
BOARD = {"a": [4] * 6, "a_store": 0, "b": [4] * 6, "b_store": 0, "to_move": "a"}
AFTER_A4 = {"a": [4, 4, 4, 1, 5, 5], "a_store": 1, "b": [4] * 6, "b_store": 0, "to_move": "a"}


def one_line_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The error line of a command that must fail with exit code 2."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("hakem: ") and err.count("\n") == 1, err
    return err


def entry(seq: int, kind: str, **fields: Any) -> dict[str, Any]:
    """A journal line's object."""
    return {"seq": seq, "time": "2026-01-01T00:00:00.000+00:00", "type": kind, **fields}


def write_journal(path: Path, entries: list[dict[str, Any]], extra: str = "") -> Path:
    """A journal file of ``entries`` and then the raw line ``extra``."""
    lines = [json.dumps(e) for e in entries] + ([extra] if extra else [])
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def backgammon_start(**fields: Any) -> dict[str, Any]:
    """A backgammon match_start line with ``fields`` changed."""
    return entry(1, "match_start", **{"players": ["A", "B"], "length": 3, **fields})


def mangala_journal(**move: Any) -> list[dict[str, Any]]:
    """A Mangala journal with one sowing, whose fields ``move`` changes."""
    sowing = {"set": 1, "player": "a", "pit": 4, "position": AFTER_A4, **move}
    return [entry(1, "match_start", game="mangala", players=["A", "B"]),
            entry(2, "game_start", set=1, starter="a"),
            entry(3, "move", **sowing)]


def huge_png() -> bytes:
    """A PNG whose header claims 60000 x 60000 pixels (more than opencv will decode)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\0" * 100)) + chunk(b"IEND", b""))


def recording(folder: Path, *, meta: str = "{}", timeline: str = '{"t": 0, "frame": "f"}\n',
              frame: bytes = b"") -> Path:
    """A recording folder with one frame ``f``."""
    (folder / "frames").mkdir(parents=True)
    (folder / "meta.json").write_text(meta, encoding="utf-8")
    (folder / "timeline.jsonl").write_text(timeline, encoding="utf-8")
    (folder / "frames" / "f.jpg").write_bytes(frame)
    return folder


# --- JSON nested past the recursion limit ------------------------------------------------


@pytest.mark.parametrize("game", ["backgammon", "mangala"])
def test_a_journal_line_nested_too_deeply_is_one_line(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = backgammon_start() if game == "backgammon" else mangala_journal()[0]
    journal = write_journal(tmp_path / "journal.jsonl", [start], DEEP)
    err = one_line_error(["export", str(journal)], capsys)
    assert f"{journal} line 2: not a JSON object (nested too deeply)" in err


@pytest.mark.parametrize("where", ["argument", "file", "stdin"])
def test_a_mangala_position_nested_too_deeply_is_one_line(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch
) -> None:
    text = '{"a": ' + DEEP
    state = {"argument": text, "file": f"@{tmp_path / 's.json'}", "stdin": "-"}[where]
    (tmp_path / "s.json").write_text(text, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    err = one_line_error(["mangala", "play", state, "1"], capsys)
    assert "mangala position is not valid JSON" in err and "(nested too deeply)" in err


@pytest.mark.parametrize("command", [["mat", "check"], ["mangala", "check"]])
def test_a_record_whose_first_line_is_deep_json_is_one_line(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "record.txt"
    record.write_text('{"a": ' + DEEP + "\n", encoding="utf-8")
    one_line_error([*command, str(record)], capsys)


@pytest.mark.parametrize(
    ("parts", "words"),
    [
        ({"meta": DEEP}, "meta.json: cannot be read (nested too deeply)"),
        ({"timeline": '{"t": 0, "frame": "f"}\n' + DEEP + "\n" + '{"t": 1, "frame": "f"}\n'},
         "timeline.jsonl line 2: not JSON"),
    ],
)
def test_a_recording_nested_too_deeply_is_refused(
    parts: dict[str, str], words: str, tmp_path: Path
) -> None:
    folder = recording(tmp_path / "rec", **parts)
    with pytest.raises(RecordFormatError, match=re.escape(words)):
        list(Recording(folder).steps())


def test_deep_json_in_the_demo_settings_and_director_answers_is_handled(tmp_path: Path) -> None:
    settings = tmp_path / "demo.json"
    settings.write_text(DEEP, encoding="utf-8")
    with pytest.raises(ConfigError, match="is not the demo's settings"):
        pin_settings(settings, {"--game": "backgammon"}, resumed=True)
    (tmp_path / ANSWERS_NAME).write_text(DEEP + "\n", encoding="utf-8")
    assert read_answer(tmp_path, "r1") is None  # a bad line is skipped, as a torn one


# --- stdin closed (started with <&-: sys.stdin is None) -----------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["plays", "-"],
        ["mangala", "check", "-"],
        ["mangala", "play", "-", "1"],
        ["mangala", "judge", "-", "{}"],
        ["hub", "--db", "{tmp}/hub.db", "--add-user", "bob"],
    ],
)
@pytest.mark.parametrize("closed", ["none", "stream"])
def test_a_closed_stdin_is_one_line(
    argv: list[str], closed: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch
) -> None:
    # started with stdin closed (<&-) Python's stdin is None; one closed since (by a program
    # calling main() in-process) raised ValueError, a traceback instead of the line
    stream = io.TextIOWrapper(io.BytesIO(b"x\n"))
    stream.close()
    monkeypatch.setattr(sys, "stdin", None if closed == "none" else stream)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert "stdin is closed" in one_line_error(argv, capsys)


@pytest.mark.parametrize("stdin", [None, io.TextIOWrapper(io.BytesIO(b"\xff\xfe l\n"))])
def test_the_clock_simulator_reads_no_buttons_from_a_closed_or_binary_stdin(
    stdin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import queue
    import threading

    monkeypatch.setattr(sys, "stdin", stdin)
    presses: queue.Queue[str] = queue.Queue()
    _read_buttons(presses, threading.Event())  # returns, raising nothing
    assert presses.empty()


# --- pictures opencv refuses to decode ----------------------------------------------------


@pytest.mark.parametrize("command", [["vision", "dice"], ["vision", "stones"], ["vision", "read"]])
def test_a_picture_too_large_to_decode_is_one_line(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = tmp_path / "huge.png"
    picture.write_bytes(huge_png())
    err = one_line_error([*command, str(picture)], capsys)
    assert f"{picture} is not an image opencv can decode (too large or damaged)" in err


def test_decode_image_turns_opencv_errors_into_image_errors() -> None:
    with pytest.raises(ImageError, match=r"x\.png is not an image opencv can decode"):
        decode_image(huge_png(), "x.png")


@pytest.mark.parametrize(("data", "words"), [(b"", "is empty"), (huge_png(), "is not an image")],
                         ids=["empty", "huge"])
def test_a_recording_frame_that_cannot_be_decoded_is_a_record_error(
    data: bytes, words: str, tmp_path: Path
) -> None:
    folder = recording(tmp_path / "rec", frame=data)
    with pytest.raises(RecordFormatError, match=f"f.jpg {words}"):
        Recording(folder).frame("f")


# --- values a record cannot hold -----------------------------------------------------------


@pytest.mark.parametrize(
    ("move", "words"),
    [
        ({"pit": 9}, "pit 9 is not a whole number 1..6"),
        ({"pit": 0}, "pit 0 is not a whole number 1..6"),
        ({"pit": "x"}, "pit 'x' is not a whole number 1..6"),
        ({"pit": True}, "pit True is not a whole number 1..6"),
        ({"set": 7}, "set number 7 is not a whole number 1..3"),
        ({"set": "1"}, "set number '1' is not a whole number 1..3"),
    ],
)
def test_a_mangala_journal_with_impossible_values_exports_no_round_record(
    move: dict[str, Any], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = mangala_journal(**move)
    with pytest.raises(RecordFormatError, match=words):
        round_record(entries)
    journal = write_journal(tmp_path / "journal.jsonl", entries)
    out = tmp_path / "round.txt"
    out.write_text("kept\n", encoding="utf-8")
    err = one_line_error(["export", str(journal), "--round", str(out)], capsys)
    assert "line 3 (move)" in err and words in err and "no round record written" in err
    assert out.read_text(encoding="utf-8") == "kept\n"


def test_a_mangala_set_end_with_an_impossible_store_is_refused() -> None:
    entries = [*mangala_journal(), entry(4, "game_end", set=1, stores=[-1, 48], winner="b")]
    with pytest.raises(RecordFormatError, match=r"store -1 is not a whole number 0\.\.48"):
        round_record(entries)


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"length": 10**30}, "length must be a whole number of points 0..32767"),
        ({"rules": "x"}, "rules must be a JSON object, got 'x'"),
        ({"layout": None}, "layout must be a JSON object, got None"),
        ({"recognition": [1]}, r"recognition must be a JSON object, got \[1\]"),
    ],
)
def test_a_match_start_a_table_cannot_hold_is_refused_by_export_and_the_table(
    fields: dict[str, Any], words: str
) -> None:
    start = backgammon_start(**fields)
    with pytest.raises(RecordFormatError, match=words):
        export_match([start], "j.jsonl")
    with pytest.raises(ConfigError, match=words.replace("a whole number of points ", "")):
        RefereeConfig.from_json(start)


def test_a_journal_of_an_unknown_game_is_called_damaged(tmp_path: Path) -> None:
    live = LiveLog(keep=5)
    with pytest.raises(RecordFormatError, match="game 'chess', which is neither") as caught:
        check_game("backgammon", [backgammon_start(game="chess")], tmp_path, live)
    assert "match.game = 'chess'" not in str(caught.value)  # no setting takes that value


# --- messages stay one line ----------------------------------------------------------------


@pytest.mark.parametrize("command", [["export"], ["mangala", "check"], ["vision", "dice"],
                                     ["replay"], ["run", "--config"]])
def test_a_file_name_with_line_breaks_is_one_line(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "a\nb"
    folder.mkdir()
    name = folder / "x\r\ny"
    name.write_bytes(b"\xff\xfe")
    err = one_line_error([*command, str(name)], capsys)
    assert "a\\nb/x\\r\\ny" in err


def test_a_huge_quoted_input_is_cut_in_the_middle(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{START_ID} 31\n" + "x" * 1_000_000 + "\n"))
    err = one_line_error(["plays", "-"], capsys)
    assert len(err) < LONGEST_MESSAGE + 100
    assert err.startswith("hakem: line 2: expected 'POSITION_ID DICE'") and "characters ...]" in err


def test_one_line_keeps_short_messages_and_escapes_every_line_break() -> None:
    assert one_line("Ayşe's file: x.mat") == "Ayşe's file: x.mat"
    assert one_line("a\nb\rc\x0bd\u2028e").splitlines() == ["a\\nb\\rc\\x0bd\\u2028e"]


# --- a configuration saved with a byte order mark -----------------------------------------


def test_a_configuration_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    toml = tmp_path / "table.toml"
    toml.write_text("\ufeff[match]\nlength = 7\n[vision]\n", encoding="utf-8")
    assert load_toml_file(TableConfig, toml).match.length == 7
    load_vision_config(toml)


# --- outputs that would destroy a record ---------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["mat", "check", "{mat}", "--write", "{other}"],
        ["export", "{journal}", "--mat", "{other}"],
        ["export", "{journal}", "--summary", "{other}"],
    ],
)
def test_no_output_overwrites_another_tables_journal(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mat = tmp_path / "match.mat"
    mat.write_text("1 point match\n\n Game 1\n A : 0     B : 0\n", encoding="utf-8")
    played = [{**e, "time": "2026-01-01T00:00:00.000+00:00"} for e in small_journal()]
    journal = write_journal(tmp_path / "journal.jsonl", played)
    other = write_journal(tmp_path / "other-table.jsonl", [backgammon_start(length=5)])
    kept = other.read_bytes()
    names = {"{mat}": mat, "{journal}": journal, "{other}": other}
    argv = [str(names.get(a, a)) for a in argv]
    err = one_line_error(argv, capsys)
    assert f"cannot write {other}: it holds a table's journal" in err
    assert other.read_bytes() == kept


def test_an_export_refused_for_one_output_writes_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--summary`` is free but ``--mat`` holds another table's journal: the export is
    refused before the summary is written (was: the summary written, then the refusal)."""
    played = [{**e, "time": "2026-01-01T00:00:00.000+00:00"} for e in small_journal()]
    journal = write_journal(tmp_path / "journal.jsonl", played)
    other = write_journal(tmp_path / "other-table.jsonl", [backgammon_start(length=5)])
    summary = tmp_path / "summary.json"
    err = one_line_error(["export", str(journal), "--summary", str(summary), "--mat",
                          str(other)], capsys)
    assert f"cannot write {other}: it holds a table's journal" in err
    assert not summary.exists()


def test_a_usage_error_quoting_a_line_break_is_one_line(
    capsys: pytest.CaptureFixture[str]
) -> None:
    """argparse quotes an unrecognised argument raw: a line break in it made a second line,
    which could pass for another error."""
    with pytest.raises(SystemExit) as stopped:  # argparse's own exit
        main(["plays", "4HPwATDgc/ABMA", "31", "extra\nhakem: not ours"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("hakem: ") and err.count("\n") == 1, err
    assert "unrecognized arguments" in err and "\\n" in err


def test_calibrate_does_not_overwrite_the_picture_it_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = tmp_path / "flag-0001.jpg"
    picture.write_bytes(b"not read: refused before")
    err = one_line_error(["vision", "calibrate", str(picture), "--out", str(picture)], capsys)
    assert "is the picture being read: refusing to overwrite it" in err
    assert picture.read_bytes() == b"not read: refused before"


# --- a terminal that cannot show every name --------------------------------------------------


def test_a_name_an_ascii_terminal_cannot_show_is_printed_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = mangala_journal()
    entries[0]["players"] = ["Ayşe", "Bora"]
    journal = write_journal(tmp_path / "journal.jsonl", entries)
    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="ascii"))
    assert main(["export", str(journal), "--round", str(tmp_path / "round.txt")]) == 0
    sys.stdout.flush()
    assert raw.getvalue().startswith(b"Ay\\u015fe - Bora: ")


# --- a full disk names the file it could not write -------------------------------------------


def full_disk(*_: Any, **__: Any) -> None:
    """A write() or fsync() on a full disk: an OSError that names no file."""
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_names_the_journal_both_on_append_and_on_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError) as caught:
        journal.append("note", text="x")
    assert os_error_line(caught.value) == f"cannot use {path}: no space left on device"
    monkeypatch.undo()
    journal.close()  # the line is on disk; only its fsync failed
    full = io.BufferedWriter(FullRaw())
    full.write(b"a line the buffer keeps, written at close\n")
    journal = Journal(path)
    journal.close()
    monkeypatch.setattr(journal, "_file", full)
    with pytest.raises(OSError) as caught:
        journal.close()
    assert caught.value.filename == str(path) and journal.closed


class FullRaw(io.RawIOBase):
    """A file on a full disk."""

    def writable(self) -> bool:
        """It is opened for writing."""
        return True

    def write(self, data: Any) -> int:
        """Nothing fits."""
        full_disk()
        return 0


def test_a_full_disk_names_the_director_inbox_and_a_file_written_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError) as caught:
        post_request(tmp_path, "note", {"text": "x"}, "ayse")
    assert caught.value.filename is not None and "director" in caught.value.filename
    monkeypatch.setattr("controller.records.files._write_all", full_disk)
    with pytest.raises(OSError) as caught:
        write_whole(tmp_path / "summary.json", b"{}")
    assert caught.value.filename == str(tmp_path / "summary.json")


@pytest.mark.parametrize(
    ("argv", "wanted"),
    [
        (["mangala", "check", "-"], "RECORD: stdin is not UTF-8 text (byte 0xff at offset 4)"),
        (["mangala", "play", "-", "1"], "STATE: stdin is not UTF-8 text (byte 0xff at offset 4)"),
        (["plays", "-"], "line 2: not UTF-8 text"),
    ],
)
def test_stdin_that_is_not_utf8_is_named_not_quoted_garbled(
    argv: list[str], wanted: str, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch
) -> None:
    # Python's stdin passes bytes that are not UTF-8 on as stray surrogates: the parsers then
    # quoted them as a garbled value ('\udcff') instead of saying the input is not text
    raw = f"# x\n{START_ID}\xff 21\n".encode("latin-1") if argv[0] == "plays" else b"set \xff"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw),
                                                       errors="surrogateescape"))
    err = one_line_error(argv, capsys)
    assert wanted in err and "\\udc" not in err, err


def test_plays_names_the_line_that_is_not_utf8_whatever_stdin_decoding_the_locale_gives(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # under a UTF-8 locale other than C.UTF-8 (the Pi's en_GB.UTF-8) Python's stdin decodes
    # strictly: the bad byte stopped the read as "the input is not UTF-8" with an offset into
    # the chunk the text layer had buffered (not the file's), naming no line
    raw = b"# x\n" + b"# padding\n" * 1500 + f"{START_ID}\xff 21\n".encode("latin-1")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8",
                                                       errors="strict"))
    err = one_line_error(["plays", "-"], capsys)
    assert "line 1502: not UTF-8 text (byte 0xff at column 15)" in err, err
