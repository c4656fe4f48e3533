"""The match clock seen from the host: the link over pyserial, the simulated clock running the
real firmware core, and the protocol the referee drives both through."""

from controller.clock.api import MatchClock
from controller.clock.host import ClockState, HostClock, wait_for
from controller.clock.messages import ClockEvent, FlagEvent, PressEvent, Side
from controller.clock.sim import LoopbackClock, SimulatedClock
from controller.clock.timebase import FakeTime, MonotonicTime, TimeSource
from controller.clock.transport import SerialTransport, Transport
from controller.clock.wire import Wire

__all__ = [
    "ClockEvent",
    "ClockState",
    "FakeTime",
    "FlagEvent",
    "HostClock",
    "LoopbackClock",
    "MatchClock",
    "MonotonicTime",
    "PressEvent",
    "SerialTransport",
    "Side",
    "SimulatedClock",
    "TimeSource",
    "Transport",
    "Wire",
    "wait_for",
]
