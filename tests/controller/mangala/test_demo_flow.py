"""The Mangala demo's flow (players, clock presses, planted illegal sowings, sweeps, set-ups,
records, restart) on cheap pictures read by an oracle: fast, and independent of how well the
stone reader counts. The rendered round with the real reader is ``test_demo_rendered``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from controller.cli import main
from controller.mangala.demo import MangalaCamera, MangalaDemo, MangalaDemoOptions
from controller.mangala.records import RECORD_NAME
from controller.mangala.script import build_round, mistakes
from controller.records.journal import read_journal
from engine.mangala.judge import judge
from engine.mangala.position import Position
from engine.mangala.record import check_record, parse_record
from engine.mangala.sowing import play
from tests.controller.mangala.fake_reader import OracleReader


class FlatCamera(MangalaCamera):
    """A picture per scene that costs nothing to draw (a flat grey that changes per scene)."""

    def board(self, cells: tuple[int, ...], scene: int) -> np.ndarray:
        key = (cells, scene)
        image = self._cache.get(key)
        if image is None:
            if len(self._cache) > 8:
                self._cache.clear()
            image = np.full((self.size[1], self.size[0], 3), 60 + (scene * 37) % 150, np.uint8)
            self._cache[key] = image
        return image


def run(out: Path, illegal: int, seed: int, stop_after: int | None = None) -> MangalaDemo:
    options = MangalaDemoOptions(out=out, illegal=illegal, seed=seed, size=(320, 180),
                                 stop_after=stop_after)
    demo = MangalaDemo(options, reader=OracleReader)
    demo.camera.__class__ = FlatCamera
    demo.run()
    demo.close()
    return demo


@pytest.mark.parametrize(("seed", "illegal"), [(0, 2), (5, 4)])
def test_planted_illegal_sowings_are_flagged_and_corrected(tmp_path: Path, seed: int,
                                                           illegal: int) -> None:
    demo = run(tmp_path, illegal, seed)
    s = demo.stats
    assert s.planted_illegal == illegal and s.planted_flagged == illegal
    assert not s.planted_missed and not s.unplanted_flags
    entries = read_journal(tmp_path / "journal.jsonl").entries
    flags = [e for e in entries if e["type"] == "illegal_move"]
    assert len(flags) == illegal and all(f["rule"].startswith("MG-") for f in flags)
    for end in (e for e in entries if e["type"] == "game_end"):
        assert sum(end["stores"]) == 48 and end["stores_checked"]  # MG-4, after every set
    check = check_record(parse_record((tmp_path / RECORD_NAME).read_text()))
    assert check.legal and check.round.over
    assert check.moves == demo.script.sowings
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["winner"] == check.round.winner


def test_the_demo_resumes_from_its_journal(tmp_path: Path) -> None:
    first = run(tmp_path, 2, 3, stop_after=60)
    assert not first.referee.over
    second = run(tmp_path, 2, 3)
    assert second.resumed and second.referee.over
    entries = read_journal(tmp_path / "journal.jsonl").entries
    assert sum(1 for e in entries if e["type"] == "match_start") == 1
    check = check_record(parse_record((tmp_path / RECORD_NAME).read_text()))
    assert check.legal and check.moves == second.script.sowings


def test_planted_mistakes_are_never_legal_results() -> None:
    script = build_round(7, illegal=6)
    planted = [w for s in script.sets for w in s if w.illegal is not None]
    assert len(planted) == 6
    for w in planted:
        assert w.illegal is not None and sum(w.illegal) == 48
        verdict = judge(w.before, Position.from_board(w.illegal, None))
        assert not verdict.legal and verdict.rule and verdict.rule.startswith("MG-")
    position = Position.initial("a")
    for pit in range(1, 7):
        boards = {b for _, b in mistakes(position, pit)}
        assert play(position, pit).position.board() not in boards


def test_cli_refuses_backgammon_options_for_mangala(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["demo", "--game", "mangala", "--invalid-throws", "1"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--invalid-throws" in err
