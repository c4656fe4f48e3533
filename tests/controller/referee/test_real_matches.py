"""The referee follows real matches end to end (issue 7, "what must be true").

Streams are built from real ``.mat`` matches (``../shared/data/matches``) by
:mod:`tests.controller.referee.tablesim`: noisy and occluded frames synthesised from the exact
positions, planted invalid throws (BG-ROLL-2, BG-OPEN-2) and planted illegal moves that are
corrected once flagged (TTB-4.8). Every planted fault must be flagged before the opponent's
next throw, no legal move may ever be flagged, and the ``.mat`` exported from the journal must
replay to the same moves, cube actions and scores as the source.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from controller.records.mat_export import export_match
from controller.referee.api import TakeSnapshot
from controller.table_layout import TableLayout
from engine.backgammon.mat_reader import parse_mat
from engine.backgammon.mat_replay import replay
from engine.backgammon.rules import DiceSetup
from engine.errors import InvalidInputError
from tests.conftest import SHARED_DATA
from tests.controller.referee.harness import (
    check_expectations,
    complete_matches,
    config_for,
    match_facts,
    read_mat,
    simulate,
)
from tests.controller.referee.tablesim import TableSim

MATCHES = SHARED_DATA / "matches"
# Every 6th complete real match: 23 matches of 5 to 48 points, tournament rules.
SAMPLE = complete_matches(MATCHES)[::6] if MATCHES.is_dir() else []


def test_the_sample_is_large_enough(shared_data: Path) -> None:
    assert len(SAMPLE) >= 20


@pytest.mark.parametrize("path", SAMPLE, ids=[p.stem for p in SAMPLE])
def test_a_real_match_refereed_from_synthetic_frames(path: Path) -> None:
    record, _config, run = simulate(path, seed=len(path.name) * 7919)
    planted = run.stream.planted
    assert planted.illegal or planted.invalid or len(record.games) < 3
    assert check_expectations(run) == []
    flags = [e for e in run.entries if e["type"] == "illegal_move"]
    assert len(flags) == len(planted.illegal)
    for flag in flags:
        assert flag["rule"].startswith(("BG-", "TTB-")) and flag["reason"]
    throws = [e for e in run.entries if e["type"] == "invalid_throw"]
    assert len(throws) == len(planted.invalid)
    assert all(t["rule"] in ("BG-ROLL-2", "BG-OPEN-2") for t in throws)
    assert run.entries[-1]["type"] == "match_end"
    exported = export_match(run.entries)
    source = replay(record)
    again = replay(parse_mat(exported.mat_text))
    assert again.legal and again.complete
    assert match_facts(again) == match_facts(source)
    assert exported.summary["final_score"] == list(source.final_score)


@pytest.mark.parametrize("name", ["match10058734.txt", "match1148400.txt", "match2102483.txt"])
def test_a_pair_of_dice_each_and_the_clock_on_the_other_side(name: str) -> None:
    """BG-EQ-2: with four dice the other player's pair stays on the board; the players sit
    the other way round at the clock and in the picture."""
    record = read_mat(MATCHES / name)
    config = config_for(
        record,
        clock_sides=("right", "left"),
        layout=TableLayout(first_at_bottom=False, home_on_right=False, first_colour="lighter"),
    )
    config = dataclasses.replace(
        config, rules=dataclasses.replace(config.rules, dice=DiceSetup.PAIR_EACH)
    )
    _, _, run = simulate(MATCHES / name, seed=5, config=config, pair_each=True, invalid=0.1)
    assert check_expectations(run) == []
    assert len([e for e in run.entries if e["type"] == "invalid_throw"]) == len(
        run.stream.planted.invalid
    )
    again = replay(parse_mat(export_match(run.entries).mat_text))
    assert match_facts(again) == match_facts(replay(record))


def test_snapshots_are_taken_for_every_flag_under_its_journalled_name() -> None:
    _, _, run = simulate(SAMPLE[0], seed=2, illegal=0.2, invalid=0.2)
    labels = [c.label for out in run.outputs for c in out if isinstance(c, TakeSnapshot)]
    named = [e["snapshot"] for e in run.entries if "snapshot" in e]
    assert labels == named and len(set(labels)) == len(labels) > 5


def test_every_planted_fault_kind_occurs_in_the_sample() -> None:
    """The sample exercises opening-throw and normal-throw faults and illegal moves."""
    kinds = set()
    for path in SAMPLE[:8]:
        _, _, run = simulate(path, seed=len(path.name) * 7919, illegal=0.1, invalid=0.1)
        for entry in run.entries:
            if entry["type"] in ("illegal_move", "invalid_throw", "correction"):
                kinds.add((entry["type"], entry.get("rule", "")))
    assert ("invalid_throw", "BG-OPEN-2") in kinds
    assert ("invalid_throw", "BG-ROLL-2") in kinds
    assert ("correction", "") in kinds
    assert any(k[0] == "illegal_move" for k in kinds)


def test_read_mat_reads_the_bundled_match() -> None:
    record = read_mat(Path(__file__).parents[2] / "data" / "matches" / "match10058734.txt")
    assert record.length == 5


def test_the_table_simulator_refuses_a_beaver() -> None:
    """The referee has no beaver (BG-SCORE-4 money play): the simulator skipped GNU
    Backgammon's ``Beavers => 4`` and played on with the beaver unanswered; it now refuses the
    record, naming the game."""
    data = Path(__file__).parents[2] / "data"
    config = config_for(read_mat(data / "matches" / "match10058734.txt"))
    record = read_mat(data / "mat_gnubg" / "beaver_taken.mat")
    with pytest.raises(InvalidInputError, match=r"game 1: a beaver \('Beavers => 4', line 8\)"):
        TableSim(record, config, 1).run()
