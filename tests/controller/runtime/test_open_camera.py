"""``hakem run`` opens its camera with the table's ``[camera]`` settings, the frame rate
(``camera.fps``) included (stand-ins for picamera2 and OpenCV's capture)."""

from __future__ import annotations

import sys
import types

import cv2
import pytest

from controller.config.table import CameraSection
from controller.runtime.table import open_camera
from tests.vision.test_camera_sources import FakePicamera2, RecordingCapture


def test_the_pi_camera_runs_at_the_configured_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    open_camera(CameraSection(source="picamera2", width=1920, height=1080, fps=7.5))
    # 7.5 frames a second: 133 333 us each
    assert FakePicamera2.made[-1].asked["controls"] == {"FrameDurationLimits": (133333, 133333)}
    assert FakePicamera2.made[-1].asked["main"]["size"] == (1920, 1080)


def test_a_numbered_camera_is_asked_for_the_configured_rate(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cv2, "VideoCapture", RecordingCapture)
    source = open_camera(CameraSection(source="0", fps=12))
    assert source.capture.props[cv2.CAP_PROP_FPS] == 12  # type: ignore[attr-defined]
