"""GNU Backgammon's own reading of ``.mat`` files, to hold a refereed record to its source.

One gnubg process imports every file (``import mat``) and lists its games and records
(``gnubg.match()``); :func:`gnubg_facts` turns each into what must agree between a source match
and the record the table wrote: per game gnubg's result and score, and every record as (action,
player, dice, Position ID before, Position ID after).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.backgammon.moves import result_boards
from engine.backgammon.position import Position
from tests.gnubg_runner import run_gnubg_script

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
    if WRITE_BACK:
        gnubg.command('export match mat ' + path + '.gnubg.mat')
"""


def facts(games: list[dict[str, Any]]) -> list[Any]:
    """Per game: gnubg's winner, points and score, then every record. A move is compared as
    the position it leads to (equivalent notations agree); a roll followed by a resignation
    instead of a move is left out (gnubg logs it as an empty move or not at all)."""
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


def gnubg_imports(paths: Sequence[Path], *, export: bool = False,
                  timeout: float = 900.0) -> dict[str, dict[str, Any]]:
    """Every file as GNU Backgammon imports it, keyed by ``str(path)``: its ``games``, each
    with gnubg's ``info`` and ``records``; a file gnubg could not import is missing from the
    answer. With ``export``, gnubg also writes each match back out
    as ``.mat`` next to it (the path with ``.gnubg.mat`` added)."""
    with tempfile.TemporaryDirectory(prefix="hakem-mat-") as tmp:
        files = Path(tmp) / "files.json"
        files.write_text(json.dumps([str(p) for p in paths]), encoding="utf-8")
        script = SCRIPT.replace("FILES", repr(str(files))).replace("WRITE_BACK", repr(export))
        stdout = run_gnubg_script(script, timeout=timeout)
    seen: dict[str, dict[str, Any]] = {}
    for line in stdout.splitlines():
        if line.startswith("HAKEM-EXPORT "):
            item = json.loads(line[len("HAKEM-EXPORT "):])
            seen[item["path"]] = item
    return seen


def gnubg_facts(paths: Sequence[Path], *, timeout: float = 900.0) -> dict[str, list[Any]]:
    """:func:`facts` of every file as GNU Backgammon imports it, keyed by ``str(path)``; a file
    gnubg could not import is missing from the answer."""
    return {path: facts(item["games"])
            for path, item in gnubg_imports(paths, timeout=timeout).items()}
