"""Mangala turns the table could not see (MG-CLOCK-2): presses made while the host was down.

The restarted table finds the sowings again from the board when one way of playing those
turns explains it (the record stays whole), takes the board as the position when the sowings
cannot be told, and waits for the director otherwise.
"""

from __future__ import annotations

from pathlib import Path

from controller.mangala.records import round_record
from controller.mangala.unseen import MAX_WAYS, ways
from controller.referee.api import ClockPressed, DirectorAction, PressesUnseen
from engine.mangala.position import Position
from engine.mangala.record_check import check_record
from engine.mangala.record_reader import parse_record
from engine.mangala.record_writer import format_record
from engine.mangala.sowing import legal_pits, play
from tests.controller.mangala.harness import Table
from tests.controller.mangala.test_referee import setup, sow


def _turn(position: Position) -> Position:
    """The first legal sowing that passes the turn (no extra turn)."""
    for pit in legal_pits(position):
        result = play(position, pit)
        if not result.extra_turn and not result.set_over:
            return result.position
    raise AssertionError("no sowing passes the turn")


def _unseen(table: Table, *players: str, number: int = 10) -> None:
    """Presses of ``players`` (a or b) made while the host was down, sent on the restart,
    with the side of whoever moves next running."""
    presses = []
    for k, player in enumerate(players):
        side = table.referee.side_of("a" if player == "a" else "b")
        presses.append(ClockPressed(table.time.now_ms(), side, (800_000, 800_000),
                                    press=(1, number + k)))
    last = "b" if players[-1] == "a" else "a"
    table.send(PressesUnseen(table.time.now_ms(), tuple(presses), (),
                             table.referee.side_of(last)))


def _unseen_from(table: Table, obj: dict[str, object]) -> None:
    """The set-up seen, the director sets the position ``obj`` (b to move), and b and a then
    press unseen."""
    setup(table)
    table.send(DirectorAction(table.time.now_ms(), "set_position", {"position": obj}))
    _unseen(table, "b", "a")


def _record_replays(table: Table) -> None:
    check = check_record(parse_record(format_record(round_record(table.journal.entries))))
    assert check.legal


def test_two_unseen_turns_are_found_again_from_the_board(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    position = sow(table, position, 1)  # a sows pit 1 (seen), presses
    after_b = _turn(position)
    after_a = _turn(after_b)
    _unseen(table, "b", "a")
    gap = table.last("cannot_read")
    assert (gap["about"], gap["turns"], gap["player"], gap["rule"]) == (
        "turns_unseen", 2, "b", "MG-CLOCK-2")
    table.show(after_a.board())
    moves = [e for e in table.journal.entries if e["type"] == "move"]
    assert [m.get("unseen", False) for m in moves] == [False, True, True]
    assert Position.from_obj(moves[-1]["position"]) == after_a
    assert table.referee.position == after_a and table.referee.mover == "b"
    # play goes on as usual
    sow(table, after_a, next(p for p in legal_pits(after_a)
                             if not play(after_a, p).extra_turn))
    assert table.count("move") == 4 and table.count("illegal_move") == 0
    _record_replays(table)
    table.close()


def test_a_board_no_way_explains_is_taken_as_it_lies(tmp_path: Path) -> None:
    """A stone misplaced meanwhile (or any board no two turns give): vision's own board of
    48 stones, every cell in view, is taken with the player whose time runs to move; the
    record gets a position line and still replays."""
    table = Table(tmp_path)
    position = setup(table)
    position = sow(table, position, 1)
    after = list(_turn(_turn(position)).board())
    pit = next(i for i in range(6) if after[i] > 1)
    after[pit] -= 1
    after[pit + 7] += 1  # one stone on the other side: no sowing does that
    _unseen(table, "b", "a")
    table.show(tuple(after))
    taken = table.last("position_taken")
    assert taken["player"] == "b"
    assert Position.from_obj(taken["position"]).board() == tuple(after)
    assert table.referee.mover == "b"
    _record_replays(table)
    table.close()


def test_a_press_before_the_board_is_found_is_one_more_unseen_turn(tmp_path: Path) -> None:
    table = Table(tmp_path)
    position = setup(table)
    position = sow(table, position, 1)
    b1 = _turn(position)
    a1 = _turn(b1)
    b2 = _turn(a1)
    _unseen(table, "b", "a")
    table.show(b2.board(), hidden_cells=frozenset({3}))  # a hand hides a pit: nothing found
    assert table.count("move") == 1
    table.press("b")  # b sowed meanwhile and pressed
    assert table.last("clock")["means"] == "unseen"
    table.show(b2.board())
    moves = [e for e in table.journal.entries if e["type"] == "move"]
    assert [m.get("unseen", False) for m in moves] == [False, True, True, True]
    assert table.referee.position == b2 and table.referee.mover == "a"
    table.close()


def test_the_ways_of_playing_unseen_turns() -> None:
    start = Position.initial("a")
    one = ways(start, 1, 3)
    assert one and all(not w[-1].last.extra_turn for w in one)
    two = ways(start, 2, 3)
    assert {w[-1].last.position.to_move for w in two} == {"a"}
    assert len(two) > len(one)
    # four turns or more from the start are beyond MAX_WAYS: none is played out past it (it
    # took seconds for five, on every still frame while the turns were looked for), and
    # what was worked out is kept for the frames that follow
    assert ways(start, 4, 3) == [] and ways(start, 6, 3) == []
    assert ways(start, 3, 3) == ways(start, 3, 3) and len(ways(start, 3, 3)) <= MAX_WAYS


def test_a_restarted_mangala_table_finds_the_turns_played_while_it_was_down(
        tmp_path: Path) -> None:
    """``run_mangala_table`` on the real clock link: the host goes down after a's sowing, b
    and a each sow and press meanwhile (the clock queues the presses), and the restarted table
    journals both presses once, finds both sowings on the board, keeps the clock's own times
    and running side, and referees b's next sowing as usual."""
    import io

    import numpy as np
    from gpiozero.pins.mock import MockFactory

    from controller.clock.sim import SimulatedClock
    from controller.clock.timebase import FakeTime
    from controller.clock.wire import Wire
    from controller.mangala.table import run_mangala_table
    from controller.records.journal import read_journal
    from tests.controller.mangala.test_table import Pictures, config
    from tests.controller.runtime.test_press_recovery import SteppedHost, presses_while_down
    from vision.sources import Frame

    class Camera:
        """Boards shown for some frames each; a step may press a clock button."""

        def __init__(self, steps: list[tuple[np.ndarray, int, str | None]]) -> None:
            self.steps, self.shown = steps, 0

        def read(self) -> Frame | None:
            while self.steps and self.steps[0][1] == 0:
                _, _, button = self.steps.pop(0)
                if button is not None:
                    sim.press(button)  # type: ignore[arg-type]
            if not self.steps:
                return None
            image, left, button = self.steps[0]
            self.steps[0] = (image, left - 1, button)
            time.advance(250)
            self.shown += 1
            return Frame(image, time.now_ms() / 1000, f"f{self.shown}")

        def close(self) -> None:
            pass

    pics = Pictures()
    time = FakeTime(0)
    wire = Wire()
    sim = SimulatedClock(wire.clock_end, time, boot_id=5)
    hand = pics.of(Position.initial().board())
    p0 = Position.initial("a")
    a1 = play(p0, 1).position  # a sows pit 1 (no extra turn)
    b1 = _turn(a1)
    a2 = _turn(b1)
    b2 = _turn(a2)
    cfg = config(tmp_path)
    first = Camera([(pics.of(p0.board()), 12, None), (hand, 1, None),
                    (pics.of(a1.board()), 8, None), (hand, 0, "left"),
                    (pics.of(a1.board()), 8, None)])
    run_mangala_table(cfg, time=time, source=first, clock=SteppedHost(wire, time, sim, None),
                      pin_factory=MockFactory(), reader=pics.reader, log=io.StringIO())
    presses_while_down(wire, sim, time, ("right", "left"), gap=200)  # b, then a, sowed
    core = sim.device.core
    core.update(time.now_ms())
    before = list(core.reserve)
    second = Camera([(pics.of(a2.board()), 8, None), (hand, 1, None),
                     (pics.of(b2.board()), 8, None), (hand, 0, "right"),
                     (pics.of(b2.board()), 8, None)])
    out = io.StringIO()
    run_mangala_table(cfg, time=time, source=second, clock=SteppedHost(wire, time, sim, None),
                      pin_factory=MockFactory(), reader=pics.reader, log=out)
    entries = read_journal(tmp_path / "journal.jsonl").entries
    moves = [e for e in entries if e["type"] == "move"]
    assert [(m["player"], m.get("unseen", False)) for m in moves] == [
        ("a", False), ("b", True), ("a", True), ("b", False)]
    presses = [e["press"] for e in entries if e["type"] == "clock" and "press" in e]
    assert presses == [[5, 1], [5, 2], [5, 3], [5, 4]]
    assert [e["means"] for e in entries if e["type"] == "clock" and "press" in e] == [
        "move", "unseen", "unseen", "move"]
    assert "The clock kept time" in out.getvalue()
    # its times were not put back to the set's full time (configure_countdown), nor held
    assert sum(before) < 2 * 15 * 60 * 1000
    assert core.state == "hold" or sum(core.reserve) <= sum(before)
    assert "call the director to check them (MG-CLOCK-2)" in out.getvalue()
    assert not [e for e in entries if e["type"] == "illegal_move"]


def test_a_set_that_ended_while_the_table_was_down_is_scored(tmp_path: Path) -> None:
    """The last sowings and the sweep (MG-4) happened unseen: many ways leave the same
    stores, so one is recorded (marked guessed), the set is scored from them and the round
    record replays."""
    table = Table(tmp_path)
    _unseen_from(table, {"a": [0, 0, 0, 0, 0, 1], "a_store": 20, "b": [0, 1, 1, 1, 1, 2],
                         "b_store": 21, "to_move": "b"})
    a_store = 20 + 1 + 6  # a's last stone into the store ends the set; a sweeps their side
    table.show((0,) * 6 + (a_store,) + (0,) * 6 + (48 - a_store,))
    moves = [e for e in table.journal.entries if e["type"] == "move"]
    assert moves and all(m.get("unseen") and m.get("guessed") for m in moves)
    ended = table.last("game_end")
    assert ended["stores"] == [a_store, 48 - a_store] and ended["winner"] == "a"
    assert table.referee.set_number == 2
    _record_replays(table)
    table.close()


def test_presses_made_during_the_set_up_start_the_set(tmp_path: Path) -> None:
    """The host went down before the set started: the first press started it (the players'
    own start), the others are the turns looked for."""
    table = Table(tmp_path)
    start = table.referee.position
    assert start is not None and table.referee.stage == "setup"
    after_a = _turn(start)
    after_b = _turn(after_a)
    _unseen(table, "a", "a", "b")
    assert [e.get("means") for e in table.journal.entries if e["type"] == "clock"][-3:] == [
        "start", "unseen", "unseen"]
    assert table.last("cannot_read")["turns"] == 2
    table.show(after_b.board())
    assert table.referee.position == after_b
    assert [m.get("unseen") for m in table.journal.entries if m["type"] == "move"] == [True] * 2
    table.close()


def test_the_lights_after_unseen_turns(tmp_path: Path) -> None:
    """The blue LED stays on and the turn light shows the player whose time runs until the
    turns are found (table-service.md)."""
    table = Table(tmp_path)
    position = setup(table)
    sow(table, position, 1)
    _unseen(table, "b", "a")
    lit = table.referee._signals  # what the referee has lit
    assert "cannot_read" in lit
    assert f"turn_{table.referee.side_of('b')}" in lit
