"""A wrong sowing by the opponent before the mover pressed (MG-CLOCK-2): the mover's legal
sowing stands and is not warned; the early sowing is not judged until its player presses, and
then the warning of MG-T-4 is theirs (seed rule h: "hamlede olan oyuncu")."""

from __future__ import annotations

from pathlib import Path

from controller.mangala.mistakes import mistakes
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
