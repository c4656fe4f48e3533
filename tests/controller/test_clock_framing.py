"""Framing faults on a real serial line, a pty pair, with the simulated clock (the real
firmware) at its far end: a frame cut in half whose rest never comes, garbage bytes between
frames, a host command crossing a press in flight, and a frame that is not ASCII. Each way
it applies; nothing may be lost, done twice or invented. No durations are asserted."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from controller.clock import HostClock, MonotonicTime, PressEvent, SerialTransport, SimulatedClock
from controller.clock.transport import PtyPair, Transport
from firmware import clock_core as cc
from tests.controller.test_clock_serial import pump
from tests.firmware.test_device import frame_with_valid_crc

BOOT = 31
# NUL, 0xFF, a stray CR LF, a lone '#', a false frame start, an Arabic-Indic digit (UTF-8),
# and a '#' right before the next frame: each must be skipped without costing a real frame.
GARBAGE = b"\x00\xff\r\n~*|#\n#12|x|\xd9\xa3#"


class Tampered:
    """A transport whose writes pass through ``edit`` first: the fault a test puts on the line."""

    def __init__(self, inner: Transport, edit: Callable[[bytes], bytes]) -> None:
        self.inner = inner
        self.edit = edit
        self.name = inner.name

    @property
    def is_open(self) -> bool:
        return self.inner.is_open

    def open(self) -> None:
        self.inner.open()

    def close(self) -> None:
        self.inner.close()

    def read(self) -> bytes:
        return self.inner.read()

    def write(self, data: bytes) -> None:
        self.inner.write(self.edit(data))

    def wait(self, timeout_s: float) -> None:
        self.inner.wait(timeout_s)


def _kind(frame: bytes) -> bytes:
    fields = frame.split(b"|")
    return fields[2] if len(fields) > 2 else b""


class CutFirst:
    """Cuts the first frame of type ``kind`` in half: its second half never arrives, the
    frames written after it do."""

    def __init__(self, kind: str) -> None:
        self.kind = kind.encode()
        self.cut = b""

    def __call__(self, data: bytes) -> bytes:
        frames = data.splitlines(keepends=True)
        for i, frame in enumerate(frames):
            if not self.cut and _kind(frame) == self.kind:
                self.cut = frames[i] = frame[: len(frame) // 2]
        return b"".join(frames)


class Garbage:
    """Puts GARBAGE before every frame written."""

    def __init__(self) -> None:
        self.inserted = 0

    def __call__(self, data: bytes) -> bytes:
        frames = data.splitlines(keepends=True)
        self.inserted += len(frames)
        return b"".join(GARBAGE + frame for frame in frames)


def clean(data: bytes) -> bytes:
    return data


def edit_of(transport: Transport) -> object:
    """The fault on a tampered transport."""
    assert isinstance(transport, Tampered)
    return transport.edit


Line = tuple[HostClock, SimulatedClock]


@pytest.fixture
def line(request: pytest.FixtureRequest) -> Iterator[Line]:
    """Host and simulated clock on a pty pair, connected; ``request.param`` is the edit of
    (host's writes, clock's writes)."""
    to_clock, to_host = getattr(request, "param", (clean, clean))
    pair = PtyPair()
    time = MonotonicTime()
    sim = SimulatedClock(Tampered(pair.clock_side, to_host), time, boot_id=BOOT)
    host = HostClock(Tampered(SerialTransport(pair.port_name), to_clock), time)
    try:
        pump(host, sim, lambda: host.connected)
        yield host, sim
    finally:
        host.close()
        pair.close()


def settled(host: HostClock, sim: SimulatedClock) -> Callable[[], bool]:
    """Both ends have nothing in flight (every command and press acknowledged)."""
    return lambda: host.backlog() == 0 and sim.device.link.backlog() == 0


def presses(events: list[object]) -> list[tuple[int, str]]:
    return [(e.number, e.button) for e in events if isinstance(e, PressEvent)]


@pytest.mark.parametrize("line", [(CutFirst("BEEP"), clean)], indirect=True)
def test_a_command_cut_in_half_is_resent_and_done_once(line: Line) -> None:
    """The clock holds half a BEEP frame that is never finished; the next '#' (a heartbeat or
    the resend) starts afresh, and the command is done once, the one queued behind it too."""
    host, sim = line
    edit = edit_of(host.transport)
    assert isinstance(edit, CutFirst)
    host.beep(77)
    host.show("CUT", 500)  # queued behind it: must follow, once
    pump(host, sim, lambda: settled(host, sim)() and sim.device.message == "CUT")
    assert edit.cut.startswith(b"#") and not edit.cut.endswith(b"\n")
    assert sim.beeps == [(77, 0, 1)]
    assert sim.device.link.decoder.errors == 1 and sim.device.errors == 0
    assert host.errors == []


@pytest.mark.parametrize("line", [(clean, CutFirst("PR"))], indirect=True)
def test_a_press_cut_in_half_is_resent_and_reported_once(line: Line) -> None:
    """The host holds half a press report that is never finished; the resend is taken, once,
    and the press queued behind it on the clock follows."""
    host, sim = line
    edit = edit_of(sim.transport)
    assert isinstance(edit, CutFirst)
    sim.press("right")
    sim.press("left")  # queued behind it on the clock
    events = pump(host, sim, lambda: settled(host, sim)() and host.last_press == (BOOT, 2))
    assert edit.cut.startswith(b"#") and not edit.cut.endswith(b"\n")
    assert presses(events) == [(1, "right"), (2, "left")]
    assert host.state().running == "right" and sim.device.core.running == cc.RIGHT


@pytest.mark.parametrize(
    "line", [(Garbage(), clean), (clean, Garbage())], ids=["to clock", "to host"], indirect=True
)
def test_garbage_between_frames_costs_no_frame(line: Line) -> None:
    """Line noise before every frame, false starts and stray newlines included, is skipped:
    every command is done once, every press reported once, in order."""
    host, sim = line
    edits = [edit_of(host.transport), edit_of(sim.transport)]
    garbage = next(e for e in edits if isinstance(e, Garbage))
    host.configure_countdown(60000)  # MG-CLOCK-1
    host.start("left")
    for k in range(5):
        host.beep(10 + k)
    pump(host, sim, settled(host, sim))
    sim.press("left")
    sim.press("right")
    sim.press("hold")
    events = pump(host, sim, lambda: settled(host, sim)() and host.last_press == (BOOT, 3))
    pump(host, sim, lambda: host.state().state == "hold")
    assert presses(events) == [(1, "left"), (2, "right"), (3, "hold")]
    assert [b[0] for b in sim.beeps] == [10, 11, 12, 13, 14]
    assert sim.device.core.state == cc.STATE_HOLD and sim.device.core.held == cc.LEFT
    assert host.errors == [] and sim.device.errors == 0
    assert garbage.inserted > 10


@pytest.mark.parametrize("clock_reads_first", [True, False], ids=["clock first", "host first"])
def test_a_hold_crossing_a_press_in_flight(line: Line, clock_reads_first: bool) -> None:
    """The left player ends the turn while the host's HOLD is on the wire: the clock acts on
    the press first (it is local), then holds the right player's new turn; each side takes
    the other's frame once, whichever reads first, and a resume continues the right turn."""
    host, sim = line
    host.configure_countdown(60000)
    host.start("left")
    pump(host, sim, lambda: settled(host, sim)() and host.state().running == "left")
    host.hold()
    host.poll()  # the HOLD is written
    sim.press("left")  # and the press report, before the clock has read the HOLD
    events = cross(host, sim, clock_reads_first)
    events += pump(host, sim, lambda: settled(host, sim)() and host.state().state == "hold")
    assert presses(events) == [(1, "left")]
    assert sim.device.core.state == cc.STATE_HOLD and sim.device.core.held == cc.RIGHT
    assert host.errors == [] and sim.device.errors == 0
    host.resume()
    pump(host, sim, lambda: settled(host, sim)() and host.state().running == "right")
    assert sim.device.core.running == cc.RIGHT and host.errors == []


@pytest.mark.parametrize("clock_reads_first", [True, False], ids=["clock first", "host first"])
def test_a_resume_crossing_a_hold_button_press_is_refused_not_lost(
    line: Line, clock_reads_first: bool
) -> None:
    """The host resumes while a player's hold button resumes too: the clock does the press,
    then has nothing held for the RES and says so (ER); the host is not left waiting and the
    turn runs once."""
    host, sim = line
    host.configure_countdown(60000)
    host.start("left")
    host.hold()
    pump(host, sim, lambda: settled(host, sim)() and host.state().state == "hold")
    host.resume()
    host.poll()
    sim.press("hold")
    events = cross(host, sim, clock_reads_first)
    events += pump(host, sim, lambda: settled(host, sim)() and len(host.errors) == 1)
    assert presses(events) == [(1, "hold")]
    assert [e.reason for e in host.errors] == ["nothing held to resume (clock state: run)"]
    assert sim.device.core.state == cc.STATE_RUN and sim.device.core.running == cc.LEFT
    pump(host, sim, lambda: host.state().running == "left")


def cross(host: HostClock, sim: SimulatedClock, clock_reads_first: bool) -> list[object]:
    """Let one end read what crossed on the wire before the other does; each end has its
    own frame still unacknowledged when it reads the other's (the frames crossed)."""
    assert host.backlog() == 1 and sim.device.link.backlog() == 1
    if clock_reads_first:
        taken = sim.device.link.rx_last
        sim.transport.wait(1.0)
        sim.step()
        assert sim.device.link.rx_last != taken  # the clock has read the command
        assert sim.device.link.backlog() == 1  # whose ACK did not name the press
        return list(host.poll())
    host.transport.wait(1.0)
    events: list[object] = list(host.poll())
    assert presses(events) and host.backlog() == 1  # whose ACK did not name the command
    sim.step()
    return events


def test_a_press_numbered_in_other_digits_is_dropped(line: Line) -> None:
    """A PR whose sequence number is an Arabic-Indic seven (str.isdigit() and int() take it)
    with a valid CRC is malformed: the host drops it, it never becomes a press."""
    host, sim = line
    after = sim.time.now_ms()
    sim.transport.write(frame_with_valid_crc("\u0667|0|PR|9|L|1000|R|60000|60000|0|run"))
    events = pump(host, sim, lambda: host.status is not None and host.status.clock_ms > after)
    sim.press("left")
    events += pump(host, sim, settled(host, sim))
    assert presses(events) == [(1, "left")]
