"""The whole table on real matches: ``hakem demo``'s pipeline (rendered frames, stillness gate,
board/dice/cube readers, the referee, the simulated clock and LEDs) plays each match with
planted illegal moves and invalid throws, and prints one row per match.

Per match it checks what issue 7 asks: the ``match.mat`` written from the journal imports in
GNU Backgammon exactly like the source match (every move, dice, cube action, result, score);
every planted fault is flagged before the opponent's next throw; no legal move is flagged. It
also counts what went wrong elsewhere: "throw again" flags nobody planted, rolls read with other
numbers (the director set the dice), "cannot read" announcements, matches that stalled.

    .venv/bin/python -m tests.eval.referee_matches [--count 20] [--illegal 2] [--invalid 3]
    .venv/bin/python -m tests.eval.referee_matches --match 969418 --match 4908862
    .venv/bin/python -m tests.eval.referee_matches --seed0 100   # other faults, other throws

``--match`` plays only the named matches (a number or a file name of :data:`MATCHES`), each
with the seed it has in the whole run, so a match's row is the same either way.

Columns: illegal moves flagged/planted; invalid throws flagged/planted per kind; ``acc``
planted invalid throws counted as a valid roll (the dice reader saw nothing wrong); ``false``
"throw again" nobody planted; ``legal!`` legal moves flagged; ``misread`` rolls counted with
other numbers (the director set the dice); ``dir`` throws the referee could not judge, where
the director stepped in (entered the dice of a valid throw, or had a planted invalid one thrown
again: that fault also counts as not flagged); ``cantread`` "cannot read" announcements;
``mat=gnubg`` the written record imports in GNU Backgammon exactly like the source.

The matches are the shortest complete real matches of ``../shared/data/matches/`` (MIT) that a
table can see (no resignation, no opening double): :data:`MATCHES`, in that order.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.demo.harness import DemoStalled
from controller.demo.script import INVALID_KINDS, InvalidKind, build_script
from controller.demo.table import DemoOptions, DemoTable
from controller.records.journal import read_journal
from engine.backgammon.position import Position
from engine.errors import InvalidInputError
from tests.conftest import SHARED_DATA
from tests.controller.referee.gnubg_compare import gnubg_facts

SHARED = SHARED_DATA / "matches"
# The 20 shortest complete matches (fewest moves; ``load_match`` accepts them), shortest first.
MATCHES: tuple[str, ...] = (
    "match910138.txt", "match8062348.txt", "match5609185.txt", "match969418.txt",
    "match3608575.txt", "match5174678.txt", "match6207483.txt", "match5560638.txt",
    "match4908862.txt", "match7986278.txt", "match1090480.txt", "match884846.txt",
    "match4525984.txt", "match9311372.txt", "match2494707.txt", "match2753758.txt",
    "match5879255.txt", "match6711953.txt", "match4955618.txt", "match6036606.txt",
)


@dataclass
class MatchResult:
    """What happened on one match."""

    name: str
    moves: int = 0
    games: int = 0
    seconds: float = 0.0
    frames: int = 0
    planted_illegal: int = 0
    flagged_illegal: int = 0
    planted_invalid: Counter[str] = field(default_factory=Counter)
    flagged_invalid: Counter[str] = field(default_factory=Counter)
    illegal_in_time: bool = True  # every illegal_move flag came before the opponent's throw
    legal_flagged: int = 0  # illegal_move flags on a result nobody planted
    false_throw_again: int = 0
    accepted_invalid: Counter[str] = field(default_factory=Counter)  # counted as a valid roll
    misread_rolls: int = 0
    director_dice: int = 0
    cannot_read: int = 0
    stalled: str = ""
    mat_equal: bool | None = None  # None: not compared (stalled, or gnubg not run)
    out: Path | None = None
    press_ms: list[float] = field(default_factory=list)

    @property
    def missed(self) -> int:
        """Planted faults that were not flagged."""
        return (self.planted_illegal - self.flagged_illegal
                + sum(self.planted_invalid.values()) - sum(self.flagged_invalid.values()))

    @property
    def ok(self) -> bool:
        """Everything issue 7 asks of this match held."""
        return (not self.stalled and self.mat_equal is True and self.missed == 0
                and self.illegal_in_time and self.legal_flagged == 0
                and self.false_throw_again == 0)


def _illegal_in_time(entries: list[dict[str, Any]]) -> bool:
    """Each illegal_move is followed by its correction and the mover's move before anybody's
    next throw or double (TTB-4.8: flagged while it can still be corrected)."""
    for i, e in enumerate(entries):
        if e["type"] != "illegal_move":
            continue
        later = entries[i + 1:]
        nxt = next((x for x in later if x["type"] in ("roll", "double", "game_end")), None)
        if nxt is None:
            return False
        between = later[: later.index(nxt)]
        if not (any(x["type"] == "correction" for x in between)
                and any(x["type"] == "move" and x["player"] == e["player"] for x in between)):
            return False
    return True


def run_match(path: Path, out: Path, *, seed: int, illegal: int, invalid: int,
              kinds: tuple[InvalidKind, ...], record: bool = False) -> MatchResult:
    """Play one match through the demo pipeline and check its journal (not yet gnubg);
    ``record``: keep its recording in ``out`` (``hakem replay`` plays it again)."""
    result = MatchResult(path.name, out=out)
    script = build_script(path, illegal=illegal, invalid_throws=invalid, seed=seed,
                          invalid_kinds=kinds)
    result.games = len(script.games)
    result.moves = sum(1 for g in script.games for a in g.acts if a.kind == "move")
    planted = {a.illegal.position_id for g in script.games for a in g.acts
               if a.illegal is not None}
    result.planted_illegal = len(planted)
    result.planted_invalid = Counter(str(a.invalid) for g in script.games for a in g.acts
                                     if a.invalid is not None)
    shutil.rmtree(out, ignore_errors=True)
    options = DemoOptions(match=path, out=out, illegal=illegal, invalid_throws=invalid,
                          seed=seed, invalid_kinds=kinds, record=record)
    start = time.perf_counter()
    with open(os.devnull, "w") as sink, DemoTable(options, log=sink) as table:
        try:
            stats = table.run()
        except DemoStalled as exc:
            result.stalled = str(exc)
            stats = table.stats
        result.press_ms = list(table.pipeline.timings.press_ms)
        result.frames = table.stats.frames
    result.seconds = time.perf_counter() - start
    result.flagged_illegal = stats.planted_illegal_flagged
    missed_kinds = Counter(str(m["kind"]) for m in stats.planted_invalid_missed
                           if "kind" in m)
    result.flagged_invalid = result.planted_invalid - missed_kinds
    if result.stalled:  # faults after the stall were never reached
        result.flagged_invalid = Counter()
    result.accepted_invalid = Counter(
        str(m["kind"]) for m in stats.planted_invalid_missed
        if isinstance(m.get("read"), dict) and m["read"].get("type") == "roll")
    result.false_throw_again = len(stats.unplanted_flags)
    result.misread_rolls = len(stats.misread_rolls)
    result.director_dice = stats.director_dice + stats.director_rethrows
    entries = read_journal(out / "journal.jsonl").entries
    result.cannot_read = sum(1 for e in entries if e["type"] == "cannot_read")
    result.illegal_in_time = _illegal_in_time(entries)
    for e in entries:
        if e["type"] == "illegal_move":
            pos = Position.from_id(e["position_id"])
            if (pos if e["player"] == 0 else pos.swap()).position_id not in planted:
                result.legal_flagged += 1
    return result


def compare_with_gnubg(results: list[MatchResult], folder: Path) -> None:
    """Import every source match and every written ``match.mat`` in one gnubg run and set each
    result's ``mat_equal``."""
    pairs = [(SHARED / r.name, r.out / "match.mat") for r in results
             if not r.stalled and r.out is not None and (r.out / "match.mat").is_file()]
    if not pairs:
        return
    seen = gnubg_facts([p for pair in pairs for p in pair])
    for r in results:
        if r.stalled or r.out is None:
            continue
        source, written = seen.get(str(SHARED / r.name)), seen.get(str(r.out / "match.mat"))
        r.mat_equal = source is not None and written is not None and source == written


def match_seed(name: str) -> int:
    """The seed a match is played with: its index in :data:`MATCHES` (the same whether it is
    played alone or with the others)."""
    if name not in MATCHES:
        raise InvalidInputError(f"unknown match {name!r}: not one of the evaluation's MATCHES")
    return MATCHES.index(name)


def pick_matches(wanted: list[str]) -> tuple[str, ...]:
    """The matches of :data:`MATCHES` named by number (``969418``), stem (``match969418``) or
    file name, in the order given."""
    out = []
    for want in wanted:
        stem = Path(want).stem
        name = f"{stem}.txt" if stem.startswith("match") else f"match{stem}.txt"
        match_seed(name)
        out.append(name)
    return tuple(out)


def evaluate(names: tuple[str, ...] = MATCHES, *, folder: Path, illegal: int = 2,
             invalid: int = 3, kinds: tuple[InvalidKind, ...] = INVALID_KINDS,
             gnubg: bool = True, progress: Any = None, seed0: int = 0,
             record: bool = False) -> list[MatchResult]:
    """Play ``names`` (seed = ``seed0`` + the match's index in :data:`MATCHES`: another
    ``seed0`` plants other faults and throws other dice) and compare their records through
    gnubg (``record``: keep each match's recording beside its journal)."""
    results = []
    for name in names:
        r = run_match(SHARED / name, folder / Path(name).stem, seed=seed0 + match_seed(name),
                      illegal=illegal, invalid=invalid, kinds=kinds, record=record)
        results.append(r)
        if progress is not None:
            stall = f"  STALLED: {r.stalled}" if r.stalled else ""
            progress.write(f"{name}: {r.seconds:.1f} s{stall}\n")
            progress.flush()
    if gnubg:
        compare_with_gnubg(results, folder)
    return results


def _kinds(counter: Counter[str], of: Counter[str]) -> str:
    return " ".join(f"{k[:4]}{counter[k]}/{of[k]}" for k in sorted(of)) or "-"


def table(results: list[MatchResult]) -> str:
    """One row per match and a total."""
    head = (f"{'match':18} {'moves':>5} {'s':>6} {'fps':>5} {'illegal':>7} "
            f"{'invalid (flagged/planted)':28} {'acc':>3} {'false':>5} {'legal!':>6} "
            f"{'misread':>7} {'dir':>3} {'cantread':>8} {'mat=gnubg':>9}")
    lines = [head, "-" * len(head)]
    for r in results:
        fps = r.frames / r.seconds if r.seconds else 0.0
        mat = "-" if r.mat_equal is None else ("yes" if r.mat_equal else "NO")
        lines.append(
            f"{r.name:18} {r.moves:5d} {r.seconds:6.1f} {fps:5.1f} "
            f"{r.flagged_illegal:>3}/{r.planted_illegal:<3} "
            f"{_kinds(r.flagged_invalid, r.planted_invalid):28} "
            f"{sum(r.accepted_invalid.values()):3d} {r.false_throw_again:5d} "
            f"{r.legal_flagged:6d} {r.misread_rolls:7d} {r.director_dice:3d} {r.cannot_read:8d} "
            f"{mat:>9}"
            + (f"  STALLED: {r.stalled}" if r.stalled else ""))
    planted_i = sum((r.planted_invalid for r in results), Counter())
    flagged_i = sum((r.flagged_invalid for r in results), Counter())
    lines.append("-" * len(head))
    lines.append(
        f"{'total':18} {sum(r.moves for r in results):5d} "
        f"{sum(r.seconds for r in results):6.1f} {'':5} "
        f"{sum(r.flagged_illegal for r in results):>3}/"
        f"{sum(r.planted_illegal for r in results):<3} {_kinds(flagged_i, planted_i):28} "
        f"{sum(sum(r.accepted_invalid.values()) for r in results):3d} "
        f"{sum(r.false_throw_again for r in results):5d} "
        f"{sum(r.legal_flagged for r in results):6d} "
        f"{sum(r.misread_rolls for r in results):7d} "
        f"{sum(r.director_dice for r in results):3d} "
        f"{sum(r.cannot_read for r in results):8d} "
        f"{sum(1 for r in results if r.mat_equal)}/{len(results)}")
    lines.append(f"matches with everything right: {sum(1 for r in results if r.ok)}/{len(results)}"
                 f"; stalled: {sum(1 for r in results if r.stalled)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=len(MATCHES), help="the first N matches")
    parser.add_argument("--match", action="append", default=[],
                        help="only this match (number or file name; repeatable)")
    parser.add_argument("--illegal", type=int, default=2, help="illegal moves per match")
    parser.add_argument("--invalid", type=int, default=3, help="invalid throws per match")
    parser.add_argument("--kinds", default=",".join(INVALID_KINDS),
                        help="invalid throw kinds: cocked,wrong-half,on-checker")
    parser.add_argument("--out", help="keep each match's journal and match.mat here")
    parser.add_argument("--no-gnubg", action="store_true", help="skip the gnubg comparison")
    parser.add_argument("--record", action="store_true",
                        help="keep each match's recording under --out (to replay a failure)")
    parser.add_argument("--seed0", type=int, default=0,
                        help="added to every match's seed (other faults, other throws)")
    args = parser.parse_args(argv)
    if args.record and not args.out:
        parser.error("--record keeps the recordings under --out: give --out DIR")
    kinds = tuple(k for k in INVALID_KINDS if k in args.kinds.split(","))
    folder = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="hakem-eval-"))
    names = pick_matches(args.match) if args.match else MATCHES[: args.count]
    results = evaluate(names, folder=folder, illegal=args.illegal,
                       invalid=args.invalid, kinds=kinds,
                       gnubg=not args.no_gnubg, progress=sys.stderr, seed0=args.seed0,
                       record=args.record)
    print(table(results))
    press = sorted(ms for r in results for ms in r.press_ms)
    if press:
        print(f"clock press to verdict: median {press[len(press) // 2]:.1f} ms, "
              f"worst {press[-1]:.1f} ms over {len(press)} presses")
    if not args.out:
        shutil.rmtree(folder, ignore_errors=True)
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
