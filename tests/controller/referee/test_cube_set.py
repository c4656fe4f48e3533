"""The director's cube correction at a running table (``hakem director set-cube``, BG-CUBE-5;
BG-MATCH-2's void Crawford double): the cube put right in the game under way, the game that
just ended scored again until the next game's first throw (the match's end when that decides
it), the refusals in the engine's and the table's words, and a restart after it."""

from __future__ import annotations

from typing import Any

import pytest

from controller.referee.api import ClockCommand, Command, CubeSeen, JournalEntry, Say
from controller.referee.config import RefereeConfig
from controller.referee.resume import resume
from engine.backgammon.rules import Rules
from tests.controller.referee.harness import entries_of
from tests.controller.referee.interventions import SCRIPTS, Script, journal_of, set_cube
from tests.controller.referee.table import Table


def _said(out: list[Command]) -> list[str]:
    return [c.text for c in out if isinstance(c, Say)]


def _refused(s: Script, **args: Any) -> str:
    """The table's refusal of a set_cube, which journals nothing."""
    out = s.table.director("set_cube", **args)
    assert not [c for c in out if isinstance(c, JournalEntry)], out
    [said] = _said(out)
    assert said.startswith("The director's set-cube was refused: "), said
    return said


def _played(length: int = 5, turns: int = 3, rules: Rules | None = None) -> Script:
    s = Script(1, length)
    if rules is not None:
        s.table = Table(RefereeConfig(players=("Ayse", "Mehmet"), length=length, rules=rules), 1)
    s.start()
    s.turns(turns)
    return s


def test_a_cube_put_right_in_play_is_the_one_the_game_counts() -> None:
    """The players doubled and took without turning the cube: the director puts it at 2 on
    the taker's side; the live log says so and how the cube lies wrong, and the game counts
    at 2 (before, set-cube was no action at a backgammon table: refused)."""
    s = _played()
    taker = 1 - s.on_roll
    out = s.table.director("set_cube", value=2, owner=taker)
    assert [e["args"] for e in Table.entries(out, "director")] == [{"value": 2, "owner": taker}]
    said = _said(out)
    assert said[0] == "The director put the cube right: at 2, Mehmet's (BG-CUBE-5)"
    assert said[1] == ("The cube belongs on Mehmet's side, showing 2: the camera sees it in the"
                       " centre, showing 64 (BG-CUBE-5)")
    m = s.table.referee.match
    assert (m.cube.value, m.cube.owner) == (2, taker)
    s.resign(1 - taker)
    [end] = [e for e in s.table.journal() if e["type"] == "game_end"]
    assert (end["winner"], end["points"], end["cube"]) == (taker, 2, 2)


def test_the_cube_put_right_is_the_one_a_double_and_the_camera_go_on_from() -> None:
    """After the correction the owner redoubles from it: the double is to 4, and a cube seen
    offered on 4 draws no "should show" line (it would, from the cube of 1 the table held)."""
    s = _played()
    owner = s.on_roll
    set_cube(s, 2, owner)  # the cube lies on 2 on the owner's side: nothing to say
    s.table.offer(owner)
    doubles = [e for e in s.table.journal() if e["type"] == "double"]
    assert [d["cube"] for d in doubles] == [4]
    assert not any("should show" in c.text for c in s.table.log if isinstance(c, Say))
    s.table.take(1 - owner)
    assert (s.table.referee.match.cube.value, s.table.referee.match.cube.owner) == (4, 1 - owner)


def test_a_reject_after_the_correction_keeps_the_cube_put_right() -> None:
    """TTB-4.9 goes back to the position before the move, not to the cube before the
    correction."""
    s = _played()
    mover = s.on_roll
    s.turn()
    set_cube(s, 2, mover)
    s.table.director("reject", reason="knocked over")
    m = s.table.referee.match
    assert m.on_roll == mover and (m.cube.value, m.cube.owner) == (2, mover)


def test_a_correction_after_the_game_scores_it_again() -> None:
    """Before the next game's first throw the game that ended is scored again at the cube put
    right: its end journalled again (``rescored``), the next game's start with the new score,
    the clock held, and the next game starts from it."""
    s = _played()
    s.resign(0)  # Mehmet wins 1 point at the cube of 1 the table held
    out = s.table.director("set_cube", value=2, owner=0)
    kinds = [c.type for c in out if isinstance(c, JournalEntry)]
    assert kinds == ["director", "game_end", "game_start"]
    end = Table.entries(out, "game_end")[0]
    assert (end["points"], end["score"], end["cube"], end["game"], end["rescored"]) == (
        2, [0, 2], 2, 1, True)
    assert Table.entries(out, "game_start")[0] == {"type": "game_start", "number": 2,
                                                   "score": [0, 2], "crawford": False}
    assert ClockCommand("hold") in out
    said = _said(out)
    assert said[0] == ("The director put game 1's cube right, at 2, Ayse's (BG-CUBE-5): Mehmet's"
                       " win is scored again")
    assert said[1] == ("Game 1 scored again: Mehmet wins 2 points (Ayse resigned a single game,"
                       " cube 2); score Ayse 0, Mehmet 2")
    assert s.table.referee.match.score == (0, 2) and s.table.referee.stage == "opening"
    s.table.cube = CubeSeen(64, "centre", 0.95)
    s.next_game(4, 1)
    assert s.table.referee.match.score == (0, 2) and s.table.referee.stage == "move"


def test_a_game_scored_again_can_make_the_next_the_crawford_game() -> None:
    """3 points: 1-0 after game 1; put right to 2 it is 2-0, so game 2 is the Crawford game
    (BG-MATCH-2), as the start journalled again says."""
    s = _played(length=3)
    s.resign(1)
    out = s.table.director("set_cube", value=2, owner=1)
    assert Table.entries(out, "game_start")[0]["crawford"] is True
    assert s.table.referee.match.crawford_game and not s.table.referee.match.cube.in_play


def test_a_game_scored_again_that_decides_the_match_ends_it() -> None:
    """The match's end follows the game's new end (the next game's start journalled before it
    stands void): the table is over, the clock held, and nothing more is taken."""
    journal = journal_of("cube_set_decides_the_match")
    assert [e["type"] for e in journal[-3:]] == ["director", "game_end", "match_end"]
    end, over = journal[-2], journal[-1]
    winner = end["winner"]
    assert end["rescored"] and (end["points"], end["cube"], end["score"][winner]) == (4, 4, 4)
    assert over == {"type": "match_end", "winner": winner, "score": end["score"], "how": "played"}
    s = Script(1, 3)
    SCRIPTS["cube_set_decides_the_match"](s)
    assert s.table.referee.over and s.table.referee.winner == journal[-1]["winner"]
    assert ClockCommand("hold") in s.table.log[-6:]
    said = _refused(s, value=2, owner=0)
    assert said.endswith("the match is over: its result stands as the table ended it")


def test_the_crawford_game_has_no_cube_to_put_right() -> None:
    """BG-MATCH-2: in the Crawford game the cube stays at 1, refused as the engine refuses it;
    a double made in it was refused by the table, so the game already counts at 1."""
    s = _played(length=3)
    s.resign(1, 2)  # 0-2: the Crawford game next
    s.table.cube = None
    s.next_game(5, 2)
    said = _refused(s, value=2, owner=0)
    assert said.endswith("in the Crawford game the cube stays at 1 (BG-MATCH-2)")
    s.turns(2)
    s.resign(0)
    said = _refused(s, value=1, owner=None)
    assert said.endswith("game 2 is the Crawford game, played without the cube (BG-MATCH-2): a"
                         " double made in it is void, and the table counts it at 1 already")


def test_a_game_stands_as_scored_once_the_next_has_its_first_throw() -> None:
    """BG-CUBE-5: put right only until the next game starts. Named with its number, the game
    that ended is refused once the next game's opening throw is journalled; unnamed, the
    correction is for the game under way."""
    s = _played()
    s.resign(0)
    s.next_game(4, 1)
    said = _refused(s, value=2, owner=0, game=1)
    assert said.endswith("game 1 stands as scored: game 2 has started (its first throw), and a"
                         " cube is put right only until the next game starts (BG-CUBE-5,"
                         " BG-MATCH-2)")
    assert s.table.referee.match.score == (0, 1)
    assert _refused(s, value=2, owner=0, game=3).endswith("game 3 has not started yet")
    s.turns(2)
    s.resign(1)  # game 2 ended, game 3 not thrown: a correction is for game 2, not game 1
    assert "game 1 stands as scored: game 2 has started" in _refused(s, value=2, owner=0, game=1)
    assert _refused(s, value=2, owner=0, game=3).endswith(
        "game 3 has not started: its cube lies centred at 1 until its first throw; a correction"
        " now is for game 2, which just ended")


def test_an_equal_opening_throw_starts_the_next_game_too() -> None:
    """Equal opening dice are thrown again (BG-OPEN-1), but the game has had its first throw."""
    s = _played()
    s.resign(0)
    s.table.opening(3, 3)
    said = _refused(s, value=2, owner=0)
    assert "game 1 stands as scored: game 2 has started" in said


@pytest.mark.parametrize(("rules", "length", "args", "reason"), [
    (Rules(cube_limit=4), 5, {"value": 8, "owner": 0},
     "the cube cannot be put right to 8: these rules stop it at 4 (BG-CUBE-4)"),
    (Rules(cube=False, crawford=False), 3, {"value": 2, "owner": 0},
     "the cube cannot be put right to 2: this game is played without it"),
    (None, 5, {"value": 1, "owner": None}, "the cube is already at 1 in the centre: nothing to"
     " put right"),
    (None, 5, {"value": 3, "owner": 0}, "the cube's value is 1, 2, 4, 8, 16, 32 or 64, not 3"),
    (None, 5, {"value": 2, "owner": None}, "a cube at 2 is owned (BG-CUBE-1, BG-CUBE-4)"),
    (None, 5, {"value": 2, "owner": 1, "game": 2}, "game 2 has not started yet"),
])
def test_what_the_engine_or_the_table_refuses_in_play(rules: Rules | None, length: int,
                                                      args: dict[str, Any], reason: str) -> None:
    s = _played(length, rules=rules)
    assert _refused(s, **args).endswith(reason)


def test_no_correction_before_the_first_game_nor_while_a_double_waits() -> None:
    s = Script(1)
    s.table.cube = CubeSeen(64, "centre", 0.95)
    s.table.frames()
    assert "no game has been played yet" in _refused(s, value=2, owner=0)
    s.start()
    s.turns(2)
    s.table.motion()
    s.table.cube = CubeSeen(2, "offered", 0.95)
    s.table.frames()
    s.table.press(s.on_roll)
    assert s.table.referee.stage == "doubled"
    assert _refused(s, value=4, owner=0).endswith(
        "a double waits for its answer: the cube is put right after the take (BG-CUBE-4,"
        " BG-CUBE-5)")


@pytest.mark.parametrize("name", ["cube_set_in_play", "cube_set_after_game",
                                  "cube_set_decides_the_match"])
def test_a_table_restarted_anywhere_after_a_correction_goes_on_the_same(name: str) -> None:
    """Stopped after any entry (also between the correction and the game's new end) and
    rebuilt from its journal, the table journals what the uninterrupted one did."""
    s = Script(1, 3 if name == "cube_set_decides_the_match" else 5)
    SCRIPTS[name](s)
    table = s.table
    entries = table.journal()
    at = next(i for i, e in enumerate(entries)
              if e["type"] == "director" and e["action"] == "set_cube")
    for cut in range(at - 2, len(entries)):
        referee, commands = resume(entries[:cut])
        journal = entries[:cut] + entries_of(commands)
        for event in table.events[table.produced[cut - 1] + 1:]:
            journal += entries_of(referee.handle(event))
        assert journal == entries, f"{name}: cut after entry {cut} ({entries[cut - 1]['type']})"
        assert referee.match == table.referee.match, name


def test_a_dropped_game_is_not_scored_again_from_a_cube_the_doubler_could_not_turn() -> None:
    """BG-CUBE-4: only the cube's owner doubles, so the cube before a dropped double was the
    doubler's (or centred): put right on the dropper's side it is refused, naming the side
    it can be on (before, the doubler won the game again at a cube they could not have
    doubled); on the doubler's side it scores the game again."""
    s = _played()
    doubler = s.on_roll
    s.table.offer(doubler)
    s.table.drop()
    said = _refused(s, value=2, owner=1 - doubler)
    assert said.endswith(
        f"game 1 ended in player {1 - doubler}'s drop: the cube before that double was not on"
        f" their side, as only its owner doubles (BG-CUBE-4); the cube at 2 lies on player"
        f" {doubler}'s side")
    out = s.table.director("set_cube", value=2, owner=doubler)
    [end] = Table.entries(out, "game_end")
    assert end["rescored"] and (end["winner"], end["points"]) == (doubler, 2)
