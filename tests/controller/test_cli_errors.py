"""What ``hakem`` says when the system refuses: every operating system error, text that is not
UTF-8 and every usage error is one line on stderr starting "hakem: ", exit code 2, never a
traceback."""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path

import pytest

from controller.cli import main, os_error_line, unicode_error_line
from tests.conftest import TEST_DATA

MAT = TEST_DATA / "mat" / "early_double.mat"
START_ID = "4HPwATDgc/ABMA"


def one_line_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The error line of a command that must fail with exit code 2."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("hakem: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    "argv",
    [
        ["mat", "check", "{file}/x.mat"],
        ["export", "{file}/journal.jsonl"],
        ["mangala", "check", "{file}/record.txt"],
        ["vision", "dice", "{file}/x.jpg"],
        ["run", "--config", "{file}/table.toml"],
    ],
)
def test_a_file_used_as_a_folder_is_one_line(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain"
    plain.write_text("x", encoding="utf-8")
    argv = [a.replace("{file}", str(plain)) for a in argv]
    err = one_line_error(argv, capsys)
    assert f"cannot use {plain}/" in err and "not a directory" in err


def test_a_symlink_loop_and_a_too_long_name_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    err = one_line_error(["mat", "check", str(tmp_path / "a")], capsys)
    assert "too many levels of symbolic links" in err
    err = one_line_error(["mat", "check", str(tmp_path / ("n" * 300))], capsys)
    assert "file name too long" in err


def test_mat_write_names_the_missing_or_blocked_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nodir" / "x.mat"
    err = one_line_error(["mat", "check", str(MAT), "--write", str(missing)], capsys)
    assert err == f"hakem: cannot write {missing}: no such folder {missing.parent}\n"
    plain = tmp_path / "plain"
    plain.write_text("x", encoding="utf-8")
    err = one_line_error(["mat", "check", str(MAT), "--write", str(plain / "x.mat")], capsys)
    assert f"{plain} is a file, not a folder" in err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    err = one_line_error(["mat", "check", str(MAT), "--write", "/dev/full"], capsys)
    assert err == "hakem: cannot write /dev/full: no space left on device\n"


class FullStdout(io.StringIO):
    """A stdout on a full disk."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_output_to_a_full_disk_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdout", FullStdout())
    err = one_line_error(["plays", START_ID, "31"], capsys)
    assert err == "hakem: cannot write the output: no space left on device\n"


class ClosedPipe(io.StringIO):
    """A stdout whose reader has gone (``hakem plays ... | head -1``)."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


def test_a_closed_pipe_still_ends_quietly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdout", ClosedPipe())
    assert main(["plays", START_ID, "31"]) == 0
    assert capsys.readouterr().err == ""


def test_stdin_that_is_not_utf8_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    latin1 = io.TextIOWrapper(io.BytesIO(f"{START_ID} 31 caf\xe9\n".encode("latin-1")),
                              encoding="utf-8")
    monkeypatch.setattr("sys.stdin", latin1)
    err = one_line_error(["plays", "-"], capsys)
    assert "not UTF-8 text" in err and "0xe9" in err


def test_error_lines_name_what_they_can() -> None:
    assert os_error_line(FileNotFoundError(errno.ENOENT, "No such file or directory")) == (
        "no such file or directory")
    assert os_error_line(OSError(errno.EEXIST, "File exists", "out")) == (
        "cannot use out: file exists")
    encode = UnicodeEncodeError("utf-8", "caf\udce9", 3, 4, "surrogates not allowed")
    assert unicode_error_line(encode) == "not UTF-8 text: 'caf\\xe9'"


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["judge"], "hakem: judge: the following arguments are required"),
        (["clock", "sim"], "hakem: clock sim: the following arguments are required: --port"),
        (["no-such-command"], "hakem: argument COMMAND: invalid choice"),
    ],
)
def test_usage_errors_start_with_hakem(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(needle) and err.count("\n") == 1, err


def test_director_text_that_is_not_utf8_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a Latin-1 terminal: Python keeps the byte 0xe9 as the surrogate U+DCE9
    with pytest.raises(SystemExit) as info:
        main(["director", "note", "caf\udce9", "--folder", str(tmp_path), "--wait", "0"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err == "hakem: director note: argument text: not UTF-8 text: 'caf\\xe9'\n"
    assert not any(tmp_path.iterdir())  # no request was posted


def test_a_corner_list_starting_with_a_minus_sign_is_taken_as_the_options_value(
        capsys: pytest.CaptureFixture[str], shared_data: Path) -> None:
    """``--corners -5,-5,...`` was refused by argparse ("expected one argument"); the value now
    reaches the command, whose check names the corner."""
    from controller.cli import joined_negative_lists

    assert joined_negative_lists(["vision", "read", "--corners", "-5,-5,9,0,9,9,0,9", "x.jpg"]) \
        == ["vision", "read", "--corners=-5,-5,9,0,9,9,0,9", "x.jpg"]
    assert joined_negative_lists(["plays", "--corners", "--json"]) == [
        "plays", "--corners", "--json"]  # not a list of numbers: left to argparse
    image = shared_data / "boards_dev" / "test10.jpg"
    code = main(["vision", "read", "--corners", "-5,-5,1285,-5,1285,725,-5,725", str(image)])
    assert code == 2
    assert capsys.readouterr().err == (
        f"hakem: {image}: corner (-5, -5) is outside the 1280x720 image\n")


@pytest.mark.parametrize(("command", "said"), [
    (["mat", "check"], "is a table's journal, not a .mat record: make one with hakem export"),
    (["mangala", "check"], "is a table's journal, not a round record: the table writes its "
                           "round record as round.txt beside the journal; make one with hakem "
                           "export {journal} --round OUT.txt"),
])
def test_a_journal_given_for_a_record_is_named_for_what_it_is(
    command: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A table's journal given to a record checker: one line saying what it is and what to do
    (the checkers quoted its whole first line back as a malformed record line)."""
    journal = tmp_path / "journal.jsonl"
    journal.write_text('{"seq":1,"time":"2026-11-25T10:00:00.000+00:00","type":"match_start",'
                       '"game":"backgammon","players":["' + "a" * 400 + '","b"]}\n')
    err = one_line_error([*command, str(journal)], capsys)
    assert f"{journal} {said.format(journal=journal)}" in err
    assert len(err) < 200 + 2 * len(str(journal))  # not the journal's first line quoted back
