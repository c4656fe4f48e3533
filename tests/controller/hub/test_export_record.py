"""The hub's match-record download is ``hakem export``'s record when the hub holds the
journal entries: a move the director rejected (TTB-4.9) or a position the director set gives
the same .mat, which ``hakem mat check`` replays; without the entries, the detail's."""

from __future__ import annotations

from typing import Any

import pytest

from controller.hub.contract import MatchState
from controller.hub.export import match_record
from controller.records.mat_export import export_match
from engine.backgammon.mat_reader import parse_mat
from engine.backgammon.mat_replay import replay
from tests.controller.referee.interventions import journal_of


def _folded(name: str) -> tuple[MatchState, list[dict[str, Any]]]:
    entries = [{**e, "seq": i} for i, e in enumerate(journal_of(name), 1)]
    state = MatchState("m1")
    for entry in entries:
        state.apply(entry)
    return state, entries


@pytest.mark.parametrize("name", ["director_rejects", "set_position", "set_position_at_start"])
def test_the_download_is_the_exported_record(name: str) -> None:
    state, entries = _folded(name)
    text, _, file_name = match_record(state, "7", entries)
    assert file_name == "table-7.mat" and text == export_match(entries).mat_text
    result = replay(parse_mat(text))
    assert result.legal and result.problem is None


def test_without_the_match_start_the_download_is_the_details() -> None:
    state, entries = _folded("played_out")
    text, _, file_name = match_record(state, "7", entries[1:])
    assert file_name == "table-7.mat" and text == match_record(state, "7")[0]
