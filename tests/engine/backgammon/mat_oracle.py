"""GNU Backgammon's view of ``.mat`` files, and the checks that hold a hakem replay to it.

One gnubg process imports each file, lists its games and records (``gnubg.match()``) and
walks every record (``gnubg.navigate``) printing gnubg's own Position ID and Match ID. The
checks compare a replay with that view: each game's start score, winner, points, resignation
and Crawford flag; each move (player, dice, position before and after); each cube action and
resignation; the Position ID and Match ID before every record.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.backgammon.mat_replayed import Replay
from engine.backgammon.match import EndHow
from engine.backgammon.match_id import decode_match_id, encode_match_id
from engine.backgammon.moves import result_boards
from engine.backgammon.position import Position
from tests.gnubg_runner import run_gnubg_script

PLAYER = {"X": 0, "O": 1}

_DUMP = """
def dump(path):
    m = gnubg.match()
    games = []
    ids = []
    for k, g in enumerate(m['games']):
        records = [[a.get('action'), a.get('player'), a.get('dice'), a.get('move'),
                    a.get('board')] for a in g['game']]
        games.append({'info': g['info'], 'records': records})
        gnubg.navigate()
        if k:
            gnubg.navigate(game=k)
        for j in range(len(g['game'])):
            ids.append([k, gnubg.positionid(), gnubg.matchid()])
            gnubg.navigate(next=1)
    print('HAKEM-JSON ' + json.dumps({'path': path, 'games': games, 'ids': ids}))
"""

_SCRIPT = """
import gnubg, json
""" + _DUMP + """
for command in SETUP:
    gnubg.command(command)
files = json.load(open(FILES_JSON))
for path in files:
    gnubg.command('import mat ' + path)
    dump(path)
"""


def gnubg_view(
    paths: Sequence[Path], workdir: Path, setup: Sequence[str] = ()
) -> dict[str, Any]:
    """gnubg's games, records and IDs of every file, by path, imported after the ``setup``
    commands (``set jacoby off``); fails unless all were read."""
    files_json = workdir / "files.json"
    files_json.write_text(json.dumps([str(p) for p in paths]), encoding="utf-8")
    script = _SCRIPT.replace("FILES_JSON", repr(str(files_json)))
    return _views(run_gnubg_script(script.replace("SETUP", repr(list(setup)))), len(paths))


def gnubg_played(commands: Sequence[str], export: Path) -> dict[str, Any]:
    """gnubg's games, records and IDs of a session it plays by ``commands`` (no import: the
    oracle for records gnubg writes but cannot read back), exported to ``export``."""
    script = "import gnubg, json\n" + _DUMP + (
        f"for command in {list(commands)!r}:\n    gnubg.command(command)\n"
        f"dump({str(export)!r})\ngnubg.command('export match mat ' + {str(export)!r})\n"
    )
    return _views(run_gnubg_script(script), 1)[str(export)]


def _views(stdout: str, count: int) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for line in stdout.splitlines():
        if line.startswith("HAKEM-JSON "):
            item = json.loads(line[len("HAKEM-JSON ") :])
            seen[item["path"]] = item
    assert len(seen) == count, "gnubg did not report on every file"
    return seen


def _after(record: list[Any]) -> str | None:
    """The position a gnubg move record leads to (the steps' order inside a move may differ
    between equivalent notations, ``14/3`` against ``14/9 9/3``)."""
    action, _, _, move, board = record
    if action != "move":
        return None
    return Position.from_id(board).apply_steps([tuple(step) for step in move]).position_id


def _rolled_then_resigned(records: list[list[Any]], index: int) -> bool:
    """True for a roll that a resignation followed instead of a move: a move record with no
    steps although a play existed, directly followed by the same player's resignation (the
    roller resigned, the data README's note), or a ``set`` dice record directly followed by a
    resignation (how gnubg imports a roll with no move followed by the roller's own ``Wins``:
    the opponent resigned on seeing the roll). gnubg's importer logs a roll before the roller's
    resignation as an empty move or drops it depending on the lines after it (a Backgammon
    Galaxy ``Losses`` line in column 1 makes it log one, once even on the wrong side's
    position); hakem records no move and keeps the dice in the resignation's Match ID. Such
    records are left out."""
    if not (index + 1 < len(records) and records[index + 1][0] == "resign"):
        return False
    if records[index][0] == "set":
        return records[index][2] is not None
    if not (
        records[index][0] == "move"
        and not records[index][3]
        and records[index + 1][1] == records[index][1]
    ):
        return False
    before = Position.from_id(records[index][4])
    return bool(result_boards(before, tuple(records[index][2])))


def kept(game: dict[str, Any]) -> list[int]:
    """The indexes of the game's records that hakem has too."""
    records = game["records"]
    return [i for i in range(len(records)) if not _rolled_then_resigned(records, i)]


def cube_and_moves(item: dict[str, Any]) -> list[list[Any]]:
    """Per game: gnubg's result info, then (action, player, dice, position before, position
    after) for every record kept."""
    out = []
    for g in item["games"]:
        records = [g["records"][i] for i in kept(g)]
        out.append([g["info"], *[[*r[:3], r[4], _after(r)] for r in records]])
    return out


def written_differs(items: dict[str, Any]) -> list[str]:
    """The names whose written copy imports in gnubg with other moves, dice, cube actions,
    results or scores than the original (``items``: name to ``original``/``written`` views)."""
    return [
        name
        for name, item in items.items()
        if cube_and_moves(item["written"]) != cube_and_moves(item["original"])
    ]


def check_games(name: str, result: Replay, item: dict[str, Any]) -> None:
    """BG-SCORE-1..3, BG-CUBE-4, BG-MATCH-1/2: every game's start score, winner, points,
    resignation and Crawford flag are gnubg's, and the final score adds up."""
    gnubg_games = item["games"]
    assert len(result.games) == len(gnubg_games), name
    score = [0, 0]
    for ours, theirs in zip(result.games, gnubg_games, strict=True):
        info = theirs["info"]
        assert [info["score-X"], info["score-O"]] == list(ours.start_score), name
        assert ours.result is not None, name
        assert PLAYER[info["winner"]] == ours.result.winner, name
        assert info["points-won"] == ours.result.points, name
        assert info["resigned"] == (ours.result.how is EndHow.RESIGNED), name
        assert info.get("crawford", False) == ours.crawford, name
        score[ours.result.winner] += ours.result.points
    assert tuple(score) == result.final_score, name


def check_records(name: str, result: Replay, item: dict[str, Any]) -> None:
    """Each move: same player, dice and position before; gnubg's move applied to it gives
    hakem's result. Each cube action and resignation: same kind and player."""
    for ours, theirs in zip(result.games, item["games"], strict=True):
        records = [theirs["records"][i] for i in kept(theirs)]
        moves = [r for r in records if r[0] == "move"]
        assert len(moves) == len(ours.turns), name
        for turn, (_, player, dice, move, board) in zip(ours.turns, moves, strict=True):
            assert PLAYER[player] == turn.player, (name, turn.line)
            assert tuple(dice) == turn.dice, (name, turn.line)
            assert board == turn.before.position_id, (name, turn.line)
            steps = [tuple(step) for step in move]
            assert turn.before.apply_steps(steps) == turn.result, (name, turn.line)
        cube = [(r[0], PLAYER[r[1]]) for r in records if r[0] != "move"]
        ours_cube = [(s.kind, s.player) for s in ours.snapshots if s.kind != "move"]
        assert ours_cube == cube, name


def check_ids(name: str, result: Replay, item: dict[str, Any]) -> int:
    """Hakem's Position ID and Match ID before each record are gnubg's; returns how many were
    compared. gnubg 1.07 sets the Jacoby bit from its session default even in a match, shows
    no dice before an imported match's very first move, and none before a resignation unless
    a ``set`` record (left out) gave the roll just before it."""
    ids = []
    for k, game in enumerate(item["games"]):
        game_ids = [entry for entry in item["ids"] if entry[0] == k]
        indexes = kept(game)
        ids += [
            (game_ids[i], i > 0 and game["records"][i - 1][0] == "set" and i - 1 not in indexes)
            for i in indexes
        ]
    shots = [s for g in result.games for s in g.snapshots]
    assert len(shots) == len(ids), name
    for i, (shot, ((_, position_id, match_id), set_dice)) in enumerate(
        zip(shots, ids, strict=True)
    ):
        ours = decode_match_id(shot.match_id)
        ours = dataclasses.replace(ours, jacoby=decode_match_id(match_id).jacoby)
        if (i == 0 and shot.kind == "move") or (shot.kind == "resign" and not set_dice):
            ours = dataclasses.replace(ours, dice=(0, 0))
        assert position_id == shot.position_id, (name, i, shot)
        assert encode_match_id(ours) == match_id, (name, i, shot, decode_match_id(match_id))
    return len(shots)
