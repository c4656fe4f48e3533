"""The live table says when its match clock cannot be heard (``controller.runtime.clock_watch``):
a missing port, a clock that does not answer, a clock lost and heard again; "system OK" is off
meanwhile. Before, ``hakem run`` with a wrong clock port refereed on without a word."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory

from controller.clock import FakeTime
from controller.clock.host import HostClock
from controller.clock.sim import LoopbackClock
from controller.clock.transport import SerialTransport
from controller.clock.wire import Wire
from controller.runtime.clock_watch import ANSWER_MS, ClockWatch
from controller.runtime.effects import LiveLog
from controller.signals import SignalPins, Signals

PINS = SignalPins()


def _watch(clock: HostClock, time: FakeTime, factory: MockFactory
           ) -> tuple[ClockWatch, LiveLog, Signals]:
    live = LiveLog(keep=50)
    signals = Signals(PINS, time=time, pin_factory=factory)
    signals.system_ok(True)  # as the referee's start-up sets it
    return ClockWatch(clock, live, signals, time), live, signals


def _run(watch: ClockWatch, time: FakeTime, polls: object, ms: int) -> None:
    for _ in range(ms // 5):
        time.advance(5)
        polls.poll()  # type: ignore[attr-defined]
        watch.check()


def test_a_missing_port_is_said_once_and_system_ok_goes_off(factory: MockFactory) -> None:
    time = FakeTime(0)
    clock = HostClock(SerialTransport("/dev/ttyNOSUCH-hakem", 115200), time)
    watch, live, signals = _watch(clock, time, factory)
    _run(watch, time, clock, 3000)
    assert live.lines == ["The clock on /dev/ttyNOSUCH-hakem cannot be used (cannot open clock "
                          "port /dev/ttyNOSUCH-hakem: no such port): no press is seen until it "
                          "answers; trying again every 0.5 s"]
    assert not signals.lit()["system_ok"]
    signals.close()
    clock.close()


def test_a_clock_that_does_not_answer_is_said_after_a_while(factory: MockFactory) -> None:
    time = FakeTime(0)
    clock = HostClock(Wire().host_end, time)  # the port opens, nothing answers on it
    watch, live, signals = _watch(clock, time, factory)
    _run(watch, time, clock, ANSWER_MS - 100)
    assert live.lines == [] and signals.lit()["system_ok"]
    _run(watch, time, clock, 200)
    assert len(live.lines) == 1 and live.lines[0].startswith(
        f"The clock on {clock.transport.name} does not answer ({ANSWER_MS / 1000:g} s")
    assert not signals.lit()["system_ok"]
    signals.close()
    clock.close()


def test_a_clock_heard_lost_and_heard_again(factory: MockFactory) -> None:
    time = FakeTime(0)
    loop = LoopbackClock(time)
    watch, live, signals = _watch(loop.host, time, factory)
    _run(watch, time, loop, 500)
    name = loop.host.transport.name
    assert live.lines == [f"The clock on {name} answers"] and signals.lit()["system_ok"]
    loop.wire.unplug()  # the cable pulled
    _run(watch, time, loop, 10_000)
    assert live.lines[1].startswith(f"The clock on {name} was lost (")
    assert not signals.lit()["system_ok"]
    loop.wire.plug()
    _run(watch, time, loop, 3000)
    assert live.lines[2:] == [f"The clock on {name} answers again"]
    assert signals.lit()["system_ok"]
    signals.close()
    loop.close()


def test_the_in_process_clock_says_nothing(factory: MockFactory) -> None:
    time = FakeTime(0)
    loop = LoopbackClock(time)
    live = LiveLog(keep=10)
    signals = Signals(PINS, time=time, pin_factory=factory)
    watch = ClockWatch(loop, live, signals, time)
    _run(watch, time, loop, 5000)
    assert live.lines == []
    signals.close()
    loop.close()
