"""Subcommands of ``hakem`` for the table: ``run`` (the live table), ``demo`` (a real match
played by simulated players in front of the full pipeline) and ``replay`` (a recording through
the same pipeline)."""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
from pathlib import Path
from typing import Any

from controller.cli.broker_options import add_broker_options, broker_link, given_broker_options
from controller.cli.common import (
    CommandError,
    add_command,
    check_out_folder,
    emit_json,
    non_negative_int,
    refuse_journal,
    wants_json,
)
from engine.errors import DeviceError

_DEMO_EPILOG = """\
examples:
  hakem demo                               # the bundled match, into ./hakem-demo
  hakem demo --illegal 2 --invalid-throws 2 --seed 7
  hakem demo --match my-match.mat --out /tmp/demo
  hakem demo --publish mqtt://localhost:1883 --table 4
  hakem demo --game mangala --publish mqtt://localhost:1883 --table 5
  hakem demo --publish mqtts://table4@hub.local --table 4 --ca hall-ca.crt \\
      --broker-password-file hub-password --tournament izmir-2026
Restarting with the same --out resumes the match from its journal, given the options it
was started with (DIR/demo.json keeps them; other ones are refused); a match whose
journal holds its end is not played again (another --out, or removing DIR, plays it).
A director's action (hakem director --folder DIR, or the hub's end of the match when
publishing) is taken between frames, as at a live table.
"""


# said after the summary of a demo a director's request ended (the hub's dashboard, hakem director)
DIRECTOR_ENDED = ("The director ended the {what} before the players' script did (the live log "
                  "says how); the journal and the record stop there.")


def register(subparsers: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``run``, ``demo`` and ``replay`` to ``hakem``."""
    run = add_command(subparsers, "run", parents,
                      "the live table: camera, clock, LEDs, journal and hub around the referee")
    run.add_argument("--config", metavar="FILE", help="the table's TOML configuration "
                     "(default: every setting's default)")
    run.set_defaults(func=_run)

    demo = add_command(subparsers, "demo", parents,
                       "a whole real match, rendered frame by frame and refereed by the full "
                       "pipeline with a simulated clock and LEDs")
    demo.epilog = _DEMO_EPILOG
    demo.formatter_class = argparse.RawDescriptionHelpFormatter
    demo.add_argument("--game", choices=("backgammon", "mangala"), default="backgammon",
                      help="the game to play (default %(default)s)")
    demo.add_argument("--match", metavar="FILE.mat", help="a Jellyfish .mat match played to "
                      "its end (a game resigned is entered by the director, as at a table; a "
                      "record that stops before the match is over is refused) (default: the "
                      "bundled sample)")
    demo.add_argument("--out", metavar="DIR", default="hakem-demo",
                      help="where journal.jsonl, match.mat, snapshots and the recording go "
                      "(default ./%(default)s)")
    demo.add_argument("--illegal", type=non_negative_int, default=0, metavar="N",
                      help="illegal moves the players make and correct when flagged "
                      "(default %(default)s)")
    demo.add_argument("--invalid-throws", type=non_negative_int, default=0, metavar="N",
                      help="throws that land invalidly (BG-ROLL-2) and are thrown again "
                      "(default %(default)s)")
    demo.add_argument("--seed", type=non_negative_int, default=0, metavar="S",
                      help="random seed, 0 or more: the same seed plays the same demo "
                      "(default %(default)s)")
    demo.add_argument("--publish", metavar="URL", help="publish to the hub's MQTT broker "
                      "(with --table; mqtt://[user[:password]@]host[:port] or mqtts://...)")
    demo.add_argument("--table", metavar="ID", help="the table's ID on the hub")
    demo.add_argument("--tournament", metavar="ID",
                      help="the tournament in the hub's topics (default default)")
    add_broker_options(demo)
    demo.add_argument("--quiet", action="store_true",
                      help="no live log on stdout, only the summary (the progress line still "
                      "goes to stderr, as does a hub's broker that cannot be reached; --json "
                      "has no progress line)")
    demo.set_defaults(func=_demo)

    rep = add_command(subparsers, "replay", parents,
                      "the table pipeline on recorded frames and clock events (deterministic)")
    rep.add_argument("recording", metavar="RECORDING", help="a recording folder "
                     "(hakem demo, backgammon, writes one to DIR/recording)")
    rep.add_argument("--out", metavar="DIR", help="where the replay's journal goes "
                     "(default RECORDING.replay)")
    rep.set_defaults(func=_replay)


def _run(args: argparse.Namespace) -> int:
    from controller.config.table import load_table_config
    from controller.records.journal import JOURNAL_NAME
    from controller.runtime.table import StopFlag, publisher_for, run_table

    config = load_table_config(args.config)
    check_out_folder(config.journal.directory, "the journal folder (journal.directory)")
    stop = StopFlag(threading.Event())  # set by SIGINT or SIGTERM: a stop asked for
    if config.match.game == "mangala":
        from controller.mangala.table import run_mangala_table

        entries = run_mangala_table(config, publisher_factory=publisher_for(config), stop=stop)
    else:
        entries = run_table(config, publisher_factory=publisher_for(config), stop=stop)
    journal = Path(config.journal.directory) / JOURNAL_NAME
    if not stop.is_set and not _match_ended(journal):
        # the camera gave out (a USB camera unplugged, a stream closed): a failure, so that
        # the service manager starts the table again (Restart=on-failure), which resumes
        raise DeviceError(f"the camera ({config.camera.source}) gave no more frames before the "
                          f"match ended; the journal is complete up to here ({journal}) and "
                          "hakem run resumes it")
    if wants_json(args):
        emit_json({"journal": str(journal), "entries": entries})
    return 0


def _match_ended(journal: Path) -> bool:
    """Whether the journal holds the match's (or the round's) end."""
    from controller.records.journal import read_journal

    return any(e.get("type") == "match_end" for e in read_journal(journal).entries)


def _demo(args: argparse.Namespace) -> int:
    check_out_folder(args.out, "--out")
    if (args.publish is None) != (args.table is None):
        raise CommandError("--publish URL and --table ID go together")
    extra = given_broker_options(args)
    if args.tournament is not None:
        extra.append("--tournament")
    if args.publish is None and extra:
        verb = "go" if len(extra) > 1 else "goes"
        raise CommandError(f"{', '.join(extra)} only {verb} with --publish URL --table ID")
    # a bad URL, table id, password file or CA file is refused before the match is opened
    link = hub_link(args) if args.publish is not None else None
    if args.game == "mangala":
        from controller.mangala.cli import demo_command

        return demo_command(args, link)
    from controller.demo.script import BUNDLED
    from controller.demo.table import DemoOptions, DemoTable

    options = DemoOptions(
        match=Path(args.match) if args.match else BUNDLED,
        out=Path(args.out),
        illegal=args.illegal,
        invalid_throws=args.invalid_throws,
        seed=args.seed,
        publish=link,
    )
    if args.match and options.match.is_dir():
        raise CommandError(f"--match {args.match} is a folder, not a match file")
    if args.match and not options.match.is_file():
        raise CommandError(f"no such match file: {args.match}")
    if args.match:
        refuse_journal(options.match.read_bytes().decode("utf-8", "replace"), args.match,
                       "a .mat match record", "the demo plays a .mat match (hakem export "
                       "JOURNAL --mat OUT.mat makes one of a backgammon table's journal)")
    quiet = args.quiet or wants_json(args)
    with DemoTable(options, log=None if quiet else sys.stdout,
                   progress=None if wants_json(args) else sys.stderr) as table:
        stats = table.run()
    fps = stats.frames / stats.seconds if stats.seconds else 0.0
    summary = {
        "out": str(options.out),
        "journal": str(options.out / "journal.jsonl"),
        "match": str(options.out / "match.mat"),
        "frames": stats.frames,
        "reads": stats.reads,
        "seconds": round(stats.seconds, 1),
        "fps": round(fps, 1),
        # planted in this run: a resumed run counts only the faults it planted itself
        "planted_illegal": stats.planted_illegal,
        "flagged_illegal": stats.planted_illegal_flagged,
        "planted_invalid_throws": stats.planted_invalid,
        "flagged_invalid_throws": stats.planted_invalid_flagged,
        "planted_illegal_in_match": options.illegal,
        "planted_invalid_throws_in_match": options.invalid_throws,
        "acts": stats.acts,
        "resumed_from_act": stats.resumed_from_act,
        "already_finished": stats.already_finished,
        "ended_by_director": stats.ended_by_director,
        "players_stopped": stats.players_stopped,
        "missed_illegal": len(stats.planted_illegal_missed),
        "missed_invalid_throws": len(stats.planted_invalid_missed),
        "director_dice": stats.director_dice,
        "misread_rolls": len(stats.misread_rolls),
        "other_flags": len(stats.unplanted_flags),
        "reading_ms_per_frame": stats.reading,
        "press_to_verdict_ms": {
            "median": round(statistics.median(stats.press_ms), 1) if stats.press_ms else None,
            "worst": round(max(stats.press_ms), 1) if stats.press_ms else None,
        },
    }
    if wants_json(args):
        emit_json(summary)
    elif stats.already_finished:
        print(f"The match in {options.out} is already finished (its journal holds the match's "
              f"end): nothing to play. Its record: {summary['match']}; another --out, or "
              f"removing {options.out}, plays it again.")
    elif stats.players_stopped and not stats.frames:  # resumed after such a stop
        print(stats.players_stopped)
    else:
        sys.stderr.write("\n")
        faults = ("planted faults flagged" if stats.resumed_from_act is None else
                  f"resumed at act {stats.resumed_from_act} of {stats.acts}; faults planted "
                  "in this run flagged")
        print(f"Done in {summary['seconds']} s ({stats.frames} frames, {fps:.1f} frames/s); "
              f"{faults}: {stats.planted_illegal_flagged}/"
              f"{stats.planted_illegal} illegal moves, {stats.planted_invalid_flagged}/"
              f"{stats.planted_invalid} invalid throws; {summary['journal']}, {summary['match']}")
        if stats.ended_by_director:
            print(DIRECTOR_ENDED.format(what="match"))
        if stats.players_stopped:
            print(stats.players_stopped)
        if stats.reading.get("frames"):
            r = stats.reading
            ratio = r["ratio"] if isinstance(r["ratio"], float) else 0.0
            print(f"Reading per still frame (CPU ms): board {r['board_ms']}, dice {r['dice_ms']} "
                  f"(read on {r['dice_frames']} of {r['frames']} frames), cube {r['cube_ms']}; "
                  f"dice and cube add {100 * ratio:.0f}% to the board's time (the aim: at most "
                  "30%)")
    return 0


def hub_link(args: argparse.Namespace) -> Any:
    """The demo table's link to the hub (``--publish URL --table ID`` and the broker options
    ``hakem hub`` takes), checked: a bad URL, table id or file raises, naming it."""
    try:
        from controller.hub.link import LinkConfig  # paho-mqtt, which publishing needs
    except ImportError as exc:
        raise CommandError(f"--publish needs the hub library: {exc}") from None
    from controller.hub.topics import check_id

    tournament = "default" if args.tournament is None else args.tournament
    base = LinkConfig(table=check_id(args.table, "table"),
                      tournament=check_id(tournament, "tournament"),
                      outbox=str(Path(args.out) / "hub-outbox.sqlite"))
    return broker_link(args, "--publish", "demo", base)


def _replay(args: argparse.Namespace) -> int:
    from controller.runtime.replay import replay

    folder = Path(args.recording)
    if folder.exists() and not folder.is_dir():
        raise CommandError(f"{folder} is a file, not a recording folder")
    if not folder.is_dir():
        raise CommandError(f"no such recording folder: {folder}")
    named = folder if folder.name else folder.resolve()  # "." has no name to add to
    out = check_out_folder(args.out or named.with_name(named.name + ".replay"), "--out")
    result = replay(folder, out, quiet=wants_json(args))
    if result.cut_short is not None:
        print(result.cut_short, file=sys.stderr)
    if wants_json(args):
        emit_json({"journal": str(result.journal), "entries": result.entries,
                   "frames": result.timings.frames, "reads": result.timings.reads})
    else:
        print(f"Replayed {result.timings.frames} frames: {result.entries} journal entries in "
              f"{result.journal}")
    return 0
