"""The .mat writer: layout, round trips through the reader, and the replayed rewrite."""

from __future__ import annotations

from pathlib import Path

from engine.backgammon.mat_reader import ActionKind, parse_mat, read_mat
from engine.backgammon.mat_replay import replay
from engine.backgammon.mat_writer import (
    format_mat,
    record_from_replay,
    writable_names,
    write_mat,
)
from tests.conftest import TEST_DATA

BUNDLED = TEST_DATA / "matches" / "match10058734.txt"


def test_layout_of_a_written_match() -> None:
    text = format_mat(record_from_replay(replay(read_mat(BUNDLED))))
    lines = text.splitlines()
    assert lines[0] == '; [Site "BackgammonGalaxy"]'
    assert "5 point match" in lines
    start = lines.index(" Game 1")
    assert lines[start + 1] == " lasse : 0                       carsten_bg : 0"
    assert lines[start + 2] == "  1)                             32: 24/21 13/11"
    assert lines[start + 3] == "  2) 52: 13/8 6/4*               42: bar/21* 13/11"
    assert "  7) Doubles => 2                Takes" in lines
    assert " 22) Drops                       Wins 2 points" in lines
    # A line holding only a result has no move number (Backgammon Galaxy's layout).
    assert "     Losses 1 point              Wins 1 point and the match" in lines


def test_written_text_reads_back_to_the_same_record() -> None:
    record = read_mat(BUNDLED)
    again = parse_mat(format_mat(record))
    assert again.length == record.length and again.players == record.players
    assert again.tags == record.tags
    for ours, theirs in zip(record.games, again.games, strict=True):
        assert ours.score == theirs.score
        mine = [(a.player, a.kind, a.dice, a.moves, a.value) for a in ours.actions]
        back = [(a.player, a.kind, a.dice, a.moves, a.value) for a in theirs.actions]
        assert mine == back


def test_every_real_match_rewritten_replays_identically(shared_data: Path) -> None:
    for path in sorted((shared_data / "matches").glob("*.txt")):
        first = replay(read_mat(path))
        second = replay(parse_mat(format_mat(record_from_replay(first))))
        assert second.problem is None, path.name
        assert second.final_score == first.final_score, path.name
        assert [(t.player, t.dice, t.result) for g in second.games for t in g.turns] == [
            (t.player, t.dice, t.result) for g in first.games for t in g.turns
        ], path.name


def test_forced_pass_is_written_cannot_move() -> None:
    text = format_mat(record_from_replay(replay(read_mat(BUNDLED))))
    # Game 2, move 4: lasse rolls 66 with both 6s blocked.
    assert "  4) 66: Cannot Move             53: 24/16*" in text.splitlines()


def test_rules_count_replaces_a_wrong_wins_line(shared_data: Path) -> None:
    """match9814649 says "Wins 1 point" for a gammon; the rewrite says 2 (BG-SCORE-2)."""
    result = replay(read_mat(shared_data / "matches" / "match9814649.txt"))
    assert [n.rule for n in result.notes] == ["BG-SCORE-2"]
    rewritten = record_from_replay(result)
    wins = [a for a in rewritten.games[0].actions if a.kind is ActionKind.WIN]
    assert [(w.player, w.value) for w in wins] == [(1, 2)]


def test_empty_names_get_a_name(shared_data: Path) -> None:
    record = read_mat(shared_data / "matches" / "match8600489.txt")
    assert record.players[0] == ""
    assert writable_names(record) == ("Player 1", "lasse")


def test_write_mat_writes_utf8(tmp_path: Path) -> None:
    record = read_mat(BUNDLED)
    out = tmp_path / "out.mat"
    write_mat(record, out)
    assert read_mat(out).games == parse_mat(format_mat(record)).games
