"""Judging a move from the position before it, the position after it and the dice.

A move is legal when the position after it is one of the legal results (BG-MOVE-6 included).
Otherwise the judge works out what went wrong the way a referee would, in this order: the
opponent's checkers (a hit not put on the bar, BG-BAR-1; a closed point used, BG-MOVE-3; an
opponent checker moved), checkers added or lost, the bar (BG-BAR-2/3), bearing off (BG-OFF-1/2),
backwards moves (BG-MOVE-1), too few dice or the wrong die (BG-MOVE-6), a checker jumping over
closed points (BG-MOVE-2) and finally a wrong distance; and it names the closest legal play.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from operator import itemgetter, sub
from typing import Any

from engine.backgammon.dice import check_dice
from engine.backgammon.moves import (
    Play,
    Steps,
    do,
    make_play,
    partial_results,
    result_boards,
    single_moves,
    undo,
)
from engine.backgammon.notation import format_steps, point_text
from engine.backgammon.position import Position

#: How different (checkers out of place, counted at both ends) a legal play may be from what
#: was played and still be offered as the play the player most likely meant.
CLOSE_DISTANCE = 6


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judge's answer: legal with the play, or illegal with a rule ID and a sentence."""

    legal: bool
    play: Play | None
    rule: str | None
    reason: str | None
    closest: Play | None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (Position IDs for positions)."""
        return {
            "legal": self.legal,
            "move": self.play.move if self.play else None,
            "rule": self.rule,
            "reason": self.reason,
            "closest": self.closest.move if self.closest else None,
            "closest_result": self.closest.result.position_id if self.closest else None,
        }


def _dice_text(d1: int, d2: int) -> str:
    return f"{max(d1, d2)}{min(d1, d2)}"


Found = dict[tuple[int, ...], Steps]


def _closest(before: Position, found: Found, board: tuple[int, ...]) -> Play | None:
    """The legal result nearest ``board``, by checkers out of place counted at both ends."""
    best: tuple[int, ...] | None = None
    best_d = CLOSE_DISTANCE + 1
    # A cheap lower bound first: the distance summed over the few entries the move changed
    # (any subset of the entries bounds the full sum; at least two keep itemgetter a tuple).
    changed = [i for i in range(26) if board[i] != before.board[i]]
    changed += [i for i in (0, 1) if i not in changed][: max(0, 2 - len(changed))]
    pick = itemgetter(*changed)
    target = pick(board)
    for result in found:
        if sum(map(abs, map(sub, pick(result), target))) >= best_d:
            continue
        d = sum(map(abs, map(sub, result, board)))
        if d < best_d:
            best, best_d = result, d
    if best is None:
        return None
    return make_play(before, found[best], best)


def _points(points: Iterable[int]) -> str:
    names = [point_text(p) for p in points]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _suggest(closest: Play | None) -> str:
    return f" Did you mean {closest.move}?" if closest else ""


def _example(before: Position, found: Found) -> Play:
    board, steps = next(iter(found.items()))
    return make_play(before, steps, board)


def _illegal(rule: str, reason: str, closest: Play | None) -> Verdict:
    return Verdict(False, None, rule, reason + _suggest(closest), closest)


def _relaxed_results(
    board: tuple[int, ...], dice: tuple[int, int], *, off_outside: bool, off_any: bool
) -> set[tuple[int, ...]]:
    """All boards reachable with 1..4 dice when a bear-off rule is switched off (diagnosis)."""
    d1, d2 = dice
    b = list(board)
    out: set[tuple[int, ...]] = set()

    def moves(die: int, limit: int) -> list[tuple[int, int]]:
        if b[25] > 0:
            return single_moves(b, die, limit)
        result: list[tuple[int, int]] = []
        hi = 24
        while hi > 0 and b[hi] <= 0:
            hi -= 1
        for p in range(min(limit, 24), 0, -1):
            if b[p] <= 0:
                continue
            dst = p - die
            if dst > 0:
                if b[dst] >= -1:
                    result.append((p, dst))
            elif (hi <= 6 or off_outside) and (dst == 0 or p == hi or off_any):
                result.append((p, 0))
        return result

    def search(order: tuple[int, ...], depth: int, limit: int) -> None:
        if depth == len(order):
            return
        die = order[depth]
        for src, dst in moves(die, limit):
            hit = do(b, src, dst)
            out.add(tuple(b))
            search(order, depth + 1, src if d1 == d2 else 25)
            undo(b, src, dst, hit)

    if d1 == d2:
        search((d1,) * 4, 0, 25)
    else:
        search((d1, d2), 0, 25)
        search((d2, d1), 0, 25)
    return out


def judge_steps(
    before: Position, steps: Iterable[tuple[int, int]], dice: tuple[int, int]
) -> Verdict:
    """Judge a move given as physical steps ``(from, to)`` (25 = bar, 0 = off), as in a record.

    Catches what a position alone cannot show: a step from an empty point, a backwards step,
    or a checker put on a closed point (BG-MOVE-3); otherwise judges the resulting position.
    """
    d1, d2 = check_dice(dice)
    b = list(before.board)
    for src, dst in steps:
        if not 1 <= src <= 25 or not 0 <= dst <= 24:
            return _illegal("BG-MOVE-1", f"{src}/{dst} is not a move on the board.", None)
        if b[src] <= 0:
            where = "on the bar" if src == 25 else f"on point {src}"
            return _illegal("BG-MOVE-2", f"No checker of yours is {where} to move.", None)
        if dst > src:
            return _illegal(
                "BG-MOVE-1",
                f"{point_text(src)}/{point_text(dst)} goes backwards; checkers move only "
                "towards your home board.",
                None,
            )
        if dst and b[dst] <= -2:
            closest = _closest(before, result_boards(before, (d1, d2)), tuple(b))
            return _illegal(
                "BG-MOVE-3",
                f"Point {dst} is closed ({-b[dst]} opposing checkers): a checker may not land "
                "there.",
                closest,
            )
        do(b, src, dst)
    return judge(before, Position._trusted(tuple(b)), (d1, d2))


def _changes(before: tuple[int, ...], after: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """Our checkers' sources (points that lost checkers) and destinations (0 = off)."""
    sources: list[int] = []
    dests: list[int] = []
    for p in range(25, 0, -1):
        mb = before[p] if before[p] > 0 else 0
        ma = after[p] if after[p] > 0 else 0
        if mb > ma:
            sources.extend([p] * (mb - ma))
        elif ma > mb:
            dests.extend([p] * (ma - mb))
    off = sum(c for c in before if c > 0) - sum(c for c in after if c > 0)
    if off > 0:
        dests.extend([0] * off)
    return sources, dests


def judge(before: Position, after: Position, dice: tuple[int, int]) -> Verdict:
    """Whether ``after`` is a legal result of ``before`` with ``dice``, and if not, why.

    Both positions are seen from the player who moved (``after`` is NOT swapped).
    """
    d1, d2 = check_dice(dice)
    dt = _dice_text(d1, d2)
    found = result_boards(before, (d1, d2))
    bb, ab = before.board, after.board
    steps = found.get(ab)
    if steps is not None:
        return Verdict(True, make_play(before, steps, ab), None, None, None)
    if not found:
        if ab == bb:
            return Verdict(True, None, None, f"No legal move with {dt} (gele, BG-MOVE-7).", None)
        if bb[25] > 0:
            closed = sorted({25 - d1, 25 - d2}, reverse=True)
            where = f"points {_points(closed)} are" if len(closed) > 1 else f"point {closed[0]} is"
            return _illegal(
                "BG-BAR-4",
                f"With {dt} the checker on the bar cannot enter ({where} closed), so the turn "
                "passes and no checker may move.",
                None,
            )
        return _illegal(
            "BG-MOVE-7",
            f"There is no legal move with {dt} (gele): the checkers must stay where they were.",
            None,
        )
    if ab == bb:
        example = _example(before, found)
        return Verdict(
            False,
            None,
            "BG-MOVE-6",
            f"No checker was moved, but {dt} can be played, for example {example.move}.",
            example,
        )
    closest = _closest(before, found, ab)
    verdict = _opponent_checkers(before, ab, found, closest)
    if verdict is None:
        verdict = _own_checkers(before, after, (d1, d2), found, closest)
    return verdict


def _opponent_checkers(
    before: Position, ab: tuple[int, ...], found: Found, closest: Play | None
) -> Verdict | None:
    bb = before.board
    their_before = sum(-c for c in bb if c < 0)
    their_after = sum(-c for c in ab if c < 0)
    if their_after < their_before:
        lost = their_before - their_after
        hit_points = [p for p in range(1, 25) if bb[p] == -1 and ab[p] > 0]
        if hit_points and ab[0] == bb[0]:
            fixed = list(ab)
            fixed[0] -= lost
            fixed_board = tuple(fixed)
            meant = closest
            if fixed_board in found:
                meant = make_play(before, found[fixed_board], fixed_board)
            return _illegal(
                "BG-BAR-1",
                f"The hit checker on {_points(hit_points)} was taken off the board instead of "
                "being put on the bar; a hit checker must go on the bar.",
                meant,
            )
        gone = [p for p in range(0, 25) if bb[p] < 0 and ab[p] > bb[p]]
        # blots a legal play of these dice hits (it leaves no opposing checker there)
        hittable = {p for board in found for p in range(1, 25) if bb[p] == -1 and board[p] >= 0}
        if ab[0] == bb[0] and gone and all(p in hittable and ab[p] >= 0 for p in gone):
            # blots gone and none on the bar: hit by a checker that moved on, and taken away
            return _illegal(
                "BG-BAR-1",
                f"The hit checker on {_points(gone)} was taken off the board instead of "
                "being put on the bar; a hit checker must go on the bar.",
                closest,
            )
        return _illegal(
            "BG-MOVE-1",
            f"An opponent's checker was removed from {_points(gone)}; only your own checkers "
            "move on your turn.",
            closest,
        )
    if their_after > their_before:
        return _illegal(
            "BG-EQ-1",
            f"The opponent now has {their_after} checkers in play instead of {their_before}: "
            "a checker was added.",
            closest,
        )
    expected = [min(c, 0) for c in bb]
    for p in range(1, 25):
        if bb[p] == -1 and ab[p] > 0:
            expected[p] = 0
            expected[0] -= 1
    actual = [min(c, 0) for c in ab]
    if actual == expected:
        return None
    closed = [p for p in range(1, 25) if bb[p] <= -2 and ab[p] > 0]
    if closed:
        p = closed[0]
        return _illegal(
            "BG-MOVE-3",
            f"Point {p} is closed ({-bb[p]} opposing checkers): a checker may not land there.",
            closest,
        )
    moved = [p for p in range(0, 25) if actual[p] != expected[p]]
    return _illegal(
        "BG-MOVE-1",
        f"The opponent's checkers were moved (at {_points(sorted(set(moved)))}); only your own "
        "checkers move on your turn.",
        closest,
    )


def _own_checkers(
    before: Position,
    after: Position,
    dice: tuple[int, int],
    found: Found,
    closest: Play | None,
) -> Verdict:
    d1, d2 = dice
    dt = _dice_text(d1, d2)
    bb, ab = before.board, after.board
    mine_before = sum(c for c in bb if c > 0)
    mine_after = sum(c for c in ab if c > 0)
    if mine_after > mine_before:
        return _illegal(
            "BG-EQ-1",
            f"You now have {mine_after} checkers in play instead of {mine_before}: a checker "
            "was added.",
            closest,
        )
    sources, dests = _changes(bb, ab)
    used = len(next(iter(found.values())))
    # Bar first (BG-BAR-2, BG-BAR-3): nothing else moves while a checker waits to enter.
    if bb[25] > 0:
        if ab[25] > bb[25]:
            return _illegal(
                "BG-BAR-1",
                "More checkers are on your bar than before; only a hit puts a checker there.",
                closest,
            )
        others = [s for s in sources if s != 25]
        if ab[25] > 0 and others:
            rule = "BG-BAR-3" if bb[25] > 1 else "BG-BAR-2"
            return _illegal(
                rule,
                f"A checker was moved from {_points(sorted(set(others), reverse=True))} while "
                f"{'checkers are' if ab[25] > 1 else 'a checker is'} still on the bar; "
                "every checker on the bar must enter first.",
                closest,
            )
    borne = mine_before - mine_after
    if borne > 0:
        outside = [p for p in range(7, 26) if ab[p] > 0]
        home_sources = [s for s in sources if s <= 6]
        missing = _missing_from(ab, sources, found)
        if missing is not None:
            return _illegal(
                "BG-EQ-1",
                f"A checker went missing from {point_text(missing)}; every checker stays on "
                "the board until it is borne off.",
                closest,
            )
        if outside and home_sources:
            return _illegal(
                "BG-OFF-1",
                "A checker was borne off while a checker is still outside the home board "
                f"(on {_points(outside)}); bearing off starts only when all are home.",
                closest,
            )
        if outside or borne > (4 if d1 == d2 else 2):
            return _illegal(
                "BG-EQ-1",
                f"{borne} checker{'s' if borne > 1 else ''} went missing from "
                f"{_points(sorted(set(sources), reverse=True))}.",
                closest,
            )
    # Backwards (BG-MOVE-1): pair sources and destinations from the top.
    for s, t in zip(sorted(sources, reverse=True), sorted(dests, reverse=True), strict=False):
        if t > s:
            return _illegal(
                "BG-MOVE-1",
                f"A checker moved backwards, from {point_text(s)} to {point_text(t)}; checkers "
                "move only towards your home board.",
                closest,
            )
    # Too few dice, or the smaller die when only one can be played (BG-MOVE-6).
    # A partial play moves at most (dice used - 1) dice' worth of pips: skip the search if more.
    drop = before.my_pips - after.my_pips
    most = (used - 1) * d1 if d1 == d2 else max(d1, d2)
    partial = partial_results(before, dice, need=used) if 0 < drop <= most else {}
    if ab in partial:
        shown = format_steps(bb, partial[ab])
        if d1 == d2:
            need = f"all four {d1}s" if used == 4 else f"{used} of the four {d1}s"
            text = f"With {dt} {need} can be played, so {shown} alone is not enough."
        else:
            text = f"With {dt} both dice can be played, so {shown} alone is not enough."
        return _illegal("BG-MOVE-6", text, closest)
    if d1 != d2 and used == 1:
        high, low = max(d1, d2), min(d1, d2)
        singles = _single_results(bb, low)
        if ab in singles:
            return _illegal(
                "BG-MOVE-6",
                f"Only one die of {dt} can be played, and then it must be the higher one "
                f"({high}), not {format_steps(bb, singles[ab])}.",
                closest,
            )
    if borne > 0:
        if ab in _relaxed_results(bb, dice, off_outside=False, off_any=True):
            return _illegal(
                "BG-OFF-2",
                "A checker was borne off from a lower point with a higher die while a checker "
                "stands on a higher point; that die must be played from there.",
                closest,
            )
        if ab in _relaxed_results(bb, dice, off_outside=True, off_any=True):
            return _illegal(
                "BG-OFF-1",
                "A checker was borne off before all checkers were in the home board.",
                closest,
            )
    jump = _through_closed(bb, sources, dests, dice)
    if jump is not None:
        return _illegal("BG-MOVE-2", jump, closest)
    return _illegal("BG-MOVE-2", _wrong_distance(bb, ab, sources, dests, dice), closest)


def _missing_from(
    ab: tuple[int, ...],
    sources: list[int],
    found: Found,
) -> int | None:
    """The point a checker vanished from, when putting it back there gives a legal result."""
    results = found
    all_home = all(c <= 0 for c in ab[7:26])
    for p in sorted(set(sources), reverse=True):
        if all_home and p <= 6:
            continue  # looks like a bear-off with the wrong dice, not a lost checker
        fixed = list(ab)
        fixed[p] += 1
        board = tuple(fixed)
        if board in results:
            return p
    return None


def _single_results(board: tuple[int, ...], die: int) -> dict[tuple[int, ...], Steps]:
    b = list(board)
    out: dict[tuple[int, ...], Steps] = {}
    for src, dst in single_moves(b, die, 25):
        hit = do(b, src, dst)
        out.setdefault(tuple(b), ((src, dst),))
        undo(b, src, dst, hit)
    return out


def _through_closed(
    board: tuple[int, ...], sources: list[int], dests: list[int], dice: tuple[int, int]
) -> str | None:
    """A checker that went the full distance of the roll over a closed point (BG-MOVE-2)."""
    d1, d2 = dice
    if len(sources) != 1 or len(dests) != 1 or dests[0] == 0:
        return None
    s, t = sources[0], dests[0]
    dist = s - t
    dt = _dice_text(d1, d2)
    if d1 != d2:
        if dist != d1 + d2:
            return None
        stops = [s - d1, s - d2]
        if all(board[m] <= -2 for m in stops):
            return (
                f"The checker from {point_text(s)} cannot go to {t} with {dt}: both stopping "
                f"points {_points(sorted(stops, reverse=True))} are closed, and each die is a "
                "separate move."
            )
        return None
    if dist % d1 or not 2 <= dist // d1 <= 4:
        return None
    stops = [s - d1 * i for i in range(1, dist // d1)]
    blocked = [m for m in stops if board[m] <= -2]
    if blocked:
        return (
            f"The checker from {point_text(s)} cannot go to {t} with {dt}: it would stop on "
            f"{_points(blocked)}, which is closed."
        )
    return None


def _wrong_distance(
    bb: tuple[int, ...],
    ab: tuple[int, ...],
    sources: list[int],
    dests: list[int],
    dice: tuple[int, int],
) -> str:
    d1, d2 = dice
    dt = _dice_text(d1, d2)
    if len(sources) == 1 and len(dests) == 1:
        s, t = sources[0], dests[0]
        return (
            f"The checker from {point_text(s)} moved {s - t if t else 'off'}"
            f"{' pips' if t else ''} to {point_text(t)}, which {dt} does not allow."
        )
    pairs = " ".join(
        f"{point_text(s)}/{point_text(t)}"
        for s, t in zip(sorted(sources, reverse=True), sorted(dests, reverse=True), strict=False)
    )
    return f"The checkers moved ({pairs}) do not match the dice {dt}."
