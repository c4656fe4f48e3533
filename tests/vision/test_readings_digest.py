"""The readings digest (``tests.bench.digest``) that speed work is checked against: the same
inputs give the same digest, read twice in one process (the readers' caches change nothing),
and a reading that changes changes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.digest import digest, readings, rounded


def test_reading_the_set_twice_gives_the_same_digest(shared_data: Path) -> None:
    photos = shared_data / "dice_photos" / "Valid"
    first = readings(2, 3, 2, None, photos)
    second = readings(2, 3, 2, None, photos)
    assert [len(first[k]) for k in ("synthetic", "stream", "photos")] == [2, 6, 2]
    assert any(dice for _seed, dice, _cube in first["synthetic"])  # dice were read
    assert digest(first) == digest(second)


def test_a_changed_reading_changes_the_digest_a_last_bit_does_not() -> None:
    die = {"pips": 3, "confidence": 0.91234, "centre": [10.0, 20.5]}
    base = digest(rounded([die]))
    assert digest(rounded([{**die, "confidence": 0.91234000001}])) == base
    assert digest(rounded([{**die, "confidence": 0.9125}])) != base
    assert digest(rounded([{**die, "pips": 4}])) != base


def test_missing_photos_stop_the_digest_rather_than_change_it(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no dice photos at"):
        readings(0, 0, 1, None, tmp_path / "nowhere")
