"""Engine-in-the-loop recognition (DESIGN.md): which legal result, if any, the frames show.

The referee knows the position before the move and the dice, so it knows every legal result. It
asks the frames how well each explains the picture, takes the best when it explains the picture
clearly, calls the move illegal only when every legal result is contradicted by a slot vision
reads surely and the same in every frame (then :func:`engine.backgammon.judge.judge` names the
rule), and otherwise waits.

All evidence is per frame (log-likelihoods summed over the still frames, divided by their
number) and per slot where a slot decides, so thresholds mean the same for one frame or five and
for an empty board or a full one. Tall stacks, which vision miscounts and even mis-colours on
real pictures, neither rank candidates nor make a move illegal (``tall_stack``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from controller.referee.api import BoardView
from controller.referee.config import RecognitionSettings
from controller.table_layout import TableLayout
from engine.backgammon.judge import judge
from engine.backgammon.moves import result_boards
from engine.backgammon.notation import format_steps
from engine.backgammon.position import Position
from engine.errors import PositionError

Step = tuple[int, int]
Slots = tuple[tuple[int, int], ...]
Counts = tuple[Slots, tuple[int, int]]
BAR = 24  # index of the bar among the 25 places a hypothesis gives counts for


@dataclass(frozen=True)
class Recognition:
    """What the frame shows after a move.

    ``legal``: ``result`` is the legal result (mover's view) and ``move`` its text.
    ``illegal``: ``result`` is the position vision read (mover's view), ``rule``/``reason`` from
    the judge. ``unreadable``: nothing can be said yet (``reason`` says why).
    """

    verdict: Literal["legal", "illegal", "unreadable"]
    result: Position | None = None
    move: str = ""
    rule: str = ""
    reason: str = ""


def hypothesis(
    layout: TableLayout, board: tuple[int, ...], player: int
) -> tuple[Slots, tuple[int, int]]:
    """The image slots and bar of ``board`` seen from ``player`` (0 sits where the layout's
    first player sits)."""
    position = Position(board) if player == 0 else Position(board).swap()
    counts = layout.counts(position)
    return counts.slots, counts.bar


def position_of_counts(
    layout: TableLayout, slots: Slots, bar: tuple[int, int], player: int
) -> Position | None:
    """The position (``player``'s view) that per-slot counts describe, or None when no
    position can look like that (both colours on one point, more than 15 checkers)."""
    if len(slots) != 24:
        return None
    first_i = 0 if layout.first_colour == "darker" else 1
    board = [0] * 26
    for slot, pair in enumerate(slots):
        mine, theirs = pair[first_i], pair[1 - first_i]
        if mine and theirs:
            return None
        point = layout.point_of_slot(slot)
        board[point] = mine if mine else -theirs
    board[25] = bar[first_i]
    board[0] = -bar[1 - first_i]
    try:
        position = Position(tuple(board))
    except PositionError:
        return None
    return position if player == 0 else position.swap()


def hidden_reason(view: BoardView) -> str:
    """Why a move cannot be judged on an occluded view: part of the board is hidden, and by
    what when the view can tell (``hidden_why``: something across the case's frame, which a
    director can have cleared away)."""
    why = getattr(view, "hidden_why", None)
    return "part of the board is hidden" + (f": {why}" if isinstance(why, str) else "")


class StillViews:
    """Several still frames of one unchanged scene read as one: their log-likelihoods add up,
    so a slot misread in one frame is outvoted by the others; vision's own reading is that of
    the most confident frame."""

    def __init__(self, views: Sequence[BoardView]) -> None:
        self.views = list(views)

    @property
    def occluded(self) -> bool:
        """Whether anything hides the board in any of the frames."""
        return any(v.occluded for v in self.views)

    @property
    def hidden_why(self) -> str | None:
        """What hides part of the board, as the first frame that can tell says."""
        return next((w for w in (getattr(v, "hidden_why", None) for v in self.views)
                     if isinstance(w, str)), None)

    def log_likelihood(
        self, slots: Sequence[tuple[int, int]], bar: tuple[int, int]
    ) -> float | None:
        """The frames' summed log-likelihood of these slot and bar counts; None when a
        frame cannot weigh them."""
        total = 0.0
        for view in self.views:
            ll = view.log_likelihood(slots, bar)
            if ll is None:
                return None
            total += ll
        return total

    def best_counts(self) -> tuple[tuple[tuple[int, int], ...], tuple[int, int], float] | None:
        """Per slot the count most frames read (ties: the most confident frame's)."""
        readings = [c for c in (v.best_counts() for v in self.views) if c is not None]
        if not readings:
            return None
        readings.sort(key=lambda c: -c[2])
        slots = [_mode([r[0][i] for r in readings]) for i in range(len(readings[0][0]))]
        bar = _mode([r[1] for r in readings])
        # where frames disagree, keep the count the frames' evidence favours, not the vote
        best = self.log_likelihood(slots, bar)
        for i in range(len(slots)):
            for value in {r[0][i] for r in readings} - {slots[i]}:
                trial = [*slots[:i], value, *slots[i + 1 :]]
                ll = self.log_likelihood(trial, bar)
                if best is not None and ll is not None and ll > best:
                    slots, best = trial, ll
        for value in {r[1] for r in readings} - {bar}:
            ll = self.log_likelihood(slots, value)
            if best is not None and ll is not None and ll > best:
                bar, best = value, ll
        return tuple(slots), bar, readings[0][2]


def _mode(values: list[tuple[int, int]]) -> tuple[int, int]:
    """The most frequent value; the earliest among equals (values come most confident first)."""
    best, best_n = values[0], 0
    for value in values:
        n = values.count(value)
        if n > best_n:
            best, best_n = value, n
    return best


def _frames(view: BoardView) -> list[BoardView]:
    """The single frames a view stands for: a :class:`StillViews`' own, or the view."""
    return view.views if isinstance(view, StillViews) else [view]


class _Evidence:
    """Per-frame evidence about single slots, measured against vision's own reading ``own``:
    how many nats per frame the reading beats another count on one slot (cached)."""

    def __init__(self, view: BoardView, own: Counts, frames: int, tall: int) -> None:
        self.view = view
        self.own = own
        self.frames = frames
        self.tall = tall
        self.own_ll = view.log_likelihood(*own)
        self._gaps: dict[tuple[int, tuple[int, int]], float] = {}

    def gap(self, place: int, value: tuple[int, int]) -> float | None:
        """Nats per frame by which the reading's count at ``place`` (0..23 a slot, 24 the bar)
        beats ``value`` there, the rest of the board as read; None when not measurable."""
        slots, bar = self.own
        current = bar if place == BAR else slots[place]
        if value == current:
            return 0.0
        key = (place, value)
        if key not in self._gaps:
            if place == BAR:
                ll = self.view.log_likelihood(slots, value)
            else:
                ll = self.view.log_likelihood((*slots[:place], value, *slots[place + 1 :]), bar)
            if ll is None or self.own_ll is None:
                return None
            self._gaps[key] = (self.own_ll - ll) / self.frames
        return self._gaps[key]

    def countable(self, place: int, value: tuple[int, int]) -> bool:
        """False for a slot where the reading and ``value`` are both tall stacks (at least
        ``tall`` checkers): vision cannot count or colour those surely, so they neither rank
        candidates nor decide."""
        if place == BAR:
            return True
        return min(sum(self.own[0][place]), sum(value)) < self.tall

    def decides(self, place: int, value: tuple[int, int], *, lenient: bool = False) -> bool:
        """Whether the reading at ``place`` may count against ``value``: countable, and not a
        tall stack ``value`` read with two or more checkers fewer (vision undercounts tall
        stacks: 10 has been read as 5). ``lenient``: a tall stack read even one short does not
        decide either (see :meth:`contradictions`)."""
        if place == BAR:
            return True
        read = self.own[0][place]
        short = 1 if lenient else 2
        undercount = sum(value) >= self.tall and sum(read) <= sum(value) - short
        return self.countable(place, value) and not undercount

    def misfit(self, counts: Counts) -> float | None:
        """Nats per frame by which the reading beats ``counts`` on places that may decide
        (:meth:`decides`; the likelihood is a sum over places, so the per-place gaps add up)."""
        slots, bar = self.own
        total = 0.0
        places = [(i, counts[0][i], slots[i]) for i in range(24)] + [(BAR, counts[1], bar)]
        for place, theirs, ours in places:
            if theirs == ours or not self.decides(place, theirs):
                continue
            g = self.gap(place, theirs)
            if g is None:
                return None
            total += g
        return total

    def on_board(self, counts: Counts) -> int:
        """Checkers on the board (points and bar, both colours) that ``counts`` shows."""
        return sum(sum(s) for s in counts[0]) + sum(counts[1])

    def contradictions(self, counts: Counts) -> list[tuple[float, int]] | None:
        """Every single-slot evidence against ``counts`` on a place that may decide
        (:meth:`decides`): (nats per frame, place), strongest first."""
        slots, bar = self.own
        found: list[tuple[float, int]] = []
        # a reading with fewer checkers on the board than ``counts`` may just have missed one
        # in a tall stack (the usual undercount): then a tall stack read one short does not
        # decide, and such a misread alone never makes a legal move "illegal" (a checker
        # gone from the board); with the checker seen elsewhere, it decides as any slot
        lenient = self.on_board(self.own) < self.on_board(counts)
        places = [(i, counts[0][i], slots[i]) for i in range(24)] + [(BAR, counts[1], bar)]
        for place, theirs, ours in places:
            if theirs == ours or not self.decides(place, theirs, lenient=lenient):
                continue
            g = self.gap(place, theirs)
            if g is None:
                return None
            if g > 0.0:
                found.append((g, place))
        found.sort(key=lambda item: (-item[0], item[1]))
        return found

    def sureness(self, place: int, rivals: set[tuple[int, int]]) -> float | None:
        """P(the reading's count at ``place``) against the rivals and its neighbouring counts,
        from per-frame evidence: 1 / (1 + sum of exp(-gap))."""
        slots, bar = self.own
        current = bar if place == BAR else slots[place]
        near: set[tuple[int, int]] = set(rivals)
        a, b = current
        for da, db in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if a + da >= 0 and b + db >= 0 and (place == BAR or not (a + da and b + db)):
                near.add((a + da, b + db))
        if place != BAR and (a or b):
            near.add((b, a))  # the same count in the other colour
        near.discard(current)
        total = 0.0
        for value in near:
            g = self.gap(place, value)
            if g is None:
                return None
            total += math.exp(-max(0.0, g))
        return 1.0 / (1.0 + total)


def recognise(
    view: BoardView,
    before: Position,
    dice: tuple[int, int],
    player: int,
    layout: TableLayout,
    settings: RecognitionSettings,
) -> Recognition:
    """Judge the move ``player`` made from ``before`` with ``dice`` as the frames show it."""
    if view.occluded:
        # a hidden slot could hide the difference between a legal and an illegal move
        return Recognition("unreadable", reason=hidden_reason(view))
    frames = _frames(view)
    n = len(frames)
    legal: dict[tuple[int, ...], tuple[Step, ...]] = dict(result_boards(before, dice))
    if not legal:
        legal = {before.board: ()}  # no legal move: the turn passes (BG-MOVE-7, BG-BAR-4)
    scored: list[tuple[float, tuple[int, ...], Counts]] = []
    for board in legal:
        counts = hypothesis(layout, board, player)
        ll = view.log_likelihood(*counts)
        if ll is None:
            return Recognition("unreadable", reason="too little of the board is visible")
        scored.append((ll / n, board, counts))
    read = view.best_counts()
    own: Counts | None = None if read is None else (read[0], read[1])
    evidence = None if own is None else _Evidence(view, own, n, settings.tall_stack)
    scored.sort(key=lambda item: -item[0])
    if evidence is not None:
        # rank by the countable evidence (a miscounted tall stack must not pick the candidate);
        # when the countable slots cannot tell the best apart, all slots decide
        misfits = [evidence.misfit(c) for _, _, c in scored]
        if all(m is not None for m in misfits):
            least = min(m or 0.0 for m in misfits)
            tied = [m for m in misfits if (m or 0.0) - least < settings.margin]
            if len(tied) == 1:
                scored = [(-(m or 0.0), b, c) for m, (_, b, c) in zip(misfits, scored,
                                                                        strict=True)]
                scored.sort(key=lambda item: -item[0])
    best_ll, best_board, best_counts = scored[0]
    second_ll = scored[1][0] if len(scored) > 1 else None
    clear = second_ll is None or best_ll - second_ll >= settings.margin
    misfit = None if evidence is None else evidence.misfit(best_counts)
    fits = misfit is None or misfit <= settings.fit_slack
    if clear and fits:
        result = Position(best_board)
        return Recognition("legal", result, format_steps(before.board, legal[best_board]))
    if own is not None and evidence is not None:
        found = _illegal(evidence, own, frames, before, dice, player, layout, settings,
                         [c for _, _, c in scored], legal)
        if found is not None:
            return found
    if not clear:
        second = scored[1][1]
        return Recognition("unreadable", reason=(
            "two legal moves fit the picture equally well: "
            f"{_move_text(before, legal[best_board])} and {_move_text(before, legal[second])}"))
    reason = "no legal move fits and the reading is not sure"
    differ = "" if own is None else _differences(own, best_counts, layout, player)
    if differ:
        reason += (f"; nearest legal move {_move_text(before, legal[best_board])}, which "
                   f"differs on {differ}")
    return Recognition("unreadable", reason=reason)


MAX_DIFFERENCES = 4  # places a "cannot read" reason names, at most


def _move_text(before: Position, steps: tuple[Step, ...]) -> str:
    """A legal move as the director reads it ("no move" when the turn passes)."""
    return format_steps(before.board, steps) or "no move"


def _differences(own: Counts, counts: Counts, layout: TableLayout, player: int) -> str:
    """Where vision's reading and a legal result's ``counts`` differ, in the mover's point
    numbers ("the 7-point (1 of the mover's read, none in the move)"), so that a director
    called to the table knows where to look (TTB-6.1); "" where they agree."""
    mover = 0 if (layout.first_colour == "darker") == (player == 0) else 1
    places = [(i, own[0][i], counts[0][i]) for i in range(24)] + [(BAR, own[1], counts[1])]
    said: list[tuple[int, str]] = []
    for place, read, needed in places:
        if read == needed:
            continue
        point = 25 if place == BAR else layout.point_of_slot(place, first=player == 0)
        where = "the bar" if place == BAR else f"the {point}-point"
        said.append((point, f"{where} ({_checkers(read, mover)} read, "
                            f"{_checkers(needed, mover)} in the move)"))
    said.sort(key=lambda item: -item[0])  # the bar, then from the mover's 24-point down
    named = [line for _, line in said[:MAX_DIFFERENCES]]
    if len(said) > MAX_DIFFERENCES:
        named.append(f"{len(said) - MAX_DIFFERENCES} more places")
    if len(named) > 1:
        return f"{', '.join(named[:-1])} and {named[-1]}"
    return "".join(named)


def _checkers(pair: tuple[int, int], mover: int) -> str:
    """(darker, lighter) counts as words from the mover's side."""
    mine, theirs = pair[mover], pair[1 - mover]
    if mine and theirs:
        return f"{mine} of the mover's and {theirs} of the opponent's"
    if mine or theirs:
        return f"{mine} of the mover's" if mine else f"{theirs} of the opponent's"
    return "none"


def _illegal(
    evidence: _Evidence,
    own: Counts,
    frames: list[BoardView],
    before: Position,
    dice: tuple[int, int],
    player: int,
    layout: TableLayout,
    settings: RecognitionSettings,
    candidates: list[Counts],
    legal: dict[tuple[int, ...], tuple[Step, ...]],
) -> Recognition | None:
    """"Illegal" when every legal result is contradicted by at least one slot that vision reads
    surely (by ``illegal_margin`` nats per frame, with probability >= ``confident``, and so in
    most frames on their own), and the position read is one the judge finds illegal; else
    None."""
    seen = position_of_counts(layout, own[0], own[1], player)
    if seen is None or seen.board in legal:
        return None
    rivals: dict[int, set[tuple[int, int]]] = {}
    for counts in candidates:
        place = _sure_contradiction(evidence, own, frames, counts, settings)
        if place is None:
            return None  # this legal result is not clearly ruled out
        rivals.setdefault(place, set()).add(counts[1] if place == BAR else counts[0][place])
    if not _sure(evidence, own, frames, rivals, settings):
        return None
    verdict = judge(before, seen, dice)
    if verdict.legal or not verdict.rule or not verdict.reason:
        return None
    return Recognition("illegal", seen, rule=verdict.rule, reason=verdict.reason)


def _sure(
    evidence: _Evidence,
    own: Counts,
    frames: list[BoardView],
    rivals: dict[int, set[tuple[int, int]]],
    settings: RecognitionSettings,
) -> bool:
    """Vision reads each deciding place surely against its rivals, and most frames on their own
    read it so (one frame cannot decide; one misread frame cannot veto)."""
    readings = [f.best_counts() for f in frames]
    for place, against in rivals.items():
        sure = evidence.sureness(place, against)
        if sure is None or sure < settings.confident:
            return False
        value = own[1] if place == BAR else own[0][place]
        agree = sum(
            1 for r in readings
            if r is not None and (r[1] if place == BAR else r[0][place]) == value
        )
        if 2 * agree <= len(frames):
            return False
    return True


def _sure_contradiction(
    evidence: _Evidence,
    own: Counts,
    frames: list[BoardView],
    counts: Counts,
    settings: RecognitionSettings,
) -> int | None:
    """The place, strongest evidence first, where vision surely rules ``counts`` out (by
    ``illegal_margin`` nats per frame, read surely: :func:`_sure`), or None. Not only the
    strongest: a lone checker read with a faint rim may be unsure while another place the
    result needs differently is read beyond doubt."""
    found = evidence.contradictions(counts)
    if found is None:
        return None
    for gap, place in found:
        if gap < settings.illegal_margin:
            return None
        rival = counts[1] if place == BAR else counts[0][place]
        if _sure(evidence, own, frames, {place: {rival}}, settings):
            return place
    return None


def contradicted(view: BoardView, counts: Counts, settings: RecognitionSettings) -> bool:
    """True when one slot of ``view`` surely rules ``counts`` out (as for an illegal move):
    vision's reading beats it there by ``illegal_margin`` nats per frame with probability
    >= ``confident``. Used to check the set-up (BG-EQ-3) without whole-board confidence."""
    if view.occluded:
        return False
    read = view.best_counts()
    if read is None:
        return False
    own: Counts = (read[0], read[1])
    frames = _frames(view)
    evidence = _Evidence(view, own, len(frames), settings.tall_stack)
    return _sure_contradiction(evidence, own, frames, counts, settings) is not None


__all__ = [
    "Recognition", "StillViews", "contradicted", "hypothesis", "position_of_counts", "recognise",
]
