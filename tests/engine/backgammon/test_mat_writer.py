"""The .mat writer: layout, round trips through the reader, and the replayed rewrite."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.backgammon.mat_events import replay_events
from engine.backgammon.mat_reader import ActionKind, MatMatch, parse_mat, parse_mat_bytes
from engine.backgammon.mat_replay import replay, rules_for
from engine.backgammon.mat_writer import (
    format_mat,
    move_numbers,
    record_from_events,
    record_from_replay,
    writable_names,
    write_match_text,
)
from engine.backgammon.match import (
    Beaver,
    Double,
    Drop,
    Event,
    Move,
    OpeningRoll,
    Take,
    apply,
    new_match,
)
from engine.backgammon.moves import legal_plays
from engine.backgammon.rules import Rules
from engine.errors import RecordFormatError, RuleViolationError
from tests.conftest import TEST_DATA

BUNDLED = TEST_DATA / "matches" / "match10058734.txt"


def read_mat(path: Path) -> MatMatch:
    """Read a record file (the engine itself does no I/O)."""
    return parse_mat_bytes(path.read_bytes())


def test_layout_of_a_written_match() -> None:
    text = format_mat(record_from_replay(replay(read_mat(BUNDLED))))
    lines = text.splitlines()
    assert lines[0] == '; [Site "BackgammonGalaxy"]'
    assert "5 point match" in lines
    start = lines.index(" Game 1")
    assert lines[start + 1] == " lasse : 0                       carsten_bg : 0"
    assert lines[start + 2] == "  1)                             32: 24/21 13/11"
    assert lines[start + 3] == "  2) 52: 13/8 6/4*               42: bar/21* 13/11"
    assert "  7) Doubles => 2                Takes" in lines
    assert " 22) Drops                       Wins 2 points" in lines
    # A line holding only a result has no move number (Backgammon Galaxy's layout).
    assert "     Losses 1 point              Wins 1 point and the match" in lines


def test_written_text_reads_back_to_the_same_record() -> None:
    record = read_mat(BUNDLED)
    again = parse_mat(format_mat(record))
    assert again.length == record.length and again.players == record.players
    assert again.tags == record.tags
    for ours, theirs in zip(record.games, again.games, strict=True):
        assert ours.score == theirs.score
        mine = [(a.player, a.kind, a.dice, a.moves, a.value) for a in ours.actions]
        back = [(a.player, a.kind, a.dice, a.moves, a.value) for a in theirs.actions]
        assert mine == back


def test_move_numbers_are_the_numbers_the_written_lines_carry() -> None:
    """What ``hakem mat check`` names as the move: the bundled match and a taken beaver (its
    ``Takes`` is not written, so it has no line)."""
    rules = Rules.money(beavers=True)
    state = apply(new_match(0, rules), OpeningRoll((3, 1)))
    assert state.dice is not None
    first = Move(legal_plays(state.position, state.dice)[0].result)
    beaver = record_from_events([OpeningRoll((3, 1)), first, Double(), Beaver(), Take()],
                                length=0, players=("a", "b"), rules=rules)
    assert move_numbers(beaver.games[0]) == [1, 1, 2, 0]
    record = read_mat(BUNDLED)
    again = parse_mat(format_mat(record))
    for ours, theirs in zip(record.games, again.games, strict=True):
        assert move_numbers(ours) == [a.number for a in theirs.actions]


def test_every_real_match_rewritten_replays_identically(shared_data: Path) -> None:
    for path in sorted((shared_data / "matches").glob("*.txt")):
        first = replay(read_mat(path))
        second = replay(parse_mat(format_mat(record_from_replay(first))))
        assert second.problem is None, path.name
        assert second.final_score == first.final_score, path.name
        assert [(t.player, t.dice, t.result) for g in second.games for t in g.turns] == [
            (t.player, t.dice, t.result) for g in first.games for t in g.turns
        ], path.name


def test_forced_pass_is_written_cannot_move() -> None:
    text = format_mat(record_from_replay(replay(read_mat(BUNDLED))))
    # Game 2, move 4: lasse rolls 66 with both 6s blocked.
    assert "  4) 66: Cannot Move             53: 24/16*" in text.splitlines()


def test_rules_count_replaces_a_wrong_wins_line(shared_data: Path) -> None:
    """match9814649 says "Wins 1 point" for a gammon; the rewrite says 2 (BG-SCORE-2)."""
    result = replay(read_mat(shared_data / "matches" / "match9814649.txt"))
    assert [n.rule for n in result.notes] == ["BG-SCORE-2"]
    rewritten = record_from_replay(result)
    wins = [a for a in rewritten.games[0].actions if a.kind is ActionKind.WIN]
    assert [(w.player, w.value) for w in wins] == [(1, 2)]


def test_empty_names_get_a_name(shared_data: Path) -> None:
    record = read_mat(shared_data / "matches" / "match8600489.txt")
    assert record.players[0] == ""
    assert writable_names(record) == ("Player 1", "lasse")


def test_write_mat_writes_utf8(tmp_path: Path) -> None:
    record = read_mat(BUNDLED)
    out = tmp_path / "out.mat"
    out.write_text(format_mat(record), encoding="utf-8")
    assert read_mat(out).games == parse_mat(format_mat(record)).games


def test_record_from_events_of_real_matches(shared_data: Path) -> None:
    """A match given as events (as a referee's journal holds it) writes a record that replays
    to the same moves and scores; the events come from replaying real records."""
    names = [
        "match10058734.txt",  # drops, Crawford game, resignation
        "match5751765.txt",  # forced passes, a resignation
        "match1112717.txt",  # a capped "Wins 3" read as a gammon resignation
        "match11325888.txt",  # gammon with the cube on 4
        "Magic_-_Lasse_5pt_Backgammon_Studio_2024_04_22_19_06_30.txt",  # bar/, off, (2)
    ]
    for name in names:
        first = replay(read_mat(shared_data / "matches" / name))
        record = record_from_events(
            replay_events(first),
            length=first.record.length,
            players=first.record.players,
            rules=first.rules,
            tags=first.record.tags,
        )
        second = replay(parse_mat(format_mat(record)))
        assert second.problem is None and not second.notes, (name, second.problem)
        assert second.final_score == first.final_score, name
        assert [r.points for r in second.state.results] == [r.points for r in first.state.results]
        assert [(t.player, t.result) for g in second.games for t in g.turns] == [
            (t.player, t.result) for g in first.games for t in g.turns
        ], name


def test_record_from_events_refuses_illegal_events() -> None:
    with pytest.raises(RuleViolationError):
        record_from_events([Double()], length=3, players=("a", "b"))


def test_record_from_events_money_session_with_beaver() -> None:
    rules = Rules.money(beavers=True)
    events: list[Event] = [OpeningRoll((3, 1))]
    state = apply(new_match(0, rules), events[0])
    assert state.dice is not None
    events.append(Move(legal_plays(state.position, state.dice)[0].result))
    events += [Double(), Beaver(), Drop()]
    record = record_from_events(events, length=0, players=("a", "b"), rules=rules)
    text = format_mat(record)
    assert "0 point match" in text
    kinds = [(a.player, a.kind, a.value) for a in record.games[0].actions]
    assert kinds[1:] == [
        (1, ActionKind.DOUBLE, 2),
        (0, ActionKind.BEAVER, 4),
        (1, ActionKind.DROP, 0),
        (0, ActionKind.WIN, 2),
    ]
    assert "Beavers => 4" in text and "Takes" not in text
    assert replay(parse_mat(text)).final_score == (2, 0)


def test_a_taken_beaver_is_written_as_gnubg_writes_it() -> None:
    """GNU Backgammon writes no ``Takes`` after ``Beavers => 4`` and reads a ``Takes`` on a line
    of its own as another double; the record read back replays to the same cube."""
    rules = Rules.money(beavers=True)
    state = apply(new_match(0, rules), OpeningRoll((3, 1)))
    assert state.dice is not None
    first = Move(legal_plays(state.position, state.dice)[0].result)
    events: list[Event] = [OpeningRoll((3, 1)), first, Double(), Beaver(), Take()]
    record = record_from_events(events, length=0, players=("a", "b"), rules=rules)
    text = format_mat(record)
    assert "Beavers => 4" in text and "Takes" not in text
    again = replay(parse_mat(text))
    assert again.problem is None
    assert (again.state.cube.value, again.state.cube.owner) == (4, 0)


def test_write_match_text_from_the_hubs_match_detail() -> None:
    """The hub serves a table's record with ``write_match_text(state.detail())``."""
    first = replay(read_mat(BUNDLED))
    moves: list[dict[str, object]] = []
    games: list[dict[str, object]] = []
    for game in first.games:
        turns = iter(game.turns)
        cube = 1
        for shot in game.snapshots:
            entry: dict[str, object] = {"game": game.number, "player": shot.player}
            if shot.kind == "move":
                turn = next(turns)
                entry.update(dice=list(turn.dice), move=turn.play_text)
            elif shot.kind == "double":
                cube *= 2
                entry.update(action="double", cube=cube)
            elif shot.kind in ("take", "drop"):
                entry.update(action=shot.kind)
            else:
                continue
            moves.append(entry)
        assert game.result is not None
        games.append({"game": game.number, "winner": game.result.winner,
                      "points": game.result.points})  # fmt: skip
    detail = {"players": ["lasse", "carsten_bg"], "length": 5, "moves": moves, "games": games}
    second = replay(parse_mat(write_match_text(detail)))
    assert second.problem is None and not second.notes
    assert second.final_score == first.final_score == (0, 5)
    assert [(t.player, t.result) for g in second.games for t in g.turns] == [
        (t.player, t.result) for g in first.games for t in g.turns
    ]


@pytest.mark.parametrize(
    ("detail", "what"),
    [
        ({"players": ["a"]}, "players"),
        ({"length": -3}, "length"),
        ({"moves": [{"game": 1}]}, r"moves\[0\]"),
        ({"moves": [{"game": 1, "player": 0, "dice": [7, 1]}]}, "dice"),
        ({"moves": [{"game": 1, "player": 0, "dice": [3, 1], "move": "8/x"}]}, "not a move"),
        ({"moves": [{"game": 1, "player": 1, "action": "double"}]}, "cube value"),
    ],
)
def test_write_match_text_refuses_bad_detail(detail: dict[str, object], what: str) -> None:
    with pytest.raises(RecordFormatError, match=what):
        write_match_text(detail)


def test_a_money_session_is_written_with_its_jacoby_and_beaver_rules() -> None:
    """A reader takes a money session without tags as Jacoby on (GNU Backgammon's import), so
    the writer says which way hakem's session went; given tags are kept."""
    events = [OpeningRoll((3, 1)), Move(apply(new_match(0, Rules.money()), OpeningRoll((3, 1)))
                                        .position.apply_steps([(8, 5), (6, 5)]))]
    for jacoby, beavers in ((False, True), (True, False)):
        rules = Rules.money(jacoby=jacoby, beavers=beavers)
        record = record_from_events(events, length=0, players=("a", "b"), rules=rules)
        again = parse_mat(format_mat(record))
        read = rules_for(again)
        assert (read.jacoby, read.beavers) == (jacoby, beavers)
    kept = record_from_events(events, length=0, players=("a", "b"), tags=(("Jacoby", "Off"),))
    assert kept.tags == (("Jacoby", "Off"), ("Beaver", "Off"))
    match = record_from_events(events, length=3, players=("a", "b"))
    assert match.tags == ()
