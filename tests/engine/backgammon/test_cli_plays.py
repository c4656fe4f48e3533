"""``hakem plays`` (single and bulk) and ``hakem judge`` as DESIGN.md fixes them."""

from __future__ import annotations

import io
import json

import pytest

from controller.cli import main
from controller.cli.common import count
from engine.backgammon.moves import legal_plays
from engine.backgammon.position import Position

START_ID = "4HPwATDgc/ABMA"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_plays_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "plays", START_ID, "31", "--json")
    assert code == 0 and err == ""
    obj = json.loads(out)
    assert set(obj) == {"position", "dice", "plays"}
    assert obj["position"] == START_ID and obj["dice"] == [3, 1]
    assert len(obj["plays"]) == 16
    play = next(p for p in obj["plays"] if p["move"] == "8/5 6/5")
    # Results stay seen from the player who moved.
    assert Position.from_id(play["result"]).mine(5) == 2
    assert set(play) == {"move", "result"}


def test_plays_json_before_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--json", "plays", START_ID, "66")
    assert code == 0 and json.loads(out)["dice"] == [6, 6]


def test_plays_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "plays", START_ID, "64")
    assert code == 0
    assert "15 legal plays" in out.splitlines()[0] or "legal plays" in out.splitlines()[0]
    assert any(line.startswith("24/14") for line in out.splitlines())


def test_plays_none(capsys: pytest.CaptureFixture[str]) -> None:
    closed = Position.from_checkers({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2})
    code, out, _ = run(capsys, "plays", closed.position_id, "52", "--json")
    assert code == 0 and json.loads(out)["plays"] == []
    code, out, _ = run(capsys, "plays", closed.position_id, "52")
    assert "gele" in out


def test_bulk(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [START_ID, Position.initial().apply_steps([(8, 5), (6, 5)]).swap().position_id]
    lines = "".join(f"{pid} {dice}\n" for pid in ids for dice in ("21", "55")) + "\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    code, out, _ = run(capsys, "plays", "-")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 4
    for row in rows:
        position = Position.from_id(row["position"])
        dice = (row["dice"][0], row["dice"][1])
        expected = {p.result.position_id for p in legal_plays(position, dice)}
        assert {p["result"] for p in row["plays"]} == expected


@pytest.mark.parametrize(
    "argv",
    [
        ("plays", "nonsense", "31"),
        ("plays", START_ID, "71"),
        ("plays", START_ID),
        ("judge", START_ID, START_ID, "3"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("hakem: ") and err.count("\n") == 1


def test_bulk_bad_line_names_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{START_ID} 31\n{START_ID} 99\n"))
    code, _, err = run(capsys, "plays", "-")
    assert code == 2 and "line 2" in err


def test_judge_legal_and_illegal(capsys: pytest.CaptureFixture[str]) -> None:
    good = Position.initial().apply_steps([(8, 5), (6, 5)]).position_id
    code, out, _ = run(capsys, "judge", START_ID, good, "31")
    assert code == 0 and out.strip() == "legal: 8/5 6/5"
    half = Position.initial().apply_steps([(13, 7)]).position_id
    code, out, _ = run(capsys, "judge", START_ID, half, "64", "--json")
    obj = json.loads(out)
    assert obj["legal"] is False and obj["rule"] == "BG-MOVE-6"
    assert obj["reason"] and obj["closest"]
    code, out, _ = run(capsys, "judge", START_ID, half, "64")
    assert out.startswith("illegal (BG-MOVE-6): ")


def test_a_finished_game_says_so_rather_than_no_legal_move(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A position where a player has borne off all 15 checkers ends the game (BG-SCORE-1):
    no play, but not "no legal move (gele)"; one where both have is no game's (refused)."""
    done = Position.from_checkers({}, {6: 15})  # the player on roll has none left
    code, out, _ = run(capsys, "plays", done.position_id, "66")
    assert code == 0 and out.splitlines() == [
        f"position {done.position_id}, dice 66: 0 legal plays",
        "the game is over: the player on roll has borne off all 15 checkers (BG-SCORE-1)"]
    lost = done.swap()
    code, out, err = run(capsys, "judge", lost.position_id, lost.position_id, "31")
    assert code == 2 and out == "" and err == (
        "hakem: the game is over: the opponent has borne off all 15 checkers (BG-SCORE-1): no "
        f"move follows {lost.position_id}\n")
    empty = Position.from_checkers({}, {}).position_id
    for argv in (("plays", empty, "31"), ("judge", empty, empty, "31")):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and err == (
            f"hakem: no game has position {empty}: both players have borne off all 15 checkers "
            "(the game ends with the first, BG-SCORE-1)\n")



def test_one_legal_play_is_counted_in_the_singular(capsys: pytest.CaptureFixture[str]) -> None:
    last = Position.from_checkers({1: 1}, {1: 1})  # one checker left, on the ace point
    code, out, _ = run(capsys, "plays", last.position_id, "21")
    assert code == 0 and out.splitlines()[0].endswith(": 1 legal play")


def test_count_words_take_the_number() -> None:
    assert [count(1, "die", "dice"), count(2, "die", "dice"), count(0, "game")] == [
        "1 die", "2 dice", "0 games"]
