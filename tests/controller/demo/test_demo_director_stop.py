"""A director's request the demo's simulated players cannot follow (``hakem director
set-position --folder OUT`` while a demo runs, as table-service.md invites): the referee takes
it as a live table does, and the players, who play the recorded match, stop there instead of
throwing and moving into a board that no longer fits (QA: the demo died with "the dice were
thrown five times without a valid throw", and every resume died the same way). The records
stop there; a resumed run plays nothing and says why."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.demo.harness import script_left
from controller.demo.table import DemoOptions, DemoTable
from controller.mangala.records import RECORD_NAME
from controller.records.journal import read_journal
from controller.runtime.director_inbox import post_request
from engine.backgammon.position import Position
from engine.mangala.record_check import check_record
from engine.mangala.record_reader import parse_record
from tests.controller.demo.test_demo import MATCH
from tests.controller.mangala.test_demo_flow import run as run_mangala


def _post_after_moves(out: Path, moves: int, action: str, args: dict[str, Any],
                      posted: list[str]) -> Any:
    """A ``before_frame`` hook: the director sends ``action`` once ``moves`` moves are played."""
    def hook(entries: Sequence[dict[str, Any]]) -> None:
        if not posted and sum(e["type"] == "move" for e in entries) >= moves:
            posted.append(post_request(out, action, args, "Ayse Kaya").id)
    return hook


def test_the_players_stop_at_a_position_the_director_set(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo"
    posted: list[str] = []
    args = {"position_id": Position.initial().position_id, "player": 1}
    with open(os.devnull, "w") as quiet, DemoTable(DemoOptions(match=MATCH, out=out, seed=3),
                                                   log=quiet) as table:
        table.before_frame = _post_after_moves(out, 2, "set_position", args, posted)
        stats = table.run()
    entries = read_journal(out / "journal.jsonl").entries
    [directed] = [e for e in entries if e["type"] == "director"]
    assert directed["request"] == posted[0] and directed["action"] == "set_position"
    assert stats.players_stopped is not None
    assert f"director's set-position (journal entry {directed['seq']})" in stats.players_stopped
    assert not any(e["type"] == "move" for e in entries[entries.index(directed):])
    assert (out / "match.mat").is_file()
    # resumed: nothing is played, and the command says why
    assert main(["demo", "--match", str(MATCH), "--seed", "3", "--out", str(out)]) == 0
    said = capsys.readouterr().out.strip().splitlines()
    assert said[0].startswith("The match stands at game 1: ")  # where it stopped (restored)
    assert said[1:] == [stats.players_stopped]
    assert read_journal(out / "journal.jsonl").entries == entries


def test_a_note_does_not_stop_the_players(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    posted: list[str] = []
    with open(os.devnull, "w") as quiet, DemoTable(DemoOptions(match=MATCH, out=out, seed=3,
                                                               stop_after=60),
                                                   log=quiet) as table:
        table.before_frame = _post_after_moves(out, 2, "note", {"text": "cube at 4"}, posted)
        stats = table.run()
    entries = read_journal(out / "journal.jsonl").entries
    assert posted and stats.players_stopped is None and len(entries) >= 60


def test_the_mangala_players_stop_at_a_sowing_the_director_accepted(tmp_path: Path) -> None:
    out = tmp_path / "round"
    first = run_mangala(out, 2, 3, stop_after=21)  # stopped at a planted illegal sowing
    position = first.referee.position
    assert position is not None and position.to_move is not None and first.referee.flagged
    mover = position.to_move
    pit = next(i + 1 for i, n in enumerate(getattr(position, mover)) if n)
    post_request(out, "accept", {"pit": pit}, "Ayse Kaya")
    second = run_mangala(out, 2, 3)
    entries = read_journal(out / "journal.jsonl").entries
    [directed] = [e for e in entries if e["type"] == "director"]
    assert second.stats.players_stopped is not None
    assert f"director's accept (journal entry {directed['seq']})" in second.stats.players_stopped
    record = check_record(parse_record((out / RECORD_NAME).read_text(encoding="utf-8")))
    assert record.legal and not record.round.over
    third = run_mangala(out, 2, 3)
    assert third.stats.frames == 0 and third.stats.players_stopped == second.stats.players_stopped
    assert read_journal(out / "journal.jsonl").entries == entries


def test_the_players_stop_at_dice_the_director_entered_for_no_throw_they_waited_on(
        tmp_path: Path) -> None:
    """End-to-end QA: ``hakem director set-dice 5 3`` while a player was about to double (no
    throw the referee could not judge) made the referee count 53 as that player's roll; the
    players, who play the recorded match, went on as recorded and the demo died ("hakem: the
    referee did not journal lasse's double"), writing no records. Dice entered for a throw the
    referee did not call the director for change the match under them: they stop there."""
    out = tmp_path / "demo"
    posted: list[str] = []
    with open(os.devnull, "w") as quiet, DemoTable(DemoOptions(match=MATCH, out=out, seed=3),
                                                   log=quiet) as table:
        table.before_frame = _post_after_moves(out, 7, "set_dice", {"dice": [5, 3]}, posted)
        stats = table.run()
    entries = read_journal(out / "journal.jsonl").entries
    [directed] = [e for e in entries if e["type"] == "director" and e.get("request")]
    assert directed["request"] == posted[0] and directed["action"] == "set_dice"
    assert stats.players_stopped is not None
    assert f"director's set-dice (journal entry {directed['seq']})" in stats.players_stopped
    assert (out / "match.mat").is_file()


def _set_dice_after(*before: dict[str, Any]) -> list[dict[str, Any]]:
    """A journal's entries: ``before``, a clock press, then a director's set-dice request."""
    return [*before, {"type": "clock", "event": "press", "player": 1},
            {"type": "director", "action": "set_dice", "args": {"dice": [6, 4]},
             "request": "r1"}]


def test_the_players_follow_dice_put_right_for_a_misread_opening_throw() -> None:
    """Review of the stop at dice for no throw: the opening throw read as 42 and put right to 64
    by the director is a throw the players made (its move waits), not one nobody made; the
    players stopped there as if the director had thrown for them."""
    entries = _set_dice_after({"type": "game_start", "number": 1},
                              {"type": "opening_roll", "dice": [4, 2], "player": 1})
    assert script_left(entries) is None


def test_the_players_follow_dice_put_right_after_a_move_flagged_for_them() -> None:
    """A misread roll often shows only when the move made with the real dice is flagged as not
    matching them: the director then sets the dice thrown, the move waiting (TTB-4.8); that is
    the throw the players made too."""
    entries = _set_dice_after({"type": "roll", "player": 1, "dice": [4, 2]},
                              {"type": "illegal_move", "player": 1, "dice": [4, 2]})
    assert script_left(entries) is None


def test_the_players_stop_at_dice_entered_after_a_move() -> None:
    """Dice entered once a move is made are a throw nobody made: the players stop there."""
    entries = _set_dice_after({"type": "roll", "player": 1, "dice": [4, 2]},
                              {"type": "move", "player": 1, "dice": [4, 2]})
    assert script_left(entries) is entries[-1]


def test_a_demo_plays_on_after_the_director_enters_the_opening_throw_again(
        tmp_path: Path) -> None:
    """End to end: ``hakem director set-dice`` with the opening throw, its move waiting (a
    director putting a misread right), and the players play the match to its end."""
    out = tmp_path / "demo"
    posted: list[str] = []

    def hook(entries: Sequence[dict[str, Any]]) -> None:
        thrown = [e for e in entries if e["type"] != "clock"]
        if not posted and thrown and thrown[-1]["type"] == "opening_roll":
            posted.append(post_request(out, "set_dice", {"dice": thrown[-1]["dice"]}, "td").id)

    with open(os.devnull, "w") as quiet, DemoTable(DemoOptions(match=MATCH, out=out, seed=3),
                                                   log=quiet) as table:
        table.before_frame = hook
        stats = table.run()
    entries = read_journal(out / "journal.jsonl").entries
    assert [e["request"] for e in entries if e["type"] == "director"] == posted
    assert stats.players_stopped is None and entries[-1]["type"] == "match_end"
