"""The Mangala position value and its JSON form (the DESIGN.md contract).

JSON: ``{"a": [6 ints], "a_store": n, "b": [6 ints], "b_store": n, "to_move": "a"|"b"|null}``.
Each side's pits are numbered 1..6 from that player's left to right; sowing goes to the right:
own pit 6, own store, the opponent's pits 1..6 (their store skipped), own pit 1... The pit
opposite own pit ``i`` is the opponent's pit ``7 - i`` (MG-EQ-1, MG-1, MG-2).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from engine.errors import PositionError

Side = Literal["a", "b"]
SIDES: tuple[Side, Side] = ("a", "b")
PITS = 6
STONES = 48
STONES_PER_PIT = 4
JSON_KEYS = ("a", "a_store", "b", "b_store", "to_move")


def other(side: Side) -> Side:
    """The opponent of ``side``."""
    return "b" if side == "a" else "a"


def opposite_pit(pit: int) -> int:
    """The opponent's pit facing one's own pit ``pit`` (1..6): pit 7 - i (DESIGN.md contract)."""
    if not 1 <= pit <= PITS:
        raise PositionError(f"pit {pit} is not a pit number 1..6")
    return PITS + 1 - pit


@dataclass(frozen=True)
class Position:
    """A Mangala board: both sides' pits and stores and whose turn it is.

    ``to_move`` is ``None`` once the set is over (or, for an observed position, when the turn
    is not known). The constructor checks the shape only; :meth:`check_stones` checks the 48.
    """

    a: tuple[int, ...]
    a_store: int
    b: tuple[int, ...]
    b_store: int
    to_move: Side | None

    def __post_init__(self) -> None:
        for side, pits in (("a", self.a), ("b", self.b)):
            if len(pits) != PITS:
                raise PositionError(f"side {side} has {len(pits)} pits, not 6: {list(pits)}")
            for value in pits:
                if not _is_count(value):
                    raise PositionError(f"side {side} pit count {value!r} is not a count >= 0")
        for key, value in (("a_store", self.a_store), ("b_store", self.b_store)):
            if not _is_count(value):
                raise PositionError(f"{key} {value!r} is not a count >= 0")
        if self.to_move not in ("a", "b", None):
            raise PositionError(f'to_move {self.to_move!r} is not "a", "b" or null')

    # --- construction -------------------------------------------------------------------

    @classmethod
    def initial(cls, to_move: Side = "a") -> Position:
        """The start of a set: 4 stones in each of the 12 pits, stores empty (MG-EQ-1)."""
        four = (STONES_PER_PIT,) * PITS
        return cls(four, 0, four, 0, to_move)

    @classmethod
    def from_obj(cls, obj: Any, *, turn_required: bool = True) -> Position:
        """The position from a decoded JSON object; :class:`PositionError` names what is wrong.

        With ``turn_required`` false, a missing ``to_move`` reads as ``None`` (unknown).
        """
        if not isinstance(obj, dict):
            raise PositionError(f"a mangala position is a JSON object, not {_short(obj)}")
        unknown = sorted(str(k) for k in obj if k not in JSON_KEYS)
        if unknown:
            raise PositionError(f"unknown key {unknown[0]!r} in mangala position")
        for key in ("a", "a_store", "b", "b_store"):
            if key not in obj:
                raise PositionError(f"mangala position has no {key!r}")
        if turn_required and "to_move" not in obj:
            raise PositionError("mangala position has no 'to_move'")
        pits: dict[str, tuple[int, ...]] = {}
        for key in ("a", "b"):
            value = obj[key]
            if not isinstance(value, list):
                raise PositionError(f"{key!r} must be a list of 6 counts, not {_short(value)}")
            pits[key] = tuple(value)
        to_move = obj.get("to_move")
        if to_move not in ("a", "b", None):
            raise PositionError(f'to_move {to_move!r} is not "a", "b" or null')
        return cls(pits["a"], obj["a_store"], pits["b"], obj["b_store"], to_move)

    @classmethod
    def from_json(cls, text: str, *, turn_required: bool = True) -> Position:
        """The position from its JSON text."""
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PositionError(
                f"mangala position is not valid JSON: {_short(text)} ({exc.msg})"
            ) from None
        except RecursionError:
            raise PositionError(
                f"mangala position is not valid JSON: {_short(text)} (nested too deeply)"
            ) from None
        return cls.from_obj(obj, turn_required=turn_required)

    # --- views --------------------------------------------------------------------------

    def to_obj(self) -> dict[str, Any]:
        """The JSON object of the contract, keys in contract order."""
        return {
            "a": list(self.a),
            "a_store": self.a_store,
            "b": list(self.b),
            "b_store": self.b_store,
            "to_move": self.to_move,
        }

    def to_json(self) -> str:
        """One-line JSON text of the position."""
        return json.dumps(self.to_obj(), separators=(", ", ": "))

    def pits(self, side: Side) -> tuple[int, ...]:
        """The six pits of ``side``, numbered 1..6 from that player's left."""
        return self.a if side == "a" else self.b

    def store(self, side: Side) -> int:
        """The stones in the store of ``side``."""
        return self.a_store if side == "a" else self.b_store

    def total(self) -> int:
        """All stones on the board, stores included (48 in a real set, MG-EQ-1)."""
        return sum(self.a) + sum(self.b) + self.a_store + self.b_store

    def side_empty(self, side: Side) -> bool:
        """True when all six pits of ``side`` are empty (the set is then over, MG-4)."""
        return not any(self.pits(side))

    @property
    def set_over(self) -> bool:
        """True when either side's six pits are empty (MG-4)."""
        return self.side_empty("a") or self.side_empty("b")

    def board(self) -> tuple[int, ...]:
        """The 14 counts a1..a6, a_store, b1..b6, b_store: the position without the turn."""
        return (*self.a, self.a_store, *self.b, self.b_store)

    def with_turn(self, to_move: Side | None) -> Position:
        """The same board with another player to move."""
        return Position(self.a, self.a_store, self.b, self.b_store, to_move)

    def check_stones(self) -> None:
        """Raise :class:`PositionError` unless the board holds exactly 48 stones (MG-EQ-1)."""
        total = self.total()
        if total != STONES:
            raise PositionError(f"position has {total} stones; mangala is played with 48 (MG-EQ-1)")

    def describe(self) -> str:
        """The board as a person reads it: ``a 4 4 4 4 4 4 [0] | b 4 4 4 4 4 4 [0]``."""
        turn = f", {self.to_move} to move" if self.to_move else ""
        return (
            f"a {' '.join(map(str, self.a))} [{self.a_store}] | "
            f"b {' '.join(map(str, self.b))} [{self.b_store}]{turn}"
        )

    @classmethod
    def from_board(cls, board: tuple[int, ...] | list[int], to_move: Side | None) -> Position:
        """The position from the 14 counts of :meth:`board`."""
        if len(board) != 2 * PITS + 2:
            raise PositionError(f"a board has 14 counts, not {len(board)}")
        return cls(tuple(board[0:6]), board[6], tuple(board[7:13]), board[13], to_move)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = [
    "PITS",
    "SIDES",
    "STONES",
    "Position",
    "Side",
    "opposite_pit",
    "other",
]
