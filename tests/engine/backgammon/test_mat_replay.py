"""Replaying .mat records through the rules: all 170 real matches legal, illegal records caught
with the rule that they break."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.backgammon.mat_events import replay_events
from engine.backgammon.mat_reader import MatMatch, parse_mat, parse_mat_bytes
from engine.backgammon.mat_replay import replay, rules_for
from engine.backgammon.match import EndHow, Phase, apply, new_match
from engine.backgammon.rules import Rules
from engine.backgammon.scoring import WinKind
from tests.conftest import TEST_DATA

MAT_DATA = TEST_DATA / "mat"
BUNDLED = TEST_DATA / "matches" / "match10058734.txt"


def read_mat(path: Path) -> MatMatch:
    """Read a record file (the engine itself does no I/O)."""
    return parse_mat_bytes(path.read_bytes())


def test_every_real_match_replays_with_every_move_legal(shared_data: Path) -> None:
    """Every move of the 170 real matches is one of the engine's legal plays; every cube action
    and result agrees with BG-CUBE-*, BG-SCORE-*, BG-MATCH-*; every game starts at the score
    the games before it make (the record's own score lines, BG-MATCH-4)."""
    files = sorted((shared_data / "matches").glob("*.txt"))
    assert len(files) == 170
    moves = 0
    finished = 0
    for path in files:
        result = replay(read_mat(path))
        assert result.problem is None, (path.name, result.problem)
        moves += sum(len(g.turns) for g in result.games)
        if result.complete and result.state.length:
            winner = result.state.winner
            assert winner is not None
            assert result.final_score[winner] >= result.state.length
            finished += 1
    assert moves > 18_000
    # 28 one-game Backgammon Galaxy sessions written as "16 point" matches and 3 records stop
    # before the end; in match7707286 a player concedes the match with "Wins 4 point and the
    # match" at 0-1 of 5, which the rules (and GNU Backgammon) count as a 3-point backgammon.
    assert finished == 138


def test_bundled_match_account() -> None:
    result = replay(read_mat(BUNDLED))
    assert result.legal and result.complete
    assert result.final_score == (0, 5)
    assert result.state.winner == 1
    assert [g.crawford for g in result.games] == [False, False, True]  # BG-MATCH-2 at 0-4
    first, second, third = (g.result for g in result.games)
    assert first is not None and second is not None and third is not None
    assert (first.how, first.points, first.cube_value) == (EndHow.DROPPED, 2, 2)
    assert (second.how, second.points) == (EndHow.DROPPED, 2)
    assert (third.how, third.kind, third.points) == (EndHow.RESIGNED, WinKind.SINGLE, 1)


def test_rules_from_tags() -> None:
    record = read_mat(BUNDLED)
    assert rules_for(record) == Rules(crawford=True, cube_limit=1024)
    off = parse_mat('; [Crawford "Off"]\n' + BUNDLED.read_text().split("\n", 12)[-1])
    assert not rules_for(off).crawford


def _edit(old: str, new: str) -> str:
    text = BUNDLED.read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


def test_wrong_distance_is_illegal_with_rule_and_closest_play() -> None:
    result = replay(parse_mat(_edit(" 52: 13/8 6/4 ", " 52: 13/8 6/3 ")))
    problem = result.problem
    assert problem is not None
    assert (problem.game, problem.move, problem.line) == (1, 2, 19)
    assert problem.text == "52: 13/8 6/3"
    assert problem.rule.startswith("BG-MOVE")
    assert "52" in problem.reason


def test_moving_while_on_the_bar_is_illegal() -> None:
    # Line 20: "42: 25/21 13/11" has a checker on the bar; move another one instead.
    result = replay(parse_mat(_edit("42: 25/21 13/11", "42: 13/9 13/11")))
    assert result.problem is not None
    assert result.problem.rule == "BG-BAR-2"


def test_no_move_written_when_a_play_exists_is_illegal() -> None:
    result = replay(parse_mat(_edit(" 43: 13/9 24/21", " 43:")))
    assert result.problem is not None
    assert result.problem.rule == "BG-MOVE-6"
    assert "although a legal play exists" in result.problem.reason


def test_double_in_the_crawford_game_is_illegal() -> None:
    """BG-MATCH-2: game 3 is the Crawford game (carsten_bg has 4 of 5)."""
    text = _edit(
        "  3) 41: 13/9 10/9               52: 8/3 24/22",
        "  3)  Doubles => 2                Takes\n  4) 41: 13/9 10/9               52: 8/3 24/22",
    )
    result = replay(parse_mat(text))
    assert result.problem is not None
    assert result.problem.game == 3
    assert result.problem.rule == "BG-MATCH-2"


def test_wrong_cube_value_is_caught() -> None:
    """BG-CUBE-5: the cube goes from 2 to 4, not 8."""
    result = replay(
        parse_mat(
            _edit(
                " 21) 21: 1/0 2/0                  Doubles => 4",
                " 21) 21: 1/0 2/0                  Doubles => 8",
            )
        )
    )
    assert result.problem is not None
    assert result.problem.rule == "BG-CUBE-5"


def test_double_twice_in_a_row_is_illegal() -> None:
    """BG-CUBE-4: after lasse doubles and carsten_bg takes, only carsten_bg may double."""
    text = _edit("  8) 42: 8/4 6/4 ", "  8)  Doubles => 4                Takes\n  9) 42: 8/4 6/4 ")
    result = replay(parse_mat(text))
    assert result.problem is not None
    assert result.problem.rule == "BG-CUBE-4"


def test_score_line_that_does_not_follow_is_caught() -> None:
    """BG-MATCH-4: game 2 must start at 0-2."""
    result = replay(
        parse_mat(
            _edit(
                " lasse : 0                       carsten_bg : 2",
                " lasse : 1                       carsten_bg : 2",
            )
        )
    )
    assert result.problem is not None
    assert (result.problem.game, result.problem.rule) == (2, "BG-MATCH-4")


def test_opening_double_is_illegal_under_modern_rules() -> None:
    result = replay(read_mat(MAT_DATA / "opening_double.mat"))
    assert result.problem is not None
    assert result.problem.rule == "BG-OPEN-1"


def test_opening_double_is_fine_under_turkish_rules() -> None:
    """BG-OPEN-T: the winner of the opening throw throws both dice afresh: 33 may open."""
    record = read_mat(MAT_DATA / "opening_double.mat")
    result = replay(record, Rules.turkish())
    assert result.problem is None
    assert [t.dice for t in result.games[0].turns] == [(3, 3), (6, 4)]


def test_double_before_the_first_move_is_illegal() -> None:
    result = replay(read_mat(MAT_DATA / "early_double.mat"))
    assert result.problem is not None
    assert result.problem.rule in ("BG-OPEN-1", "BG-CUBE-2")


def test_illegal_move_file() -> None:
    result = replay(read_mat(MAT_DATA / "illegal_move.mat"))
    assert result.problem is not None and result.problem.line == 8


def test_roll_then_resign() -> None:
    """The data README: a roll and no move, then the opponent "Wins": a resignation."""
    result = replay(read_mat(MAT_DATA / "resigned.mat"))
    assert result.problem is None
    assert result.final_score == (0, 1)
    assert result.state.phase is Phase.MATCH_OVER
    last = result.games[0].result
    assert last is not None and last.how is EndHow.RESIGNED and last.winner == 1
    assert len(result.games[0].turns) == 2


def test_roll_then_the_opponent_resigns() -> None:
    """A roll with no move and then the roller's own "Wins": the opponent resigned on seeing
    the roll. GNU Backgammon writes such lines (its re-export of match5751765) and imports
    them so; the roll was refused as "no move made although a legal play exists"."""
    text = "1 point match\n\n Game 1\n a : 0                       b : 0\n" + (
        "  1) 31: 8/5 6/5                  42: 8/4 6/4\n"
        "  2) 61:\n"
        "      Wins 1 point and the match\n"
    )
    result = replay(parse_mat(text))
    assert result.problem is None
    game = result.games[0]
    assert game.result is not None
    assert (game.result.winner, game.result.how, game.result.points) == (0, EndHow.RESIGNED, 1)
    assert len(game.turns) == 2
    assert [(s.kind, s.player) for s in game.snapshots][-1] == ("resign", 1)


def test_beavers_as_gnubg_writes_them() -> None:
    """``Beavers => 4`` (BG-SCORE-4): taken without a written ``Takes`` as GNU Backgammon
    writes and reads it, the cube at 4 on the beaverer's side; the doubler's ``Drops`` after it
    loses 2; in a match a beaver breaks BG-SCORE-4."""
    head = "0 point match\n\n Game 1\n a : 0                       b : 0\n"
    body = "  1) 31: 8/5 6/5                  Doubles => 2\n  2)  Beavers => 4\n"
    taken = replay(parse_mat(head + body + "  3)                             42: 8/4 6/4\n"))
    assert taken.problem is None
    assert (taken.state.cube.value, taken.state.cube.owner) == (4, 0)
    kinds = [(s.kind, s.player) for s in taken.games[0].snapshots]
    assert kinds[1:3] == [("double", 1), ("double", 0)] and kinds[3] == ("take", 1)
    dropped = replay(parse_mat(head + body + "  3)                             Drops\n"))
    last = dropped.games[0].result
    assert dropped.problem is None and last is not None
    assert (last.winner, last.points, last.how) == (0, 2, EndHow.DROPPED)
    in_match = replay(parse_mat(head.replace("0 point", "5 point") + body))
    assert in_match.problem is not None and in_match.problem.rule == "BG-SCORE-4"
    wrong = replay(parse_mat(head + body.replace("=> 4", "=> 8")))
    assert wrong.problem is not None and wrong.problem.rule == "BG-CUBE-5"


def test_capped_wins_line_is_not_a_problem_and_the_rules_count_stands() -> None:
    """Galaxy writes "Wins 3 point and the match" for a 4-point gammon at 0-0 to 3; the
    resignation is read as GNU Backgammon reads it (the smallest kind worth it)."""
    text = "3 point match\n\n Game 1\n a : 0                       b : 0\n" + (
        "  1) 31: 8/5 6/5                  Doubles => 2\n"
        "  2)  Takes                      \n"
        "      Wins 3 points and the match\n"
    )
    result = replay(parse_mat(text))
    assert result.problem is None and not result.notes
    last = result.games[0].result
    assert last is not None and (last.kind, last.points) == (WinKind.GAMMON, 4)
    assert result.final_score == (4, 0)


@pytest.mark.parametrize("name", ["bad_move.mat", "no_length.mat"])
def test_reader_errors_are_not_replay_problems(name: str) -> None:
    from engine.errors import RecordFormatError

    with pytest.raises(RecordFormatError):
        replay(read_mat(MAT_DATA / name))


def test_mutated_records_never_crash() -> None:
    """Random edits of a real record (seeded): the reader and the replay either work or raise
    RecordFormatError naming a line; nothing else escapes."""
    import random

    from engine.backgammon.mat_writer import format_mat, record_from_replay
    from engine.errors import RecordFormatError

    lines = BUNDLED.read_text(encoding="utf-8").splitlines()
    rng = random.Random(20241122)
    alphabet = "0123456789/*() :;abrofWinsDoublesTakesDrops=>\t-"
    extras = ["25/20", "Wins 3 points", "Doubles => 2", "66:", "Takes", "0/3", "bar/off"]
    read = 0
    for _ in range(300):
        edited = list(lines)
        for _ in range(rng.randint(1, 4)):
            j = rng.randrange(len(edited))
            line = edited[j]
            op = rng.randrange(5)
            if op == 0 and line:
                k = rng.randrange(len(line))
                edited[j] = line[:k] + rng.choice(alphabet) + line[k + 1 :]
            elif op == 1:
                del edited[j]
            elif op == 2:
                edited.insert(j, edited[rng.randrange(len(edited))])
            elif op == 3 and line:
                k = rng.randrange(len(line))
                edited[j] = line[:k] + line[k + rng.randint(1, 5) :]
            else:
                edited[j] = line + " " + rng.choice(extras)
        try:
            result = replay(parse_mat("\n".join(edited)))
            format_mat(record_from_replay(result))
            read += 1
        except RecordFormatError as exc:
            assert str(exc).startswith("line "), str(exc)
    assert read > 50


GNUBG_DATA = TEST_DATA / "mat_gnubg"


def test_games_resigned_on_the_opening_roll_go_to_the_winner_gnubg_wrote() -> None:
    """GNU Backgammon's export of two games resigned by the roller on the opening roll (Veli a
    gammon, then Ali a single game): Ali wins 2, Veli 1 (gnubg's play; it cannot import the
    file). The replayed events play the same games again from the opening roll."""
    result = replay(read_mat(GNUBG_DATA / "resigned_at_once.mat"))
    assert result.problem is None and not result.notes
    ends = [(g.result.winner, g.result.points, g.result.how) for g in result.games if g.result]
    assert ends[:2] == [(0, 2, EndHow.RESIGNED), (1, 1, EndHow.RESIGNED)]
    assert [(s.kind, s.player) for s in result.games[0].snapshots] == [("resign", 1)]
    state = new_match(result.record.length, result.rules)
    for event in replay_events(result):
        state = apply(state, event)
    assert state.results == result.state.results


def test_a_raccoon_is_not_played_under_these_rules() -> None:
    """GNU Backgammon's ``Beavers => 8`` after a beaver is a raccoon, which BG-SCORE-4 (``002``
    optional rule 2: the doubler takes or drops a beaver) does not allow."""
    result = replay(read_mat(GNUBG_DATA / "raccoon.mat"))
    problem = result.problem
    assert problem is not None and (problem.line, problem.rule) == (9, "BG-SCORE-4")
    assert "a raccoon (beavering a beaver) is not played under these rules" in problem.reason
    assert "\n" not in problem.reason
    assert "BG-SCORE-4" not in problem.reason  # the report names the rule once, before it


def _money_gammons(games: int, tags: str = "") -> MatMatch:
    """The first ``games`` games of gnubg's money session with played gammons at cube 1."""
    text = (GNUBG_DATA / "money_gammons.mat").read_text(encoding="utf-8")
    cut = text.find(f" Game {games + 1}\n")
    return parse_mat(tags + (text[:cut] if cut >= 0 else text))


def test_jacoby_in_a_money_session_follows_the_record_else_is_on() -> None:
    """BG-SCORE-4: tags say; else Jacoby is on, as GNU Backgammon imports (its export writes
    no tag): the uncubed gammon that ends the record counts 1 and the "Wins 2 points" is a
    note. A running score that counts such a gammon in full says the session was played
    without Jacoby (the whole export: game 3 starts at 1-2)."""
    unsaid = replay(_money_gammons(2))
    assert unsaid.rules.jacoby and unsaid.problem is None
    assert [r.points for r in unsaid.state.results] == [1, 1]
    assert [(n.line, n.rule) for n in unsaid.notes] == [(52, "BG-SCORE-4")]
    assert "under the Jacoby rule" in unsaid.notes[0].reason
    said_off = replay(_money_gammons(2, '; [Jacoby "Off"]\n'))
    assert not said_off.rules.jacoby and not said_off.notes
    assert [r.points for r in said_off.state.results] == [1, 2]
    said_on = replay(_money_gammons(3, '; [Jacoby "On"]\n'))
    assert said_on.problem is not None and said_on.problem.rule == "BG-MATCH-4"
    whole = replay(_money_gammons(3))
    assert not whole.rules.jacoby and whole.problem is None and not whole.notes
    assert [r.points for r in whole.state.results] == [1, 2, 3]
    assert rules_for(_money_gammons(1, '; [Beaver "Off"]\n')).beavers is False
