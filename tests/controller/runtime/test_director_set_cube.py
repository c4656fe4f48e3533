"""``hakem director set-cube VALUE [OWNER] [--game N]`` (BG-CUBE-5) end to end: the cube
checked before it is posted (one lowercase line naming the bad value, exit 2, nothing
posted), taken by a running table's referee and answered, or refused in the table's words
(exit 2)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from controller.cli import main
from controller.runtime.director_inbox import ANSWERS_NAME, INBOX_NAME, DirectorInbox
from tests.controller.referee.interventions import Script
from tests.controller.runtime.test_director_inbox import table_thread


@pytest.mark.parametrize(("args", "said"), [
    (["3", "0"], "director set-cube: argument VALUE: a cube value is 1, 2, 4, 8, 16, 32 or 64,"
     " not 3"),
    (["128", "0"], "a cube value is 1, 2, 4, 8, 16, 32 or 64, not 128"),
    (["two", "0"], "director set-cube: argument VALUE: not a cube value: 'two'"),
    (["2", "north"], "director set-cube: argument OWNER: the cube's owner is 0, 1 or centre,"
     " not 'north'"),
    (["2", "2"], "the cube's owner is 0, 1 or centre, not '2'"),
])
def test_a_value_or_owner_no_cube_has_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               args: list[str], said: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["director", "set-cube", *args, "--folder", str(tmp_path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("hakem: ") and said in err and err.count("\n") == 1, err
    assert not (tmp_path / INBOX_NAME).exists()


@pytest.mark.parametrize(("args", "said"), [
    (["4"], "hakem: a cube at 4 is owned: name its owner, 0 or 1\n"),
    (["64"], "hakem: a cube at 64 is owned: name its owner, 0 or 1 (a centred cube, its 64 face"
     " up, is set-cube 1)\n"),
    (["1", "0"], "hakem: a cube at 1 lies in the centre (BG-CUBE-1), not on player 0's side\n"),
    (["2", "1", "--game", "0"], "hakem: --game is a game number 1 or more, not 0\n"),
])
def test_a_cube_no_table_could_have_is_refused_before_it_is_posted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str) -> None:
    assert main(["director", "set-cube", *args, "--folder", str(tmp_path)]) == 2
    assert capsys.readouterr().err == said
    assert not (tmp_path / INBOX_NAME).exists()


@pytest.mark.parametrize(("args", "posted"), [
    (["1"], {"value": 1, "owner": None}),
    (["1", "Centre"], {"value": 1, "owner": None}),
    (["1", "center"], {"value": 1, "owner": None}),
    (["8", "1", "--game", "2"], {"value": 8, "owner": 1, "game": 2}),
])
def test_the_cube_is_posted_as_the_table_takes_it(tmp_path: Path, args: list[str],
                                                  posted: dict[str, object]) -> None:
    assert main(["director", "set-cube", *args, "--folder", str(tmp_path), "--wait", "0"]) == 0
    request = json.loads((tmp_path / INBOX_NAME).read_text().splitlines()[0])
    assert (request["action"], request["args"]) == ("set_cube", posted)


def _table(folder: Path, s: Script) -> threading.Thread:
    """The table's loop in a thread: its referee takes the first request, answering it."""

    def serve(inbox: DirectorInbox) -> bool:
        inbox.take(s.table.send, s.table.t, lambda text: None)
        return (folder / ANSWERS_NAME).exists()

    return table_thread(folder, serve)


def test_a_running_table_puts_the_cube_right(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    s = Script(1)
    s.start()
    s.turns(3)
    thread = _table(tmp_path, s)
    assert main(["director", "set-cube", "2", "1", "--folder", str(tmp_path)]) == 0
    thread.join()
    out = capsys.readouterr().out
    assert out.startswith("taken: The director put the cube right: at 2, Mehmet's (BG-CUBE-5); ")
    cube = s.table.referee.match.cube
    assert (cube.value, cube.owner) == (2, 1)


def test_a_refusal_is_one_line_with_the_tables_reason(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Game 1 ended and game 2 had its opening throw: game 1 stands (exit 2, one line)."""
    s = Script(1)
    s.start()
    s.turns(3)
    s.resign(0)
    s.next_game(4, 1)
    thread = _table(tmp_path, s)
    assert main(["director", "set-cube", "2", "0", "--game", "1", "--folder", str(tmp_path)]) == 2
    thread.join()
    assert capsys.readouterr().err == (
        "hakem: director set-cube refused: game 1 stands as scored: game 2 has started (its first"
        " throw), and a cube is put right only until the next game starts (BG-CUBE-5,"
        " BG-MATCH-2)\n")
    assert s.table.referee.match.score == (0, 1)
