"""The Mangala referee's evaluation script runs and prints its figures (two rendered turns)."""

from __future__ import annotations

import pytest

from tests.eval.mangala_referee import main


def test_the_evaluation_prints_the_pit_identification(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    assert main(["--turns", "2", "--illegal", "1", "--seed0", "123"]) == 0
    out = capsys.readouterr().out
    assert "pit identified" in out and "/2 = " in out and "flagged as illegal" in out
