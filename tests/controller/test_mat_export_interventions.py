"""The ``.mat`` record of matches where the referee or the director intervened: what each
intervention becomes, and a note for each thing the record cannot say (never a file that
silently disagrees with the journal)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.records.journal import Journal
from controller.records.mat_export import export_match
from engine.backgammon.mat_reader import ActionKind, parse_mat
from engine.backgammon.mat_replay import replay
from tests.controller.referee.interventions import (
    SCRIPTS,
    Script,
    dropped_cube_set_decides_the_match,
    journal_of,
)


def _moves(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in entries if e["type"] == "move"]


def test_a_move_the_director_rejects_leaves_the_record() -> None:
    """TTB-4.9: the rejected move and its correction were both written, the mover twice in a
    row, which no program imports (``hakem mat check``: rolled out of turn)."""
    entries = journal_of("director_rejects")
    rejected, corrected = _moves(entries)[2], _moves(entries)[3]
    assert rejected["player"] == corrected["player"] and rejected["move"] != corrected["move"]
    exported = export_match(entries)
    result = replay(parse_mat(exported.mat_text))
    assert result.legal and result.problem is None
    written = [a.text for a in exported.record.games[0].actions if a.kind is ActionKind.ROLL]
    assert f"42: {corrected['move']}" in written and f"42: {rejected['move']}" not in written
    assert len(written) == len(_moves(entries)) - 1
    summary = exported.summary["games"][0]["moves"]
    assert summary[2]["rejected"] is True and summary[2]["in_mat"] is False
    assert not exported.notes


def test_a_position_the_director_sets_ends_the_games_record_with_a_note() -> None:
    """A .mat game cannot jump to a position: its record stops there (the moves after it were
    written from the wrong board, illegal) and a note says where."""
    exported = export_match(journal_of("set_position"))
    assert replay(parse_mat(exported.mat_text)).legal
    game = exported.record.games[0]
    assert [a.kind for a in game.actions[-1:]] == [ActionKind.WIN]
    assert len([a for a in game.actions if a.kind is ActionKind.ROLL]) == 3
    assert exported.notes == ("game 1, after move 2: the director set the position, which a "
                              ".mat game cannot do: its .mat record stops there and gives its "
                              "result",)


def test_a_flagged_move_that_stands_is_kept_as_played_and_named() -> None:
    """TTB-4.8: the move stands on the board, so the .mat keeps it (GNU Backgammon imports it
    as written), and the note names it where ``hakem mat check`` will stop."""
    for name in ("illegal_stands", "director_accepts"):
        exported = export_match(journal_of(name))
        result = replay(parse_mat(exported.mat_text))
        assert result.problem is not None, name
        stands = [n for n in exported.notes if "stands" in n]
        assert len(stands) == 1, name
        assert stands[0].startswith(f"game {result.problem.game}, move "
                                    f"{result.problem.move}: "), (name, stands)
        assert result.problem.text in stands[0]


@pytest.mark.parametrize("name, how", [("time_out", "a time-out (TTB-CLOCK-3)"),
                                       ("director_ends", "the director's end_match")])
def test_a_match_ended_off_the_board_is_noted(name: str, how: str) -> None:
    exported = export_match(journal_of(name))
    winner = exported.summary["winner"]
    player = exported.summary["players"][winner]
    assert len(exported.notes) == 1
    assert exported.notes[0].startswith(f"the match ended by {how} in game 2, which the .mat "
                                        f"leaves unfinished, {player} the winner at ")


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_every_record_replays_or_a_note_names_where_it_stops(name: str) -> None:
    """No intervention leaves a .mat that ``hakem mat check`` stops in without a note naming
    that game and move, nor a score other than the journal's games give."""
    entries = journal_of(name)
    exported = export_match(entries)
    result = replay(parse_mat(exported.mat_text))
    if result.problem is not None:
        where = f"game {result.problem.game}, move {result.problem.move}: "
        assert any(n.startswith(where) for n in exported.notes), (name, result.problem)
    else:
        ends = [e for e in entries if e["type"] == "game_end"]
        assert list(result.final_score) == (ends[-1]["score"] if ends else [0, 0]), name


def test_export_says_each_note_on_one_line_of_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, out = tmp_path / "journal.jsonl", tmp_path / "match.mat"
    with Journal(path, clock=lambda: "2026-11-26T08:00:00.000+00:00") as journal:
        for entry in journal_of("everything"):
            journal.append(entry["type"], **{k: v for k, v in entry.items() if k != "type"})
    assert main(["export", str(path), "--mat", str(out), "--json"]) == 0
    err = capsys.readouterr()
    lines = err.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hakem: note: game 2, move 2: Ayse's 65: ")
    assert json.loads(err.out)["winner"] == 1 and out.exists()


def test_a_rejected_move_takes_its_stands_note_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Accepted (it stands, TTB-4.8), then rejected (TTB-4.9): no note says a move stands,
    and a flag falling after the reject does not break ``hakem export``."""
    exported = export_match(journal_of("accepted_then_rejected"))
    assert not any("stands" in n for n in exported.notes)
    assert replay(parse_mat(exported.mat_text)).legal
    path, out = tmp_path / "journal.jsonl", tmp_path / "match.mat"
    with Journal(path, clock=lambda: "2026-11-26T08:00:00.000+00:00") as journal:
        for entry in journal_of("rejected_then_time_out"):
            journal.append(entry["type"], **{k: v for k, v in entry.items() if k != "type"})
    assert main(["export", str(path), "--mat", str(out)]) == 0
    assert "stands" not in capsys.readouterr().err and out.exists()


def test_a_reject_journalled_after_a_double_leaves_move_and_cube_out_with_a_note() -> None:
    """A journal where the reject came after a double and take (a referee that allowed it,
    TTB-4.9): the reject undid the cube, so the record pops back to the rejected roll."""
    entries = journal_of("director_rejects")
    at = next(i for i, e in enumerate(entries) if e["type"] == "illegal_move")
    mover = entries[at]["player"]
    entries[at:at] = [{"type": "double", "player": 1 - mover, "cube": 2},
                      {"type": "take", "player": mover}]
    exported = export_match(entries)
    result = replay(parse_mat(exported.mat_text))
    assert result.legal and result.problem is None
    assert "Doubles" not in exported.mat_text
    assert any("undid the cube" in n for n in exported.notes)


def test_a_position_set_before_the_first_move_keeps_the_opening_roll() -> None:
    """BG-OPEN-1: a .mat game cannot end before its opening roll: the roll is kept (no move),
    then the result; the note says where."""
    entries = journal_of("set_position_at_start")
    exported = export_match(entries)
    result = replay(parse_mat(exported.mat_text))
    assert result.legal and list(result.final_score) == entries[-1]["score"]
    kinds = [a.kind for a in exported.record.games[0].actions]
    assert kinds == [ActionKind.ROLL, ActionKind.WIN]
    assert exported.notes[0].startswith("game 1, before its first move: the director set")


@pytest.mark.parametrize("name", ["set_position_then_cube",
                                  "set_position_then_opponent_doubles"])
def test_a_cut_game_keeps_the_cube_turned_after_the_cut(name: str) -> None:
    """The double and take after the cut are in the record, so its result is the journal's
    (GNU Backgammon would otherwise import other points)."""
    entries = journal_of(name)
    exported = export_match(entries)
    kinds = [a.kind for a in exported.record.games[0].actions]
    assert kinds[-3:] == [ActionKind.DOUBLE, ActionKind.TAKE, ActionKind.WIN]
    result = replay(parse_mat(exported.mat_text))
    end = next(e for e in entries if e["type"] == "game_end")
    assert result.legal and list(result.final_score) == end["score"]


def test_a_game_scored_again_shows_its_new_points_in_the_mat() -> None:
    """BG-CUBE-5: game 1, resigned at the cube of 1 the table held, is put right to 2 before
    game 2's first throw: its Wins line, result and the score game 2 starts from are the new
    ones (game 2's start journalled again replaces the first, not a game of its own), and a
    note says the record's cube stayed at 1."""
    entries = journal_of("cube_set_after_game")
    exported = export_match(entries)
    first, second = exported.record.games
    assert first.actions[-1].kind is ActionKind.WIN and first.actions[-1].text == "Wins 2 points"
    assert second.score == (0, 2)
    games = exported.summary["games"]
    assert [g["number"] for g in games] == [1, 2, 3]  # game 3 started, not played
    assert games[0]["result"]["points"] == 2 and games[0]["result"]["rescored"] is True
    assert games[1]["score_before"] == [0, 2]
    result = replay(parse_mat(exported.mat_text))
    assert result.legal and list(result.final_score) == exported.summary["final_score"] == [1, 2]
    assert exported.notes == (
        "game 1 was scored again after the director put its cube right (BG-CUBE-5): Mehmet"
        " wins 2 point(s) at cube 2, which its Wins line says; its record's cube stays at 1 (a"
        " .mat cannot set it), from which GNU Backgammon counts the game's end",)


def test_a_game_scored_again_that_decides_the_match_wins_it_in_the_mat() -> None:
    """The game's new points end the match: its Wins line says "and the match", the game the
    table had started after it (no throw) is no game of the record."""
    exported = export_match(journal_of("cube_set_decides_the_match"))
    [game] = exported.record.games
    assert game.actions[-1].text == "Wins 4 points and the match"
    assert exported.summary["finished"] and exported.summary["final_score"] == [0, 4]
    assert [g["number"] for g in exported.summary["games"]] == [1]
    result = replay(parse_mat(exported.mat_text))
    assert result.legal and list(result.final_score) == [0, 4]


def test_a_cube_put_right_in_play_ends_the_games_record_with_a_note() -> None:
    """A .mat game has no line for a cube set: like a position set, its record stops there
    (a later double would double the record's cube, not the one put right) and gives the
    result the table counted."""
    exported = export_match(journal_of("cube_set_in_play"))
    [game] = exported.record.games[:1]
    assert game.actions[-1].text == "Wins 2 points"
    assert len([a for a in game.actions if a.kind is ActionKind.ROLL]) == 3
    assert exported.notes == (
        "game 1's result counts the cube at 2, which the director put right (BG-CUBE-5); its"
        " record's cube stays at 1 (a .mat cannot set it), from which GNU Backgammon counts the"
        " game's end",
        "game 1, after move 2: the director put the cube right (at 2, Mehmet's), which a .mat"
        " game cannot do: its .mat record stops there and gives its result")


def test_a_game_scored_again_to_win_the_match_that_the_mat_cannot_count_says_so() -> None:
    """BG-CUBE-5: a dropped double put right to 4 wins the 3-point match 4-0 in the journal,
    but a .mat counts a drop from its record's cube, still 1 (hakem mat check and GNU
    Backgammon alike): the record ends unfinished at 1-0, and a note says so (before, only
    that the record's cube stayed at 1)."""
    entries = dropped_cube_set_decides_the_match(Script(1, 3))
    assert [e["type"] for e in entries[-2:]] == ["game_end", "match_end"]
    exported = export_match(entries)
    assert exported.summary["final_score"] == [4, 0] and exported.summary["finished"]
    counted = replay(parse_mat(exported.mat_text))
    assert counted.legal and not counted.complete and counted.final_score == (1, 0)
    assert exported.notes[-1] == (
        "the match ended when game 1 was scored again (BG-CUBE-5), Ayse the winner at 4-0: the"
        " .mat counts that game from its record's cube (as GNU Backgammon and hakem mat check"
        " do), which leaves the match unfinished at 1-0")
    # a game scored again that the record's cube can count (4 points at 2, a gammon's worth)
    # draws no such note
    assert not any("unfinished" in n for n in export_match(
        journal_of("cube_set_decides_the_match")).notes)


def test_a_note_on_a_game_still_under_way_says_its_result_is_still_to_come() -> None:
    """Exported mid-game (a player's copy at a break), the game cut by a director's set
    position has no result yet: its note says the record will give it once the game ends,
    not that it gives one; the same journal read to the game's end says it gives it."""
    whole = journal_of("set_position")
    end = next(i for i, e in enumerate(whole) if e["type"] == "game_end")
    exported = export_match(whole[:end])
    assert exported.summary["games"][0]["result"] is None
    assert exported.notes == ("game 1, after move 2: the director set the position, which a "
                              ".mat game cannot do: its .mat record stops there and will give "
                              "its result once the game ends",)
    assert export_match(whole[:end + 1]).notes[0].endswith("stops there and gives its result")


def test_a_note_on_a_game_the_match_ended_in_promises_no_result() -> None:
    """The match ended by a time-out (or the director's end_match) in the game the director
    cut by a set position: that game never ends, so its note says its record gives no result,
    not that it will give one once the game ends (the next note says the .mat leaves it
    unfinished)."""
    whole = journal_of("set_position")
    end = next(i for i, e in enumerate(whole) if e["type"] == "game_end")
    for how in ("time_out", "director"):
        ended = [*whole[:end], {"type": "match_end", "winner": 0, "how": how, "game": 1}]
        notes = export_match(ended).notes
        assert notes[0] == ("game 1, after move 2: the director set the position, which a "
                            ".mat game cannot do: its .mat record stops there and gives no "
                            "result (the match ended before the game did)"), how
        assert "leaves unfinished" in notes[1] and not any("will give" in n for n in notes)
