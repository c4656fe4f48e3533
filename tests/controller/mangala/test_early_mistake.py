"""A wrong sowing by the opponent before the mover pressed (MG-CLOCK-2): the mover's legal
sowing stands and is not warned; the early sowing is not judged until its player presses, and
then the warning of MG-T-4 is theirs (seed rule h: "hamlede olan oyuncu")."""

from __future__ import annotations

from pathlib import Path

from controller.mangala.mistakes import all_mistakes, mistakes
from controller.referee.api import DirectorAction
from engine.mangala.position import Position
from engine.mangala.sowing import play
from tests.controller.mangala.harness import Table
from tests.controller.mangala.test_referee import setup, sow


def test_the_opponents_wrong_early_sowing_is_no_warning_to_the_player_who_pressed(
        tmp_path: Path) -> None:
    """a sows pit 1 and forgets to press; b sows pit 3 wrongly; a presses. Was: an illegal
    sowing flagged against a, who pressed, with a's first warning."""
    table = Table(tmp_path)
    try:
        position = setup(table)
        after_a = sow(table, position, 1, press=False)
        name, wrong = mistakes(after_a, 3)[0]
        table.show(wrong)
        table.press("a")
        assert table.count("illegal_move") == 0
        assert table.referee.round.warning_count("a") == 0
        move = table.last("move")
        assert (move["player"], move["pit"], move["pressed"]) == ("a", 1, True)
        early = table.last("early_move")
        assert (early["player"], early["mover"], early["pits"]) == ("b", "a", [3])
        assert early["mistake"] == name and early["mover_pressed"] is True
        assert any(f"Mehmet sowed pit 3 wrongly ({name}) before Ayşe pressed" in line
                   for line in table.log.lines)
        table.tick(500)
        assert table.clock.state().running == table.referee.side_of("b")
        table.press("b")  # b leaves the wrong sowing and presses: now it is judged
        flag = table.last("illegal_move")
        assert flag["player"] == "b" and flag["warning"] is True and flag["warnings"] == 1
        assert table.referee.round.warning_count("a") == 0
        sow(table, after_a, 3)  # b corrects it
        assert table.last("move")["player"] == "b" and table.last("move")["corrected"] is True
        assert table.referee.position == play(after_a, 3).position
    finally:
        table.close()


def test_the_movers_own_skipped_pit_is_not_taken_for_the_opponents_early_mistake(
        tmp_path: Path) -> None:
    """a sows pit 5 (4 stones) passing over b's pit 1 and presses. The board equals a's legal
    sowing of pit 5 followed by b sowing pit 1 without its MG-3 capture, yet one wrong sowing
    of the player whose turn it was explains it: a is flagged (MG-1). Was: taken for b's early
    mistake, a's sowing recorded as legal and b told to take back a sowing b never made."""
    table = Table(tmp_path)
    try:
        setup(table)
        before = Position.from_obj({"a": [0, 0, 0, 2, 4, 0], "a_store": 24,
                                    "b": [0, 0, 1, 1, 0, 1], "b_store": 15, "to_move": "a"})
        table.send(DirectorAction(table.time.now_ms(), "set_position",
                                  {"position": before.to_obj()}, "td"))
        assert table.referee.position == before
        skipped = (0, 0, 0, 2, 1, 1, 25, 0, 1, 1, 1, 0, 1, 15)  # b's pit 1 passed over
        legal_then_wrong = [b for p, _, b in all_mistakes(play(before, 5).position) if p == 1]
        assert skipped in legal_then_wrong  # the board the two readings share
        table.show(skipped)
        table.press("a")
        assert table.count("early_move") == 0 and table.count("move") == 0
        flag = table.last("illegal_move")
        assert (flag["player"], flag["rule"], flag["warning"]) == ("a", "MG-1", True)
        assert table.referee.round.warning_count("a") == 1
        assert table.referee.round.warning_count("b") == 0
    finally:
        table.close()
