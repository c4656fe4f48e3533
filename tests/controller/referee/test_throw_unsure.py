"""``Referee.throw_unsure``: a throw is on the board but cannot be judged yet (BG-ROLL-2 needs
both dice: each read surely, or surely cocked). The runtime then reads a still frame whole once
(``controller.runtime.loop``), so a die the dice memory's incremental read missed is found."""

from __future__ import annotations

import dataclasses

from controller.referee.resume import resume
from tests.controller.referee.harness import entries_of
from tests.controller.referee.test_phantom_dice import PHANTOM, _phantom_from_the_move, _started


def test_a_throw_with_one_die_found_is_unsure_until_both_are() -> None:
    table = _started()
    table.play_first_legal()  # player 1 plays the opening roll; player 0 is to throw
    referee = table.referee
    assert referee.stage == "decide" and not referee.throw_unsure  # the old dice lie still
    table.motion()
    first = table.die(4, 0)
    table.dice = (first,)  # the second die of the throw is not found
    out = table.frames(2)
    assert referee.throw_unsure
    assert table.entries(out, "roll") == [] and table.entries(out, "invalid_throw") == []
    table.dice = (first, table.die(2, 0))  # read whole: both dice
    out = table.frames(1)
    assert [e["dice"] for e in table.entries(out, "roll")] == [[4, 2]]
    assert not referee.throw_unsure  # a roll: the mover's stage now


def test_a_die_read_unsurely_leaves_the_throw_unsure_a_cocked_one_does_not() -> None:
    table = _started()
    table.play_first_legal()
    referee = table.referee
    table.motion()
    table.dice = (table.die(4, 0), table.die(2, 0, confidence=0.3))  # too unsure for a face
    table.frames(2)
    assert referee.throw_unsure
    table.motion()
    table.dice = (table.die(4, 0), table.die(2, 0, flat=False, confidence=0.6))
    out = table.frames(1)
    assert not referee.throw_unsure
    assert len(table.entries(out, "invalid_throw")) == 1  # BG-ROLL-2: cocked, throw again


def test_a_known_phantom_alone_is_no_unsure_throw() -> None:
    """What the dice reader keeps seeing where nothing was thrown (a phantom) is no die of a
    throw, so it does not ask for whole reads while the player has not thrown."""
    table = _phantom_from_the_move(_started())
    assert table.referee.stage == "decide"
    table.frames(3)
    assert PHANTOM in table.dice and not table.referee.throw_unsure


def test_throw_unsure_comes_from_the_frames_only_so_a_restart_agrees() -> None:
    """The journal does not hold it: a referee rebuilt from the journal, shown the same frame,
    says the same."""
    table = _started()
    table.play_first_legal()
    table.motion()
    table.dice = (table.die(5, 0),)
    table.frames(2)
    assert table.referee.throw_unsure
    referee, commands = resume(table.journal())
    assert entries_of(commands) == []
    assert not referee.throw_unsure  # no frame seen yet
    referee.handle(table.events[-1])
    assert referee.throw_unsure


def test_a_die_read_flat_but_more_likely_cocked_is_not_judged_flat() -> None:
    """BG-ROLL-2: a die the pose model thinks more likely cocked than not (``flat_doubt``),
    though not surely enough to call it cocked, is no valid roll: the throw waits, is read
    again, and is then said to be unjudgeable (the players look; the director decides)."""
    table = _started()
    table.play_first_legal()
    referee = table.referee
    doubt = table.config.recognition.flat_doubt
    table.motion()
    leaning = dataclasses.replace(table.die(2, 0), p_cocked=doubt + 0.04)  # read flat, 0.95
    table.dice = (table.die(4, 0), leaning)
    wait = table.config.recognition.throw_unread_ms
    out = table.frames(wait // 150 + 2)
    assert referee.throw_unsure
    assert table.entries(out, "roll") == [] and table.entries(out, "invalid_throw") == []
    said = table.entries(out, "cannot_read")
    assert len(said) == 1 and "1 of the two dice cannot be read surely" in said[0]["reason"]
    half = leaning.half
    assert f"the 2 in the {half} half of the picture may be cocked" in said[0]["reason"]
    # the same die read surely flat is a roll
    table.motion()
    table.dice = (table.die(4, 0), dataclasses.replace(table.die(2, 0), p_cocked=doubt - 0.04))
    out = table.frames(1)
    assert [e["dice"] for e in table.entries(out, "roll")] == [[4, 2]]


def test_a_throw_invalid_whatever_the_doubtful_die_is_is_flagged() -> None:
    # the other die rests on a checker: the throw is thrown again, cocked die or not
    table = _started()
    table.play_first_legal()
    doubt = table.config.recognition.flat_doubt
    table.motion()
    leaning = dataclasses.replace(table.die(2, 0), p_cocked=doubt + 0.04)
    table.dice = (table.die(4, 0, on_checker=True), leaning)
    out = table.frames(2)
    flagged = table.entries(out, "invalid_throw")
    assert len(flagged) == 1 and "on a checker" in flagged[0]["reason"]
    assert not table.referee.throw_unsure


def test_a_throw_said_unjudgeable_is_not_said_again_after_a_restart() -> None:
    """The "cannot judge" is journalled with what it is about: a referee rebuilt from the
    journal lights the LED again and waits with the players (no second entry for the same
    throw), puts it out when the dice are picked up, and takes the throw read surely then as
    the roll."""
    table = _started()
    table.play_first_legal()
    doubt = table.config.recognition.flat_doubt
    wait = table.config.recognition.throw_unread_ms
    table.motion()
    leaning = dataclasses.replace(table.die(2, 0), p_cocked=doubt + 0.04)
    table.dice = (table.die(4, 0), leaning)
    said = table.entries(table.frames(wait // 150 + 2), "cannot_read")
    assert len(said) == 1 and said[0]["about"] == "throw"
    referee, commands = resume(table.journal())
    assert any(getattr(c, "signal", None) == "cannot_read" and getattr(c, "on", None)
               for c in commands)
    table.referee = referee
    assert table.entries(table.frames(2 * wait // 150), "cannot_read") == []
    table.motion()
    table.dice = ()  # picked up to be thrown again: the LED goes out
    assert any(getattr(c, "signal", None) == "cannot_read" and getattr(c, "on", None) is False
               for c in table.frames(1))
    table.motion()
    table.dice = (table.die(4, 0), dataclasses.replace(table.die(2, 0), p_cocked=doubt - 0.04))
    assert [e["dice"] for e in table.entries(table.frames(1), "roll")] == [[4, 2]]

