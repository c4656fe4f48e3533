"""``hakem run``: the live table. Camera, serial clock, gpiozero LEDs and buzzer, journal,
snapshots and (when configured) the hub, around the referee; resumes from the journal after a
restart and shuts down cleanly on SIGINT or SIGTERM.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Protocol, TextIO, TypedDict, Unpack

from controller.clock.host import HostClock
from controller.clock.messages import ClockEvent, PressEvent
from controller.clock.sim import LoopbackClock
from controller.clock.timebase import MonotonicTime, TimeSource
from controller.clock.transport import SerialTransport
from controller.config.table import CameraSection, TableConfig
from controller.records.folder_lock import folder_lock
from controller.records.journal import JOURNAL_NAME, Journal, torn_tail_note
from controller.referee.api import Command, PressesUnseen
from controller.runtime import resume_check
from controller.runtime.clock_restart import ClockKeeper, ClockRestart, restart_clock, settle
from controller.runtime.clock_watch import ClockWatch
from controller.runtime.director_inbox import Director, DirectorInbox
from controller.runtime.effects import Executor, LiveLog
from controller.runtime.loop import press_event
from controller.runtime.pipeline import FrameSink
from controller.runtime.presses import Recovery, journalled_press
from controller.runtime.session import build_pipeline, colours_store, referee_config, start_referee
from controller.signals import Signals
from engine.errors import DeviceError
from vision.sources import FrameSource, PiCameraSource, VideoCaptureSource, open_source


def open_camera(camera: CameraSection) -> FrameSource:
    """The configured frame source: the Pi camera, a camera index, a video, a folder."""
    if camera.source in ("picamera", "picamera2"):
        return PiCameraSource(width=camera.width, height=camera.height, fps=camera.fps)
    if camera.source.isdigit():
        return VideoCaptureSource(int(camera.source), width=camera.width, height=camera.height,
                                  fps=camera.fps)
    return open_source(camera.source)


def open_clock(config: TableConfig, time: TimeSource,
               last_press: tuple[int, int] | None = None) -> HostClock | LoopbackClock:
    """The match clock: the serial link to the clock's microcontroller, or ``sim`` (the
    firmware core in-process, for a bench test without the clock). ``last_press``: the last
    press the journal holds, ``(boot, number)``; the clock's resends up to it are old news."""
    if config.clock.port == "sim":
        return LoopbackClock(time)
    return HostClock(SerialTransport(config.clock.port, config.clock.baudrate), time,
                     last_press=last_press)


@dataclass
class StopFlag:
    """Set by SIGINT/SIGTERM (or a test) to end the loop after the current frame."""

    event: threading.Event

    def set(self) -> None:
        self.event.set()

    @property
    def is_set(self) -> bool:
        return self.event.is_set()


@contextlib.contextmanager
def stop_on_signals(flag: StopFlag) -> Iterator[None]:
    """SIGINT and SIGTERM set ``flag`` while the block runs (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        flag.set()

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@dataclass
class TableDevices:
    """What every live table stands on, whatever the game: the journal (the source of truth,
    DESIGN.md), the live log, LEDs and buzzer, the match clock, the camera and the executor
    that carries out the referee's commands on them."""

    folder: Path
    time: TimeSource
    journal: Journal
    live: LiveLog
    signals: Signals
    clock: HostClock | LoopbackClock
    camera: FrameSource
    executor: Executor
    resuming: bool  # the journal held a match when the table opened: the table resumes it
    stop: StopFlag  # set by SIGINT or SIGTERM (or a test): the loop ends after this frame


class DeviceOptions(TypedDict, total=False):
    """What a caller (a test, a bench set-up) may give a live table instead of what its
    configuration opens; the same for every game."""

    stop: StopFlag | None
    log: TextIO | None
    time: TimeSource | None
    source: FrameSource | None
    clock: HostClock | LoopbackClock | None
    pin_factory: Any
    publisher_factory: Callable[[Path], Any] | None


@contextlib.contextmanager
def open_table(config: TableConfig, **given: Unpack[DeviceOptions]) -> Iterator[TableDevices]:
    """Open a table's devices in the journal's folder (each one ``given`` is used as it is) and
    stop on SIGINT or SIGTERM; every device is closed on the way out, whatever happens. The
    clock is told the last press the journal holds, so its resends up to it are old news."""
    stop, log, time = given.get("stop"), given.get("log"), given.get("time")
    source, clock = given.get("source"), given.get("clock")
    pin_factory, publisher_factory = given.get("pin_factory"), given.get("publisher_factory")
    flag = stop if stop is not None else StopFlag(threading.Event())
    timer: TimeSource = time if time is not None else MonotonicTime()
    folder = Path(config.journal.directory)
    with contextlib.ExitStack() as stack, stop_on_signals(flag):
        stack.enter_context(folder_lock(folder, "hakem run"))
        journal = stack.enter_context(Journal(folder / JOURNAL_NAME))
        if journal.recovered_torn_tail:
            print(torn_tail_note(journal.path, journal.next_seq - 1), file=sys.stderr)
        live = LiveLog(stream=log if log is not None else sys.stdout, file=folder / "live.log")
        signals = stack.enter_context(
            Signals(config.signals, time=timer, pin_factory=pin_factory))
        last_press = journalled_press(journal.entries)
        the_clock = clock if clock is not None else open_clock(config, timer, last_press)
        if isinstance(the_clock, HostClock) and the_clock.last_press is None:
            the_clock.last_press = last_press
        stack.callback(the_clock.close)
        camera = source if source is not None else open_camera(config.camera)
        stack.callback(camera.close)
        executor = Executor(journal, the_clock, signals, folder / "snapshots", live,
                            frame_jpeg=lambda: None)
        if publisher_factory is not None:
            publisher = publisher_factory(folder)
            stack.callback(publisher.close)
            executor.publish_to(publisher)
        yield TableDevices(folder, timer, journal, live, signals, the_clock, camera, executor,
                           resuming=bool(journal.entries), stop=flag)


def drive(table: TableDevices, pipeline: FrameSink, over: Callable[[], bool],
          director: Director | None = None, restart: ClockRestart | None = None) -> None:
    """The table's loop, for any game: a director's requests (``hakem director``, through
    ``director``: the pipeline's referee), the clock's events (and, once a clock silent at the
    restart answers, what ``restart`` has for it), then a camera frame, then the LEDs' timers,
    until the referee says it is over, the camera ends or the table is stopped. At the
    match's end the clock gets its last commands (the hold) before the table closes."""
    flag = table.stop
    inbox = (DirectorInbox(table.folder, journalled=table.journal.entries)
             if director is not None else None)
    watch = ClockWatch(table.clock, table.live, table.signals, table.time)
    while not flag.is_set and not over():
        if inbox is not None and director is not None:
            inbox.take(director, table.time.now_ms(), table.live.say)
        events = table.clock.poll()
        late = restart.check(events) if restart is not None else None
        if restart is not None:  # the clock's events wait in ``restart`` for its answer
            events = [] if late is None else restart.retimed(restart.held, late)
        if late is not None:  # the answer: its settings and times first, then its presses
            table.executor.run(late)
        for event in events:
            pipeline.on_clock(event)
        if restart is not None and late is not None:
            table.executor.run(restart.follow(late, any(isinstance(e, PressEvent)
                                                        for e in events)))
            restart = None
        watch.check()
        frame = table.camera.read()
        if frame is None:
            table.live.say("The camera has no more frames")
            break
        pipeline.on_frame(frame.image)
        table.signals.tick()
    if flag.is_set:
        table.live.say("Stopped; the journal is complete up to here, `hakem run` resumes it")
    elif over() and isinstance(table.clock, HostClock):
        settle(table.clock, table.time, pipeline.on_clock)


def run_table(config: TableConfig, **given: Unpack[DeviceOptions]) -> int:
    """Run the backgammon table until the match ends, the camera ends or ``stop`` is set;
    return the number of journal entries. Every device is closed on the way out, whatever
    happens."""
    with open_table(config, **given) as table:
        journal, live, timer = table.journal, table.live, table.time
        if table.resuming:
            resume_check.check_game("backgammon", journal.entries, table.folder, live)
        wanted = referee_config(config)
        referee, startup = start_referee(wanted, journal.entries,
                                         restore_clock=not real_clock(table))
        pipeline = build_pipeline(config, referee, table.executor, timer,
                                  colours_file=colours_store(table.folder, table.resuming))
        pipeline.warn_dice_scale = True
        recovery: Recovery | None = None
        restart: ClockRestart | None = None
        if table.resuming:
            if not referee.over:
                live.say(f"Resumed the match from {journal.path} "
                         f"({len(journal.entries)} entries)")
                resume_check.tell(live, resume_check.differences(
                    config, journal.entries, table.folder, wanted.players))
            startup, recovery, restart = resumed_clock(table, referee, startup)
        table.executor.run(startup)
        if table.resuming and referee.over:
            resume_check.tell(live, resume_check.finished(journal.entries, journal.path,
                                                          table.folder))
        if recovery is not None:
            deliver_recovery(pipeline, recovery, timer, live)
        drive(table, pipeline, lambda: bool(getattr(referee, "over", False)),
              pipeline.handle, restart)
        return len(journal.entries)


class RecoverySink(Protocol):
    """A game's pipeline as the recovery of presses drives it."""

    def handle(self, event: Any) -> list[Command]: ...

    def on_clock(self, event: ClockEvent) -> None: ...


def real_clock(table: TableDevices) -> bool:
    """Whether the table's clock is the real one, which keeps its state through the host's
    restart (so its restore waits for it: :func:`resumed_clock`); the simulated clock in
    the same process loses it with the host."""
    return isinstance(table.clock, HostClock)


def resumed_clock(table: TableDevices, referee: ClockKeeper, startup: list[Command]
                  ) -> tuple[list[Command], Recovery | None, ClockRestart | None]:
    """On a resume with the real clock (:func:`restart_clock`; its referee restored without
    the clock's state): the start-up commands and what the clock's state asks, the presses it
    counted beyond the journal, and what is still to tell a clock that has not answered."""
    if not isinstance(table.clock, HostClock):
        return startup, None, None
    return restart_clock(table.clock, referee, table.journal.entries, startup, table.time,
                         table.live)


def deliver_recovery(pipeline: RecoverySink, recovery: Recovery, timer: TimeSource,
                     live: LiveLog) -> None:
    """Tell the table what the restart found, then hand the presses to the referee in order
    (a press rebuilt from the clock's count is journalled ``recovered``); two or more as one
    :class:`PressesUnseen`, whose turns the referee does not judge (TTB-6.1)."""
    for note in recovery.notes:
        live.say(note)
    if recovery.unseen:
        now = timer.now_ms()
        pipeline.handle(PressesUnseen(
            now, tuple(press_event(e, now, recovered=e.number in recovery.recovered)
                       for e in recovery.presses),
            tuple(recovery.lost), recovery.running))
        for event in recovery.events:
            if not isinstance(event, PressEvent):
                pipeline.on_clock(event)
        return
    for event in recovery.events:
        if isinstance(event, PressEvent) and event.number in recovery.recovered:
            pipeline.handle(press_event(event, timer.now_ms(), recovered=True))
        else:
            pipeline.on_clock(event)


def publisher_for(config: TableConfig) -> Callable[[Path], Any] | None:
    """A factory for the hub publisher when ``hub.url`` is set (None otherwise)."""
    if not config.hub.url:
        return None
    try:
        from controller.hub.publisher import TablePublisher
    except ImportError as exc:  # paho-mqtt missing
        raise DeviceError(f"cannot publish to the hub: {exc}") from exc

    def make(folder: Path) -> Any:
        link = config.hub.link(config.table.id, str(folder / "hub-outbox.sqlite"))
        # started by open_table, once it listens to what the publisher says of its link
        return TablePublisher.of_folder(link, folder, name=config.table.name)

    return make
