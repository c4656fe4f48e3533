"""Checks a backgammon journal before it is exported: impossible values and illegal moves.

The journal is the source of truth, but a file can be damaged or edited by hand; an export must
not turn impossible contents into a record that looks right (a ".mat" that ``hakem mat check``
then rejects, a summary with a Position ID that is none). Each problem raises
:class:`RecordFormatError` naming the journal line and the value. Entry types outside the
contract and the referee's own are skipped with a note: tables may add their own (journal.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeGuard

from controller.records.journal import CONTRACT_TYPES, THROW_TYPES
from engine.backgammon.cube import CUBE_FACES
from engine.backgammon.mat_play import NotAPlay, find_play
from engine.backgammon.mat_reader import MatMove, parse_move
from engine.backgammon.match_id import MAX_MATCH_LENGTH
from engine.backgammon.position import Position
from engine.errors import HakemError, RecordFormatError

# What the backgammon referee journals besides the contract types (controller/referee).
REFEREE_TYPES: Final = frozenset(
    {"early_throw", "setup_error", "setup_corrected", "turn_passed", "resign", "cube_refused",
     "director", "position_taken"}
)
KNOWN_TYPES: Final = CONTRACT_TYPES | REFEREE_TYPES
MATCH_ID_RE: Final = re.compile(r"[A-Za-z0-9+/]{12}")
PLAYER_TYPES: Final = frozenset({"roll", "move", "double", "take", "drop", "turn_passed"})
CUBE_TOP: Final = max(CUBE_FACES)  # the highest value a physical cube shows (BG-EQ-1)


def where(source: str, index: int, entry: Mapping[str, Any]) -> str:
    """How a message names an entry: the file, its line (entries are one per line), the seq
    and the type."""
    seq = entry.get("seq")
    head = f"{source} line {index}"
    return f"{head} (seq {seq}, {entry.get('type')})" if seq is not None else (
        f"{head} ({entry.get('type')})")


def is_int(value: object) -> TypeGuard[int]:
    """A JSON integer (``true`` is no number of checkers or points)."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_player(entry: Mapping[str, Any], at: str, *, key: str = "player",
                 optional: bool = False) -> None:
    """A player is 0 or 1 (the match_start's order); flags may name none."""
    value = entry.get(key)
    if optional and value is None:
        return
    if value not in (0, 1) or not is_int(value):
        raise RecordFormatError(f"{at}: {key} must be 0 or 1, got {value!r}")


def check_cube_set(args: object, at: str) -> None:
    """A director's ``set_cube`` (BG-CUBE-5) is a cube a table can hold: a power of two up to
    a cube's highest face, centred at 1 and owned above (BG-CUBE-1, BG-CUBE-4), as the referee
    takes it; one edited otherwise would stop the table's restart, or export a cube no match
    had."""
    if not isinstance(args, Mapping):
        raise RecordFormatError(f"{at}: args must be an object (value, owner), got {args!r}")
    value, owner = args.get("value"), args.get("owner")
    if not is_int(value) or value < 1 or value & (value - 1):
        raise RecordFormatError(f"{at}: value must be a power of two, got {value!r}")
    if value > CUBE_TOP:
        raise RecordFormatError(f"{at}: value must be {CUBE_TOP} or less (a cube's highest"
                                f" face), got {value!r}")
    if value == 1 and owner is not None:
        raise RecordFormatError(f"{at}: a cube at 1 is centred (BG-CUBE-1, BG-CUBE-4): its owner"
                                f" must be null, got {owner!r}")
    if value > 1:
        if owner is None:
            raise RecordFormatError(f"{at}: a cube at {value} is owned (BG-CUBE-1, BG-CUBE-4):"
                                    " its owner must be 0 or 1, got None")
        check_player(args, at, key="owner")
    game = args.get("game")
    if game is not None and (not is_int(game) or game < 1):
        raise RecordFormatError(f"{at}: game must be a game number 1 or more, got {game!r}")


def check_score(value: object, at: str, *, key: str = "score") -> tuple[int, int]:
    """A score is two whole numbers of points, neither negative."""
    if (not isinstance(value, list | tuple) or len(value) != 2
            or not all(is_int(v) and v >= 0 for v in value)):
        raise RecordFormatError(f"{at}: {key} must be two whole numbers 0 or more, got {value!r}")
    return (int(value[0]), int(value[1]))


def check_match_start(entry: Mapping[str, Any], at: str, source: str) -> int:
    """A backgammon match_start with two names and a length (0: a money session); the length."""
    game = entry.get("game", "backgammon")
    if game == "mangala":
        raise RecordFormatError(
            f"{source} is a Mangala journal: export handles backgammon journals here (a Mangala"
            " round's record is round.txt, which hakem export JOURNAL --round OUT.txt writes;"
            " check one with hakem mangala check)")
    if game != "backgammon":
        raise RecordFormatError(f"{at}: game must be 'backgammon', got {game!r}")
    names = entry.get("players")
    if (not isinstance(names, list | tuple) or len(names) != 2
            or not all(isinstance(n, str) and n.strip() for n in names)):
        raise RecordFormatError(f"{at}: players must be two names, got {names!r}")
    length = entry.get("length")
    if not is_int(length) or not 0 <= length <= MAX_MATCH_LENGTH:
        raise RecordFormatError(
            f"{at}: length must be a whole number of points 0..{MAX_MATCH_LENGTH} (0: money),"
            f" got {length!r}")
    for key in ("rules", "layout", "recognition"):  # the referee's settings, when journalled
        if not isinstance(entry.get(key, {}), Mapping):
            raise RecordFormatError(f"{at}: {key} must be a JSON object, got {entry[key]!r}")
    return int(length)


def check_ids(entry: Mapping[str, Any], at: str) -> Position:
    """A move's Position ID (copied to the summary) and Match ID must be real ones."""
    value = entry.get("position_id")
    try:
        position = Position.from_id(value)  # type: ignore[arg-type]
    except HakemError as exc:
        raise RecordFormatError(f"{at}: position_id {value!r} is no Position ID ({exc})") from None
    match_id = entry.get("match_id")
    # the form only: after the winning move the referee's Match ID holds the final score,
    # which may pass the length (the decoder refuses that, gnubg writes it)
    if match_id is not None and not (isinstance(match_id, str) and MATCH_ID_RE.fullmatch(match_id)):
        raise RecordFormatError(
            f"{at}: match_id {match_id!r} is no Match ID (12 base64 characters)")
    return position


def move_tokens(entry: Mapping[str, Any], at: str, index: int) -> tuple[MatMove, ...]:
    """The move text as .mat moves; a token that is no move is named with the journal line."""
    text = entry.get("move", "")
    if not isinstance(text, str):
        raise RecordFormatError(f"{at}: move must be move text, got {text!r}")
    try:
        return tuple(parse_move(token, index) for token in text.split())
    except RecordFormatError as exc:
        raise RecordFormatError(f"{at}: {str(exc).split(': ', 1)[-1]}") from None


def check_dice(entry: Mapping[str, Any], at: str) -> tuple[int, int]:
    """Two dice 1..6."""
    dice = entry.get("dice")
    if (not isinstance(dice, list | tuple) or len(dice) != 2
            or not all(is_int(d) and 1 <= d <= 6 for d in dice)):
        raise RecordFormatError(f"{at}: dice must be two numbers 1..6, got {dice!r}")
    return (int(dice[0]), int(dice[1]))


@dataclass
class _Board:
    """The board as the journal's moves leave it, seen by ``view`` (the player on roll)."""

    position: Position
    view: int = 0
    undo: tuple[Position, int] | None = None

    def seen_by(self, player: int) -> Position:
        return self.position if player == self.view else self.position.swap()

    def set(self, position: Position, view: int) -> None:
        self.position, self.view = position, view


@dataclass
class JournalCheck:
    """Walks the journal once: the length, each game's score, and the board for move checks."""

    source: str
    length: int | None = None
    board: _Board | None = None
    score: tuple[int, int] | None = None  # at the start of the current game
    ended: tuple[int, int] | None = None  # after the last game_end
    # the score at the start of the game that ended last: a game scored again after the
    # director put its cube right (a ``rescored`` game_end, BG-CUBE-5) adds its points to it
    ended_from: tuple[int, int] | None = None
    number: int = 0  # the game started last
    ended_number: int = 0  # ... and the game that ended last
    thrown: bool = False  # a throw since the last game_end: the game that ended stands as scored
    # the director put the cube right after the last game's end, before the next game's first
    # throw: that game's end is journalled again (``rescored``) next
    rescore_due: bool = False
    on_roll: int = 0
    notes: list[str] = field(default_factory=list)

    def entry(self, entry: Mapping[str, Any], index: int) -> None:
        """Check one entry (``index``: its line in the journal)."""
        kind = entry.get("type")
        at = where(self.source, index, entry)
        if kind == "match_start":
            if self.length is not None:
                raise RecordFormatError(f"{at}: a second match_start in one journal")
            self.length = check_match_start(entry, at, self.source)
            return
        if self.length is None or kind in (None, ""):
            return  # the fold says what is missing
        if kind not in KNOWN_TYPES:
            self.notes.append(f"{at}: entry type {kind!r} is not one export knows; skipped")
            return
        if kind in THROW_TYPES:
            self.thrown, self.rescore_due = True, False
        if kind in PLAYER_TYPES:
            check_player(entry, at)
        elif "player" in entry:
            check_player(entry, at, optional=True)
        handler = getattr(self, f"_{kind}", None)
        if handler is not None:
            handler(entry, at, index)

    def _game_start(self, entry: Mapping[str, Any], at: str, index: int) -> None:
        number = entry.get("number")
        if not is_int(number) or number < 1:
            raise RecordFormatError(f"{at}: number must be a game number 1 or more, got {number!r}")
        score = check_score(entry.get("score") or [0, 0], at)
        if self.length and max(score) >= self.length:
            raise RecordFormatError(
                f"{at}: score {list(score)} is impossible at a game's start in a"
                f" {self.length}-point match (BG-MATCH-1)")
        if self.ended is not None and score != self.ended:
            raise RecordFormatError(
                f"{at}: score {list(score)} is not the {list(self.ended)} the last game ended at")
        self.score, self.board, self.on_roll = score, _Board(Position.initial()), 0
        self.number = number

    def _opening_roll(self, entry: Mapping[str, Any], at: str, index: int) -> None:
        check_dice(entry, at)
        if entry.get("player") is not None:
            self.on_roll = int(entry["player"])

    def _roll(self, entry: Mapping[str, Any], at: str, index: int) -> None:
        check_dice(entry, at)

    def _move(self, entry: Mapping[str, Any], at: str, index: int) -> None:
        dice = check_dice(entry, at)
        moves = move_tokens(entry, at, index)
        seen = check_ids(entry, at)
        if self.board is None:
            raise RecordFormatError(f"{at}: a move before the journal's first game_start")
        player = int(entry["player"])
        before = self.board.seen_by(player)
        # a flagged move that stands (TTB-4.8, or the director accepted it) is not re-judged
        after = seen if entry.get("stands") else legal_result(before, dice, moves, entry, at)
        self.board.undo = (before, player)
        self.board.set(after, player)
        self.on_roll = 1 - player

    def _turn_passed(self, entry: Mapping[str, Any], at: str, index: int) -> None:
        self.on_roll = 1 - int(entry["player"])

    def _setup_corrected(self, entry: Mapping[str, Any], at: str, index: int) -> None:
        position = check_ids(entry, at)
        if self.board is not None:
            self.board.set(position, int(entry.get("player", self.on_roll)))

    def _setup_error(self, entry: Mapping[str, Any], at: str, index: int) -> None:
        if entry.get("position_id") is not None and self.board is not None:
            # BG-EQ-4: the set-up as read (player 0's view) is played until it is corrected
            self.board.set(check_ids(entry, at), 0)

    def _clock(self, entry: Mapping[str, Any], at: str, index: int) -> None:
        if entry.get("means") == "unseen" and entry.get("player") in (0, 1):
            # a turn ended unseen (TTB-6.1): the presser's opponent is on roll
            self.on_roll = 1 - int(entry["player"])

    def _cannot_read(self, entry: Mapping[str, Any], at: str, index: int) -> None:
        if entry.get("about") == "turns_unseen":
            # turns played while the table could not see (TTB-6.1): the board is the one
            # position_taken gives; nothing before can be corrected any more
            check_player(entry, at)
            self.on_roll = int(entry["player"])
            if self.board is not None:
                self.board.undo = None

    def _position_taken(self, entry: Mapping[str, Any], at: str, index: int) -> None:
        check_player(entry, at)
        position = check_ids(entry, at)
        self.on_roll = int(entry["player"])
        if self.board is not None:
            self.board.set(position, self.on_roll)

    def _illegal_move(self, entry: Mapping[str, Any], at: str, index: int) -> None:
        if entry.get("reopen") and self.board is not None and self.board.undo is not None:
            self.board.set(*self.board.undo)  # the director rejected the move (TTB-4.9)
            self.board.undo = None
            self.on_roll = self.board.view

    def _director(self, entry: Mapping[str, Any], at: str, index: int) -> None:
        args = entry.get("args")
        if entry.get("action") == "set_cube":
            check_cube_set(args, f"{at} set_cube")
            self.rescore_due = self.ended is not None and not self.thrown
            return
        if entry.get("action") != "set_position" or not isinstance(args, dict):
            return
        position = check_ids(args, f"{at} set_position")
        if "player" in args:  # the director says who is on roll, from whose side the ID is
            check_player(args, f"{at} set_position")
            self.on_roll = int(args["player"])
        if self.board is not None:
            self.board.set(position, self.on_roll)

    def _double(self, entry: Mapping[str, Any], at: str, index: int) -> None:
        cube = entry.get("cube")
        if not is_int(cube) or cube < 2 or cube & (cube - 1):
            raise RecordFormatError(f"{at}: cube must be a power of two 2 or more, got {cube!r}")

    def _game_end(self, entry: Mapping[str, Any], at: str, index: int) -> None:
        check_player(entry, at, key="winner")
        points = entry.get("points")
        if not is_int(points) or points < 1:
            raise RecordFormatError(f"{at}: points must be 1 or more, got {points!r}")
        after = check_score(entry.get("score") or [0, 0], at)
        if entry.get("rescored"):
            self._rescored(entry, at)
        else:
            self.ended_number = self.number
        self.thrown, self.rescore_due = False, False
        start = self.ended_from if entry.get("rescored") else self.score
        before = list(start or (0, 0))
        before[int(entry["winner"])] += int(points)
        if start is not None and list(after) != before:
            raise RecordFormatError(
                f"{at}: score {list(after)} is not the game's start {list(start)} plus"
                f" {points} point(s) to player {entry['winner']}")
        self.ended, self.ended_from = after, start

    def _rescored(self, entry: Mapping[str, Any], at: str) -> None:
        """A game scored again follows the director's cube put right after that game's end,
        before the next game's first throw (BG-CUBE-5), as a table journals it: another one
        would give the record points no correction gave, and a table restarted from it would
        take it for the end of the game under way."""
        ended = self.ended_number
        if not self.rescore_due:
            raise RecordFormatError(
                f"{at}: game {entry.get('game')!r} is scored again with no set_cube after game"
                f" {ended}'s end and before game {ended + 1}'s first throw (BG-CUBE-5)")
        if entry.get("game") != ended:
            raise RecordFormatError(f"{at}: game {entry.get('game')!r} is scored again, but the"
                                    f" game that ended last is game {ended}")

    def _match_end(self, entry: Mapping[str, Any], at: str, index: int) -> None:
        check_player(entry, at, key="winner", optional=True)
        if entry.get("score") is not None:
            check_score(entry["score"], at)


def legal_result(before: Position, dice: tuple[int, int], moves: tuple[MatMove, ...],
                 entry: Mapping[str, Any], at: str) -> Position:
    """The position a move leaves when it is a legal play for the dice, else the rule broken
    (a flagged move the journal lets stand carries ``stands``)."""
    found = find_play(before, dice, moves)
    text = entry.get("move", "")
    if isinstance(found, NotAPlay):
        raise RecordFormatError(
            f"{at}: move {text!r} with {dice[0]}{dice[1]} is not a legal play and the journal"
            f" does not say it stands: {found.reason} ({found.rule})")
    if found.result.position_id != entry.get("position_id"):
        raise RecordFormatError(
            f"{at}: position_id {entry.get('position_id')!r} is not the position move {text!r}"
            f" leaves ({found.result.position_id})")
    return found.result


def check_journal(entries: Sequence[Mapping[str, Any]], source: str) -> list[str]:
    """Refuse impossible values and illegal moves (RecordFormatError naming the line); the
    notes for entry types that were skipped."""
    check = JournalCheck(source)
    for index, entry in enumerate(entries, start=1):
        check.entry(entry, index)
    return check.notes


__all__ = ["KNOWN_TYPES", "JournalCheck", "check_journal", "legal_result", "where"]
