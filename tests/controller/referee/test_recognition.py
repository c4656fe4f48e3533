"""Engine-in-the-loop recognition (DESIGN.md): the best legal result when it clearly explains
the frames, "illegal" only when none fits and the reading is sure, otherwise wait."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from controller.referee.config import RecognitionSettings
from controller.referee.recognition import (
    StillViews,
    hypothesis,
    position_of_counts,
    recognise,
)
from controller.table_layout import DEFAULT_LAYOUT, TableLayout
from engine.backgammon.judge import judge
from engine.backgammon.moves import legal_plays
from engine.backgammon.position import Position
from tests.controller.referee.tablesim import NoisyView

SETTINGS = RecognitionSettings()
BEFORE = Position.initial()
DICE = (3, 1)


def view_of(position: Position, player: int, *, seed: int = 0, **kw: object) -> NoisyView:
    slots, bar = hypothesis(DEFAULT_LAYOUT, position.board, player)
    return NoisyView(slots, bar, random.Random(seed), **kw)  # type: ignore[arg-type]


def test_counts_and_positions_round_trip_for_both_players_and_layouts() -> None:
    position = Position.initial().apply_steps([(24, 21), (13, 11)])
    for layout in (
        DEFAULT_LAYOUT,
        TableLayout(first_at_bottom=False, home_on_right=False, first_colour="lighter"),
    ):
        for player in (0, 1):
            slots, bar = hypothesis(layout, position.board, player)
            assert position_of_counts(layout, slots, bar, player) == position


def test_impossible_counts_are_no_position() -> None:
    slots, bar = hypothesis(DEFAULT_LAYOUT, BEFORE.board, 0)
    both = ((1, 1), *slots[1:])
    assert position_of_counts(DEFAULT_LAYOUT, both, bar, 0) is None
    too_many = ((16, 0), *slots[1:])
    assert position_of_counts(DEFAULT_LAYOUT, too_many, bar, 0) is None


def test_every_legal_play_is_recognised_for_either_player() -> None:
    for player in (0, 1):
        for play in legal_plays(BEFORE, DICE):
            found = recognise(
                view_of(play.result, player, misread=0.0), BEFORE, DICE, player,
                DEFAULT_LAYOUT, SETTINGS,
            )
            assert found.verdict == "legal" and found.result == play.result
            assert found.move == play.move


def test_an_illegal_result_is_judged_with_the_rule() -> None:
    wrong = BEFORE.apply_steps([(13, 8)])  # 31 played as a single 5
    found = recognise(view_of(wrong, 0, misread=0.0), BEFORE, DICE, 0, DEFAULT_LAYOUT, SETTINGS)
    assert found.verdict == "illegal" and found.result == wrong
    assert found.rule.startswith("BG-") and found.reason


def test_an_unsure_reading_or_a_hidden_board_waits() -> None:
    wrong = BEFORE.apply_steps([(13, 8)])
    # the deciding slot is read with P ~ 0.9994 against its neighbouring counts
    unsure = RecognitionSettings(confident=0.9999)
    found = recognise(view_of(wrong, 0, misread=0.0), BEFORE, DICE, 0, DEFAULT_LAYOUT, unsure)
    assert found.verdict == "unreadable"
    right = legal_plays(BEFORE, DICE)[0].result
    hidden = view_of(right, 0, misread=0.0, occlude=True)
    found = recognise(hidden, BEFORE, DICE, 0, DEFAULT_LAYOUT, SETTINGS)
    assert found.verdict == "unreadable"
    assert found.reason == "part of the board is hidden"


def test_a_board_hidden_by_something_on_the_frame_says_so() -> None:
    """What hides the board, when the frames can tell (something across the case's frame: a
    clock left there stops every verdict until moved), is part of the "cannot read" reason."""
    right = legal_plays(BEFORE, DICE)[0].result
    hidden = view_of(right, 0, misread=0.0, occlude=True)
    why = "something lies across the case's right side frame"
    hidden.hidden_why = why  # type: ignore[attr-defined]
    views = StillViews([view_of(right, 0, seed=1, misread=0.0), hidden])
    found = recognise(views, BEFORE, DICE, 0, DEFAULT_LAYOUT, SETTINGS)
    assert found.verdict == "unreadable"
    assert found.reason == f"part of the board is hidden: {why}"


def test_several_frames_outvote_a_misread_that_mimics_a_legal_move() -> None:
    """The illegal move differs from a legal one in one slot only; one frame misreads that slot
    as the legal count. Alone it fits the legal move; with two clean frames it does not."""
    legal = BEFORE.apply_steps([(8, 5), (6, 5)])
    board = list(legal.board)
    board[13] -= 1  # a checker taken off the board (BG-EQ-1): one slot differs
    wrong = Position(tuple(board))
    fooled = view_of(wrong, 0, misread=0.0)
    slots, _ = hypothesis(DEFAULT_LAYOUT, legal.board, 0)
    differ = [i for i in range(24) if slots[i] != fooled.truth[i]]
    assert len(differ) == 1
    fooled.read = tuple(slots[i] if i == differ[0] else fooled.read[i] for i in range(24))
    fooled.misreads = 1
    alone = recognise(fooled, BEFORE, (3, 1), 0, DEFAULT_LAYOUT, SETTINGS)
    assert alone.verdict != "illegal"
    views = StillViews([fooled, view_of(wrong, 0, misread=0.0), view_of(wrong, 0, misread=0.0)])
    found = recognise(views, BEFORE, (3, 1), 0, DEFAULT_LAYOUT, SETTINGS)
    assert found.verdict == "illegal" and found.result == wrong


class ProbView:
    """A frame read the way ``vision.scoring`` reads one: per slot a probability for each count,
    the reading's count at ``p_read``, the rest spread over the neighbouring counts (so the
    whole board's confidence, a product over 24 slots, is low even when every slot is sure)."""

    def __init__(
        self,
        read: tuple[tuple[int, int], ...],
        bar: tuple[int, int],
        *,
        p_read: float = 0.96,
        unsure: dict[int, tuple[tuple[int, int], float]] | None = None,
    ) -> None:
        self.read = read
        self.bar = bar
        self.p_read = p_read
        self.unsure = unsure or {}  # slot: (rival count, its probability)

    @property
    def occluded(self) -> bool:
        return False

    def _p(self, i: int, hyp: tuple[int, int]) -> float:
        seen = self.read[i]
        if i in self.unsure:
            rival, p = self.unsure[i]
            if hyp == rival:
                return p
            if hyp == seen:
                return 1.0 - p - 1e-6
            return 1e-7
        if hyp == seen:
            return self.p_read
        near = abs(sum(hyp) - sum(seen)) == 1 and (0 in hyp) == (0 in seen)
        if near or seen == (0, 0) or hyp == (0, 0):
            return (1.0 - self.p_read) / 3
        return 1e-6

    def log_likelihood(
        self, slots: Sequence[tuple[int, int]], bar: tuple[int, int]
    ) -> float | None:
        total = sum(math.log(self._p(i, (s[0], s[1]))) for i, s in enumerate(slots))
        return total + (0.0 if tuple(bar) == self.bar else math.log(1e-6))

    def best_counts(self) -> tuple[tuple[tuple[int, int], ...], tuple[int, int], float] | None:
        confidence = math.prod(self._p(i, s) for i, s in enumerate(self.read))
        return self.read, self.bar, confidence


def prob_view(position: Position, player: int = 0, **kw: Any) -> ProbView:
    slots, bar = hypothesis(DEFAULT_LAYOUT, position.board, player)
    return ProbView(slots, bar, **kw)


def test_an_illegal_move_is_flagged_though_whole_board_confidence_is_low() -> None:
    """The runtime's failure: 24 sure slots make a whole-board confidence of ~0.37, below the
    old 0.5 gate; the slots that decide are sure, so the move is flagged (BG-MOVE-1)."""
    wrong = BEFORE.apply_steps([(13, 8)])  # 31 played as a single 5
    view = prob_view(wrong)
    best = view.best_counts()
    assert best is not None and best[2] < 0.5
    for frames in (1, 3, 8):
        found = recognise(StillViews([view] * frames), BEFORE, DICE, 0, DEFAULT_LAYOUT, SETTINGS)
        assert found.verdict == "illegal" and found.result == wrong and found.rule.startswith("BG")


def test_one_pip_off_between_two_legal_moves_is_flagged_not_called_a_tie() -> None:
    """61 from the start played 13/7 6/4: one pip from 13/7 6/5, two from others; a result
    next to legal ones is still ruled out by the slot it differs in (BG-MOVE-1)."""
    before = BEFORE
    dice = (6, 1)
    wrong = before.apply_steps([(13, 7), (6, 4)])
    legal = {p.result for p in legal_plays(before, dice)}
    assert wrong not in legal
    for frames in (3, 6):
        views = StillViews([prob_view(wrong, 1)] * frames)
        found = recognise(views, before, dice, 1, DEFAULT_LAYOUT, SETTINGS)
        assert found.verdict == "illegal" and found.result == wrong


def test_more_frames_of_a_legal_move_do_not_stop_it_fitting() -> None:
    """A legal result read with one slot a little off (the truth close behind) is accepted
    whatever the number of still frames: evidence is per frame, not summed."""
    right = BEFORE.apply_steps([(8, 5), (6, 5)])
    slots, bar = hypothesis(DEFAULT_LAYOUT, right.board, 0)
    start = hypothesis(DEFAULT_LAYOUT, BEFORE.board, 0)[0]
    five = next(i for i, s in enumerate(slots) if s != start[i] and s != (0, 0))
    a, b = slots[five]
    plus = (a + 1, b) if a else (a, b + 1)
    read = tuple(plus if i == five else s for i, s in enumerate(slots))
    view = ProbView(read, bar, unsure={five: (slots[five], 0.3)})
    for frames in (3, 5, 8, 12):
        found = recognise(StillViews([view] * frames), BEFORE, (3, 1), 0, DEFAULT_LAYOUT,
                          SETTINGS)
        assert found.verdict == "legal" and found.result == right


def test_a_legal_move_with_an_unsure_stack_is_never_flagged() -> None:
    """Every legal play from the start, each frame misreading the slot that changed most as a
    neighbouring count (the truth a close second): never "illegal", whatever the frames."""
    for play in legal_plays(BEFORE, DICE):
        slots, bar = hypothesis(DEFAULT_LAYOUT, play.result.board, 0)
        start = hypothesis(DEFAULT_LAYOUT, BEFORE.board, 0)[0]
        for i in (i for i in range(24) if slots[i] != start[i] and slots[i] != (0, 0)):
            a, b = slots[i]
            off = (a - 1, b) if a else (a, b - 1)
            read = tuple(off if k == i else s for k, s in enumerate(slots))
            view = ProbView(read, bar, unsure={i: (slots[i], 0.4)})
            for frames in (1, 3, 8):
                found = recognise(StillViews([view] * frames), BEFORE, DICE, 0, DEFAULT_LAYOUT,
                                  SETTINGS)
                assert found.verdict != "illegal", (play.move, i, frames)


def test_a_slot_read_unsurely_is_never_flagged() -> None:
    """The slot that would make the move illegal is read 60/40 against the legal count: the
    legal move gets the benefit of the doubt (or the referee waits), it is never flagged; read
    surely, the same picture is flagged."""
    right = BEFORE.apply_steps([(8, 5), (6, 5)])
    board = list(right.board)
    board[13] -= 1  # one checker gone from the 13 point: illegal (BG-EQ-1)
    wrong = Position(tuple(board))
    slots, bar = hypothesis(DEFAULT_LAYOUT, wrong.board, 0)
    legal_slots = hypothesis(DEFAULT_LAYOUT, right.board, 0)[0]
    i = next(k for k in range(24) if slots[k] != legal_slots[k])
    view = ProbView(slots, bar, unsure={i: (legal_slots[i], 0.4)})
    for frames in (1, 4, 8):
        found = recognise(StillViews([view] * frames), BEFORE, (3, 1), 0, DEFAULT_LAYOUT,
                          SETTINGS)
        assert found.verdict != "illegal"
        assert found.verdict == "unreadable" or found.result == right
    sure = ProbView(slots, bar)
    found = recognise(StillViews([sure] * 4), BEFORE, (3, 1), 0, DEFAULT_LAYOUT, SETTINGS)
    assert found.verdict == "illegal" and found.result == wrong


def test_a_result_ruled_out_surely_elsewhere_is_flagged_despite_an_unsure_slot() -> None:
    """31 played as 13/8, the 8 point's four checkers read 70/30 against five (a faint rim):
    every legal result differs there most, but each also differs on a slot read beyond doubt
    (the 13 point, a 9, 10 or 5 point left empty), so the move is flagged (BG-MOVE-1); with the
    unsure slot the only difference, the referee would wait (see the test above)."""
    wrong = BEFORE.apply_steps([(13, 8)])
    slots, bar = hypothesis(DEFAULT_LAYOUT, wrong.board, 0)
    i = DEFAULT_LAYOUT.slot_of_point(8)
    a, b = slots[i]
    assert a + b == 4
    five = (a + 1, b) if a else (a, b + 1)
    view = ProbView(slots, bar, unsure={i: (five, 0.3)})
    for frames in (1, 3, 6):
        found = recognise(StillViews([view] * frames), BEFORE, DICE, 0, DEFAULT_LAYOUT,
                          SETTINGS)
        assert found.verdict == "illegal" and found.result == wrong, frames
        assert found.rule.startswith("BG-MOVE")


def test_a_single_misread_frame_cannot_veto_or_decide() -> None:
    """Most frames must read the deciding slot as the verdict does: two sure frames out of
    three decide; one sure frame out of three does not."""
    wrong = BEFORE.apply_steps([(13, 8)])
    legal = legal_plays(BEFORE, DICE)[0].result
    bad, good = prob_view(wrong), prob_view(legal)
    two = recognise(StillViews([bad, bad, good]), BEFORE, DICE, 0, DEFAULT_LAYOUT, SETTINGS)
    assert two.verdict != "legal"
    one = recognise(StillViews([bad, good, good]), BEFORE, DICE, 0, DEFAULT_LAYOUT, SETTINGS)
    assert one.verdict != "illegal"


def test_a_tall_stack_misread_never_makes_a_legal_move_illegal() -> None:
    """Vision miscounts (or mis-colours) a tall stack surely, as on rendered boards: the legal
    move is still taken, and the same misread never becomes an "illegal" verdict."""
    before = Position.initial().apply_steps([(24, 23), (13, 7), (13, 8), (24, 23)])
    dice = (2, 1)
    right = before.apply_steps([(8, 6), (7, 6)])  # the 6 point now holds 7 checkers
    slots, bar = hypothesis(DEFAULT_LAYOUT, right.board, 0)
    six = next(i for i, s in enumerate(slots) if sum(s) == 7)
    a, b = slots[six]
    for misread in ((a + 1, b) if a else (a, b + 1), (b, a)):
        read = tuple(misread if i == six else s for i, s in enumerate(slots))
        view = ProbView(read, bar, unsure={six: (slots[six], 1e-4)})
        for frames in (1, 3, 8):
            found = recognise(StillViews([view] * frames), before, dice, 0, DEFAULT_LAYOUT,
                              SETTINGS)
            assert found.verdict == "legal" and found.result == right, (misread, frames)
    strict = RecognitionSettings(tall_stack=20)  # were tall stacks countable, it would not fit
    one_more = (a + 1, b) if a else (a, b + 1)
    read = tuple(one_more if i == six else s for i, s in enumerate(slots))
    view = ProbView(read, bar, unsure={six: (slots[six], 1e-4)})
    found = recognise(StillViews([view] * 3), before, dice, 0, DEFAULT_LAYOUT, strict)
    assert found.verdict != "legal"


def test_a_miscounted_tall_stack_does_not_pick_the_wrong_legal_move() -> None:
    """From a real match (match1070651, 62 played 14/6): the 6 point's 10 checkers are read as
    9 of the other colour, so by raw likelihood other plays (leaving 9 there) rank first. The
    countable slots decide, and the move played is taken."""
    before = Position((0, 0, 0, 0, 0, 2, 9, 1, 1, 1, 0, 0, 0, 0, 1,
                       0, 0, 0, 0, 0, 0, 0, 0, -1, -4, 0))
    dice = (6, 2)
    right = before.apply_steps([(14, 8), (8, 6)])
    slots, bar = hypothesis(DEFAULT_LAYOUT, right.board, 0)
    six = next(i for i, s in enumerate(slots) if sum(s) == 10)
    a = slots[six][0]
    wrong_colour = (0, 9) if a else (9, 0)
    read = tuple(wrong_colour if i == six else s for i, s in enumerate(slots))
    nine = (9, 0) if a else (0, 9)  # what the other plays leave there: likelier than 10
    view = ProbView(read, bar, unsure={six: (nine, 0.02)})
    for frames in (3, 8):
        found = recognise(StillViews([view] * frames), before, dice, 0, DEFAULT_LAYOUT,
                          SETTINGS)
        assert found.verdict == "legal" and found.result == right, (frames, found.reason)
    counted = RecognitionSettings(tall_stack=20)  # ranked by every slot, another play wins
    found = recognise(StillViews([view] * 3), before, dice, 0, DEFAULT_LAYOUT, counted)
    assert found.result != right


def test_a_tall_stack_read_exactly_one_short_never_flags_a_legal_move() -> None:
    """A stack of exactly ``tall_stack`` checkers read one short (the one count at which the
    stack's reading would still be countable), every other slot read right: the reading is a
    position with a checker gone from the board, which the judge calls illegal, yet the legal
    move is never flagged (the referee waits instead)."""
    settings = RecognitionSettings()
    tall = settings.tall_stack
    board = [0] * 26
    board[6], board[8], board[13] = tall + 1, 1, 13 - tall  # player 0, 15 checkers
    board[19], board[12] = -13, -2
    before = Position(tuple(board))
    dice = (3, 1)
    right = before.apply_steps([(8, 5), (6, 5)])  # 6 point: exactly ``tall`` checkers
    assert right.board[6] == tall
    short = list(right.board)  # the reading: one checker of the 6 point not seen
    short[6] -= 1
    seen = Position(tuple(short))
    assert not judge(before, seen, dice).legal
    read_slots, read_bar = hypothesis(DEFAULT_LAYOUT, seen.board, 0)
    for frames in (1, 3, 8):
        view = ProbView(read_slots, read_bar, p_read=0.999)
        found = recognise(StillViews([view] * frames), before, dice, 0, DEFAULT_LAYOUT, settings)
        assert found.verdict != "illegal", (frames, found.reason)


def test_a_checker_moved_between_tall_stacks_is_still_flagged() -> None:
    """The other side of the rule above: when no checker is missing from the reading (it is
    seen on another stack), a tall stack one short decides like any slot."""
    settings = RecognitionSettings()
    tall = settings.tall_stack
    board = [0] * 26
    board[6], board[8], board[13] = tall + 1, 1, 13 - tall
    board[19], board[12] = -13, -2
    before = Position(tuple(board))
    dice = (3, 1)
    right = before.apply_steps([(8, 5), (6, 5)])
    wrong = list(right.board)  # a checker of the 6 point played on to the 5 point as well
    wrong[6] -= 1
    wrong[5] += 1
    seen = Position(tuple(wrong))
    assert not judge(before, seen, dice).legal
    read_slots, read_bar = hypothesis(DEFAULT_LAYOUT, seen.board, 0)
    view = ProbView(read_slots, read_bar, p_read=0.999)
    found = recognise(StillViews([view] * 3), before, dice, 0, DEFAULT_LAYOUT, settings)
    assert found.verdict == "illegal"


def test_cannot_read_names_the_nearest_legal_move_and_where_it_differs() -> None:
    """A checker one pip short (31 played 8/5 6/4), both places read unsurely (a faint rim):
    the referee waits, and says which legal move is nearest and on which points, in the
    mover's numbers, the picture differs from it: what a director called to the table checks
    (TTB-6.1)."""
    wrong = BEFORE.apply_steps([(8, 5), (6, 4)])
    for player in (0, 1):
        slots, bar = hypothesis(DEFAULT_LAYOUT, wrong.board, player)
        five, four = (DEFAULT_LAYOUT.slot_of_point(p) if player == 0
                      else DEFAULT_LAYOUT.slot_of_point(25 - p) for p in (5, 4))
        legal_slots = hypothesis(DEFAULT_LAYOUT, BEFORE.apply_steps([(8, 5), (6, 5)]).board,
                                 player)[0]
        view = ProbView(slots, bar, unsure={five: (legal_slots[five], 0.3),
                                            four: ((0, 0), 0.3)})
        found = recognise(StillViews([view] * 3), BEFORE, DICE, player, DEFAULT_LAYOUT,
                          SETTINGS)
        assert found.verdict == "unreadable"
        assert found.reason == (
            "no legal move fits and the reading is not sure; nearest legal move 8/5 6/5, which "
            "differs on the 5-point (1 of the mover's read, 2 of the mover's in the move) and "
            "the 4-point (1 of the mover's read, none in the move)"), player


def test_two_legal_moves_read_alike_are_both_named() -> None:
    """Two legal results that differ on a few points, each read half and half: neither fits
    clearly, and the reason names both moves (TTB-6.1)."""
    plays = legal_plays(BEFORE, DICE)
    counts = [hypothesis(DEFAULT_LAYOUT, p.result.board, 0) for p in plays]
    pairs = [(i, j) for i in range(len(plays)) for j in range(i + 1, len(plays))]
    a, b = min(pairs, key=lambda ij: sum(
        x != y for x, y in zip(counts[ij[0]][0], counts[ij[1]][0], strict=True)))
    differ = [k for k in range(24) if counts[a][0][k] != counts[b][0][k]]
    view = ProbView(counts[a][0], counts[a][1],
                    unsure={k: (counts[b][0][k], 0.5 - 1e-6) for k in differ})
    found = recognise(StillViews([view] * 3), BEFORE, DICE, 0, DEFAULT_LAYOUT, SETTINGS)
    assert found.verdict == "unreadable"
    assert found.reason.startswith("two legal moves fit the picture equally well: ")
    named = found.reason.split(": ", 1)[1].split(" and ")
    assert sorted(named) == sorted([plays[a].move, plays[b].move])
