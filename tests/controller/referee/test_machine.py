"""The referee's rules at the table, one behaviour at a time (rule IDs from RULES.md)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from controller.referee.api import (
    Buzz,
    ClockCommand,
    CubeSeen,
    DieSeen,
    Say,
    SetSignal,
    TakeSnapshot,
)
from controller.referee.config import RecognitionSettings, RefereeConfig
from controller.referee.machine import closed_out, diff_text
from controller.referee.resume import resume
from engine.backgammon.moves import legal_plays
from engine.backgammon.position import Position
from engine.backgammon.rules import DiceSetup, Rules
from engine.errors import ConfigError
from tests.controller.referee.table import Table


def started(d0: int = 3, d1: int = 5) -> Table:
    """A table after the opening throw (player 1 starts with 53) and player 0's press."""
    table = Table()
    table.opening(d0, d1)
    table.press(0 if d1 > d0 else 1)
    return table


# --- the opening throw (BG-OPEN-1..3) ------------------------------------------------------------


def test_the_first_event_journals_the_match_and_game_start() -> None:
    table = Table()
    out = table.frames(1)
    start, game = table.entries(out)[:2]
    assert start["type"] == "match_start" and start["players"] == ["Ayse", "Mehmet"]
    assert start["length"] == 5
    assert game == {"type": "game_start", "number": 1, "score": [0, 0], "crawford": False}
    assert SetSignal("system_ok", True) in out


def test_equal_opening_dice_are_thrown_again() -> None:
    table = Table()
    tie = table.entries(table.opening(4, 4), "opening_roll")
    assert tie[0]["player"] is None and tie[0]["tie"] is True
    assert table.referee.stage == "opening"
    out = table.opening(2, 6)
    roll = table.entries(out, "opening_roll")[0]
    assert roll["dice"] == [2, 6] and roll["player"] == 1
    assert table.referee.match.dice == (6, 2)  # the higher die plays both (BG-OPEN-1)
    assert any("BG-OPEN-3" in getattr(c, "text", "") for c in out)


def test_an_invalid_opening_die_is_thrown_again_by_its_owner_only() -> None:
    table = Table()
    table.motion()
    table.dice = (table.die(5, 0), table.die(2, 1, flat=False))
    out = table.frames()
    flags = table.entries(out, "invalid_throw")
    assert [(f["player"], f["rule"]) for f in flags] == [(1, "BG-OPEN-2")]
    assert "only Mehmet throws again" in flags[0]["reason"]
    table.motion()
    table.dice = (table.die(5, 0), table.die(3, 1))  # player 0's die still lies there
    roll = table.entries(table.frames(), "opening_roll")[0]
    assert roll["dice"] == [5, 3] and roll["player"] == 0


def test_the_smaller_die_press_starts_the_game_and_the_starter_moves() -> None:
    table = Table()
    table.opening(6, 1)
    out = table.press(1)  # the smaller die starts the starter's clock (BG-OPEN-3)
    assert table.entries(out, "clock")[0]["means"] == "start"
    out = table.play_first_legal()
    move = table.entries(out, "move")[0]
    assert move["player"] == 0 and move["dice"] == [6, 1] and move["move"]
    assert table.referee.stage == "decide" and table.referee.match.on_roll == 1


# --- throws (BG-ROLL-2, BG-ROLL-5, BG-ROLL-6) ----------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ({"flat": False}, "cocked"),
        ({"on_checker": True}, "on a checker"),
        ({"wrong_half": True}, "right half"),
    ],
)
def test_an_invalid_throw_is_flagged_and_thrown_again(bad: dict[str, bool], words: str) -> None:
    table = started()
    table.play_first_legal()  # player 1's opening move; player 0 is on roll
    out = table.throw(0, 4, 2, **bad)
    flag = table.entries(out, "invalid_throw")[0]
    assert flag["rule"] == "BG-ROLL-2" and words in flag["reason"] and flag["player"] == 0
    assert SetSignal("throw_again", True) in out
    assert Buzz("throw_again") in out
    assert TakeSnapshot(flag["snapshot"]) in out
    said = [c.text for c in out if isinstance(c, Say) and c.text.startswith("Invalid throw")]
    assert len(said) == 1 and said[0].count("BG-ROLL-2") == 1  # the rule named once
    assert table.referee.stage == "decide"
    out = table.throw(0, 4, 2)
    assert table.entries(out, "roll")[0]["dice"] == [4, 2]
    assert SetSignal("throw_again", False) in out


def test_the_same_dice_lying_still_are_not_a_new_throw() -> None:
    table = started()
    table.play_first_legal()
    table.throw(0, 4, 2)
    assert table.types(table.motion() + table.frames(5)) == []


def test_a_throw_ends_the_right_to_double_even_an_invalid_one() -> None:
    table = started()
    table.play_first_legal()
    table.throw(0, 6, 5)  # first rolls: doubling is allowed from the first move on
    table.play_first_legal()
    table.throw(1, 3, 3, flat=False)
    out = table.offer(1)
    refused = table.entries(out, "cube_refused")[0]
    assert refused["rule"] == "BG-ROLL-6"
    assert table.referee.match.cube.value == 1


def test_a_throw_before_the_opponent_pressed_counts_once_they_press() -> None:
    table = started()
    m = table.referee.match
    assert m.on_roll == 1
    plays = legal_plays(m.position, (5, 3))
    table.place(plays[0].result, 1)
    table.motion()
    table.dice = (table.die(6, 0), table.die(2, 0))  # player 0 throws before 1 pressed
    early = table.entries(table.frames(), "early_throw")
    assert early and early[0]["rule"] == "BG-ROLL-5" and early[0]["player"] == 0
    out = table.press(1)
    assert table.types(out)[:3] == ["clock", "move", "roll"]
    assert table.entries(out, "roll")[0] == {
        "type": "roll",
        "player": 0,
        "dice": [6, 2],
        "seen": [[2, "right", True, False], [6, "right", True, False]],
        "early": True,
    }


def _early_throw_table() -> Table:
    table = started()
    m = table.referee.match
    plays = legal_plays(m.position, (5, 3))
    table.place(plays[0].result, 1)
    table.motion()
    table.dice = (table.die(6, 0), table.die(2, 0))  # player 0 throws before 1 pressed
    assert table.entries(table.frames(), "early_throw")
    return table


def test_an_early_throw_thrown_again_before_the_press_is_the_roll() -> None:
    """BG-ROLL-5: the mover has the early throw thrown again; the new throw counts."""
    table = _early_throw_table()
    out = table.throw(0, 4, 1)
    again = table.entries(out, "early_throw")
    assert again and again[0]["rethrow"] is True and again[0]["dice"] == [4, 1]
    out = table.press(1)
    assert table.entries(out, "roll")[0]["dice"] == [4, 1]
    assert table.referee.match.dice == (4, 1)


def test_the_director_has_an_early_throw_thrown_again() -> None:
    """BG-ROLL-5 by the director: before the press (the dice lying there no longer count) and
    after it, until the thrower moves (the roll is undone and thrown afresh)."""
    table = _early_throw_table()
    table.director("rethrow")
    out = table.press(1)
    assert table.entries(out, "roll") == []  # the early dice were set aside
    assert table.referee.stage == "decide" and table.referee.match.on_roll == 0
    out = table.throw(0, 5, 5)
    assert table.entries(out, "roll")[0]["dice"] == [5, 5]

    table = _early_throw_table()
    table.press(1)
    assert table.referee.match.dice == (6, 2)
    out = table.director("rethrow")
    assert table.entries(out, "director")
    assert table.referee.stage == "decide" and table.referee.match.dice is None
    out = table.throw(0, 3, 1)
    assert table.entries(out, "roll")[0]["dice"] == [3, 1]
    table.play_first_legal()
    out = table.director("rethrow")  # moved: too late
    assert table.entries(out, "director") == []


# --- moves (engine-in-the-loop, TTB-4.8) ---------------------------------------------------------


def test_an_illegal_move_is_flagged_and_the_correction_accepted() -> None:
    table = started()
    before = table.referee.match.position
    wrong = before.apply_steps([(13, 7), (8, 6)])  # 53 played as 6 and 2
    table.place(wrong, 1)
    out = table.press(1)
    flag = table.entries(out, "illegal_move")[0]
    assert flag["player"] == 1 and flag["rule"].startswith("BG-") and flag["reason"]
    assert flag["position_id"] == wrong.position_id
    commands = [c for c in out if not hasattr(c, "text")]
    hold = commands.index(ClockCommand("hold"))
    restart = commands.index(ClockCommand("start", side="right"))
    assert hold < commands.index(SetSignal("illegal_move", True)) < restart
    assert Buzz("illegal") in out
    assert TakeSnapshot(flag["snapshot"]) in out
    assert table.referee.stage == "correcting"
    right = before.apply_steps([(8, 3), (6, 3)])
    table.place(right, 1)
    out = table.press(1)
    assert table.types(out) == ["clock", "correction", "move"]
    assert table.entries(out, "move")[0]["move"] == "8/3 6/3"
    assert SetSignal("illegal_move", False) in out


def test_a_correction_s_press_shows_the_board_before_the_next_throw() -> None:
    """``move_pressed``: from a press that ends a move to its verdict the pipeline keeps the
    still picture as the board before the next throw (``vision.dice.reuse``: a die found
    later where nothing changed since was not thrown). A flagged move's correction moves
    checkers after the first press, so the correction's press is one too; before, the
    corrected checkers' highlights counted as changed and were read as a third, cocked die
    (match5174678 of the draws, --seed0 4800)."""
    table = started()
    referee = table.referee
    before = referee.match.position
    assert not referee.move_pressed
    for result, verdict in ((before.apply_steps([(13, 7), (8, 6)]), "correcting"),  # 53 as 62
                            (before.apply_steps([(8, 3), (6, 3)]), "decide")):
        table.motion()
        table.board0 = result.swap()  # player 1 moves
        table.frames(1)
        assert not referee.move_pressed
        table.press(1, frames=0)  # too few still frames for a verdict yet
        assert referee.stage in ("move", "correcting") and referee.move_pressed
        table.frames()
        assert referee.stage == verdict and not referee.move_pressed


def test_an_uncorrected_illegal_move_stands_once_the_opponent_throws() -> None:
    table = started()
    wrong = table.referee.match.position.apply_steps([(13, 7), (8, 6)])
    table.place(wrong, 1)
    table.press(1)
    out = table.throw(0, 2, 1)
    stands = table.entries(out, "move")[0]
    assert stands["stands"] is True and stands["rule"] == "TTB-4.8"
    assert stands["position_id"] == wrong.position_id
    assert table.entries(out, "roll")[0]["dice"] == [2, 1]
    assert table.referee.match.position == wrong.swap()


def test_no_legal_move_passes_the_turn() -> None:
    """BG-MOVE-7, BG-BAR-4: a checker on the bar against a closed board."""
    table = started()
    table.play_first_legal()
    closed = Position.from_checkers(
        {25: 1, 6: 4, 5: 3, 4: 3, 8: 4}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}
    )
    table.director("set_position", position_id=closed.position_id)
    table.board0 = closed
    table.throw(0, 6, 5)
    out = table.press(0)
    move = table.entries(out, "move")[0]
    assert move["move"] == "" and move["position_id"] == closed.position_id


def test_a_board_it_cannot_read_is_said_after_the_time_out_and_then_judged() -> None:
    config = RefereeConfig(
        players=("Ayse", "Mehmet"), length=5, recognition=RecognitionSettings(cannot_read_ms=2000)
    )
    table = Table(config)
    table.opening(3, 5)
    table.press(0)
    before = table.referee.match.position
    table.occluded = True
    table.place(before.apply_steps([(8, 3), (6, 3)]), 1)
    out = table.press(1) + table.frames(30)
    flag = table.entries(out, "cannot_read")
    assert len(flag) == 1 and flag[0]["rule"] == "TTB-6.1" and flag[0]["reason"]
    assert SetSignal("cannot_read", True) in out
    assert "move" not in table.types(out)
    table.occluded = False
    out = table.frames(3)
    assert table.types(out) == ["move"]
    assert SetSignal("cannot_read", False) in out


# --- the cube (BG-CUBE-3, BG-CUBE-4, BG-MATCH-2) -------------------------------------------------


def test_double_take_and_only_the_owner_doubles_next() -> None:
    table = started()
    table.play_first_legal()
    out = table.offer(0)
    assert table.entries(out, "double")[0] == {"type": "double", "player": 0, "cube": 2}
    assert table.referee.stage == "doubled"
    out = table.take(1)
    assert table.entries(out, "take")[0] == {"type": "take", "player": 1, "cube": 2}
    assert table.referee.match.cube.owner == 1
    table.throw(0, 6, 5)
    table.play_first_legal()
    table.throw(1, 4, 2)
    table.play_first_legal()
    refused = table.entries(table.offer(0), "cube_refused")[0]
    assert refused["rule"] == "BG-CUBE-4"


def test_a_drop_ends_the_game_with_the_cube_value_before_the_double() -> None:
    table = started()
    table.play_first_legal()
    table.offer(0)
    out = table.drop()
    assert table.types(out)[:4] == ["clock", "drop", "game_end", "game_start"]
    end = table.entries(out, "game_end")[0]
    assert end["winner"] == 0 and end["points"] == 1 and end["how"] == "dropped"
    assert end["score"] == [1, 0]
    assert ClockCommand("hold") in out
    assert table.referee.stage == "opening"
    # the live log names who dropped, with the right number (not "1 point(s) (single game,
    # dropped)")
    said = [c.text for c in out if isinstance(c, Say) and " wins " in c.text]
    names = table.referee.config.players
    assert said == [f"{names[0]} wins 1 point ({names[1]} dropped the double); score "
                    f"{names[0]} 1, {names[1]} 0"]


def test_no_double_in_the_crawford_game() -> None:
    config = RefereeConfig(players=("Ayse", "Mehmet"), length=3)
    table = Table(config)
    table.opening(3, 5)
    table.press(0)
    table.play_first_legal()
    table.director("resign", player=1, kind=2)  # a gammon: 2-0 in a 3-point match
    assert table.referee.match.crawford_game
    assert table.entries(table.log, "game_start")[-1]["crawford"] is True
    table.cube = None
    table.board0 = Position.initial()
    table.opening(5, 2)
    table.press(1)
    table.play_first_legal()
    table.cube = CubeSeen(2, "offered", 0.9)
    refused = table.entries(table.offer(1), "cube_refused")[0]
    assert refused["rule"] == "BG-MATCH-2"


# --- the end -------------------------------------------------------------------------------------


def test_a_fallen_flag_loses_the_match() -> None:
    table = started()
    out = table.flag(1)
    assert table.types(out) == ["time_out", "match_end"]
    timeout, end = table.entries(out)
    assert timeout["rule"] == "TTB-CLOCK-3" and timeout["player"] == 1
    assert end["winner"] == 0 and end["how"] == "time_out"
    assert table.referee.over and table.referee.winner == 0
    assert table.referee.ended_by == "time_out"
    assert table.types(table.play_first_legal()) == []


def test_the_director_ends_the_match_and_resignations_score() -> None:
    table = started()
    out = table.director("resign", player=0, kind=3)
    end = table.entries(out, "game_end")[0]
    assert end["winner"] == 1 and end["points"] == 3 and end["how"] == "resigned"
    out = table.director("end_match", winner=0)
    assert table.entries(out, "match_end")[0]["how"] == "director"
    assert table.referee.over


def test_the_director_accepts_a_flagged_move_or_rejects_an_accepted_one() -> None:
    table = started()
    before = table.referee.match.position
    wrong = before.apply_steps([(13, 7), (8, 6)])
    table.place(wrong, 1)
    table.press(1)
    out = table.director("accept")
    assert table.entries(out, "move")[0]["stands"] is True
    assert table.referee.stage == "decide"
    out = table.director("reject", reason="a checker was knocked over")
    flag = table.entries(out, "illegal_move")[0]
    assert flag["rule"] == "TTB-4.9" and flag["reopen"] is True
    assert table.referee.stage == "correcting"
    assert table.referee.match.position == before


def test_the_director_cannot_reject_an_illegal_move_once_the_opponent_has_thrown() -> None:
    """TTB-4.8: after the opponent's throw a flagged move stands; a director's reject is
    refused before anything is journalled (the director sets the position instead)."""
    table = started()
    wrong = table.referee.match.position.apply_steps([(13, 7), (8, 6)])
    table.place(wrong, 1)
    table.press(1)
    table.throw(0, 2, 1)
    out = table.director("reject", reason="noticed late")
    assert table.types(out) == []
    assert any("refused" in getattr(c, "text", "") and "TTB-4.8" in getattr(c, "text", "")
               for c in out)
    assert table.referee.match.position == wrong.swap()


def test_the_director_cannot_reject_a_move_once_a_double_or_a_set_position_followed() -> None:
    """TTB-4.9: a move is corrected only before the next roll or double. A reject after the
    opponent doubled (and the mover took) would undo the cube with it; after a position the
    director set, it would undo that position: refused before anything is journalled."""
    table = started()
    mover = 1
    plays = legal_plays(table.referee.match.position, (5, 3))
    table.place(plays[0].result, mover)
    table.press(mover)
    table.offer(1 - mover)
    table.take(mover)
    assert table.referee.match.cube.value == 2
    out = table.director("reject", reason="noticed after the take")
    assert table.types(out) == []
    assert any("refused" in getattr(c, "text", "") and "TTB-4.9" in getattr(c, "text", "")
               for c in out)
    assert table.referee.match.cube.value == 2 and table.referee.match.on_roll == 1 - mover

    table = started()
    table.place(plays[0].result, mover)
    table.press(mover)
    position = Position.from_checkers({6: 5, 5: 5, 4: 5}, {6: 4, 5: 4, 4: 4, 3: 3})
    table.director("set_position", position_id=position.position_id)
    out = table.director("reject", reason="noticed after the position was set")
    assert table.types(out) == []
    assert table.referee.match.position == position


def test_a_director_action_that_does_not_apply_is_refused_without_a_journal_entry() -> None:
    table = started()
    for action, args in (("accept", {}), ("end_match", {"winner": 5}), ("dance", {})):
        out = table.director(action, **args)
        assert table.types(out) == []
        assert any("refused" in getattr(c, "text", "") for c in out)


# --- configurations (BG-EQ-2, BG-OPEN-T, BG-EQ-3) ------------------------------------------------


def test_a_pair_of_dice_each_leaves_the_opponents_pair_on_the_board() -> None:
    config = RefereeConfig(
        players=("Ayse", "Mehmet"), length=5, rules=Rules(dice=DiceSetup.PAIR_EACH)
    )
    table = Table(config)
    table.opening(3, 5)
    table.press(0)
    table.play_first_legal()
    table.throw(0, 4, 2)
    mehmet = table.dice
    table.play_first_legal()
    table.motion()
    table.dice = (*mehmet, table.die(6, 1), table.die(6, 1))  # player 1 throws their own pair
    out = table.frames()
    assert table.entries(out, "roll")[0]["dice"] == [6, 6]


def test_turkish_traditional_the_winner_of_the_opening_throws_both_dice() -> None:
    config = RefereeConfig(players=("Ayse", "Mehmet"), length=3, rules=Rules.turkish())
    table = Table(config)
    table.opening(2, 5)
    assert table.referee.match.on_roll == 1 and table.referee.stage == "decide"
    table.press(0)
    out = table.throw(1, 4, 4)  # doubles may open (BG-OPEN-T)
    assert table.entries(out, "roll")[0]["dice"] == [4, 4]
    table.play_first_legal()
    table.director("resign", player=0, kind=1)
    # from the second game on the previous winner starts with a fresh throw, no opening
    assert table.referee.stage == "decide" and table.referee.match.on_roll == 1
    table.board0 = Position.initial()
    out = table.throw(1, 6, 3)
    assert table.entries(out, "roll")[0]["player"] == 1


def test_a_wrong_set_up_is_pointed_out_before_play() -> None:
    table = Table()
    table.board0 = Position.initial().apply_steps([(6, 5)])
    out = table.opening(3, 5)
    flag = table.entries(out, "setup_error")[0]
    assert flag["rule"] == "BG-EQ-3" and "BG-EQ-4" in flag["reason"]


def test_a_wrong_set_up_is_played_as_it_lies_until_corrected_before_the_5th_move() -> None:
    """BG-EQ-4: the set-up as read is played (a move from it is legal, not flagged); when the
    players put it right between turns before the 5th move, the corrected position is adopted
    and play goes on from it."""
    table = Table()
    wrong0 = Position.initial().apply_steps([(6, 5)])  # player 0: a checker on 5, not 6
    table.board0 = wrong0
    out = table.opening(3, 5)  # player 1 starts with 53
    flag = table.entries(out, "setup_error")[0]
    assert flag["position_id"] == wrong0.position_id
    table.press(0)
    m = table.referee.match
    assert m.on_roll == 1 and m.position == wrong0.swap()
    out = table.play_first_legal()
    assert table.entries(out, "move") and not table.entries(out, "illegal_move")
    # player 0 corrects the set-up before throwing: the checker goes back from 5 to 6
    board = list(table.board0.board)
    board[5], board[6] = board[5] - 1, board[6] + 1
    corrected0 = Position(tuple(board))
    table.place(corrected0, 0)
    fixed = table.entries(table.log, "setup_corrected")
    assert fixed and fixed[0]["rule"] == "BG-EQ-4"
    assert table.referee.match.position == corrected0
    out = table.throw(0, 6, 1)
    assert table.entries(out, "roll")
    out = table.play_first_legal()
    assert table.entries(out, "move") and not table.entries(out, "illegal_move")


def test_a_set_up_error_stands_after_the_5th_move() -> None:
    """BG-EQ-4: after the 5th move the set-up stands; a changed board then is no correction."""
    table = Table()
    wrong0 = Position.initial().apply_steps([(6, 5)])
    table.board0 = wrong0
    table.opening(3, 5)
    table.press(0)
    table.play_first_legal()  # move 1
    for dice in ((6, 2), (4, 1), (3, 2), (6, 5)):  # moves 2..5
        player = table.referee.match.on_roll
        assert player is not None
        table.throw(player, *dice)
        table.play_first_legal()
    assert table.referee.match.moves_made == 5 and table.referee.stage == "decide"
    board = list(table.board0.board)
    moved = next(p for p in range(1, 25) if board[p] > 1)
    board[moved] -= 1
    board[moved - 1 if moved > 1 else moved + 1] += 1
    before = table.referee.match.position
    table.place(Position(tuple(board)), 0)
    assert table.entries(table.log, "setup_corrected") == []
    assert table.referee.match.position == before


def test_clock_sides_and_layout_change_who_is_who() -> None:
    config = RefereeConfig(players=("Ayse", "Mehmet"), length=5, clock_sides=("right", "left"))
    table = Table(config)
    table.opening(3, 5)
    out = table.press(0)
    assert table.entries(out, "clock")[0]["side"] == "right"
    assert table.referee.match.on_roll == 1


def test_config_errors_name_the_key() -> None:
    with pytest.raises(ConfigError, match="length"):
        RefereeConfig(length=0)
    with pytest.raises(ConfigError, match="clock_sides"):
        RefereeConfig(clock_sides=("left", "left"))
    with pytest.raises(ConfigError, match="confident"):
        RecognitionSettings(confident=2.0)
    with pytest.raises(ConfigError, match="agree"):
        RecognitionSettings(agree=0)
    with pytest.raises(ConfigError, match=r"flat_doubt must be between 0 and 1, not 1\.5"):
        RecognitionSettings(flat_doubt=1.5)


def test_config_round_trips_through_the_journal() -> None:
    config = RefereeConfig(
        players=("Ayse", "Mehmet"), length=7, rules=Rules.turkish(), clock_sides=("right", "left")
    )
    assert RefereeConfig.from_json(config.to_json()) == config


def test_diff_text_names_the_checkers_that_moved() -> None:
    before = Position.initial()
    assert diff_text(before, before.apply_steps([(13, 7), (8, 6)])) == "13/7 8/6"


def test_the_referee_does_no_io_and_reads_no_clock_or_random_source() -> None:
    """DESIGN.md: time and randomness are passed in; the referee is pure."""
    folder = Path(__file__).resolve().parents[3] / "controller" / "referee"
    banned = {"time", "datetime", "random", "os", "socket", "subprocess", "pathlib", "secrets"}
    for path in folder.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                names = {(node.module or "").split(".")[0]}
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                names = {node.func.id} & {"open", "print", "input"}
            else:
                continue
            assert not names & (banned | {"open", "print", "input"}), (path.name, names)


def test_the_last_checker_off_ends_the_game_without_a_press() -> None:
    table = started()
    table.play_first_legal()
    last = Position.from_checkers({1: 1}, {23: 2, 13: 13})
    table.director("set_position", position_id=last.position_id)
    table.board0 = last
    table.throw(0, 2, 1)
    out = table.place(last.apply_steps([(1, 0)]), 0)
    assert table.types(out)[:3] == ["move", "game_end", "game_start"]
    end = table.entries(out, "game_end")[0]
    assert end["winner"] == 0 and end["win"] == "backgammon" and end["points"] == 3


def test_a_press_without_a_readable_throw_says_so_after_the_time_out() -> None:
    table = started()
    table.play_first_legal()
    out = table.press(0, frames=3)
    assert table.types(out) == ["clock"]
    out = table.frames(60)  # 9 seconds of still frames: nothing to read
    flag = table.entries(out, "cannot_read")[0]
    assert flag["rule"] == "BG-ROLL-2" and flag["player"] == 0
    assert SetSignal("cannot_read", True) in out
    out = table.throw(0, 5, 2)  # the throw is seen after all
    assert table.types(out) == ["roll"]


def test_a_double_whose_cube_is_seen_only_after_the_press_counts() -> None:
    table = started()
    table.play_first_legal()
    table.motion()
    table.cube = CubeSeen(2, "offered", 0.9)
    out = table.press(0, frames=0)
    assert table.entries(out, "clock")[0]["means"] == "unclear"
    out = table.frames(1)
    assert table.entries(out, "double")[0]["cube"] == 2


def test_dice_read_unsurely_or_with_an_impossible_face_are_not_judged() -> None:
    table = started()
    table.play_first_legal()
    table.motion()
    table.dice = (table.die(7, 0), table.die(2, 0))
    assert table.types(table.frames()) == []
    table.dice = (DieSeen(4, "right", True, False, 0.2), table.die(2, 0))
    assert table.types(table.frames()) == []
    table.dice = (table.die(4, 0), table.die(2, 0))
    assert table.types(table.frames(1)) == ["roll"]


def test_a_double_before_the_mover_pressed_counts_and_ends_the_move() -> None:
    """``004`` 4.6: the opponent may double before the mover pressed; the move is finished as it
    lies, and a flagged move can no longer be corrected (TTB-4.8)."""
    table = started()
    table.play_first_legal()
    table.throw(0, 6, 4)
    m = table.referee.match
    table.place(legal_plays(m.position, (6, 4))[0].result, 0)
    table.cube = CubeSeen(2, "offered", 0.9)
    out = table.frames(1) + table.press(1)
    assert table.types(out) == ["clock", "move", "double"]
    assert table.entries(out, "double")[0]["player"] == 1
    assert table.referee.stage == "doubled"


def test_an_illegal_move_stands_when_the_opponent_doubles_before_the_press() -> None:
    table = started()
    table.play_first_legal()
    table.throw(0, 6, 4)
    wrong = table.referee.match.position.apply_steps([(13, 4)])  # 9 pips with 64
    table.place(wrong, 0)
    table.cube = CubeSeen(2, "offered", 0.9)
    out = table.frames(1) + table.press(1)
    assert table.types(out) == ["clock", "illegal_move", "move", "double"]
    assert table.entries(out, "move")[0]["stands"] is True


def test_a_flagged_move_pressed_then_the_opponent_doubles_stands_and_the_double_counts() -> None:
    """The mover pressed after an illegal move (flagged, open to correction); the opponent
    offers the cube and presses instead of throwing: the move stands (TTB-4.8) and the double
    is journalled (BG-CUBE-3; it was lost with the pending press, the cube staying at 1)."""
    table = started()
    table.play_first_legal()
    table.throw(0, 6, 4)
    wrong = table.referee.match.position.apply_steps([(13, 4)])  # 9 pips with 64
    table.place(wrong, 0)
    flagged = table.press(0)
    assert table.types(flagged)[-1] == "illegal_move"
    table.cube = CubeSeen(2, "offered", 0.9)
    out = table.frames(1) + table.press(1)
    assert table.types(out) == ["clock", "move", "double"]
    assert table.entries(out, "move")[0]["stands"] is True
    assert table.entries(out, "double")[0]["player"] == 1
    assert table.referee.stage == "doubled"
    assert table.referee.match.cube.offered_by == 1


def _flagged_then_pressed_before_the_cube_is_seen() -> Table:
    """Player 0's illegal move flagged; player 1 presses with the cube under their hand (not
    seen offered yet)."""
    table = started()
    table.play_first_legal()
    table.throw(0, 6, 4)
    table.place(table.referee.match.position.apply_steps([(13, 4)]), 0)
    assert table.types(table.press(0))[-1] == "illegal_move"
    out = table.press(1, frames=1)
    assert [e["means"] for e in table.entries(out, "clock")] == ["double_unseen"]
    assert table.types(out) == ["clock"]
    return table


def test_a_double_whose_cube_is_seen_after_the_press_counts() -> None:
    """The opponent's press while a flagged move waits, the offered cube seen only in the
    next frames (the hand over it): the move stands (TTB-4.8) and the double is journalled
    (it was taken as no double, the move left open)."""
    table = _flagged_then_pressed_before_the_cube_is_seen()
    table.cube = CubeSeen(2, "offered", 0.9)
    out = table.frames(2)
    assert table.types(out) == ["move", "double"]
    assert table.entries(out, "move")[0]["stands"] is True
    assert table.types(table.director("reject", reason="late")) == []


def test_a_restart_between_the_standing_move_and_its_late_seen_double_journals_it_once() -> None:
    table = _flagged_then_pressed_before_the_cube_is_seen()
    table.cube = CubeSeen(2, "offered", 0.9)
    whole = table.journal() + table.entries(table.frames(2))
    cut = next(i for i, e in enumerate(whole) if e["type"] == "move" and e.get("stands")) + 1
    table.referee, commands = resume(whole[:cut])
    out = commands + table.frames(2)
    assert table.types(out).count("double") == 1 and table.referee.stage == "doubled"


def test_a_press_before_the_cube_is_seen_is_no_double_once_the_mover_corrects() -> None:
    table = _flagged_then_pressed_before_the_cube_is_seen()
    legal = legal_plays(table.referee.match.position, (6, 4))[0].result
    table.place(legal, 0)
    out = table.press(0)
    assert "move" in table.types(out) and not table.entries(out, "move")[0].get("stands")
    table.cube = CubeSeen(2, "offered", 0.9)
    assert "double" not in table.types(table.frames(2))


def test_a_move_that_stood_for_a_refused_double_cannot_be_rejected() -> None:
    """The opponent offers a cube the mover owns (refused, BG-CUBE-4) while the mover's
    flagged move waits: the move stands (TTB-4.8) and stays so; the director's reject was
    still taken, reopening it."""
    table = started()
    table.play_first_legal()
    table.throw(0, 2, 1)
    table.play_first_legal()
    table.offer(1)
    table.take(0)
    table.throw(1, 5, 2)
    table.play_first_legal()
    table.throw(0, 6, 4)
    wrong = table.referee.match.position.apply_steps([(13, 4)])
    table.place(wrong, 0)
    table.press(0)
    table.motion()
    table.cube = CubeSeen(4, "offered", 0.9)
    out = table.frames(1) + table.press(1)
    assert table.types(out) == ["clock", "move", "cube_refused"]
    assert table.types(table.director("reject", reason="late")) == []
    assert table.referee.stage == "decide"


def _closed_out_table() -> Table:
    """Player 0 on roll, a checker on the bar against player 1's closed home board."""
    table = started()
    table.play_first_legal()  # player 1's opening 53
    board = [0] * 26
    board[25], board[6], board[8], board[13] = 1, 5, 3, 6
    for point in range(19, 25):
        board[point] = -2
    board[12] = -3
    closed = Position(tuple(board))
    assert closed_out(closed)
    table.director("set_position", position_id=closed.position_id)
    table.board0 = closed
    assert table.referee.stage == "decide" and table.referee.match.on_roll == 0
    return table


def test_a_closed_out_player_need_not_throw_and_passes_by_pressing() -> None:
    """BG-BAR-4 ("tatil"): the press passes the turn; the opponent throws next."""
    table = _closed_out_table()
    out = table.press(0)
    assert table.entries(out, "clock")[0]["means"] == "pass"
    passed = table.entries(out, "turn_passed")
    assert passed and passed[0]["rule"] == "BG-BAR-4" and passed[0]["player"] == 0
    assert table.referee.match.on_roll == 1 and table.referee.stage == "decide"
    out = table.throw(1, 4, 2)
    assert table.entries(out, "roll")[0]["player"] == 1
    assert not table.entries(table.log, "invalid_throw")


def test_the_opponents_throw_passes_a_closed_out_players_turn() -> None:
    """BG-BAR-4: the closed-out player did not throw and the opponent did: no "throw again"
    (the dice are in the opponent's half), the turn passes and the throw is the opponent's."""
    table = _closed_out_table()
    out = table.throw(1, 6, 1)
    assert table.types(out)[-2:] == ["turn_passed", "roll"]
    assert table.entries(out, "roll")[0]["player"] == 1
    assert not table.entries(out, "invalid_throw")


def test_the_director_enters_an_opening_throw_the_camera_could_not_read() -> None:
    table = Table()
    out = table.director("set_dice", dice=[2, 6])
    roll = table.entries(out, "opening_roll")[0]
    assert roll["dice"] == [2, 6] and roll["player"] == 1
    assert table.referee.match.on_roll == 1 and table.referee.match.dice == (6, 2)
    fresh = Table()  # equal opening dice are thrown again, not entered (BG-OPEN-1)
    assert fresh.entries(fresh.director("set_dice", dice=[3, 3]), "director") == []
    assert fresh.referee.stage == "opening"


def test_a_pit_given_to_a_backgammon_accept_is_refused_not_ignored() -> None:
    table = started()
    out = table.director("accept", pit=3)
    assert table.entries(out, "director") == []
    lines = [c.text for c in out if isinstance(c, Say)]
    assert len(lines) == 1 and "accept takes no pit at a backgammon table" in lines[0]


@pytest.mark.parametrize(("given", "said"), [
    ("AAAAAAAAAAAAAA", "position AAAAAAAAAAAAAA is no game under way: the player on roll has "
                       "borne off all 15 checkers"),
    ({"pits": [4] * 12, "stores": [0, 0]}, "a backgammon position is a Position ID"),
    (None, "a backgammon position is a Position ID (14 characters, as gnubg writes it), not "
           "None"),
])
def test_a_director_position_no_game_can_be_in_is_refused_naming_it(given: Any,
                                                                    said: str) -> None:
    """A board with no checkers (both sides borne off), a Mangala position or none at all:
    refused with the value named (the first was taken, the others raised a bare KeyError)."""
    table = started()
    out = table.director("set_position", position_id=given)
    assert table.entries(out, "director") == []
    lines = [c.text for c in out if isinstance(c, Say)]
    assert len(lines) == 1 and said in lines[0], lines


def test_a_directors_end_gives_the_reason_the_command_gave() -> None:
    """``hakem director end-match 1 --reason ...``: the live log says why the match ended."""
    table = started()
    out = table.director("end_match", winner=1, reason="player 0 did not come back")
    assert table.entries(out, "director")[0]["args"]["reason"] == "player 0 did not come back"
    lines = [c.text for c in out if isinstance(c, Say)]
    assert any(line.startswith("The director ends the match: ") and
               line.endswith(" wins (player 0 did not come back)") for line in lines), lines
    # a second end: refused in the live log, nothing journalled (the record holds one end)
    again = table.director("end_match", winner=0)
    assert not table.entries(again, "director") and not table.entries(again, "match_end")
    assert [c.text for c in again if isinstance(c, Say)] == [
        "The director's end-match was refused: the match is already over: there is no match "
        "to end"]
