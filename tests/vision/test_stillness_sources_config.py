"""Stillness gate, frame sources and the typed configuration."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.errors import ConfigError, DeviceError
from vision.config import DEFAULT_CONFIG, load_vision_config
from vision.render import HandSpec, random_scene, render_scene
from vision.sources import FolderSource, PiCameraSource, VideoCaptureSource, frames
from vision.stillness import StillnessGate


def test_stillness_needs_several_quiet_frames_and_resets_on_motion() -> None:
    spec = random_scene(1, hand_probability=0.0)
    still = render_scene(spec).image
    g = spec.geometry
    spec.hands = (HandSpec((g.width_mm / 2, -300.0), (g.width_mm / 2, g.height_mm / 2)),)
    moved = render_scene(spec).image
    gate = StillnessGate()
    results = [gate.update(still) for _ in range(5)]
    assert results == [False, False, False, True, True]
    assert gate.update(moved) is False
    assert gate.last_motion > DEFAULT_CONFIG.stillness.diff_threshold
    assert [gate.update(moved) for _ in range(3)] == [False, False, True]


def test_folder_source_reads_images_in_order_and_skips_broken_files(tmp_path: Path) -> None:
    img = np.full((20, 30, 3), 128, np.uint8)
    cv2.imwrite(str(tmp_path / "b.png"), img)
    cv2.imwrite(str(tmp_path / "a.png"), img)
    (tmp_path / "c.jpg").write_bytes(b"not a jpeg")
    (tmp_path / "notes.txt").write_text("ignored")
    names = [f.name for f in frames(FolderSource(tmp_path, fps=10.0))]
    assert names == ["a.png", "b.png"]
    with pytest.raises(DeviceError):
        FolderSource(tmp_path / "missing")


class FakeCapture:
    def __init__(self, target: object) -> None:
        self.left = 2
        self.released = False

    def isOpened(self) -> bool:  # OpenCV's name
        return True

    def set(self, prop: int, value: float) -> bool:
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.left == 0:
            return False, None
        self.left -= 1
        return True, np.zeros((4, 4, 3), np.uint8)

    def release(self) -> None:
        self.released = True


def test_video_capture_source_yields_frames_until_the_stream_ends() -> None:
    src = VideoCaptureSource(0, capture_factory=FakeCapture, clock=lambda: 5.0)
    got = list(frames(src))
    assert len(got) == 2 and got[0].time == 5.0
    assert src.capture.released


def test_a_video_file_that_does_not_exist_is_a_device_error(tmp_path: Path) -> None:
    with pytest.raises(DeviceError):
        VideoCaptureSource(str(tmp_path / "none.mp4"))


def test_picamera_is_only_needed_on_a_pi() -> None:
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(DeviceError, match="picamera2"):
            PiCameraSource()
    else:  # pragma: no cover - only on a Pi
        pytest.skip("picamera2 installed")


def test_config_from_toml(tmp_path: Path) -> None:
    p = tmp_path / "table.toml"
    p.write_text("[vision]\ncorners = [1, 2, 3, 4, 5, 6, 7, 8]\n"
                 "[vision.checkers]\ndarker_bgr = [40, 150, 215]\nlighter_bgr = [230, 235, 235]\n"
                 "[vision.geometry]\npoint_width_mm = 47\n")
    cfg = load_vision_config(p)
    assert cfg.corners == (1, 2, 3, 4, 5, 6, 7, 8)
    assert cfg.checkers.darker_bgr == (40, 150, 215)
    assert cfg.geometry.point_width_mm == 47.0
    p.write_text("[vision.checkers]\nno_such_key = 1\n")
    with pytest.raises(ConfigError, match="no_such_key"):
        load_vision_config(p)
    p.write_text("[vision.checkers]\npx_per_mm = 'big'\n")
    with pytest.raises(ConfigError, match="px_per_mm"):
        load_vision_config(p)
    p.write_text("[vision.checkers]\nrim_dominance = 0\n")
    with pytest.raises(ConfigError, match=r"vision\.checkers\.rim_dominance .* not 0\.0"):
        load_vision_config(p)
