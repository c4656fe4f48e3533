"""The Jellyfish .mat reader on real files' features and on malformed input (line numbers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.backgammon.mat_reader import (
    BAR_POINT,
    OFF_POINT,
    ActionKind,
    MatMatch,
    MatMove,
    parse_mat,
    parse_mat_bytes,
    parse_move,
)
from engine.backgammon.mat_replay import replay
from engine.errors import RecordFormatError
from tests.conftest import TEST_DATA

MAT_DATA = TEST_DATA / "mat"
BUNDLED = TEST_DATA / "matches" / "match10058734.txt"


def read_mat(path: Path) -> MatMatch:
    """Read a record file (the engine itself does no I/O)."""
    return parse_mat_bytes(path.read_bytes())


def test_bundled_real_match_header_and_games() -> None:
    record = read_mat(BUNDLED)
    assert record.length == 5
    assert record.players == ("lasse", "carsten_bg")
    assert record.tag("Site") == "BackgammonGalaxy"
    assert record.tag("Crawford") == "On"
    assert record.tag("No such tag") is None
    assert [g.number for g in record.games] == [1, 2, 3]
    assert [g.score for g in record.games] == [(0, 0), (0, 2), (0, 4)]
    first = record.games[0].actions[0]
    # "  1)                             32: 24/21 13/11": the second player opened.
    assert first.player == 1 and first.kind is ActionKind.ROLL and first.dice == (3, 2)
    assert first.moves == (MatMove((24, 21)), MatMove((13, 11)))
    assert first.number == 1 and first.line == 18


def test_bar_and_off_as_numbers_and_as_words() -> None:
    assert parse_move("25/21").path == (BAR_POINT, 21)
    assert parse_move("bar/21").path == (BAR_POINT, 21)
    assert parse_move("6/0").path == (6, OFF_POINT)
    assert parse_move("6/off").path == (6, OFF_POINT)
    assert parse_move("Bar/22*").hits == frozenset({22})


def test_hits_repeats_and_chains() -> None:
    move = parse_move("13/9*/3(2)")
    assert move.path == (13, 9, 3)
    assert move.hits == frozenset({9})
    assert move.count == 2
    assert move.steps() == [(13, 9), (9, 3), (13, 9), (9, 3)]
    assert move.text == "13/9*/3(2)"
    assert parse_move("bar/20*").text == "bar/20*"
    assert parse_move("5/0").text == "5/off"


@pytest.mark.parametrize(
    "token",
    ["13-9", "13/", "/9", "x/3", "26/20", "8/25", "0/3", "bar/bar", "6/off*", "13/9(5)", "off/3"],
)
def test_bad_move_tokens_are_refused(token: str) -> None:
    with pytest.raises(RecordFormatError, match="line 7"):
        parse_move(token, 7)


def test_backwards_move_cites_bg_move_1() -> None:
    with pytest.raises(RecordFormatError, match=r"line 5: .*backwards.*BG-MOVE-1"):
        read_mat(MAT_DATA / "backwards_move.mat")


_HEADER = "3 point match\n\n Game 1\n alice : 0                       bob : 0\n"


def test_unsorted_dice_cannot_move_and_cube_actions() -> None:
    text = _HEADER + (
        "  1) 13: 8/5 6/5                 46: 24/18 13/9\n"
        "  2) 66: Cannot Move              Doubles => 2\n"
        "  3)  Takes                      21:\n"
        "  4)  Doubles => 4               Drops\n"
        "      Wins 2 points\n"
    )
    actions = parse_mat(text).games[0].actions
    kinds = [(a.player, a.kind) for a in actions]
    assert kinds == [
        (0, ActionKind.ROLL),
        (1, ActionKind.ROLL),
        (0, ActionKind.ROLL),
        (1, ActionKind.DOUBLE),
        (0, ActionKind.TAKE),
        (1, ActionKind.ROLL),
        (0, ActionKind.DOUBLE),
        (1, ActionKind.DROP),
        (0, ActionKind.WIN),
    ]
    assert actions[0].dice == (1, 3)  # as written, not sorted
    assert actions[2].cannot_move and actions[2].moves == ()
    assert actions[5].moves == () and not actions[5].cannot_move
    assert actions[3].value == 2 and actions[6].value == 4
    assert actions[8].value == 2 and not actions[8].and_match


def test_gnubg_beaver_line() -> None:
    """GNU Backgammon writes a beaver as ``Beavers => 4`` in the beaverer's column."""
    text = _HEADER + "  1) 31: 8/5 6/5                  Doubles => 2\n  2)  Beavers => 4\n"
    actions = parse_mat(text).games[0].actions
    assert [(a.player, a.kind, a.value) for a in actions[1:]] == [
        (1, ActionKind.DOUBLE, 2),
        (0, ActionKind.BEAVER, 4),
    ]
    with pytest.raises(RecordFormatError, match=r"line 6: a beaver goes to a power of two, not 6"):
        parse_mat(text.replace("=> 4", "=> 6"))


def test_a_game_resigned_on_its_opening_roll() -> None:
    """GNU Backgammon writes a game's first roll in the left column whoever rolled, and the
    ``Wins`` in the winner's column, right after the roll when the left player wins (its
    export of ``new match``, roll, ``resign gammon``): the roller resigned, so a ``Wins`` left
    of the right column is the left player's and the roll the right player's. Read by position
    in the line, the left player's gammon was given to the right player."""
    head = "5 point match\n\n Game 1\n Ali : 0                        Veli : 0\n"
    left_wins = parse_mat(head + "  1) 53:       Wins 2 points\n").games[0].actions
    assert [(a.player, a.kind, a.value) for a in left_wins] == [
        (1, ActionKind.ROLL, 0),
        (0, ActionKind.WIN, 2),
    ]
    right_wins = parse_mat(head + "  1) 62:                         Wins 1 point\n")
    assert [(a.player, a.kind) for a in right_wins.games[0].actions] == [
        (0, ActionKind.ROLL),
        (1, ActionKind.WIN),
    ]
    later = head + "  1) 31: 8/5 6/5                 42: 8/4 6/4\n  2) 61:       Wins 1 point\n"
    assert [(a.player, a.kind) for a in parse_mat(later).games[0].actions[2:]] == [
        (0, ActionKind.ROLL),
        (0, ActionKind.WIN),
    ]  # later in a game the roll's column is the roller's


def test_gnubg_s_line_of_a_right_roll_won_by_resignation() -> None:
    """GNU Backgammon exports a right-player roll that the opponent resigned on seeing as a
    third action on the line, ``Wins`` right after the roll (seed 5002 of
    ``tests.eval.gnubg_oracle``): the roll and the win are the right player's."""
    text = (
        "3 point match\n\n Game 1\n Ali : 0                        Veli : 0\n"
        "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
        "  2) 36: 24/18 13/10             43:  Wins 1 point\n"
    )
    actions = parse_mat(text).games[0].actions
    assert [(a.player, a.kind, a.dice) for a in actions[2:]] == [
        (0, ActionKind.ROLL, (3, 6)),
        (1, ActionKind.ROLL, (4, 3)),
        (1, ActionKind.WIN, None),
    ]
    assert replay(parse_mat(text)).final_score == (0, 1)


def test_a_wins_after_the_roll_does_not_move_the_right_column() -> None:
    """The right column is guessed from lines of two actions; a ``Wins`` written right after a
    roll (column 15) pulled the guess to column 13, so a hand-aligned left-column ``Doubles``
    at column 16 was read as the right player's."""
    text = (
        "5 point match\n\n Game 1\n Ali : 0                        Veli : 0\n"
        "  1) 53:       Wins 2 points\n\n"
        " Game 2\n Ali : 2                        Veli : 0\n"
        "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
        "  2)            Doubles => 2\n"
        "  3)                              Takes\n"
    )
    actions = parse_mat(text).games[1].actions
    assert [(a.player, a.kind) for a in actions[2:]] == [
        (0, ActionKind.DOUBLE),
        (1, ActionKind.TAKE),
    ]


def test_wins_and_the_match_and_galaxy_losses_line() -> None:
    text = _HEADER + (
        "  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
        "  2)  Losses 1 point                                     Wins 1 point and the match\n"
    )
    actions = parse_mat(text).games[0].actions
    assert (actions[2].kind, actions[2].player, actions[2].value) == (ActionKind.LOSS, 0, 1)
    assert (actions[3].kind, actions[3].player) == (ActionKind.WIN, 1)
    assert actions[3].and_match
    assert parse_mat(text).games[0].result == actions[3]


def test_empty_player_name_is_read() -> None:
    text = "3 point match\n\n Game 1\n  : 0                            lasse : 0\n"
    assert parse_mat(text).players == ("", "lasse")


def test_crlf_tabs_and_latin1(tmp_path: Path) -> None:
    text = _HEADER.replace("alice", "Ays\xe9") + "  1) 31: 8/5 6/5\t\t64: 24/18 13/9\n"
    path = tmp_path / "latin1.mat"
    path.write_bytes(text.replace("\n", "\r\n").encode("latin-1"))
    record = read_mat(path)
    assert record.players[0] == "Ays\xe9"
    assert [a.player for a in record.games[0].actions] == [0, 1]


@pytest.mark.parametrize(
    ("name", "line", "what"),
    [
        ("no_length.mat", 3, "N point match"),
        ("bad_move.mat", 8, "6/x4"),
        ("missing_score_line.mat", 4, "score line"),
        ("point_26.mat", 5, "26"),
        ("game_numbers.mat", 8, "game 3 follows game 1"),
        ("binary.mat", 1, "binary"),
    ],
)
def test_malformed_files_name_the_line(name: str, line: int, what: str) -> None:
    with pytest.raises(RecordFormatError) as exc:
        read_mat(MAT_DATA / name)
    message = str(exc.value)
    assert message.startswith(f"line {line}:"), message
    assert what in message


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("", 1),
        ("; only a comment\n", 1),
        ("3 point match\n", 1),
        ("3 point match\n\n Game 1\n", 3),
        ("3 point match\n  1) 31: 8/5 6/5\n", 2),
        ("3 point match\n 5 point match\n", 2),
        (_HEADER + "  1) 31: 8/5 6/5   hello   64: 24/18 13/9\n", 5),
        (_HEADER + "  1) 31: 8/5 6/5   64: 24/18 13/9   52: 13/8 13/11\n", 5),
        (_HEADER + "  1) Doubles => 3                Takes\n", 5),
        (_HEADER + "  1) 31: 8/5 6/5                 Wins 0 points\n", 5),
        (_HEADER + "  1) 31: 8/5 6/5\n Game 2\n bob : 0    carol : 0\n", 7),
        (_HEADER + "  1) 71: 8/1\n", 5),
        (_HEADER + "nonsense here\n", 5),
    ],
)
def test_malformed_text_never_crashes(text: str, line: int) -> None:
    with pytest.raises(RecordFormatError, match=rf"^line {line}:"):
        parse_mat(text)


def test_every_real_match_file_parses(shared_data: Path) -> None:
    files = sorted((shared_data / "matches").glob("*.txt"))
    assert len(files) == 170
    games = sum(len(read_mat(path).games) for path in files)
    assert games == 428
