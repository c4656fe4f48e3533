"""Legal play generation: the published corpus counts and the rules one by one."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.backgammon.dice import ALL_ROLLS
from engine.backgammon.moves import legal_plays, max_dice_playable, partial_results, result_boards
from engine.backgammon.notation import parse_move
from engine.backgammon.position import Position

START = Position.initial()

# ../shared/data/README.md: all legal results over positions/, a roll with no legal play
# counting as one result (the wildbg benchmark's figures, reproduced by GNU Backgammon 1.07).
PUBLISHED = {"contact.csv": (218_356, 185_957), "race.csv": (140_720, 122_570)}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_counts(shared_data: Path, name: str) -> None:
    ids = (shared_data / "positions" / name).read_text().split()
    doubles = singles = 0
    for pid in ids:
        position = Position.from_id(pid)
        for roll in ALL_ROLLS:
            n = len(legal_plays(position, roll)) or 1
            if roll[0] == roll[1]:
                doubles += n
            else:
                singles += n
    assert (doubles, singles) == PUBLISHED[name]


def pos(mine: dict[int, int], theirs: dict[int, int]) -> Position:
    return Position.from_checkers(mine, theirs)


def after(position: Position, text: str) -> Position:
    return position.apply_steps(parse_move(text))


def test_opening_31_has_16_plays_and_results_are_not_swapped() -> None:
    plays = legal_plays(START, (3, 1))
    assert len(plays) == 16
    assert len({p.result for p in plays}) == 16
    best = next(p for p in plays if p.move == "8/5 6/5")
    assert best.result.mine(5) == 2 and best.result.mine(8) == 2
    assert best.steps in (((8, 5), (6, 5)), ((6, 5), (8, 5)))
    assert best.dice_used == 2


def test_dice_order_is_irrelevant() -> None:
    for roll in ALL_ROLLS:
        a = {p.result for p in legal_plays(START, roll)}
        b = {p.result for p in legal_plays(START, (roll[1], roll[0]))}
        assert a == b


def test_entering_hits_a_blot() -> None:
    # BG-BAR-2: die 3 enters on our 22 (the opponent's 3 point), hitting a blot there.
    start = pos({25: 1, 13: 14}, {3: 1, 6: 14})
    plays = {p.move: p for p in legal_plays(start, (3, 2))}
    assert "bar/22*/20" in plays or "bar/20" in plays
    hit = [p for p in plays.values() if p.result.their_bar == 1]
    assert hit and all(p.steps[0][0] == 25 for p in plays.values())


def test_doubles_only_two_of_four_playable() -> None:
    # BG-MOVE-6 with a double: as many as possible. Only the checker on 13 can move, to 7 and 1;
    # then the checker is on 1 and 1-6 cannot bear off while 20 is outside.
    start = pos({20: 1, 13: 1, 2: 13}, {11: 2, 4: 2, 6: 11})
    plays = legal_plays(start, (6, 6))
    assert [p.move for p in plays] == ["13/1"]
    assert max_dice_playable(start, (6, 6)) == 2


def test_off_3_moving_inside_instead_of_bearing_off() -> None:
    # BG-OFF-3: 6/2 5/off and 6/off 5/1 are both legal with 64... plus two off.
    start = pos({6: 1, 5: 1, 4: 1}, {6: 15})
    found = {p.result for p in legal_plays(start, (6, 4))}
    assert after(start, "6/off 4/off") in found
    assert after(start, "6/2 5/off") in found
    assert after(start, "5/1 6/off") in found


def test_result_boards_and_partials() -> None:
    boards = result_boards(START, (6, 4))
    assert len(boards) == len(legal_plays(START, (6, 4)))
    partial = partial_results(START, (6, 4))
    assert after(START, "13/7").board in partial
    assert after(START, "13/7").board not in boards
    assert partial_results(pos({9: 1, 7: 1, 6: 13}, {24: 2, 23: 2, 6: 11}), (6, 5)) == {}


def test_nothing_to_play_is_an_empty_list() -> None:
    start = pos({25: 2, 13: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2})
    for roll in ALL_ROLLS:
        assert legal_plays(start, roll) == []
        assert max_dice_playable(start, roll) == 0


def test_play_is_a_frozen_value() -> None:
    import pickle

    from engine.backgammon.moves import Play

    play = legal_plays(START, (3, 1))[0]
    again = pickle.loads(pickle.dumps(play))
    assert again == play and again.move == play.move
    built = Play(play.steps, play.result, START)
    assert built == play and hash(built) == hash(play) and built.move == play.move
    with pytest.raises(AttributeError):
        play.steps = ()  # type: ignore[misc]
