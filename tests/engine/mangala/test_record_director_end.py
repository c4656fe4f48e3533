"""A tournament director's end of the round in the round record (``director N end winner W
[reason]`` lines): read, written, replayed as the round's end with the director's winner
(round points 1 and 0, MG-T-1), the played sets replayed as before; malformed lines refused
naming the bad value, and records without such a line read as they always did."""

from __future__ import annotations

import random

import pytest

from engine.errors import RecordFormatError, RuleViolationError
from engine.mangala.record import DirectorDecision
from engine.mangala.record_builder import RecordBuilder
from engine.mangala.record_check import check_record
from engine.mangala.record_reader import parse_record
from engine.mangala.record_writer import format_record
from engine.mangala.scoring import DirectorEnd
from engine.mangala.sowing import legal_pits

HEAD = ("player a A\nplayer b B\nset 1 start a\n"
        "1 a 1 -> a 1 5 5 5 4 4 [0] b 4 4 4 4 4 4 [0] next b\n")


def test_a_directors_end_is_read_and_ends_the_round_with_that_winner() -> None:
    text = HEAD + "director 1 end winner b a left the hall\n"
    record = parse_record(text)
    assert record.entries[-1] == DirectorDecision(5, 1, "b", "a left the hall")
    check = check_record(record)
    assert check.legal and check.moves == 1
    assert check.round.over and check.round.winner == "b"
    assert check.round.sets == ()  # the set under way is not scored
    assert check.round.ended_by_director == DirectorEnd("b", 1, "a left the hall")
    report = check.to_obj()
    assert report["round_over"] is True and report["winner"] == "b"
    assert report["points"] == {"a": 0.0, "b": 1.0}
    assert report["director_end"] == {"set": 1, "winner": "b", "reason": "a left the hall"}
    assert report["in_progress"] is None
    assert format_record(record).splitlines()[1:] == text.splitlines()  # written back as read


def test_a_directors_end_without_a_reason_round_trips() -> None:
    text = HEAD + "director 1 end winner a\n"
    record = parse_record(text)
    assert record.entries[-1] == DirectorDecision(5, 1, "a", "")
    assert format_record(record).splitlines()[-1] == "director 1 end winner a"
    assert check_record(record).to_obj()["director_end"] == {"set": 1, "winner": "a",
                                                             "reason": ""}


@pytest.mark.parametrize("after", [
    "1 b 1 -> a 1 5 5 5 4 4 [0] b 1 5 5 5 4 4 [0] next a",  # a move
    "set 2 start b",  # another set
    "director 1 end winner a",  # a second end
    "warning 1 a touched pit 3",
])
def test_nothing_plays_on_after_the_directors_end(after: str) -> None:
    check = check_record(parse_record(HEAD + "director 1 end winner b\n" + after + "\n"))
    problem = check.first_illegal
    assert problem is not None and problem.line == 6
    assert problem.rule in ("MG-T-1", "MG-T-4") and "already over" in problem.reason
    assert check.round.winner == "b"  # the director's decision stands


def test_a_round_over_on_the_board_cannot_be_ended_again() -> None:
    builder = RecordBuilder("a")
    rng = random.Random(7)
    while not builder.round.over:
        builder.start_set()
        while builder.position is not None:
            builder.move(rng.choice(legal_pits(builder.position)))
    last = len(builder.round.sets)
    text = format_record(builder.record()) + f"director {last} end winner a\n"
    problem = check_record(parse_record(text)).first_illegal
    assert problem is not None and problem.rule == "MG-T-1"
    with pytest.raises(RuleViolationError, match="already over"):
        builder.end_by_director("a")


def test_the_builder_records_an_end_between_sets_and_it_replays() -> None:
    """Ended just after set 1 (before set 2 starts): the line names set 1, whose result stands;
    a line naming set 2, not started, is out of order."""
    builder = RecordBuilder("a", {"a": "A", "b": "B"})
    rng = random.Random(11)
    builder.start_set()
    while builder.position is not None:
        builder.move(rng.choice(legal_pits(builder.position)))
    builder.end_by_director("b", "a did not come back")
    text = format_record(builder.record())
    assert text.endswith("director 1 end winner b a did not come back\n")
    check = check_record(parse_record(text))
    assert check.legal and check.round == builder.round
    assert len(check.round.sets) == 1 and check.round.winner == "b"
    with pytest.raises(RecordFormatError, match="set 2 is not being played"):
        check_record(parse_record(text.replace("director 1 end", "director 2 end")))


def test_played_sets_replay_exactly_as_without_the_line() -> None:
    builder = RecordBuilder("b")
    rng = random.Random(5)
    builder.start_set()
    while builder.position is not None:
        builder.move(rng.choice(legal_pits(builder.position)))
    builder.start_set()
    builder.move(rng.choice(legal_pits(builder.position)))
    played = format_record(builder.record())
    without = check_record(parse_record(played))
    builder.end_by_director("a", "b's phone rang twice")
    ended = check_record(parse_record(format_record(builder.record())))
    assert ended.moves == without.moves and ended.round.sets == without.round.sets
    assert without.to_obj()["director_end"] is None and not without.round.over
    assert ended.round.winner == "a" and ended.round.round_points() == {"a": 1.0, "b": 0.0}


@pytest.mark.parametrize(("line", "message"), [
    ("director 1 end winner c", "line 5: the director's winner 'c' is not a or b"),
    ("director 1 end winner draw", "the director's winner 'draw' is not a or b"),
    ("director 1 end winner A", "the director's winner 'A' is not a or b"),
    ("director 4 end winner a", "line 5: set number '4' is not 1, 2 or 3"),
    ("director x end winner a", "set number 'x'"),
    ("director 1 ends winner a", "a director line is 'director N end winner a|b"),
    ("director 1 end winner", "a director line is"),
    ("director 1 end a", "a director line is"),
])
def test_a_malformed_director_line_is_refused_naming_the_bad_value(line: str,
                                                                   message: str) -> None:
    with pytest.raises(RecordFormatError, match=message.replace("|", r"\|")):
        parse_record(HEAD + line + "\n")
