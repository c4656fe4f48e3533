"""Playing one pit: sowing, captures, the extra turn and the end of the set (MG-1..MG-4).

The board is handled as a ring of 14 slots seen from the mover: own pits 1..6 at indices 0..5,
own store at 6, the opponent's pits 1..6 at 7..12 and the opponent's store at 13, which sowing
skips (MG-2). Own pit ``i`` faces the opponent's pit ``7 - i``: ring index ``k`` faces ``12 - k``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.errors import PositionError, RuleViolationError
from engine.mangala.position import PITS, STONES, Position, Side, other

Winner = Literal["a", "b", "draw"]
OWN_STORE = 6
OPP_STORE = 13
RING = 13  # slots a sowing visits: the opponent's store is never sown into (MG-2)


@dataclass(frozen=True)
class MoveResult:
    """Everything one move did, for the CLI, the judge and the record.

    ``position`` is the final position (the MG-4 sweep made, ``to_move`` None once the set is
    over); ``sown`` is the board straight after sowing and capture, before any sweep.
    ``captured`` counts the stones an MG-2 or MG-3 capture put into the mover's store, the
    mover's own capturing stone included for MG-3. ``extra_turn`` is true when the last stone
    fell into the mover's store and the set goes on (MG-1); once the set is over nobody moves.
    """

    before: Position
    mover: Side
    pit: int
    position: Position
    sown: Position
    last_slot: int
    captured: int
    capture_rule: str | None
    extra_turn: bool
    set_over: bool
    swept: int
    sweeper: Side | None
    winner: Winner | None

    @property
    def last_place(self) -> str:
        """Where the last stone fell, in words (``"b's pit 3"``, ``"a's store"``)."""
        return slot_name(self.mover, self.last_slot)


def to_ring(position: Position, mover: Side) -> list[int]:
    """The 14 slots of ``position`` in ``mover``'s ring order."""
    opp = other(mover)
    return [
        *position.pits(mover),
        position.store(mover),
        *position.pits(opp),
        position.store(opp),
    ]


def from_ring(ring: list[int], mover: Side, to_move: Side | None) -> Position:
    """The position whose ``mover``-ring is ``ring``."""
    own = tuple(ring[0:6])
    opp = tuple(ring[7:13])
    if mover == "a":
        return Position(own, ring[6], opp, ring[13], to_move)
    return Position(opp, ring[13], own, ring[6], to_move)


def slot_name(mover: Side, slot: int) -> str:
    """A ring slot in words: ``"a's pit 4"``, ``"b's store"``."""
    opp = other(mover)
    if 0 <= slot <= 5:
        return f"{mover}'s pit {slot + 1}"
    if slot == OWN_STORE:
        return f"{mover}'s store"
    if 7 <= slot <= 12:
        return f"{opp}'s pit {slot - 6}"
    return f"{opp}'s store"


def facing(slot: int) -> int:
    """The ring slot across the board from own-pit slot ``slot`` (own pit i faces opp pit 7-i)."""
    return 12 - slot


def sow_path(start: int, stones: int) -> list[int]:
    """The ring slots the stones of own-pit slot ``start`` fall into, in order (MG-1, MG-2).

    The first stone goes back into the pit it came from; a single stone moves one pit right.
    """
    if stones == 1:
        return [start + 1]
    return [(start + j) % RING for j in range(stones)]


def legal_pits(position: Position) -> list[int]:
    """The pits (1..6) the player to move may play: the non-empty ones, none once over (MG-1)."""
    side = position.to_move
    if side is None or position.set_over:
        return []
    return [i + 1 for i, n in enumerate(position.pits(side)) if n > 0]


def winner_of(position: Position) -> Winner:
    """The set's winner by stores (MG-4): most stones wins, equal stores (24-24) draw."""
    if position.a_store > position.b_store:
        return "a"
    if position.b_store > position.a_store:
        return "b"
    return "draw"


def stones(n: int) -> str:
    """``n`` stones as a sentence says it ("1 stone", "3 stones")."""
    return f"{n} stone" if n == 1 else f"{n} stones"


def play(position: Position, pit: int) -> MoveResult:
    """Sow ``pit`` (1..6) of the player to move and apply every consequence (MG-1..MG-4).

    Raises :class:`RuleViolationError` for a move the rules forbid (set over, empty pit) and
    :class:`PositionError` for a pit number out of range or a board without 48 stones.
    """
    if isinstance(pit, bool) or not isinstance(pit, int) or not 1 <= pit <= PITS:
        raise PositionError(f"pit {pit!r} is not a pit number 1..6")
    position.check_stones()
    mover = position.to_move
    if mover is None and not position.set_over:
        raise PositionError("to_move is null but the set is not over: say who moves, a or b")
    if mover is None or position.set_over:
        raise RuleViolationError("the set is over: no move can be played (MG-4)")
    ring = to_ring(position, mover)
    start = pit - 1
    stones = ring[start]
    if stones == 0:
        raise RuleViolationError(
            f"{mover}'s pit {pit} is empty: a move takes the stones of a non-empty pit (MG-1)"
        )
    ring[start] = 0
    path = sow_path(start, stones)
    for slot in path:
        ring[slot] += 1
    last = path[-1]
    captured = 0
    rule: str | None = None
    if 7 <= last <= 12 and ring[last] % 2 == 0:
        captured = ring[last]
        ring[OWN_STORE] += captured
        ring[last] = 0
        rule = "MG-2"
    elif 0 <= last <= 5 and ring[last] == 1 and ring[facing(last)] > 0:
        captured = ring[facing(last)] + 1
        ring[OWN_STORE] += captured
        ring[last] = 0
        ring[facing(last)] = 0
        rule = "MG-3"
    own_empty = not any(ring[0:6])
    opp_empty = not any(ring[7:13])
    set_over = own_empty or opp_empty
    landed_in_store = last == OWN_STORE
    sown = from_ring(ring, mover, None if set_over else mover)
    swept = 0
    sweeper: Side | None = None
    if set_over:
        # MG-4: the player whose side emptied takes every stone left on the other side.
        if own_empty and not opp_empty:
            sweeper = mover
            swept = sum(ring[7:13])
            ring[OWN_STORE] += swept
            ring[7:13] = [0] * PITS
        elif opp_empty and not own_empty:
            sweeper = other(mover)
            swept = sum(ring[0:6])
            ring[OPP_STORE] += swept
            ring[0:6] = [0] * PITS
        to_move: Side | None = None
    else:
        to_move = mover if landed_in_store else other(mover)
    final = from_ring(ring, mover, to_move)
    assert final.total() == STONES
    return MoveResult(
        before=position,
        mover=mover,
        pit=pit,
        position=final,
        sown=sown if set_over else final,
        last_slot=last,
        captured=captured,
        capture_rule=rule,
        extra_turn=landed_in_store and not set_over,
        set_over=set_over,
        swept=swept,
        sweeper=sweeper,
        winner=winner_of(final) if set_over else None,
    )


def explain(result: MoveResult) -> str:
    """One or two sentences saying what the move did, with the rule IDs."""
    parts = [f"{result.mover} sows pit {result.pit}; the last stone falls into {result.last_place}"]
    if result.capture_rule == "MG-2":
        parts.append(f"making it even: {stones(result.captured)} captured (MG-2)")
    elif result.capture_rule == "MG-3":
        opp_pit = PITS + 1 - (result.last_slot + 1)
        parts.append(
            f"which was empty: the {stones(result.captured - 1)} of "
            f"{other(result.mover)}'s pit {opp_pit} and the capturing stone go to the store (MG-3)"
        )
    text = ", ".join(parts) + "."
    if result.extra_turn:
        text += f" {result.mover} moves again (MG-1)."
    if result.set_over:
        if result.sweeper is not None:
            text += (
                f" {result.sweeper}'s side emptied first: {result.sweeper} takes the "
                f"{stones(result.swept)} left on the other side (MG-4)."
            )
        else:
            text += " Both sides are empty (MG-4)."
        final = result.position
        if result.winner == "draw":
            text += f" The set is drawn {final.a_store}-{final.b_store} (MG-4)."
        else:
            text += (
                f" The set is over: {result.winner} wins {final.a_store}-{final.b_store} (MG-4)."
            )
    return text


__all__ = [
    "MoveResult",
    "Winner",
    "explain",
    "from_ring",
    "legal_pits",
    "play",
    "slot_name",
    "sow_path",
    "stones",
    "to_ring",
    "winner_of",
]
