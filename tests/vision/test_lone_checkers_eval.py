"""The lone-checker evaluation (``tests.eval.lone_checkers``) reads what it says it reads."""

from __future__ import annotations

import math

from tests.eval.lone_checkers import LONE, Tally, evaluate, lone_board


def test_the_board_holds_a_lone_checker_of_alternate_colours_at_each_place() -> None:
    truth, contents = lone_board()
    assert [i for i, s in enumerate(truth) if s != (0, 0)] == list(LONE)
    assert {truth[i] for i in LONE} == {(1, 0), (0, 1)}
    assert sum(a + b for a, b in truth) + sum(contents.off) == 30


def test_every_scheme_counts_its_lone_checkers_and_the_evidence_of_each() -> None:
    results = evaluate(1)
    schemes = [name for name in results if name != "all"]
    assert len(schemes) >= 3
    for name in schemes:
        assert results[name].total == len(LONE)
        assert all(math.isfinite(n) for n in results[name].nats)
    assert results["all"].total == len(LONE) * len(schemes)
    assert results["all"].right == results["all"].total  # every count right (measured)
    # and every one sure enough for the referee to call a stray checker illegal: with rims
    # taken only from 56 degrees up (rim_dominance 1.5), the light checkers of gold-white-cream
    # on slots 12 and 18 of this board fell to 2.78 nats
    assert not results["all"].short, results["all"].line("all", 4.0)


def test_lone_checkers_laid_off_their_points_axis_are_still_counted() -> None:
    # a hurried hand: every checker 4 mm aside (the renderer's own jitter is at most 1 mm)
    tally = evaluate(1, off_axis_mm=4.0)["all"]
    assert tally.right == tally.total == 32


def test_checkers_below_the_margin_are_listed_by_slot() -> None:
    tally = Tally()
    tally.add(12, True, 2.78, 4.0)
    tally.add(5, True, 4.6, 4.0)
    line = tally.line("x", 4.0)
    assert "below 4 nats: 1/2 (slot 12: 1)" in line and "lowest 2.78" in line
