"""The plain-text round record: reading, writing, and replaying through the rules."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine.errors import RecordFormatError
from engine.mangala.position import Position
from engine.mangala.record import Move
from engine.mangala.record_builder import RecordBuilder
from engine.mangala.record_check import check_record
from engine.mangala.record_reader import parse_record
from engine.mangala.record_writer import format_record
from engine.mangala.sowing import legal_pits

DATA = Path(__file__).resolve().parents[2] / "data" / "mangala"


def read(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def test_hand_written_opening_replays_legally() -> None:
    record = parse_record(read("opening.txt"))
    assert record.players == {"a": "First Player", "b": "Second Player"}
    moves = [e for e in record.entries if isinstance(e, Move)]
    assert [(m.mover, m.pit) for m in moves] == [
        ("a", 4),
        ("a", 6),
        ("b", 1),
        ("a", 2),
        ("b", 6),
        ("a", 6),
        ("a", 1),
    ]
    assert moves[4].after == Position((5, 0, 5, 2, 6, 1), 2, (1, 6, 6, 5, 5, 1), 3, "a")
    check = check_record(record)
    assert check.legal and check.moves == 7 and not check.round.over
    assert check.in_progress == moves[-1].after


def test_skipped_pit_is_reported_with_line_and_rule() -> None:
    check = check_record(parse_record(read("illegal_skip.txt")))
    assert not check.legal and check.first_illegal is not None
    problem = check.first_illegal
    assert (problem.line, problem.set_number, problem.rule) == (7, 1, "MG-1")
    assert "a's pit 4 was skipped" in problem.reason
    assert check.moves == 3


@pytest.mark.parametrize(
    ("name", "winner", "points", "sets", "warnings"),
    [
        ("round_win_draw_draw.txt", "a", {"a": 1.0, "b": 0.0}, ["a", "draw", "draw"], (0, 1)),
        ("round_drawn.txt", "draw", {"a": 0.5, "b": 0.5}, ["b", "draw", "a"], (0, 1)),
        ("round_time_out_loss.txt", "a", {"a": 1.0, "b": 0.0}, ["a", "draw", "a"], (0, 1)),
        ("round_lost_on_warnings.txt", "a", {"a": 1.0, "b": 0.0}, ["a"], (1, 3)),
    ],
)
def test_sample_rounds_replay(
    name: str, winner: str, points: dict[str, float], sets: list[str], warnings: tuple[int, int]
) -> None:
    text = read(name)
    record = parse_record(text)
    check = check_record(record)
    assert check.legal, check.first_illegal
    assert check.round.over and check.round.winner == winner
    assert check.round.round_points() == points
    assert [s.winner for s in check.round.sets] == sets
    assert (check.round.warning_count("a"), check.round.warning_count("b")) == warnings
    first = check.round.first_starter
    second = "b" if first == "a" else "a"
    assert [s.starter for s in check.round.sets] == [first, second, first][: len(sets)]  # MG-T-2
    assert format_record(record) == text


def test_time_out_set_is_scored_by_mg_clock_3() -> None:
    check = check_record(parse_record(read("round_win_draw_draw.txt")))
    last = check.round.sets[-1]
    assert (last.ended_by, last.timed_out, last.b_store >= 24, last.winner) == (
        "MG-CLOCK-3",
        "b",
        True,
        "draw",
    )
    check = check_record(parse_record(read("round_time_out_loss.txt")))
    last = check.round.sets[-1]
    assert (last.ended_by, last.timed_out, last.b_store < 24, last.winner) == (
        "MG-CLOCK-3",
        "b",
        True,
        "a",
    )


def test_wrong_starter_and_wrong_set_result_and_extra_set_are_flagged() -> None:
    text = read("round_win_draw_draw.txt")
    check = check_record(parse_record(text.replace("set 2 start b", "set 2 start a")))
    assert check.first_illegal is not None and check.first_illegal.rule == "MG-T-2"
    check = check_record(
        parse_record(text.replace("set 1 end a 26 b 22 winner a", "set 1 end a 26 b 22 winner b"))
    )
    assert check.first_illegal is not None and check.first_illegal.rule == "MG-4"
    check = check_record(
        parse_record(
            text.replace(
                "round end winner a points a 1 b 0", "round end winner draw points a 0.5 b 0.5"
            )
        )
    )
    assert check.first_illegal is not None and check.first_illegal.rule == "MG-T-1"
    two_set = read("round_lost_on_warnings.txt") + "set 2 start b\n"
    check = check_record(parse_record(two_set))
    assert check.first_illegal is not None and check.first_illegal.rule == "MG-T-1"


def test_move_out_of_turn_and_wrong_next_player() -> None:
    lines = read("opening.txt").splitlines()
    swapped = [line.replace("1 b 1 ->", "1 a 1 ->") for line in lines]
    check = check_record(parse_record("\n".join(swapped)))
    assert check.first_illegal is not None and check.first_illegal.rule == "MG-1"
    assert "it is b's turn" in check.first_illegal.reason
    wrong_next = [lines[0], lines[4], lines[5].replace("next a", "next b")]
    check = check_record(parse_record("\n".join(wrong_next)))
    assert check.first_illegal is not None and check.first_illegal.line == 3
    assert "moves again" in check.first_illegal.reason


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("set 1 start a\n1 a 4 -> a 4 4 4 1 5 5 [1] b 4 4 4 4 4 4 0 next a\n", 2, "store '0'"),
        ("# c\n\nset 4 start a\n", 3, "set number '4'"),
        ("set 1 start c\n", 1, "player 'c'"),
        ("set 1 begin a\n", 1, "a set line"),
        ("set 1 start a\n1 a 7 -> a 4 4 4 1 5 5 [1] b 4 4 4 4 4 4 [0] next a\n", 2, "pit '7'"),
        ("set 1 start a\n1 a 4 -> a 4 4 4 1 5 [1] b 4 4 4 4 4 4 [0] next a\n", 2, "a move line"),
        ("set 1 start a\n1 a 4 -> a 4 4 x 1 5 5 [1] b 4 4 4 4 4 4 [0] next a\n", 2, "'x'"),
        ("player a\n", 1, "player line"),
        ("hello world\n", 1, "unknown line kind"),
        ("round end winner a points a 2 b 0\n", 1, "round points '2'"),
        ("timeout 1\n", 1, "time-out line"),
        # digits int() does not read (superscripts): they were ValueError tracebacks
        ("set 1 start a\n1 a 4 -> a 4 4 4 1 5 5 [1] b 4 4 4 4 4 \u00b2 [0] next a\n", 2,
         "stone count '\u00b2'"),
        ("set 1 start a\n1 a \u00b2 -> a 4 4 4 1 5 5 [1] b 4 4 4 4 4 4 [0] next a\n", 2,
         "pit '\u00b2'"),
    ],
)
def test_malformed_lines_are_rejected_by_number(text: str, line: int, message: str) -> None:
    with pytest.raises(RecordFormatError, match=f"line {line}: .*{message}"):
        parse_record(text)


def test_out_of_order_lines_are_format_errors() -> None:
    with pytest.raises(RecordFormatError, match="line 1: set 1 is not being played"):
        check_record(parse_record("1 a 4 -> a 4 4 4 1 5 5 [1] b 4 4 4 4 4 4 [0] next a\n"))
    with pytest.raises(RecordFormatError, match="line 2: set 2 where set 1"):
        check_record(parse_record("# no set 1\nset 2 start b\n"))
    with pytest.raises(RecordFormatError, match="line 2: set 2 starts while set 1"):
        check_record(parse_record("set 1 start a\nset 2 start b\n"))


def test_builder_records_replay_and_round_trip() -> None:
    rng = random.Random(2023)
    for first in ("a", "b"):
        builder = RecordBuilder(first, {"a": "A", "b": "B"})
        while not builder.round.over:
            builder.start_set()
            while builder.position is not None:
                builder.move(rng.choice(legal_pits(builder.position)))
        text = format_record(builder.record())
        check = check_record(parse_record(text))
        assert check.legal and check.round.over
        assert check.round == builder.round
        assert format_record(parse_record(text)) == text


def test_names_and_reasons_with_hash_or_newline_read_back_as_one_line() -> None:
    """A player's name or a warning's reason holding ``#`` or a line break would otherwise cut
    the line short (a comment) or add a line the reader refuses."""
    builder = RecordBuilder("a", {"a": "Ali #1", "b": "Veli\nKaya"})
    builder.start_set()
    builder.move(4)
    builder.warn("b", "touched pit #3\nand played pit 5")
    text = format_record(builder.record())
    record = parse_record(text)
    assert record.players == {"a": "Ali no. 1", "b": "Veli Kaya"}
    assert "warning 1 b touched pit no. 3 and played pit 5" in text.splitlines()
    assert check_record(record).legal


def test_a_time_out_after_the_round_ended_is_reported_like_any_later_line() -> None:
    """A move, warning or director line after the third warning is the record's first illegal
    line (MG-T-1); a time-out there made the whole record unreadable ("set 2 is not being
    played")."""
    text = read("round_lost_on_warnings.txt").replace("round end", "# round end")
    lines = text.splitlines()
    check = check_record(parse_record(text + "timeout 2 a\n"))
    assert check.first_illegal is not None
    assert (check.first_illegal.line, check.first_illegal.rule) == (len(lines) + 1, "MG-T-1")
    assert check.round.winner == "a"


@pytest.mark.parametrize("extra_turn", [False, True])
def test_a_time_out_for_the_player_not_to_move_is_the_first_illegal_line(
    extra_turn: bool,
) -> None:
    """On a clock only the mover's time runs (MG-CLOCK-2, MG-CLOCK-3): once a has moved and
    pressed, a's time stands still, so 'timeout N a' with b to move is illegal, named as such,
    and nothing after it is scored. After a sowing into a's own store a is still to move."""
    builder = RecordBuilder("a")
    builder.start_set()
    builder.move(4 if extra_turn else 1)  # pit 4's four stones end in a's store (MG-1)
    check = check_record(builder.record())
    assert check.in_progress is not None
    mover = check.in_progress.to_move
    waiting = "b" if mover == "a" else "a"
    assert mover == ("a" if extra_turn else "b")
    text = format_record(builder.record())
    line = len(text.splitlines()) + 1
    check = check_record(parse_record(text + f"timeout 1 {waiting}\nset 1 end a 0 b 0 winner b\n"))
    assert check.first_illegal is not None
    assert (check.first_illegal.line, check.first_illegal.set_number) == (line, 1)
    assert check.first_illegal.rule == "MG-CLOCK-2"
    assert check.first_illegal.reason == (
        f"{waiting}'s time cannot run out: it is {mover}'s turn, and only the mover's time runs"
    )
    assert check.round.sets == ()
    assert check_record(parse_record(text + f"timeout 1 {mover}\n")).legal


def test_a_record_saved_with_a_byte_order_mark_and_crlf_reads_as_written() -> None:
    """A round.txt a director saved in a Windows editor starts with a byte order mark: it was
    refused as "line 1: unknown line kind '\\ufeff'"."""
    text = read("round_lost_on_warnings.txt")
    saved = "\ufeff" + text.replace("\n", "\r\n")
    assert parse_record(saved) == parse_record(text)
    no_header = "\ufeff" + "\n".join(text.splitlines()[1:])
    assert parse_record(no_header).players == parse_record(text).players
