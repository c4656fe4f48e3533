"""What both demos (backgammon and Mangala) stand on: simulated time, the loopback clock running
the firmware core, LEDs on gpiozero's mock pins, the journal, the live log and the executor, all
in one output folder and closed in reverse order (closing twice is safe); the hub publisher
(``--publish``) and the director's inbox, as at a live table; and what the simulated players do
alike in both: show the camera a frame, press a clock button, read the journal's new entries,
stop after a number of entries (tests of a restart), print the progress line."""

from __future__ import annotations

import contextlib
import json
import random
import sys
import time as systime
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TextIO, TypeVar

import numpy as np
from gpiozero.pins.mock import MockFactory

from controller.clock.messages import Button, ClockEvent, PressEvent
from controller.clock.sim import LoopbackClock
from controller.clock.timebase import FakeTime
from controller.closing import ClosedOnExit
from controller.records.files import write_changed
from controller.records.folder_lock import folder_lock
from controller.records.journal import Journal, torn_tail_note
from controller.runtime.director_inbox import DirectorInbox
from controller.runtime.effects import Executor, LiveLog
from controller.runtime.pipeline import FrameSink
from controller.signals import SignalPins, Signals
from engine.errors import ConfigError, HakemError

if TYPE_CHECKING:  # paho, under the hub's modules, is imported only when publishing
    from controller.hub.link import LinkConfig
    from controller.hub.publisher import TablePublisher

# the options a demo's output folder was started with (its script depends on them), beside its
# journal: a resumed run must be given the same ones
SETTINGS_NAME = "demo.json"
# how long a publishing demo waits at its end for the broker to take every entry (seconds)
HUB_WAIT_S = 30.0


class DemoStalled(HakemError, RuntimeError):
    """The referee did not say what the simulated players waited for."""


class StopNow(Exception):
    """Internal: the demo's ``stop_after`` journal entries are reached (a demo's ``run`` ends
    quietly on it, as a killed table would)."""


class MatchOver(Exception):
    """Internal: the referee ended the match before the players' script did (a director's
    request, a Mangala round lost on warnings), or a director changed it under them
    (:func:`script_left`): the players stop, the records are written."""


P = TypeVar("P", bound=FrameSink)
# what the referee says of a pressed move that is not accepted: the players press again after it
VERDICTS = ("illegal_move", "cannot_read")


@dataclass(frozen=True)
class TurnSoFar:
    """Where a mover's turn stands by the journal entries since it began (a resumed run
    takes it up there): ``judged``, the referee already flagged the move or said it cannot
    read it; ``pressed``, the mover pressed since that (or since the turn began), and the
    referee has yet to judge that press, so it is not made again."""

    judged: bool
    pressed: bool


def turn_so_far(entries: Sequence[dict[str, Any]], mover: object) -> TurnSoFar:
    """:class:`TurnSoFar` from the journal entries of one turn (after its last milestone)."""
    judged = [i for i, e in enumerate(entries) if e["type"] in VERDICTS]
    since = entries[judged[-1] + 1:] if judged else entries
    pressed = any(e["type"] == "clock" and e.get("means") == "move" and e.get("player") == mover
                  for e in since)
    return TurnSoFar(judged=bool(judged), pressed=pressed)


# a director's requests (``hakem director``, the hub) the simulated players can follow (dice
# only for a throw they made, :func:`_dice_followed`): the others change the match under them
# (a position set, a move accepted or rejected, a resignation), and they play the recorded
# match, which no longer fits
FOLLOWED_ACTIONS = frozenset({"note", "warn", "set_dice", "end_match"})


# entries that neither make a throw nor end one: what lies between a throw and dice entered
# for it does not tell which throw they are
BESIDE_THROWS = frozenset({"clock", "director"})

# the last entries after which dice entered are a throw the players made: a roll or an opening
# throw whose move waits (misread, put right; a tie is thrown again), a move flagged with it
# (a misread often shows only so: the move made with the real dice does not match), and a
# game's start (the opening throw the camera could not read)
THROW_WAITING = frozenset({"roll", "opening_roll", "illegal_move", "game_start"})


def script_left(entries: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The first director's request in the journal that the simulated players cannot follow
    (:data:`FOLLOWED_ACTIONS`, :func:`_dice_followed`), or None. The demo's own director
    (misread dice, a scripted resignation) sends no request."""
    return next((e for i, e in enumerate(entries)
                 if e["type"] == "director" and e.get("request")
                 and (e.get("action") not in FOLLOWED_ACTIONS
                      or (e.get("action") == "set_dice" and not _dice_followed(entries[:i])))),
                None)


def _dice_followed(before: Sequence[dict[str, Any]]) -> bool:
    """Whether dice a director entered after ``before`` are a throw the players made: the one
    the referee called the director for (it cannot judge it, or read no throw at a press), a
    roll or opening throw it misread, put right (also once the move made with it is flagged),
    or the opening throw (:data:`THROW_WAITING`). Entered at any other moment (a player about
    to double) they are a throw nobody made: the recorded match no longer fits, and the demo
    died waiting for the double (end-to-end QA)."""
    last: dict[str, Any] = next(
        (e for e in reversed(before) if e["type"] not in BESIDE_THROWS), {})
    kind = last.get("type")
    return (kind in THROW_WAITING
            or (kind == "cannot_read" and last.get("about") in ("throw", "press")))


def script_left_text(entry: dict[str, Any], what: str) -> str:
    """What the demo says when its players stopped at such a request (``what``: match or
    round)."""
    from controller.referee.api import director_command

    return (f"The players stopped at the director's {director_command(str(entry.get('action')))}"
            f" (journal entry {entry.get('seq')}): they play the recorded {what}, which it "
            f"changed under them. The journal and the record stop there; another --out, or "
            f"removing the folder, plays the {what} again.")


def director_ended(entries: Sequence[dict[str, Any]]) -> bool:
    """Whether the journal's match (or round) was ended by a director: its ``match_end`` says
    so, whichever run took the request."""
    return any(e["type"] == "match_end" and e.get("how") == "director" for e in entries)


def pin_settings(path: Path, settings: Mapping[str, str], *, resumed: bool,
                 finished: bool = False) -> None:
    """Keep the options a demo was started with in ``path``; a run resuming its journal with
    other ones (another seed or number of planted faults makes another script, whose acts would
    follow the first one's) is refused, naming them. A folder from before the file existed
    takes this run's. A finished match plays nothing more: options but the game and the
    match do not matter then (it says it is finished and names its record), and the file keeps
    the first ones."""
    text = json.dumps(dict(settings), indent=1, sort_keys=True) + "\n"
    if resumed and path.exists():
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            raise ConfigError(f"{path} is not the demo's settings (json): {exc}") from exc
        stored = {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
        game = stored.get("--game")
        if game is not None and game != settings.get("--game"):
            raise ConfigError(f"the demo in {path.parent} is of {game}, not "
                              f"{settings.get('--game')}: give --game {game} to resume it, or "
                              "another --out to start afresh")
        kept = ("--game", "--match") if finished else tuple(set(stored) | set(settings))
        differ = sorted(k for k in kept if stored.get(k) != settings.get(k))
        if differ:
            was = " ".join(f"{k} {stored.get(k, '(none)')}" for k in differ)
            now = " ".join(f"{k} {settings.get(k, '(none)')}" for k in differ)
            raise ConfigError(f"the demo in {path.parent} was started with {was}, not {now}: "
                              "give those to resume it, or another --out to start afresh")
        return
    write_changed(path, text)


class SimulatedTable(ClosedOnExit, Generic[P]):
    """The devices and records of a demo table; a demo adds its camera, referee and pipeline
    (of type ``P``)."""

    pipeline: P

    def __init__(self, out: Path, *, pins: SignalPins | None = None, log: TextIO | None = None,
                 progress: TextIO | None = None, keep: int = 0, seed: int = 0,
                 stop_after: int | None = None,
                 settings: Mapping[str, str] | None = None,
                 publish: LinkConfig | None = None) -> None:
        """``stop_after``: stop (:class:`StopNow`) once the journal holds this many entries;
        ``settings``: what the demo's script is made from, as the command line gives it
        (``{"--illegal": "2", ...}``), pinned to the folder (:func:`pin_settings`);
        ``publish``: the hub's broker and the table's id (``--publish URL --table ID``)."""
        self.out = out
        self.progress = progress
        self.time = FakeTime(0)
        self._closers: list[Callable[[], None]] = []
        held = contextlib.ExitStack()
        held.enter_context(folder_lock(out, "demo"))  # before the journal is opened
        self._closers.append(held.close)
        self.journal = Journal(self.out / "journal.jsonl")
        self._closers.append(self.journal.close)
        self.clock = LoopbackClock(self.time, boot_id=1 + len(self.journal.entries) % 60000)
        self._closers.append(self.clock.close)
        self.signals = Signals(pins, time=self.time, pin_factory=MockFactory())
        self._closers.append(self.signals.close)
        self.log = LiveLog(stream=log, file=self.out / "live.log", keep=keep,
                           clear_line=bool(log is not None and progress is not None
                                           and log.isatty() and progress.isatty()))
        self.executor = Executor(self.journal, self.clock, self.signals, self.out / "snapshots",
                                 self.log, frame_jpeg=lambda: None)
        self.resumed = bool(self.journal.entries)
        if settings is not None:
            try:
                finished = any(e.get("type") == "match_end" for e in self.journal.entries)
                pin_settings(self.out / SETTINGS_NAME, settings, resumed=self.resumed,
                             finished=finished)
            except ConfigError:
                self.close()
                raise
        if self.journal.recovered_torn_tail:  # said once the run is sure to go on
            print(torn_tail_note(self.journal.path, self.journal.next_seq - 1), file=sys.stderr)
        self.seed = seed
        self.stop_after = stop_after
        self.frames = 0  # frames shown to the camera
        self._seen = len(self.journal.entries)
        self._t0 = systime.perf_counter()
        # the director's requests (``hakem director --folder OUT``, the hub's end of the
        # match), taken between frames as at a live table
        self.inbox = DirectorInbox(self.out, journalled=self.journal.entries)
        self.ended_by_director = False
        # a director's request the players cannot follow, journalled (:func:`script_left`):
        # they stop there, and a resumed run plays nothing
        self.left_script = script_left(self.journal.entries)
        # called before each frame with the journal's entries (a test acts at a chosen moment)
        self.before_frame: Callable[[Sequence[dict[str, Any]]], None] | None = None
        self.publisher: TablePublisher | None = None
        self._link_trouble = False  # a quiet demo said on stderr that the hub cannot hear it
        if publish is not None:
            self._publish(publish)

    def _publish(self, link: LinkConfig) -> None:
        """Publish every journal entry to the hub as ``hakem run`` does
        (:meth:`Executor.publish_to`: a resumed run queues what its outbox never took)."""
        from controller.hub.publisher import TablePublisher

        publisher = TablePublisher.of_folder(link, self.out)
        self.publisher = publisher
        self._closers.insert(1, publisher.close)  # after everything but the folder's lock
        quiet = self.log.stream is None
        self.executor.publish_to(publisher, say=self._say_link if quiet else None)

    def _say_link(self, text: str) -> None:
        """A quiet demo's words of its link to the hub (no live log on stdout): in the live log
        file, and on stderr too while the hub cannot hear the table (and once it can again),
        so a director learns it then, not from the outbox line at the end."""
        self.log.say(text)
        publisher = self.publisher
        trouble = publisher is not None and publisher.link_state != "connected"
        if trouble or self._link_trouble:
            progress = self.progress
            LiveLog(stream=sys.stderr, clear_line=bool(progress is not None
                                                       and progress.isatty())).say(text)
        self._link_trouble = trouble

    def _hub_delivered(self, timeout_s: float | None = None) -> None:
        """Wait until the broker holds every entry published, up to ``timeout_s`` (default
        :data:`HUB_WAIT_S`; nothing when not publishing); a wait longer than a moment is said
        on the progress line, and one that runs out says what becomes of the entries."""
        from controller.hub.publisher import PublishTimeoutError

        publisher = self.publisher
        if publisher is None:
            return
        if timeout_s is None:
            timeout_s = HUB_WAIT_S
        first = min(1.0, timeout_s)
        try:
            publisher.wait_delivered(first, "broker")
            return
        except PublishTimeoutError:
            pass
        if self.progress is not None:
            self.progress.write(f"\nwaiting up to {timeout_s - first:g} s more for the hub's "
                                "broker to take the table's entries\n")
            self.progress.flush()
        try:
            publisher.wait_delivered(timeout_s - first, "broker")
        except PublishTimeoutError as exc:
            raise PublishTimeoutError(
                f"{exc}: they wait in {self.out / 'hub-outbox.sqlite'} (the journal and the "
                "records are written); run the demo again with the same --out and --publish "
                "once the broker answers, and they are sent") from None

    def close(self) -> None:
        """Close everything; safe to call twice."""
        while self._closers:
            self._closers.pop()()

    def _connect(self) -> None:
        for _ in range(400):
            self.time.advance(5)
            self._deliver(self.clock.poll())
            if self.clock.host.connected:
                return
        raise DemoStalled("the simulated clock did not answer the host")

    def _started(self) -> None:
        """The referee's start-up is carried out: what the journal holds now is not news."""
        self._seen = len(self.journal.entries)
        self._t0 = systime.perf_counter()

    def _deliver(self, events: list[ClockEvent]) -> None:
        for event in events:
            self.pipeline.on_clock(event)

    def _stop_check(self) -> None:
        limit = self.stop_after
        if limit is not None and len(self.journal.entries) >= limit:
            raise StopNow()

    def frame(self, image: np.ndarray, step_ms: int, *, jpeg: bytes | None = None,
              key: str | None = None) -> None:
        """One camera frame ``step_ms`` after the last; the clock's news first, then the frame,
        then the LEDs' timers."""
        self.time.advance(step_ms)
        if self.before_frame is not None:
            self.before_frame(self.journal.entries)
        self._director_requests()
        self._deliver(self.clock.poll())
        self.pipeline.on_frame(image, jpeg=jpeg, key=key)
        self.signals.tick()
        self.frames += 1
        self._stop_check()

    def _director_requests(self) -> None:
        """Hand the director's new requests to the referee; one that ends the match, or that
        the players cannot follow (:func:`script_left`), ends the players' script too
        (:class:`MatchOver`)."""
        if not self.inbox.take(self.pipeline.handle, self.time.now_ms(), self.log.say):
            return
        entries = self.journal.entries
        if any(e["type"] == "match_end" for e in reversed(entries)):
            self.ended_by_director = True
            raise MatchOver()
        self.left_script = script_left(entries)
        if self.left_script is not None:
            raise MatchOver()

    def press_button(self, button: Button, who: str) -> None:
        """``who`` presses a clock button; the press reaches the pipeline over the link."""
        self.clock.press(button)
        for _ in range(200):
            self.time.advance(5)
            events = self.clock.poll()
            self._deliver(events)
            if any(isinstance(e, PressEvent) for e in events):
                self._stop_check()
                return
        raise DemoStalled(f"{who} press never reached the host")

    def new_entries(self) -> list[dict[str, Any]]:
        """Journal entries written since the last call."""
        entries = self.journal.entries
        fresh = entries[self._seen:]
        self._seen = len(entries)
        return fresh

    def _rng(self, *parts: object) -> random.Random:
        """The random source of one act, the same on every run with the same seed."""
        return random.Random("-".join(str(p) for p in (self.seed, *parts)))

    def _show_progress(self, where: str, done: int, total: int) -> None:
        """The progress line: rewritten in place on a terminal, every tenth step otherwise."""
        out = self.progress
        if out is None:
            return
        text = f"{where}  frames {self.frames}  {systime.perf_counter() - self._t0:5.1f} s"
        if out.isatty():
            out.write(f"\r\033[K{text}")
        elif done % 10 == 0 or done == total:
            out.write(text + "\n")
        out.flush()
