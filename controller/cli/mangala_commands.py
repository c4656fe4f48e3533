"""``hakem mangala play|judge|check``: the Mangala rules engine on the command line."""

from __future__ import annotations

import argparse
from typing import Any

from controller.cli.common import (
    CommandError,
    add_command,
    add_group,
    count,
    emit_json,
    read_stdin,
    read_utf8,
    refuse_journal,
    wants_json,
)
from engine.mangala.judge import judge
from engine.mangala.position import Position
from engine.mangala.record_check import check_record
from engine.mangala.record_reader import parse_record
from engine.mangala.sowing import explain, play

POSITION_HELP = (
    'a position as JSON text {"a": [6 ints], "a_store": n, "b": [6 ints], "b_store": n, '
    '"to_move": "a"|"b"}, or @FILE to read it from a file, or - to read it from stdin'
)

RECORD_FORMAT = """\
record lines (# starts a comment):
  player a NAME                     the players' names (optional)
  set 1 start a                     set 1 begins, a to move (MG-T-2 order is checked)
  1 a 4 -> a 4 4 4 1 5 5 [1] b 4 4 4 4 4 4 [0] next a
                                    set, mover, pit, the position after it; next is - once
                                    the set is over (the MG-4 sweep made)
  position 1 a 0 0 0 0 0 1 [20] b 4 4 4 4 4 3 [4] next a
                                    a director's correction during set 1: play goes on
                                    from this position (48 stones, MG-EQ-1)
  warning 1 b REASON                a warning (MG-T-4); the third in a round loses it
  timeout 3 b                       b's time ran out in set 3 (MG-CLOCK-3); b must be the
                                    player to move: only the mover's time runs (MG-CLOCK-2)
  set 1 end a 26 b 22 winner a      the set's result (optional, checked)
  director 2 end winner a REASON    a director ended the round during set 2: a wins
                                    (points a 1 b 0), REASON optional; nothing follows
  round end winner a points a 1 b 0 the round's result (optional, checked, MG-T-1)
"""


def register(subparsers: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``hakem mangala`` and its subcommands."""
    group = add_group(
        subparsers, "mangala", "Mangala rules: play a pit, judge a move, check a record"
    )

    play_cmd = add_command(
        group,
        "play",
        parents,
        'the position after the player to move sows PIT (MG-1..MG-4). JSON: {"position", '
        '"captured" (stones an MG-2/MG-3 capture put in the store, the capturing stone '
        'included), "extra_turn", "set_over", "winner"}',
    )
    play_cmd.add_argument("state", metavar="STATE", help=POSITION_HELP)
    play_cmd.add_argument(
        "pit",
        metavar="PIT",
        help="pit 1..6 of the player to move, numbered from that player's left",
    )
    play_cmd.set_defaults(func=run_play)

    judge_cmd = add_command(
        group,
        "judge",
        parents,
        "which pit turned BEFORE into AFTER, or what was wrong, with the rule ID. AFTER may "
        "omit to_move (or give null) when the turn is not known. Exit 0 with a verdict either "
        'way. JSON: {"legal", "mover", "pit", "pits", "rule", "reason", '
        '"sweep_pending", "closest_pit", "position" (the result when legal), "expected" '
        "(when illegal: the correct result of the closest pit)}",
    )
    judge_cmd.add_argument("before", metavar="BEFORE", help=POSITION_HELP)
    judge_cmd.add_argument("after", metavar="AFTER", help="the observed position, same forms")
    judge_cmd.set_defaults(func=run_judge)

    check_cmd = add_command(
        group,
        "check",
        parents,
        "replay a round record (plain text, one line per move) through the rules: every line "
        "legal or the first illegal one with its rule; sets, warnings and round points",
    )
    check_cmd.formatter_class = argparse.RawDescriptionHelpFormatter
    check_cmd.epilog = RECORD_FORMAT
    check_cmd.add_argument("record", metavar="RECORD", help="the record file, or - for stdin")
    check_cmd.set_defaults(func=run_check)


def _read_text(arg: str, what: str, *, stdin_used: list[bool]) -> str:
    if arg == "-":
        if stdin_used[0]:
            raise CommandError(f"{what}: stdin (-) can be read only once")
        stdin_used[0] = True
        return read_stdin(what)
    if arg.startswith("@"):
        return read_utf8(arg[1:])
    return arg


def _position(arg: str, what: str, stdin_used: list[bool], *, turn_required: bool) -> Position:
    text = _read_text(arg, what, stdin_used=stdin_used)
    return Position.from_json(text, turn_required=turn_required)


def _pit(text: str) -> int:
    if not text.strip().isdecimal() or not 1 <= int(text) <= 6:
        raise CommandError(f"pit {text!r} is not a pit number 1..6")
    return int(text)


def run_play(args: argparse.Namespace) -> int:
    """``hakem mangala play STATE PIT``."""
    position = _position(args.state, "STATE", [False], turn_required=True)
    result = play(position, _pit(args.pit))
    if wants_json(args):
        emit_json(
            {
                "position": result.position.to_obj(),
                "captured": result.captured,
                "extra_turn": result.extra_turn,
                "set_over": result.set_over,
                "winner": result.winner,
            }
        )
    else:
        print(explain(result))
        print(result.position.describe())
    return 0


def run_judge(args: argparse.Namespace) -> int:
    """``hakem mangala judge BEFORE AFTER``."""
    used = [False]
    before = _position(args.before, "BEFORE", used, turn_required=True)
    after = _position(args.after, "AFTER", used, turn_required=False)
    verdict = judge(before, after)
    if wants_json(args):
        emit_json(verdict.to_obj())
    else:
        head = "legal" if verdict.legal else f"illegal ({verdict.rule})"
        print(f"{head}: {verdict.reason}")
    return 0


def run_check(args: argparse.Namespace) -> int:
    """``hakem mangala check RECORD``."""
    text = _read_text(
        args.record if args.record == "-" else "@" + args.record, "RECORD", stdin_used=[False]
    )
    name = "stdin" if args.record == "-" else args.record
    journal = "JOURNAL" if args.record == "-" else args.record
    refuse_journal(text, name, "a round record",
                   "the table writes its round record as round.txt beside the journal; make "
                   f"one with hakem export {journal} --round OUT.txt")
    record = parse_record(text)
    if not record.entries:
        raise CommandError(f"the record {name} is empty: no set or move lines to check")
    check = check_record(record)
    if wants_json(args):
        emit_json(check.to_obj())
        return 0
    rnd = check.round
    for s in rnd.sets:
        how = f", {s.timed_out}'s time ran out (MG-CLOCK-3)" if s.timed_out else ""
        result = "drawn" if s.winner == "draw" else f"won by {s.winner}"
        print(
            f"set {s.number} (started by {s.starter}): a {s.a_store} b {s.b_store}, {result}{how}"
        )
    warned = ", ".join(f"{side} {rnd.warning_count(side)}" for side in ("a", "b"))
    print(f"warnings (MG-T-4): {warned}")
    decision = rnd.ended_by_director
    if decision is not None:
        why = f" ({decision.reason})" if decision.reason else ""
        print(f"round ended by the director in set {decision.set_number}{why}")
    if rnd.over:
        points = rnd.round_points()
        print(
            f"round over: {'drawn' if rnd.winner == 'draw' else 'won by ' + str(rnd.winner)}; "
            f"points a {points['a']:g} b {points['b']:g} (MG-T-1)"
        )
    else:
        playing = check.to_obj()["in_progress"]
        if isinstance(playing, dict) and check.in_progress is not None:
            print(f"set {playing['set']} under way: {check.in_progress.describe()}")
        print("round not finished")
    if check.first_illegal is None:
        print("no moves recorded yet" if not check.moves else
              f"{'the' if check.moves == 1 else 'all'} {count(check.moves, 'move')} legal")
    else:
        problem = check.first_illegal
        print(f"line {problem.line}: illegal ({problem.rule}): {problem.reason}")
    return 0


__all__ = ["register"]
