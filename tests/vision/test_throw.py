"""Frame-to-frame throws (BG-ROLL-2, BG-MOVE-8): settled, rolling, picked up, nudged."""

from __future__ import annotations

import numpy as np
import pytest

from vision.throw import DieSighting, ThrowTracker, landing_problems


def die(pips: int, x: float, y: float, **kw: object) -> DieSighting:
    return DieSighting(pips, x, y, **kw)  # type: ignore[arg-type]


def rolling_frames(rng: np.random.Generator, n: int) -> list[list[DieSighting]]:
    """Dice tumbling: faces and places change every frame."""
    return [[die(int(rng.integers(1, 7)), float(rng.uniform(300, 500)),
                 float(rng.uniform(50, 450))) for _ in range(2)] for _ in range(n)]


def test_settles_only_after_steady_frames() -> None:
    tracker = ThrowTracker(settle_frames=3)
    rng = np.random.default_rng(1)
    for frame in rolling_frames(rng, 6):
        assert tracker.update(frame) is None
    rest = [die(5, 400.0, 120.0), die(3, 450.0, 300.0)]
    assert tracker.update(rest) is None
    assert tracker.rolling
    assert tracker.update(rest) is None
    event = tracker.update(rest)
    assert event is not None and event.kind == "settled"
    assert sorted(d.pips for d in event.dice) == [3, 5]
    # read once: more still frames say nothing new
    assert tracker.update(rest) is None
    assert tracker.settled is not None


def test_reading_jitter_is_not_motion() -> None:
    tracker = ThrowTracker(settle_frames=3, still_mm=2.5)
    events = [tracker.update([die(6, 400.0 + j, 120.0 - j), die(2, 450.0, 300.0 + j)])
              for j in (0.0, 0.8, -0.6)]
    assert events[-1] is not None and events[-1].kind == "settled"


def test_one_die_is_not_a_throw_of_two() -> None:
    tracker = ThrowTracker(settle_frames=2)
    for _ in range(5):
        assert tracker.update([die(4, 400.0, 100.0)]) is None


def test_opening_throw_settles_with_one_die() -> None:
    tracker = ThrowTracker(dice_expected=1, settle_frames=2)
    tracker.update([die(4, 100.0, 100.0)])
    event = tracker.update([die(4, 100.0, 100.0)])
    assert event is not None and event.kind == "settled"


def test_picked_up_after_settling() -> None:
    tracker = ThrowTracker(settle_frames=2)
    rest = [die(5, 400.0, 120.0), die(3, 450.0, 300.0)]
    tracker.update(rest)
    assert tracker.update(rest) is not None
    event = tracker.update([])
    assert event is not None and event.kind == "picked-up"
    assert tracker.settled is None


def test_nudged_die_is_reported_with_bg_move_8() -> None:
    tracker = ThrowTracker(settle_frames=2, nudge_mm=5.0)
    rest = [die(5, 400.0, 120.0), die(3, 450.0, 300.0)]
    for _ in range(2):
        tracker.update(rest)
    pushed = [die(5, 400.0, 120.0), die(3, 470.0, 310.0)]
    assert tracker.update(pushed) is None  # still moving
    event = tracker.update(pushed)
    assert event is not None and event.kind == "nudged" and event.rule == "BG-MOVE-8"
    assert [d.pips for d in event.dice] == [3]


def test_turned_die_is_reported() -> None:
    tracker = ThrowTracker(settle_frames=2)
    rest = [die(5, 400.0, 120.0), die(3, 450.0, 300.0)]
    for _ in range(2):
        tracker.update(rest)
    turned = [die(5, 400.0, 120.0), die(4, 450.0, 300.0)]
    tracker.update(turned)
    event = tracker.update(turned)
    assert event is not None and event.kind == "nudged" and "turned" in event.reason


def test_bad_settings_refused() -> None:
    with pytest.raises(ValueError, match="dice_expected 3"):
        ThrowTracker(dice_expected=3)
    with pytest.raises(ValueError, match="settle_frames 0"):
        ThrowTracker(settle_frames=0)


def test_valid_landing_has_no_problems() -> None:
    dice = [die(5, 400.0, 120.0, half="right"), die(3, 450.0, 300.0, half="right")]
    assert landing_problems(dice, "right") == []


@pytest.mark.parametrize(
    ("second", "words"),
    [
        (die(3, 100.0, 300.0, half="left"), "outside the thrower's right half"),
        (die(3, 450.0, 300.0, half="right", flat=False), "cocked"),
        (die(3, 450.0, 300.0, half="right", on_checker=True), "on a checker"),
        (die(3, -40.0, 300.0, half=None), "off the board"),
        (die(3, 403.0, 124.0, half="right"), "on the other"),
    ],
)
def test_invalid_landings_cite_bg_roll_2(second: DieSighting, words: str) -> None:
    dice = [die(5, 400.0, 120.0, half="right"), second]
    problems = landing_problems(dice, "right")
    assert problems and all(rule == "BG-ROLL-2" for rule, _ in problems)
    assert any(words in reason for _, reason in problems)
