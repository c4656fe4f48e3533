"""Whose time runs on the clock, folded from the journal (``ClockRun``): a restarted table holds
a clock that ran on only where the journal surely leaves it on hold, never after a press
nobody saw (which left it unknown)."""

from __future__ import annotations

from controller.referee.clock_run import ClockRun


def _run(*entries: tuple[str, dict[str, object]]) -> ClockRun:
    run = ClockRun()
    for kind, fields in entries:
        run.fold(kind, fields)
    return run


def test_between_games_and_after_the_hold_button_the_clock_is_on_hold() -> None:
    assert _run(("game_start", {})).on_hold
    pressed = ("clock", {"event": "press", "player": 0, "side": "left"})
    assert not _run(("game_start", {}), pressed).on_hold
    assert _run(pressed, ("clock", {"event": "hold"})).on_hold
    assert _run(pressed, ("game_end", {})).on_hold


def test_a_press_nobody_saw_leaves_it_unknown_until_a_press_is_seen() -> None:
    lost = ("clock", {"event": "press", "means": "unseen", "press": [7, 9]})
    assert not _run(("game_start", {}), lost).on_hold
    assert not _run(lost, ("clock", {"event": "hold"})).on_hold  # held or resumed: unknown
    seen = ("clock", {"event": "press", "player": 1, "side": "right"})
    run = _run(lost, seen)
    assert (run.running, run.known, run.on_hold) == (0, True, False)
