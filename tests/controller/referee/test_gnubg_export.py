"""GNU Backgammon imports the refereed record exactly like the source match (issue 7).

A few real matches are refereed from synthetic frames (planted faults included); the ``.mat``
exported from the journal and the source file are both imported by gnubg itself, and the two
imports must agree game by game: results, scores, every move (as the position it leads to,
with the same player and dice) and every cube action.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.records.mat_export import export_match
from engine.backgammon.moves import result_boards
from engine.backgammon.position import Position
from tests.conftest import SHARED_DATA
from tests.controller.referee.harness import simulate
from tests.gnubg_runner import run_gnubg_script

pytestmark = [pytest.mark.gnubg]

NAMES = ["match10058734.txt", "match10232587.txt", "match1148400.txt", "match2102483.txt"]

SCRIPT = """
import gnubg, json
for path in json.load(open(FILES)):
    gnubg.command('import mat ' + path)
    games = []
    for g in gnubg.match()['games']:
        records = [[a.get('action'), a.get('player'), a.get('dice'), a.get('move'),
                    a.get('board')] for a in g['game']]
        games.append({'info': g['info'], 'records': records})
    print('HAKEM-EXPORT ' + json.dumps({'path': path, 'games': games}))
"""


def _facts(games: list[dict[str, Any]]) -> list[Any]:
    out = []
    for game in games:
        info = game["info"]
        items: list[Any] = [
            (info.get("winner"), info.get("points-won"), info.get("score-X"), info.get("score-O"))
        ]
        records = game["records"]
        for i, (action, player, dice, move, board) in enumerate(records):
            if action == "move":
                before = Position.from_id(board)
                steps = [tuple(step) for step in move]
                resigned_next = i + 1 < len(records) and records[i + 1][0] == "resign"
                if not steps and resigned_next and result_boards(before, tuple(dice)):
                    continue  # rolled, then resigned instead of moving
                after = before.apply_steps(steps).position_id
                items.append((action, player, tuple(sorted(dice)), board, after))
            else:
                items.append((action, player))
        out.append(items)
    return out


def test_gnubg_imports_the_exported_record_like_the_source(
    tmp_path: Path, gnubg: str
) -> None:
    paths: list[str] = []
    for name in NAMES:
        source = SHARED_DATA / "matches" / name
        _, _, run = simulate(source, seed=21, illegal=0.08, invalid=0.08)
        written = tmp_path / name
        written.write_text(export_match(run.entries).mat_text, encoding="utf-8")
        paths += [str(source), str(written)]
    files = tmp_path / "files.json"
    files.write_text(json.dumps(paths), encoding="utf-8")
    stdout = run_gnubg_script(SCRIPT.replace("FILES", repr(str(files))), timeout=600)
    seen = {}
    for line in stdout.splitlines():
        if line.startswith("HAKEM-EXPORT "):
            item = json.loads(line[len("HAKEM-EXPORT ") :])
            seen[item["path"]] = item["games"]
    assert len(seen) == len(paths)
    for name in NAMES:
        source = _facts(seen[str(SHARED_DATA / "matches" / name)])
        exported = _facts(seen[str(tmp_path / name)])
        assert exported == source, name
        assert sum(len(g) for g in exported) > 20
