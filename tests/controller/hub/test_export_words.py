"""The hub's move list says a game's end as the table's live log does (``result_words``)."""

from __future__ import annotations

from controller.hub.export import game_end_line


def test_a_game_end_is_said_with_who_dropped_and_the_cube() -> None:
    end = {"type": "game_end", "winner": 1, "points": 2, "score": [0, 2], "win": "single game",
           "how": "dropped", "cube": 2}
    assert game_end_line(end, ["Ayse", "Mehmet"]) == (
        "  Mehmet wins 2 points (Ayse dropped the double, cube 2); score 0-2")


def test_an_older_game_end_without_its_why_is_said_plainly() -> None:
    end = {"type": "game_end", "winner": 0, "points": 1, "score": [1, 0]}
    assert game_end_line(end, ["Ayse", "Mehmet"]) == "  Ayse wins 1 point; score 1-0"
