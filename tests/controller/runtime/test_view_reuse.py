"""The table's frame reader keeps its dice and cube between frames (``vision.dice.reuse``): what
the referee is told equals what a reader without that memory says, frame by frame (BG-ROLL-2's
dice, BG-CUBE-*'s cube)."""

from __future__ import annotations

import pytest

from controller.demo.camera import DemoCamera
from controller.runtime.view import REUSE_ENV, FrameReader
from tests.bench.dice import table_stream


@pytest.fixture(scope="module")
def camera() -> DemoCamera:
    return DemoCamera(seed=1)


def test_the_referee_is_told_the_same_with_and_without_reuse(camera: DemoCamera) -> None:
    reuse = FrameReader(corners=camera.corners_flat(), die_floor=0.5)
    fresh = FrameReader(corners=camera.corners_flat(), die_floor=0.5, reuse=False)
    kinds = set()
    for t, (_kind, image) in enumerate(table_stream(3, 14, camera, noise=0.0)):
        a = reuse.read(image, t * 1000)
        b = fresh.read(image, t * 1000)
        assert a.dice == b.dice, t
        assert a.cube == b.cube, t
        assert a.board.best_counts() == b.board.best_counts()
        kinds.add(reuse.dice_memory.stats.last)
    assert fresh.dice_memory.stats.full == 14  # the reader without memory reads each whole
    assert kinds - {"full"}  # the memory did spare reads
    assert reuse.dice_memory.stats.full == 1


def test_frames_without_dice_leave_the_memory_alone(camera: DemoCamera) -> None:
    reader = FrameReader(corners=camera.corners_flat())
    frames = [image for _kind, image in table_stream(4, 3, camera, noise=0.0)]
    reader.read(frames[0], 0)
    reader.read(frames[1], 1000, with_dice=False)  # a player moving: no throw due
    assert reader.dice_memory.stats.frames == 1
    seen = reader.read(frames[2], 2000)
    check = FrameReader(corners=camera.corners_flat(), reuse=False).read(frames[2], 2000)
    assert seen.dice == check.dice


def test_reuse_can_be_switched_off_for_comparisons(monkeypatch: pytest.MonkeyPatch,
                                                   camera: DemoCamera) -> None:
    monkeypatch.setenv(REUSE_ENV, "0")
    assert not FrameReader(corners=camera.corners_flat()).dice_memory.enabled
    monkeypatch.delenv(REUSE_ENV)
    assert FrameReader(corners=camera.corners_flat()).dice_memory.enabled
