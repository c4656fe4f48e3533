"""A die thrown again that lands where a die lay (within ``dice_moved``) is told from one nobody
picked up by the camera's word (``DieSeen.touched``: its picture changed since the press): the
throw is judged rather than left to the director (BG-ROLL-2)."""

from __future__ import annotations

import dataclasses

from controller.referee.api import DieSeen
from engine.backgammon.moves import legal_plays
from tests.controller.referee.test_phantom_dice import PlacedTable, _started


def _moved_and_pressed() -> tuple[PlacedTable, DieSeen]:
    """Player 1 plays the opening roll and presses; the opening dice lie where they fell.
    Returns the table and player 0's opening die (in player 0's right half)."""
    table = _started()
    m = table.referee.match
    assert m.on_roll == 1 and m.dice is not None
    table.place(legal_plays(m.position, m.dice)[0].result, 1)
    table.press(1)
    assert table.referee.stage == "decide" and table.referee.match.on_roll == 0
    own = [d for d in table.dice if d.half == table.config.right_half(0)]
    assert len(own) == 1
    return table, own[0]


def _throw_onto(table: PlacedTable, old: DieSeen, touched: bool | None) -> list[object]:
    """Player 0 throws 3 and 6: the three lands where their opening three lay."""
    table.motion()
    again = dataclasses.replace(old, touched=touched)
    six = dataclasses.replace(table.die(6, 0), touched=touched)
    table.dice = (again, six)
    return list(table.frames(3))


def test_a_die_thrown_again_onto_its_own_place_counts_when_the_camera_saw_it_touched() -> None:
    table, old = _moved_and_pressed()
    assert old.pips == 3
    out = _throw_onto(table, old, touched=True)
    assert [e["dice"] for e in table.entries(out, "roll")] == [[3, 6]]


def test_without_the_cameras_word_the_die_lying_there_is_no_part_of_the_throw() -> None:
    for touched in (False, None):
        table, old = _moved_and_pressed()
        out = _throw_onto(table, old, touched)
        # one die of the throw: not judged (the director is called after throw_unread_ms)
        assert table.entries(out, "roll") == [] and table.entries(out, "invalid_throw") == []
        assert table.referee.throw_unsure


def test_an_untouched_die_beside_a_throw_of_two_is_still_left_out() -> None:
    # the camera says only what it saw: two dice thrown elsewhere are the throw, the die
    # lying untouched is not (a third die there would make it unjudgeable)
    table, old = _moved_and_pressed()
    table.motion()
    table.dice = (dataclasses.replace(old, touched=False),
                  dataclasses.replace(table.die(4, 0), touched=True),
                  dataclasses.replace(table.die(1, 0), touched=True))
    out = table.frames(3)
    assert [sorted(e["dice"]) for e in table.entries(out, "roll")] == [[1, 4]]


def _rolled_moved_and_pressed() -> tuple[PlacedTable, tuple[DieSeen, DieSeen]]:
    """Player 0 throws 4 and 2 after the opening, moves and presses: their dice lie in their
    right half, untouched since the press. Returns the table and those two dice."""
    table, _ = _moved_and_pressed()
    table.motion()
    table.dice = (table.die(4, 0), table.die(2, 0))
    assert [e["dice"] for e in table.entries(table.frames(3), "roll")] == [[4, 2]]
    m = table.referee.match
    assert m.dice is not None
    table.place(legal_plays(m.position, m.dice)[0].result, 0)
    table.press(0)
    assert table.referee.stage == "decide" and table.referee.match.on_roll == 1
    pair = table.dice
    assert len(pair) == 2
    return table, (pair[0], pair[1])


def _same_throw_onto(table: PlacedTable, pair: tuple[DieSeen, ...],
                     touched: tuple[bool | None, ...], shift: float = 3.0) -> list[object]:
    """Player 1 throws 4 and 2 into player 0's half: both land where player 0's lay (``shift``
    mm aside, within ``dice_moved``)."""
    table.motion()
    table.dice = tuple(dataclasses.replace(d, touched=t, centre=_aside(d, shift))
                       for d, t in zip(pair, touched, strict=True))
    return list(table.frames(3))


def _aside(die: DieSeen, shift: float) -> tuple[float, float]:
    assert die.centre is not None
    return (die.centre[0] + shift * 0.6, die.centre[1] - shift * 0.8)


def test_the_same_numbers_thrown_onto_the_last_throws_places_are_judged() -> None:
    """Draw 1700, match 5609185: a throw into the wrong half landed, 4 and 2 again, within a
    few mm of the opponent's 4 and 2; the camera saw both places change since the press."""
    table, pair = _rolled_moved_and_pressed()
    out = _same_throw_onto(table, pair, (True, True))
    flag = table.entries(out, "invalid_throw")
    assert flag and flag[0]["rule"] == "BG-ROLL-2" and "outside" in flag[0]["reason"]
    assert table.entries(out, "roll") == []


def test_dice_not_both_touched_since_the_press_are_no_throw() -> None:
    """A hand brushing one die, or no word from the camera: the dice lie as they lay."""
    for touched in ((True, False), (False, False), (None, None), (True, None)):
        table, pair = _rolled_moved_and_pressed()
        out = _same_throw_onto(table, pair, touched)
        assert table.entries(out, "invalid_throw") == [] and table.entries(out, "roll") == []
        assert not table.referee.throw_unsure


def test_dice_touched_but_not_shifted_are_no_throw() -> None:
    """A shadow or a light change over both dice changes their pictures, not their places: the
    dice lying within a quarter of ``dice_moved`` of where they lay were not thrown."""
    table, pair = _rolled_moved_and_pressed()
    out = _same_throw_onto(table, pair, (True, True), shift=1.0)
    assert table.entries(out, "invalid_throw") == [] and table.entries(out, "roll") == []
    table, pair = _rolled_moved_and_pressed()
    out = _same_throw_onto(table, pair, (True, True), shift=2.0)
    assert table.entries(out, "invalid_throw")  # 2 mm aside: thrown again


def _turned(die: DieSeen, pips: int, shift: float) -> DieSeen:
    return dataclasses.replace(die, pips=pips, touched=True, centre=_aside(die, shift))


def test_a_throw_landing_on_the_last_throws_places_with_new_faces_is_judged() -> None:
    """Draw 8000 (3 illegal moves, 4 invalid throws), match 5879255: a throw into the wrong
    half landed 6 and 2 with the six 1.1 mm from the opponent's four and the two 5.5 mm
    from their two; a die does not turn over by itself, so the six was thrown (BG-ROLL-2)."""
    table, (four, two) = _rolled_moved_and_pressed()
    assert sorted((four.pips, two.pips)) == [2, 4]
    if four.pips != 4:
        four, two = two, four
    table.motion()
    table.dice = (_turned(four, 6, 1.1), _turned(two, 2, 5.5))
    out = table.frames(3)
    flag = table.entries(out, "invalid_throw")
    assert flag and flag[0]["rule"] == "BG-ROLL-2" and "outside" in flag[0]["reason"]


def test_a_face_changed_in_place_with_the_other_die_unmoved_is_no_throw() -> None:
    """A shadow over both dice may misread one of them: the other lying where it lay, with
    its face, says nobody threw."""
    table, (first, second) = _rolled_moved_and_pressed()
    table.motion()
    table.dice = (_turned(first, 7 - first.pips, 0.5), _turned(second, second.pips, 0.5))
    out = table.frames(3)
    assert table.entries(out, "invalid_throw") == [] and table.entries(out, "roll") == []


def test_a_face_changed_in_place_read_unsurely_is_no_throw() -> None:
    table, (first, second) = _rolled_moved_and_pressed()
    table.motion()
    table.dice = (dataclasses.replace(_turned(first, 7 - first.pips, 0.5), confidence=0.05),
                  _turned(second, 7 - second.pips, 0.5))
    out = table.frames(3)
    assert table.entries(out, "invalid_throw") == [] and table.entries(out, "roll") == []
