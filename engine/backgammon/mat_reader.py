"""Read Jellyfish ``.mat`` match records as real programs write them.

Takes ``; [Tag "value"]`` headers, ``25/`` for the bar and ``/0`` for off as well as ``bar`` and
``off``, ``*`` hits, ``(2)`` repeats, chains like ``13/7/1``, unsorted dice, ``Cannot Move``,
``Doubles => N`` / ``Takes`` / ``Drops``, GNU Backgammon's ``Beavers => N``, ``Wins N point(s)
(and the match)`` and ``Losses``.
Anything else raises :class:`RecordFormatError` naming the line; the reader never crashes on
bad text. The two columns of a move line are the two players, first-named player on the left;
a ``Wins`` is the winner's by its column even when written right after a roll in the left one.
The reader checks only the text; whether the moves are legal is the replay's business.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum

from engine.errors import RecordFormatError

BAR_POINT = 25
OFF_POINT = 0


class ActionKind(StrEnum):
    """What one player does in one column of a move line."""

    ROLL = "roll"
    DOUBLE = "double"
    BEAVER = "beaver"
    TAKE = "take"
    DROP = "drop"
    WIN = "win"
    LOSS = "loss"


@dataclass(frozen=True)
class MatMove:
    """One written move: a checker's path (from, [via...], to; 25 bar, 0 off), the points where
    it hit, and how many checkers made it (``(2)``)."""

    path: tuple[int, ...]
    hits: frozenset[int] = frozenset()
    count: int = 1

    def steps(self) -> list[tuple[int, int]]:
        """The (from, to) legs of the path, repeated ``count`` times."""
        legs = list(itertools.pairwise(self.path))
        return legs * self.count

    @property
    def text(self) -> str:
        """The move in the usual notation (``bar/22*``, ``6/off``, ``13/11(2)``)."""
        parts = []
        for i, p in enumerate(self.path):
            name = "bar" if (i == 0 and p == BAR_POINT) else ("off" if p == OFF_POINT else str(p))
            parts.append(name + ("*" if i > 0 and p in self.hits else ""))
        return "/".join(parts) + (f"({self.count})" if self.count > 1 else "")


@dataclass(frozen=True)
class MatAction:
    """One action of one player: a roll with its moves, a double, a take, a drop, a win."""

    line: int
    player: int
    kind: ActionKind
    text: str
    dice: tuple[int, int] | None = None
    moves: tuple[MatMove, ...] = ()
    cannot_move: bool = False
    value: int = 0
    and_match: bool = False
    number: int = 0
    """The move number written at the start of the line (``12)``), 0 when none."""


@dataclass(frozen=True)
class MatGame:
    """One game: its number, the score before it, and the actions in the order played."""

    number: int
    line: int
    score: tuple[int, int]
    actions: tuple[MatAction, ...]

    @property
    def result(self) -> MatAction | None:
        """The ``Wins`` action that ends the game, or None for an unfinished game."""
        for action in self.actions:
            if action.kind is ActionKind.WIN:
                return action
        return None


@dataclass(frozen=True)
class MatMatch:
    """A whole ``.mat`` record. ``length`` 0 is money play (an unlimited session)."""

    length: int
    players: tuple[str, str]
    games: tuple[MatGame, ...]
    tags: tuple[tuple[str, str], ...] = ()
    comments: tuple[str, ...] = field(default=())

    def tag(self, name: str) -> str | None:
        """The value of a ``; [Name "value"]`` header, or None."""
        for key, value in self.tags:
            if key == name:
                return value
        return None


_TAG_RE = re.compile(r'^;\s*\[\s*([^"\]]+?)\s+"(.*)"\s*\]\s*$')
_LENGTH_RE = re.compile(r"^\s*(\d+)\s+points?\s+match\s*\.?\s*$", re.IGNORECASE)
_GAME_RE = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_SCORE_RE = re.compile(r"^\s*(.*?)\s*:\s*(\d+)\s+(.*?)\s*:\s*(\d+)\s*$")
_NUMBERED_RE = re.compile(r"^(\s*\d+\))(.*)$")
_ACTION_RE = re.compile(
    r"(?P<roll>(?<![\w/])[1-6][1-6]:)"
    r"|(?P<double>\bDoubles?\s*=>\s*(?P<dvalue>\d+))"
    r"|(?P<beaver>\bBeavers?\s*=>\s*(?P<bvalue>\d+))"
    r"|(?P<take>\b(?:Takes|Accepts)\b)"
    r"|(?P<drop>\b(?:Drops|Passes|Rejects|Refuses)\b)"
    r"|(?P<win>\bWins\s+(?P<wpoints>\d+)\s+points?(?P<wmatch>\s+and\s+the\s+match)?)"
    r"|(?P<loss>\bLoss(?:es)?\s+(?P<lpoints>\d+)\s+points?)",
    re.IGNORECASE,
)
_MOVE_RE = re.compile(r"^(bar|\d{1,2})((?:/(?:bar|off|\d{1,2})\*?)+)(?:\((\d)\))?$", re.IGNORECASE)
_CANNOT_RE = re.compile(r"^(cannot\s+move|no\s+move|can't\s+move|\(no\s+move\))$", re.IGNORECASE)


def _point(text: str, line: int, *, first: bool) -> int:
    word = text.lower()
    if word == "bar":
        if not first:
            raise RecordFormatError(f"line {line}: a move cannot end on the bar: {text!r}")
        return BAR_POINT
    if word == "off":
        if first:
            raise RecordFormatError(f"line {line}: a move cannot start off the board: {text!r}")
        return OFF_POINT
    value = int(word)
    if not 0 <= value <= 25:
        raise RecordFormatError(f"line {line}: no point {value} on a board (0..25)")
    if first and value == 0:
        raise RecordFormatError(f"line {line}: a move cannot start from 0 (off)")
    if not first and value == 25:
        raise RecordFormatError(f"line {line}: a move cannot end on 25 (the bar)")
    return value


def parse_move(token: str, line: int = 0) -> MatMove:
    """One move token (``24/18``, ``bar/22*``, ``13/7*/1``, ``6/off(2)``, ``25/21``, ``3/0``)."""
    m = _MOVE_RE.match(token)
    if m is None:
        raise RecordFormatError(f"line {line}: not a move: {token!r}")
    path = [_point(m.group(1), line, first=True)]
    hits: set[int] = set()
    for part in m.group(2).split("/")[1:]:
        hit = part.endswith("*")
        point = _point(part.rstrip("*"), line, first=False)
        path.append(point)
        if hit:
            if point == OFF_POINT:
                raise RecordFormatError(f"line {line}: cannot hit off the board: {token!r}")
            hits.add(point)
    for a, b in itertools.pairwise(path):
        if b >= a:
            raise RecordFormatError(
                f"line {line}: move {token!r} goes backwards ({a} to {b}); checkers move to lower"
                " points (BG-MOVE-1)"
            )
    count = int(m.group(3)) if m.group(3) else 1
    if not 1 <= count <= 4:
        raise RecordFormatError(f"line {line}: a move is repeated 1..4 times, not {count}")
    return MatMove(tuple(path), frozenset(hits), count)


def _parse_moves(text: str, line: int) -> tuple[tuple[MatMove, ...], bool]:
    body = text.strip()
    if not body:
        return (), False
    if _CANNOT_RE.match(body):
        return (), True
    return tuple(parse_move(tok, line) for tok in body.split()), False


@dataclass
class _RawAction:
    offset: int
    kind: ActionKind
    text: str
    match: re.Match[str]
    tail: str = ""


def _split_actions(body: str, base: int, line: int) -> list[_RawAction]:
    """The actions written in the part of a line after the move number, with their columns."""
    found: list[_RawAction] = []
    pos = 0
    for m in _ACTION_RE.finditer(body):
        gap = body[pos : m.start()]
        if found and found[-1].kind is ActionKind.ROLL:
            found[-1].tail = gap
        elif gap.strip():
            raise RecordFormatError(f"line {line}: cannot read {gap.strip()!r}")
        kind = next(k for k in ActionKind if m.group(k.value))
        found.append(_RawAction(base + m.start(), kind, m.group(0), m))
        pos = m.end()
    rest = body[pos:]
    if found and found[-1].kind is ActionKind.ROLL:
        found[-1].tail = rest
    elif rest.strip():
        raise RecordFormatError(f"line {line}: cannot read {rest.strip()!r}")
    return found


def _build_action(raw: _RawAction, player: int, line: int) -> MatAction:
    m = raw.match
    text = (raw.text + raw.tail).strip()
    if raw.kind is ActionKind.ROLL:
        dice = (int(raw.text[0]), int(raw.text[1]))
        moves, cannot = _parse_moves(raw.tail, line)
        return MatAction(line, player, raw.kind, text, dice=dice, moves=moves, cannot_move=cannot)
    if raw.kind in (ActionKind.DOUBLE, ActionKind.BEAVER):
        value = int(m.group("dvalue" if raw.kind is ActionKind.DOUBLE else "bvalue"))
        if value < 2 or value & (value - 1):
            raise RecordFormatError(
                f"line {line}: a {raw.kind.value} goes to a power of two, not {value}"
            )
        return MatAction(line, player, raw.kind, text, value=value)
    if raw.kind is ActionKind.WIN:
        points = int(m.group("wpoints"))
        if points < 1:
            raise RecordFormatError(f"line {line}: a game is worth at least 1 point, not {points}")
        return MatAction(
            line, player, raw.kind, text, value=points, and_match=bool(m.group("wmatch"))
        )
    if raw.kind is ActionKind.LOSS:
        return MatAction(line, player, raw.kind, text, value=int(m.group("lpoints")))
    return MatAction(line, player, raw.kind, text)


def parse_mat(text: str) -> MatMatch:
    """Parse the text of a ``.mat`` file; RecordFormatError names the first bad line."""
    lines = text.splitlines()
    tags: list[tuple[str, str]] = []
    comments: list[str] = []
    length: int | None = None
    games: list[tuple[int, int, tuple[int, int], list[tuple[int, int, list[_RawAction]]]]] = []
    players: tuple[str, str] | None = None
    expect_score = False
    for number, raw_line in enumerate(lines, start=1):
        line = raw_line.rstrip("\r\n").replace("\t", "    ")
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(";"):
            tag = _TAG_RE.match(stripped)
            if tag:
                tags.append((tag.group(1).strip(), tag.group(2)))
            else:
                comments.append(stripped[1:].strip())
            continue
        if expect_score:
            score = _SCORE_RE.match(line)
            if score is None:
                raise RecordFormatError(
                    f"line {number}: expected the score line 'name : n   name : n' after"
                    f" 'Game {games[-1][0]}', found {stripped!r}"
                )
            names = (score.group(1), score.group(3))
            if players is None:
                players = names
            elif names != players:
                raise RecordFormatError(
                    f"line {number}: players {names[0]!r} and {names[1]!r} differ from the first"
                    f" game's {players[0]!r} and {players[1]!r}"
                )
            num, at, _, actions = games[-1]
            games[-1] = (num, at, (int(score.group(2)), int(score.group(4))), actions)
            expect_score = False
            continue
        if length is None:
            m = _LENGTH_RE.match(line)
            if m is None:
                raise RecordFormatError(
                    f"line {number}: expected 'N point match' before anything else, found"
                    f" {stripped!r}"
                )
            length = int(m.group(1))
            continue
        game = _GAME_RE.match(line)
        if game:
            games.append((int(game.group(1)), number, (0, 0), []))
            expect_score = True
            continue
        if not games:
            raise RecordFormatError(f"line {number}: expected 'Game 1', found {stripped!r}")
        numbered = _NUMBERED_RE.match(line)
        prefix_len = len(numbered.group(1)) if numbered else 0
        body = numbered.group(2) if numbered else line
        if _LENGTH_RE.match(line):
            raise RecordFormatError(f"line {number}: a second 'N point match' line")
        found = _split_actions(body, prefix_len, number)
        if not found:
            if numbered:
                continue  # an empty numbered line: nothing happened
            raise RecordFormatError(f"line {number}: cannot read {stripped!r}")
        move_number = int(numbered.group(1).strip().rstrip(")")) if numbered else 0
        games[-1][3].append((number, move_number, found))
    if length is None:
        raise RecordFormatError("line 1: no 'N point match' line: not a .mat match record")
    if expect_score:
        raise RecordFormatError(f"line {len(lines)}: the file ends before the score line")
    if players is None:
        raise RecordFormatError(f"line {len(lines)}: no game in the record")
    right = _right_column(games)
    out_games: list[MatGame] = []
    expected_number = 1
    for num, at, start_score, rows in games:
        if num != expected_number:
            raise RecordFormatError(f"line {at}: game {num} follows game {expected_number - 1}")
        expected_number += 1
        actions_out: list[MatAction] = []
        for number, move_number, raws in rows:
            owners = _players(raws, right, number, opens_game=not actions_out)
            for raw, player in zip(raws, owners, strict=True):
                action = _build_action(raw, player, number)
                actions_out.append(dataclasses.replace(action, number=move_number))
        out_games.append(MatGame(num, at, start_score, tuple(actions_out)))
    return MatMatch(length, players, tuple(out_games), tuple(tags), tuple(comments))


def _rolled_then_won(raws: list[_RawAction]) -> bool:
    """True for a line holding a roll with no move and then a ``Wins``: a resignation instead
    of the move, whose ``Wins`` GNU Backgammon writes in the winner's column, sometimes right
    after the roll in the left one (``  1) 53:       Wins 2 points``)."""
    return (
        len(raws) == 2
        and raws[0].kind is ActionKind.ROLL
        and not raws[0].tail.strip()
        and raws[1].kind is ActionKind.WIN
    )


def _players(raws: list[_RawAction], right: int, line: int, *, opens_game: bool) -> list[int]:
    """The player of each action on a line: by column for one action, left then right for two.
    A ``Wins`` left of the right column after a roll with no move is the left player's (the
    column names the winner). GNU Backgammon writes a game's very first roll in the left
    column whoever rolled, and only the player on roll may resign there, so a game that opens
    so was resigned by the roller: the roll is the right player's. A line of three actions is
    a left action, then the right player's roll with no move and their ``Wins`` right after it
    (``36: 24/18 8/5   43:  Wins 1 point``: GNU Backgammon's export of a resignation on
    seeing the roll)."""
    if len(raws) == 1:
        return [1 if raws[0].offset >= right else 0]
    if len(raws) == 2:
        if _rolled_then_won(raws) and raws[1].offset < right:
            return [1, 0] if opens_game else [0, 0]
        return [0, 1]
    if len(raws) == 3 and raws[1].offset >= right and _rolled_then_won(raws[1:]):
        return [0, 1, 1]  # gnubg: the right player rolled and the opponent resigned on seeing it
    raise RecordFormatError(
        f"line {line}: more than two actions on one line: "
        + ", ".join(repr(r.text.strip()) for r in raws)
    )


def _right_column(
    games: list[tuple[int, int, tuple[int, int], list[tuple[int, int, list[_RawAction]]]]],
) -> int:
    """Where the second player's column starts: the usual offset of the second of two actions
    on a line, less a little slack for hand-aligned files. A ``Wins`` after a roll with no move
    does not count: GNU Backgammon may write it right after the roll, in the left column."""
    seconds = Counter(
        raws[1].offset
        for _, _, _, rows in games
        for _, _, raws in rows
        if len(raws) == 2 and not _rolled_then_won(raws)
    )
    if not seconds:
        return 20
    return min(seconds) - 2


def parse_mat_bytes(data: bytes) -> MatMatch:
    """Parse the bytes of a ``.mat`` file: UTF-8 (with or without BOM), else Latin-1. The
    engine does no I/O: callers read the file."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    if "\x00" in text:
        raise RecordFormatError("line 1: binary data, not a .mat text record")
    return parse_mat(text)


__all__ = [
    "BAR_POINT",
    "OFF_POINT",
    "ActionKind",
    "MatAction",
    "MatGame",
    "MatMatch",
    "MatMove",
    "parse_mat",
    "parse_mat_bytes",
    "parse_move",
]
