"""``hakem replay`` of a demo whose director sent a request (``hakem director``): the recording
keeps the request's id, so the replay writes the demo's journal, the director's entry
included; a recording from before the id was kept still replays."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controller.demo.table import DemoOptions, DemoTable
from controller.records.journal import read_journal
from controller.referee.api import DirectorAction
from controller.runtime.director_inbox import post_request
from controller.runtime.recording import Recorder, Recording
from controller.runtime.replay import replay
from tests.controller.demo.test_demo import MATCH


def test_a_replay_of_a_demo_with_a_director_request_writes_the_same_journal(
        tmp_path: Path) -> None:
    out = tmp_path / "demo"
    posted: list[str] = []

    def director(entries: Sequence[dict[str, Any]]) -> None:
        if not posted and sum(e["type"] == "move" for e in entries) >= 2:
            posted.append(post_request(out, "end_match", {"winner": 1}, "Ayse Kaya").id)

    with open(os.devnull, "w") as quiet, DemoTable(DemoOptions(match=MATCH, out=out, seed=3),
                                                   log=quiet) as table:
        table.before_frame = director
        table.run()
    ours = read_journal(out / "journal.jsonl").entries
    [directed] = [e for e in ours if e["type"] == "director"]
    assert directed["request"] == posted[0]
    again = read_journal(replay(out / "recording", tmp_path / "again", quiet=True).journal)

    def strip(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k != "time"} for e in entries]

    assert strip(again.entries) == strip(ours)


def test_a_recording_without_request_ids_still_replays(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "rec", {"config": {}})
    recorder("event", 100, DirectorAction(100, "note", {"text": "a"}, "td", request="r1"))
    recorder.close()
    with (tmp_path / "rec" / "timeline.jsonl").open("a") as timeline:
        old = {"t": 200, "director": {"action": "note", "args": {"text": "b"}, "director": "td"}}
        timeline.write(json.dumps(old) + "\n")  # as written before the id was kept
    steps = list(Recording(tmp_path / "rec").steps())
    assert [s.director for s in steps] == [
        DirectorAction(100, "note", {"text": "a"}, "td", request="r1"),
        DirectorAction(200, "note", {"text": "b"}, "td")]
