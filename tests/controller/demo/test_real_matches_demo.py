"""Issue 7 end to end on real matches through ``hakem demo``'s whole pipeline: rendered frames,
stillness gate, board/dice/cube readers, referee, simulated clock and LEDs, with planted illegal
moves and invalid throws (``tests.eval.referee_matches``).

For each match: GNU Backgammon imports the written ``match.mat`` exactly like the source match
(every move with its dice, every cube action, every result and score); every planted illegal
move is flagged before the opponent's next throw and corrected (TTB-4.8); no legal move is
flagged; no planted throw into the wrong half or onto a checker counts as a valid roll
(BG-ROLL-2); the match never stalls.

CI plays the first ``HAKEM_DEMO_MATCHES`` (default 6) of the evaluation's 20 shortest complete
real matches, to stay within the suite's time budget; ``python -m tests.eval.referee_matches``
plays all 20 (and cocked dice too, whose recall is the dice reader's and is printed there).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.eval.referee_matches import (
    MATCHES,
    MatchResult,
    compare_with_gnubg,
    evaluate,
    run_match,
    table,
)

pytestmark = [pytest.mark.slow, pytest.mark.gnubg]

COUNT = int(os.environ.get("HAKEM_DEMO_MATCHES", "6"))
KINDS = ("wrong-half", "on-checker")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory, shared_data: Path,
            gnubg: str) -> list[MatchResult]:
    folder = tmp_path_factory.mktemp("matches")
    out = evaluate(MATCHES[:COUNT], folder=folder, illegal=2, invalid=2, kinds=KINDS)
    print(table(out))
    return out


def test_every_match_is_played_to_its_end(results: list[MatchResult]) -> None:
    assert len(results) == COUNT
    assert [r.name for r in results if r.stalled] == [], [r.stalled for r in results]


def test_gnubg_reads_each_record_like_its_source(results: list[MatchResult]) -> None:
    assert [r.name for r in results if r.mat_equal is not True] == []


def test_every_planted_illegal_move_is_flagged_in_time(results: list[MatchResult]) -> None:
    for r in results:
        assert r.planted_illegal == 2 and r.flagged_illegal == 2, r.name
        assert r.illegal_in_time, r.name


def test_no_legal_move_is_ever_flagged(results: list[MatchResult]) -> None:
    assert [(r.name, r.legal_flagged) for r in results if r.legal_flagged] == []


def test_no_planted_invalid_throw_counts_as_a_roll(results: list[MatchResult]) -> None:
    """A throw into the wrong half or onto a checker is never taken for a valid roll: it is
    flagged, or (when the dice reader reads no die of it surely) not judged at all and thrown
    again. How many were flagged, and the "throw again" flags nobody planted, are the dice
    reader's figures: printed by ``tests.eval.referee_matches``."""
    accepted = {r.name: dict(r.accepted_invalid) for r in results if r.accepted_invalid}
    assert accepted == {}
    assert sum(sum(r.planted_invalid.values()) for r in results) == 2 * COUNT


def test_recordings_asked_for_without_a_folder_to_keep_them_are_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``--record`` alone would record every match into a folder removed at the end."""
    from tests.eval.referee_matches import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--record", "--match", "1", "--no-gnubg"])
    assert exit_info.value.code == 2
    assert "--out" in capsys.readouterr().err


def test_matches_with_a_resignation_are_played(tmp_path: Path, shared_data: Path,
                                               gnubg: str) -> None:
    """A game that ends by resignation (65 of the real matches; the demo refused them): the
    director enters it (``resign``), as at a real table, and GNU Backgammon imports the
    record like the source."""
    name = "match1864504.txt"
    out = [run_match(shared_data / "matches" / name, tmp_path / "match1864504", seed=5,
                     illegal=1, invalid=1, kinds=KINDS)]
    compare_with_gnubg(out, tmp_path)
    assert not out[0].stalled and out[0].mat_equal is True
    journal = (tmp_path / "match1864504" / "journal.jsonl").read_text()
    assert '"action":"resign"' in journal.replace(" ", "")
