"""Mangala rounds as a real Mangala table journals them, for the hub's tests: the Mangala demo's
simulated players in front of the real referee, clock and journal (on cheap pictures read by
an oracle, as ``tests.controller.mangala.test_demo_flow`` runs it), seeded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.hub.publisher import match_id_of
from controller.mangala.records import RECORD_NAME
from controller.records.journal import read_journal
from controller.referee.api import DirectorAction, FlagFell, MotionSeen
from engine.mangala.record_check import check_record
from engine.mangala.record_reader import parse_record
from engine.mangala.record_result import RecordCheck
from engine.mangala.sowing import play
from tests.controller.mangala.harness import Table
from tests.controller.mangala.test_demo_flow import run

SIDES = ("a", "b")


def demo_round(folder: Path, *, illegal: int = 2, seed: int = 3) -> list[dict[str, Any]]:
    """Play a whole round into ``folder`` (journal, snapshots, the table's ``round.txt``) and
    return the journal's entries."""
    folder.mkdir(parents=True, exist_ok=True)
    demo = run(folder, illegal, seed)
    assert demo.referee.over
    return read_journal(folder / "journal.jsonl").entries


def drawn_round(folder: Path) -> list[dict[str, Any]]:
    """The journal of a round of three drawn sets (0.5 round points each, MG-T-1) at a Mangala
    table: in each set the director sets a board where the player to move has half the stones
    in the store, and that player's time runs out (a drawn set, MG-CLOCK-3)."""
    table = Table(folder)
    try:
        for _ in range(3):
            position = table.referee.position
            assert position is not None and position.to_move is not None
            table.show(position.board())  # the set-up seen: the starter's clock runs
            mover, other = position.to_move, "b" if position.to_move == "a" else "a"
            table.send(DirectorAction(table.time.now_ms(), "set_position", {"position": {
                mover: [4, 4, 4, 4, 4, 0], f"{mover}_store": 24, other: [0, 0, 1, 1, 1, 1],
                f"{other}_store": 0, "to_move": mover}}, "td"))
            table.tick(15 * 60 * 1000 + 2_000)
        assert table.referee.over
        return list(table.journal.entries)
    finally:
        table.close()


def flag_waiting_round(folder: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A set in which b's flag falls while a's press awaits its verdict (``flag_fell``,
    MG-CLOCK-2), then a's sowing is read and b's ``time_out`` follows: the journal's entries up
    to the flag, and all of them."""
    table = Table(folder)
    try:
        position = table.referee.position
        assert position is not None
        table.show(position.board())  # the set-up seen: a's clock runs
        table.send(MotionSeen(table.time.now_ms()))
        table.press("a")
        table.tick(300)
        table.send(FlagFell(table.time.now_ms(), table.referee.side_of("b")))
        waiting = list(table.journal.entries)
        table.show(play(position, 1).position.board())
        return waiting, list(table.journal.entries)
    finally:
        table.close()


def table_record(folder: Path) -> str:
    """The round record the table itself wrote."""
    return (folder / RECORD_NAME).read_text(encoding="utf-8")


def replayed(folder: Path) -> RecordCheck:
    """The engine's replay of the table's round record: the oracle for scores and winners."""
    check = check_record(parse_record(table_record(folder)))
    assert check.legal
    return check


def events(round_entries: list[dict[str, Any]], entries: list[dict[str, Any]]) -> list[bytes]:
    """Event messages of some of a round's ``entries``, as its table's publisher sends them."""
    match = match_id_of(round_entries[0])
    return [json.dumps({"v": 1, "match": match, "entry": e}).encode() for e in entries]
