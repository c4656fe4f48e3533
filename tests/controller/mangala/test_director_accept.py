"""A director's ``accept PIT`` at a Mangala table: taken only while something waits for the
director (an illegal sowing flagged, a press not yet judged, turns nobody saw); with nothing
flagged it is refused, in one line, and nothing is journalled (MG-CLOCK-2: a sowing is judged
at its player's press)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.mangala.mistakes import mistakes
from controller.referee.api import DirectorAction, MotionSeen
from engine.errors import HakemError
from tests.controller.mangala.harness import Table, director_command
from tests.controller.mangala.test_referee import setup


def _accept(table: Table, pit: int) -> None:
    table.send(DirectorAction(table.time.now_ms(), "accept", {"pit": pit}, "td"))


def test_an_accept_with_nothing_flagged_is_refused_and_journals_nothing(
        tmp_path: Path) -> None:
    """Was: a's pit 3 journalled and sown for a, whose clock was running with nothing flagged."""
    table = Table(tmp_path)
    try:
        setup(table)
        before = list(table.journal.entries)
        with pytest.raises(HakemError, match="nothing is flagged: no sowing of a's pit 3"):
            _accept(table, 3)
        assert table.journal.entries == before
        assert table.referee.mover == "a" and table.referee.stage == "turn"
    finally:
        table.close()


def test_an_accept_of_a_flagged_sowing_is_taken(tmp_path: Path) -> None:
    table = Table(tmp_path)
    try:
        position = setup(table)
        table.show(mistakes(position, 2)[0][1])
        table.press("a")
        assert table.count("illegal_move") == 1
        _accept(table, 2)
        assert table.types()[-2:] == ["director", "move"]
        assert table.last("move")["pit"] == 2 and table.referee.mover == "b"
    finally:
        table.close()


def test_an_accepted_flagged_sowing_gives_the_clock_to_the_next_player(
        tmp_path: Path) -> None:
    """Was: the clock, given back to a for the correction, kept running a's time on b's
    turn (MG-CLOCK-2)."""
    table = Table(tmp_path)
    try:
        position = setup(table)
        table.show(mistakes(position, 2)[0][1])
        table.press("a")
        table.tick(200)
        assert table.clock.state().running == table.referee.side_of("a")
        _accept(table, 2)
        table.tick(200)
        assert table.referee.mover == "b"
        assert table.clock.state().running == table.referee.side_of("b")
    finally:
        table.close()


def test_an_accept_of_a_press_not_yet_judged_is_taken(tmp_path: Path) -> None:
    table = Table(tmp_path)
    try:
        setup(table)
        table.send(MotionSeen(table.time.now_ms()))  # hands over the board at the press
        table.press("a")
        _accept(table, 2)
        assert table.last("move")["pit"] == 2 and table.referee.mover == "b"
    finally:
        table.close()


def test_the_command_says_the_refusal_in_one_line_and_exits_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``hakem director accept 3`` against a live Mangala table with nothing flagged."""
    table = Table(tmp_path)
    setup(table)
    before = list(table.journal.entries)
    try:
        code, taken, said = director_command(table, tmp_path, ["accept", "3", "--by", "td"])
        err = capsys.readouterr().err
        assert code == 2 and taken == 0 and len(said) == 1
        assert err.startswith("hakem: director accept refused: nothing is flagged")
        assert err.count("\n") == 1
        assert table.journal.entries == before
    finally:
        table.close()
