"""GNU Backgammon imports the record of matches where the referee or the director intervened
(tests/controller/referee/interventions.py) and ends each game where the journal does: the
same games, results and scores, every move the record holds to the same position; and hakem
reads gnubg's own export of it back to the same games and score."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.records.mat_export import export_match
from engine.backgammon.mat_reader import parse_mat
from engine.backgammon.mat_replay import replay
from tests.controller.referee.gnubg_compare import facts, gnubg_imports
from tests.controller.referee.interventions import (
    SCRIPTS,
    Script,
    dropped_cube_set_decides_the_match,
    journal_of,
)

pytestmark = [pytest.mark.gnubg]

SIDE = {"X": 0, "O": 1}  # gnubg's X is the player the .mat names first


def _journal_games(entries: list[dict[str, Any]]) -> list[list[Any]]:
    """Per game the record holds: (winner, points, score before) when it ended, then every move
    the .mat has (player, dice, position after, the mover's view)."""
    summary = export_match(entries).summary
    out = []
    for game in summary["games"]:
        moves = [("move", m["player"], tuple(sorted(m["dice"])), m["position_id"])
                 for m in game["moves"] if m.get("in_mat", True)]
        result = game["result"]
        head = (None if result is None else (result["winner"], result["points"]),
                tuple(game["score_before"]))
        if moves or result is not None:
            out.append([head, *moves])
    return out


def _gnubg_games(item: dict[str, Any]) -> list[list[Any]]:
    out = []
    for game, items in zip(item["games"], facts(item["games"]), strict=True):
        info = game["info"]
        winner = info.get("winner")
        head = (None if winner is None else (SIDE[winner], info["points-won"]),
                (info["score-X"], info["score-O"]))
        moves = [("move", SIDE[player], dice, after)
                 for kind, player, *rest in items[1:] if kind == "move"
                 for dice, _, after in [rest]]
        out.append([head, *moves])
    return out


def test_gnubg_follows_every_intervention_s_record(tmp_path: Path, gnubg: str) -> None:
    journals = {name: journal_of(name) for name in sorted(SCRIPTS)}
    paths = []
    for name, entries in journals.items():
        path = tmp_path / f"{name}.mat"
        path.write_text(export_match(entries).mat_text, encoding="utf-8")
        paths.append(path)
    seen = gnubg_imports(paths, export=True, timeout=600)
    assert sorted(seen) == sorted(str(p) for p in paths)
    for path, (name, entries) in zip(paths, journals.items(), strict=True):
        item = seen[str(path)]
        assert _gnubg_games(item) == _journal_games(entries), name
        ours = replay(parse_mat(path.read_text(encoding="utf-8")))
        back = replay(parse_mat(Path(f"{path}.gnubg.mat").read_text(encoding="latin-1")))
        assert (back.legal, back.final_score, len(back.games)) == (
            ours.legal, ours.final_score, len(ours.games)), name
        stands = any(m["stands"] and m.get("in_mat", True)  # not one rejected after all
                     for g in export_match(entries).summary["games"] for m in g["moves"])
        assert ours.legal is not stands, name


@pytest.mark.parametrize("name", ["cube_set_after_game", "cube_set_decides_the_match"])
def test_gnubg_scores_a_game_the_director_put_right_as_the_table_did(
        tmp_path: Path, gnubg: str, name: str) -> None:
    """BG-CUBE-5: a game scored again after its cube was put right. GNU Backgammon imports
    the .mat with the game's new points (its Wins line), the next game from the new score,
    and ends on the journal's final score (the match won when the new points decide it)."""
    entries = journal_of(name)
    exported = export_match(entries)
    path = tmp_path / f"{name}.mat"
    path.write_text(exported.mat_text, encoding="utf-8")
    item = gnubg_imports([path], timeout=300)[str(path)]
    rescored = next(e for e in entries if e.get("rescored"))
    first = item["games"][0]["info"]
    assert (SIDE[first["winner"]], first["points-won"]) == (rescored["winner"],
                                                           rescored["points"])
    last = item["games"][-1]["info"]
    final = [last["score-X"], last["score-O"]]
    final[SIDE[last["winner"]]] += last["points-won"]
    assert final == exported.summary["final_score"]
    if exported.summary["finished"]:
        assert max(final) >= exported.summary["length"]


def test_gnubg_counts_a_dropped_game_scored_again_as_the_exports_note_says(
        tmp_path: Path, gnubg: str) -> None:
    """BG-CUBE-5: the match won 4-0 when the dropped game was put right to 4 cannot be counted
    so from a .mat (its cube stays at 1): GNU Backgammon gives the drop 1 point and the match
    stays unfinished, which the export's note says, so that nobody takes the record's score
    for the match's."""
    exported = export_match(dropped_cube_set_decides_the_match(Script(1, 3)))
    path = tmp_path / "dropped.mat"
    path.write_text(exported.mat_text, encoding="utf-8")
    [game] = gnubg_imports([path], timeout=300)[str(path)]["games"]
    info = game["info"]
    assert (SIDE[info["winner"]], info["points-won"]) == (0, 1)
    assert "leaves the match unfinished at 1-0" in exported.notes[-1]
