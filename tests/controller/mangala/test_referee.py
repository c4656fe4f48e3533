"""The Mangala referee on synthetic readings with the simulated clock on a fake time source:
sets and rounds (MG-T-1, MG-T-2), the move ended by the press and the extra turn (MG-CLOCK-2,
MG-1), flagged sowings and warnings (MG-T-4), the set's end and sweep (MG-4), the set clock
(MG-CLOCK-1, MG-CLOCK-3), cannot-read, director overrides and a restart from the journal."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from controller.mangala.mistakes import mistakes, other_mistakes
from controller.mangala.records import round_record
from controller.mangala.referee import MangalaConfig, MangalaReferee
from controller.referee.api import ClockCommand, DirectorAction, JournalEntry, Say
from engine.errors import HakemError
from engine.mangala.position import Position
from engine.mangala.record_check import check_record
from engine.mangala.record_reader import parse_record
from engine.mangala.record_writer import format_record
from engine.mangala.sowing import legal_pits, play
from tests.controller.mangala.harness import Table

FIFTEEN_MIN = 15 * 60 * 1000


def setup(table: Table) -> Position:
    """The players set up the board; the referee starts the starter's clock."""
    position = table.referee.position
    assert position is not None and table.referee.stage == "setup"
    table.show(position.board())
    assert table.referee.stage == "turn"
    return position


def sow(table: Table, position: Position, pit: int, *, press: bool = True) -> Position:
    """The mover sows ``pit`` correctly, the stones come to rest, and (usually) they press."""
    mover = position.to_move
    result = play(position, pit)
    table.show(result.position.board())
    if press:
        assert mover is not None
        table.press(mover)
    return result.position


def play_round(table: Table, rng: random.Random, max_moves: int = 400) -> None:
    """Random legal play until the round ends; the board shown is always the true one."""
    for _ in range(max_moves):
        if table.referee.over:
            return
        if table.referee.stage == "setup":
            setup(table)
            continue
        position = table.referee.position
        assert position is not None
        pit = rng.choice(legal_pits(position))
        result = play(position, pit)
        sow(table, position, pit, press=not result.extra_turn or rng.random() < 0.3)
    raise AssertionError("the round did not end")


def test_a_whole_round_is_refereed_and_recorded(tmp_path: Path) -> None:
    table = Table(tmp_path)
    play_round(table, random.Random(3))
    entries = table.journal.entries
    ends = [e for e in entries if e["type"] == "game_end"]
    assert 2 <= len(ends) <= 3  # MG-T-1: 2 set points end the round early
    for end in ends:
        assert sum(end["stores"]) == 48 and end["stores_checked"] is True  # MG-4
    starters = [e["starter"] for e in entries if e["type"] == "game_start"]
    assert starters[:3] == ["a", "b", "a"][: len(starters)]  # MG-T-2
    assert table.count("illegal_move") == 0 and table.count("cannot_read") == 0
    final = table.last("match_end")
    assert final["how"] == "played" and final["winner"] in ("a", "b", "draw")
    record = round_record(entries)
    check = check_record(parse_record(format_record(record)))
    assert check.legal and check.round.over
    assert check.round.winner == final["winner"]
    assert check.moves == table.count("move")
    table.close()


def test_the_set_clock_is_fifteen_minutes_and_reset_each_set(tmp_path: Path) -> None:
    table = Table(tmp_path)
    setup(table)
    left0, right0 = table.clock.sim.times_ms()
    assert right0 == FIFTEEN_MIN and FIFTEEN_MIN - 1_000 <= left0 < FIFTEEN_MIN  # MG-CLOCK-1
    table.tick(10_000)
    left, right = table.clock.sim.times_ms()
    assert left < FIFTEEN_MIN - 9_000 and right == FIFTEEN_MIN  # a (left) starts and runs
    position = table.referee.position
    assert position is not None
    position = sow(table, position, 1)  # 4 stones from pit 1: ends in pit 4, b to move
    table.tick(5_000)
    left2, right2 = table.clock.sim.times_ms()
    assert left2 == pytest.approx(left - 750 - 400 - 10, abs=1500)
    assert right2 < FIFTEEN_MIN - 4_000
    # the director ends set 1 quickly: a position where a's last sowing empties a's side
    table.send(DirectorAction(table.time.now_ms(), "set_position", {"position": {
        "a": [0, 0, 0, 0, 0, 1], "a_store": 20, "b": [4, 4, 4, 4, 4, 3], "b_store": 4,
        "to_move": "a"}}, "td"))
    position = table.referee.position
    assert position is not None
    sow(table, position, 6)  # a's side is empty: a takes b's 23 stones (MG-4), shown done
    end = table.last("game_end")
    assert end["stores"] == [44, 4] and end["winner"] == "a"
    assert table.types()[-1] == "game_start" and table.last("game_start")["starter"] == "b"
    table.tick(300)  # the command reaches the clock over the link
    assert table.clock.sim.times_ms() == (FIFTEEN_MIN, FIFTEEN_MIN)  # reset for set 2
    table.close()


@pytest.mark.parametrize(("store", "winner"), [(20, "b"), (24, "draw")])
def test_time_out_counts_the_flagged_players_store(tmp_path: Path, store: int,
                                                   winner: str) -> None:
    table = Table(tmp_path)
    setup(table)
    table.send(DirectorAction(table.time.now_ms(), "set_position", {"position": {
        "a": [4, 4, 4, 4, 4, 4 - (store - 20)], "a_store": store, "b": [0, 0, 1, 1, 1, 1],
        "b_store": 0, "to_move": "a"}}, "td"))
    table.tick(FIFTEEN_MIN + 2_000)  # a never moves: a's 15 minutes run out (MG-CLOCK-3)
    out = table.last("time_out")
    assert out["player"] == "a"
    end = table.last("game_end")
    assert end["ended_by"] == "MG-CLOCK-3" and end["winner"] == winner
    assert end["timed_out"] == "a"
    table.close()


def test_extra_turn_without_a_press_then_one_press(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    # a's pit 3 holds 4 stones: 3, 4, 5, 6 ... no; pit 4 with 4 stones ends in the store
    after = sow(table, position, 4, press=False)
    assert table.last("move")["extra_turn"] is True and table.last("move")["pressed"] is False
    assert after.to_move == "a" and table.referee.mover == "a"
    sow(table, after, 1)
    moves = [e for e in table.journal.entries if e["type"] == "move"]
    assert [m["pit"] for m in moves] == [4, 1] and moves[-1]["pressed"] is True
    assert table.referee.mover == "b" and table.clock.state().running == "right"
    table.close()


def test_a_chain_seen_only_at_the_press_is_followed(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    r1 = play(position, 4)
    r2 = play(r1.position, 1)
    table.show(r2.position.board())  # no still frame between the two sowings
    table.press("a")
    assert [e["pit"] for e in table.journal.entries if e["type"] == "move"] == [4, 1]
    table.close()


def test_pressing_after_an_extra_turn_gives_the_clock_back(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    result = play(position, 4)
    table.tick(100)
    table.send(table_motion(table))
    from tests.controller.mangala.synthetic import frame
    table.tick(250)
    table.send(frame(table.time.now_ms(), result.position.board()))  # one still frame only
    table.press("a")
    move = table.last("move")
    assert move["pit"] == 4 and move["extra_turn"] and move["pressed"]
    table.tick(500)
    assert table.clock.state().running == "left"  # MG-1: a moves again
    assert any("moves again" in line for line in table.log.lines)
    table.close()


def table_motion(table: Table):  # type: ignore[no-untyped-def]
    from controller.referee.api import MotionSeen
    return MotionSeen(table.time.now_ms())


def test_an_illegal_sowing_is_flagged_warned_and_corrected(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    # a sows pit 1 but does not put the first stone back: pits 2..5 get one each (MG-1)
    wrong = list(position.board())
    wrong[0] = 0
    for i in (1, 2, 3, 4):
        wrong[i] += 1
    table.show(wrong)
    table.press("a")
    flag = table.last("illegal_move")
    assert flag["player"] == "a" and flag["rule"].startswith("MG-") and flag["reason"]
    assert flag["warning"] is True and flag["warnings"] == 1
    assert table.referee.flagged and table.referee.round.warning_count("a") == 1
    table.tick(500)
    assert table.clock.state().running == "left"  # the mover corrects on their own time
    sow(table, position, 1)
    move = table.last("move")
    assert move["pit"] == 1 and move["corrected"] is True
    assert not table.referee.flagged and table.referee.mover == "b"
    table.close()


def test_a_missing_stone_is_no_foul_but_reported(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    board = list(play(position, 2).position.board())
    board[9] -= 1  # one stone left the board: the players report it (MG-T-6, seed rule g)
    table.show(board, sure=0.99999)
    table.press("a")
    assert table.count("illegal_move") == 0
    move = table.last("move")
    assert move["pit"] == 2 and "MG-T-6" in move["note"] and "47 stones" in move["note"]
    assert any("MG-T-6" in line for line in table.log.lines)
    table.close()


def test_the_third_warning_loses_the_round(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    for pit in (1, 2, 3):
        _, wrong = mistakes(position, pit)[0]  # the first stone not put back, three times
        table.show(wrong)
        table.press("a")
    assert table.count("illegal_move") == 3
    end = table.last("match_end")
    assert end["how"] == "warnings" and end["winner"] == "b"  # MG-T-4
    record = round_record(table.journal.entries)
    check = check_record(parse_record(format_record(record)))
    assert check.legal and check.round.winner == "b"
    table.close()


def test_cannot_read_after_a_press_with_hands_over_the_board(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    board = play(position, 1).position.board()
    table.show(board, frames=2, hidden_cells=frozenset({3, 4}))
    table.press("a")
    table.show(board, frames=40, hidden_cells=frozenset({3, 4}))
    said = table.last("cannot_read")
    assert said["rule"] == "MG-CLOCK-2" and table.count("move") == 0
    assert table.count("illegal_move") == 0  # never an accusation from a hidden board
    table.show(board)
    assert table.last("move")["pit"] == 1
    table.close()


def test_ambiguous_frames_are_never_flagged(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    board = play(position, 3).position.board()
    table.show(board, sure=0.4)  # an unsure reader still finds the one legal board
    table.press("a")
    assert table.count("illegal_move") == 0
    assert table.last("move")["pit"] == 3
    table.close()


def test_a_press_out_of_turn_is_ignored(tmp_path: Path) -> None:
    table = Table(tmp_path)
    setup(table)
    table.press("b")
    assert table.last("clock")["means"] == "ignored"
    assert table.count("move") == 0 and table.count("illegal_move") == 0
    table.close()


def test_restart_from_the_journal_continues_the_round(tmp_path: Path) -> None:
    rng = random.Random(11)
    table = Table(tmp_path)
    position = setup(table)
    for _ in range(7):
        position = table.referee.position  # type: ignore[assignment]
        assert position is not None
        pit = rng.choice(legal_pits(position))
        sow(table, position, pit, press=True)
    before = table.referee.position
    moves = table.count("move")
    warnings = table.referee.round.warning_count("a")
    t = table.time.now_ms()
    table.close()
    again = Table(tmp_path, start_ms=t)
    assert again.referee.position == before and again.count("move") == moves
    assert again.referee.round.warning_count("a") == warnings
    assert any("Resumed" in line for line in again.log.lines)
    play_round(again, rng)
    assert again.referee.over
    check = check_record(parse_record(format_record(round_record(again.journal.entries))))
    assert check.legal and check.round.over
    again.close()


def test_restore_gives_back_the_clock_and_refuses_other_journals() -> None:
    ref = MangalaReferee(MangalaConfig())
    out = ref.begin()
    entries = [{"seq": i + 1, "time": "t", "type": c.type, **c.fields}
               for i, c in enumerate(c for c in out if isinstance(c, JournalEntry))]
    again = MangalaReferee(MangalaConfig())
    commands = again.restore(entries)
    assert any(isinstance(c, ClockCommand) and c.action == "configure_countdown"
               for c in commands)
    with pytest.raises(Exception, match="match_start"):
        MangalaReferee(MangalaConfig()).restore([{"type": "move"}])


def test_a_misread_pit_or_two_is_not_an_accusation(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    board = list(play(position, 1).position.board())
    board[9] += 1  # b's pit 3 read one too many, b's pit 4 one too few: no mistake gives this
    board[10] -= 1
    table.show(board, sure=0.999)
    table.press("a")
    assert table.count("illegal_move") == 0  # the best legal sowing explains it: pit 1
    move = table.last("move")
    assert move["pit"] == 1 and "misread pile" in move["note"]
    table.close()


def test_a_misread_between_two_close_sowings_waits(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    board = list(play(position, 1).position.board())
    board[9] += 1
    board[10] -= 1
    table.show(board, sure=0.6)  # an unsure reader: nothing clear, nothing accused
    table.press("a")
    table.show(board, frames=40, sure=0.6)
    assert table.count("illegal_move") == 0
    assert table.count("move") == 1 or table.count("cannot_read") == 1
    table.close()


def test_a_wrong_sowing_corrected_before_the_press_is_no_foul(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    wrong = list(position.board())
    wrong[0] = 0
    for i in (1, 2, 3, 4):
        wrong[i] += 1  # the first stone not put back (MG-1) ...
    table.show(wrong)
    table.tick(3_000)
    sow(table, position, 1)  # ... put right before the press (MG-CLOCK-2)
    assert table.count("illegal_move") == 0 and table.last("move")["pit"] == 1
    table.close()


def test_a_directors_position_is_in_the_record_and_replays(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    sow(table, position, 1)
    table.send(DirectorAction(table.time.now_ms(), "set_position", {"position": {
        "a": [0, 0, 0, 0, 0, 1], "a_store": 20, "b": [4, 4, 4, 4, 4, 3], "b_store": 4,
        "to_move": "a"}}, "td"))
    play_round(table, random.Random(5))
    text = format_record(round_record(table.journal.entries))
    assert "position 1 a 0 0 0 0 0 1 [20] b 4 4 4 4 4 3 [4] next a" in text
    check = check_record(parse_record(text))
    assert check.legal, check.first_illegal  # the correction replays (it did not before)
    assert check.round.over and check.moves == table.count("move")
    assert check.round.sets[0].a_store == 44  # a's pit 6 ends set 1: a sweeps b's 23 (MG-4)
    table.close()


@pytest.mark.parametrize(("position", "message"), [
    ({"a": [0, 0, 0, 0, 0, 1], "a_store": 19, "b": [4, 4, 4, 4, 4, 3], "b_store": 4,
      "to_move": "a"}, "47 stones"),
    ({"a": [0, 0, 0, 0, 0, 1], "a_store": 20, "b": [4, 4, 4, 4, 4, 3], "b_store": 4,
      "to_move": None}, "to_move"),
    ({"a": [0, 0, 0, 0, 0, 0], "a_store": 21, "b": [4, 4, 4, 4, 4, 3], "b_store": 4,
      "to_move": "b"}, "MG-4"),
])
def test_a_directors_position_the_record_cannot_hold_is_refused(
        tmp_path: Path, position: dict[str, object], message: str) -> None:
    table = Table(tmp_path)
    setup(table)
    before = len(table.journal.entries)
    with pytest.raises(HakemError, match=message):
        table.referee.handle(DirectorAction(table.time.now_ms(), "set_position",
                                            {"position": position}, "td"))
    assert len(table.journal.entries) == before  # nothing journalled
    table.close()


def test_the_opponent_moving_before_the_press_is_not_illegal(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    after_a = sow(table, position, 1, press=False)  # a sows pit 1 and forgets to press
    after_b = play(after_a, 2).position
    table.show(after_b.board())  # b sows pit 2 anyway
    table.tick(2_000)
    early = table.last("early_move")
    assert early["rule"] == "MG-CLOCK-2" and early["player"] == "b" and early["mover"] == "a"
    assert early["pits"] == [2] and early["mover_pressed"] is False
    assert table.count("illegal_move") == 0 and table.count("move") == 0
    assert table.referee.round.warning_count("b") == 0  # not illegal: no warning (MG-T-4)
    assert table.count("early_move") == 1  # said once, not for every frame
    left, right = table.clock.sim.times_ms()
    table.tick(3_000)
    left2, right2 = table.clock.sim.times_ms()
    assert right2 == right and left - left2 >= 2_900  # a's time still runs: a has not pressed
    assert any("waits for Ayşe's press" in line for line in table.log.lines)
    table.show(after_a.board())  # b takes the sowing back ...
    table.press("a")  # ... and a presses
    move = table.last("move")
    assert (move["player"], move["pit"], move["pressed"]) == ("a", 1, True)
    table.tick(500)
    assert table.clock.state().running == "right"  # b's turn, on b's time
    sow(table, after_a, 2)
    assert table.last("move")["player"] == "b" and table.referee.mover == "a"
    assert table.count("illegal_move") == 0
    table.close()


def test_a_press_after_the_opponent_moved_records_both_sowings(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    after_a = sow(table, position, 3, press=False)
    after_b = play(after_a, 5).position
    table.show(after_b.board())  # b sowed pit 5 before a pressed
    table.press("a")  # a presses with b's sowing on the board
    moves = [e for e in table.journal.entries if e["type"] == "move"]
    assert [(m["player"], m["pit"]) for m in moves] == [("a", 3)]
    early = table.last("early_move")
    assert early["mover_pressed"] is True and early["pits"] == [5]
    assert table.count("illegal_move") == 0
    table.tick(500)
    assert table.clock.state().running == "right"
    table.press("b")  # b leaves the same sowing and presses on their own time
    assert [(m["player"], m["pit"]) for m in table.journal.entries
            if m["type"] == "move"] == [("a", 3), ("b", 5)]
    check = check_record(parse_record(format_record(round_record(table.journal.entries))))
    assert check.legal and check.moves == 2
    table.close()


def test_a_mistake_no_model_knows_is_flagged_and_corrected(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    name, wrong = other_mistakes(position, 2)[0]
    assert name.startswith("sown to the left")  # a sows pit 2 clockwise: no model of it
    table.show(wrong)
    table.press("a")
    flag = table.last("illegal_move")
    assert flag["player"] == "a" and flag["rule"].startswith("MG-") and flag["reason"]
    assert flag["warning"] is True and flag["warnings"] == 1  # MG-T-4
    assert table.count("cannot_read") == 0 and table.count("move") == 0
    table.tick(500)
    assert table.clock.state().running == "left"  # a corrects on a's time (MG-CLOCK-2)
    sow(table, position, 2)
    move = table.last("move")
    assert move["pit"] == 2 and move["corrected"] is True and table.referee.mover == "b"
    table.close()


@pytest.mark.parametrize(("action", "args", "message"), [
    ("set_position", {"position_id": "4HPwATDgc/ABMA"},
     "not the backgammon Position ID '4HPwATDgc/ABMA'"),
    ("end_match", {"winner": 0}, "winner is a or b, not 0"),
    ("accept", {}, "names the pit that was sown: hakem director accept PIT"),
])
def test_a_backgammon_director_request_is_refused_naming_what_was_given(
        tmp_path: Path, action: str, args: dict[str, object], message: str) -> None:
    """A Position ID or a winner 0 sent to a Mangala table (the director's command does not
    know the table's game): refused, naming it, before anything is journalled (the ID was
    refused as "not None", the winner journalled as 0, an accept without its pit refused as
    "a pit 1..6, not None")."""
    table = Table(tmp_path)
    setup(table)
    before = len(table.journal.entries)
    with pytest.raises(HakemError, match=message):
        table.referee.handle(DirectorAction(table.time.now_ms(), action, args, "td"))
    assert len(table.journal.entries) == before
    table.close()


@pytest.mark.parametrize(("args", "line"), [
    ({"player": "a"}, "warning to "),
    ({"player": "a", "reason": "touched a pit"}, "(touched a pit) (MG-T-4)"),
])
def test_a_directors_warning_gives_its_reason_when_there_is_one(
        tmp_path: Path, args: dict[str, object], line: str) -> None:
    """Without a reason the live log said "warning to Ayse () (MG-T-4)"."""
    table = Table(tmp_path)
    setup(table)
    table.send(DirectorAction(table.time.now_ms(), "warn", args, "td"))
    said = [text for text in table.log.lines if "warning to" in text]
    assert len(said) == 1 and line in said[0] and "()" not in said[0]
    table.close()


def test_a_round_the_director_ended_cannot_be_ended_again(tmp_path: Path) -> None:
    """A second end (or one after the round was played out) would put a second end in the
    round record: refused, nothing journalled."""
    table = Table(tmp_path)
    setup(table)
    table.send(DirectorAction(table.time.now_ms(), "end_match", {"winner": "b"}, "td"))
    assert table.referee.over and table.referee.round.winner == "b"
    before = len(table.journal.entries)
    with pytest.raises(HakemError, match="the round is already over"):
        table.referee.handle(DirectorAction(table.time.now_ms(), "end_match", {"winner": "a"},
                                            "td"))
    assert len(table.journal.entries) == before
    check = check_record(parse_record(format_record(round_record(table.journal.entries))))
    assert check.legal and check.round.winner == "b" and check.moves == 0
    # restored, the round is over: no "Resumed the round" (the table says it is over)
    commands = MangalaReferee(MangalaConfig()).restore(table.journal.entries)
    assert not [c for c in commands if isinstance(c, Say) and "Resumed" in c.text]
    table.close()
