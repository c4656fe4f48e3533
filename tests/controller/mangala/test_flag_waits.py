"""A flag of the player not to move (MG-CLOCK-2: only the mover's time runs): it falls while
the mover's press awaits its verdict, or while turns nobody saw are looked for. The live
referee then records the time-out once it is that player's turn, so the round record it
writes is one ``hakem mangala check`` accepts, whatever the verdict."""

from __future__ import annotations

import json
import random
from pathlib import Path

from controller.mangala.mistakes import mistakes
from controller.mangala.records import round_text
from controller.referee.api import ClockPressed, DirectorAction, FlagFell, MotionSeen, PressesUnseen
from engine.mangala.position import Position
from engine.mangala.record_check import check_record
from engine.mangala.record_reader import parse_record
from engine.mangala.sowing import legal_pits, play
from tests.controller.mangala.harness import Table
from tests.controller.mangala.test_referee import setup, sow


def _checked(table: Table) -> str:
    """The round record the referee's journal gives, which the rules must accept."""
    text = round_text(table.journal.entries)
    check = check_record(parse_record(text))
    assert check.first_illegal is None, (check.first_illegal, text)
    return text


def _press_then_flag(table: Table, flagged: str = "b") -> None:
    """The mover presses before the stones lie still; then ``flagged``'s flag falls."""
    table.send(MotionSeen(table.time.now_ms()))
    table.press("a")
    table.tick(300)
    table.send(FlagFell(table.time.now_ms(), table.referee.side_of(flagged)))


def test_a_legal_sowing_settled_after_the_flag_comes_first(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    _press_then_flag(table)
    assert table.count("time_out") == 0 and table.last("flag_fell")["player"] == "b"
    table.show(play(position, 1).position.board())
    kinds = [t for t in table.types() if t in ("move", "time_out", "game_end")]
    assert kinds == ["move", "time_out", "game_end"]
    assert table.last("game_end")["timed_out"] == "b"
    text = _checked(table)
    assert text.index("1 a 1 ->") < text.index("timeout 1 b")
    table.close()


def test_an_illegal_sowing_is_warned_and_the_time_out_waits(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    _press_then_flag(table)
    _, wrong = mistakes(position, 1)[0]
    table.show(wrong)
    assert table.last("illegal_move")["warning"] is True and table.count("time_out") == 0
    assert table.referee.mover == "a"  # the correction is a's (MG-T-4)
    sow(table, position, 1)
    assert table.last("time_out")["player"] == "b"
    _checked(table)
    # the flagged clock was never told to start a side (it would refuse)
    assert table.clock.host.errors == []
    table.close()


def test_an_extra_turn_after_the_press_plays_on_to_the_flag(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    _press_then_flag(table)
    again = play(position, 4)  # into a's store: a moves again (MG-1)
    table.show(again.position.board(), frames=1)
    assert table.referee.mover == "a" and table.count("time_out") == 0
    assert any("stands at Mehmet's flag" in line for line in table.log.lines)
    sow(table, again.position, 1)
    assert table.last("time_out")["player"] == "b"
    _checked(table)
    table.close()


def test_the_movers_own_flag_is_a_time_out_at_once(tmp_path: Path) -> None:
    table = Table(tmp_path)
    setup(table)
    table.send(FlagFell(table.time.now_ms(), table.referee.side_of("a")))
    assert table.count("flag_fell") == 0 and table.last("time_out")["player"] == "a"
    _checked(table)
    table.close()


def test_a_restart_keeps_the_waiting_flag(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    _press_then_flag(table)
    t = table.time.now_ms()
    table.close()
    resumed = Table(tmp_path, start_ms=t)
    resumed.show(play(position, 1).position.board())
    assert resumed.last("time_out")["player"] == "b"
    _checked(resumed)
    resumed.close()


def test_a_directors_position_gives_the_flagged_player_the_turn(tmp_path: Path) -> None:
    table = Table(tmp_path)
    setup(table)
    _press_then_flag(table)
    position = Position((4, 4, 4, 4, 4, 4), 0, (4, 4, 4, 4, 4, 4), 0, "b")
    table.send(DirectorAction(table.time.now_ms(), "set_position",
                              {"position": position.to_obj()}, "td"))
    assert table.last("time_out")["player"] == "b"
    _checked(table)
    table.close()


def test_a_flag_during_unseen_turns_waits_for_the_board(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    position = sow(table, position, 1)  # a sows, presses: b to move
    reply = next(play(position, pit) for pit in legal_pits(position)
                 if not play(position, pit).extra_turn)
    side_b, side_a = table.referee.side_of("b"), table.referee.side_of("a")
    table.send(PressesUnseen(table.time.now_ms(), (ClockPressed(
        table.time.now_ms(), side_b, (800_000, 800_000), press=(1, 50)),), (), side_a))
    table.send(FlagFell(table.time.now_ms(), side_a))  # a's time ran (after b's press)
    assert table.count("time_out") == 0
    table.show(reply.position.board())  # b's unseen sowing found: a is to move
    assert table.last("time_out")["player"] == "a"
    _checked(table)
    table.close()


def test_flags_at_any_moment_leave_a_record_the_rules_accept(tmp_path: Path) -> None:
    rng = random.Random(5)
    for run in range(6):
        table = Table(tmp_path / str(run))
        position = setup(table)
        for _ in range(rng.randrange(0, 8)):
            position = sow(table, position, rng.choice(legal_pits(position)))
            if table.referee.position is None:
                break
            position = table.referee.position
        mover = position.to_move
        assert mover is not None
        result = play(position, rng.choice(legal_pits(position)))
        table.send(MotionSeen(table.time.now_ms()))
        table.press(mover)
        table.tick(200)
        table.send(FlagFell(table.time.now_ms(), table.referee.side_of(rng.choice("ab"))))
        table.show(result.position.board(), frames=rng.choice((1, 3)))
        if not table.referee.over and table.referee.mover == mover and not result.set_over:
            sow(table, result.position, legal_pits(result.position)[0])
        _checked(table)
        table.close()


def test_a_restart_after_a_directors_accept_records_the_waiting_time_out(tmp_path: Path) -> None:
    """b's flag waits; the director accepts a's sowing (MG-CLOCK-2) and the table goes down
    just after journalling it: the restart journals the sowing and b's time-out, as the live
    table did (was: the sowing only, the time-out left to whatever came next)."""
    table = Table(tmp_path / "live")
    setup(table)
    _press_then_flag(table)
    table.send(DirectorAction(table.time.now_ms(), "accept", {"pit": 1}, "td"))
    live = table.types()
    entries = table.journal.entries
    table.close()
    cut = live.index("director")
    assert live[cut:cut + 4] == ["director", "move", "time_out", "game_end"]
    folder = tmp_path / "again"
    folder.mkdir()
    (folder / "journal.jsonl").write_text(
        "".join(json.dumps(e) + "\n" for e in entries[:cut + 1]), encoding="utf-8")
    resumed = Table(folder, start_ms=table.time.now_ms())
    assert resumed.types() == live
    _checked(resumed)
    resumed.close()
