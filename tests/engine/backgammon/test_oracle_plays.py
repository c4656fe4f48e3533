"""Legal plays and Position IDs checked against GNU Backgammon itself (BG-MOVE, BG-BAR, BG-OFF).

GNU Backgammon enumerates every distinct legal play of each (position, roll) pair with
``hint`` at 0-ply, applies each play to its own board and prints the resulting Position IDs;
the engine's results must be the same set, pair by pair. The pairs: 20,500 from seeded random
games (hits, bar entries, bear-offs, no-move rolls) and all 21 rolls in 150 seeded positions
around the bear-off. Nothing is cached: gnubg runs on every test run.
"""

from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from engine.backgammon.dice import ALL_ROLLS
from engine.backgammon.moves import legal_plays
from engine.backgammon.notation import parse_move
from engine.backgammon.position import Position
from tests.engine.backgammon.random_games import random_bear_off_positions, random_pairs
from tests.gnubg_runner import run_gnubg_script

PAIRS = 20_500  # (position, roll) pairs from random games
SEED = 20261122
GNUBG_PROCESSES = 12  # gnubg processes side by side (see _gnubg_oracle)
BEAR_OFF = 150  # bear-off positions, each with all 21 rolls

# Runs inside gnubg: reads "ID DICE" lines, writes one JSON line per pair with gnubg's own board
# and the Position IDs of every play hint lists (all distinct legal plays at 0-ply).
ORACLE_SCRIPT = r"""
import json, os
import gnubg
devnull = os.open(os.devnull, os.O_WRONLY)
os.dup2(devnull, 1)
gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
gnubg.command("new match 1")
gnubg.command("set evaluation chequerplay evaluation plies 0")
out = open(OUT_PATH, "w")
for line in open(IN_PATH):
    pid, dice = line.split()
    gnubg.command("set board " + pid)
    gnubg.command("set dice " + dice)
    opp, me = (list(side) for side in gnubg.board())
    hint = gnubg.hint(9999)
    results = []
    for entry in (hint or {}).get("hint", []):
        o, m = list(opp), list(me)
        for src, dst in gnubg.parsemove(entry["move"]):
            m[src - 1] -= 1
            if dst > 0:
                m[dst - 1] += 1
                if o[24 - dst] == 1:
                    o[24 - dst] = 0
                    o[24] += 1
        results.append([entry["move"], gnubg.positionid((o, m))])
    out.write(json.dumps({"id": gnubg.positionid(), "board": [opp, me], "plays": results}) + "\n")
out.close()
"""


def _gnubg_chunk(lines: list[str], tmp_path: Path, n: int) -> list[dict[str, object]]:
    in_path = tmp_path / f"pairs{n}.txt"
    out_path = tmp_path / f"gnubg{n}.jsonl"
    in_path.write_text("\n".join(lines) + "\n", encoding="ascii")
    script = f"IN_PATH = {str(in_path)!r}\nOUT_PATH = {str(out_path)!r}\n" + ORACLE_SCRIPT
    run_gnubg_script(script, timeout=600)
    return [json.loads(row) for row in out_path.read_text(encoding="ascii").splitlines()]


def _gnubg_oracle(lines: list[str], tmp_path: Path) -> list[dict[str, object]]:
    """Ask gnubg about every line, in several processes at once.

    gnubg's ``hint`` waits about 10 ms per call in its thread pool's polling loop while using
    little CPU, so parallel processes cut the wall time without loading the machine.
    """
    size = -(-len(lines) // GNUBG_PROCESSES)
    chunks = [lines[i : i + size] for i in range(0, len(lines), size)]
    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        parts = list(pool.map(_gnubg_chunk, chunks, [tmp_path] * len(chunks), range(len(chunks))))
    rows = [row for part in parts for row in part]
    assert len(rows) == len(lines), "gnubg did not answer every pair"
    return rows


def _gnubg_sides(position: Position) -> list[list[int]]:
    """The board as gnubg.board() gives it: (player not on roll, player on roll), 25 each."""
    b = position.board
    me = [max(c, 0) for c in b[1:26]]
    opp = [max(-b[24 - q], 0) for q in range(24)] + [-b[0]]
    return [opp, me]


@pytest.mark.gnubg
@pytest.mark.slow
def test_legal_plays_match_gnubg_on_random_games(gnubg: str, tmp_path: Path) -> None:
    pairs = random_pairs(PAIRS, SEED)
    # Plus every roll in positions at the edge of the bear-off (BG-OFF-1..3).
    pairs += [(p, r) for p in random_bear_off_positions(BEAR_OFF, SEED) for r in ALL_ROLLS]
    lines = [f"{pos.position_id} {a}{b}" for pos, (a, b) in pairs]
    rows = _gnubg_oracle(lines, tmp_path)

    stats = {"bar": 0, "hits": 0, "bear_off": 0, "no_move": 0, "one_die": 0}
    mismatches: list[str] = []
    for (position, dice), row in zip(pairs, rows, strict=True):
        # Position ID in both directions: gnubg read our ID into the board we decode.
        assert row["id"] == position.position_id
        assert row["board"] == _gnubg_sides(position), position.position_id
        plays = legal_plays(position, dice)
        ours = {play.result.position_id for play in plays}
        theirs = {pid for _, pid in row["plays"]}  # type: ignore[attr-defined]
        if ours != theirs:
            mismatches.append(
                f"{position.position_id} {dice}: engine-only {sorted(ours - theirs)[:3]}, "
                f"gnubg-only {[m for m, p in row['plays'] if p not in ours][:3]}"  # type: ignore[attr-defined]
            )
        assert len(ours) == len(plays), "duplicate results in legal_plays"
        # gnubg's own move text reads back, through our notation parser, to gnubg's result.
        for text, pid in row["plays"]:  # type: ignore[attr-defined]
            assert position.apply_steps(parse_move(text)).position_id == pid, text
        stats["bar"] += position.my_bar > 0
        stats["no_move"] += not plays
        stats["hits"] += any(p.result.their_bar > position.their_bar for p in plays)
        stats["bear_off"] += any(p.result.my_off > position.my_off for p in plays)
        stats["one_die"] += bool(plays) and dice[0] != dice[1] and len(plays[0].steps) == 1
    assert not mismatches, f"{len(mismatches)} of {len(pairs)} differ: " + "; ".join(mismatches[:5])
    # The sample really exercises the bar, hits, bear-offs, no-move and one-die rolls.
    assert stats["bar"] > 1000 and stats["hits"] > 3000 and stats["bear_off"] > 3000, stats
    assert stats["no_move"] > 100 and stats["one_die"] > 50, stats


ID_SCRIPT = r"""
import json
import random
import gnubg
out = open(OUT_PATH, "w")
for line in open(IN_PATH):
    row = json.loads(line)
    board = (row["sides"][0], row["sides"][1])
    decoded = [list(side) for side in gnubg.positionfromid(row["id"])]
    out.write(json.dumps({"encoded": gnubg.positionid(board), "decoded": decoded}) + "\n")
out.close()
"""


def _random_position(rng: random.Random) -> Position:
    """Any board at all: up to 15 checkers a side anywhere, bars and borne-off included."""
    board = [0] * 26
    for sign in (1, -1):
        for _ in range(rng.randint(0, 15)):
            for _attempt in range(10):
                point = rng.randint(0, 25) if rng.random() < 0.1 else rng.randint(1, 24)
                if sign > 0 and point == 0:
                    point = 25
                if sign < 0 and point == 25:
                    point = 0
                if board[point] * sign >= 0 or point in (0, 25):
                    board[point] += sign
                    break
    return Position(tuple(board))


@pytest.mark.gnubg
def test_position_ids_match_gnubg_both_ways(gnubg: str, tmp_path: Path) -> None:
    rng = random.Random(4242)
    positions = [_random_position(rng) for _ in range(3000)]
    positions += [Position.from_id(pid) for pid, _ in _corpus_pairs()]
    in_path = tmp_path / "ids.jsonl"
    out_path = tmp_path / "ids.out"
    in_path.write_text(
        "".join(
            json.dumps({"id": p.position_id, "sides": _gnubg_sides(p)}) + "\n" for p in positions
        ),
        encoding="ascii",
    )
    run_gnubg_script(f"IN_PATH = {str(in_path)!r}\nOUT_PATH = {str(out_path)!r}\n" + ID_SCRIPT)
    rows = [json.loads(row) for row in out_path.read_text(encoding="ascii").splitlines()]
    assert len(rows) == len(positions)
    for position, row in zip(positions, rows, strict=True):
        assert row["encoded"] == position.position_id  # our encoder == gnubg's
        assert row["decoded"] == _gnubg_sides(position)  # our decoder == gnubg's
        assert Position.from_id(row["encoded"]) == position


def _corpus_pairs() -> list[tuple[str, str]]:
    from tests.conftest import SHARED_DATA

    out: list[tuple[str, str]] = []
    for name in ("contact.csv", "race.csv"):
        for pid in (SHARED_DATA / "positions" / name).read_text().split():
            out.append((pid, name))
    return out
