"""``hakem demo --game mangala``: simulated players play a whole round in front of the full table
pipeline (stillness gate, stone reader, referee, simulated clock running the firmware core,
LEDs on gpiozero's mock pins, journal), in simulated time.

Every board the players leave is rendered by ``vision.mangala.render`` and seen by a camera that
does not move (each picture is brought to the table's fixed board corners); arms reach in from
the mover's edge while they sow. The players act as the referee tells them: they press the clock
after a sowing (not after one ending in their own store: they sow again, MG-1), correct a flagged
sowing, make the sweep at the set's end (MG-4) and set the board up for the next set.
Restarting with the same ``--out`` resumes the round from its journal; a round whose journal
already holds its end (``match_end``) is not played again
(:attr:`MangalaDemoStats.already_finished`).
"""

from __future__ import annotations

import contextlib
import json
import random
import time as systime
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import cv2
import numpy as np

from controller.demo.harness import (
    DemoStalled,
    MatchOver,
    SimulatedTable,
    StopNow,
    director_ended,
    script_left_text,
    turn_so_far,
)
from controller.mangala.pipeline import MangalaPipeline
from controller.mangala.reading import MangalaFrameReader
from controller.mangala.records import RECORD_NAME, round_text
from controller.mangala.referee import MangalaConfig, start_referee
from controller.mangala.script import (
    MAX_EACH,
    MAX_PLANTED,
    RoundScript,
    Sowing,
    build_round,
)
from controller.records.files import write_changed
from controller.referee.api import DirectorAction, Say
from engine.errors import InvalidInputError
from engine.mangala.position import Position, Side
from engine.mangala.sowing import play
from vision.mangala.geometry import DEFAULT_GEOMETRY, MangalaCalibration
from vision.mangala.render import render_mangala

if TYPE_CHECKING:
    from controller.hub.link import LinkConfig

MOTION_MS = 100  # simulated time between frames while hands move
STILL_MS = 250  # ... and while the board is still
STILL_FRAMES = 6  # still frames shown before a player presses
VERDICT_FRAMES = 48  # still frames a player waits for a verdict (cannot-read comes at 8 s)
PLAYERS = ("Ayşe", "Mehmet")
SKIN = ((120, 150, 205), (90, 120, 170))
SLEEVE = ((110, 50, 30), (40, 80, 120))


@dataclass
class MangalaDemoOptions:
    """What ``hakem demo --game mangala`` was asked for."""

    out: Path = Path("hakem-demo")
    illegal: int = 0
    seed: int = 0
    size: tuple[int, int] = (1280, 720)
    players: tuple[str, str] = PLAYERS
    first_starter: Side = "a"
    stop_after: int | None = None  # stop after this many journal entries (tests of a restart)
    publish: LinkConfig | None = None  # the hub's broker and the table's id (--publish, --table)


@dataclass
class MangalaDemoStats:
    """What happened, for the summary and the tests."""

    frames: int = 0
    reads: int = 0
    renders: int = 0
    seconds: float = 0.0
    sowings: int = 0  # sowings played in this run
    round_sowings: int = 0  # the sowings of the whole round
    resumed_from_sowing: int | None = None  # the first sowing of a resumed run (1-based)
    already_finished: bool = False  # the journal held the round's end: nothing was played
    ended_by_director: bool = False  # a director's request ended the round before the script
    players_stopped: str | None = None  # why the players stopped at a director's request
    # illegal sowings planted in this run (a resumed run's own, so that flagged/planted is true;
    # one pressed before the restart and shown again for its verdict counts too)
    planted_illegal: int = 0
    planted_in_round: int = 0  # ... and in the whole round's script
    planted_flagged: int = 0
    planted_missed: list[dict[str, Any]] = field(default_factory=list)
    unplanted_flags: list[dict[str, Any]] = field(default_factory=list)
    director_accepts: int = 0
    press_ms: list[float] = field(default_factory=list)


def fixed_corners(size: tuple[int, int]) -> np.ndarray:
    """Where the table's camera sees the board's corners (TL, TR, BR, BL): the demo's camera
    never moves during the round."""
    w, h = size
    g = DEFAULT_GEOMETRY
    bw = 0.84 * w
    bh = bw * g.width_mm / g.length_mm
    cx, cy = w / 2, h / 2
    tilt = 0.03 * bw
    return np.array([[cx - bw / 2 + tilt, cy - bh / 2], [cx + bw / 2 - tilt, cy - bh / 2],
                     [cx + bw / 2, cy + bh / 2], [cx - bw / 2, cy + bh / 2]], np.float32)


class MangalaCamera:
    """Renders boards as the fixed table camera sees them, and arms reaching over them."""

    def __init__(self, seed: int, size: tuple[int, int]) -> None:
        self.seed = seed
        self.size = size
        self.corners = fixed_corners(size)
        self.calibration = MangalaCalibration(self.corners, DEFAULT_GEOMETRY)
        self._cache: dict[tuple[tuple[int, ...], int], np.ndarray] = {}
        self.renders = 0

    def board(self, cells: tuple[int, ...], scene: int) -> np.ndarray:
        """The picture of a still board (rendered once per scene)."""
        key = (cells, scene)
        image = self._cache.get(key)
        if image is None:
            if len(self._cache) > 8:
                self._cache.clear()
            raw, corners = render_mangala(list(cells), self.seed * 100_003 + scene,
                                          size=self.size)
            hom = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), self.corners)
            image = cv2.warpPerspective(raw, hom, self.size, flags=cv2.INTER_LINEAR,
                                        borderMode=cv2.BORDER_REPLICATE)
            self._cache[key] = image
            self.renders += 1
        return image

    def arm(self, image: np.ndarray, player: Side, cell: int, rng: random.Random
            ) -> np.ndarray:
        """``image`` with the player's arm reaching from their edge to ``cell``."""
        g = DEFAULT_GEOMETRY
        cx, cy = g.cell(cell).centre
        tip = (cx + rng.uniform(-12, 12), cy + rng.uniform(-12, 12))
        edge_y = g.width_mm + 260.0 if player == "a" else -260.0
        entry = (tip[0] + rng.uniform(-80, 80), edge_y)
        pts = self.calibration.points_to_image(np.array([entry, tip], np.float64))
        scale = self.calibration.px_per_mm()
        out = image.copy()
        k = 0 if player == "a" else 1
        p0 = (int(pts[0][0]), int(pts[0][1]))
        p1 = (int(pts[1][0]), int(pts[1][1]))
        cv2.line(out, p0, p1, SLEEVE[k], max(2, int(85 * scale)), cv2.LINE_AA)
        cv2.circle(out, p1, max(2, int(38 * scale)), SKIN[k], -1, cv2.LINE_AA)
        mid = (int((pts[0][0] + 2 * pts[1][0]) / 3), int((pts[0][1] + 2 * pts[1][1]) / 3))
        cv2.line(out, mid, p1, SKIN[k], max(2, int(60 * scale)), cv2.LINE_AA)
        return out


class MangalaDemo(SimulatedTable[MangalaPipeline]):
    """One demo session: the pipeline, the simulated clock and LEDs, and the two players."""

    def __init__(self, options: MangalaDemoOptions, *, log: TextIO | None = None,
                 progress: TextIO | None = None,
                 reader: Callable[[MangalaCamera], MangalaFrameReader] | None = None) -> None:
        """``reader`` makes the frame reader from the camera (default: the stone reader at the
        camera's fixed corners)."""
        self.options = options
        if options.illegal > MAX_PLANTED:
            raise InvalidInputError(
                f"--illegal {options.illegal}: a player's third warning ends the round "
                f"(MG-T-4), so at most {MAX_PLANTED} illegal sowings ({MAX_EACH} each) can be "
                "planted and played through")
        self.script: RoundScript = build_round(options.seed, options.illegal,
                                               options.first_starter, per_player=MAX_EACH)
        super().__init__(options.out, log=log, progress=progress, keep=400, seed=options.seed,
                         stop_after=options.stop_after, settings={
                             "--game": "mangala", "--illegal": str(options.illegal),
                             "--seed": str(options.seed),
                             "picture size": f"{options.size[0]}x{options.size[1]}",
                             "players": " and ".join(options.players),
                             "first starter": options.first_starter},
                         publish=options.publish)
        self.stats = MangalaDemoStats(round_sowings=self.script.sowings,
                                      planted_in_round=self.script.planted)
        self.camera = MangalaCamera(options.seed, options.size)
        config = MangalaConfig(players=options.players, first_starter=options.first_starter)
        self.referee, startup = start_referee(config, self.journal.entries)
        finished = self.referee.over  # the journal holds the round's end (match_end)
        self.stats.already_finished = finished
        if self.resumed and not finished:
            done = sum(1 for e in self.journal.entries if e["type"] == "move")
            self.stats.resumed_from_sowing = min(done + 1, self.script.sowings)
        frame_reader = (reader(self.camera) if reader is not None
                        else MangalaFrameReader(self.camera.corners))
        self.pipeline = MangalaPipeline(self.referee, frame_reader, self.executor, self.time)
        self._connect()
        if self.stats.resumed_from_sowing is not None and self.left_script is None:
            self.log.say(f"Resuming the round in {self.out} from its journal "
                         f"({len(self.journal.entries)} entries) at sowing "
                         f"{self.stats.resumed_from_sowing} of {self.script.sowings}; another "
                         "--out starts afresh")
        if finished:  # nothing to say of it in the live log (nor to append to live.log)
            startup = [c for c in startup if not isinstance(c, Say)]
        self.executor.run(startup)
        self.cells: tuple[int, ...] = Position.initial().board()
        self.scene = 0
        self._started()

    # --- plumbing ---------------------------------------------------------------------------
    def still(self, frames: int = STILL_FRAMES) -> None:
        """The board as it lies now, no hand over it."""
        image = self.camera.board(self.cells, self.scene)
        for _ in range(frames):
            self.frame(image, STILL_MS, key=f"{self.scene}")

    def lay(self, cells: tuple[int, ...], player: Side, cell: int, rng: random.Random) -> None:
        """The player's hand over the board while the stones go to ``cells``."""
        before = self.camera.board(self.cells, self.scene)
        self.frame(self.camera.arm(before, player, cell, rng), MOTION_MS)
        self.cells = cells
        self.scene += 1
        after = self.camera.board(self.cells, self.scene)
        self.frame(self.camera.arm(after, player, cell, rng), MOTION_MS)

    def _laid(self, cells: tuple[int, ...]) -> None:
        """The stones lie as a hand laid them before a restart: the scene the uninterrupted
        round reached there, so the resumed round is shown the same pictures from then on."""
        self.cells = cells
        self.scene += 1

    def press(self, player: Side) -> None:
        """A player presses their clock button; the press reaches the pipeline over the link."""
        self.press_button(self.referee.side_of(player), f"{player}'s")

    def _await(self, kinds: tuple[str, ...], frames: int = VERDICT_FRAMES,
               match: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any] | None:
        """Show the still board frame by frame until the referee journals one of ``kinds``."""
        for k in range(frames + 1):
            for entry in self.new_entries():
                if entry["type"] in kinds and (match is None or match(entry)):
                    return entry
                if entry["type"] == "match_end" and "match_end" not in kinds:
                    raise MatchOver()
            if k < frames:
                self.still(1)
        return None

    # --- the round --------------------------------------------------------------------------
    def run(self) -> MangalaDemoStats:
        """Play the round to its end (or until ``stop_after`` entries, or until a director ends
        it); write the records. A finished round plays nothing, and its records are written only
        where missing or out of date. When publishing, the broker has every entry on return."""
        start = systime.perf_counter()
        self._t0 = start
        with contextlib.suppress(StopNow):
            if not self.stats.already_finished and self.left_script is None:
                with contextlib.suppress(MatchOver):
                    self._play()
                if (self.left_script is None and self._await(("match_end",), 16) is None
                        and not self.referee.over):
                    raise DemoStalled("the referee did not journal the round's end")
            self.write_records()
        self._hub_delivered()
        self.stats.ended_by_director = director_ended(self.journal.entries)
        if self.left_script is not None and not self.stats.already_finished:
            self.stats.players_stopped = script_left_text(self.left_script, "round")
        self.stats.frames = self.frames
        self.stats.seconds = systime.perf_counter() - start
        self.stats.reads = self.pipeline.timings.computed
        self.stats.renders = self.camera.renders
        self.stats.press_ms = list(self.pipeline.timings.press_ms)
        return self.stats

    def write_records(self) -> Path:
        """The round record (the engine's text format) and ``summary.json`` from the journal,
        written atomically; a file already holding that text is left alone (a finished round run
        again)."""
        path = self.out / RECORD_NAME
        end = [e for e in self.journal.entries if e["type"] == "match_end"]
        summary = {
            "game": "mangala",
            "players": list(self.options.players),
            "sets": [{k: e.get(k) for k in ("set", "stores", "winner", "ended_by",
                                            "stores_checked")}
                     for e in self.journal.entries if e["type"] == "game_end"],
            "winner": end[-1].get("winner") if end else None,
            "points": end[-1].get("points") if end else None,
            "how": end[-1].get("how") if end else None,
        }
        wrote = [write_changed(path, round_text(self.journal.entries)),
                 write_changed(self.out / "summary.json", json.dumps(summary, indent=1))]
        if any(wrote):
            self.log.say(f"Wrote {path} and {self.out / 'summary.json'}")
        return path

    def _play(self) -> None:
        entries = self.journal.entries
        moves_done = sum(1 for e in entries if e["type"] == "move")
        starts_done = sum(1 for e in entries if e["type"] == "clock" and e.get("means") == "start")
        self.new_entries()
        total = self.script.sowings
        for number, sowings in enumerate(self.script.sets, start=1):
            if number > starts_done:
                self._setup(number)
            elif self.cells != Position.initial().board():  # set up before the restart
                self._laid(Position.initial().board())
            for w in sowings:
                if w.index < moves_done:
                    if w.illegal is not None:
                        self._laid(w.illegal)
                    self._laid(_sown(w))
                    continue
                self._sow(w)
                self.stats.sowings += 1
                self._progress(number, w.index + 1, total)
            self._set_end(number)

    def _progress(self, number: int, done: int, total: int) -> None:
        self._show_progress(f"set {number}  sowing {done}/{total}", done, total)

    def _setup(self, number: int) -> None:
        """Both players put 4 stones in every pit (MG-EQ-1); the referee starts the clock."""
        rng = self._rng("setup", number)
        initial = Position.initial().board()
        if self.cells != initial:
            self.lay(initial, "a", rng.randrange(6), rng)
            self.frame(self.camera.arm(self.camera.board(self.cells, self.scene), "b",
                                       7 + rng.randrange(6), rng), MOTION_MS)
        entry = self._await(("clock",), VERDICT_FRAMES, lambda e: e.get("means") == "start")
        if entry is None:
            raise DemoStalled(f"the referee did not start the clock for set {number} "
                              f"(last entries: {[e['type'] for e in self.journal.entries[-4:]]})")

    def _sow(self, w: Sowing) -> None:
        mover = w.before.to_move
        assert mover is not None
        rng = self._rng("sow", w.index)
        result = play(w.before, w.pit)
        origin = w.pit - 1 if mover == "a" else 6 + w.pit
        # after a restart: the planted mistake judged (its press is not the correction's), or a
        # press waiting for its verdict (not pressed again: a second press of a mistake is a
        # second warning, MG-T-4)
        so_far = turn_so_far(self._since_move(), mover)
        pressed = so_far.pressed
        if w.illegal is not None and so_far.judged:
            self._laid(w.illegal)  # flagged before the restart
        if w.illegal is not None and not so_far.judged:
            self.stats.planted_illegal += 1
            if pressed:
                self._laid(w.illegal)
            else:
                self.lay(w.illegal, mover, origin, rng)
            self.still()
            if not pressed:
                self.press(mover)
            pressed = False  # the correction is pressed anew
            entry = self._await(("illegal_move", "move", "cannot_read"))
            if entry is not None and entry["type"] == "illegal_move":
                self.stats.planted_flagged += 1
                if self.referee.over:  # a third warning lost the round (MG-T-4)
                    raise MatchOver()
            else:
                self.stats.planted_missed.append(
                    {"index": w.index, "mistake": w.mistake, "got": entry})
                self.log.say(f"(demo: the planted mistake \"{w.mistake}\" was not flagged)")
                if entry is not None and entry["type"] == "move":
                    raise DemoStalled(f"a planted illegal sowing ({w.mistake}) was accepted")
        sown = _sown(w)
        if pressed:  # before a restart: the stones lie as sown
            self._laid(sown)
        else:
            self.lay(sown, mover, origin, rng)
        self.still()
        kinds = ("move", "illegal_move", "cannot_read")
        entry = None
        if result.extra_turn and not pressed:  # the turn has not passed: no press, the player
            # sows again (MG-1)
            entry = self._await(kinds, STILL_FRAMES * 4)
        if entry is None:  # the referee gives the clock back if the turn goes on (MG-1)
            if not pressed:
                self.press(mover)
            entry = self._await(kinds)
        if entry is not None and entry["type"] != "move":
            # a legal sowing flagged, or not read: the director looks and enters the pit
            self.stats.unplanted_flags.append({"index": w.index, "got": entry})
            self.log.say(f"(demo: {mover}'s legal sowing of pit {w.pit} got "
                         f"{entry['type']}: {entry.get('reason', '')}; the director enters it)")
            self.stats.director_accepts += 1
            self.pipeline.handle(DirectorAction(self.time.now_ms(), "accept", {"pit": w.pit},
                                                "demo-director"))
            entry = self._await(("move",), 4)
        if entry is None or entry["type"] != "move":
            raise DemoStalled(f"{mover}'s legal sowing of pit {w.pit} was not accepted")
        if entry.get("pit") != w.pit and tuple(entry.get("board", ())) != \
                result.position.board():
            raise DemoStalled(f"pit {w.pit} was recorded as pit {entry.get('pit')}")
        # a chain at the press journals several moves: take them all
        self.new_entries()

    def _since_move(self) -> list[dict[str, Any]]:
        """The journal's entries since the last sowing or set start (a turn under way)."""
        out: list[dict[str, Any]] = []
        for e in reversed(self.journal.entries):
            if e["type"] in ("move", "game_start"):
                break
            out.append(e)
        return out[::-1]

    def _set_end(self, number: int) -> None:
        """The sweep (MG-4): the player whose side emptied takes the rest; the referee counts."""
        done = any(e["type"] == "game_end" and e.get("set") == number
                   for e in self.journal.entries)
        last = self.script.sets[number - 1][-1]
        final = play(last.before, last.pit)
        # who sweeps what is left into their store, when anything is left
        sweeper = final.sweeper if self.cells != final.position.board() else None
        if done:  # swept before a restart
            if sweeper is not None:
                self._laid(final.position.board())
            return
        if sweeper is not None:
            rng = self._rng("sweep", number)
            cell = 6 if sweeper == "a" else 13
            self.lay(final.position.board(), sweeper, cell, rng)
        wait = self.referee.config.sweep_wait_ms // STILL_MS + 16
        entry = self._await(("game_end",), wait)
        if entry is None:
            raise DemoStalled(f"the referee did not journal the end of set {number}")


def _sown(w: Sowing) -> tuple[int, ...]:
    """How the stones lie once ``w`` is sown: before the sweep when it ends the set (MG-4)."""
    result = play(w.before, w.pit)
    return result.position.board() if not result.set_over else result.sown.board()


def run_mangala_demo(options: MangalaDemoOptions, *, log: TextIO | None = None,
                     progress: TextIO | None = None) -> MangalaDemoStats:
    """Play the whole round; the journal, snapshots and round record go into ``options.out``."""
    with MangalaDemo(options, log=log, progress=progress) as demo:
        return demo.run()


__all__ = ["MangalaCamera", "MangalaDemo", "MangalaDemoOptions", "MangalaDemoStats",
           "fixed_corners", "run_mangala_demo"]
