"""A director's correction in the round record (``position N ...`` lines): read, written and
replayed, so a refereed round whose position was set by the director still checks (MG-EQ-1)."""

from __future__ import annotations

import pytest

from engine.errors import RecordFormatError
from engine.mangala.position import Position
from engine.mangala.record import SetPosition
from engine.mangala.record_builder import RecordBuilder
from engine.mangala.record_check import check_record
from engine.mangala.record_reader import parse_record
from engine.mangala.record_writer import format_record
from engine.mangala.sowing import play

HEAD = ("player a A\nplayer b B\nset 1 start a\n"
        "1 a 1 -> a 1 5 5 5 4 4 [0] b 4 4 4 4 4 4 [0] next b\n")
CORRECTED = "position 1 a 0 0 0 0 0 1 [20] b 4 4 4 4 4 3 [4] next a\n"


def test_a_set_position_line_is_read_and_replayed() -> None:
    text = HEAD + CORRECTED + "1 a 6 -> a 0 0 0 0 0 0 [44] b 0 0 0 0 0 0 [4] next -\n" \
        "set 1 end a 44 b 4 winner a\n"
    record = parse_record(text)
    corrections = [e for e in record.entries if isinstance(e, SetPosition)]
    assert len(corrections) == 1 and corrections[0].line == 5 and corrections[0].number == 1
    assert corrections[0].position == Position((0, 0, 0, 0, 0, 1), 20, (4, 4, 4, 4, 4, 3), 4,
                                               "a")
    check = check_record(record)
    assert check.legal, check.first_illegal
    assert check.moves == 2 and [s.winner for s in check.round.sets] == ["a"]
    assert format_record(record).splitlines()[1:] == text.splitlines()


def test_without_the_correction_the_same_moves_are_illegal() -> None:
    text = HEAD + "1 a 6 -> a 0 0 0 0 0 0 [44] b 0 0 0 0 0 0 [4] next -\n"
    check = check_record(parse_record(text))
    assert not check.legal and check.first_illegal is not None
    assert check.first_illegal.line == 5


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        ("position 1 a 0 0 0 0 0 1 [19] b 4 4 4 4 4 3 [4] next a", "MG-EQ-1"),  # 47 stones
        ("position 1 a 0 0 0 0 0 0 [21] b 4 4 4 4 4 3 [4] next a", "MG-4"),  # a side empty
    ],
)
def test_a_correction_the_rules_cannot_hold_is_reported(line: str, rule: str) -> None:
    check = check_record(parse_record(HEAD + line + "\n"))
    assert check.first_illegal is not None
    assert (check.first_illegal.line, check.first_illegal.rule) == (5, rule)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("position 1 a 0 0 0 0 0 1 [20] b 4 4 4 4 4 3 [4] next -", "who moves next"),
        ("position 1 a 0 0 0 0 1 [20] b 4 4 4 4 4 3 [4] next a", "a position line is"),
        ("position 4 a 0 0 0 0 0 1 [20] b 4 4 4 4 4 3 [4] next a", "set number '4'"),
    ],
)
def test_malformed_position_lines_are_rejected(text: str, message: str) -> None:
    with pytest.raises(RecordFormatError, match=message):
        parse_record(text)


def test_a_correction_outside_a_set_is_a_format_error() -> None:
    with pytest.raises(RecordFormatError, match="line 1"):
        check_record(parse_record(CORRECTED))


def test_the_builder_records_a_correction_that_replays() -> None:
    builder = RecordBuilder("a", {"a": "A", "b": "B"})
    start = builder.start_set()
    builder.move(1)
    fixed = play(start, 3).position  # the director puts back the board a's pit 3 gives
    builder.set_position(fixed)
    builder.move(2)  # b plays on from the corrected board
    text = format_record(builder.record())
    assert "position 1 a 4 4 1 5 5 5 [0] b 4 4 4 4 4 4 [0] next b" in text
    check = check_record(parse_record(text))
    assert check.legal and check.moves == 2
