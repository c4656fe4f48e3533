"""A table restarted while a throw is due, the last throw's dice still lying: its dice memory is
new, so it has no picture of the board before the throw (taken at the last press), and a die
thrown again that lands where one lay was taken for the die lying there, the throw left to the
director (or a checker column's texture, read thoroughly, for a cocked die of it). The restarted
table takes the first still frame whose dice lie as the journal's last throw left them as that
picture instead. Rendered frames through the real pipeline and referee, the journal written by
a first life and resumed by a second; the scene is one of the 20-match evaluation's
(``tests.vision.test_dice_thrown_since``): the new throw's one lands 4.6 mm from the old one."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

from controller.clock.timebase import FakeTime
from controller.config.table import CameraSection, PlayersSection, TableConfig
from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from controller.demo.players import hand
from controller.records.journal import Journal
from controller.referee.api import ClockPressed
from controller.runtime.effects import Executor, LiveLog
from controller.runtime.loop import Pipeline
from controller.runtime.session import build_pipeline, referee_config, start_referee
from controller.table_layout import DEFAULT_LAYOUT
from engine.backgammon.position import Position
from tests.vision.test_dice_thrown_since import CUBE, OPENING, SLOTS, THROWN
from vision.render.scene import BoardContents

CAMERA = DemoCamera(seed=212)
CONFIG = TableConfig(players=PlayersSection(left="Ayşe", right="Mehmet", bottom="left"),
                     camera=CameraSection(source="demo", corners=tuple(CAMERA.corners_flat())))
START = DEFAULT_LAYOUT.counts(Position.initial())
INITIAL = contents_from_counts(START.slots, START.bar, START.off)
AFTER = BoardContents(slots=SLOTS)  # player 1's opening 51 played: 13/8 24/23


class Life:
    """One life of the table: journal, referee and pipeline on the journal's folder."""

    def __init__(self, folder: Path, time: FakeTime) -> None:
        self.time = time
        self.journal = Journal(folder / "journal.jsonl")
        referee, startup = start_referee(referee_config(CONFIG), self.journal.entries)
        self.referee = referee
        executor = Executor(self.journal, None, None, None, LiveLog(stream=io.StringIO()),
                            frame_jpeg=lambda: None)
        self.pipeline: Pipeline = build_pipeline(CONFIG, referee, executor, time)
        executor.run(startup)
        self.rng = random.Random(5)

    def still(self, shot: Shot, frames: int = 5) -> None:
        image, jpeg = CAMERA.render(shot)
        for _ in range(frames):
            self.time.advance(250)
            self.pipeline.on_frame(image, jpeg=jpeg, key=shot.key())

    def reach(self, contents: BoardContents, player: int) -> None:
        """A hand over the board (motion: the frames are not read)."""
        for k in range(2):
            arm = hand(CAMERA.geometry, player, (300.0 + 40 * k, 250.0), self.rng)
            image, jpeg = CAMERA.render(Shot(contents, (), CUBE, (arm,)))
            self.time.advance(100)
            self.pipeline.on_frame(image, jpeg=jpeg, key=f"hand{k}-{player}")

    def press(self, player: int) -> None:
        self.time.advance(200)
        side = referee_config(CONFIG).side_of(player)
        self.pipeline.handle(ClockPressed(self.time.now_ms(), side, (600_000, 600_000)))

    def types(self) -> list[str]:
        return [e["type"] for e in self.journal.entries]


def _to_the_throw(folder: Path, time: FakeTime) -> Life:
    """The opening (player 0 throws the one, player 1 the five), player 0's press, player 1's
    51 played and pressed: player 0's throw is due, the opening dice lie where they fell."""
    life = Life(folder, time)
    life.still(Shot(INITIAL, (), CUBE))
    life.reach(INITIAL, 0)
    life.still(Shot(INITIAL, OPENING, CUBE))
    assert [e["player"] for e in life.journal.entries if e["type"] == "opening_roll"] == [1]
    life.press(0)  # BG-OPEN-3
    life.reach(INITIAL, 1)
    life.still(Shot(AFTER, OPENING, CUBE), 2)
    life.press(1)
    life.still(Shot(AFTER, OPENING, CUBE), 12)  # read once a second: three readings agree
    assert life.types()[-1] == "move" and life.referee.stage == "decide"
    return life


def _throw(life: Life) -> list[dict[str, Any]]:
    """Player 0 throws 51: the one lands 4.6 mm from where the opening's one lay."""
    seen = len(life.journal.entries)
    life.reach(AFTER, 0)
    life.still(Shot(AFTER, THROWN, CUBE), 24)
    return life.journal.entries[seen:]


def test_uninterrupted_the_throw_onto_the_old_place_counts(tmp_path: Path) -> None:
    life = _to_the_throw(tmp_path, FakeTime(0))
    rolls = [e["dice"] for e in _throw(life) if e["type"] in ("roll", "invalid_throw")]
    life.journal.close()
    assert [sorted(d) for d in rolls] == [[1, 5]]


def test_restarted_while_the_throw_is_due_the_throw_onto_the_old_place_counts(
        tmp_path: Path) -> None:
    time = FakeTime(0)
    _to_the_throw(tmp_path, time).journal.close()  # the table goes down
    life = Life(tmp_path, time)  # ... and starts again: a new dice memory
    assert life.referee.stage == "decide"
    life.still(Shot(AFTER, OPENING, CUBE))  # the opening dice as they lay
    new = _throw(life)
    life.journal.close()
    # was: the one taken for the die lying there, the five alone unjudged: "cannot judge
    # Ayşe's throw: only one of the two dice is seen" (BG-ROLL-2), the director called
    assert [(e["type"], sorted(e["dice"])) for e in new if "dice" in e] == [("roll", [1, 5])]
    assert "cannot_read" not in [e["type"] for e in new]
