"""``hakem director ACTION``: a tournament director's override for a running table, from the
command line: accept a flagged move, reject an accepted one, correct the position or the
cube, enter the dice the camera could not read, end the match... The request goes to the
table's journal folder (``controller.runtime.director_inbox``); the running ``hakem run``
hands it to its referee between frames, which journals it or refuses it, and the answer is
printed."""

from __future__ import annotations

import argparse
import getpass
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.cli.common import (
    CommandError,
    add_command,
    add_group,
    emit_json,
    utf8_arg,
    wants_json,
)
from controller.config.table import JournalSection

_EPILOG = """\
examples (the table named by its configuration, as for hakem run):
  hakem director accept --config table.toml          # the flagged move stands (TTB-4.8)
  hakem director reject --reason "6/2 is blocked"    # the last accepted move was illegal
  hakem director set-dice 5 3                        # the throw the camera could not read
  hakem director set-position 4HPwATDgc/ABMA        # correct the position (GNU Backgammon ID)
  hakem director set-position 4HPwATDgc/ABMA --player 1   # ... and player 1 is on roll
  hakem director set-cube 4 1                        # the cube is at 4, player 1's (BG-CUBE-5)
  hakem director set-cube 1 --game 3                 # game 3 counts at 1 (it just ended)
  hakem director end-match 1 --by "Ayse Kaya"
  hakem director end-match a --reason "b left the hall"   # Mangala: a wins the round
A request no table answers within --wait seconds is withdrawn (exit 2: send it again once
the table runs, unless its journal or live log shows it taken); with --wait 0 it is posted
(exit 0) for a table that runs within 60 s.
"""


def register(subparsers: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``director`` and its actions to ``hakem``."""
    group = add_group(subparsers, "director",
                      "a tournament director's override for a running table (hakem run)")

    def action(name: str, help_text: str) -> argparse.ArgumentParser:
        parser = add_command(group, name, parents, help_text)
        parser.epilog = _EPILOG
        parser.formatter_class = argparse.RawDescriptionHelpFormatter
        parser.add_argument("--config", metavar="FILE",
                            help="the table's TOML configuration (its journal folder)")
        parser.add_argument("--folder", metavar="DIR", help="the table's journal folder "
                            "(instead of --config; with neither, the default journal folder, "
                            f"{JournalSection.directory})")
        parser.add_argument("--by", metavar="NAME", type=utf8_arg,
                            help="the director's name for the journal (default: the login name)")
        parser.add_argument("--wait", type=float, default=10.0, metavar="SECONDS",
                            help="how long to wait for the table's answer (default "
                            "%(default)g)")
        return parser

    p = action("accept", "the flagged move stands as played (backgammon); Mangala: the "
               "sowing from PIT is accepted")
    p.add_argument("pit", nargs="?", type=_pit, help="Mangala: the pit 1..6 that was sown")
    p.set_defaults(func=_send, build=lambda a: {} if a.pit is None else {"pit": a.pit},
                   kind="accept")
    p = action("reject", "the last accepted move was illegal: it is flagged for correction "
               "(TTB-4.9)")
    p.add_argument("--reason", type=utf8_arg, default="the director ruled the move illegal",
                   help="why, for the journal and the live log (default: %(default)s)")
    p.set_defaults(func=_send, build=lambda a: {"reason": a.reason}, kind="reject")
    p = action("set-position", "correct the position: a GNU Backgammon Position ID, or a "
               "Mangala position as JSON")
    p.add_argument("position", metavar="POSITION", type=utf8_arg)
    p.add_argument("--player", type=int, choices=(0, 1),
                   help="backgammon: the player on roll (0 or 1), from whose side the ID is "
                   "written; another than the table's gives that player the turn, a throw due "
                   "(default: the player the table has on roll)")
    p.set_defaults(func=_send, build=_position_args, kind="set_position")
    p = action("set-dice", "the dice thrown, which the camera could not read (opening: player "
               "0's die, then player 1's)")
    p.add_argument("dice", nargs=2, type=_die, metavar="DIE")
    p.set_defaults(func=_send, build=lambda a: {"dice": list(a.dice)}, kind="set_dice")
    p = action("set-cube", "put the cube right (BG-CUBE-5): its VALUE and OWNER, during a game"
               " or after it until the next game's first throw (the game is scored again)")
    p.add_argument("value", type=_cube_value, metavar="VALUE",
                   help="1, 2, 4, 8, 16, 32 or 64 (1: the centred cube, its 64 face up)")
    p.add_argument("owner", nargs="?", type=_cube_owner, default=None, metavar="OWNER",
                   help="0 or 1, whose side the cube is on; centre for a cube at 1 (the "
                   "default)")
    p.add_argument("--game", type=int, metavar="N",
                   help="the game it is for, checked by the table: a game that has ended stands"
                   " once the next has had its first throw (default: the game under way, or "
                   "the one just ended before the next game's first throw)")
    p.set_defaults(func=_send, build=_cube_args, kind="set_cube")
    p = action("end-match", "end the match: WINNER is 0 or 1 (backgammon), a or b (Mangala)")
    p.add_argument("winner")
    p.add_argument("--reason", type=utf8_arg, default="",
                   help="why, for the journal and the round record (e.g. \"b left the hall\"; "
                   "default: none)")
    p.set_defaults(func=_send, build=_winner_args, kind="end_match")
    p = action("resign", "PLAYER (0 or 1) resigns a single game, a gammon or a backgammon")
    p.add_argument("player", type=int, choices=(0, 1))
    # its own dest: ``kind`` names the action (every action's default below)
    p.add_argument("--kind", type=int, choices=(1, 2, 3), default=1, dest="worth",
                   help="1 single game, 2 gammon, 3 backgammon (default %(default)s)")
    p.set_defaults(func=_send, build=lambda a: {"player": a.player, "kind": a.worth},
                   kind="resign")
    p = action("rethrow", "the mover has the opponent's early throw thrown again (BG-ROLL-5)")
    p.set_defaults(func=_send, build=lambda a: {}, kind="rethrow")
    p = action("warn", "Mangala: a warning to PLAYER (a or b, MG-T-4)")
    p.add_argument("player", choices=("a", "b"))
    p.add_argument("--reason", type=utf8_arg, default="",
                   help="why, for the journal and the live log (default: none)")
    p.set_defaults(func=_send, build=lambda a: {"player": a.player, "reason": a.reason},
                   kind="warn")
    p = action("note", "a note in the journal")
    p.add_argument("text", nargs="+", type=utf8_arg)
    p.set_defaults(func=_send, build=lambda a: {"text": " ".join(a.text)}, kind="note")


def _one_to_six(kind: str) -> Callable[[str], int]:
    """An argument type for a number 1..6 (a die's pips, a Mangala pit), named in its errors."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a {kind}: {text!r}") from None
        if not 1 <= value <= 6:
            raise argparse.ArgumentTypeError(f"a {kind} is 1..6, not {value}")
        return value

    return parse


_die, _pit = _one_to_six("die"), _one_to_six("pit")


def _cube_value(text: str) -> int:
    """``set-cube``'s value: one a physical cube shows (1 for the centred cube)."""
    from controller.referee.cube_set import CUBE_VALUES

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a cube value: {text!r}") from None
    if value not in CUBE_VALUES:
        raise argparse.ArgumentTypeError(f"a cube value is 1, 2, 4, 8, 16, 32 or 64, not {value}")
    return value


_CENTRE = ("centre", "center")  # a centred cube's owner, either spelling


def _cube_owner(text: str) -> int | None:
    """``set-cube``'s owner: player 0 or 1, or nobody (the cube in the centre)."""
    word = text.strip().lower()
    if word in _CENTRE:
        return None
    if word in ("0", "1"):
        return int(word)
    raise argparse.ArgumentTypeError(f"the cube's owner is 0, 1 or centre, not {text!r}")


def _cube_args(args: argparse.Namespace) -> dict[str, Any]:
    """``set-cube``'s cube checked here, before it is posted: a cube at 1 lies in the centre
    and one at 2 or more is owned (BG-CUBE-1, BG-CUBE-4)."""
    value, owner = args.value, args.owner
    if value == 1 and owner is not None:
        raise CommandError(f"a cube at 1 lies in the centre (BG-CUBE-1), not on player {owner}'s"
                           " side")
    if value > 1 and owner is None:
        face = " (a centred cube, its 64 face up, is set-cube 1)" if value == 64 else ""
        raise CommandError(f"a cube at {value} is owned: name its owner, 0 or 1{face}")
    if args.game is not None and args.game < 1:
        raise CommandError(f"--game is a game number 1 or more, not {args.game}")
    built: dict[str, Any] = {"value": value, "owner": owner}
    if args.game is not None:
        built["game"] = args.game
    return built


def _position_args(args: argparse.Namespace) -> dict[str, Any]:
    """The position checked here, before it is posted: a malformed one would only be refused
    by the table, after the wait."""
    from engine.backgammon.position import Position
    from engine.mangala.position import Position as MangalaPosition

    text = str(args.position).strip()
    if text.startswith("{"):
        if args.player is not None:
            raise CommandError("--player is for a backgammon Position ID: a Mangala position "
                               "says whose turn it is itself")
        position = MangalaPosition.from_json(text)  # a PositionError names what is wrong
        position.check_stones()
        return {"position": json.loads(text)}
    Position.from_id(text)
    if args.player is not None:
        return {"position_id": text, "player": args.player}
    return {"position_id": text}


def _refusal(text: str, action: str) -> str:
    """The table's refusal as the command's error line, ``director set-position refused: ...``
    (the live log says "The director's set-position was refused: ...")."""
    from controller.referee.api import director_command, refusal_reason

    reason = refusal_reason(text, action)
    return text if reason is None else f"director {director_command(action)} refused: {reason}"


def _winner_args(args: argparse.Namespace) -> dict[str, Any]:
    """``end-match``'s winner as the table's game names it, and the director's reason if one
    was given."""
    text = str(args.winner).strip().lower()
    reason = {"reason": args.reason.strip()} if args.reason.strip() else {}
    if text in ("0", "1"):
        return {"winner": int(text), **reason}
    if text in ("a", "b"):
        return {"winner": text, **reason}
    raise CommandError(f"the winner is 0 or 1 (backgammon) or a or b (Mangala), not "
                       f"{args.winner!r}")


def _folder(args: argparse.Namespace) -> Path:
    if args.folder:
        return Path(args.folder)
    from controller.config.table import load_table_config

    return Path(load_table_config(args.config).journal.directory)


def _over(folder: Path, kind: str) -> str | None:
    """The refusal when the folder's journal holds its match's end: the table stopped there
    and is not started on it again (table-service.md, "The next match"), so no table would
    take the request; waiting for one only to say that none answered misled the director.
    None while the match goes on, or when the journal cannot be read (the table says why)."""
    from controller.records.journal import JOURNAL_NAME, read_journal
    from controller.referee.api import director_command
    from controller.runtime.resume_check import match_end, outcome

    try:
        entries = read_journal(folder / JOURNAL_NAME).entries
    except (OSError, ValueError):
        return None
    end = match_end(entries)
    if end is None:
        return None
    noun = "round" if entries[0].get("game") == "mangala" else "match"
    said = outcome(entries)
    return (f"director {director_command(kind)} refused: the {noun} in {folder} is over "
            f"({f'{said}; ' if said else ''}journal entry {end.get('seq')}): no table referees "
            f"it any more, and its result stands; the next {noun} has a journal folder of its "
            "own")


def _send(args: argparse.Namespace) -> int:
    from controller.runtime.director_inbox import (
        REQUEST_TTL_S,
        WITHDRAWN,
        post_request,
        read_answer,
        withdraw,
    )

    if not math.isfinite(args.wait) or args.wait < 0:
        raise CommandError(f"--wait must be 0 or more seconds, not {args.wait}")
    if args.by is not None and not args.by.strip():
        raise CommandError("--by must name the director, not be empty")
    if args.kind == "note" and not " ".join(args.text).strip():
        raise CommandError("the note is empty")
    director = args.by.strip() if args.by else getpass.getuser()
    built = args.build(args)
    folder = _folder(args)
    over = _over(folder, args.kind)
    if over is not None:
        raise CommandError(over)
    request = post_request(folder, args.kind, built, director)
    deadline = time.monotonic() + args.wait
    answer = read_answer(folder, request.id)
    while answer is None and time.monotonic() < deadline:
        time.sleep(0.1)
        answer = read_answer(folder, request.id)
    if answer is None and args.wait == 0:  # posted, as asked: the table answers later
        if wants_json(args):
            emit_json({"id": request.id, "action": args.kind, "ok": None, "text": ""})
        else:
            print(f"posted: the table in {folder} takes it if it runs within "
                  f"{REQUEST_TTL_S:.0f} s (--wait 0: its answer is not waited for)")
        return 0
    if answer is None:
        # given up: taken back, so that a table started later does not carry it out as well
        # as the request the director sends again
        answer = withdraw(folder, request.id, f"no table answered within {args.wait:g} s")
        if str(answer.get("text", "")).startswith(WITHDRAWN):
            raise CommandError(f"no answer from a table in {folder} within {args.wait:g} s: is "
                               f"one running on it (hakem run, or hakem demo --out {folder})? "
                               "The request was withdrawn; a table "
                               "down mid-step may have taken it: check for it in its journal "
                               "(a director entry) or live log before sending it again")
    if wants_json(args):
        emit_json({"id": request.id, "action": args.kind, "ok": bool(answer.get("ok")),
                   "text": answer.get("text", "")})
    if not answer.get("ok"):
        raise CommandError(_refusal(str(answer.get("text") or "refused"), args.kind))
    if not wants_json(args):
        print(f"taken: {answer.get('text', '')}")
    return 0
