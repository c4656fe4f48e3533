"""``hakem export JOURNAL --mat OUT.mat``: the match record from a table's journal.

Writes the Jellyfish ``.mat`` text (GNU Backgammon imports it); ``--summary`` writes the match
summary JSON (score, games, flags, every move with its Position ID). Prints the summary as one
JSON object with ``--json``, a short account otherwise. A Mangala journal gives its round
record instead (``--round OUT.txt``: the ``round.txt`` the table writes); what that record
cannot hold (``controller.mangala.records.unheld``: a board taken for unseen turns, a set left
unscored by the director's end before its sweep) is a note on stderr, one line each, naming
the set and the turn.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from controller.cli.common import (
    CommandError,
    add_command,
    count,
    emit_json,
    one_line,
    refuse_clobbering,
    wants_json,
    write_output,
)
from controller.mangala.records import round_text, unheld
from controller.records.journal import JournalContents, read_journal
from controller.records.mat_export import export_match, position_ids
from engine.errors import HakemError


def register(subparsers: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``hakem export`` to ``hakem``."""
    export = add_command(
        subparsers,
        "export",
        parents,
        "the match record from a journal: Jellyfish .mat, per-move Position IDs, a summary",
    )
    export.add_argument("journal", metavar="JOURNAL", help="a table's journal.jsonl")
    export.add_argument("--mat", metavar="OUT.mat", help="write the match as Jellyfish .mat")
    export.add_argument(
        "--summary", metavar="OUT.json", help="write the match summary (with Position IDs) as JSON"
    )
    export.add_argument(
        "--round", metavar="OUT.txt",
        help="Mangala: write the round record (the round.txt the table writes)")
    export.set_defaults(func=run_export)


def run_export(args: argparse.Namespace) -> int:
    """Read the journal, fold it into the record, write what was asked."""
    path = Path(args.journal)
    if path.is_dir():
        raise CommandError(f"{path} is a directory, not a journal file")
    refuse_clobbering([("journal", args.journal)],
                      [("--mat", args.mat), ("--summary", args.summary), ("--round", args.round)])
    contents = read_journal(path)
    if not contents.entries:
        raise CommandError(f"{path} holds no journal entries")
    if contents.entries[0].get("game") == "mangala":
        return export_round(args, path, contents)
    if args.round:
        raise CommandError(f"--round is for a Mangala journal: {path} holds a backgammon match "
                           "(its record: --mat OUT.mat)")
    exported = export_match(contents.entries, str(path))
    note_torn_tail(path, contents)
    for note in exported.notes:
        print(f"hakem: note: {one_line(note)}", file=sys.stderr)
    summary = dict(exported.summary)
    summary["positions"] = position_ids(exported)
    if args.summary:
        write_output(args.summary, json.dumps(summary, ensure_ascii=False, indent=1) + "\n")
    if args.mat:
        if not exported.record.games:  # a .mat of a header alone: no program reads it
            how = summary.get("ended_by")
            why = (f"the match ended{f' by the {how}' if how else ''} before its first game"
                   if summary.get("finished") else
                   "the match is under way: its first game has no move yet")
            raise CommandError(f"no .mat written: no game was played in {path} ({why}); the "
                               "summary holds what there is")
        write_output(args.mat, exported.mat_text)
    if wants_json(args):
        emit_json(summary)
        return 0
    players = summary["players"]
    score = summary["final_score"]
    games = len([g for g in summary["games"] if g["result"] is not None])
    state = "finished" if summary["finished"] else "not finished"
    lines = [
        f"{players[0]} {score[0]} - {score[1]} {players[1]}"
        f" ({summary['length']}-point match, {count(games, 'game')} played, {state})",
        f"{count(len(summary['positions']), 'move')}, {count(len(summary['flags']), 'flag')}",
    ]
    if args.mat:
        lines.append(f"wrote {args.mat}")
    if args.summary:
        lines.append(f"wrote {args.summary}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def note_torn_tail(path: Path, contents: JournalContents) -> None:
    """Say on stderr that the journal's last line is torn (the table stopped while writing it)
    and not in the record."""
    if contents.torn_tail:
        print(one_line(f"hakem: note: {path}'s last line is torn (the table stopped while "
                       "writing it) and left out; the record runs to entry "
                       f"{contents.entries[-1].get('seq')}"), file=sys.stderr)


def export_round(args: argparse.Namespace, path: Path, contents: JournalContents) -> int:
    """A Mangala journal: its round record, as the table writes it, to ``--round``."""
    for option, value in (("--mat", args.mat), ("--summary", args.summary)):
        if value:
            raise CommandError(f"{option} is for backgammon journals: {path} is a Mangala "
                               "journal (its round record: --round OUT.txt)")
    entries = contents.entries
    text = checked_round_text(path, entries)
    note_torn_tail(path, contents)
    for note in unheld(entries):  # the record replays, but cannot hold this
        print(f"hakem: note: {one_line(note)}", file=sys.stderr)
    if args.round:
        write_output(args.round, text)
    players = [str(p) for p in entries[0].get("players") or ["a", "b"]]
    end = next((e for e in reversed(entries) if e.get("type") == "match_end"), None)
    winner = None if end is None else end.get("winner")
    sets = sum(1 for e in entries if e.get("type") == "game_end")
    if wants_json(args):
        emit_json({"game": "mangala", "players": players, "sets": sets,
                   "finished": end is not None, "winner": winner, "round": args.round})
        return 0
    state = ("not finished" if end is None else "drawn" if winner == "draw"
             else f"won by {players[0] if winner == 'a' else players[1]}")
    lines = [f"{players[0]} - {players[1]}: {count(sets, 'set')} played, {state}"]
    if args.round:
        lines.append(f"wrote {args.round}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def checked_round_text(path: Path, entries: list[dict[str, Any]]) -> str:
    """The round record as the table writes it (``round_text``); a journal it cannot take (an
    entry edited or damaged) is an error naming the first entry's line that breaks it."""
    try:
        return round_text(entries)
    except (HakemError, KeyError, TypeError, ValueError) as exc:
        first_error = exc
    for line in range(1, len(entries) + 1):  # entries are one per line
        try:
            round_text(entries[:line])
        except (HakemError, KeyError, TypeError, ValueError) as exc:
            first_error = exc
            break
    else:
        line = len(entries)
    reason = (f"no {first_error.args[0]!r}" if isinstance(first_error, KeyError)
              else str(first_error) if isinstance(first_error, HakemError)
              else f"malformed ({first_error})")
    raise CommandError(f"{path} line {line} ({entries[line - 1].get('type')}): {reason}; no "
                       "round record written")
