"""The fold of journal entries into a table's state: the fields the hub reads, per type."""

from __future__ import annotations

from typing import Any

from controller.hub.contract import MatchState
from engine.backgammon.position import Position


def entries(*specs: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"seq": i, "time": f"2026-11-22T10:00:{i:02d}.000+00:00", "type": kind, **fields}
            for i, (kind, fields) in enumerate(specs, start=1)]


def fold(items: list[dict[str, Any]]) -> MatchState:
    state = MatchState("m")
    for item in items:
        state.apply(item)
    return state


def test_score_cube_clocks_and_position_follow_the_journal() -> None:
    after = Position.initial().apply_steps([(8, 5), (6, 5)]).position_id
    state = fold(entries(
        ("match_start", {"players": ["Ayşe", "Mehmet"], "length": 5, "game": "backgammon"}),
        ("game_start", {"number": 1, "score": [0, 0]}),
        ("opening_roll", {"dice": [3, 1], "player": 0}),
        ("move", {"player": 0, "dice": [3, 1], "move": "8/5 6/5", "position_id": after}),
        ("clock", {"times_ms": [598_000, 600_000], "running": 1}),
        ("double", {"player": 1, "cube": 2}),
        ("take", {"player": 0}),
        ("game_end", {"winner": 1, "points": 2, "score": [0, 2]}),
        ("game_start", {"number": 2, "score": [0, 2]}),
    ))
    s = state.summary()
    assert s["players"] == ["Ayşe", "Mehmet"] and s["length"] == 5 and s["game_number"] == 2
    assert s["score"] == [0, 2]
    assert s["cube"] == {"value": 1, "owner": None, "offered_by": None}  # a new game: centred
    assert s["clocks_ms"] == [598_000, 600_000] and s["running"] is None  # held between games
    assert s["position_id"] == after and s["position_player"] == 0
    assert state.moves[0]["move"] == "8/5 6/5" and state.games[0]["points"] == 2
    assert s["finished"] is False and s["seq"] == 9


def test_take_gives_the_cube_to_the_taker_and_a_drop_leaves_it() -> None:
    state = fold(entries(("match_start", {"players": ["a", "b"], "length": 7}),
                         ("game_start", {"number": 1}), ("double", {"player": 0}),
                         ("take", {"player": 1}), ("double", {"player": 1})))
    assert state.summary()["cube"] == {"value": 2, "owner": 1, "offered_by": 1}
    state.apply({"seq": 6, "time": "t", "type": "drop", "player": 0})
    assert state.summary()["cube"] == {"value": 2, "owner": 1, "offered_by": None}


def test_flags_carry_rule_reason_and_a_correction_resolves_the_illegal_move() -> None:
    state = fold(entries(
        ("match_start", {"players": ["a", "b"], "length": 3}),
        ("invalid_throw", {"player": 0, "rule": "BG-ROLL-2", "reason": "a die is cocked"}),
        ("illegal_move", {"player": 0, "rule": "BG-MOVE-6", "reason": "use the larger die",
                          "snapshot": "flag-3.jpg"}),
        ("correction", {"player": 0}),
        ("time_out", {"player": 1, "rule": "TTB-CLOCK-3", "reason": "the flag fell"}),
    ))
    rules = [(f["type"], f["rule"], f["corrected"]) for f in state.flags]
    assert rules == [("invalid_throw", "BG-ROLL-2", False), ("illegal_move", "BG-MOVE-6", True),
                     ("time_out", "TTB-CLOCK-3", False)]
    assert state.open_flags() == 3 and state.summary()["last_flag"]["rule"] == "TTB-CLOCK-3"
    state.acknowledge(2, "td")
    state.override(3, "overturned", "td", "the camera misread the 6")
    assert state.open_flags() == 1
    assert state.flag(3)["override"] == {"verdict": "overturned", "by": "td",  # type: ignore[index]
                                         "note": "the camera misread the 6"}


def test_game_end_without_a_score_adds_the_points_and_match_end_finishes() -> None:
    state = fold(entries(("match_start", {"players": ["a", "b"], "length": 3}),
                         ("game_start", {}), ("game_end", {"winner": 0, "points": 2}),
                         ("game_start", {}), ("game_end", {"winner": 0, "points": 1}),
                         ("match_end", {"winner": 0, "score": [3, 0]})))
    s = state.summary()
    assert s["score"] == [3, 0] and s["finished"] and s["winner"] == 0 and s["game_number"] == 2


def test_malformed_fields_are_ignored_not_fatal() -> None:
    state = fold(entries(("match_start", {"players": "nobody", "length": "five"}),
                         ("roll", {"player": 7, "dice": [9]}),
                         ("clock", {"times_ms": ["x", 1]}),
                         ("game_end", {"winner": True, "points": None})))
    s = state.summary()
    assert s["players"] == ["", ""] and s["length"] == 0 and s["dice"] is None
    assert s["clocks_ms"] is None and s["score"] == [0, 0] and s["seq"] == 4


def test_director_end_finishes_the_match_with_who_and_why() -> None:
    state = fold(entries(("match_start", {"players": ["a", "b"], "length": 3}),
                         ("clock", {"times_ms": [1, 2], "running": 0})))
    state.end(1, "td", "a withdrew")
    s = state.summary()
    assert s["finished"] and s["winner"] == 1 and s["ended_by"] == "td: a withdrew"
    assert s["running"] is None


def test_the_tables_own_end_after_a_directors_end_says_the_tables_result_stands() -> None:
    """A table's match_end (not the director's end carried out) after a director's end on the
    hub has the last word: the card no longer says the director ended the match, only that
    the table's result stands over that end; the table carrying the end out changes nothing."""
    start = [("match_start", {"players": ["a", "b"], "length": 3})]
    for how, ended_by in (("played", "the table, whose result stands over td's end: forfeit"),
                          ("director", "td: forfeit")):
        state = fold(entries(*start))
        state.end(1, "td", "forfeit")
        state.apply(entries(*start, ("match_end", {"winner": 0, "score": [3, 1], "how": how}))[-1])
        s = state.summary()
        assert (s["winner"], s["ended_by"]) == (0, ended_by), how


def test_a_directors_end_at_a_backgammon_table_names_the_director_on_the_card() -> None:
    """``hakem director end-match 1 --by NAME`` journals a ``director`` entry (as
    ``controller.referee.api.director_fields`` writes it) and the match's end: the card named
    nobody. A hub's end carried out at the table keeps the hub's words."""
    start = ("match_start", {"players": ["a", "b"], "length": 3})
    end_match = ("director", {"action": "end_match", "args": {"winner": 1}, "director": "Ayse"})
    match_end = ("match_end", {"winner": 1, "score": [0, 1], "how": "director"})
    assert fold(entries(start, end_match, match_end)).summary()["ended_by"] == "Ayse"
    state = fold(entries(start))
    state.end(1, "td", "forfeit")
    for entry in entries(start, end_match, match_end)[1:]:
        state.apply(entry)
    assert state.summary()["ended_by"] == "td: forfeit"


def test_a_directors_position_and_dice_reach_the_dashboard() -> None:
    """``hakem director set-position`` / ``set-dice`` are journalled as ``director`` entries:
    the dashboard kept the position and dice from before them (end-to-end QA)."""
    corrected = Position.initial().apply_steps([(13, 7)]).position_id
    state = fold(entries(
        ("match_start", {"players": ["Ayşe", "Mehmet"], "length": 5, "game": "backgammon"}),
        ("game_start", {"number": 1, "score": [0, 0]}),
        ("opening_roll", {"dice": [3, 1], "player": 1}),
        ("director", {"action": "set_dice", "args": {"dice": [5, 2]}, "director": "td"}),
        ("director", {"action": "set_position", "args": {"position_id": corrected},
                      "director": "td"}),
        ("director", {"action": "note", "args": {"text": "checked"}, "director": "td"}),
    ))
    s = state.summary()
    assert s["dice"] == [5, 2]
    assert s["position_id"] == corrected and s["position_player"] == 1  # seen by the mover
    mangala = {"a": [4] * 6, "a_store": 0, "b": [4] * 6, "b_store": 0, "to_move": "a"}
    state.apply({"seq": 7, "type": "director", "action": "set_position",
                 "args": {"position": mangala}})
    assert state.position == mangala


def test_turns_played_unseen_reach_the_dashboard() -> None:
    """After turns the table could not see (TTB-6.1) the card shows the flag, the player on
    roll, then the position and cube the board showed; a director's position with the player
    on roll moves the turn too."""
    taken = Position.initial().apply_steps([(13, 7), (6, 5)]).position_id
    state = fold(entries(
        ("match_start", {"players": ["Ayşe", "Mehmet"], "length": 5, "game": "backgammon"}),
        ("game_start", {"number": 1, "score": [0, 0]}),
        ("opening_roll", {"dice": [3, 1], "player": 0}),
        ("cannot_read", {"player": 1, "rule": "TTB-6.1", "reason": "2 presses unseen",
                         "about": "turns_unseen", "turns": 2}),
    ))
    s = state.summary()
    assert s["dice"] is None and s["last_flag"]["rule"] == "TTB-6.1"
    state.apply({"seq": 5, "type": "position_taken", "player": 1, "position_id": taken,
                 "cube": 2, "owner": 0, "rule": "TTB-6.1"})
    s = state.summary()
    assert (s["position_id"], s["position_player"]) == (taken, 1)
    assert s["cube"] == {"value": 2, "owner": 0, "offered_by": None}
    state.apply({"seq": 6, "type": "director", "action": "set_position",
                 "args": {"position_id": taken, "player": 0}})
    assert state.summary()["position_player"] == 0
    mangala = {"a": [0, 5, 5, 5, 5, 5], "a_store": 1, "b": [4] * 6, "b_store": 0,
               "to_move": "b"}
    state.apply({"seq": 7, "type": "position_taken", "position": mangala, "player": "b"})
    assert state.position == mangala


def test_a_double_pending_at_the_gap_was_taken_on_the_dashboard() -> None:
    """As the referee has it (the game went on after unseen turns, so the double was taken),
    when the board does not show the cube: the card's cube is at 2, the taker's."""
    state = fold(entries(
        ("match_start", {"players": ["Ayşe", "Mehmet"], "length": 5, "game": "backgammon"}),
        ("game_start", {"number": 1, "score": [0, 0]}),
        ("double", {"player": 0, "cube": 2}),
        ("cannot_read", {"player": 0, "rule": "TTB-6.1", "reason": "unseen",
                         "about": "turns_unseen", "turns": 2}),
    ))
    assert state.summary()["cube"] == {"value": 2, "owner": 1, "offered_by": None}


def test_a_finished_match_has_nobody_on_roll_and_no_dice() -> None:
    """The last roll stayed on the card after the match ended, a player still "on roll"
    (QA pass): the table's match_end and a director's end both clear them."""
    played = entries(("match_start", {"players": ["a", "b"], "length": 1}),
                     ("game_start", {"number": 1}),
                     ("opening_roll", {"dice": [5, 2], "player": 0}),
                     ("roll", {"player": 1, "dice": [6, 4]}))
    by_table = fold([*played, {"seq": 5, "time": "2026-11-22T10:00:05.000+00:00",
                               "type": "match_end", "winner": 1, "score": [0, 1]}])
    by_director = fold(played)
    assert by_director.summary()["to_move"] == 1 and by_director.summary()["dice"] == [6, 4]
    by_director.end(0, "td", "forfeit")
    for state in (by_table, by_director):
        s = state.summary()
        assert s["finished"] is True and s["to_move"] is None and s["dice"] is None
        assert state.detail()["to_move"] is None and state.detail()["dice"] is None


def test_entries_after_a_directors_end_put_no_turn_dice_or_clock_back_on_the_card() -> None:
    """A director's end on the hub, then the table's entries journalled before it heard of the
    end (a roll, a move, a clock press): the finished card showed a player on roll, dice and a
    running clock again. They are folded (the board and the moves follow them) but the
    finished card keeps nobody on roll, no dice and no clock running."""
    played = entries(("match_start", {"players": ["a", "b"], "length": 3}),
                     ("game_start", {"number": 1}),
                     ("opening_roll", {"dice": [5, 2], "player": 0}),
                     ("roll", {"player": 1, "dice": [6, 4]}),
                     ("move", {"player": 1, "dice": [6, 4], "move": "24/18 13/9"}),
                     ("clock", {"times_ms": [5000, 4000], "running": 0}),
                     ("roll", {"player": 0, "dice": [3, 3]}))
    state = fold(played[:3])
    state.end(None, "td", "hall closed")
    for late in played[3:]:
        state.apply(late)
        s = state.summary()
        assert s["finished"] is True and s["winner"] is None, late["type"]
        assert (s["to_move"], s["dice"], s["running"]) == (None, None, None), late["type"]
    assert state.summary()["moves"] == 1 and state.summary()["clocks_ms"] == [5000, 4000]


def test_a_cube_the_director_put_right_and_a_game_scored_again_reach_the_dashboard() -> None:
    """BG-CUBE-5: the card's cube is the one put right; a game scored again replaces its first
    end in the card's games (and its score), and game 2 starts again from the new score."""
    state = fold(entries(
        ("match_start", {"players": ["a", "b"], "length": 3}),
        ("game_start", {"number": 1, "score": [0, 0]}),
        ("director", {"action": "set_cube", "args": {"value": 2, "owner": 1}}),
    ))
    assert state.summary()["cube"] == {"value": 2, "owner": 1, "offered_by": None}
    for item in entries(
        ("game_end", {"winner": 1, "points": 2, "score": [0, 2], "game": 1}),
        ("game_start", {"number": 2, "score": [0, 2], "crawford": True}),
        ("director", {"action": "set_cube", "args": {"value": 1, "owner": None}}),
        ("game_end", {"winner": 1, "points": 1, "score": [0, 1], "game": 1, "rescored": True}),
        ("game_start", {"number": 2, "score": [0, 1], "crawford": False}),
    ):
        state.apply(item)
    s = state.summary()
    assert s["score"] == [0, 1] and s["crawford"] is False and s["game_number"] == 2
    assert s["cube"] == {"value": 1, "owner": None, "offered_by": None}
    assert state.games == [{"game": 1, "winner": 1, "points": 1, "score": [0, 1]}]


def test_a_game_scored_again_that_decides_the_match_leaves_the_card_on_that_game() -> None:
    """The next game's start journalled before the correction is void when the new points end
    the match: the finished card names the game that decided it, not a Crawford game that was
    never played (before: "game 2 ... Crawford" on a match won in game 1)."""
    state = fold(entries(
        ("match_start", {"players": ["a", "b"], "length": 3}),
        ("game_start", {"number": 1, "score": [0, 0]}),
        ("game_end", {"winner": 1, "points": 2, "score": [0, 2], "game": 1}),
        ("game_start", {"number": 2, "score": [0, 2], "crawford": True}),
        ("director", {"action": "set_cube", "args": {"value": 4, "owner": 1}}),
        ("game_end", {"winner": 1, "points": 4, "score": [0, 4], "game": 1, "rescored": True}),
        ("match_end", {"winner": 1, "score": [0, 4], "how": "played"}),
    ))
    s = state.summary()
    assert s["finished"] is True and s["winner"] == 1 and s["score"] == [0, 4]
    assert s["game_number"] == 1 and s["crawford"] is False
    assert state.games == [{"game": 1, "winner": 1, "points": 4, "score": [0, 4]}]
