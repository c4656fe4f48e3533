"""Legal play generation: every distinct legal resulting position for a roll.

Implements BG-MOVE-1..7, BG-BAR-1..4 and BG-OFF-1..3 of RULES.md. The search works on one
mutable list with make/undo and deduplicates results by the board tuple; doubles are searched
with the origins of the four moves in non-increasing order, which reaches every distinct result
once per multiset of moves instead of once per permutation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.backgammon.dice import check_dice
from engine.backgammon.notation import format_steps
from engine.backgammon.position import Position

Step = tuple[int, int]
Steps = tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class Play:
    """One legal play: its steps ``(from, to)`` (25 = bar, 0 = off) and the resulting position.

    ``result`` is still seen from the mover (not swapped). ``move`` is the usual text
    (``24/18 13/11*``, ``bar/22``, ``6/off``, ``6/4(2)``), built on first use and kept.
    """

    steps: Steps
    result: Position
    before: Position = field(repr=False, compare=False)
    _move: str = field(default="", init=False, repr=False, compare=False)

    @property
    def move(self) -> str:
        """The move in the usual notation (hits marked ``*``, repeats as ``(2)``)."""
        text = self._move
        if not text:
            text = format_steps(self.before.board, self.steps)
            object.__setattr__(self, "_move", text)
        return text

    @property
    def dice_used(self) -> int:
        """How many dice this play uses (0..4)."""
        return len(self.steps)


_new = object.__new__
_set_steps = Play.__dict__["steps"].__set__
_set_result = Play.__dict__["result"].__set__
_set_before = Play.__dict__["before"].__set__
_set_move = Play.__dict__["_move"].__set__
_set_board = Position.__dict__["board"].__set__


def make_play(before: Position, steps: Steps, result: tuple[int, ...]) -> Play:
    """Build a Play (and its result Position) without the dataclass __init__ overhead."""
    play = _new(Play)
    position = _new(Position)
    _set_board(position, result)
    _set_steps(play, steps)
    _set_result(play, position)
    _set_before(play, before)
    _set_move(play, "")
    return play


def single_moves(b: list[int], d: int, limit: int) -> list[Step]:
    """Legal single moves of die ``d`` on board ``b`` with origin <= ``limit``."""
    if b[25] > 0:
        dst = 25 - d
        return [(25, dst)] if b[dst] >= -1 else []
    hi = 24
    while hi > 0 and b[hi] <= 0:
        hi -= 1
    top = limit if limit < hi else hi
    if hi > 6:  # BG-OFF-1: no bearing off while a checker is outside the home board
        return [(p, p - d) for p in range(top, d, -1) if b[p] > 0 and b[p - d] >= -1]
    out: list[Step] = []
    for p in range(top, 0, -1):
        if b[p] > 0:
            dst = p - d
            if dst > 0:
                if b[dst] >= -1:
                    out.append((p, dst))
            elif dst == 0 or p == hi:  # BG-OFF-2: exact, or from the highest point
                out.append((p, 0))
    return out


def do(b: list[int], src: int, dst: int) -> bool:
    """Make one move on ``b``; return whether it hit (to undo it)."""
    b[src] -= 1
    if dst:
        if b[dst] == -1:
            b[dst] = 1
            b[0] -= 1
            return True
        b[dst] += 1
    return False


def undo(b: list[int], src: int, dst: int, hit: bool) -> None:
    """Take back a move :func:`do` made on ``b`` (``hit``: what it returned)."""
    b[src] += 1
    if dst:
        if hit:
            b[dst] = -1
            b[0] += 1
        else:
            b[dst] -= 1


def _key_after(b: list[int], src: int, dst: int) -> tuple[int, ...]:
    """The board after one more step, as a key, leaving ``b`` as it was (the last step of a play
    needs no undo record)."""
    b[src] -= 1
    if dst:
        v = b[dst]
        if v == -1:
            b[dst] = 1
            b[0] -= 1
            key = tuple(b)
            b[0] += 1
        else:
            b[dst] = v + 1
            key = tuple(b)
        b[dst] = v
    else:
        key = tuple(b)
    b[src] += 1
    return key


def _plays_non_double(b: list[int], d1: int, d2: int) -> dict[tuple[int, ...], Steps]:
    two: dict[tuple[int, ...], Steps] = {}
    one: dict[int, dict[tuple[int, ...], Steps]] = {d1: {}, d2: {}}
    for first, second in ((d1, d2), (d2, d1)):
        for s1, t1 in single_moves(b, first, 25):
            h1 = do(b, s1, t1)
            seconds = single_moves(b, second, 25)
            if seconds:
                step1 = (s1, t1)
                for step2 in seconds:
                    # make the second move in place, read the board, unmake it
                    key = _key_after(b, step2[0], step2[1])
                    if key not in two:
                        two[key] = (step1, step2)
            elif not two:
                key = tuple(b)
                if key not in one[first]:
                    one[first][key] = ((s1, t1),)
            undo(b, s1, t1, h1)
    if two:
        return two
    high, low = (d1, d2) if d1 > d2 else (d2, d1)
    return one[high] or one[low]


def _plays_double(b: list[int], d: int) -> dict[tuple[int, ...], Steps]:
    """Up to four moves of ``d`` with non-increasing origins; keep the longest plays."""
    found: dict[tuple[int, ...], Steps] = {}
    best = 0
    for m1 in single_moves(b, d, 25):
        h1 = do(b, m1[0], m1[1])
        moves2 = single_moves(b, d, m1[0])
        if not moves2 and best <= 1:
            best = 1
            found.setdefault(tuple(b), (m1,))
        for m2 in moves2:
            h2 = do(b, m2[0], m2[1])
            moves3 = single_moves(b, d, m2[0])
            if not moves3 and best <= 2:
                if best < 2:
                    best = 2
                    found.clear()
                found.setdefault(tuple(b), (m1, m2))
            for m3 in moves3:
                h3 = do(b, m3[0], m3[1])
                moves4 = single_moves(b, d, m3[0])
                if not moves4:
                    if best <= 3:
                        if best < 3:
                            best = 3
                            found.clear()
                        found.setdefault(tuple(b), (m1, m2, m3))
                elif best < 4:
                    best = 4
                    found.clear()
                for m4 in moves4:
                    key = _key_after(b, m4[0], m4[1])
                    if key not in found:
                        found[key] = (m1, m2, m3, m4)
                undo(b, m3[0], m3[1], h3)
            undo(b, m2[0], m2[1], h2)
        undo(b, m1[0], m1[1], h1)
    return found


def legal_plays(position: Position, dice: tuple[int, int]) -> list[Play]:
    """Every distinct legal resulting position for ``dice``, with its steps and move text.

    Results are seen from the mover (not swapped). The list is empty when nothing can be played
    (BG-MOVE-7, BG-BAR-4). BG-MOVE-6 applies: as many dice as possible, the higher die when only
    one of two can be played.
    """
    d1, d2 = check_dice(dice)
    b = list(position.board)
    found = _plays_double(b, d1) if d1 == d2 else _plays_non_double(b, d1, d2)
    return [make_play(position, steps, key) for key, steps in found.items()]


def result_boards(position: Position, dice: tuple[int, int]) -> dict[tuple[int, ...], Steps]:
    """The legal results as ``{board: steps}`` without building :class:`Play` objects."""
    d1, d2 = check_dice(dice)
    b = list(position.board)
    return _plays_double(b, d1) if d1 == d2 else _plays_non_double(b, d1, d2)


def max_dice_playable(position: Position, dice: tuple[int, int]) -> int:
    """How many dice the best legal play uses (0 for "gele", BG-MOVE-7)."""
    found = result_boards(position, dice)
    if not found:
        return 0
    return len(next(iter(found.values())))


def partial_results(
    position: Position, dice: tuple[int, int], need: int | None = None
) -> dict[tuple[int, ...], Steps]:
    """Boards reached by legal single moves that use FEWER dice than the roll allows.

    These are the "stopped too early" results: one die of two, or one to three of a double
    (BG-MOVE-6). Each maps to the steps that reach it.
    """
    d1, d2 = check_dice(dice)
    b = list(position.board)
    if need is None:
        need = max_dice_playable(position, dice)
    out: dict[tuple[int, ...], Steps] = {}
    if d1 != d2:
        if need < 2:
            return out
        for die in (d1, d2):
            for src, dst in single_moves(b, die, 25):
                hit = do(b, src, dst)
                out.setdefault(tuple(b), ((src, dst),))
                undo(b, src, dst, hit)
        return out

    def search(limit: int, steps: Steps) -> None:
        if len(steps) >= need:
            return
        if steps:
            out.setdefault(tuple(b), steps)
        for src, dst in single_moves(b, d1, limit):
            hit = do(b, src, dst)
            search(src, (*steps, (src, dst)))
            undo(b, src, dst, hit)

    search(25, ())
    return out


def closed_out(position: Position) -> bool:
    """A checker on the bar and all six entry points closed ("tatil", BG-BAR-4): no roll can
    be played, so the player need not roll."""
    b = position.board
    return b[25] > 0 and all(b[p] <= -2 for p in range(19, 25))
