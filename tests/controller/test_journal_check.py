"""What ``export`` refuses in a journal before it writes anything: impossible values, illegal
moves the journal does not let stand, another game's journal; and what it only notes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.records.mat_export import export_match
from engine.backgammon.mat_reader import parse_mat
from engine.backgammon.position import Position
from engine.errors import RecordFormatError
from tests.controller.referee.gnubg_compare import gnubg_facts
from tests.controller.referee.table import Table

OPENED = Position.initial().apply_steps([(8, 5), (6, 5)])


def journal() -> list[dict[str, Any]]:
    """A small legal journal: a 3-point match, one opening move, a resignation."""
    return [
        {"seq": 1, "type": "match_start", "players": ["A", "B"], "length": 3},
        {"seq": 2, "type": "game_start", "number": 1, "score": [0, 0], "crawford": False},
        {"seq": 3, "type": "opening_roll", "dice": [3, 1], "player": 0},
        {"seq": 4, "type": "move", "player": 0, "dice": [3, 1], "move": "8/5 6/5",
         "position_id": OPENED.position_id, "match_id": "cAlgAAAAAAAA"},
        {"seq": 5, "type": "roll", "player": 1, "dice": [6, 6]},
        {"seq": 6, "type": "resign", "player": 1, "resigned": 1},
        {"seq": 7, "type": "game_end", "winner": 0, "points": 1, "score": [1, 0]},
    ]


def changed(index: int, **fields: Any) -> list[dict[str, Any]]:
    entries = journal()
    entries[index].update(fields)
    return entries


def test_the_small_journal_exports() -> None:
    assert export_match(journal(), "j.jsonl").summary["final_score"] == [1, 0]


@pytest.mark.parametrize(
    ("entries", "words"),
    [
        (changed(0, length=-3), r"line 1 \(seq 1, match_start\): length must be .* got -3"),
        (changed(1, score=[99, 0]), r"line 2 .*score \[99, 0\] is impossible .* 3-point match"),
        (changed(3, position_id="garbage"), "line 4 .*position_id 'garbage' is no Position ID"),
        (changed(3, match_id="nonsense"), "line 4 .*match_id 'nonsense'"),
        (changed(3, player=5), "line 4 .*player must be 0 or 1, got 5"),
        (changed(3, move="xx"), r"j.jsonl line 4 \(seq 4, move\): not a move: 'xx'"),
        (changed(4, player=True), "line 5 .*player must be 0 or 1, got True"),
        (changed(6, score=[5, 0]), r"line 7 .*score \[5, 0\] is not the game's start"),
        (changed(6, winner=2), "line 7 .*winner must be 0 or 1, got 2"),
        (changed(6, points=0), "line 7 .*points must be 1 or more, got 0"),
        (changed(0, players=["A", ""]), "line 1 .*players must be two names"),
    ],
)
def test_impossible_values_are_refused_naming_the_line(
    entries: list[dict[str, Any]], words: str
) -> None:
    with pytest.raises(RecordFormatError, match=words):
        export_match(entries, "j.jsonl")


def test_a_cube_that_is_no_power_of_two_is_refused() -> None:
    entries = journal()[:5]
    entries[4:] = [{"seq": 5, "type": "double", "player": 1, "cube": 3}]
    with pytest.raises(RecordFormatError, match=r"line 5 .*cube must be a power of two.* got 3"):
        export_match(entries, "j.jsonl")


def test_an_illegal_move_is_refused_with_its_rule() -> None:
    entries = changed(3, dice=[4, 2], move="13/1")
    with pytest.raises(RecordFormatError, match=r"line 4 .*'13/1' with 42 .*\(BG-MOVE-3\)"):
        export_match(entries, "j.jsonl")


def test_a_move_whose_position_id_is_another_position_is_refused() -> None:
    entries = changed(3, position_id=Position.initial().position_id)
    with pytest.raises(RecordFormatError, match=r"line 4 .*is not the position move '8/5 6/5'"):
        export_match(entries, "j.jsonl")


def flagged_table() -> tuple[Table, Position]:
    """Player 1 opens 53 with a move that is no play for it and leaves it flagged."""
    table = Table()
    table.opening(3, 5)
    table.press(0)
    wrong = table.referee.match.position.apply_steps([(13, 7), (8, 6)])
    table.place(wrong, 1)
    table.press(1)
    return table, wrong


def test_a_flagged_move_that_stands_is_exported_as_played() -> None:
    """TTB-4.8: the opponent threw before the correction; the journal marks the move."""
    table, _ = flagged_table()
    table.throw(0, 2, 1)
    table.play_first_legal()
    entries = table.journal()
    game = parse_mat(export_match(entries).mat_text).games[0]
    assert game.actions[0].text.endswith("13/7 8/6") and len(game.actions) == 2
    stood = next(e for e in entries if e.get("stands"))
    del stood["stands"]
    with pytest.raises(RecordFormatError, match=r"'13/7 8/6' with 53 .*\(BG-"):
        export_match(entries)


def test_a_move_the_director_accepted_then_rejected_exports_the_correction() -> None:
    table, _ = flagged_table()
    table.director("accept")
    table.director("reject", reason="a checker was knocked over")
    table.play_first_legal()
    table.throw(0, 2, 1)
    table.play_first_legal()
    entries = table.journal()
    assert [e.get("stands", False) for e in entries if e["type"] == "move"] == [True, False, False]
    # the rejected move leaves the record (TTB-4.9): the correction, then the opponent's move
    actions = parse_mat(export_match(entries).mat_text).games[0].actions
    assert len(actions) == 2 and not actions[0].text.endswith("13/7 8/6")


def test_unknown_entry_types_are_skipped_with_a_note_the_referees_own_silently() -> None:
    entries = journal()
    entries.insert(5, {"seq": 6, "type": "bogus"})
    exported = export_match(entries, "j.jsonl")
    assert exported.notes == ("j.jsonl line 6 (seq 6, bogus): entry type 'bogus' is not one"
                              " export knows; skipped",)
    assert exported.mat_text == export_match(journal()).mat_text
    assert export_match(journal()).notes == ()


def test_a_mangala_journal_is_named_as_one() -> None:
    entries = [{"seq": 1, "type": "match_start", "game": "mangala", "players": ["A", "B"]}]
    with pytest.raises(RecordFormatError, match=r"round.txt is a Mangala journal: export handles"
                                                r" backgammon journals .*hakem mangala check"):
        export_match(entries, "round.txt")


def _with_gap(taken: Position, player: int = 0, played: Position | None = None
              ) -> list[dict[str, Any]]:
    """The small journal with two turns played unseen after the opening move (TTB-6.1), the
    position taken, and a move from it (24/18 18/13, leaving ``played``)."""
    entries = journal()[:4]
    played = played or taken.apply_steps([(24, 18), (18, 13)])
    entries += [
        {"seq": 5, "type": "clock", "event": "press", "means": "unseen", "press": [7, 2]},
        {"seq": 6, "type": "clock", "event": "press", "means": "unseen", "press": [7, 3]},
        {"seq": 7, "type": "cannot_read", "player": player, "rule": "TTB-6.1",
         "reason": "2 presses unseen", "about": "turns_unseen", "turns": 2},
        {"seq": 8, "type": "position_taken", "player": player, "position_id": taken.position_id,
         "rule": "TTB-6.1"},
        {"seq": 9, "type": "roll", "player": player, "dice": [6, 5]},
        {"seq": 10, "type": "move", "player": player, "dice": [6, 5], "move": "24/18 18/13",
         "position_id": played.position_id},
        {"seq": 11, "type": "game_end", "winner": 0, "points": 2, "score": [2, 0]},
    ]
    return entries


def test_moves_after_unseen_turns_are_checked_from_the_position_taken() -> None:
    """The position the board showed after turns played unseen (TTB-6.1) is where the next
    move starts; the .mat record of that game stops at the gap and gives its result."""
    taken = OPENED.swap().apply_steps([(13, 10), (13, 11)]).swap()
    export = export_match(_with_gap(taken), "j.jsonl")
    assert any("game 1" in n and "TTB-6.1" in n for n in export.notes)
    moves = export.summary["games"][0]["moves"]
    assert [m.get("in_mat", True) for m in moves] == [True, False]
    game = parse_mat(export.mat_text).games[0]
    assert [a.kind.value for a in game.actions][-1] == "win"
    assert len([a for a in game.actions if a.kind.value == "roll"]) == 1  # only the opening
    with pytest.raises(RecordFormatError, match=r"line 8 .*position_id 'x' is no Position ID"):
        export_match([*_with_gap(taken)[:7], dict(_with_gap(taken)[7], position_id="x")],
                     "j.jsonl")
    with pytest.raises(RecordFormatError, match=r"line 7 .*player must be 0 or 1, got 3"):
        export_match(_with_gap(taken, 3), "j.jsonl")
    # a move that is no legal play from the position taken is refused, as any
    with pytest.raises(RecordFormatError, match="line 10"):
        export_match(_with_gap(Position.initial().apply_steps([(24, 20), (24, 20)]),
                               played=taken.apply_steps([(24, 18), (18, 13)])), "j.jsonl")


def test_a_directors_position_with_the_player_on_roll_turns_the_board() -> None:
    """``set-position ID --player 0`` after player 0's own move: the ID is read from player
    0's side and the next move, player 0's, is checked from it."""
    entries = journal()[:4]
    played = OPENED.apply_steps([(13, 7), (13, 8)])
    entries += [
        {"seq": 5, "type": "director", "action": "set_position",
         "args": {"position_id": OPENED.position_id, "player": 0}, "director": "td"},
        {"seq": 6, "type": "roll", "player": 0, "dice": [6, 5]},
        {"seq": 7, "type": "move", "player": 0, "dice": [6, 5], "move": "13/7 13/8",
         "position_id": played.position_id},
    ]
    assert export_match(entries, "j.jsonl").summary["games"][0]["moves"][-1]["player"] == 0
    entries[4]["args"]["player"] = 4
    with pytest.raises(RecordFormatError, match=r"line 5 .*player must be 0 or 1, got 4"):
        export_match(entries, "j.jsonl")


def _wrong_set_up_game() -> list[dict[str, Any]]:
    """A game played from a wrong set-up (BG-EQ-3) and corrected before the 5th move (BG-EQ-4),
    then resigned; then a second game."""
    table = Table()
    table.board0 = Position.initial().apply_steps([(6, 5)])  # a checker on 5, not 6
    table.opening(3, 5)
    table.press(0)
    table.play_first_legal()
    board = list(table.board0.board)
    board[5], board[6] = board[5] - 1, board[6] + 1
    table.place(Position(tuple(board)), 0)
    table.throw(0, 6, 1)
    table.play_first_legal()
    table.director("resign", player=1, kind=1)
    table.board0 = Position.initial()
    table.opening(4, 2)
    table.press(0)
    table.play_first_legal()
    return [{"seq": i + 1, **e} for i, e in enumerate(table.journal())]


def test_a_game_played_from_a_wrong_set_up_exports() -> None:
    """``hakem export`` refused such a journal: its moves were checked from the starting
    position, not from the set-up the referee played (BG-EQ-4). The game's .mat record gives
    only its result (a .mat game starts from the starting position); the next game is whole."""
    entries = _wrong_set_up_game()
    assert [e["type"] for e in entries].count("setup_corrected") == 1
    export = export_match(entries, "j.jsonl")
    assert any("game 1 was played from a wrong set-up (BG-EQ-3" in n for n in export.notes)
    first, second = parse_mat(export.mat_text).games
    assert [a.kind.value for a in first.actions] == ["win"]
    assert [a.kind.value for a in second.actions] == ["roll"]
    moves = export.summary["games"][0]["moves"]
    assert len(moves) == 2 and all(m["in_mat"] is False for m in moves)


@pytest.mark.gnubg
def test_gnubg_imports_a_game_played_from_a_wrong_set_up(tmp_path: Path, gnubg: str) -> None:
    path = tmp_path / "setup.mat"
    path.write_text(export_match(_wrong_set_up_game(), "j.jsonl").mat_text, encoding="utf-8")
    [games] = gnubg_facts([path], timeout=300).values()
    assert len(games) == 2 and len(games[0]) == 1  # game 1: no move of the wrong set-up
    assert games[1][0][2:] == (1, 0)  # game 2 starts at the score game 1's point left
    assert [item[0] for item in games[1][1:]] == ["move"]


def _rescored(**fields: Any) -> list[dict[str, Any]]:
    """The small journal, game 1 put right to cube 2 (BG-CUBE-5) before game 2's first throw:
    its end journalled again, then game 2's start from the new score."""
    return [*journal(),
            {"seq": 8, "type": "game_start", "number": 2, "score": [1, 0], "crawford": False},
            {"seq": 9, "type": "director", "action": "set_cube",
             "args": {"value": 2, "owner": 1}, "director": "td"},
            {"seq": 10, "type": "game_end", "winner": 0, "points": 2, "score": [2, 0],
             "game": 1, "rescored": True, **fields},
            {"seq": 11, "type": "game_start", "number": 2, "score": [2, 0], "crawford": True}]


def test_a_game_scored_again_is_checked_from_its_own_start() -> None:
    """The new end adds its points to the score game 1 started from, not game 2's; the game
    started before it is replaced by the one started again (one game 2, from 2-0)."""
    exported = export_match(_rescored(), "j.jsonl")
    assert [g["number"] for g in exported.summary["games"]] == [1, 2]
    assert exported.summary["games"][1]["score_before"] == [2, 0]
    assert exported.summary["final_score"] == [2, 0]
    assert "Wins 2 points" in exported.mat_text
    with pytest.raises(RecordFormatError, match=r"line 10 .*score \[3, 0\] is not the game's"
                       r" start \[0, 0\] plus 2"):
        export_match(_rescored(score=[3, 0]), "j.jsonl")
    wrong = _rescored()
    wrong[8]["args"] = {"value": 3, "owner": 1}
    with pytest.raises(RecordFormatError, match=r"line 9 .*set_cube: value must be a power of"
                       " two, got 3"):
        export_match(wrong, "j.jsonl")


@pytest.mark.parametrize(("args", "said"), [
    ({"value": 128, "owner": 1}, r"value must be 64 or less \(a cube's highest face\), got 128"),
    ({"value": 2, "owner": None}, r"a cube at 2 is owned \(BG-CUBE-1, BG-CUBE-4\): its owner"
     r" must be 0 or 1, got None"),
    ({"value": 1, "owner": 0}, r"a cube at 1 is centred \(BG-CUBE-1, BG-CUBE-4\): its owner"
     r" must be null, got 0"),
    ({"value": 2, "owner": 1, "game": "1"}, r"game must be a game number 1 or more, got '1'"),
    ([2, 1], r"args must be an object \(value, owner\), got \[2, 1\]"),
    (None, r"args must be an object \(value, owner\), got None"),
])
def test_a_cube_set_no_table_journals_is_refused(args: object, said: str) -> None:
    """A hand-edited set_cube the referee itself would refuse on a restart (a cube above 64, an
    owned cube at 1, a cube at 2 in the centre, args that are no object) is named, not turned
    into a record (before, only a value that is no power of two was)."""
    wrong = _rescored()
    wrong[8]["args"] = args
    with pytest.raises(RecordFormatError, match=r"line 9 .*set_cube: " + said):
        export_match(wrong, "j.jsonl")


def test_a_game_is_scored_again_only_after_a_cube_put_right_before_the_next_throw() -> None:
    """A ``rescored`` game_end with no set_cube before it, one after the next game's first
    throw, or one naming another game is no correction a table journals: refused (before, the
    export took the new points, and a table restarted from it folded that end into game 2,
    which then never ended)."""
    orphan = _rescored()
    del orphan[8]  # no set_cube
    with pytest.raises(RecordFormatError, match=r"line 9 .*scored again with no set_cube after"
                       r" game 1's end and before game 2's first throw"):
        export_match(orphan, "j.jsonl")
    late = _rescored()
    late.insert(8, {"seq": 20, "type": "opening_roll", "dice": [4, 1], "player": 0})
    with pytest.raises(RecordFormatError, match=r"line 11 .*scored again with no set_cube after"
                       r" game 1's end and before game 2's first throw"):
        export_match(late, "j.jsonl")
    with pytest.raises(RecordFormatError, match=r"line 10 .*game 2 is scored again, but the"
                       r" game that ended last is game 1"):
        export_match(_rescored(game=2), "j.jsonl")
