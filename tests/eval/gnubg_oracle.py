"""The rules engine against GNU Backgammon on fresh seeds, larger than the committed tests.

Three checks, each printing counts compared and every disagreement (with its seed):

1. ``plays``: positions from seeded games played by mixed policies (random, hitting, priming,
   racing), each with all 21 rolls: hakem's set of resulting positions against gnubg's ``hint``
   at 0-ply, gnubg's move text parsed back by hakem, and the Position ID both ways.
2. ``matches``: seeded random complete matches played by the engine (cube doubles, takes,
   drops, resignations of every kind, Crawford and post-Crawford, lengths 1 to 11) written as
   ``.mat``; gnubg imports each, and its games, records, Position IDs and Match IDs before
   every record must be hakem's; gnubg's export of the imported match is read back by hakem
   and must replay to the same games, moves and scores.
3. ``selfplay``: gnubg's 0-ply player plays seeded matches against itself; hakem reads each
   export and agrees with gnubg on every game, record and ID.

    .venv/bin/python -m tests.eval.gnubg_oracle                      # all three, defaults
    .venv/bin/python -m tests.eval.gnubg_oracle --positions 500 --matches 20 --selfplay 4
    .venv/bin/python -m tests.eval.gnubg_oracle --only matches --match-seed 5123 --matches 1

Seeds: positions from ``--position-seed`` (4000), match ``i`` from ``--match-seed + i``
(5000), self-play match ``i`` from ``--selfplay-seed + i`` (6000).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.backgammon.dice import ALL_ROLLS
from engine.backgammon.mat_reader import parse_mat_bytes
from engine.backgammon.mat_replay import replay
from engine.backgammon.mat_replayed import Replay
from engine.backgammon.mat_writer import format_mat, record_from_events
from engine.backgammon.match import (
    Double,
    Drop,
    Event,
    MatchState,
    Move,
    NextGame,
    OpeningRoll,
    Phase,
    Resign,
    Roll,
    Take,
    apply,
    legal_results,
    may_double,
    new_match,
)
from engine.backgammon.moves import legal_plays, max_dice_playable
from engine.backgammon.notation import parse_move
from engine.backgammon.position import Position
from engine.backgammon.scoring import WinKind
from engine.errors import RecordFormatError
from tests.engine.backgammon.mat_oracle import (
    _DUMP,
    _views,
    check_games,
    check_ids,
    check_records,
    cube_and_moves,
)
from tests.engine.backgammon.test_oracle_plays import _gnubg_oracle, _gnubg_sides
from tests.gnubg_runner import run_gnubg_script

Policy = Callable[[Position, Position], float]


def _made_points(before: Position, after: Position) -> float:
    """Points held with two or more checkers (a priming player)."""
    return sum(1 for c in after.board[1:25] if c >= 2)


POLICIES: dict[str, Policy] = {
    "random": lambda before, after: 0.0,
    "hitter": lambda before, after: after.their_bar - before.their_bar,
    "primer": _made_points,
    "racer": lambda before, after: -after.my_pips,
}


def _choose(
    rng: random.Random, position: Position, results: list[Position], policy: str
) -> Position:
    """One of the best results by ``policy``, ties broken at random."""
    score = POLICIES[policy]
    best = max(score(position, r) for r in results)
    return rng.choice([r for r in results if score(position, r) == best])


def sample_positions(count: int, seed: int) -> list[Position]:
    """``count`` distinct positions (player on roll's view) from games of mixed policies."""
    rng = random.Random(seed)
    seen: dict[str, Position] = {}
    while len(seen) < count:
        policies = (rng.choice(list(POLICIES)), rng.choice(list(POLICIES)))
        position, side = Position.initial(), 0
        while len(seen) < count:
            if rng.random() < 0.3:
                seen.setdefault(position.position_id, position)
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            results = [play.result for play in legal_plays(position, dice)]
            if results:
                position = _choose(rng, position, results, policies[side])
            if position.my_off == 15:
                break
            position, side = position.swap(), 1 - side
    return list(seen.values())


def check_plays(count: int, seed: int, processes: int, workdir: Path) -> list[str]:
    """Check 1: legal plays and Position IDs of ``count`` positions x 21 rolls."""
    positions = sample_positions(count, seed)
    pairs = [(p, roll) for p in positions for roll in ALL_ROLLS]
    lines = [f"{p.position_id} {a}{b}" for p, (a, b) in pairs]
    start = time.monotonic()
    rows = _oracle_in_processes(lines, workdir, processes)
    stats: Counter[str] = Counter()
    problems: list[str] = []
    for (position, dice), row in zip(pairs, rows, strict=True):
        stats["pairs"] += 1
        if row["id"] != position.position_id or row["board"] != _gnubg_sides(position):
            problems.append(f"position ID {position.position_id}: gnubg read {row['id']}")
        plays = legal_plays(position, dice)
        ours = {play.result.position_id for play in plays}
        theirs = {pid for _, pid in row["plays"]}
        if ours != theirs:
            problems.append(
                f"plays {position.position_id} {dice}: hakem-only {sorted(ours - theirs)[:3]},"
                f" gnubg-only {[m for m, p in row['plays'] if p not in ours][:3]}"
            )
        for text, pid in row["plays"]:
            stats["plays"] += 1
            if position.apply_steps(parse_move(text)).position_id != pid:
                problems.append(f"notation {position.position_id} {dice}: {text!r}")
        _count(stats, position, dice, plays)
    print(f"plays: seed {seed}, {len(positions)} positions x 21 rolls in"
          f" {time.monotonic() - start:.0f} s: {dict(stats)}")
    return problems


def _oracle_in_processes(
    lines: list[str], workdir: Path, processes: int
) -> list[dict[str, Any]]:
    """gnubg's plays of every line (the committed test's oracle, in ``processes`` gnubgs)."""
    import tests.engine.backgammon.test_oracle_plays as plays_test

    plays_test.GNUBG_PROCESSES = processes
    return _gnubg_oracle(lines, workdir)  # type: ignore[return-value]


def _count(
    stats: Counter[str], position: Position, dice: tuple[int, int], plays: list[Any]
) -> None:
    """Tally what the pair exercises."""
    a, b = dice
    stats["bar"] += position.my_bar > 0
    stats["bear_off"] += any(p.result.my_off > position.my_off for p in plays)
    stats["hits"] += any(p.result.their_bar > position.their_bar for p in plays)
    stats["no_move"] += not plays
    used = max_dice_playable(position, dice)
    if a == b:
        stats["doubles_partial"] += 0 < used < 4
    elif used == 1:
        stats["one_die"] += 1
        both = bool(legal_plays(position, (a, a))) and bool(legal_plays(position, (b, b)))
        stats["higher_die"] += both


# --- random matches -------------------------------------------------------------------------

LENGTHS = (1, 1, 2, 3, 3, 5, 5, 7, 9, 11)


def random_match(seed: int) -> tuple[int, list[Event], MatchState]:
    """A complete match of random play and random cube and resignation decisions."""
    rng = random.Random(seed)
    length = rng.choice(LENGTHS)
    p_double, p_take = rng.choice((0.02, 0.1, 0.3)), rng.random()
    p_resign = rng.choice((0.001, 0.003, 0.01))
    state = new_match(length)
    events: list[Event] = []

    def do(event: Event) -> None:
        nonlocal state
        state = apply(state, event)
        events.append(event)

    while state.phase is not Phase.MATCH_OVER:
        if state.phase is Phase.GAME_OVER:
            do(NextGame())
        elif state.phase is Phase.OPENING:
            do(OpeningRoll((rng.randint(1, 6), rng.randint(1, 6))))
        elif rng.random() < p_resign and (
            state.phase is not Phase.MOVE or len(legal_results(state)) > 1
        ):
            # Not after a roll with no play or one forced play: gnubg's import passes or plays
            # it before the resignation (its own play passes at once, too).
            player = state.to_act if rng.random() < 0.8 else 1 - (state.to_act or 0)
            do(Resign(player or 0, rng.choice(list(WinKind))))
        elif state.phase is Phase.DOUBLED:
            do(Take() if rng.random() < p_take else Drop())
        elif state.phase is Phase.DECIDE:
            # gnubg 1.07 crashes importing cubes of 512 and more: 64 at most.
            double = state.cube.value < 64 and may_double(state) is None
            do(Double() if double and rng.random() < p_double
               else Roll((rng.randint(1, 6), rng.randint(1, 6))))
        else:
            boards = sorted(legal_results(state))
            result = Position(rng.choice(boards)) if boards else state.position
            do(Move(result))
    return length, events, state


_IMPORT_EXPORT = """
import gnubg, json
""" + _DUMP + """
for path in json.load(open(FILES_JSON)):
    gnubg.command('import mat ' + path)
    dump(path)
    gnubg.command('export match mat ' + path + '.gnubg.mat')
"""


def _agree(name: str, result: Replay, item: dict[str, Any]) -> list[str]:
    """hakem's replay against gnubg's view of the same file."""
    problems = []
    for check in (check_games, check_records, check_ids):
        try:
            check(name, result, item)
        except (AssertionError, KeyError) as error:
            problems.append(f"{name}: {check.__name__} {error!r}"[:400])
    return problems


def _same_play(a: Replay, b: Replay) -> bool:
    """Two replays with the same games, moves, results and final score."""
    def key(r: Replay) -> list[Any]:
        return [(g.start_score, g.crawford, g.result,
                 [(t.player, t.dice, t.result.position_id) for t in g.turns],
                 [(s.kind, s.player) for s in g.snapshots]) for g in r.games]

    return key(a) == key(b) and a.final_score == b.final_score


def check_matches(count: int, seed: int, workdir: Path) -> list[str]:
    """Check 2 and 3: random matches written by hakem, imported and exported by gnubg."""
    problems: list[str] = []
    gnubg_faults: list[str] = []  # gnubg's export that gnubg itself imports otherwise
    paths: dict[str, tuple[int, MatchState, Replay]] = {}
    stats: Counter[str] = Counter()
    for i in range(count):
        length, events, state = random_match(seed + i)
        record = record_from_events(events, length=length, players=("Ali", "Veli"))
        path = workdir / f"m{seed + i}.mat"
        path.write_text(format_mat(record), encoding="utf-8")
        result = replay(parse_mat_bytes(path.read_bytes()))
        if not result.legal or result.state.results != state.results:
            problems.append(f"match {seed + i}: hakem's own replay differs: {result.problem}")
        paths[str(path)] = (seed + i, state, result)
        stats["games"] += len(state.results)
        stats[f"length {length}"] += 1
        for r in state.results:
            stats[f"{r.how.value} {r.kind.name.lower()}"] += 1
            stats["cube>1"] += r.cube_value > 1
        stats["crawford"] += sum(g.crawford for g in result.games)
    files = workdir / "files.json"
    files.write_text(json.dumps(list(paths)), encoding="utf-8")
    start = time.monotonic()
    views = _views(run_gnubg_script(_IMPORT_EXPORT.replace("FILES_JSON", repr(str(files)))),
                   len(paths))
    exports = [Path(p + ".gnubg.mat") for p in paths]
    export_views = _views(run_gnubg_script(
        _IMPORT_EXPORT.replace("FILES_JSON", repr(str(_json(workdir, exports))))), len(exports))
    for path, (match_seed, _state, result) in paths.items():
        name = f"match {match_seed}"
        item = views[path]
        problems += _agree(name, result, item)
        stats["records"] += sum(len(g["records"]) for g in item["games"])
        export = export_views[path + ".gnubg.mat"]
        if cube_and_moves(export) != cube_and_moves(item):
            gnubg_faults.append(f"{name}: gnubg imports its own export otherwise")
            continue
        exported = _read(Path(path + ".gnubg.mat"), f"{name} (gnubg export)", problems)
        if exported is not None:
            if not _same_play(exported, result):
                problems.append(f"{name}: gnubg's export replays to other games than hakem's")
            problems += _agree(f"{name} (gnubg export)", exported, export)
    print(f"matches: seeds {seed}..{seed + count - 1} in {time.monotonic() - start:.0f} s:"
          f" {dict(sorted(stats.items()))}")
    for line in gnubg_faults:
        print("GNUBG", line)
    return problems


def _read(path: Path, name: str, problems: list[str]) -> Replay | None:
    """hakem's replay of a file gnubg wrote, or None (and a problem) if it fails."""
    try:
        result = replay(parse_mat_bytes(path.read_bytes()))
    except RecordFormatError as error:
        problems.append(f"{name}: hakem cannot read it: {error}")
        return None
    if not result.legal:
        problems.append(f"{name}: does not replay: {result.problem}")
        return None
    return result


def _json(workdir: Path, paths: list[Path]) -> Path:
    out = workdir / "exports.json"
    out.write_text(json.dumps([str(p) for p in paths]), encoding="utf-8")
    return out


_SELFPLAY = """
import gnubg, json
""" + _DUMP + """
for seed, length, path in json.load(open(JOBS_JSON)):
    for command in ('set rng mersenne', 'set player 0 human', 'set player 1 human',
                    'set display off', 'set automatic game on', 'set seed %d' % seed,
                    'new match %d' % length):
        gnubg.command(command)
    for player in (0, 1):
        gnubg.command('set player %d gnubg' % player)
        gnubg.command('set player %d chequerplay evaluation plies 0' % player)
        gnubg.command('set player %d cubedecision evaluation plies 0' % player)
    gnubg.command('play')
    dump(path)
    gnubg.command('export match mat ' + path)
"""


def check_selfplay(count: int, seed: int, workdir: Path) -> list[str]:
    """gnubg's own matches: hakem reads each export and agrees on every record."""
    rng = random.Random(seed)
    jobs = [(seed + i, rng.choice(LENGTHS), str(workdir / f"s{seed + i}.mat"))
            for i in range(count)]
    jobs_json = workdir / "jobs.json"
    jobs_json.write_text(json.dumps(jobs), encoding="utf-8")
    start = time.monotonic()
    views = _views(run_gnubg_script(_SELFPLAY.replace("JOBS_JSON", repr(str(jobs_json)))), count)
    problems: list[str] = []
    stats: Counter[str] = Counter()
    for match_seed, _length, path in jobs:
        result = _read(Path(path), f"self-play {match_seed}", problems)
        if result is None:
            continue
        problems += _agree(f"self-play {match_seed}", result, views[path])
        stats["games"] += len(result.games)
        stats["records"] += sum(len(g["records"]) for g in views[path]["games"])
        stats["resigned"] += sum(g["info"]["resigned"] for g in views[path]["games"])
        stats["crawford"] += sum(g.crawford for g in result.games)
    print(f"selfplay: seeds {seed}..{seed + count - 1} in {time.monotonic() - start:.0f} s:"
          f" {dict(stats)}")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Run the checks and print the figures; exit 1 on any disagreement."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("plays", "matches", "selfplay"), action="append")
    parser.add_argument("--positions", type=int, default=3000)
    parser.add_argument("--position-seed", type=int, default=4000)
    parser.add_argument("--processes", type=int, default=6)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--match-seed", type=int, default=5000)
    parser.add_argument("--selfplay", type=int, default=20)
    parser.add_argument("--selfplay-seed", type=int, default=6000)
    args = parser.parse_args(argv)
    only = set(args.only or ("plays", "matches", "selfplay"))
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="hakem-oracle-") as tmp:
        work = Path(tmp)
        if "plays" in only:
            problems += check_plays(args.positions, args.position_seed, args.processes, work)
        if "matches" in only:
            problems += check_matches(args.matches, args.match_seed, work)
        if "selfplay" in only:
            problems += check_selfplay(args.selfplay, args.selfplay_seed, work)
    for line in problems:
        print("DISAGREE", line)
    print(f"{len(problems)} disagreement(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
