"""Presses the clock counted but the journal never got, recovered after a restart.

The clock numbers every press since it booted and the journal keeps ``[boot, number]`` with
each ``clock`` entry. The host acknowledges a press as soon as it has it; if the host dies
before the referee journalled it, the clock will not send it again, but its status still
counts it. On a restart the journal's last press number is compared with the clock's count:
presses the clock resends (never acknowledged) arrive as usual; a press in between that nobody
will send again is recovered from the clock's state (the button that explains it) and handed
to the referee marked ``recovered``. Two presses or more made while the host was down are
handed over together (``controller.referee.api.PressesUnseen``): the picture seen now already
shows what came after the first, so the referee judges none of their turns (TTB-6.1).
"""

from __future__ import annotations

import time as systime
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.clock.host import HostClock
from controller.clock.messages import Button, ClockEvent, PressEvent, Side, Status
from controller.clock.timebase import TimeSource


def journalled_press(entries: Sequence[dict[str, Any]]) -> tuple[int, int] | None:
    """``(boot, number)`` of the last press the journal holds, or None."""
    for entry in reversed(entries):
        press = entry.get("press") if entry.get("type") == "clock" else None
        if isinstance(press, list) and len(press) == 2:
            return (int(press[0]), int(press[1]))
    return None


def _last_clock_means(entries: Sequence[dict[str, Any]]) -> str | None:
    for entry in reversed(entries):
        if entry.get("type") == "clock":
            return str(entry.get("means", ""))
    return None


def explain(status: Status, boot: int, number: int, after_hold: bool) -> PressEvent | None:
    """The one press (``number``) that left the clock as ``status`` shows it: a player's button
    when a side runs (it starts the other side, BG-OPEN-3, TTB-CLOCK-2), or the hold button
    when the clock is held, or resumed after a hold (``after_hold``); None after a flag."""
    button: Button
    if status.state == "run" and status.running is not None:
        # the hold button resumed the held turn, or a player's button started the other side
        button = "hold" if after_hold else "left" if status.running == "right" else "right"
    elif status.state == "hold":
        button = "hold"
    else:
        return None
    return PressEvent(number, button, status.clock_ms, status.running, status.times_ms,
                      status.delay_left_ms, status.state, boot=boot)


@dataclass
class Recovery:
    """What a restart found: presses to hand to the referee, in order (``recovered`` holds the
    numbers of those rebuilt from the clock's count), ``(boot, number)`` of the presses the
    clock counted that nobody will send (``lost``: which buttons is not known), the side whose
    time runs by the clock's status (None when held, flagged or unknown), and what to tell the
    people at the table."""

    events: list[ClockEvent] = field(default_factory=list)
    recovered: set[int] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    lost: list[tuple[int, int]] = field(default_factory=list)
    running: Side | None = None

    @property
    def presses(self) -> list[PressEvent]:
        """The presses to hand to the referee, in order."""
        return [e for e in self.events if isinstance(e, PressEvent)]

    @property
    def unseen(self) -> bool:
        """Whether two presses or more were made while the table could not see: none of
        their turns can be judged on the picture seen now (TTB-6.1)."""
        return len(self.presses) + len(self.lost) >= 2


def reconcile(entries: Sequence[dict[str, Any]], status: Status | None, boot: int | None,
              received: Sequence[ClockEvent]) -> Recovery:
    """Compare the journal with the clock's count. ``received``: the clock's events that
    arrived since the restart (resent presses, flags), in order; they are kept."""
    out = Recovery(events=list(received))
    last = journalled_press(entries)
    if last is None or status is None or boot is None:
        return out
    out.running = status.running if status.state == "run" else None
    if last[0] != boot:
        out.notes.append("The clock restarted since the last press journalled: its presses "
                         "count afresh")
        return out
    arrived = _arrived(received, boot)
    missing = _missing(last, status.presses, received)
    if not missing:
        return out
    if len(missing) == 1 and not arrived:
        press = explain(status, boot, missing[0], _last_clock_means(entries) == "hold")
        if press is not None:
            out.events.insert(0, press)
            out.recovered.add(press.number)
            out.notes.append(f"Press {press.number} ({press.button}) reached the clock but not "
                             "the journal before the restart: recovered from the clock")
            return out
    # which buttons they were cannot be told: the referee takes the turn from the clock's
    # status and the position from the board, and calls the director (TTB-6.1)
    out.lost = [(boot, n) for n in missing]
    out.notes.append(f"The clock counted {len(missing)} press(es) that will not be sent again "
                     f"(numbers {missing[0]}..{missing[-1]})")
    return out


# after the restarted link hears the clock, how long the presses it counted beyond the
# journal's last may take to be resent before the rest are taken as acknowledged and lost
RESEND_WAIT_MS = 1500


def recover(clock: HostClock, entries: Sequence[dict[str, Any]], timer: TimeSource,
            wait_ms: int = 3000, sleep: bool = True) -> Recovery:
    """Wait (up to ``wait_ms``) for the restarted link to hear the clock's status, keeping
    every event it reports meanwhile, then :func:`reconcile`."""
    received: list[ClockEvent] = []
    deadline = timer.now_ms() + wait_ms
    while timer.now_ms() < deadline and (clock.status is None or clock.hello is None):
        received += clock.poll()
        if sleep:
            systime.sleep(0.01)
    received += clock.poll()
    # the presses the clock still holds unacknowledged are resent once the link is up: wait a
    # little for those the status counts beyond the journal, rather than call them lost
    last = journalled_press(entries)
    settle = timer.now_ms() + RESEND_WAIT_MS
    for _ in range(RESEND_WAIT_MS):  # bounded also where time stands still (a test's)
        if (last is None or clock.status is None or clock.hello is None
                or timer.now_ms() >= settle
                or not awaited(last, clock.hello.boot, clock.status.presses, received)):
            break
        received += clock.poll()
        if sleep:
            systime.sleep(0.01)
    boot = clock.hello.boot if clock.hello is not None else None
    return reconcile(entries, clock.status, boot, received)


def awaited(last: tuple[int, int] | None, boot: int, counted: int,
            received: Sequence[ClockEvent]) -> list[int]:
    """The numbers of the presses the clock (of boot ``boot``) counted, ``counted``, beyond
    the journal's ``last`` (all of its boot's when it restarted since, or none is journalled)
    that have not arrived among ``received``: it resends them unless a host acknowledged them
    before the table went down."""
    since = last if last is not None and last[0] == boot else (boot, 0)
    return _missing(since, counted, received)


def _arrived(received: Sequence[ClockEvent], boot: int) -> set[int]:
    """The numbers of the presses of this boot of the clock among ``received``."""
    return {e.number for e in received if isinstance(e, PressEvent) and e.boot == boot}


def _missing(last: tuple[int, int], counted: int, received: Sequence[ClockEvent]) -> list[int]:
    """The presses the clock counted (``counted``) after the journal's ``last`` that have not
    arrived (of the same boot as ``last``)."""
    arrived = _arrived(received, last[0])
    return [n for n in range(last[1] + 1, counted + 1) if n not in arrived]
