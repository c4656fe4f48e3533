"""Phantom dice: what the dice reader reports as a die where none was thrown (the apex of a dark
point over a white checker, read as a cocked die) is seen BEFORE the throw too. The referee
remembers where dice are read while no throw can be under way, and a die read alike there later
is no part of the new throw (BG-ROLL-2 judges only the thrown dice)."""

from __future__ import annotations

from typing import Any

from controller.referee.api import DieSeen, SetSignal
from controller.referee.config import RecognitionSettings, RefereeConfig
from controller.referee.resume import resume
from engine.backgammon.moves import legal_plays
from engine.backgammon.rules import DiceSetup, Rules
from tests.controller.referee.harness import entries_of
from tests.controller.referee.table import Table

# where the dice reader keeps seeing a cocked "2" once a checker lies under a dark point's apex
PHANTOM = DieSeen(2, "right", False, False, 0.6, (265.0, 126.0))
# the same, read unsurely: too unsure for a face, sure enough for a cocked die (BG-ROLL-2)
FAINT = DieSeen(2, "right", False, False, 0.4, (265.0, 126.0))


class PlacedTable(Table):
    """A table whose dice reader gives every die its centre (mm of the playing surface), as
    the real one does; the right half of the picture is x > 250."""

    def die(self, pips: int, player: int, **kw: Any) -> DieSeen:
        half = self.config.right_half(player)
        if kw.get("wrong_half"):
            half = "left" if half == "right" else "right"
        at = kw.get("at")
        if at is None:
            x = self.rng.uniform(20, 230) + (250 if half == "right" else 0)
            at = (round(x, 1), round(self.rng.uniform(20, 380), 1))
        return DieSeen(pips, half, bool(kw.get("flat", True)),  # type: ignore[arg-type]
                       bool(kw.get("on_checker", False)), float(kw.get("confidence", 0.95)),
                       at)


def _phantom_from_the_move(table: Table, phantom: DieSeen = PHANTOM) -> Table:
    """Player 1 plays the opening 53 and presses; from the move on, the reader also sees
    ``phantom`` (in player 0's right half) beside the dice lying there."""
    m = table.referee.match
    assert m.on_roll == 1 and m.dice is not None
    result = legal_plays(m.position, m.dice)[0].result
    table.motion()
    table.dice = (*table.dice, phantom)
    table.place(result, 1)
    table.press(1)
    assert table.referee.stage == "decide" and table.referee.match.on_roll == 0
    return table


def _started(config: RefereeConfig | None = None) -> PlacedTable:
    table = PlacedTable(config)
    table.opening(3, 5)
    table.press(0)  # BG-OPEN-3: the smaller die starts player 1's clock
    return table


def test_a_phantom_cocked_die_does_not_make_the_next_throw_invalid() -> None:
    """The thrower's two dice and the phantom: the throw counts (today's code left it to the
    director), and a frame in which one real die is not read yet is no "throw again"."""
    table = _phantom_from_the_move(_started())
    table.motion()
    d1, d2 = table.die(4, 0), table.die(2, 0)
    table.dice = (d1, PHANTOM)  # the reader has not found the second die yet
    out = table.frames(1)
    table.dice = (d1, d2, PHANTOM)
    out += table.frames(2)
    assert table.entries(out, "invalid_throw") == []
    assert SetSignal("throw_again", True) not in out
    assert [e["dice"] for e in table.entries(out, "roll")] == [[4, 2]]
    roll = table.entries(out, "roll")[0]
    assert len(roll["seen"]) == 3 and len(roll["thrown"]) == 2


def test_a_phantom_read_unsurely_is_not_taken_for_a_cocked_die_either() -> None:
    table = _phantom_from_the_move(_started(), FAINT)
    table.motion()
    table.dice = (table.die(6, 0), table.die(1, 0), FAINT)
    out = table.frames()
    assert [e["dice"] for e in table.entries(out, "roll")] == [[6, 1]]


def test_a_real_cocked_die_of_the_new_throw_is_still_flagged() -> None:
    """BG-ROLL-2: a die of the throw cocked elsewhere is no phantom."""
    table = _phantom_from_the_move(_started())
    table.motion()
    table.dice = (table.die(4, 0, flat=False, confidence=0.6), table.die(2, 0), PHANTOM)
    out = table.frames()
    flag = table.entries(out, "invalid_throw")
    assert flag and flag[0]["rule"] == "BG-ROLL-2" and "cocked" in flag[0]["reason"]
    assert table.entries(out, "roll") == []
    # thrown again, flat: it counts, the phantom still ignored
    table.motion()
    table.dice = (table.die(4, 0), table.die(2, 0), PHANTOM)
    out = table.frames()
    assert [e["dice"] for e in table.entries(out, "roll")] == [[4, 2]]


def test_a_die_landing_where_the_phantom_was_read_otherwise_counts() -> None:
    table = _phantom_from_the_move(_started())
    table.motion()
    on_it = table.die(5, 0, at=(266.5, 127.0))  # flat 5 where the cocked "2" was read
    table.dice = (on_it, table.die(3, 0))  # (the phantom is not seen under it)
    out = table.frames()
    assert [e["dice"] for e in table.entries(out, "roll")] == [[5, 3]]


def test_a_cocked_die_landing_on_the_phantom_place_with_another_face_is_flagged() -> None:
    table = _phantom_from_the_move(_started())
    table.motion()
    cocked = table.die(6, 0, flat=False, confidence=0.6, at=(264.0, 125.0))
    table.dice = (cocked, table.die(3, 0))
    out = table.frames()
    assert table.entries(out, "invalid_throw") and not table.entries(out, "roll")


def test_a_phantom_that_comes_and_goes_is_remembered_for_the_turn() -> None:
    """Seen in one still frame of the move stage only (the checkers hid it again): still no
    part of the next throw."""
    table = _started()
    m = table.referee.match
    assert m.dice is not None
    result = legal_plays(m.position, m.dice)[0].result
    lying = table.dice
    table.place(result, 1)
    table.dice = (*lying, PHANTOM)
    table.frames(1)
    table.dice = lying
    table.frames(2)
    table.press(1)
    table.motion()
    table.dice = (table.die(1, 0), table.die(1, 0), PHANTOM)
    out = table.frames()
    assert [e["dice"] for e in table.entries(out, "roll")] == [[1, 1]]


def test_a_die_seen_while_the_dice_were_picked_up_is_no_phantom() -> None:
    """Only while the last throw's dice lie where they lay can nothing have been thrown: a die
    seen after they were picked up may be the new throw's and is not remembered."""
    table = _started()
    table.play_first_legal()  # player 1 moves and presses; player 0 is on roll
    table.motion()
    first = table.die(6, 0)
    table.dice = (first,)  # one die of the new throw lies still, the other still in the hand
    table.frames(2)
    table.motion()
    table.dice = (first, table.die(4, 0))
    out = table.frames()
    assert [e["dice"] for e in table.entries(out, "roll")] == [[6, 4]]


def test_the_opening_ignores_a_phantom_seen_on_the_set_up_board() -> None:
    table = PlacedTable()
    table.frames(3)
    table.dice = (DieSeen(3, "left", True, True, 0.8, (40.0, 200.0)),)  # a checker read as a 3
    table.frames(3)
    table.motion()
    table.dice = (*table.dice, table.die(3, 0), table.die(5, 1))
    out = table.frames()
    roll = table.entries(out, "opening_roll")
    assert roll and roll[0]["dice"] == [3, 5] and roll[0]["player"] == 1


def test_the_first_opening_die_waiting_for_the_other_is_no_phantom() -> None:
    """BG-OPEN-1: one player throws first; their die lies still until the other's lands."""
    table = PlacedTable()
    table.frames(2)
    table.motion()
    first = table.die(6, 0)
    table.dice = (first,)
    table.frames(3)
    table.motion()
    table.dice = (first, table.die(2, 1))
    out = table.frames()
    roll = table.entries(out, "opening_roll")
    assert roll and roll[0]["dice"] == [6, 2] and roll[0]["player"] == 0


def test_an_opening_die_thrown_again_beside_a_phantom_counts() -> None:
    """BG-OPEN-2: only the owner of an invalid opening die throws again, the other's die
    stays; a phantom seen since the set-up is neither."""
    table = PlacedTable()
    ghost = DieSeen(4, "right", False, False, 0.6, (300.0, 60.0))
    table.dice = (ghost,)
    table.frames(3)
    table.motion()
    stays = table.die(5, 1)
    table.dice = (ghost, table.die(3, 0, wrong_half=True), stays)
    out = table.frames()
    flag = table.entries(out, "invalid_throw")
    assert flag and flag[0]["player"] == 0 and flag[0]["rule"] == "BG-OPEN-2"
    table.motion()
    table.dice = (ghost, table.die(3, 0), stays)
    out = table.frames()
    roll = table.entries(out, "opening_roll")
    assert roll and roll[0]["dice"] == [3, 5]


def test_a_pair_each_ignores_a_phantom_but_not_the_opponents_throw() -> None:
    """BG-EQ-2: with a pair each the other pair lies still while a player throws their own;
    a phantom seen since the move is no part of the throw."""
    config = RefereeConfig(players=("Ayse", "Mehmet"), length=5,
                           rules=Rules(dice=DiceSetup.PAIR_EACH))
    table = _phantom_from_the_move(_started(config))
    opening = tuple(d for d in table.dice if d is not PHANTOM)
    table.motion()
    table.dice = (*opening, PHANTOM, table.die(4, 0), table.die(4, 0))
    out = table.frames()
    assert [e["dice"] for e in table.entries(out, "roll")] == [[4, 4]]


def test_the_director_sets_dice_the_camera_could_not_read_and_they_are_no_new_throw() -> None:
    """The dice lying when the director enters a throw are that throw's: once the move is
    pressed they are not read as the opponent's throw, nor is what lies with them."""
    table = _started()
    table.play_first_legal()
    table.motion()
    table.dice = (table.die(5, 0, confidence=0.2), table.die(1, 0), PHANTOM)  # unreadable
    out = table.frames()
    assert table.entries(out, "roll") == []
    out = table.director("set_dice", dice=[5, 1])
    assert table.entries(out, "roll")[0]["dice"] == [5, 1]
    out = table.play_first_legal()  # still frames with the old dice after the press
    assert table.entries(out, "move") and not table.entries(out, "invalid_throw")
    assert table.referee.stage == "decide" and table.referee.match.on_roll == 1
    table.motion()
    table.dice = (table.die(6, 1), table.die(2, 1), PHANTOM)
    out = table.frames()
    assert [e["dice"] for e in table.entries(out, "roll")] == [[6, 2]]


def test_a_restart_after_the_press_still_knows_the_phantom() -> None:
    """The press journals where phantoms were seen: a table restarted before the throw (the
    journal rebuilds the referee) ignores them too, and writes the same journal."""
    table = _phantom_from_the_move(_started())
    press = [e for e in table.journal() if e["type"] == "clock"][-1]
    assert press["phantoms"] == [[2, "right", False, False, 265.0, 126.0]]
    journal = table.journal()
    referee, commands = resume(journal)
    assert entries_of(commands) == []
    table.motion()
    table.dice = (table.die(4, 0), PHANTOM)  # as above: the second die not read yet
    live = table.frames(1)
    table.dice = (*table.dice[:1], table.die(2, 0), PHANTOM)
    live += table.frames(2)
    resumed: list[dict[str, Any]] = []
    for event in table.events[-4:]:
        resumed += entries_of(referee.handle(event))
    assert resumed == table.entries(live)
    assert [e["dice"] for e in resumed if e["type"] == "roll"] == [[4, 2]]


def test_a_restart_between_throw_and_move_knows_which_dice_were_thrown() -> None:
    """``thrown`` in the roll entry: after a restart in the move stage, a phantom that appears
    when the one lying at the throw has gone is still told from the thrown dice lying there."""
    table = _phantom_from_the_move(_started())
    table.motion()
    table.dice = (table.die(4, 0), table.die(2, 0), PHANTOM)
    out = table.frames()
    roll = table.entries(out, "roll")[0]
    assert roll["thrown"] != roll["seen"]
    cut = len(table.journal())
    events = len(table.events)
    m = table.referee.match
    assert m.dice is not None
    other = DieSeen(3, "left", True, True, 0.8, (120.0, 300.0))  # a checker read as a 3
    table.motion()
    table.board0 = legal_plays(m.position, m.dice)[0].result  # player 0 moves
    table.dice = (*table.dice[:2], other)  # the checkers moved: the phantom moved too
    table.frames()
    table.press(0)
    table.motion()
    table.dice = (table.die(6, 1), table.die(5, 1), other)
    live = table.frames()
    assert [e["dice"] for e in table.entries(live, "roll")] == [[6, 5]]
    referee, commands = resume(table.journal()[:cut])
    resumed = entries_of(commands)
    for event in table.events[events:]:
        resumed += entries_of(referee.handle(event))
    assert resumed == table.journal()[cut:]


def test_the_referee_tells_where_the_judged_throw_lay_not_the_phantom_beside_it() -> None:
    """``thrown_at``: the centres of the last judged throw's own dice (the dice memory holds
    those as the throw's, BG-EQ-2), not a phantom's read beside them; the same after a restart
    (from the roll entry); a die without a centre tells nothing."""
    table = _phantom_from_the_move(_started())
    table.motion()
    d1, d2 = table.die(4, 0), table.die(2, 0)
    table.dice = (d1, d2, PHANTOM)
    out = table.frames()
    assert [e["dice"] for e in table.entries(out, "roll")] == [[4, 2]]
    places = sorted(table.referee.thrown_at)
    assert places == sorted([d1.centre, d2.centre])
    referee, _ = resume(table.journal())
    assert sorted(referee.thrown_at) == places
    bare = Table()
    bare.opening(3, 5)
    assert bare.referee.stage == "move" and bare.referee.thrown_at == ()


def test_a_die_lying_beside_a_counted_throw_is_remembered_for_the_game() -> None:
    """With one pair (BG-EQ-2) what lies beside the two dice of a counted throw was not thrown:
    when it is read there again after it had gone (the checkers hid it), it is still none of
    the new throw's dice."""
    table = _started()
    table.play_first_legal()
    table.motion()
    unsure = RecognitionSettings().cocked_confidence / 2  # too unsure to judge
    dim = DieSeen(2, "right", False, False, unsure, PHANTOM.centre)
    table.dice = (table.die(4, 0), table.die(2, 0), dim)
    out = table.frames()
    assert [e["dice"] for e in table.entries(out, "roll")] == [[4, 2]]
    table.motion()
    table.dice = table.dice[:2]  # the phantom is gone for the move
    table.play_first_legal()
    table.motion()
    table.dice = (table.die(6, 1), table.die(3, 1), PHANTOM)  # back, read surely cocked
    out = table.frames()
    assert not table.entries(out, "invalid_throw")
    assert [e["dice"] for e in table.entries(out, "roll")] == [[6, 3]]


def test_the_director_s_throw_tells_which_dice_lying_were_thrown() -> None:
    """The director enters 5-1 for three dice read (one a phantom): the flat 5 and 1 are the
    throw, the cocked 2 is a phantom remembered after it has gone and come back."""
    table = _started()
    table.play_first_legal()
    table.motion()
    table.dice = (table.die(5, 0), table.die(1, 0), PHANTOM)  # three sure dice: not judged
    out = table.frames()
    assert table.entries(out, "roll") == []
    out = table.director("set_dice", dice=[5, 1])
    roll = table.entries(out, "roll")[0]
    assert len(roll["seen"]) == 3 and sorted(d[0] for d in roll["thrown"]) == [1, 5]
    table.motion()
    table.dice = table.dice[:2]
    table.play_first_legal()
    table.motion()
    table.dice = (table.die(6, 1), table.die(2, 1), PHANTOM)
    out = table.frames()
    assert [e["dice"] for e in table.entries(out, "roll")] == [[6, 2]]


def test_the_dice_are_wanted_while_a_throw_may_come_and_at_the_press() -> None:
    """``dice_due`` tells the pipeline when to read dice (the slowest reader): not while a
    player moves, but from the press that ends the move to its verdict (what lies on the
    board then is no throw) and whenever a throw may come."""
    table = _started()
    referee = table.referee
    assert referee.stage == "move" and not referee.dice_due
    m = referee.match
    assert m.dice is not None
    table.motion()
    table.board0 = legal_plays(m.position, m.dice)[0].result.swap()  # player 1 moves
    table.frames(1)
    assert not referee.dice_due
    table.press(1, frames=0)  # too few still frames for a verdict yet
    assert referee.stage == "move" and referee.dice_due
    table.frames()
    assert referee.stage == "decide" and referee.dice_due
    table.offer(0)
    assert referee.stage == "doubled" and not referee.dice_due


def test_a_die_thrown_again_that_lands_where_it_lay_is_part_of_the_new_throw() -> None:
    """BG-ROLL-2: after an invalid throw both dice are thrown again; one landing a few mm from
    where it lay with the same face is thrown all the same (it was left to the director)."""
    table = _started()
    table.play_first_legal()
    table.motion()
    table.dice = (table.die(4, 0, at=(357.0, 249.0)), table.die(2, 0, on_checker=True))
    out = table.frames()
    assert table.entries(out, "invalid_throw")
    table.motion()
    table.dice = (table.die(4, 0, at=(358.0, 254.0)), table.die(2, 0, at=(412.0, 254.0)))
    out = table.frames()
    assert [e["dice"] for e in table.entries(out, "roll")] == [[4, 2]]


def test_after_an_invalid_throw_the_dice_lying_still_are_no_new_throw() -> None:
    table = _phantom_from_the_move(_started())
    table.motion()
    table.dice = (table.die(4, 0), table.die(2, 0, flat=False), PHANTOM)
    out = table.frames()
    assert table.entries(out, "invalid_throw")
    assert table.types(table.motion() + table.frames(4)) == []
