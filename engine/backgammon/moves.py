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
    (``24/18 13/11*``, ``bar/22``, ``6/off``, ``6/4(2)``), built on first use.
    """

    steps: Steps
    result: Position
    before: Position = field(repr=False, compare=False)
    _move: list[str] = field(default_factory=list, repr=False, compare=False)

    @property
    def move(self) -> str:
        """The move in the usual notation (hits marked ``*``, repeats as ``(2)``)."""
        cache = self._move
        if not cache:
            cache.append(format_steps(self.before.board, self.steps))
        return cache[0]

    @property
    def dice_used(self) -> int:
        """How many dice this play uses (0..4)."""
        return len(self.steps)


def _make_play(before: Position, steps: Steps, result: tuple[int, ...]) -> Play:
    play = object.__new__(Play)
    setattr_ = object.__setattr__
    setattr_(play, "steps", steps)
    setattr_(play, "result", Position._trusted(result))
    setattr_(play, "before", before)
    setattr_(play, "_move", [])
    return play


def _single_moves(b: list[int], d: int, limit: int) -> list[Step]:
    """Legal single moves of die ``d`` on board ``b`` with origin <= ``limit``."""
    if b[25] > 0:
        dst = 25 - d
        return [(25, dst)] if b[dst] >= -1 else []
    hi = 24
    while hi > 0 and b[hi] <= 0:
        hi -= 1
    out: list[Step] = []
    p = limit if limit < hi else hi
    home = hi <= 6
    while p > 0:
        if b[p] > 0:
            dst = p - d
            if dst > 0:
                if b[dst] >= -1:
                    out.append((p, dst))
            elif home and (dst == 0 or p == hi):
                out.append((p, 0))
        p -= 1
    return out


def _do(b: list[int], src: int, dst: int) -> bool:
    """Make one move on ``b``; return whether it hit (to undo it)."""
    b[src] -= 1
    if dst:
        if b[dst] == -1:
            b[dst] = 1
            b[0] -= 1
            return True
        b[dst] += 1
    return False


def _undo(b: list[int], src: int, dst: int, hit: bool) -> None:
    b[src] += 1
    if dst:
        if hit:
            b[dst] = -1
            b[0] += 1
        else:
            b[dst] -= 1


def _plays_non_double(b: list[int], d1: int, d2: int) -> dict[tuple[int, ...], Steps]:
    two: dict[tuple[int, ...], Steps] = {}
    one: dict[int, dict[tuple[int, ...], Steps]] = {d1: {}, d2: {}}
    for first, second in ((d1, d2), (d2, d1)):
        for s1, t1 in _single_moves(b, first, 25):
            h1 = _do(b, s1, t1)
            seconds = _single_moves(b, second, 25)
            if seconds:
                for s2, t2 in seconds:
                    h2 = _do(b, s2, t2)
                    key = tuple(b)
                    if key not in two:
                        two[key] = ((s1, t1), (s2, t2))
                    _undo(b, s2, t2, h2)
            elif not two:
                key = tuple(b)
                if key not in one[first]:
                    one[first][key] = ((s1, t1),)
            _undo(b, s1, t1, h1)
    if two:
        return two
    high, low = (d1, d2) if d1 > d2 else (d2, d1)
    return one[high] or one[low]


def _plays_double(b: list[int], d: int) -> dict[tuple[int, ...], Steps]:
    found: dict[tuple[int, ...], Steps] = {}
    best = [0]

    def search(limit: int, steps: Steps) -> None:
        moves = _single_moves(b, d, limit)
        depth = len(steps) + 1
        if not moves:
            if depth - 1 >= best[0]:
                if depth - 1 > best[0]:
                    best[0] = depth - 1
                    found.clear()
                key = tuple(b)
                if key not in found:
                    found[key] = steps
            return
        for src, dst in moves:
            hit = _do(b, src, dst)
            if depth == 4:
                if best[0] < 4:
                    best[0] = 4
                    found.clear()
                key = tuple(b)
                if key not in found:
                    found[key] = (*steps, (src, dst))
            else:
                search(src, (*steps, (src, dst)))
            _undo(b, src, dst, hit)

    search(25, ())
    if best[0] == 0:
        return {}
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
    return [_make_play(position, steps, key) for key, steps in found.items()]


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


def partial_results(position: Position, dice: tuple[int, int]) -> dict[tuple[int, ...], Steps]:
    """Boards reached by legal single moves that use FEWER dice than the roll allows.

    These are the "stopped too early" results: one die of two, or one to three of a double
    (BG-MOVE-6). Each maps to the steps that reach it.
    """
    d1, d2 = check_dice(dice)
    b = list(position.board)
    need = max_dice_playable(position, dice)
    out: dict[tuple[int, ...], Steps] = {}
    if d1 != d2:
        if need < 2:
            return out
        for die in (d1, d2):
            for src, dst in _single_moves(b, die, 25):
                hit = _do(b, src, dst)
                out.setdefault(tuple(b), ((src, dst),))
                _undo(b, src, dst, hit)
        return out

    def search(limit: int, steps: Steps) -> None:
        if len(steps) >= need:
            return
        if steps:
            out.setdefault(tuple(b), steps)
        for src, dst in _single_moves(b, d1, limit):
            hit = _do(b, src, dst)
            search(src, (*steps, (src, dst)))
            _undo(b, src, dst, hit)

    search(25, ())
    return out
