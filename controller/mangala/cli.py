"""``hakem demo --game mangala`` on the command line (``controller.cli.table_commands`` hands
the parsed arguments over): a whole rendered round refereed by the full pipeline, the live log
on stdout, a progress line on stderr, a summary (``--json``: one object); ``--publish URL --table
ID`` publishes it to the hub as the backgammon demo does (the link checked by the caller). Run
again with the same ``--out`` it resumes the round, or, the round's end journalled, says so and
plays nothing."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli.common import CommandError, emit_json, wants_json
from controller.cli.table_commands import DIRECTOR_ENDED
from controller.mangala.demo import MangalaDemoOptions, run_mangala_demo
from controller.mangala.records import RECORD_NAME

if TYPE_CHECKING:
    from controller.hub.link import LinkConfig


def demo_command(args: argparse.Namespace, publish: LinkConfig | None = None) -> int:
    """``hakem demo --game mangala``: a whole rendered round refereed by the full pipeline;
    ``publish``: the hub link ``--publish URL --table ID`` gave, checked."""
    if args.match or args.invalid_throws:
        raise CommandError("demo --game mangala takes --illegal, --seed, --out, --quiet and "
                           "the hub's options (--publish, --table, ...), not --match or "
                           "--invalid-throws")
    options = MangalaDemoOptions(out=Path(args.out), illegal=args.illegal, seed=args.seed,
                                 publish=publish)
    quiet = args.quiet or wants_json(args)
    stats = run_mangala_demo(options, log=None if quiet else sys.stdout,
                             progress=None if wants_json(args) else sys.stderr)
    fps = stats.frames / stats.seconds if stats.seconds else 0.0
    summary = {
        "out": str(options.out),
        "journal": str(options.out / "journal.jsonl"),
        "record": str(options.out / RECORD_NAME),
        "frames": stats.frames,
        "reads": stats.reads,
        "renders": stats.renders,
        "sowings": stats.sowings,
        "seconds": round(stats.seconds, 1),
        "fps": round(fps, 1),
        # planted in this run: a resumed run counts only the illegal sowings it planted itself
        "planted_illegal": stats.planted_illegal,
        "flagged_illegal": stats.planted_flagged,
        "planted_illegal_in_match": stats.planted_in_round,
        "sowings_in_match": stats.round_sowings,
        "resumed_from_sowing": stats.resumed_from_sowing,
        "already_finished": stats.already_finished,
        "ended_by_director": stats.ended_by_director,
        "players_stopped": stats.players_stopped,
        "missed_illegal": len(stats.planted_missed),
        "other_flags": len(stats.unplanted_flags),
    }
    if wants_json(args):
        emit_json(summary)
    elif stats.already_finished:
        print(f"The round in {options.out} is already finished (its journal holds the round's "
              f"end): nothing to play. Its record: {summary['record']}; another --out, or "
              f"removing {options.out}, plays it again.")
    elif stats.players_stopped and not stats.frames:  # resumed after such a stop
        print(stats.players_stopped)
    else:
        sys.stderr.write("\n")
        flagged = ("planted illegal sowings flagged" if stats.resumed_from_sowing is None else
                   f"resumed at sowing {stats.resumed_from_sowing} of {stats.round_sowings}; "
                   "illegal sowings planted in this run flagged")
        print(f"Done in {summary['seconds']} s ({stats.frames} frames, {fps:.1f} frames/s); "
              f"{flagged}: {stats.planted_flagged}/{stats.planted_illegal}; "
              f"{summary['journal']}, {summary['record']}")
        if stats.ended_by_director:
            print(DIRECTOR_ENDED.format(what="round"))
        if stats.players_stopped:
            print(stats.players_stopped)
    return 0


__all__ = ["demo_command"]
