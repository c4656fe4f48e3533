"""``hakem export JOURNAL --mat OUT.mat``: the match record from a table's journal.

Writes the Jellyfish ``.mat`` text (GNU Backgammon imports it); ``--summary`` writes the match
summary JSON (score, games, flags, every move with its Position ID). Prints the summary as one
JSON object with ``--json``, a short account otherwise.
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
    refuse_clobbering,
    wants_json,
    write_output,
)
from controller.records.journal import read_journal
from controller.records.mat_export import export_match, position_ids


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
    export.set_defaults(func=run_export)


def run_export(args: argparse.Namespace) -> int:
    """Read the journal, fold it into the record, write what was asked."""
    path = Path(args.journal)
    if path.is_dir():
        raise CommandError(f"{path} is a directory, not a journal file")
    refuse_clobbering([("journal", args.journal)],
                      [("--mat", args.mat), ("--summary", args.summary)])
    contents = read_journal(path)
    if not contents.entries:
        raise CommandError(f"{path} holds no journal entries")
    exported = export_match(contents.entries, str(path))
    if contents.torn_tail:  # a crash while the last entry was written: it is not in the record
        print(f"hakem: note: {path}'s last line is torn (the table stopped while writing it) "
              f"and left out; the record runs to entry {contents.entries[-1].get('seq')}",
              file=sys.stderr)
    for note in exported.notes:
        print(f"hakem: note: {note}", file=sys.stderr)
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
