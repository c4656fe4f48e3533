"""The pipeline on rendered frames: the BoardView adapter, the stillness gate, the readers and
the real referee, recordings and their replay."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from controller.clock.messages import PressEvent
from controller.clock.timebase import FakeTime
from controller.config.table import CameraSection, TableConfig
from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from controller.demo.players import centre_cube, hand, thrown_dice
from controller.records.journal import Journal
from controller.referee.api import MotionSeen
from controller.runtime.effects import Executor, LiveLog
from controller.runtime.recording import Recorder, Recording
from controller.runtime.session import build_pipeline, referee_config, start_referee
from controller.runtime.view import FrameReader
from controller.signals import Signals
from controller.table_layout import DEFAULT_LAYOUT
from engine.backgammon.position import Position
from engine.errors import RecordFormatError
from vision.dice.board_die import BoardDie
from vision.dice.pose import cocked_threshold
from vision.dice.reading import kept_die
from vision.dice.support import RAIL_COCKED_THRESHOLD, leaning_places, only_rail
from vision.geometry import BoardGeometry


@pytest.fixture(scope="module")
def camera() -> DemoCamera:
    return DemoCamera(seed=11)


def _contents(position: Position):  # type: ignore[no-untyped-def]
    c = DEFAULT_LAYOUT.counts(position)
    return contents_from_counts(c.slots, c.bar, c.off)


def test_the_board_view_prefers_the_true_position(camera: DemoCamera) -> None:
    start = Position.initial()
    image, _ = camera.render(Shot(_contents(start)))
    view = FrameReader(corners=camera.corners_flat()).read(image, 0, with_dice=False).board
    true = DEFAULT_LAYOUT.counts(start)
    moved = DEFAULT_LAYOUT.counts(start.apply_steps([(24, 18), (13, 11)]))
    assert not view.occluded
    own = view.best_counts()
    assert own is not None and own[0] == true.slots and own[1] == true.bar
    good, bad = view.log_likelihood(true.slots, true.bar), view.log_likelihood(moved.slots,
                                                                              moved.bar)
    assert good is not None and bad is not None and good > bad + 6.0


def test_a_hand_over_the_board_hides_it(camera: DemoCamera) -> None:
    arm = hand(camera.geometry, 0, (300.0, 300.0), random.Random(1))
    image, _ = camera.render(Shot(_contents(Position.initial()), (), None, (arm,)))
    view = FrameReader(corners=camera.corners_flat()).read(image, 0, with_dice=False).board
    assert view.occluded
    assert view.best_counts() is None


def test_dice_are_read_with_their_half(camera: DemoCamera) -> None:
    contents = _contents(Position.initial())
    dice = thrown_dice(camera.geometry, 1, (5, 3), random.Random(4))
    image, _ = camera.render(Shot(contents, dice, centre_cube(camera.geometry)))
    seen = FrameReader(corners=camera.corners_flat(), die_floor=0.75).read(image, 0)
    assert sorted((d.pips, d.half, d.flat) for d in seen.dice) == [
        (3, "left", True), (5, "left", True)]


def test_motion_then_stillness_then_a_reading(tmp_path: Path, camera: DemoCamera) -> None:
    """Frames with a hand moving are not read; the scene is read once it has been still, and
    again while it stays still; the referee journals the set-up and the opening throw."""
    config = TableConfig(camera=CameraSection(source="demo", corners=tuple(
        camera.corners_flat())))
    time = FakeTime(0)
    seen: list[str] = []
    with Journal(tmp_path / "journal.jsonl") as journal, Signals(
            time=time, pin_factory=MockFactory()) as signals:
        referee, startup = start_referee(referee_config(config), [])
        executor = Executor(journal, None, signals, tmp_path / "snaps",
                            LiveLog(stream=io.StringIO()), frame_jpeg=lambda: None)
        recorder = Recorder(tmp_path / "rec", {"config": {}})
        pipeline = build_pipeline(config, referee, executor, time, recorder)
        original = referee.handle

        def spy(event):  # type: ignore[no-untyped-def]
            seen.append(type(event).__name__)
            return original(event)

        referee.handle = spy  # type: ignore[method-assign]
        executor.run(startup)
        rng = random.Random(2)
        contents = _contents(Position.initial())
        g = camera.geometry
        for k in range(3):
            arm = hand(g, k % 2, (200.0 + 60 * k, 250.0), rng)
            image, jpeg = camera.render(Shot(contents, (), None, (arm,)))
            time.advance(100)
            pipeline.on_frame(image, jpeg=jpeg, key=f"hand{k}")
        assert "FrameSeen" not in seen
        dice = (thrown_dice(g, 0, (6, 1), rng)[0], thrown_dice(g, 1, (1, 6), rng)[0])
        image, jpeg = camera.render(Shot(contents, dice))
        for _ in range(8):
            time.advance(250)
            pipeline.on_frame(image, jpeg=jpeg, key="still")
        recorder.close()
        types = [e["type"] for e in journal.entries]
    assert seen.count("FrameSeen") >= 2  # read when still, then re-read
    assert "opening_roll" in types
    steps = list(Recording(tmp_path / "rec").steps())
    assert [s.frame for s in steps] == ["hand0", "hand1", "hand2"] + ["still"] * 8
    assert (tmp_path / "rec" / "frames" / "still.jpg").is_file()


def test_a_press_becomes_the_referees_event(tmp_path: Path) -> None:
    config = TableConfig()
    time = FakeTime(5)
    with Journal(tmp_path / "journal.jsonl") as journal:
        referee, startup = start_referee(referee_config(config), [])
        executor = Executor(journal, None, None, None, LiveLog(), frame_jpeg=lambda: None)
        pipeline = build_pipeline(config, referee, executor, time)
        executor.run(startup)
        pipeline.on_clock(PressEvent(1, "right", 7, None, (100, 200), 0, "run"))
        pipeline.handle(MotionSeen(6))
        clock = [e for e in journal.entries if e["type"] == "clock"]
    assert clock and clock[0]["side"] == "right" and clock[0]["event"] == "press"
    assert pipeline.timings.press_ms


def test_a_recording_killed_mid_line_replays_up_to_there(tmp_path: Path) -> None:
    recorder = Recorder(tmp_path / "rec", {"config": {}})
    recorder("frame", 100, ("a", b"\xff\xd8one"))
    recorder("clock", 150, PressEvent(1, "left", 150, None, (10, 20), 0, "run"))
    recorder("frame", 200, ("a", b"\xff\xd8one"))
    recorder.close()
    recorder.close()  # closing twice is harmless
    with (tmp_path / "rec" / "timeline.jsonl").open("a") as timeline:
        timeline.write('{"t":250,"fra')  # the process was killed while writing
    steps = list(Recording(tmp_path / "rec").steps())
    assert [(s.t_ms, s.frame) for s in steps] == [(100, "a"), (150, None), (200, "a")]
    press = steps[1].clock
    assert isinstance(press, PressEvent) and press.button == "left"
    assert press.times_ms == (10, 20)


def test_a_cocked_die_read_unsurely_still_reaches_the_referee(camera: DemoCamera) -> None:
    """A tilted face reads with less confidence than a flat one: the reader keeps a die called
    cocked down to ``cocked_floor`` (the referee then judges the throw, BG-ROLL-2), while flat
    dice keep the higher ``die_floor``."""
    contents = _contents(Position.initial())
    keep = FrameReader(corners=camera.corners_flat(), die_floor=0.9, cocked_floor=0.35)
    strict = FrameReader(corners=camera.corners_flat(), die_floor=0.9)
    caught = dropped = 0
    for seed in range(8):
        dice = thrown_dice(camera.geometry, seed % 2, (5, 3), random.Random(seed),
                           invalid="cocked", contents=contents)
        image, _ = camera.render(Shot(contents, dice, centre_cube(camera.geometry)))
        kept, only_sure = keep.read(image, 0).dice, strict.read(image, 0).dice
        assert [d for d in kept if d.flat] == [d for d in only_sure if d.flat]
        assert all(d.confidence >= 0.9 for d in only_sure)
        caught += any(not d.flat for d in kept)
        dropped += not any(not d.flat for d in only_sure)
    # measured: all 8 cocked dice kept with the lower floor, 6 of them under 0.9 (0.82-0.89;
    # the flat fives 0.93-0.97)
    assert caught >= 7 and dropped >= 2


def _board_die(g: BoardGeometry, x: float, y: float, *, flat: bool, confidence: float,
               p_cocked: float) -> BoardDie:
    return BoardDie(4, (0.0, 0.0), (x, y), flat, False, g.half_at(x, y),
                    g.region_at(x, y).kind, confidence, p_cocked)


def test_the_floors_weigh_a_die_once_its_pose_is_settled(camera: DemoCamera,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A die read flat in doubt loses confidence for its doubt, not for being less of a die:
    with nothing within reach to lean on it is surely flat, and one the rail alone can hold is
    cocked on less evidence (``vision.dice.support``); only then does ``die_floor`` tell a die
    from a reflection (before, both fell under it and the referee saw one die of the throw)."""
    g = camera.geometry
    image, _ = camera.render(Shot(_contents(Position.initial())))
    reader = FrameReader(corners=camera.corners_flat(), die_floor=0.5, cocked_floor=0.15)
    reader.read(image, 0)  # the board's pose and reading
    counts = reader.read(image, 0, with_dice=False).board
    assert counts.best_counts() is not None
    open_x, _ = g.checker_centre_mm(14, 0)  # a point empty in the starting position
    alone = _board_die(g, 150.0, g.height_mm / 2, flat=True, confidence=0.45, p_cocked=0.6)
    # read flat, in doubt: between the rail's bar and the model's own
    by_rail = _board_die(g, open_x, g.height_mm - 14.0, flat=True, confidence=0.45,
                         p_cocked=(RAIL_COCKED_THRESHOLD + cocked_threshold()) / 2)
    reflection = _board_die(g, 420.0, g.height_mm / 2, flat=True, confidence=0.3,
                            p_cocked=0.0)
    slots = DEFAULT_LAYOUT.counts(Position.initial()).slots
    assert only_rail(by_rail, g, leaning_places(by_rail, slots, g), [alone, reflection])
    assert not any(kept_die(d.flat, d.confidence, 0.5, 0.15) for d in (alone, by_rail))
    monkeypatch.setattr(reader.dice_memory, "read", lambda *a: [alone, by_rail, reflection])
    seen = reader.read(image, 0).dice
    assert sorted((d.centre, d.flat) for d in seen) == sorted([
        ((150.0, g.height_mm / 2), True), ((open_x, g.height_mm - 14.0), False)])


@pytest.mark.parametrize("name", ["../../../etc/passwd", "..", "", "a/b", "a\\b"])
def test_a_timeline_naming_a_file_outside_its_frames_is_refused(tmp_path: Path,
                                                                 name: str) -> None:
    """A replay reads only the recording's own pictures: a frame name that is no plain file
    name of ``frames/`` is a malformed timeline, and is not recorded either."""
    recorder = Recorder(tmp_path / "rec", {"config": {}})
    recorder("frame", 100, ("a", b"\xff\xd8one"))
    with pytest.raises(RecordFormatError, match="is not a picture of frames/"):
        recorder("frame", 150, (name, b"\xff\xd8two"))
    recorder.close()
    with (tmp_path / "rec" / "timeline.jsonl").open("a") as timeline:
        timeline.write(json.dumps({"t": 200, "frame": name}) + "\n")
    with pytest.raises(RecordFormatError, match=r"line 2: frame name .* is not a picture of"):
        list(Recording(tmp_path / "rec").steps())


def test_a_recording_resumed_after_a_kill_is_marked(tmp_path: Path) -> None:
    """A session killed mid-line and resumed: the torn line is cut, the resumed part goes on
    after a mark, and the recording says where (``hakem replay`` refuses it)."""
    folder = tmp_path / "rec"
    first = Recorder(folder, {"config": {}})
    first("clock", 10, PressEvent(1, "left", 10, "right", (5, 6), 0, "run", boot=3))
    first.close()
    with (folder / "timeline.jsonl").open("a") as f:
        f.write('{"t": 20, "fra')  # killed while writing
    second = Recorder(folder, {"config": {}})
    second("clock", 5, PressEvent(2, "right", 5, "left", (5, 6), 0, "run", boot=4))
    second.close()
    lines = (folder / "timeline.jsonl").read_text().splitlines()
    assert [json.loads(line).get("resumed") for line in lines] == [None, True, None]
    assert Recording(folder).resumed_at() == 2
    fresh = Recorder(tmp_path / "other", {"config": {}})
    fresh.close()
    assert Recording(tmp_path / "other").resumed_at() is None
    # killed before the first batch of frame lines reached the timeline, the journal already
    # holding entries: the session that resumes it says so itself (review)
    early = Recorder(tmp_path / "early", {"config": {}}, resumed=True)
    early.close()
    assert Recording(tmp_path / "early").resumed_at() == 1


def test_the_size_of_the_dice_in_the_picture(camera: DemoCamera) -> None:
    """A die's face measured where the board is seen smallest: the demo camera (1280 x 720
    over the whole case) shows 16 mm dice at about 19 px, too small for real dice (read
    reliably from 24 px, ``tests.eval.dice --face-px``); twice the resolution is enough."""
    from vision.dice.scale import MIN_FACE_PX, face_px, too_small

    image, _ = camera.render(Shot(_contents(Position.initial())))
    reader = FrameReader(corners=camera.corners_flat())
    reader.read(image, 0, with_dice=False)
    px = reader.dice_face_px
    assert px is not None and 15 < px < MIN_FACE_PX
    warning = too_small(px)
    # the same figure, to the tenth, as `hakem vision calibrate` reports it (dice_face_px)
    assert warning is not None and f"about {round(px, 1):.1f} px" in warning
    geometry = camera.geometry
    scale = np.diag([2.4, 2.4, 1.0])  # 2.4 px/mm, straight above
    assert face_px(scale, geometry) == pytest.approx(2.4 * geometry.die_size_mm)
    assert too_small(face_px(scale, geometry)) is None


def test_a_live_table_says_when_its_dice_are_too_small(camera: DemoCamera,
                                                       tmp_path: Path) -> None:
    """``hakem run`` says it once in its live log (the demo, whose dice are rendered, does
    not)."""
    image, jpeg = camera.render(Shot(_contents(Position.initial())))
    said = [[line for line in _live_log(camera, tmp_path / str(live), [image] * 6, jpeg,
                                        warn_dice_scale=live)
             if line.startswith("Camera: the dice")] for live in (True, False)]
    assert len(said[0]) == 1 and said[1] == []


def _live_log(camera: DemoCamera, folder: Path, images: list[np.ndarray], jpeg: bytes,
              **pipeline_set: object) -> list[str]:
    """The live log of a table (a journal in ``folder``, mock LEDs) shown ``images`` in
    turn, each a new picture; ``pipeline_set``: the pipeline's attributes set first."""
    config = TableConfig(camera=CameraSection(corners=tuple(camera.corners_flat())))
    log = LiveLog(keep=50)
    with Journal(folder / "journal.jsonl") as journal, Signals(
            config.signals, time=FakeTime(0), pin_factory=MockFactory()) as signals:
        referee, startup = start_referee(referee_config(config), [])
        executor = Executor(journal, None, signals, folder / "snaps", log,
                            frame_jpeg=lambda: None)
        pipeline = build_pipeline(config, referee, executor, FakeTime(0))
        for name, value in pipeline_set.items():
            setattr(pipeline, name, value)
        executor.run(startup)
        for k, image in enumerate(images):
            pipeline.on_frame(image, jpeg=jpeg, key=f"still {k}")
    return list(log.lines)


def _clock_on_the_frame(camera: DemoCamera, image: np.ndarray) -> np.ndarray:
    """``image`` with a dark box (a match clock) lying across the case's right side frame and
    tray, beside the playing surface and never over it."""
    import cv2

    corners = np.asarray(camera.corners, np.float32).reshape(4, 2)  # TL, TR, BR, BL
    width = float(corners[1, 0] - corners[0, 0])
    height = float(corners[2, 1] - corners[1, 1])
    x0, y0 = corners[1, 0] + 0.005 * width, corners[1, 1] + 0.4 * height
    out = image.copy()
    cv2.rectangle(out, (int(x0), int(y0)), (int(x0 + 0.15 * width), int(y0 + 0.25 * height)),
                  (25, 25, 30), -1)
    return out


def test_a_clock_left_on_the_frame_is_named_in_the_live_log(camera: DemoCamera,
                                                             tmp_path: Path) -> None:
    """Something across the case's side frame hides every slot while it lies there (it may be
    a hand reaching over the board): after a few still frames the live log says so once, with
    what to do; a clear frame says nothing."""
    from controller.runtime.loop import FRAME_COVER_FRAMES

    image, jpeg = camera.render(Shot(_contents(Position.initial())))
    said = []
    for covered in (True, False):
        shown = _clock_on_the_frame(camera, image) if covered else image
        lines = _live_log(camera, tmp_path / str(covered), [shown] * (3 * FRAME_COVER_FRAMES),
                          jpeg)
        said.append([line for line in lines if "across the case's" in line])
    assert len(said[0]) == 1, said[0]
    assert said[0][0].startswith("Camera: the board cannot be read: something lies across "
                                 "the case's right side frame")
    assert "keep the frame clear" in said[0][0]
    assert said[1] == []
