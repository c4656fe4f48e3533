"""The plain-text record of a Mangala round: its format and the entries its lines stand for.
The reader is :mod:`engine.mangala.record_reader`, the writer :mod:`~engine.mangala.record_writer`
(:mod:`~engine.mangala.record_builder` builds a record during play) and the replay check
:mod:`~engine.mangala.record_check` (its result in :mod:`~engine.mangala.record_result`).

One line per event, words separated by spaces, ``#`` to the end of a line is a comment::

    # hakem mangala round record
    player a Ayşe Yılmaz
    player b Mehmet Demir
    set 1 start a
    1 a 4 -> a 4 4 4 1 5 5 [1] b 4 4 4 4 4 4 [0] next a
    1 a 6 -> a 4 4 4 1 5 1 [2] b 5 5 5 4 4 4 [0] next b
    warning 1 b touched pit 3 and played pit 5
    position 1 a 4 4 4 1 5 5 [1] b 4 4 4 4 4 4 [0] next b
    timeout 1 b
    set 1 end a 20 b 16 winner a
    set 2 start b
    ...
    round end winner a points a 1 b 0

or, for a round a tournament director ended during set 2::

    ...
    set 2 start b
    2 b 4 -> a 4 4 4 4 4 4 [0] b 4 4 4 1 5 5 [1] next b
    director 2 end winner a b left the hall

A move line is: set, mover, pit, ``->``, then the position after it: side a's pits 1..6 and
``[store]``, side b's pits and ``[store]``, and ``next`` with the player to move (``-`` once the
set is over, the MG-4 sweep made). A ``position N ...`` line is a tournament director's
correction during set N: the position written (as after a move line's ``->``, with ``next a`` or
``next b``) replaces the one on the board, and play goes on from it; it must hold 48 stones
(MG-EQ-1). A ``director N end winner W [reason]`` line is a tournament director's decision
during set N (or just after it ended): the round ends there, won by W (a or b; round points
1 and 0, MG-T-1), with the director's reason if one was given; the set under way is not
scored and no further line may play on. A ``timeout N X`` line is for the player to move:
only the mover's time runs (MG-CLOCK-2), so a time-out of the other player is an illegal line.
``set N end`` and ``round end`` lines are optional; when present the replay checks them. The
reader rejects a malformed line naming its number; the replay
(:func:`~engine.mangala.record_check.check_record`) reports the first line the rules forbid,
with its rule ID.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.mangala.position import Position, Side
from engine.mangala.sowing import Winner


@dataclass(frozen=True)
class SetStart:
    """``set N start X``: set N begins with X to move (MG-T-2)."""

    line: int
    number: int
    starter: Side


@dataclass(frozen=True)
class Move:
    """``N X P -> ...``: in set N, X sowed pit P, giving ``after``."""

    line: int
    number: int
    mover: Side
    pit: int
    after: Position


@dataclass(frozen=True)
class SetPosition:
    """``position N a ... next X``: during set N the director set the board to ``position``."""

    line: int
    number: int
    position: Position


@dataclass(frozen=True)
class Caution:
    """``warning N X reason``: the referee warned X during set N (MG-T-4)."""

    line: int
    number: int
    player: Side
    reason: str


@dataclass(frozen=True)
class TimeOut:
    """``timeout N X``: X's time ran out in set N (MG-CLOCK-3)."""

    line: int
    number: int
    player: Side


@dataclass(frozen=True)
class SetEnd:
    """``set N end a S b S winner W``: the stores and result of set N as the recorder saw them."""

    line: int
    number: int
    a_store: int
    b_store: int
    winner: Winner


@dataclass(frozen=True)
class DirectorDecision:
    """``director N end winner W [reason]``: during set N a tournament director ended the round
    with W the winner, for ``reason`` (empty when none was given)."""

    line: int
    number: int
    winner: Side
    reason: str


@dataclass(frozen=True)
class RoundEnd:
    """``round end winner W points a P b P``: the round's result (MG-T-1)."""

    line: int
    winner: Winner
    a_points: float
    b_points: float


Entry = SetStart | Move | SetPosition | Caution | TimeOut | SetEnd | DirectorDecision | RoundEnd


@dataclass(frozen=True)
class RoundRecord:
    """A whole (or unfinished) round: the players' names and the events in order."""

    players: dict[Side, str] = field(default_factory=dict)
    entries: tuple[Entry, ...] = ()


__all__ = [
    "Caution",
    "DirectorDecision",
    "Entry",
    "Move",
    "RoundEnd",
    "RoundRecord",
    "SetEnd",
    "SetPosition",
    "SetStart",
    "TimeOut",
]
