"""Turns played while the table could not see (TTB-6.1): a restart after two presses or more.

The host dies; the players play on and press the clock (it queues the presses, or counts them
when it cannot send them); the table comes back seeing only the board as it is now. Judging
each of those presses on that picture flagged legal moves as illegal (BG-MOVE-1) and journalled
impossible moves as standing (end-to-end QA). The presses are journalled once each as unseen,
the turn goes to the player whose time runs, the position is taken as the board shows it, the
director is called, and the rest of the match is refereed as if nothing had happened: the same
moves, flags and results as the uninterrupted run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.clock.messages import ClockEvent
from controller.clock.sim import SimulatedClock
from controller.clock.timebase import FakeTime
from controller.clock.wire import Wire
from controller.records.mat_export import export_match
from controller.referee.api import ClockHoldPressed, ClockPressed, Command, Event, Say
from controller.runtime.effects import LiveLog
from controller.runtime.loop import press_event
from controller.runtime.presses import recover
from controller.runtime.table import deliver_recovery
from engine.backgammon.position import Position
from tests.controller.referee.gnubg_compare import gnubg_facts
from tests.controller.referee.harness import config_for, read_mat
from tests.controller.referee.tablesim import TableSim
from tests.controller.runtime.test_press_recovery import (
    MATCH,
    Host,
    SteppedHost,
    _show_still_frames,
    journal_after_opening,
    presses_while_down,
    run_restarted,
)


class _Feed:
    """What ``deliver_recovery`` drives: the host's referee."""

    def __init__(self, host: Host, said: list[str]) -> None:
        self.host = host
        self.said = said

    def handle(self, event: Event) -> list[Command]:
        commands = self.host.referee.handle(event)
        self.host.executor.run(commands)
        self.said += [c.text for c in commands if isinstance(c, Say)]
        return commands

    def on_clock(self, event: ClockEvent) -> None:  # no flag falls in these matches
        raise AssertionError(f"unexpected clock event {event!r}")


def _stream(seed: int = 3) -> tuple[Any, list[Event]]:
    record = read_mat(MATCH)
    config = config_for(record)
    return config, TableSim(record, config, seed, illegal=0.1, invalid=0.05).run().events


def _play(path: Path, down_at: int | None, presses_down: int
          ) -> tuple[list[dict[str, Any]], list[str]]:
    """Referee the stream; from event ``down_at`` (a press) the host is down while the
    players make ``presses_down`` presses, which the clock queues and sends on the restart
    (the camera sees none of it)."""
    config, events = _stream()
    time = FakeTime(0)
    wire = Wire()
    sim = SimulatedClock(wire.clock_end, time, boot_id=7)
    host = Host(path, config, wire, sim, time)
    said: list[str] = []  # what the restarted table said on the recovery
    i = 0
    while i < len(events):
        event = events[i]
        if i == down_at:
            host.close()
            wire.unplug()
            made = 0
            while made < presses_down:
                e = events[i]
                if isinstance(e, ClockPressed | ClockHoldPressed):
                    for _ in range(100):
                        sim.step()
                        time.advance(5)
                    sim.press(e.side if isinstance(e, ClockPressed) else "hold")
                    made += 1
                i += 1
            wire.plug()
            host = Host(path, config, wire, sim, time)
            found = recover(host.clock, host.journal.entries, time, sleep=False)
            deliver_recovery(_Feed(host, said), found, time, LiveLog())  # type: ignore[arg-type]
            _show_still_frames(host, events, i)
            continue
        if isinstance(event, ClockPressed | ClockHoldPressed):
            sim.press(event.side if isinstance(event, ClockPressed) else "hold")
            host.handle(press_event(host.wait_press(), event.t_ms))
        else:
            host.handle(event)
        host.clock.poll()
        i += 1
    entries = host.journal.entries
    host.close()
    return entries, said


def _press_indexes(events: list[Event]) -> list[int]:
    return [i for i, e in enumerate(events) if isinstance(e, ClockPressed | ClockHoldPressed)]


def _moves(entries: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(e["player"], tuple(e["dice"]), e["move"], e["position_id"]) for e in entries
            if e["type"] == "move"]


def _flags(entries: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(e["type"], e["rule"], e["player"]) for e in entries
            if e["type"] in ("illegal_move", "invalid_throw")]


def _before(entries: list[dict[str, Any]], seq: int, items: Any) -> int:
    return len(items([e for e in entries if e["seq"] < seq]))


@pytest.mark.parametrize(("at", "presses_down"), [(12, 2), (12, 3), (30, 2), (47, 4), (80, 2)])
def test_turns_played_while_the_table_was_down_are_not_judged(tmp_path: Path, at: int,
                                                              presses_down: int) -> None:
    whole, _ = _play(tmp_path / "whole.jsonl", None, 0)
    _, events = _stream()
    cut, said = _play(tmp_path / "cut.jsonl", _press_indexes(events)[at], presses_down)

    # every press journalled once, in order; those made while down (13, ...) marked unseen
    numbers = [e["press"] for e in cut if e["type"] == "clock"]
    assert numbers == [[7, n] for n in range(1, len(numbers) + 1)]
    assert len(numbers) == sum(1 for e in whole if e["type"] == "clock")
    unseen = [e["press"][1] for e in cut if e.get("means") == "unseen"]
    assert unseen == [at + 1 + k for k in range(presses_down)]

    # the director is called once, citing TTB-6.1
    gap = [e for e in cut if e["type"] == "cannot_read" and e.get("about") == "turns_unseen"]
    assert len(gap) == 1 and gap[0]["rule"] == "TTB-6.1" and gap[0]["turns"] == presses_down
    assert any("TTB-6.1" in line and "call the director" in line for line in said)

    # the moves and flags are the uninterrupted run's, less those of the unseen turns
    w, c = _moves(whole), _moves(cut)
    a, m = _before(cut, gap[0]["seq"], _moves), len(w) - len(c)
    assert 0 <= m <= presses_down and c == w[:a] + w[a + m:]  # (a double and a take: none)
    assert len(c) - a > 20
    fw, fc = _flags(whole), _flags(cut)
    b = _before(cut, gap[0]["seq"], _flags)
    assert fc == fw[:b] + fw[b + len(fw) - len(fc):] and len(fc) >= 3

    # the position taken is the one the last unseen move left, seen by the player on roll
    taken = [e for e in cut if e["type"] == "position_taken"]
    assert len(taken) == 1
    if "cube" in taken[0]:  # as the cube lies after the unseen turns
        after = _seq_of_press(whole, at + presses_down + 1)
        assert (taken[0]["cube"], taken[0]["owner"]) == _cube_before(whole, after)
    last = w[a + m - 1]
    assert taken[0]["player"] == 1 - last[0] == gap[0]["player"]
    assert taken[0]["position_id"] == Position.from_id(last[3]).swap().position_id

    results = [(e["winner"], e["points"], e["score"]) for e in cut if e["type"] == "game_end"]
    assert results == [(e["winner"], e["points"], e["score"]) for e in whole
                       if e["type"] == "game_end"]

    # the record exports: the game with the gap stops there and gives its result
    record = export_match(cut)
    assert any("TTB-6.1" in note for note in record.notes)
    assert record.summary["final_score"] == export_match(whole).summary["final_score"]


def _seq_of_press(entries: list[dict[str, Any]], number: int) -> int:
    return next(e["seq"] for e in entries if e["type"] == "clock" and e["press"] == [7, number])


def _cube_before(entries: list[dict[str, Any]], seq: int) -> tuple[int, int | None]:
    cube: tuple[int, int | None] = (1, None)
    for e in entries:
        if e["seq"] >= seq:
            break
        if e["type"] == "game_start":
            cube = (1, None)
        elif e["type"] == "take":
            cube = (e["cube"], e["player"])
    return cube


def test_the_journal_of_unseen_turns_is_read_back_by_a_restarted_table(tmp_path: Path) -> None:
    """A table restarted again after the gap folds its entries into the same state: the
    position taken, the player on roll."""
    from controller.referee.resume import resume

    _, events = _stream()
    down_at = _press_indexes(events)[12]
    cut, _ = _play(tmp_path / "cut.jsonl", down_at, 2)
    taken = next(i for i, e in enumerate(cut) if e["type"] == "position_taken")
    referee, _ = resume(cut[:taken + 1])
    assert referee.match.position.position_id == cut[taken]["position_id"]
    assert referee.match.on_roll == cut[taken]["player"]
    assert referee.stage == "decide"
    referee, _ = resume(cut[:taken])  # the gap journalled, the board not taken yet
    assert referee.match.on_roll == cut[taken]["player"]


@pytest.mark.gnubg
def test_gnubg_imports_a_record_with_unseen_turns(tmp_path: Path, gnubg: str) -> None:
    """GNU Backgammon imports the exported record: every game's result and score as the
    uninterrupted run's, the game with the gap as a game ended for its points."""
    whole, _ = _play(tmp_path / "whole.jsonl", None, 0)
    _, events = _stream()
    cut, _ = _play(tmp_path / "cut.jsonl", _press_indexes(events)[12], 2)
    paths = []
    for name, entries in (("whole.mat", whole), ("cut.mat", cut)):
        path = tmp_path / name
        path.write_text(export_match(entries).mat_text, encoding="utf-8")
        paths.append(path)
    seen = gnubg_facts(paths, timeout=300)
    full, gapped = seen[str(paths[0])], seen[str(paths[1])]
    assert len(full) == len(gapped)
    scores = [(g[0][2], g[0][3]) for g in full]
    assert [(g[0][2], g[0][3]) for g in gapped] == scores  # every game starts at its score
    assert [g[0][:2] for g in gapped[1:]] == [g[0][:2] for g in full[1:]]
    assert gapped[0][0][0] == full[0][0][0]  # the gap's game: the same winner
    assert gapped[1:] == full[1:]  # the later games move by move
    assert len(gapped[0]) < len(full[0])  # the gap's game stops at the gap


def test_hakem_run_journals_presses_made_while_it_was_down(tmp_path: Path) -> None:
    """``run_table`` restarted after two presses made while it was down (the clock queued
    them): both journalled as unseen, the director called in the live log (TTB-6.1)."""
    config, time, wire, sim = journal_after_opening(tmp_path)
    SteppedHost(wire, time, sim, (7, 1)).handshake()
    presses_while_down(wire, sim, time, ("left", "right"))
    entries = run_restarted(config, time, SteppedHost(wire, time, sim, None))
    assert [e["press"] for e in entries if e.get("means") == "unseen"] == [[7, 2], [7, 3]]
    gap = [e for e in entries if e.get("about") == "turns_unseen"]
    assert len(gap) == 1 and gap[0]["player"] == 0  # player 1 (right) pressed last
    log = (tmp_path / "live.log").read_text()
    assert "call the director to check it (TTB-6.1)" in log
