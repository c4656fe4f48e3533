"""Every worked example of seed 000 ("Modern Tavla Kuralları"), Black on roll unless stated.

The seed's diagrams are pictures, so each position here is built to fit the text around it;
the expected moves are the seed's own words.
"""

from __future__ import annotations

from engine.backgammon.judge import judge
from engine.backgammon.moves import Play, closed_out, legal_plays
from engine.backgammon.notation import parse_move
from engine.backgammon.position import Position

# The opponent's (White's) spare checkers parked where they change nothing: their 6 point.
PARK = 6


def pos(mine: dict[int, int], theirs: dict[int, int]) -> Position:
    return Position.from_checkers(mine, theirs)


def after(position: Position, text: str) -> Position:
    return position.apply_steps(parse_move(text))


def results(plays: list[Play]) -> set[Position]:
    return {play.result for play in plays}


def test_3b_53_one_checker_or_two() -> None:
    # 3-b: with 53 one checker may go 5 and another 3, or one checker 3 then 5 / 5 then 3.
    start = Position.initial()
    found = results(legal_plays(start, (5, 3)))
    assert after(start, "13/8 13/10") in found
    assert after(start, "13/10/5") in found
    assert after(start, "13/8/5") == after(start, "13/10/5")
    # ...but a die is played by one checker: not 5 with one, 1 and 2 with two others.
    split = after(start, "13/8 8/7 6/4")
    assert split not in found
    verdict = judge(start, split, (5, 3))
    assert not verdict.legal and verdict.rule == "BG-MOVE-2"


def test_3c_54_from_24_both_feet_closed_63_goes_via_18() -> None:
    # 3-c: 20 and 19 are White's points, so 24/15 is not a 54; with 63 it is, via 18.
    start = pos({24: 1, 13: 5, 8: 4, 6: 5}, {5: 2, 6: 2, 8: 3, 13: 6, 24: 2})
    assert start.board[20] <= -2 and start.board[19] <= -2 and start.board[18] == 0
    target = after(start, "24/15")
    assert target not in results(legal_plays(start, (5, 4)))
    verdict = judge(start, target, (5, 4))
    assert not verdict.legal and verdict.rule == "BG-MOVE-2"
    assert "20 and 19" in (verdict.reason or "")
    assert target in results(legal_plays(start, (6, 3)))
    assert judge(start, target, (6, 3)).legal


def test_3e_33_plays_four_times() -> None:
    start = Position.initial()
    target = after(start, "24/21(2) 13/10(2)")
    plays = {p.result: p for p in legal_plays(start, (3, 3))}
    assert target in plays
    assert plays[target].move == "24/21(2) 13/10(2)"
    assert len(plays[target].steps) == 4


def test_3f_66_no_six_no_move() -> None:
    # 3-f "Siyah - 66": no 6 can be played anywhere, so Black does not move.
    start = pos({8: 10, 7: 5}, {24: 2, 23: 2, 12: 11})
    assert legal_plays(start, (6, 6)) == []
    verdict = judge(start, start, (6, 6))
    assert verdict.legal and verdict.play is None
    moved = judge(start, after(start, "8/7"), (6, 6))
    assert not moved.legal and moved.rule == "BG-MOVE-7"


def test_3f_64_must_play_13_9_3_not_5_1() -> None:
    # 3-f "Siyah - 64": 5/1 "and no 6" is not allowed, both dice can be played: 13/9/3.
    start = pos({13: 1, 5: 1, 2: 13}, {18: 2, PARK: 13})
    plays = legal_plays(start, (6, 4))
    assert results(plays) == {after(start, "13/9/3")}
    assert plays[0].move == "13/3"
    verdict = judge(start, after(start, "5/1"), (6, 4))
    assert not verdict.legal and verdict.rule == "BG-MOVE-6"
    assert verdict.closest is not None and verdict.closest.result == after(start, "13/9/3")
    assert "13/3" in (verdict.reason or "")


def test_3f_43_must_play_6_2_5_2_or_6_2_3_off() -> None:
    # 3-f "Siyah - 43": not "6/3, no 4"; 6/2 5/2 or 6/2 3/off.
    start = pos({6: 1, 5: 1, 3: 1}, {24: 2, PARK: 13})
    assert results(legal_plays(start, (4, 3))) == {
        after(start, "6/2 5/2"),
        after(start, "6/2 3/off"),
    }
    verdict = judge(start, after(start, "6/3"), (4, 3))
    assert not verdict.legal and verdict.rule == "BG-MOVE-6"
    assert verdict.closest is not None
    assert verdict.closest.result in {after(start, "6/2 5/2"), after(start, "6/2 3/off")}


def test_3f_65_only_one_die_must_be_the_six() -> None:
    # 3-f "Siyah - 65": only one die can be played, so the 6: 9/3, not 9/4.
    start = pos({9: 1, 7: 1, 6: 13}, {24: 2, 23: 2, PARK: 11})
    plays = legal_plays(start, (6, 5))
    assert [p.move for p in plays] == ["9/3"]
    verdict = judge(start, after(start, "9/4"), (6, 5))
    assert not verdict.legal and verdict.rule == "BG-MOVE-6"
    assert "higher" in (verdict.reason or "")
    assert verdict.closest is not None and verdict.closest.move == "9/3"


def test_4_62_hit_then_white_63_enters_on_22_not_with_the_six() -> None:
    # 4 "Siyah - 62: 13/5*", then "Beyaz - 63: K/22, 24/18"; Black's 6 point blocks the 6.
    black = pos({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 4, 20: 1})
    hit = after(black, "13/5*")
    assert hit in results(legal_plays(black, (6, 2)))
    assert hit.their_bar == 1
    white = hit.swap()
    assert white.my_bar == 1
    plays = {p.result: p for p in legal_plays(white, (6, 3))}
    enter = after(white, "bar/22 24/18")
    assert enter in plays and plays[enter].move == "bar/22 24/18"
    assert all(p.steps[0] == (25, 22) for p in plays.values())
    # With 66 White could not enter at all.
    assert legal_plays(white, (6, 6)) == []
    # Moving 24/18 before entering is BG-BAR-2.
    wrong = judge(white, after(white, "24/18 24/21"), (6, 3))
    assert not wrong.legal and wrong.rule == "BG-BAR-2"


def test_4_31_gele_with_22_and_24_closed() -> None:
    # 4 "Siyah - 31: Gele": the bar checker cannot enter, and "4 in total" on 21 is no entry.
    start = pos({25: 1, 13: 5, 8: 3, 6: 6}, {3: 2, 1: 2, 6: 5, 13: 6})
    assert legal_plays(start, (3, 1)) == []
    assert judge(start, start, (3, 1)).legal
    verdict = judge(start, after(start, "bar/21"), (3, 1))
    assert not verdict.legal and verdict.rule == "BG-BAR-4"


def test_4_several_on_bar_enter_what_can_enter() -> None:
    # 4: with two on the bar and only one entry open, enter one; nothing else moves (BG-BAR-3).
    start = pos({25: 2, 13: 5, 8: 3, 6: 5}, {6: 3, 5: 2, 13: 10})
    plays = legal_plays(start, (6, 3))
    assert [p.move for p in plays] == ["bar/22"]
    verdict = judge(start, after(start, "bar/22 13/7"), (6, 3))
    assert not verdict.legal and verdict.rule == "BG-BAR-3"


def test_4_tatil_all_six_closed() -> None:
    # 4 "tatil": all six home points closed, no roll can enter.
    start = pos({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    assert closed_out(start)
    assert not closed_out(pos({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 1, 13: 4}))
    assert not closed_out(pos({13: 15}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}))
    for a in range(1, 7):
        for b in range(1, 7):
            assert legal_plays(start, (a, b)) == []


def test_5_64_bears_two_or_moves_inside() -> None:
    # 5: White 64 takes two checkers off (the 6 from the highest point, 5), or could have
    # played 5/1 4/off. (The general rule: 64 takes one from 6 and one from 4.)
    full = pos({6: 2, 5: 2, 4: 2, 3: 1}, {PARK: 15})
    assert after(full, "6/off 4/off") in results(legal_plays(full, (6, 4)))
    start = pos({5: 1, 4: 2, 2: 2}, {PARK: 15})
    found = results(legal_plays(start, (6, 4)))
    assert after(start, "5/off 4/off") in found
    assert after(start, "5/1 4/off") in found


def test_5_63_bear_off_or_play_safe() -> None:
    # 5 "Siyah - 63": 5/off 3/off, or 5/2 4/off to leave no blot; both use both dice.
    start = pos({5: 1, 4: 1, 3: 1}, {PARK: 15})
    found = results(legal_plays(start, (6, 3)))
    assert after(start, "5/off 3/off") in found
    assert after(start, "5/2 4/off") in found


def test_5_empty_point_moves_from_higher_else_highest() -> None:
    # 5: a die with no checker on its point moves one from higher up; none higher: highest.
    start = pos({5: 1, 2: 1}, {PARK: 15})
    # The 6 finds no checker on 6 and none higher: it bears off from 5, the highest.
    assert after(start, "5/off 2/off") in results(legal_plays(start, (6, 3)))
    # The 5 may not bear off the checker on 2 while two stand on 6 (one of them must move).
    start = pos({6: 2, 2: 1}, {PARK: 15})
    assert results(legal_plays(start, (5, 4))) == {after(start, "6/1 6/2")}
    verdict = judge(start, after(start, "2/off 6/2"), (5, 4))
    assert not verdict.legal and verdict.rule == "BG-OFF-2"


def test_5_bear_off_only_when_all_home() -> None:
    start = pos({8: 1, 5: 3, 3: 3}, {PARK: 15})
    verdict = judge(start, after(start, "5/off 3/off"), (5, 3))
    assert not verdict.legal and verdict.rule == "BG-OFF-1"
    # 8/5 first brings everyone home; then the 5 bears off.
    assert judge(start, after(start, "8/5 5/off"), (5, 3)).legal


def test_7_66_bears_off_all_four() -> None:
    # 7 "Siyah - 66: 5/al, 3/al(3)".
    start = pos({5: 1, 3: 3}, {24: 1, PARK: 14})
    plays = legal_plays(start, (6, 6))
    assert [p.move for p in plays] == ["5/off 3/off(3)"]
    assert plays[0].result.my_off == 15
