"""Director's actions while Mangala turns played unseen are looked for on the board
(MG-CLOCK-2): an accepted sowing is one of those turns, so the search looks for one fewer
from the position after it; a set that ended meanwhile gets its sweep checked, and a round
the director ends leaves no light calling the director. A table restarted in between ends as
the live one did, and the round record replays. A position set or taken leaves no sowing into
the store waiting for its press (MG-1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.mangala.records import write_round_record
from controller.referee.api import DirectorAction, MotionSeen
from engine.mangala.position import Position
from engine.mangala.sowing import legal_pits, play
from tests.controller.mangala.harness import Table
from tests.controller.mangala.test_referee import setup, sow
from tests.controller.mangala.test_resume_after_a_crash import _restarted
from tests.controller.mangala.test_unseen_turns import (
    _record_replays,
    _turn,
    _unseen,
    _unseen_from,
)


def _accept(table: Table, pit: int) -> None:
    table.send(DirectorAction(table.time.now_ms(), "accept", {"pit": pit}, "td"))


def _passing(position: Position) -> int:
    """The first pit whose sowing passes the turn."""
    return next(p for p in legal_pits(position)
                if not play(position, p).extra_turn and not play(position, p).set_over)


def _unseen_flags(table: Table) -> list[tuple[str, bool]]:
    return [(m["player"], bool(m.get("unseen"))) for m in table.journal.entries
            if m["type"] == "move"]


def _two_unseen_turns(table: Table) -> Position:
    """a sows pit 1 in view and presses; b and a then each sow and press unseen."""
    position = sow(table, setup(table), 1)
    _unseen(table, "b", "a")
    assert table.referee.unseen_left == 2
    return position


def test_an_accepted_sowing_is_one_of_the_unseen_turns(tmp_path: Path) -> None:
    """Was: the search went on for two turns from the board after the director's sowing, so
    a's turn was not found and the board was taken as a position (its sowing lost)."""
    table = Table(tmp_path)
    position = _two_unseen_turns(table)
    pit = _passing(position)
    after_b = play(position, pit).position
    after_a = _turn(after_b)
    _accept(table, pit)
    accepted = table.last("move")
    assert (accepted["player"], accepted["pit"], accepted["unseen"]) == ("b", pit, True)
    assert table.referee.unseen_left == 1 and table.referee.unseen_turns
    table.show(after_a.board())
    assert table.count("position_taken") == 0
    assert _unseen_flags(table) == [("a", False), ("b", True), ("a", True)]
    assert table.referee.position == after_a and not table.referee.unseen_turns
    _record_replays(table)
    table.close()


def test_an_accepted_sowing_into_the_store_leaves_the_turn_to_be_found(
        tmp_path: Path) -> None:
    """A sowing ending in the mover's store does not end the turn (MG-1): both turns are
    still looked for, the first from the middle of b's turn."""
    table = Table(tmp_path)
    position = _two_unseen_turns(table)
    pit = next(p for p in legal_pits(position) if play(position, p).extra_turn)
    again = play(position, pit).position
    after_a = _turn(_turn(again))
    _accept(table, pit)
    assert table.last("move")["pressed"] is False and table.referee.unseen_left == 2
    assert table.referee.mover == "b"
    table.show(after_a.board())
    assert table.count("position_taken") == 0
    assert _unseen_flags(table) == [("a", False), ("b", True), ("b", True), ("a", True)]
    assert table.referee.position == after_a and not table.referee.unseen_turns
    _record_replays(table)
    table.close()


def test_the_director_entering_every_unseen_turn_gives_the_clock_to_the_mover(
        tmp_path: Path) -> None:
    """b pressed twice unseen and the clock runs a's time; the director enters b's and a's
    sowings: play goes on from there, b to move on b's time."""
    table = Table(tmp_path)
    position = sow(table, setup(table), 1)
    _unseen(table, "b", "b")
    table.clock.start(table.referee.side_of("a"))  # the restarted clock runs a's time
    table.tick(200)
    for _ in range(2):
        now = table.referee.position
        assert now is not None
        position = play(now, _passing(now)).position
        _accept(table, _passing(now))
    assert not table.referee.unseen_turns and table.referee.position == position
    assert table.referee.mover == "b"
    table.tick(200)
    assert table.clock.state().running == table.referee.side_of("b")
    assert "cannot_read" not in table.referee._signals
    assert any("the last unseen turn is entered" in line for line in table.log.lines)
    _record_replays(table)
    table.close()


def _without_time(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k != "time"} for e in entries]


@pytest.mark.parametrize("cut_at", ["director", "move"])
def test_a_restart_after_the_accept_ends_as_the_live_table(
        tmp_path: Path, cut_at: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The table went down just after journalling the director's accept (its sowing not yet
    journalled) or the sowing: restarted, it journals the same and finds the same turn."""
    whole = Table(tmp_path / "whole")
    position = _two_unseen_turns(whole)
    pit = _passing(position)
    after_a = _turn(play(position, pit).position)
    _accept(whole, pit)
    entries = whole.journal.entries
    cut = max(i for i, e in enumerate(entries) if e["type"] == cut_at)
    again = _restarted(tmp_path / "again", whole, cut)
    assert again.referee.unseen_left == whole.referee.unseen_left == 1
    for table in (whole, again):
        table.show(after_a.board())
    assert _without_time(again.journal.entries) == _without_time(whole.journal.entries)
    assert again.referee.position == whole.referee.position == after_a
    assert not again.referee.unseen_turns
    record = write_round_record(again.journal.entries, tmp_path / "round.txt")
    capsys.readouterr()
    assert main(["mangala", "check", str(record)]) == 0
    assert "all 3 moves legal" in capsys.readouterr().out
    whole.close()
    again.close()


def test_a_set_that_ended_in_fewer_turns_than_presses_is_scored(tmp_path: Path) -> None:
    """b's only sowing ended the set and a pressed after it: was, one turn stayed looked for
    on a board with a side empty, so the sweep was never checked and the set never ended."""
    table = Table(tmp_path)
    _unseen_from(table, {"a": [0, 0, 0, 0, 0, 1], "a_store": 23, "b": [0, 0, 0, 0, 0, 1],
                         "b_store": 23, "to_move": "b"})
    table.show((0,) * 6 + (23,) + (0,) * 6 + (25,))
    ended = table.last("game_end")
    assert (ended["stores"], ended["winner"]) == ([23, 25], "b")
    assert table.referee.set_number == 2 and not table.referee.unseen_turns
    _record_replays(table)
    table.close()


@pytest.mark.parametrize("how", ["end_match", "third_warning"])
def test_a_round_ended_while_turns_are_unseen_stops_calling_the_director(
        tmp_path: Path, how: str) -> None:
    """Was: the blue LED and b's turn light stayed on after the round's end, also on a
    restart."""
    table = Table(tmp_path)
    _two_unseen_turns(table)
    if how == "end_match":
        table.send(DirectorAction(table.time.now_ms(), "end_match", {"winner": "a"}, "td"))
    else:
        for _ in range(3):
            table.send(DirectorAction(table.time.now_ms(), "warn", {"player": "b"}, "td"))
    assert table.referee.over and not table.referee.unseen_turns
    lit = {"cannot_read", "turn_left", "turn_right"}
    assert not lit & table.referee._signals
    table.close()
    again = Table(tmp_path)
    assert again.referee.over and not lit & again.referee._signals
    again.close()


@pytest.mark.parametrize(("before", "then"), [
    ("seen", "set"), ("accepted_unseen", "set"), ("accepted_unseen", "taken")])
def test_a_press_with_no_sowing_after_a_new_position_is_no_extra_turn(
        tmp_path: Path, before: str, then: str) -> None:
    """A sowing into the store recorded before its press (seen, or entered by the director
    among unseen turns), then the director sets the position or the board is taken: was, a
    press with no sowing was taken as the press after that extra turn ("moves again", the
    clock back to the mover) instead of being judged (MG-1)."""
    table = Table(tmp_path)
    if before == "seen":
        position = setup(table)
        position = sow(table, position, next(p for p in legal_pits(position)
                                             if play(position, p).extra_turn), press=False)
        table.send(MotionSeen(table.time.now_ms()))  # hands over the board
    else:
        position = _two_unseen_turns(table)
        pit = next(p for p in legal_pits(position) if play(position, p).extra_turn)
        position = play(position, pit).position
        _accept(table, pit)
    assert table.last("move")["pressed"] is False
    if then == "set":
        now = Position.from_obj({"a": [5, 4, 4, 4, 4, 4], "a_store": 0,
                                 "b": [4, 4, 4, 4, 4, 3], "b_store": 0, "to_move": "a"})
        table.send(DirectorAction(table.time.now_ms(), "set_position",
                                  {"position": now.to_obj()}, "td"))
        table.show(now.board())
    else:  # a stone on the wrong side: no way explains the board, it is taken as it lies
        board = list(_turn(_turn(position)).board())
        pit = next(i for i in range(6) if board[i] > 1)
        board[pit], board[pit + 7] = board[pit] - 1, board[pit + 7] + 1
        table.show(board)
        now = Position.from_obj(table.last("position_taken")["position"])
    assert now.to_move is not None
    table.press(now.to_move)
    assert table.count("extra_turn") == 0
    assert table.last("illegal_move")["reason"].startswith("the board has not changed")
    table.close()
