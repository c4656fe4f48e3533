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
from engine.mangala.record import RecordCheck, check_record, parse_record
from tests.controller.mangala.test_demo_flow import run

SIDES = ("a", "b")


def demo_round(folder: Path, *, illegal: int = 2, seed: int = 3) -> list[dict[str, Any]]:
    """Play a whole round into ``folder`` (journal, snapshots, the table's ``round.txt``) and
    return the journal's entries."""
    folder.mkdir(parents=True, exist_ok=True)
    demo = run(folder, illegal, seed)
    assert demo.referee.over
    return read_journal(folder / "journal.jsonl").entries


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
