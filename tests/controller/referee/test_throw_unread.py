"""A throw that lies still but cannot be judged (a die not found, or read unsurely: perhaps
cocked) is said once after ``throw_unread_ms``, with the LED, instead of a silent wait: the
players look at the dice before they move (BG-ROLL-2, BG-ROLL-4)."""

from __future__ import annotations

from controller.referee.api import DieSeen, SetSignal
from tests.controller.referee.test_phantom_dice import PHANTOM, _phantom_from_the_move, _started

FRAME_MS = 150  # the test table's still frames


def _frames_for(ms: int) -> int:
    return ms // FRAME_MS + 1


def test_one_die_of_a_throw_lying_unread_is_said_once_then_judged() -> None:
    table = _started()
    table.play_first_legal()  # player 1 played the opening roll; player 0 is to throw
    wait = table.config.recognition.throw_unread_ms
    table.motion()
    first = table.die(4, 0)
    table.dice = (first,)  # the second die is not found
    out = table.frames(_frames_for(wait) - 2)
    assert table.entries(out, "cannot_read") == []  # not yet: the reader may find it
    out = table.frames(_frames_for(wait) * 2)
    said = table.entries(out, "cannot_read")
    assert len(said) == 1  # once, not frame after frame
    assert said[0]["rule"] == "BG-ROLL-2" and said[0]["player"] == 0
    assert "only one of the two dice" in said[0]["reason"]
    assert SetSignal("cannot_read", True) in out
    table.dice = (first, table.die(2, 0))  # found after all
    out = table.frames(1)
    assert [e["dice"] for e in table.entries(out, "roll")] == [[4, 2]]
    assert SetSignal("cannot_read", False) in out


def test_an_unsure_die_picked_up_and_thrown_again_is_judged_afresh() -> None:
    table = _started()
    table.play_first_legal()
    wait = table.config.recognition.throw_unread_ms
    table.motion()
    table.dice = (table.die(4, 0), DieSeen(2, "right", True, False, 0.3))  # perhaps cocked
    out = table.frames(_frames_for(wait) + 1)
    said = table.entries(out, "cannot_read")
    assert len(said) == 1 and "1 of the two dice cannot be read surely" in said[0]["reason"]
    assert "the 2 in the right half of the picture is read faintly" in said[0]["reason"]
    table.motion()
    table.dice = ()  # both dice picked up to be thrown again
    out = table.frames(1)
    assert SetSignal("cannot_read", False) in out
    table.motion()
    table.dice = (table.die(6, 0), table.die(1, 0))
    out = table.frames(1)
    assert [e["dice"] for e in table.entries(out, "roll")] == [[6, 1]]


def test_a_surely_cocked_die_is_flagged_at_once_not_said_unread() -> None:
    table = _started()
    table.play_first_legal()
    table.motion()
    table.dice = (table.die(4, 0), table.die(2, 0, flat=False))
    out = table.frames(_frames_for(table.config.recognition.throw_unread_ms) + 1)
    assert len(table.entries(out, "invalid_throw")) == 1
    assert table.entries(out, "cannot_read") == []


def test_a_known_phantom_alone_is_no_unread_throw() -> None:
    """What the reader keeps seeing where nothing was thrown is no throw: nothing is said
    while the player thinks about the cube."""
    table = _phantom_from_the_move(_started())
    assert table.referee.stage == "decide"
    out = table.frames(_frames_for(table.config.recognition.throw_unread_ms) * 2)
    assert PHANTOM in table.dice
    assert table.entries(out, "cannot_read") == []


def test_the_opening_waits_silently_for_the_second_die_but_says_two_it_cannot_judge() -> None:
    """BG-OPEN-1: one die lying alone waits for the other player's throw, however long; two
    dice of which one cannot be read are said, and the LED goes off once they are judged."""
    from controller.referee.config import RefereeConfig
    from tests.controller.referee.test_phantom_dice import PlacedTable

    table = PlacedTable(RefereeConfig(players=("Ayse", "Mehmet"), length=5))
    wait = table.config.recognition.throw_unread_ms
    table.motion()
    first = table.die(3, 0)
    table.dice = (first,)
    out = table.frames(_frames_for(wait) * 2)
    assert table.entries(out, "cannot_read") == [] and table.entries(out, "opening_roll") == []
    table.motion()
    table.dice = (first, DieSeen(5, "left", True, False, 0.3))  # the second, read unsurely
    out = table.frames(_frames_for(wait) + 1)
    said = table.entries(out, "cannot_read")
    assert len(said) == 1 and said[0]["reason"].startswith("the opening throw cannot be judged")
    table.dice = (first, table.die(5, 1))
    out = table.frames(1)
    assert [e["dice"] for e in table.entries(out, "opening_roll")] == [[3, 5]]
    assert SetSignal("cannot_read", False) in out


def test_the_unjudged_die_is_named_by_face_and_place() -> None:
    """The reason says which die to look at: one read cocked too faintly to call the throw
    invalid, beside one read surely (BG-ROLL-2)."""
    table = _started()
    table.play_first_legal()
    wait = table.config.recognition.throw_unread_ms
    faint = table.config.recognition.cocked_confidence / 2
    table.motion()
    table.dice = (table.die(4, 0), DieSeen(3, "right", False, False, faint))
    out = table.frames(_frames_for(wait) + 1)
    said = table.entries(out, "cannot_read")
    assert len(said) == 1
    assert said[0]["reason"] == (
        "Ayse's throw cannot be judged (1 of the two dice cannot be read surely: a die in the "
        "right half of the picture looks cocked, not surely): a cocked die is thrown again; "
        "else the director sets the dice")
