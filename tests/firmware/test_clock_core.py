"""Every time-control rule of the pure clock core, on a fake time source (integers, no sleeping)."""

from __future__ import annotations

import pytest

from firmware import clock_core as cc
from firmware.clock_core import HOLD_BUTTON, LEFT, NOBODY, RIGHT, ClockCore, Debouncer, format_time


def backgammon(delay: int = 12000, reserve: int = 120000) -> ClockCore:
    c = ClockCore(0)
    c.configure_delay(delay, reserve, 0)
    return c


def test_delay_runs_before_reserve_each_turn() -> None:
    """TTB-CLOCK-4: the delay is spent first each turn; only what goes beyond it costs reserve."""
    c = backgammon()
    c.start(LEFT, 1000)
    assert c.times(1000 + 11999) == [120000, 120000]
    assert c.times(1000 + 12000) == [120000, 120000]
    assert c.times(1000 + 15000) == [117000, 120000]
    c.press(LEFT, 16000)  # a 15 s turn: 12 s delay + 3 s reserve
    assert c.times(16000) == [117000, 120000]
    assert c.running == RIGHT and c.delay_left == 12000
    c.press(RIGHT, 16000 + 5000)  # inside the delay: no reserve used
    assert c.times(21000) == [117000, 120000]
    c.press(LEFT, 21000 + 30000)  # a fresh delay for the new turn
    assert c.times(51000) == [99000, 120000]


def test_unused_delay_is_not_carried_over() -> None:
    c = backgammon()
    c.start(LEFT, 0)
    c.press(LEFT, 1000)
    c.press(RIGHT, 2000)
    assert c.delay_left == 12000
    assert c.times(2000 + 13000) == [119000, 120000]


def test_countdown_mode_has_no_delay_and_resets_each_set() -> None:
    """MG-CLOCK-1: 15 minutes per player per set, reset at the start of each set."""
    c = ClockCore(0)
    c.configure_countdown(15 * 60000, 0)
    assert c.mode == cc.MODE_COUNTDOWN
    c.start(LEFT, 0)
    c.press(LEFT, 40000)
    c.press(RIGHT, 100000)
    assert c.times(100000) == [900000 - 40000, 900000 - 60000]
    c.reset(100000)  # next set
    assert c.times(200000) == [900000, 900000]
    assert c.state == cc.STATE_HOLD and c.running == NOBODY


def test_opening_press_starts_the_opponent() -> None:
    """BG-OPEN-3: on hold, the smaller-die player's press starts the opponent's time."""
    c = backgammon()
    p = c.press(RIGHT, 500)
    assert p.running == LEFT and c.state == cc.STATE_RUN
    assert c.times(500 + 20000) == [112000, 120000]


def test_press_by_the_waiting_player_changes_nothing() -> None:
    """TTB-CLOCK-2: only the player on turn ends the turn by pressing."""
    c = backgammon()
    c.start(LEFT, 0)
    p = c.press(RIGHT, 3000)
    assert p.running == LEFT and p.number == 1
    assert c.delay_left == 9000


def test_hold_stops_both_and_resume_keeps_the_turn() -> None:
    """TTB-CLOCK-4 / TTB-4.5: hold between games and during a correction; resuming continues
    the same turn with the delay it had left."""
    c = backgammon()
    c.start(LEFT, 0)
    c.hold(5000)
    assert c.state == cc.STATE_HOLD and c.running == NOBODY
    assert c.times(500000) == [120000, 120000]
    assert c.resume(500000)
    assert c.running == LEFT and c.delay_left == 7000
    assert c.times(500000 + 10000) == [117000, 120000]
    assert not ClockCore(0).resume(0)


def test_hold_button_toggles() -> None:
    c = backgammon()
    c.start(RIGHT, 0)
    p = c.press(HOLD_BUTTON, 1000)
    assert p.state == cc.STATE_HOLD and p.running == NOBODY
    p = c.press(HOLD_BUTTON, 9000)
    assert p.state == cc.STATE_RUN and p.running == RIGHT and p.delay_left == 11000


def test_correction_after_illegal_move() -> None:
    """TTB-4.5: the receiving player holds, the move is corrected, then their press restarts
    the offender's time."""
    c = backgammon()
    c.start(LEFT, 0)
    c.press(LEFT, 4000)  # illegal move, pressed
    c.press(HOLD_BUTTON, 5000)
    c.press(RIGHT, 60000)  # the offender's time runs again
    assert c.running == LEFT
    assert c.times(60000) == [120000, 120000]


def test_flag_fall_stops_the_clock_at_the_exact_moment() -> None:
    """TTB-CLOCK-3 / MG-CLOCK-3: time out; the flag time is exact, not the polling time."""
    c = backgammon(delay=12000, reserve=30000)
    c.start(LEFT, 0)
    assert c.update(41000) == NOBODY
    assert c.update(45000) == LEFT
    assert c.flag_ms == 42000
    assert c.state == cc.STATE_FLAG and c.flagged == LEFT and c.running == NOBODY
    assert c.times(99999) == [0, 30000]
    p = c.press(LEFT, 100000)
    assert p.state == cc.STATE_FLAG and p.running == NOBODY
    assert c.update(200000) == NOBODY
    with pytest.raises(ValueError):
        c.start(RIGHT, 200000)
    c.set_times(1000, 1000, 200000)
    assert c.state == cc.STATE_HOLD and c.flagged == NOBODY


def test_flag_is_seen_before_a_late_press() -> None:
    c = ClockCore(0)
    c.configure_countdown(10000, 0)
    c.start(RIGHT, 0)
    p = c.press(RIGHT, 10001)
    assert p.state == cc.STATE_FLAG and c.flagged == RIGHT and c.flag_ms == 10000


def test_low_time_display_shows_tenths_under_20_seconds() -> None:
    assert format_time(120000) == " 2:00"
    assert format_time(20000) == " 0:20"
    assert format_time(19999) == "20.0"
    assert format_time(19901) == "20.0"
    assert format_time(19900) == "19.9"
    assert format_time(5301) == " 5.4"
    assert format_time(1) == " 0.1"
    assert format_time(0) == " 0.0"
    assert format_time(59 * 60000 + 1) == "59:01"
    assert format_time(99 * 60000 + 59000) == "99:59"
    assert format_time(150 * 60000) == "2H30"  # hours and minutes from 100 minutes
    assert format_time(12 * 3600000) == " 12H"


def test_low_time_display_follows_the_running_clock() -> None:
    c = ClockCore(0)
    c.configure_countdown(25000, 0)
    c.start(LEFT, 0)
    assert format_time(c.times(4000)[0]) == " 0:21"
    assert format_time(c.times(5000)[0]) == " 0:20"
    assert format_time(c.times(5001)[0]) == "20.0"
    assert format_time(c.times(5150)[0]) == "19.9"


def test_press_numbers_count_every_press() -> None:
    c = backgammon()
    numbers = [c.press(b, t).number for t, b in enumerate([RIGHT, LEFT, LEFT, HOLD_BUTTON])]
    assert numbers == [1, 2, 3, 4]


def test_bad_values_are_refused() -> None:
    c = ClockCore(0)
    with pytest.raises(ValueError):
        c.configure_delay(-1, 1000, 0)
    with pytest.raises(ValueError):
        c.start(5, 0)
    with pytest.raises(ValueError):
        c.press(7, 0)


def test_time_going_backwards_is_ignored() -> None:
    c = backgammon(delay=0)
    c.start(LEFT, 10000)
    assert c.times(15000) == [115000, 120000]
    assert c.times(12000) == [115000, 120000]


def test_debouncer_counts_one_press_per_bounce_burst() -> None:
    d = Debouncer(lockout_ms=40)
    levels = [
        (0, True),
        (1, False),
        (2, True),
        (3, False),
        (5, True),
        (60, True),
        (100, False),
        (101, True),
        (102, False),
        (200, True),
    ]
    presses = [t for t, level in levels if d.sample(level, t)]
    assert presses == [0, 200]
