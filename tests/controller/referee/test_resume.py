"""Recovery (DESIGN.md, Records): a referee rebuilt from its journal continues the match.

A real match is refereed without interruption; then it is stopped after every k-th journal
entry (also in the middle of one event's entries, as a crash between two fsyncs would leave
it), rebuilt from the journal with :func:`controller.referee.resume.resume`, and fed the rest of
the events. The final journal and the exported ``.mat`` must be those of the uninterrupted run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.records.mat_export import export_match
from controller.referee.api import ClockCommand, JournalEntry, Say, SetSignal
from controller.referee.resume import config_from_journal, resume
from engine.errors import RecordFormatError
from tests.conftest import SHARED_DATA
from tests.controller.referee.harness import Run, entries_of, simulate
from tests.controller.referee.table import Table

MATCHES = SHARED_DATA / "matches"


def _continue(run: Run, cut: int) -> list[dict[str, Any]]:
    journal = [dict(e) for e in run.entries[:cut]]
    last_event = run.owner[cut - 1]
    referee, commands = resume(journal)
    journal += entries_of(commands)
    for event in run.stream.events[last_event + 1 :]:
        journal += entries_of(referee.handle(event))
    return journal


@pytest.mark.parametrize(
    ("name", "every"),
    [
        ("match10058734.txt", 9),  # 5 points, cube actions
        ("match10232587.txt", 13),
        ("match7986278.txt", 5),  # a short record: every 5th entry
    ],
)
def test_stopping_anywhere_and_resuming_gives_the_same_record(name: str, every: int) -> None:
    _, _, run = simulate(MATCHES / name, seed=11, illegal=0.08, invalid=0.08)
    assert any(e["type"] == "illegal_move" for e in run.entries)
    full_mat = export_match(run.entries).mat_text
    cuts = range(every, len(run.entries), every)
    assert len(cuts) >= 15
    for cut in cuts:
        journal = _continue(run, cut)
        assert journal == run.entries, f"cut after entry {cut} ({run.entries[cut - 1]['type']})"
        assert export_match(journal).mat_text == full_mat


def test_resume_restores_the_flag_light_and_the_clock_times() -> None:
    _, _, run = simulate(MATCHES / "match10058734.txt", seed=11, illegal=0.3)
    flagged = next(i for i, e in enumerate(run.entries) if e["type"] == "illegal_move")
    clocks = [e for e in run.entries[: flagged + 1] if e["type"] == "clock"]
    referee, commands = resume(run.entries[: flagged + 1])
    assert referee.flagged and referee.stage == "correcting"
    assert SetSignal("illegal_move", True) in commands
    times = clocks[-1]["times_ms"]
    sides = config_from_journal(run.entries).clock_sides
    left = times[sides.index("left")]
    right = times[sides.index("right")]
    # ... and the mover's time runs again for the correction (TTB-4.5)
    mover = sides[run.entries[flagged]["player"]]
    assert ClockCommand("set_times", mover, args={"left_ms": left, "right_ms": right}) in commands
    assert not [c for c in commands if isinstance(c, JournalEntry)]


def test_a_journal_cut_after_the_last_move_ends_the_game_on_resume() -> None:
    _, _, run = simulate(MATCHES / "match10058734.txt", seed=3)
    end = next(i for i, e in enumerate(run.entries) if e["type"] == "game_end")
    _, commands = resume(run.entries[:end])
    written = entries_of(commands)
    assert written[0] == run.entries[end]
    assert written[1] == run.entries[end + 1]  # game_start of the next game


def test_a_journal_must_start_with_match_start(tmp_path: Path) -> None:
    with pytest.raises(RecordFormatError, match="match_start"):
        resume([{"type": "roll", "player": 0, "dice": [3, 1]}])
    with pytest.raises(RecordFormatError, match="match_start"):
        resume([])


def test_director_actions_and_flags_resume_at_every_entry() -> None:
    """Resignations, accepted and rejected moves, stands, doubles, a drop and a time-out."""
    table = Table()
    table.opening(3, 5)
    table.press(0)
    before = table.referee.match.position
    table.place(before.apply_steps([(13, 7), (8, 6)]), 1)
    table.press(1)
    table.director("accept")
    table.director("reject", reason="knocked over")
    table.place(before.apply_steps([(8, 3), (6, 3)]), 1)
    table.press(1)
    table.throw(0, 6, 5, flat=False)
    table.throw(0, 6, 5)
    table.play_first_legal()
    table.offer(1)
    table.drop()
    table.opening(2, 6)
    table.press(0)
    table.play_first_legal()
    table.director("resign", player=0, kind=2)
    table.opening(1, 4)
    table.press(0)
    table.flag(1)
    entries = table.journal()
    kinds = {e["type"] for e in entries}
    assert {"director", "illegal_move", "correction", "drop", "resign", "time_out"} <= kinds
    for cut in range(1, len(entries)):
        referee, commands = resume(entries[:cut])
        journal = entries[:cut] + entries_of(commands)
        for event in table.events[table.produced[cut - 1] + 1 :]:
            journal += entries_of(referee.handle(event))
        assert journal == entries, f"cut after entry {cut} ({entries[cut - 1]['type']})"


def test_a_clock_that_kept_running_is_not_set_back() -> None:
    _, _, run = simulate(MATCHES / "match10058734.txt", seed=11)
    _, commands = resume(run.entries[:40], restore_clock=False)
    assert not [c for c in commands if isinstance(c, ClockCommand) and c.action == "set_times"]


def test_a_journal_whose_director_rejected_a_move_after_a_double_still_resumes() -> None:
    """An older referee let the director reject a move after a double and take had followed
    (now refused, TTB-4.9); a table updated mid-event must still resume such a journal, with
    the cube undone as the old referee left it, and export it with a note."""
    path = Path(__file__).resolve().parents[2] / "data" / "journals"
    lines = (path / "reject_after_double_v34.jsonl").read_text(encoding="utf-8").splitlines()
    entries = [json.loads(line) for line in lines]
    referee, _ = resume(entries)
    assert referee.match.cube.value == 1 and referee.stage == "decide"
    assert any("rejected a move" in note for note in export_match(entries).notes)


@pytest.mark.parametrize("cut", [17, 23], ids=["doubler_next_to_roll", "a_later_flag"])
def test_a_double_an_older_table_lost_is_not_judged_turns_later(cut: int) -> None:
    """An older referee lost the double of an opponent who pressed with the cube offered
    while a flagged move waited (fixed in c8b98ca); resuming its journal turns later wrote
    that double (the match stuck at "doubled") or made a later flagged move stand. A roll
    clears a double still waiting (BG-CUBE-2): the restart writes nothing."""
    path = Path(__file__).resolve().parents[2] / "data" / "journals"
    lines = (path / "double_lost_after_flag_v35.jsonl").read_text(encoding="utf-8").splitlines()
    entries = [json.loads(line) for line in lines][:cut]
    referee, commands = resume(entries)
    assert entries_of(commands) == []
    assert referee.match.cube.offered_by is None


def test_a_resumed_table_says_where_the_match_stands() -> None:
    """End-to-end QA: a backgammon table restarted mid-match said only "Resumed the match from
    FILE (N entries)", so a director checking that nothing was lost read the journal for the
    score, the cube and whose turn it was (a Mangala table says its sets and warnings). The
    restored referee says them, once the decisions due on restart are made."""
    def said(entries: list[dict[str, Any]]) -> list[str]:
        return [c.text for c in resume(entries)[1] if isinstance(c, Say)]

    table = Table()
    table.opening(3, 5)
    table.press(0)
    assert said(table.journal()) == ["The match stands at game 1: Ayse 0, Mehmet 0; Mehmet to "
                                     "play 53"]
    table.play_first_legal()
    table.offer(0)
    assert said(table.journal()) == ["The match stands at game 1: Ayse 0, Mehmet 0; Mehmet to "
                                     "take or drop Ayse's double to 2"]
    table.take(1)
    assert said(table.journal()) == ["The match stands at game 1: Ayse 0, Mehmet 0; the cube at "
                                     "2, Mehmet's; Ayse to throw"]
    table.throw(0, 6, 5)
    table.play_first_legal()
    table.offer(1)
    table.drop()  # Ayse drops Mehmet's double to 4: the next game's opening is due
    assert said(table.journal()) == ["The match stands at game 2: Ayse 0, Mehmet 2; the opening "
                                     "throw"]


def test_a_resumed_table_says_a_flagged_move_waits_for_its_correction() -> None:
    table = Table()
    table.opening(3, 5)
    table.press(0)
    table.place(table.referee.match.position.apply_steps([(13, 7), (8, 6)]), 1)
    table.press(1)  # 13/7 8/6 does not match 53: flagged
    said = [c.text for c in resume(table.journal())[1] if isinstance(c, Say)]
    assert said == ["The match stands at game 1: Ayse 0, Mehmet 0; Mehmet to correct the "
                    "flagged move with 53 (TTB-4.8)"]
