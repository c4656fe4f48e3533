"""The match record from a journal (DESIGN.md, Records): .mat text, Position IDs, summary."""

from __future__ import annotations

import pytest

from controller.records.mat_export import export_match, position_ids
from engine.backgammon.mat_reader import parse_mat
from engine.backgammon.mat_replay import replay
from engine.backgammon.position import Position
from engine.errors import RecordFormatError
from tests.conftest import SHARED_DATA
from tests.controller.referee.harness import match_facts, read_mat, simulate
from tests.controller.referee.table import Table

MATCH = SHARED_DATA / "matches" / "match10058734.txt"


def test_a_refereed_match_exports_to_the_source_record() -> None:
    record, _, run = simulate(MATCH, seed=5, illegal=0.1, invalid=0.1)
    exported = export_match(run.entries)
    again = replay(parse_mat(exported.mat_text))
    assert match_facts(again) == match_facts(replay(record))
    assert exported.record.players == record.players
    assert exported.mat_text.startswith("5 point match")


def test_every_move_has_its_position_id_and_the_summary_counts_the_flags() -> None:
    _, _, run = simulate(MATCH, seed=5, illegal=0.1, invalid=0.1)
    exported = export_match(run.entries)
    rows = position_ids(exported)
    moves = [e for e in run.entries if e["type"] == "move"]
    assert [r["position_id"] for r in rows] == [m["position_id"] for m in moves]
    for row in rows:
        Position.from_id(row["position_id"])
    summary = exported.summary
    assert summary["finished"] and summary["winner"] == 1 and summary["final_score"] == [0, 5]
    flagged = [f for f in summary["flags"] if f["type"] in ("illegal_move", "invalid_throw")]
    assert len(flagged) == len(run.stream.planted.illegal) + len(run.stream.planted.invalid)
    assert all(f["rule"] and f["reason"] for f in flagged)
    assert [g["result"]["score"] for g in summary["games"]][-1] == [0, 5]


def test_a_roll_followed_by_a_resignation_stays_in_the_record() -> None:
    entries = [
        {"type": "match_start", "players": ["A", "B"], "length": 3},
        {"type": "game_start", "number": 1, "score": [0, 0], "crawford": False},
        {"type": "opening_roll", "dice": [3, 1], "player": 0},
        {"type": "move", "player": 0, "dice": [3, 1], "move": "8/5 6/5",
         "position_id": "4HPwATCwZ/ABMA"},
        {"type": "roll", "player": 1, "dice": [6, 6]},
        {"type": "resign", "player": 1, "resigned": 1},
        {"type": "game_end", "winner": 0, "points": 1, "score": [1, 0]},
    ]
    text = export_match(entries).mat_text
    record = parse_mat(text)
    actions = record.games[0].actions
    assert [a.kind.value for a in actions] == ["roll", "roll", "win"]
    assert actions[1].dice == (6, 6) and not actions[1].moves


@pytest.mark.parametrize(
    ("entries", "words"),
    [
        ([], "no match_start"),
        ([{"type": "roll", "player": 0, "dice": [1, 2]}], "not match_start"),
        ([{"type": "match_start", "players": ["A"], "length": 3}], "two names"),
        (
            [
                {"type": "match_start", "players": ["A", "B"], "length": 3},
                {"type": "game_start", "number": 1, "score": [0, 0]},
                {"type": "move", "player": 0, "dice": [7, 1], "move": ""},
            ],
            "dice",
        ),
    ],
)
def test_a_broken_journal_is_refused_with_the_reason(entries: list[dict], words: str) -> None:
    with pytest.raises(RecordFormatError, match=words):
        export_match(entries)


def test_the_bundled_match_is_the_shared_one() -> None:
    assert read_mat(MATCH).players == parse_mat(MATCH.read_text(encoding="utf-8")).players


def test_a_match_lost_on_time_exports_the_games_played() -> None:
    """TTB-CLOCK-3: the unfinished game is kept without a result; the summary says why."""
    table = Table()
    table.opening(3, 5)
    table.press(0)
    table.play_first_legal()
    table.throw(0, 6, 4)
    table.play_first_legal()
    table.flag(1)
    exported = export_match(table.journal())
    record = parse_mat(exported.mat_text)
    assert len(record.games) == 1 and record.games[0].result is None
    assert len(record.games[0].actions) == 2
    summary = exported.summary
    assert summary["ended_by"] == "time_out" and summary["winner"] == 0
    assert [f["type"] for f in summary["flags"]] == ["time_out"]
    assert summary["flags"][0]["rule"] == "TTB-CLOCK-3"
