"""``hakem demo``: simulated players play a real match in front of the full table pipeline.

The players act on what the referee says (the journal it writes, as a player would act on the
LEDs): they throw, move, double, take or drop as the record says, throw again after an invalid
throw and correct a flagged move. Every frame is rendered, JPEG-compressed and fed through the
stillness gate and the readers to the real referee; presses go to the simulated clock running
the firmware core; commands are carried out by the same executor as at a real table. Time is
simulated, so the match runs as fast as the machine renders and reads.

Restarting with the same ``--out`` resumes: the referee is rebuilt from the journal, and the
players find their place in the match from the journal too. A match whose journal already holds
its end is not played again (:attr:`DemoStats.already_finished`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import random
import sys
import time as systime
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from controller.clock.messages import Button, Side
from controller.config.table import (
    CameraSection,
    ClockSection,
    MatchSection,
    PlayersSection,
    TableConfig,
)
from controller.demo import players as pl
from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from controller.demo.harness import (
    DemoStalled,
    MatchOver,
    SimulatedTable,
    StopNow,
    director_ended,
    script_left_text,
    turn_so_far,
)
from controller.demo.script import (
    BUNDLED,
    INVALID_KINDS,
    Act,
    GameScript,
    InvalidKind,
    MatchScript,
    build_script,
)
from controller.records.files import write_changed
from controller.records.mat_export import export_match
from controller.referee.api import DirectorAction
from controller.referee.config import RecognitionSettings
from controller.runtime.loop import Pipeline
from controller.runtime.recording import Recorder
from controller.runtime.session import build_pipeline, colours_store, referee_config, start_referee
from controller.table_layout import DEFAULT_LAYOUT
from engine.backgammon.position import Position
from vision.cube import CubeProp
from vision.dice.render import DieProp
from vision.geometry import BoardGeometry
from vision.render.scene import BoardContents

if TYPE_CHECKING:
    from controller.hub.link import LinkConfig

MOTION_MS = 100  # simulated time between frames while something moves
STILL_MS = 250  # ... and while the scene is still
STILL_FRAMES = 5  # frames of a still scene shown before the player acts
# a throw it cannot judge, the referee says so once the dice have lain still for
# throw_unread_ms (BG-ROLL-2): the players wait that long for its verdict (and the stillness
# gate's few frames more) before the director looks
THROW_WAIT_FRAMES = RecognitionSettings().throw_unread_ms // STILL_MS + 8
# still frames a player waits for a verdict after pressing (the referee says "cannot read"
# after 8 s)
VERDICT_FRAMES = 48
MILESTONES = frozenset({"game_start", "opening_roll", "move", "double", "take", "drop", "resign",
                        "game_end", "match_end"})
# one journal entry per act done
ACT_ENTRIES = frozenset({"move", "double", "take", "drop", "resign"})


@dataclass
class DemoOptions:
    """What ``hakem demo`` was asked for."""

    match: Path = BUNDLED
    out: Path = Path("hakem-demo")
    illegal: int = 0
    invalid_throws: int = 0
    seed: int = 0
    record: bool = True
    invalid_kinds: tuple[InvalidKind, ...] = INVALID_KINDS
    stop_after: int | None = None  # stop after this many journal entries (tests of a restart)
    publish: LinkConfig | None = None  # the hub's broker and the table's id (--publish, --table)


def demo_settings(options: DemoOptions) -> dict[str, str]:
    """What the demo's script is made from, by command-line option: a run resuming the
    folder's journal must be given the same (``harness.pin_settings``). The match file counts
    by its content, so a copy of it elsewhere resumes too."""
    digest = hashlib.sha256(options.match.read_bytes()).hexdigest()[:16]
    return {"--game": "backgammon", "--match": f"{options.match.name} (sha256 {digest}...)",
            "--illegal": str(options.illegal), "--invalid-throws": str(options.invalid_throws),
            "--seed": str(options.seed), "kinds of invalid throws": ",".join(
                str(k) for k in options.invalid_kinds)}


@dataclass
class DemoStats:
    """What happened, for the summary line and the tests."""

    frames: int = 0
    reads: int = 0
    seconds: float = 0.0
    director_dice: int = 0
    director_rethrows: int = 0  # planted invalid throws the director had thrown again
    acts: int = 0  # the acts of the whole match
    resumed_from_act: int | None = None  # the first act of a resumed run (1-based)
    already_finished: bool = False  # the journal held the match's end: nothing was played
    ended_by_director: bool = False  # a director's request ended the match before the record
    players_stopped: str | None = None  # why the players stopped at a director's request
    # faults planted in this run (a resumed run's own, so that flagged/planted is true; an
    # illegal move pressed before the restart and shown again for its verdict counts too)
    planted_illegal: int = 0
    planted_invalid: int = 0
    planted_illegal_flagged: int = 0
    planted_invalid_flagged: int = 0
    planted_illegal_missed: list[dict[str, Any]] = field(default_factory=list)
    planted_invalid_missed: list[dict[str, Any]] = field(default_factory=list)
    unplanted_flags: list[dict[str, Any]] = field(default_factory=list)
    misread_rolls: list[dict[str, Any]] = field(default_factory=list)
    press_ms: list[float] = field(default_factory=list)
    reading: dict[str, object] = field(default_factory=dict)  # view.ReadCosts.as_json()


@dataclass
class Scene:
    """What is on the table now."""

    contents: BoardContents
    dice: tuple[DieProp, ...] = ()
    cube: CubeProp | None = None


def table_camera(seed: int) -> DemoCamera:
    """The demo table's camera: the default board, with the demo's own cube (``CUBE_MM``)."""
    return DemoCamera(seed=seed, geometry=BoardGeometry(cube_size_mm=pl.CUBE_MM))


def demo_table_config(script: MatchScript, camera: DemoCamera, out: Path) -> TableConfig:
    """The table configuration the demo runs with (the record's players, its length)."""
    crawford = (script.record.tag("Crawford") or "On").lower() != "off"
    names = script.players
    return TableConfig(
        match=MatchSection(length=script.length, crawford=crawford),
        players=PlayersSection(left=names[0], right=names[1], bottom="left"),
        camera=CameraSection(source="demo", width=camera.spec.image_size[0],
                             height=camera.spec.image_size[1],
                             corners=tuple(camera.corners_flat())),
        clock=ClockSection(port="sim"),
        # the camera's cube, as a table's owner gives theirs (hardware_docs/bill-of-materials.md)
        vision={"geometry": {"cube_size_mm": camera.geometry.cube_size_mm}},
    )


class DemoTable(SimulatedTable[Pipeline]):
    """One demo session: the pipeline, the simulated clock and LEDs, and the two players."""

    def __init__(self, options: DemoOptions, *, log: TextIO | None = None,
                 progress: TextIO | None = None) -> None:
        self.options = options
        self.script = build_script(options.match, illegal=options.illegal,
                                   invalid_throws=options.invalid_throws, seed=options.seed,
                                   invalid_kinds=options.invalid_kinds)
        self.camera = table_camera(options.seed)
        self.geometry = self.camera.geometry
        self.config = demo_table_config(self.script, self.camera, options.out)
        super().__init__(options.out, pins=self.config.signals, log=log, progress=progress,
                         seed=options.seed, stop_after=options.stop_after,
                         settings=demo_settings(options), publish=options.publish)
        self.stats = DemoStats(acts=sum(len(g.acts) for g in self.script.games))
        finished = any(e["type"] == "match_end" for e in self.journal.entries)
        self.stats.already_finished = finished
        if self.resumed and not finished:
            done = sum(1 for e in self.journal.entries if e["type"] in ACT_ENTRIES)
            self.stats.resumed_from_act = min(done + 1, self.stats.acts)
        rconfig = referee_config(self.config, players=self.script.players,
                                 length=self.script.length)
        self.referee, startup = start_referee(rconfig, self.journal.entries)
        self.recorder: Recorder | None = None
        if options.record and not finished:
            self.recorder = Recorder(self.out / "recording", {
                "config": _config_json(self.config),
                "match": self.script.path.name,
                "seed": options.seed,
                # a replay that ends before it says so (the last frames lost in a crash)
                "journal": os.path.relpath(self.journal.path, self.out / "recording"),
            }, resumed=self.resumed)
            self._closers.append(self.recorder.close)
        self.pipeline = build_pipeline(self.config, self.referee, self.executor, self.time,
                                       self.recorder,
                                       colours_file=colours_store(self.out, self.resumed))
        self._connect()
        if self.stats.resumed_from_act is not None and self.left_script is None:
            self.log.say(f"Resuming the match in {self.out} from its journal "
                         f"({len(self.journal.entries)} entries) at game "
                         f"{self._game_of(self.stats.resumed_from_act)}, act "
                         f"{self.stats.resumed_from_act} of {self.stats.acts}; another --out "
                         "starts afresh")
        self.executor.run(startup)
        self.scene = Scene(contents_from_counts(*_counts(Position.initial())))
        self._started()

    def _game_of(self, act: int) -> int:
        """The number of the script's game holding its ``act``-th act (1-based)."""
        for game in self.script.games:
            act -= len(game.acts)
            if act <= 0:
                return game.number
        return self.script.games[-1].number

    # --- plumbing ---------------------------------------------------------------------------
    def show(self, shot: Shot, frames: int = 1, step_ms: int = MOTION_MS) -> None:
        """Put a picture in front of the camera for ``frames`` frames."""
        image, jpeg = self.camera.render(shot)
        key = shot.key()
        for _ in range(frames):
            self.frame(image, step_ms, jpeg=jpeg, key=key)

    def still(self, frames: int = STILL_FRAMES) -> None:
        """The scene as it is now, with no hand over it."""
        s = self.scene
        self.show(Shot(s.contents, s.dice, s.cube), frames, STILL_MS)

    def press(self, button: Button) -> None:
        """A player presses a clock button; the press reaches the pipeline through the link."""
        self.press_button(button, f"the {button}")

    # --- the match --------------------------------------------------------------------------
    def run(self) -> DemoStats:
        """Play the match to its end (or until ``stop_after`` entries, or until a director ends
        it); a finished match plays nothing, and its records are written only where missing or
        out of date. When publishing, the broker has every entry on return."""
        start = systime.perf_counter()
        self._t0 = start
        with contextlib.suppress(StopNow):
            if not self.stats.already_finished and self.left_script is None:
                with contextlib.suppress(MatchOver):
                    self._play()
            self.write_records()
        self._hub_delivered()
        self.stats.ended_by_director = director_ended(self.journal.entries)
        if self.left_script is not None and not self.stats.already_finished:
            self.stats.players_stopped = script_left_text(self.left_script, "match")
        self.stats.frames = self.frames
        self.stats.seconds = systime.perf_counter() - start
        self.stats.reads = self.pipeline.timings.reads
        self.stats.press_ms = list(self.pipeline.timings.press_ms)
        self.stats.reading = self.pipeline.reader.costs.as_json()
        return self.stats

    def write_records(self) -> Path:
        """``match.mat`` (and ``summary.json``) from the journal, written atomically; a file
        already holding that text is left alone (a finished match run again)."""
        export = export_match(self.journal.entries)
        path = self.out / "match.mat"
        summary = self.out / "summary.json"
        wrote = [write_changed(path, export.mat_text),
                 write_changed(summary, json.dumps(export.summary, indent=1))]
        if any(wrote):
            self.log.say(f"Wrote {path} and {summary}")
        return path

    def _done_milestones(self) -> list[dict[str, Any]]:
        return [e for e in self.journal.entries
                if e["type"] in MILESTONES and not (e["type"] == "opening_roll" and e.get("tie"))]

    def _play(self) -> None:
        done = self._done_milestones()
        self.new_entries()
        index = 0  # milestones of the script passed so far
        total = sum(len(g.acts) for g in self.script.games)
        acts_done = 0
        for g, game in enumerate(self.script.games):
            # game_start was journalled by the referee itself (at the match start or after the
            # previous game's end)
            index += 1
            cube = None if game.crawford else pl.centre_cube(self.geometry)
            self.scene = Scene(contents_from_counts(*_counts(Position.initial())), (), cube)
            if index >= len(done) or done[index]["type"] != "opening_roll":
                self._opening(g, game)
            index += 1
            owner: int | None = None
            value = 1
            for a, act in enumerate(game.acts):
                milestone_done = index < len(done)
                if act.kind == "move":
                    self._move(g, a, act, resumed_done=milestone_done, first=(a == 0))
                elif act.kind == "double":
                    self._double(act, value, owner, done=milestone_done)
                    value = act.cube
                elif act.kind == "take":
                    owner = act.player
                    self._take(act, value, done=milestone_done)
                elif act.kind == "drop":
                    self._drop(act, done=milestone_done)
                elif act.kind == "resign":
                    self._resign(act, done=milestone_done)
                index += 1
                acts_done += 1
                if not milestone_done:  # an act done before a restart is not played again
                    self._progress(game, acts_done, total)
            # game_end (and the next game_start) follow from the last act
            index += 1
            self._expect_count("game_end", g + 1, f"the end of game {game.number}")
        self._expect_count("match_end", 1, "the match's end")

    def _progress(self, game: GameScript, acts_done: int, total: int) -> None:
        """The progress line: rewritten in place on a terminal, every tenth act otherwise."""
        self._show_progress(f"game {game.number}/{len(self.script.games)}  "
                            f"act {acts_done}/{total}", acts_done, total)

    def _expect_count(self, kind: str, count: int, what: str) -> None:
        """The journal must hold ``count`` entries of ``kind`` (waiting a few frames)."""
        for _ in range(8):
            if sum(1 for e in self.journal.entries if e["type"] == kind) >= count:
                self.new_entries()
                return
            self.still(1)
        raise DemoStalled(f"the referee did not journal {what}")

    def _wait(self, kinds: tuple[str, ...], what: str, frames: int = 16) -> dict[str, Any]:
        """Show the still scene until the referee journals one of ``kinds``."""
        found = self._await(kinds, frames)
        if found is None:
            raise DemoStalled(f"the referee did not journal {what} "
                              f"(last entries: {[e['type'] for e in self.journal.entries[-4:]]})")
        return found

    def _await(self, kinds: tuple[str, ...], frames: int = 16) -> dict[str, Any] | None:
        """Show the still scene frame by frame until one of ``kinds`` is journalled."""
        for _ in range(frames):
            found = self._find(kinds)
            if found is not None:
                return found
            self.still(1)
        return self._find(kinds)

    def _find(self, kinds: tuple[str, ...]) -> dict[str, Any] | None:
        for entry in self.new_entries():
            if entry["type"] in kinds:
                return entry
        return None

    def _reach(self, player: int, target: tuple[float, float], rng: random.Random,
               contents: BoardContents | None = None, dice: tuple[DieProp, ...] = (),
               cube: CubeProp | None = None, frames: int = 2) -> None:
        """An arm reaching in from the player's edge over the board to ``target`` (motion)."""
        s = self.scene
        edge = self.geometry.height_mm + 60.0 if player == 0 else -60.0
        for k in range(frames):
            f = (k + 1) / frames
            tip = (target[0] + rng.uniform(-15, 15),
                   edge + (target[1] - edge) * f + rng.uniform(-10, 10))
            arm = pl.hand(self.geometry, player, tip, rng)
            self.show(Shot(contents if contents is not None else s.contents, dice,
                           cube if cube is not None else s.cube, (arm,)))

    # --- acts -------------------------------------------------------------------------------
    def _opening(self, g: int, game: GameScript) -> None:
        """Set the board up and throw one die each until the opening roll counts (BG-OPEN-1)."""
        rng = self._rng("setup", g)
        mid = (self.geometry.width_mm / 2, self.geometry.height_mm / 2)
        self._reach(0, (mid[0] - 120, mid[1] + 60), rng, dice=())
        self._reach(1, (mid[0] + 120, mid[1] - 60), rng, dice=())
        self.scene.dice = ()
        self.still()  # the set-up lies still (phantoms seen now are no throw)
        self.new_entries()
        throw = pl.opening_dice(self.geometry, game.opening, rng)
        self._reach(0, (throw[0].x_mm, throw[0].y_mm), rng, dice=pl.rolling_dice(throw, rng, 0))
        self._reach(1, (throw[1].x_mm, throw[1].y_mm), rng, dice=pl.rolling_dice(throw, rng, 1))
        self.scene.dice = throw
        entry = self._await(("opening_roll",), 16)
        if entry is None:
            # the opening dice could not be read: the director enters them
            self.stats.director_dice += 1
            self.pipeline.handle(DirectorAction(self.time.now_ms(), "set_dice",
                                                {"dice": list(game.opening)}, "demo-director"))
            entry = self._wait(("opening_roll",), "the director's opening throw")
        if entry.get("tie"):
            raise DemoStalled("the opening dice were read as equal")
        starter = int(entry["player"])
        self.press(self._side(1 - starter))  # BG-OPEN-3: the smaller die starts the clock

    def _side(self, player: int) -> Side:
        return "left" if player == 0 else "right"

    def _throw(self, g: int, a: int, act: Act) -> None:
        """Throw the dice (again after an invalid throw) until the referee counts the roll; a
        throw the journal already judged (before a restart) was the planted one."""
        judged = any(e["type"] in ("invalid_throw", "cannot_read")
                     for e in self._pending_since_milestone())
        attempt = 1 if judged else 0
        planted = act.invalid
        while True:
            rng = self._rng("throw", g, a, attempt)
            bad = planted if attempt == 0 else None
            if bad is not None:
                self.stats.planted_invalid += 1
            dice = pl.thrown_dice(self.geometry, act.player, act.dice, rng, bad,
                                  self.scene.contents, self.camera.column_end)
            spot = (dice[0].x_mm, dice[0].y_mm)
            # the thrower picks the dice up, shakes them and throws (a hand over the board)
            self._reach(act.player, spot, rng, dice=(), frames=1)
            self._reach(act.player, spot, rng, dice=pl.rolling_dice(dice, rng, 1), frames=1)
            self.scene.dice = dice
            entry = self._await(("roll", "invalid_throw", "cannot_read"), THROW_WAIT_FRAMES)
            roll = entry if entry is not None and entry["type"] == "roll" else None
            if entry is not None and entry["type"] == "invalid_throw":
                if bad is not None:
                    self.stats.planted_invalid_flagged += 1
                else:
                    self.stats.unplanted_flags.append(entry)
            elif bad is not None:
                # the planted fault went unflagged: counted as a roll, or the referee said it
                # cannot judge the throw (the director looks and has it thrown again)
                self.stats.planted_invalid_missed.append(
                    {"kind": bad, "dice": list(act.dice), "read": entry})
                if roll is not None:
                    self.log.say(f"(demo: the planted {bad} throw was not flagged)")
                    self._check_roll(roll, act)
                    return
                self._director_rethrow(bad, said=entry is not None)
            elif roll is not None:
                self._check_roll(roll, act)
                return
            else:  # a valid throw the referee could not judge: the director enters it
                self._director_dice(act)
                return
            attempt += 1
            if attempt > 4:
                raise DemoStalled("the dice were thrown five times without a valid throw")

    def _check_roll(self, entry: dict[str, Any], act: Act) -> None:
        """A roll counted with other numbers than were thrown (a misread die): the players see
        it in the log and the director sets the dice thrown (DirectorAction set_dice)."""
        if tuple(sorted(entry["dice"])) == tuple(sorted(act.dice)):
            return
        self.stats.misread_rolls.append({"thrown": list(act.dice), "read": entry["dice"]})
        self.log.say(f"(demo: dice {act.dice[0]}{act.dice[1]} were read as "
                     f"{entry['dice'][0]}{entry['dice'][1]}; the director sets them)")
        self.pipeline.handle(DirectorAction(self.time.now_ms(), "set_dice",
                                            {"dice": list(act.dice)}, "demo-director"))
        self.new_entries()

    def _director_rethrow(self, kind: InvalidKind, *, said: bool) -> None:
        """A planted invalid throw the referee did not flag: the director, called by its
        "cannot judge" (``said``) or by the players, has it thrown again (BG-ROLL-2)."""
        self.stats.director_rethrows += 1
        why = "the referee could not judge" if said else "the referee said nothing of"
        self.log.say(f"(demo: {why} the planted {kind} throw; the director has it thrown again)")
        self.pipeline.handle(DirectorAction(self.time.now_ms(), "note",
                                            {"text": f"{kind} throw: thrown again (BG-ROLL-2)"},
                                            "demo-director"))
        self.new_entries()

    def _director_dice(self, act: Act) -> None:
        """The dice could not be read: the director enters them (DirectorAction set_dice)."""
        self.stats.director_dice += 1
        self.pipeline.handle(DirectorAction(self.time.now_ms(), "set_dice",
                                            {"dice": list(act.dice)}, "demo-director"))
        self._wait(("roll",), "the director's dice")

    def _move(self, g: int, a: int, act: Act, *, resumed_done: bool, first: bool) -> None:
        """Throw, play the act's move (the planted illegal one first, then its correction) and
        press; after a restart, go on from where the journal says the turn stands."""
        if resumed_done:
            self.scene.contents = contents_from_counts(*_counts(act.after))
            self.scene.dice = ()
            return
        pending = self._pending_since_milestone()
        rolled = first or any(e["type"] == "roll" for e in pending)
        # after a restart: the planted move judged (its press is not the correction's), or a
        # press waiting for its verdict (not pressed again)
        so_far = turn_so_far(pending, act.player)
        pressed = so_far.pressed
        self.scene.contents = contents_from_counts(*_counts(act.before))
        if not rolled:
            self._throw(g, a, act)
        elif not first:
            self.scene.dice = pl.thrown_dice(self.geometry, act.player, act.dice,
                                             self._rng("throw", g, a, 9))
        rng = self._rng("move", g, a)
        target = (self.geometry.width_mm / 2 + rng.uniform(-200, 200),
                  self.geometry.height_mm / 2 + (120 if act.player == 0 else -120))
        if act.illegal is not None and not so_far.judged:
            # planted in this run: played and pressed now, or (pressed before a restart, the
            # verdict not yet journalled) shown again for the referee to judge
            self.stats.planted_illegal += 1
            wrong = contents_from_counts(*_counts(act.illegal))
            if not pressed:
                self._reach(act.player, target, rng, contents=self.scene.contents,
                            dice=self.scene.dice, frames=1)
                self._reach(act.player, target, rng, contents=wrong, dice=self.scene.dice,
                            frames=1)
            self.scene.contents = wrong
            self.still()
            if not pressed:
                self.press(self._side(act.player))
            pressed = False  # the correction is pressed anew
            entry = self._await(("illegal_move", "move", "cannot_read"), VERDICT_FRAMES)
            if entry is not None and entry["type"] == "illegal_move":
                self.stats.planted_illegal_flagged += 1
            elif entry is not None and entry["type"] == "cannot_read":
                # not flagged, but not accepted either: the player puts the move right anyway
                self.stats.planted_illegal_missed.append(entry)
                self.log.say(f"(demo: the planted illegal move was not flagged but "
                             f"\"{entry.get('reason', '')}\"; {self.script.players[act.player]}"
                             " corrects it)")
            else:
                raise DemoStalled(f"a planted illegal move ({act.move} played as "
                                  f"{act.illegal.position_id}) was "
                                  f"{'accepted' if entry else 'not judged'} (TTB-4.8)")
        after = contents_from_counts(*_counts(act.after))
        if not pressed:
            self._reach(act.player, target, rng, contents=self.scene.contents,
                        dice=self.scene.dice, frames=1)
            self._reach(act.player, target, rng, contents=after, dice=self.scene.dice, frames=1)
        self.scene.contents = after
        self.still()
        if not pressed:
            self.press(self._side(act.player))
        entry = self._await(("move", "illegal_move", "cannot_read"), VERDICT_FRAMES)
        if entry is None or entry["type"] != "move":
            got = "nothing" if entry is None else f"{entry['type']}: {entry.get('reason', '')}"
            raise DemoStalled(f"{self.script.players[act.player]}'s legal move {act.move or '-'}"
                              f" ({act.dice[0]}{act.dice[1]}) was not accepted ({got})")
        if entry.get("position_id") != (act.after if act.player == 0
                                        else act.after.swap()).position_id:
            raise DemoStalled(f"move {act.move} was recorded as {entry.get('move')!r}")

    def _pending_since_milestone(self) -> list[dict[str, Any]]:
        entries = self.journal.entries
        out: list[dict[str, Any]] = []
        for entry in reversed(entries):
            if entry["type"] in MILESTONES:
                break
            out.append(entry)
        return out[::-1]

    def _double(self, act: Act, value: int, owner: int | None, *, done: bool) -> None:
        cube = pl.offered_cube(self.geometry, act.player, act.cube)
        if done:
            self.scene.cube = cube
            self.scene.dice = ()
            return
        rng = self._rng("double", act.player, act.cube)
        self.scene.dice = ()
        self._reach(act.player, (cube.x_mm, cube.y_mm), rng, cube=cube)
        self.scene.cube = cube
        self.still()
        self.press(self._side(act.player))
        self._wait(("double",), f"{self.script.players[act.player]}'s double")

    def _take(self, act: Act, value: int, *, done: bool) -> None:
        cube = pl.owned_cube(self.geometry, act.player, act.cube)
        if done:
            self.scene.cube = cube
            return
        rng = self._rng("take", act.player, act.cube)
        self._reach(act.player, (cube.x_mm, cube.y_mm), rng, cube=cube)
        self.scene.cube = cube
        self.still()
        self.press(self._side(act.player))
        self._wait(("take",), f"{self.script.players[act.player]}'s take")

    def _drop(self, act: Act, *, done: bool) -> None:
        cube = pl.centre_cube(self.geometry)
        if done:
            self.scene.cube = cube
            return
        rng = self._rng("drop", act.player)
        self._reach(act.player, (cube.x_mm, cube.y_mm), rng, cube=cube)
        self.scene.cube = cube
        self.still()
        self.press("hold")
        self._wait(("drop",), f"{self.script.players[act.player]}'s drop")


    def _resign(self, act: Act, *, done: bool) -> None:
        """The player resigns and the opponent accepts: the director enters it, as the table
        cannot see it (``hakem director resign``)."""
        if done:
            return
        self.still()
        self.pipeline.handle(DirectorAction(self.time.now_ms(), "resign",
                                            {"player": act.player, "kind": act.resigned},
                                            "director"))
        self._wait(("resign",), f"{self.script.players[act.player]}'s resignation")


def _counts(position: Position) -> tuple[tuple[tuple[int, int], ...], tuple[int, int],
                                           tuple[int, int]]:
    c = DEFAULT_LAYOUT.counts(position)
    return c.slots, c.bar, c.off


def _config_json(config: TableConfig) -> dict[str, Any]:
    return dataclasses.asdict(config)


def run_demo(options: DemoOptions, *, log: TextIO | None = None,
             progress: TextIO | None = None) -> DemoStats:
    """Play the whole match; the journal, snapshots and recording go into ``options.out``."""
    with DemoTable(options, log=log if log is not None else sys.stdout,
                   progress=progress) as table:
        return table.run()
