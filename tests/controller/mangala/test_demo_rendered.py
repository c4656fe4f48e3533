"""A whole rendered Mangala round refereed end to end by the full pipeline: every board drawn by
``vision.mangala.render``, read by ``vision.mangala.reader`` through the stillness gate, judged by
the referee on the simulated clock, with planted illegal sowings. Each planted one is flagged,
nothing else is, and the stores hold all 48 stones after every set (MG-4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.mangala.demo import MangalaDemo, MangalaDemoOptions
from controller.mangala.records import RECORD_NAME
from controller.records.journal import read_journal
from engine.mangala.record_check import check_record
from engine.mangala.record_reader import parse_record

SHORT_ROUND_SEED = 199  # its scripted round is 40 sowings over 2 sets: a short CI run


@pytest.mark.slow
def test_a_rendered_round_with_planted_illegal_sowings(tmp_path: Path) -> None:
    options = MangalaDemoOptions(out=tmp_path, illegal=2, seed=SHORT_ROUND_SEED)
    with MangalaDemo(options) as demo:
        assert demo.script.sowings <= 45 and demo.script.planted == 2
        stats = demo.run()
    assert stats.planted_flagged == 2 and not stats.planted_missed
    entries = read_journal(tmp_path / "journal.jsonl").entries
    flags = [e for e in entries if e["type"] == "illegal_move"]
    assert len(flags) == 2 and all(f["rule"].startswith("MG-") and f["reason"] for f in flags)
    # none false: a legal sowing is never flagged; one the reader cannot make out is "cannot
    # read" (the director then enters it), which the stone reader should keep rare
    assert all(u["got"]["type"] == "cannot_read" for u in stats.unplanted_flags)
    assert stats.director_accepts <= 2
    ends = [e for e in entries if e["type"] == "game_end"]
    assert len(ends) == len(demo.script.sets)
    for end in ends:
        assert sum(end["stores"]) == 48 and end["stores_checked"] is True
    assert len(list((tmp_path / "snapshots").glob("illegal-*.jpg"))) == 2  # the evidence
    check = check_record(parse_record((tmp_path / RECORD_NAME).read_text()))
    assert check.legal and check.round.over and check.moves == demo.script.sowings
