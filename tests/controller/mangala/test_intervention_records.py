"""Seeded Mangala rounds with the interventions a tournament produces, alone and combined: the
round record written by the table's own writer, by ``hakem export --round`` and by the hub's
export from the same entries must agree, and ``hakem mangala check`` must replay it to the
journal's set results, stores and round points."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.hub.contract import MatchState
from controller.hub.export import round_record as hub_round_record
from controller.mangala.mistakes import mistakes
from controller.mangala.records import write_round_record
from controller.referee.api import DirectorAction
from engine.mangala.position import Position
from engine.mangala.sowing import legal_pits, play
from tests.controller.mangala.harness import Table
from tests.controller.mangala.test_referee import play_round, setup, sow
from tests.controller.mangala.test_resume_after_a_crash import _restarted
from tests.controller.mangala.test_unseen_turns import _unseen

FIFTEEN_MIN = 15 * 60 * 1000


def _position(table: Table) -> Position:
    position = table.referee.position
    assert position is not None
    return position


def _director(table: Table, action: str, **args: object) -> None:
    table.send(DirectorAction(table.time.now_ms(), action, dict(args), "td"))


def _set_to(table: Table, obj: dict[str, object]) -> Position:
    _director(table, "set_position", position=obj)
    return _position(table)


def _random_turns(table: Table, rng: random.Random, turns: int) -> None:
    """Random legal sowings (some extra turns pressed, most not) while the set goes on."""
    for _ in range(turns):
        if table.referee.over or table.referee.stage != "turn":
            return
        position = _position(table)
        pit = rng.choice(legal_pits(position))
        result = play(position, pit)
        if result.set_over:
            return
        sow(table, position, pit, press=not result.extra_turn or rng.random() < 0.5)


def _ready(table: Table) -> Position:
    if table.referee.stage == "setup":
        setup(table)
    return _position(table)


def _win_set(table: Table, winner: str) -> None:
    """The director sets a board where ``winner``'s last stone empties their side (MG-4)."""
    _ready(table)
    loser = "b" if winner == "a" else "a"
    position = _set_to(table, {winner: [0, 0, 0, 0, 0, 1], f"{winner}_store": 20,
                               loser: [4, 4, 4, 4, 4, 3], f"{loser}_store": 4,
                               "to_move": winner})
    sow(table, position, 6)


def _draw_set(table: Table) -> None:
    """a's last stone empties a's side, a sweeps b's 19: 24-24 (MG-4)."""
    _ready(table)
    position = _set_to(table, {"a": [0, 0, 0, 0, 0, 1], "a_store": 4,
                               "b": [4, 4, 4, 4, 3, 0], "b_store": 24, "to_move": "a"})
    sow(table, position, 6)


def _time_out(table: Table, store: int, mover: str | None = None) -> None:
    """``mover`` (by default the player to move) holds ``store``, is to move, and their time
    runs out (MG-CLOCK-3)."""
    mover = mover or _ready(table).to_move
    _ready(table)
    other = "b" if mover == "a" else "a"
    _set_to(table, {mover: [4, 4, 4, 4, 4, 24 - store], f"{mover}_store": store,
                    other: [0, 0, 1, 1, 1, 1], f"{other}_store": 0, "to_move": mover})
    table.tick(FIFTEEN_MIN + 2_000)


def _restart(table: Table) -> Table:
    """The table goes down after its last journal entry and starts again on the journal."""
    cut = len(table.journal.entries) - 1
    folder = table.journal.path.parent
    table.close()
    (folder / "journal.jsonl").unlink()
    return _restarted(folder, table, cut)


def _wrong_and_pressed(table: Table) -> tuple[Position, int]:
    position = _position(table)
    pit = next(p for p in legal_pits(position) if mistakes(position, p))
    table.show(mistakes(position, pit)[0][1])
    assert position.to_move is not None
    table.press(position.to_move)
    assert table.referee.flagged
    return position, pit


# -- the interventions ------------------------------------------------------------------------

def corrected_before_press(table: Table, rng: random.Random) -> Table:
    position = setup(table)
    table.show(mistakes(position, 1)[0][1])
    table.tick(3_000)
    sow(table, position, 1)
    _random_turns(table, rng, 6)
    return table


def warned_and_corrected(table: Table, rng: random.Random) -> Table:
    setup(table)
    _random_turns(table, rng, 5)
    position, pit = _wrong_and_pressed(table)
    sow(table, position, pit)
    assert table.last("move")["corrected"] is True
    return table


def three_warnings(table: Table, rng: random.Random) -> Table:
    setup(table)
    while not table.referee.over:
        if table.referee.mover != "a":
            _random_turns(table, rng, 1)
            continue
        position, pit = _wrong_and_pressed(table)
        if not table.referee.over:
            sow(table, position, pit)
    assert table.last("match_end")["how"] == "warnings"
    return table


def director_accepts(table: Table, rng: random.Random) -> Table:
    setup(table)
    _random_turns(table, rng, 4)
    _, pit = _wrong_and_pressed(table)
    _director(table, "accept", pit=pit)
    assert not table.referee.flagged
    return table


def director_warns(table: Table, rng: random.Random) -> Table:
    setup(table)
    _random_turns(table, rng, 3)
    _director(table, "warn", player="b", reason="touched pit 3 # then played 5")
    _random_turns(table, rng, 3)
    return table


def position_set_mid_set(table: Table, rng: random.Random) -> Table:
    setup(table)
    _random_turns(table, rng, 4)
    _set_to(table, {"a": [1, 2, 3, 0, 5, 6], "a_store": 10, "b": [2, 0, 4, 1, 3, 5],
                    "b_store": 6, "to_move": "b"})
    _random_turns(table, rng, 4)
    return table


def unseen_then_accepted(table: Table, rng: random.Random) -> Table:
    position = sow(table, setup(table), 1)
    _unseen(table, "b", "a")
    for _ in range(2):
        now = _position(table)
        pit = next(p for p in legal_pits(now)
                   if not play(now, p).extra_turn and not play(now, p).set_over)
        _director(table, "accept", pit=pit)
    assert not table.referee.unseen_turns and position != table.referee.position
    _random_turns(table, rng, 3)
    return table


def early_sowing(table: Table, rng: random.Random) -> Table:
    position = setup(table)
    after_a = sow(table, position, 1, press=False)
    table.show(play(after_a, 2).position.board())
    table.tick(2_000)
    assert table.count("early_move") == 1
    table.show(after_a.board())
    table.press("a")
    _random_turns(table, rng, 4)
    return table


def extra_turns(table: Table, rng: random.Random) -> Table:
    position = setup(table)
    again = sow(table, position, 4, press=False)  # last stone in a's store (MG-1)
    after = sow(table, again, 1)
    again_b = play(after, 4).position
    assert play(after, 4).extra_turn
    sow(table, after, 4)  # b presses between the two sowings
    table.tick(500)
    sow(table, again_b, next(p for p in legal_pits(again_b)
                             if not play(again_b, p).extra_turn))
    _random_turns(table, rng, 4)
    return table


def captures(table: Table, rng: random.Random) -> Table:
    setup(table)
    # a's pit 1 (1 stone) lands in a's empty pit 2 opposite b's 5 stones (MG-3)
    position = _set_to(table, {"a": [1, 0, 3, 4, 4, 5], "a_store": 3, "b": [4, 4, 4, 4, 5, 5],
                               "b_store": 2, "to_move": "a"})
    after = sow(table, position, 1)
    assert after.a_store == 3 + 6
    # b's pit 6 (5 stones: b6, b's store, a1, a2, a3) makes a's pit 3 four: b takes them
    # (MG-2)
    result = play(after, 6)
    assert result.captured == 4 and result.capture_rule == "MG-2"
    sow(table, after, 6)
    _random_turns(table, rng, 4)
    return table


def whole_random_round(table: Table, rng: random.Random) -> Table:
    play_round(table, rng)
    return table


def round_two_nil(table: Table, rng: random.Random) -> Table:
    _win_set(table, "a")
    _win_set(table, "a")
    assert table.last("match_end")["points"] == {"a": 1.0, "b": 0.0}
    return table


def won_on_points_after_a_draw(table: Table, rng: random.Random) -> Table:
    _win_set(table, "b")
    _draw_set(table)
    assert not table.referee.over  # MG-T-1 as the seed has it: 1.5 points do not end it
    _time_out(table, 24)  # a drawn set by time-out (MG-CLOCK-3)
    end = table.last("match_end")
    assert end["winner"] == "b"
    return table


def drawn_round(table: Table, rng: random.Random) -> Table:
    _win_set(table, "a")
    _time_out(table, 20, "a")  # a loses set 2 by time
    _draw_set(table)
    return table


def time_out_lost(table: Table, rng: random.Random) -> Table:
    setup(table)
    _random_turns(table, rng, 3)
    _time_out(table, 20)
    _random_turns(table, rng, 3)
    return table


def director_ends(table: Table, rng: random.Random) -> Table:
    setup(table)
    _random_turns(table, rng, 5)
    _director(table, "end_match", winner="b", reason="a left the hall")
    return table


def restart_mid_set(table: Table, rng: random.Random) -> Table:
    setup(table)
    _random_turns(table, rng, 6)
    again = _restart(table)
    _random_turns(again, rng, 4)
    return again


def combined(table: Table, rng: random.Random) -> Table:
    warned_and_corrected(table, rng)
    _director(table, "warn", player="a")
    _random_turns(table, rng, 2)
    _, pit = _wrong_and_pressed(table)
    _director(table, "accept", pit=pit)
    _win_set(table, "b")
    _time_out(table, 24)
    setup(table) if table.referee.stage == "setup" else None
    _random_turns(table, rng, 4)
    table = _restart(table)
    play_round(table, rng)
    return table


SCENARIOS: dict[str, Callable[[Table, random.Random], Table]] = {
    f.__name__: f for f in (
        corrected_before_press, warned_and_corrected, three_warnings, director_accepts,
        director_warns, position_set_mid_set, unseen_then_accepted, early_sowing,
        extra_turns, captures, whole_random_round, round_two_nil,
        won_on_points_after_a_draw, drawn_round, time_out_lost, director_ends,
        restart_mid_set, combined)
}


def _three_records(folder: Path, entries: list[dict[str, Any]],
                   capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    """The record by the table's writer, the export and the hub (which must agree), and what
    the export said on stderr."""
    own = write_round_record(entries, folder / "own.txt").read_text(encoding="utf-8")
    capsys.readouterr()
    out = folder / "export.txt"
    assert main(["export", str(folder / "journal.jsonl"), "--round", str(out)]) == 0
    said = capsys.readouterr().err
    state = MatchState("m")
    for entry in entries:
        state.apply(entry)
    hub = hub_round_record(state, entries, "5")[0]
    assert own == out.read_text(encoding="utf-8") == hub
    return own, said


def _replayed(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["mangala", "check", str(path), "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def _agrees(check: dict[str, Any], entries: list[dict[str, Any]]) -> None:
    assert check["legal"], check["first_illegal"]
    ends = [e for e in entries if e["type"] == "game_end"]
    assert [(s["set"], [s["a_store"], s["b_store"]], s["winner"]) for s in check["sets"]] == \
        [(e["set"], e["stores"], e["winner"]) for e in ends]
    assert check["moves"] == sum(1 for e in entries if e["type"] == "move")
    final = [e for e in entries if e["type"] == "match_end"]
    if final:
        assert check["round_over"] and check["winner"] == final[-1]["winner"]
        assert check["points"] == final[-1]["points"]
    else:
        assert not check["round_over"]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_three_round_records_agree_and_replay(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    table = SCENARIOS[name](Table(tmp_path), random.Random(sorted(SCENARIOS).index(name)))
    entries = list(table.journal.entries)
    table.close()
    text, said = _three_records(tmp_path, entries, capsys)
    assert said == ""
    _agrees(_replayed(tmp_path / "export.txt", capsys), entries)
    assert text.startswith("# hakem mangala round record")


def _also_director_ends_between_sets(table: Table, rng: random.Random) -> Table:
    _win_set(table, "a")
    _director(table, "end_match", winner="a")
    return table


def _also_warnings_after_a_set(table: Table, rng: random.Random) -> Table:
    _win_set(table, "a")
    setup(table)
    for _ in range(3):
        _director(table, "warn", player="a", reason="touched")
    return table


def _also_restart_while_flagged(table: Table, rng: random.Random) -> Table:
    setup(table)
    _random_turns(table, rng, 3)
    position, pit = _wrong_and_pressed(table)
    again = _restart(table)
    sow(again, position, pit)
    play_round(again, rng)
    return again


def _also_restart_in_the_sweep(table: Table, rng: random.Random) -> Table:
    _ready(table)
    position = _set_to(table, {"a": [0, 0, 0, 0, 0, 1], "a_store": 20,
                               "b": [4, 4, 4, 4, 4, 3], "b_store": 4, "to_move": "a"})
    result = play(position, 6)
    sown = list(result.position.board())
    sown[6] = 21
    sown[7:13] = [4, 4, 4, 4, 4, 3]
    table.show(sown)
    table.press("a")
    again = _restart(table)
    again.show(result.position.board())
    play_round(again, rng)
    return again


def _also_unseen_to_the_end(table: Table, rng: random.Random) -> Table:
    setup(table)
    _set_to(table, {"a": [0, 0, 0, 0, 0, 1], "a_store": 20,
                    "b": [4, 4, 4, 4, 4, 3], "b_store": 4, "to_move": "b"})
    _unseen(table, "b", "a")
    now = _position(table)
    pit = next(p for p in legal_pits(now) if not play(now, p).extra_turn)
    _director(table, "accept", pit=pit)
    now = _position(table)
    _director(table, "accept", pit=6)
    table.show(play(now, 6).position.board())
    play_round(table, rng)
    return table


def _also_time_out_while_correcting(table: Table, rng: random.Random) -> Table:
    setup(table)
    _random_turns(table, rng, 2)
    _wrong_and_pressed(table)
    table.tick(FIFTEEN_MIN + 2_000)
    play_round(table, rng)
    return table


def _also_time_out_with_unseen_turns(table: Table, rng: random.Random) -> Table:
    position = sow(table, setup(table), 1)
    _unseen(table, "b")
    from controller.referee.api import FlagFell
    table.send(FlagFell(table.time.now_ms(), table.referee.side_of("a")))
    after = play(position, next(p for p in legal_pits(position)
                                if not play(position, p).extra_turn)).position
    table.show(after.board(), frames=6)
    table.tick(1000)
    play_round(table, rng)
    return table


def _also_set_ended_unseen(table: Table, rng: random.Random) -> Table:
    setup(table)
    _set_to(table, {"a": [0, 0, 0, 0, 0, 1], "a_store": 20, "b": [0, 1, 1, 1, 1, 2],
                    "b_store": 21, "to_move": "b"})
    _unseen(table, "b", "a")
    table.show((0,) * 6 + (27,) + (0,) * 6 + (21,))
    assert table.count("game_end") == 1
    play_round(table, rng)
    return table


ALSO: dict[str, Callable[[Table, random.Random], Table]] = {
    f.__name__: f for f in (
        _also_director_ends_between_sets, _also_set_ended_unseen,
        _also_warnings_after_a_set, _also_restart_while_flagged,
        _also_restart_in_the_sweep, _also_unseen_to_the_end,
        _also_time_out_while_correcting, _also_time_out_with_unseen_turns)
}


@pytest.mark.parametrize("name", sorted(ALSO))
def test_more_interventions_agree_and_replay(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    table = ALSO[name](Table(tmp_path), random.Random(7))
    entries = list(table.journal.entries)
    table.close()
    _, said = _three_records(tmp_path, entries, capsys)
    assert said == ""
    _agrees(_replayed(tmp_path / "export.txt", capsys), entries)


def _sown_not_swept(table: Table) -> Position:
    """a's last stone empties a's side (MG-4) and a presses; the sweep is not made yet."""
    _ready(table)
    position = _set_to(table, {"a": [0, 0, 0, 0, 0, 1], "a_store": 20,
                               "b": [4, 4, 4, 4, 4, 3], "b_store": 4, "to_move": "a"})
    result = play(position, 6)
    table.show((0, 0, 0, 0, 0, 0, 21, 4, 4, 4, 4, 4, 3, 4))
    table.press("a")
    assert table.referee.stage == "sweep" and table.count("game_end") == 0
    return result.position


def test_a_directors_end_before_the_sweep_is_checked_is_said_on_stderr(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The director ends the round after the sowing that ended set 1 (MG-4) but before the
    sweep was checked: the journal scores no set, while the record's move line ends the set
    and its replay scores it (a 44-4). The record cannot say the set went unscored: the export
    says so on stderr, in one line naming the set and the turn (it said nothing)."""
    table = Table(tmp_path)
    setup(table)
    _random_turns(table, random.Random(1), 2)
    _sown_not_swept(table)
    _director(table, "end_match", winner="b", reason="a left the hall")
    entries = list(table.journal.entries)
    table.close()
    _, said = _three_records(tmp_path, entries, capsys)
    check = _replayed(tmp_path / "export.txt", capsys)
    assert check["legal"] and check["winner"] == "b" and check["points"] == {"a": 0, "b": 1}
    assert [(s["set"], s["a_store"], s["b_store"]) for s in check["sets"]] == [(1, 44, 4)]
    lines = said.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hakem: note: set 1, turn ")
    assert "sweep" in lines[0] and "44" in lines[0] and "not scored" in lines[0]


def test_a_board_taken_for_unseen_turns_is_said_on_stderr(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Unseen turns whose sowings cannot be told (the board taken as it lies): the record
    holds a position line, not the sowings; the export says so, naming set and turn."""
    table = Table(tmp_path)
    position = sow(table, setup(table), 1)
    after = list(play(play(position, 2).position, 3).position.board())
    pit = next(i for i in range(6) if after[i] > 1)
    after[pit] -= 1
    after[pit + 7] += 1  # no sowing does that
    _unseen(table, "b", "a")
    table.show(tuple(after))
    assert table.count("position_taken") == 1
    entries = list(table.journal.entries)
    table.close()
    _, said = _three_records(tmp_path, entries, capsys)
    _agrees(_replayed(tmp_path / "export.txt", capsys), entries)
    lines = said.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hakem: note: set 1, turn 2: ")
    assert "position line" in lines[0] and "2 unseen turns" in lines[0]


def test_an_unseen_turn_count_that_is_no_number_is_no_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A journal from disk whose ``turns_unseen`` count is text: the export still writes the
    record and notes the taken board (it raised ValueError, a traceback and exit 1)."""
    table = Table(tmp_path)
    position = sow(table, setup(table), 1)
    after = list(play(play(position, 2).position, 3).position.board())
    pit = next(i for i in range(6) if after[i] > 1)
    after[pit] -= 1
    after[pit + 7] += 1
    _unseen(table, "b", "a")
    table.show(tuple(after))
    entries = [{**e, "turns": "two"} if e.get("about") == "turns_unseen" else e
               for e in table.journal.entries]
    table.close()
    journal = tmp_path / "edited.jsonl"
    journal.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    capsys.readouterr()
    assert main(["export", str(journal), "--round", str(tmp_path / "r.txt")]) == 0
    said = capsys.readouterr().err
    assert "Traceback" not in said and "position line" in said


def test_a_hub_end_without_a_winner_leaves_the_three_records_alike(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The director ends the round on the hub without a winner: the record's director line
    names one, so the hub's record is the table's (an unfinished round); with a winner the
    hub adds the director line the table has not journalled (the hub is its only record)."""
    table = Table(tmp_path)
    setup(table)
    _random_turns(table, random.Random(4), 5)
    entries = list(table.journal.entries)
    table.close()
    text, _ = _three_records(tmp_path, entries, capsys)
    state = MatchState("m")
    for entry in entries:
        state.apply(entry)
    state.end(None, "td", "hall closed")
    assert hub_round_record(state, entries, "5")[0] == text
    assert not _replayed(tmp_path / "export.txt", capsys)["round_over"]
    state.end(1, "td", "a left")
    hub = hub_round_record(state, entries, "5")[0]
    assert hub == text + "director 1 end winner b a left\n"
