"""The backgammon position value type and GNU Backgammon Position IDs.

A :class:`Position` is seen from the player on roll ("we"). ``board`` holds 26 ints:
index 1..24 are our points in our numbering (BG-EQ-3: home board 1..6), positive counts are our
checkers and negative counts the opponent's (their point ``q`` is our index ``25 - q``); index 25
is our bar (>= 0) and index 0 the opponent's bar (<= 0). Borne-off checkers are not stored: they
are 15 minus the checkers on the board.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engine.errors import PositionError

CHECKERS = 15
BAR = 25
OFF = 0

_ID_RE = re.compile(r"[A-Za-z0-9+/]{14}")
_INITIAL = (0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0)


@dataclass(frozen=True, slots=True)
class Position:
    """An immutable backgammon position from the view of the player on roll."""

    board: tuple[int, ...]

    def __post_init__(self) -> None:
        _validate(self.board)

    @classmethod
    def _trusted(cls, board: tuple[int, ...]) -> Position:
        """Build without validation (for boards the engine itself produced)."""
        pos = object.__new__(cls)
        object.__setattr__(pos, "board", board)
        return pos

    @classmethod
    def initial(cls) -> Position:
        """The starting position (BG-EQ-3): 2 on 24, 5 on 13, 3 on 8, 5 on 6 for each side."""
        return cls._trusted(_INITIAL)

    @classmethod
    def from_checkers(
        cls, mine: Mapping[int, int], theirs: Mapping[int, int] | None = None
    ) -> Position:
        """Build from ``{point: count}`` maps, each in that player's own numbering (25 = bar)."""
        board = [0] * 26
        for point, count in mine.items():
            if not 1 <= point <= 25 or count < 0:
                raise PositionError(f"bad point or count for the player on roll: {point}: {count}")
            board[point] += count
        for point, count in (theirs or {}).items():
            if not 1 <= point <= 25 or count < 0:
                raise PositionError(f"bad point or count for the opponent: {point}: {count}")
            index = 25 - point
            if count and board[index] > 0:
                raise PositionError(f"both players have checkers on point {index}")
            board[index] -= count
        return cls(tuple(board))

    @classmethod
    def from_id(cls, position_id: str) -> Position:
        """Decode a GNU Backgammon Position ID (14 base64 characters)."""
        return cls._trusted(decode_position_id(position_id))

    @property
    def position_id(self) -> str:
        """The GNU Backgammon Position ID, exactly as gnubg prints it."""
        return encode_position_id(self.board)

    def swap(self) -> Position:
        """The same position seen by the other player (whose turn it becomes)."""
        b = self.board
        return Position._trusted(tuple(-b[25 - i] for i in range(26)))

    @property
    def my_off(self) -> int:
        """Checkers the player on roll has borne off."""
        return CHECKERS - sum(c for c in self.board if c > 0)

    @property
    def their_off(self) -> int:
        """Checkers the opponent has borne off."""
        return CHECKERS + sum(c for c in self.board if c < 0)

    @property
    def my_pips(self) -> int:
        """Pip count of the player on roll (the bar counts 25)."""
        b = self.board
        return sum(i * b[i] for i in range(1, 26) if b[i] > 0)

    @property
    def their_pips(self) -> int:
        """Pip count of the opponent in their own numbering (their bar counts 25)."""
        b = self.board
        return sum((25 - i) * -b[i] for i in range(25) if b[i] < 0)

    @property
    def my_bar(self) -> int:
        """Checkers of the player on roll on the bar."""
        return self.board[25]

    @property
    def their_bar(self) -> int:
        """Opponent checkers on the bar."""
        return -self.board[0]

    def mine(self, point: int) -> int:
        """Our checkers on ``point`` (our numbering, 25 = bar)."""
        c = self.board[point]
        return c if c > 0 else 0

    def theirs(self, point: int) -> int:
        """Opponent checkers on ``point`` in THEIR numbering (25 = their bar)."""
        c = self.board[25 - point]
        return -c if c < 0 else 0

    def apply_steps(self, steps: Iterable[tuple[int, int]]) -> Position:
        """Move checkers physically (``(from, to)``, 25 = bar, 0 = off), hitting lone blots.

        No legality check beyond what the board can represent: a missing checker or a landing
        on two or more opposing checkers raises :class:`PositionError`.
        """
        board = list(self.board)
        for src, dst in steps:
            if not 1 <= src <= 25 or not 0 <= dst <= 24:
                raise PositionError(f"no such move: {src}/{dst}")
            if board[src] <= 0:
                raise PositionError(f"no checker to move on point {_name(src)}")
            board[src] -= 1
            if dst == OFF:
                continue
            here = board[dst]
            if here == -1:
                board[dst] = 0
                board[0] -= 1
            elif here < -1:
                raise PositionError(f"point {dst} holds {-here} opposing checkers")
            board[dst] += 1
        return Position._trusted(tuple(board))

    def __str__(self) -> str:
        return self.position_id


def _name(point: int) -> str:
    return "bar" if point == BAR else str(point)


def _validate(board: tuple[int, ...]) -> None:
    if not isinstance(board, tuple) or len(board) != 26:
        raise PositionError("a board has 26 entries (opponent bar, points 1..24, our bar)")
    if board[25] < 0 or board[0] > 0:
        raise PositionError(f"bad bar counts: ours {board[25]}, theirs {board[0]}")
    mine = sum(c for c in board if c > 0)
    theirs = -sum(c for c in board if c < 0)
    if mine > CHECKERS or theirs > CHECKERS:
        raise PositionError(f"too many checkers: {mine} and {theirs} (at most 15 each)")


# "0" followed by c ones: one point's run of the key, written most significant bit first.
_RUN = ["0" + "1" * c for c in range(16)]
_b2a = binascii.b2a_base64


def encode_position_id(board: tuple[int, ...]) -> str:
    """Encode a board as gnubg does (checked against gnubg itself).

    The 80-bit key lists, least significant bit first, the player NOT on roll (their points
    1..24, then their bar) and then the player on roll, each point as that many 1-bits and a
    0-bit; the 10 bytes, little-endian, in base64 without padding. The key is built here as a
    binary string from its most significant end, so both sides are walked backwards.
    """
    run = _RUN
    text = "".join(
        [run[c] if c > 0 else "0" for c in board[25:0:-1]]
        + [run[-c] if c < 0 else "0" for c in board[0:25]]
    )
    return _b2a(int(text, 2).to_bytes(10, "little"), newline=False)[:14].decode("ascii")


def decode_position_id(position_id: str) -> tuple[int, ...]:
    """Decode a Position ID into a board, refusing malformed or impossible ones."""
    if not isinstance(position_id, str) or not _ID_RE.fullmatch(position_id):
        raise PositionError(f"not a position id (14 base64 characters): {position_id!r}")
    if position_id[13] not in "AQgw":  # the last character carries 2 bits and 4 zero bits
        raise PositionError(f"not a position id (bad last character): {position_id!r}")
    try:
        raw = base64.b64decode(position_id + "==", validate=True)
    except binascii.Error as exc:  # pragma: no cover - the regex already guards this
        raise PositionError(f"not a position id: {position_id!r}") from exc
    key = int.from_bytes(raw, "little")
    # The key as a bit string in stream order (least significant first): runs of 1s between 0s.
    runs = format(key, "080b")[::-1].split("0")
    if len(runs) < 51:
        raise PositionError(f"position id too short for two sides: {position_id}")
    if any(runs[50:]):
        raise PositionError(f"position id has stray bits after both sides: {position_id}")
    sides = [[len(r) for r in runs[0:25]], [len(r) for r in runs[25:50]]]
    for counts in sides:
        if sum(counts) > CHECKERS:
            raise PositionError(f"more than 15 checkers for one side in {position_id}")
    theirs, ours = sides
    board = [0] * 26
    for i in range(24):
        board[i + 1] = ours[i]
    board[25] = ours[24]
    for q in range(24):
        if theirs[q]:
            index = 24 - q
            if board[index]:
                raise PositionError(f"both players have checkers on point {index} in {position_id}")
            board[index] = -theirs[q]
    board[0] = -theirs[24]
    return tuple(board)
