"""Judging an observed before/after pair: which pit was played, or what went wrong and why.

The judge first tries every legal pit of the player to move (MG-1..MG-4). When none gives the
observed board it tries the mistakes players make (a stone sown into the opponent's store, the
first stone not put back, a pit skipped or sown twice, a capture missed or taken wrongly, the
sweep given to the wrong player, the other player moving, a stone gone or added) and names the
first that explains the board; failing that, it describes the difference from the closest
legal result. Every illegal verdict carries a rule ID and a sentence.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from engine.errors import PositionError
from engine.mangala.position import PITS, STONES, Position, Side, other
from engine.mangala.sowing import (
    OPP_STORE,
    OWN_STORE,
    RING,
    MoveResult,
    facing,
    from_ring,
    legal_pits,
    play,
    slot_name,
    sow_path,
    to_ring,
)
from engine.mangala.sowing import stones as stones_text  # ``stones`` names counts here

Board = tuple[int, ...]


@dataclass(frozen=True)
class Verdict:
    """The judge's answer.

    ``pits`` lists every pit that gives the observed board (several when they coincide);
    ``sweep_pending`` is true when the board is the one before the MG-4 sweep of a set that has
    just ended. For an illegal pair ``rule`` and ``reason`` say what is wrong and ``closest_pit``
    names the legal pit the explanation refers to, when there is one; ``result`` is then that
    pit's correct outcome (the ``expected`` position of the JSON).
    """

    legal: bool
    mover: Side | None
    pits: tuple[int, ...]
    rule: str | None
    reason: str
    sweep_pending: bool = False
    closest_pit: int | None = None
    result: MoveResult | None = None

    @property
    def pit(self) -> int | None:
        """The pit played when exactly one pit gives the observed board."""
        return self.pits[0] if self.legal and len(self.pits) == 1 else None

    def to_obj(self) -> dict[str, object]:
        """The JSON object ``hakem mangala judge --json`` prints."""
        return {
            "legal": self.legal,
            "mover": self.mover,
            "pit": self.pit,
            "pits": list(self.pits),
            "rule": self.rule,
            "reason": self.reason,
            "sweep_pending": self.sweep_pending,
            "closest_pit": self.closest_pit,
            "position": self.result.position.to_obj() if self.legal and self.result else None,
            "expected": (self.result.position.to_obj() if not self.legal and self.result else None),
        }


def judge(before: Position, after: Position) -> Verdict:
    """Judge the move that turned ``before`` into ``after``.

    ``before`` must be a real position (48 stones, a player to move unless the set is over);
    ``after`` is what was observed: any stone count, and ``to_move`` ``None`` when unknown.
    """
    before.check_stones()
    if before.to_move is None and not before.set_over:
        raise PositionError('the position before the move needs to_move "a" or "b"')
    mover = before.to_move
    if mover is None or before.set_over:
        return Verdict(False, None, (), "MG-4", "the set is already over: no move may be played.")
    results = [play(before, pit) for pit in legal_pits(before)]
    observed = after.board()

    matches = [r for r in results if r.position.board() == observed]
    if matches:
        return _verdict_for_matches(matches, after, sweep_pending=False)
    pending = [r for r in results if r.set_over and r.sown.board() == observed]
    if pending:
        return _verdict_for_matches(pending, after, sweep_pending=True)
    return _diagnose(before, after, mover, results)


def _verdict_for_matches(
    matches: list[MoveResult], after: Position, *, sweep_pending: bool
) -> Verdict:
    mover = matches[0].mover
    if after.to_move is not None:
        agreeing = [r for r in matches if r.position.to_move == after.to_move]
        if not agreeing:
            first = matches[0]
            return Verdict(
                False,
                mover,
                (),
                *_turn_error(first, after.to_move),
                closest_pit=first.pit,
                result=first,
            )
        matches = agreeing
    pits = tuple(r.pit for r in matches)
    first = matches[0]
    if len(pits) == 1:
        reason = _legal_sentence(first)
    else:
        names = ", ".join(map(str, pits[:-1])) + f" and {pits[-1]}"
        reason = f"{mover} played one of pits {names}: they all give this position. " + (
            _consequence_sentence(first)
        )
    if sweep_pending and first.sweeper is not None:
        reason += (
            f" The sweep is still to be made: {first.sweeper} takes the {stones_text(first.swept)} "
            f"left on the other side (MG-4)."
        )
    return Verdict(True, mover, pits, None, reason, sweep_pending, None, first)


def _legal_sentence(result: MoveResult) -> str:
    return f"{result.mover} played pit {result.pit}. " + _consequence_sentence(result)


def _consequence_sentence(result: MoveResult) -> str:
    if result.capture_rule == "MG-2":
        text = f"The last stone made {result.last_place} even: {result.captured} captured (MG-2)."
    elif result.capture_rule == "MG-3":
        text = (
            f"The last stone fell into empty {result.last_place}: {stones_text(result.captured)} "
            f"captured with it (MG-3)."
        )
    elif result.extra_turn:
        text = f"The last stone fell into {result.last_place}: {result.mover} moves again (MG-1)."
    else:
        text = f"The last stone fell into {result.last_place}."
    if result.set_over:
        text += " The set is over (MG-4)."
    elif not result.extra_turn:
        text += f" {other(result.mover)} to move."
    return text


def _turn_error(result: MoveResult, claimed: Side) -> tuple[str, str]:
    head = f"the board matches pit {result.pit}, but {claimed} is given to move: "
    if result.set_over:
        return "MG-4", head + "the set is over and nobody moves (MG-4)."
    if result.extra_turn:
        return "MG-1", head + (
            f"the last stone fell into {result.mover}'s store, so {result.mover} moves again "
            f"(MG-1)."
        )
    rule = result.capture_rule or "MG-1"
    return rule, head + f"the turn passes to {other(result.mover)} ({rule})."


# --- diagnosis -------------------------------------------------------------------------------


def _diagnose(before: Position, after: Position, mover: Side, results: list[MoveResult]) -> Verdict:
    observed = after.board()
    closest = min(results, key=lambda r: (_distance(r.position.board(), observed), r.pit))

    if observed == before.board():
        return Verdict(
            False,
            mover,
            (),
            "MG-1",
            f"the board has not changed: {mover} is to move and must sow a pit (MG-1).",
        )

    total = after.total()
    if total != STONES:
        return _count_error(after, mover, closest, total)

    opp = other(mover)
    if not before.side_empty(opp):
        for result in (
            play(before.with_turn(opp), pit) for pit in legal_pits(before.with_turn(opp))
        ):
            if observed in (result.position.board(), result.sown.board()):
                return Verdict(
                    False,
                    mover,
                    (),
                    "MG-1",
                    f"{opp}'s pit {result.pit} was sown, but it is {mover}'s turn: only the "
                    f"player to move sows, and only their own pits (MG-1).",
                    closest_pit=None,
                )

    for result in results:
        for board, rule, reason in _mistakes(before, mover, result):
            if board == observed:
                return Verdict(
                    False,
                    mover,
                    (),
                    rule,
                    f"pit {result.pit}: {reason}",
                    closest_pit=result.pit,
                    result=result,
                )
    return _difference(mover, closest, observed)


def _distance(x: Board, y: Board) -> int:
    return sum(abs(p - q) for p, q in zip(x, y, strict=True))


def _board_slot_name(index: int) -> str:
    """A slot of :meth:`Position.board` order (a1..a6, a store, b1..b6, b store) in words."""
    side = "a" if index < 7 else "b"
    local = index if index < 7 else index - 7
    return f"{side}'s store" if local == 6 else f"{side}'s pit {local + 1}"


def _differences(expected: Board, observed: Board) -> list[str]:
    out = []
    for i, (want, got) in enumerate(zip(expected, observed, strict=True)):
        if want != got:
            out.append(f"{_board_slot_name(i)} has {got} where it should have {want}")
    return out


def _count_error(after: Position, mover: Side, closest: MoveResult, total: int) -> Verdict:
    diffs = _differences(closest.position.board(), after.board())
    where = f" (closest is pit {closest.pit}: {_join(diffs[:3])})" if diffs else ""
    if total < STONES:
        missing = STONES - total
        noun = "stone is" if missing == 1 else "stones are"
        reason = (
            f"{total} stones on the board instead of 48: {missing} {noun} missing{where}; a "
            f"stone that leaves the board is put back by the referee only (MG-T-6)."
        )
        return Verdict(False, mover, (), "MG-T-6", reason, closest_pit=closest.pit, result=closest)
    extra = total - STONES
    noun = "stone" if extra == 1 else "stones"
    reason = (
        f"{total} stones on the board instead of 48: {extra} {noun} too many{where}; "
        f"mangala is played with 48 stones (MG-EQ-1)."
    )
    return Verdict(False, mover, (), "MG-EQ-1", reason, closest_pit=closest.pit, result=closest)


def _difference(mover: Side, closest: MoveResult, observed: Board) -> Verdict:
    expected = closest.position.board()
    diffs = _differences(expected, observed)
    opp_store = 13 if mover == "a" else 6
    own_store = 6 if mover == "a" else 13
    moved = observed[opp_store] - expected[opp_store]
    if closest.capture_rule and 0 < moved == expected[own_store] - observed[own_store]:
        # the capture went into the opponent's store
        rule = closest.capture_rule
        why = f"captured stones go into {mover}'s own store, not {other(mover)}'s ({rule})"
    elif moved > 0:
        rule, why = "MG-2", f"sowing skips {other(mover)}'s store (MG-2)"
    elif observed[own_store] != expected[own_store] and closest.capture_rule:
        rule = closest.capture_rule
        why = f"the capture is {stones_text(closest.captured)} ({rule})"
    elif observed[own_store] != expected[own_store] and closest.set_over:
        rule, why = "MG-4", "the end-of-set sweep goes to the player whose side emptied (MG-4)"
    else:
        rule, why = "MG-1", "a move sows all stones of the pit, one stone per pit (MG-1)"
    reason = (
        f"no legal move gives this position; the closest is pit {closest.pit}, but "
        f"{_join(diffs[:4])}: {why}."
    )
    return Verdict(False, mover, (), rule, reason, closest_pit=closest.pit, result=closest)


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# --- models of players' mistakes -------------------------------------------------------------


def _mistakes(
    before: Position, mover: Side, result: MoveResult
) -> Iterator[tuple[Board, str, str]]:
    """Boards a player gets by one typical mistake while playing ``result.pit``, with why."""
    ring0 = to_ring(before, mover)
    start = result.pit - 1
    stones = ring0[start]
    legal_path = sow_path(start, stones)
    last = legal_path[-1]
    sown = _sow(ring0, start, legal_path)

    # A capture due but not taken, or taken when not due (MG-2, MG-3).
    if result.capture_rule == "MG-2":
        for board in _endings(sown, mover):
            yield (
                board,
                "MG-2",
                (
                    f"the last stone made {slot_name(mover, last)} even ({sown[last]}): those "
                    f"stones go to {mover}'s store (MG-2)."
                ),
            )
    elif result.capture_rule == "MG-3":
        for board in _endings(sown, mover):
            yield (
                board,
                "MG-3",
                (
                    f"the last stone fell into empty {slot_name(mover, last)} facing "
                    f"{slot_name(mover, facing(last))} with {stones_text(sown[facing(last)])}: "
                    f"{'it' if sown[facing(last)] == 1 else 'those'} and the capturing stone go "
                    f"to {mover}'s store (MG-3)."
                ),
            )
        wrong = 7 + last  # the opponent's pit with the same number, not the facing one
        if wrong != facing(last):
            ring = list(sown)
            taken = ring[wrong] + 1
            ring[OWN_STORE] += taken
            ring[wrong] = 0
            ring[last] = 0
            for board in _endings(ring, mover):
                yield (
                    board,
                    "MG-3",
                    (
                        f"the pit facing {slot_name(mover, last)} is "
                        f"{slot_name(mover, facing(last))}, not {slot_name(mover, wrong)} (MG-3)."
                    ),
                )
    else:
        yield from _wrong_captures(sown, last, mover)

    # The sweep given to the wrong player (the Kalah way, MG-4).
    if result.set_over and result.sweeper is not None:
        ring = list(to_ring(result.sown, mover))
        loser = other(result.sweeper)
        if result.sweeper == mover:
            ring[OPP_STORE] += sum(ring[7:13])
            ring[7:13] = [0] * PITS
        else:
            ring[OWN_STORE] += sum(ring[0:6])
            ring[0:6] = [0] * PITS
        yield (
            tuple(from_ring(ring, mover, None).board()),
            "MG-4",
            (
                f"{result.sweeper}'s side emptied first, so {result.sweeper} takes the stones left "
                f"on {loser}'s side, not {loser} (MG-4)."
            ),
        )

    # Sowing along a wrong path: each gives both the captured and the uncaptured ending.
    for path, rule, reason in _wrong_paths(start, stones, mover, legal_path):
        ring = _sow(ring0, start, path)
        for board in _all_endings(ring, path[-1], mover):
            yield board, rule, reason


def _sow(ring0: list[int], start: int, path: list[int]) -> list[int]:
    ring = list(ring0)
    ring[start] = 0
    for slot in path:
        ring[slot] += 1
    return ring


def _taken(
    sown: list[int], pits: tuple[int, ...], mover: Side, rule: str, reason: str
) -> Iterator[tuple[Board, str, str]]:
    """Every ending of a sowing with the stones of ``pits`` moved into the mover's store."""
    ring = list(sown)
    for pit in pits:
        ring[OWN_STORE] += ring[pit]
        ring[pit] = 0
    for board in _endings(ring, mover):
        yield (board, rule, reason)


def _wrong_captures(sown: list[int], last: int, mover: Side) -> Iterator[tuple[Board, str, str]]:
    """Captures players take when none is due."""
    pit = slot_name(mover, last)
    if 7 <= last <= 12 and sown[last] % 2 == 1:
        yield from _taken(
            sown,
            (last,),
            mover,
            "MG-2",
            f"the last stone left {pit} odd ({sown[last]}): only an even count is captured (MG-2).",
        )
    if not 0 <= last <= 5:
        return
    if sown[last] > 1:
        yield from _taken(
            sown,
            (last, facing(last)),
            mover,
            "MG-3",
            f"the last stone fell into {pit}, which was not empty: nothing is captured (MG-3).",
        )
        if sown[last] % 2 == 0:
            yield from _taken(
                sown,
                (last,),
                mover,
                "MG-2",
                f"{pit} is on {mover}'s own side: only the opponent's pits are captured when"
                " made even (MG-2).",
            )
    elif sown[facing(last)] == 0:
        # The last stone fell into an empty own pit facing an empty pit: it stays (MG-3).
        yield from _taken(
            sown,
            (last,),
            mover,
            "MG-3",
            f"{slot_name(mover, facing(last))} is empty: nothing is captured and the stone"
            f" stays in {pit} (MG-3).",
        )


def _wrong_paths(
    start: int, stones: int, mover: Side, legal: list[int]
) -> Iterator[tuple[list[int], str, str]]:
    opp = other(mover)
    # A stone sown into the opponent's store.
    full = [(start + j) % 14 for j in range(stones)] if stones > 1 else [start + 1]
    if full != legal:
        yield full, "MG-2", f"a stone was sown into {opp}'s store, which sowing skips (MG-2)."
    # The first stone not put back into its own pit (the Kalah way).
    if stones > 1:
        yield (
            [(start + 1 + j) % RING for j in range(stones)],
            "MG-1",
            "the first stone goes back into the pit it was taken from (MG-1).",
        )
    # Sowing to the left (clockwise).
    left_ring = [*range(5, -1, -1), *range(12, 5, -1)]  # own 6..1, opp 6..1, own store
    if stones > 1:
        at = left_ring.index(start)
        path = [left_ring[(at + j) % RING] for j in range(stones)]
        yield path, "MG-1", "sowing goes to the right, counter-clockwise (MG-1)."
    elif start > 0:
        yield [start - 1], "MG-1", "a single stone moves to the pit on the right (MG-1)."
    # One pit skipped, or two stones into one pit.
    for i, slot in enumerate(legal):
        skipped = [*legal[:i], *_continue(legal, i, 1)]
        yield (
            skipped,
            "MG-1",
            (f"{slot_name(mover, slot)} was skipped: one stone goes into each pit in turn (MG-1)."),
        )
        if len(legal) > 1:
            doubled = [*legal[: i + 1], slot, *legal[i + 1 : -1]]
            yield (
                doubled,
                "MG-1",
                (
                    f"two stones went into {slot_name(mover, slot)}: one stone goes into each pit "
                    f"in turn (MG-1)."
                ),
            )


def _continue(legal: list[int], i: int, shift: int) -> list[int]:
    """The rest of a sowing from position ``i`` on when it jumps ``shift`` slots ahead."""
    rest = len(legal) - i
    first = legal[i]
    return [(first + shift + j) % RING for j in range(rest)]


def _all_endings(ring: list[int], last: int, mover: Side) -> Iterator[Board]:
    """The boards after a sowing ending in ``last``: capture applied as due, and not."""
    yield from _endings(ring, mover)
    captured = list(ring)
    if 7 <= last <= 12 and captured[last] % 2 == 0:
        captured[OWN_STORE] += captured[last]
        captured[last] = 0
    elif 0 <= last <= 5 and captured[last] == 1 and captured[facing(last)] > 0:
        captured[OWN_STORE] += captured[facing(last)] + 1
        captured[last] = 0
        captured[facing(last)] = 0
    else:
        return
    yield from _endings(captured, mover)


def _endings(ring: list[int], mover: Side) -> Iterator[Board]:
    """The board as is, and after the MG-4 sweep when a side is empty."""
    yield from_ring(ring, mover, None).board()
    own_empty = not any(ring[0:6])
    opp_empty = not any(ring[7:13])
    if own_empty != opp_empty:
        swept = list(ring)
        if own_empty:
            swept[OWN_STORE] += sum(swept[7:13])
            swept[7:13] = [0] * PITS
        else:
            swept[OPP_STORE] += sum(swept[0:6])
            swept[0:6] = [0] * PITS
        yield from_ring(swept, mover, None).board()


__all__ = ["Verdict", "judge"]
