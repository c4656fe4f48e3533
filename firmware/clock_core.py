"""The match clock's rules: time controls, presses, hold and flag fall, pure and integer-only.

Time comes in as milliseconds from the caller (``machine`` ticks on the Pico, a fake clock in
tests); nothing here reads a clock. Backgammon uses a simple (US) delay: each turn the delay
runs first and only then the reserve (TTB-CLOCK-4: e.g. 12 s and 2 minutes per match point).
Mangala uses a plain countdown reset each set (MG-CLOCK-1). A player whose time runs out has
flagged (TTB-CLOCK-3, MG-CLOCK-3); the clock then stops. Runs on MicroPython and CPython.
"""

LEFT = 0
RIGHT = 1
HOLD_BUTTON = 2
NOBODY = -1

MODE_DELAY = "delay"
MODE_COUNTDOWN = "countdown"
MODES = (MODE_DELAY, MODE_COUNTDOWN)

STATE_HOLD = "hold"
STATE_RUN = "run"
STATE_FLAG = "flag"

LOW_TIME_MS = 20000  # below this the display shows tenths of a second
MAX_TIME_MS = 100 * 3600 * 1000

DEFAULT_DELAY_MS = 12000
DEFAULT_RESERVE_MS = 14 * 60000  # 2 minutes per point of a 7-point match
DEFAULT_COUNTDOWN_MS = 15 * 60000  # MG-CLOCK-1


def _check_ms(value: int, name: str) -> int:
    if value < 0 or value > MAX_TIME_MS:
        raise ValueError(name + " out of range: " + str(value) + " ms")
    return value


def _check_side(side: int) -> int:
    if side != LEFT and side != RIGHT:
        raise ValueError("no such side: " + repr(side))
    return side


class Press:
    """One button press as the clock saw it, with the state it left behind."""

    def __init__(
        self,
        number: int,
        button: int,
        t_ms: int,
        running: int,
        times: "list[int]",
        delay_left: int,
        state: str,
    ) -> None:
        self.number = number  # counts every press since power-on, from 1
        self.button = button  # LEFT, RIGHT or HOLD_BUTTON
        self.t_ms = t_ms
        self.running = running  # the side running after the press, or NOBODY
        self.times = times  # [left, right] reserve at the press
        self.delay_left = delay_left
        self.state = state


class ClockCore:
    """Two player times, the side running, hold and flag; every method takes ``now_ms``."""

    def __init__(self, now_ms: int) -> None:
        self.mode = MODE_DELAY
        self.delay_ms = DEFAULT_DELAY_MS
        self.start_ms = [DEFAULT_RESERVE_MS, DEFAULT_RESERVE_MS]
        self.reserve = [DEFAULT_RESERVE_MS, DEFAULT_RESERVE_MS]
        self.state = STATE_HOLD
        self.running = NOBODY
        self.held = NOBODY  # the side a hold interrupted, resumed by the hold button
        self.delay_left = 0
        self.flagged = NOBODY
        self.flag_ms = -1
        self.presses = 0
        self.last_ms = now_ms

    # configuration -------------------------------------------------------------------------
    def configure_delay(self, delay_ms: int, reserve_ms: int, now_ms: int) -> None:
        """Backgammon: ``delay_ms`` per turn, then ``reserve_ms`` each for the match; on hold."""
        _check_ms(delay_ms, "delay")  # both checked first: a refused CFG changes nothing
        _check_ms(reserve_ms, "reserve")
        self.mode = MODE_DELAY
        self.delay_ms = delay_ms
        self.start_ms = [reserve_ms, reserve_ms]
        self.reset(now_ms)

    def configure_countdown(self, total_ms: int, now_ms: int) -> None:
        """Mangala: ``total_ms`` per player per set, no delay (MG-CLOCK-1); on hold."""
        _check_ms(total_ms, "time")
        self.mode = MODE_COUNTDOWN
        self.delay_ms = 0
        self.start_ms = [total_ms, total_ms]
        self.reset(now_ms)

    def reset(self, now_ms: int) -> None:
        """Both times back to the configured start (a new set, MG-CLOCK-1), on hold."""
        self.update(now_ms)
        self.reserve = list(self.start_ms)
        self.state = STATE_HOLD
        self.running = NOBODY
        self.held = NOBODY
        self.delay_left = 0
        self.flagged = NOBODY
        self.flag_ms = -1

    def set_times(self, left_ms: int, right_ms: int, now_ms: int) -> None:
        """Set both reserves (a restarted host restoring them, a director's ruling)."""
        self.update(now_ms)
        self.reserve = [_check_ms(left_ms, "left time"), _check_ms(right_ms, "right time")]
        if self.state == STATE_FLAG and left_ms > 0 and right_ms > 0:
            self.state = STATE_HOLD
            self.flagged = NOBODY
            self.flag_ms = -1

    # running -------------------------------------------------------------------------------
    def _start_turn(self, side: int) -> None:
        self.state = STATE_RUN
        self.running = side
        self.held = NOBODY
        self.delay_left = self.delay_ms

    def start(self, side: int, now_ms: int) -> None:
        """Start ``side``'s time with a fresh turn (its delay first)."""
        _check_side(side)
        self.update(now_ms)
        if self.state == STATE_FLAG:
            raise ValueError("the clock has flagged; set the times first")
        self._start_turn(side)

    def hold(self, now_ms: int) -> None:
        """Stop both times, remembering the turn that was running (TTB-CLOCK-4, TTB-4.5)."""
        self.update(now_ms)
        if self.state == STATE_RUN:
            self.held = self.running
            self.running = NOBODY
            self.state = STATE_HOLD

    def resume(self, now_ms: int) -> bool:
        """Continue the held turn where it stopped (its remaining delay kept); False if none."""
        self.update(now_ms)
        if self.state != STATE_HOLD or self.held == NOBODY:
            return False
        self.state = STATE_RUN
        self.running = self.held
        self.held = NOBODY
        return True

    def press(self, button: int, now_ms: int) -> Press:
        """A player pressed a button. Pressing on one's own turn starts the opponent's turn;
        on hold, a player's button starts the opponent's time (BG-OPEN-3, TTB-4.5); the hold
        button holds or resumes. Presses after a flag change nothing but are still reported."""
        if button != HOLD_BUTTON:
            _check_side(button)
        self.update(now_ms)
        self.presses += 1
        if self.state == STATE_RUN:
            if button == self.running:
                self._start_turn(1 - button)
            elif button == HOLD_BUTTON:
                self.hold(now_ms)
        elif self.state == STATE_HOLD:
            if button == HOLD_BUTTON:
                self.resume(now_ms)
            else:
                self._start_turn(1 - button)
        return Press(
            self.presses,
            button,
            now_ms,
            self.running,
            list(self.reserve),
            self.delay_left,
            self.state,
        )

    def update(self, now_ms: int) -> int:
        """Let time pass up to ``now_ms``; return the side that just flagged, or NOBODY."""
        elapsed = now_ms - self.last_ms
        if elapsed <= 0:
            return NOBODY
        self.last_ms = now_ms
        if self.state != STATE_RUN:
            return NOBODY
        side = self.running
        used = elapsed if elapsed < self.delay_left else self.delay_left
        self.delay_left -= used
        elapsed -= used
        if elapsed == 0:
            return NOBODY
        if elapsed < self.reserve[side]:
            self.reserve[side] -= elapsed
            return NOBODY
        self.flag_ms = now_ms - (elapsed - self.reserve[side])
        self.reserve[side] = 0
        self.state = STATE_FLAG
        self.flagged = side
        self.running = NOBODY
        return side

    def times(self, now_ms: int) -> "list[int]":
        """Both reserves at ``now_ms`` [left, right] (the time shown on the displays)."""
        self.update(now_ms)
        return list(self.reserve)


def format_time(ms: int) -> str:
    """The display text for a time: ``MM:SS``, from 100 minutes ``2H30`` (hours and minutes),
    and tenths ``SS.t`` below 20 s so a player in time trouble sees it run. Rounded up, so
    zero shows only at the flag."""
    if ms < 0:
        ms = 0
    if ms < LOW_TIME_MS:
        tenths = (ms + 99) // 100
        return _pad2(tenths // 10) + "." + str(tenths % 10)
    seconds = (ms + 999) // 1000
    minutes = seconds // 60
    if minutes < 100:
        return _pad2(minutes) + ":" + _zero2(seconds % 60)
    hours = minutes // 60
    if hours < 10:
        return str(hours) + "H" + _zero2(minutes % 60)
    return (" " + str(hours))[-3:] + "H" if hours < 100 else "99H"  # 100 h is the maximum


def _pad2(n: int) -> str:
    return (" " + str(n))[-2:] if n < 10 else str(n)


def _zero2(n: int) -> str:
    return ("0" + str(n))[-2:]


class Debouncer:
    """A button read by polling: a press counts at its first edge, and the button must have
    been released for ``lockout_ms`` before the next press counts (contact bounce)."""

    def __init__(self, lockout_ms: int = 40) -> None:
        self.lockout_ms = lockout_ms
        self.down = False
        self.changed_ms = -(1 << 30)

    def sample(self, pressed: bool, now_ms: int) -> bool:
        """Feed one reading; True exactly when a new press starts (timestamp: ``now_ms``)."""
        if pressed == self.down:
            return False
        if now_ms - self.changed_ms < self.lockout_ms:
            return False
        self.down = pressed
        self.changed_ms = now_ms
        return pressed
