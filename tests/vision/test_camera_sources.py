"""The camera sources take the table's frame rate (``camera.fps``), and a picamera2 broken by
a numpy it was not built for is one clear device error (no Pi needed: stand-in modules)."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any, ClassVar

import cv2
import numpy as np
import pytest

from engine.errors import DeviceError
from vision.sources import PiCameraSource, VideoCaptureSource

NUMPY_ABI = ("numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from "
             "C header, got 88 from PyObject")


class FakePicamera2:
    """Records what the source asks of picamera2 (the last one made is ``made[-1]``)."""

    made: ClassVar[list[FakePicamera2]] = []

    def __init__(self) -> None:
        self.asked: dict[str, Any] = {}
        self.configured: object = None
        self.started = False
        FakePicamera2.made.append(self)

    def create_video_configuration(self, **kwargs: Any) -> dict[str, Any]:
        self.asked = kwargs
        return {"video": kwargs}

    def configure(self, config: object) -> None:
        self.configured = config

    def start(self) -> None:
        self.started = True

    def capture_array(self, name: str) -> np.ndarray:
        return np.zeros((4, 4, 4), np.uint8)

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.fixture
def fake_picamera2(monkeypatch: pytest.MonkeyPatch) -> type[FakePicamera2]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    FakePicamera2.made = []
    return FakePicamera2


def test_the_pi_camera_is_asked_for_the_frame_rate(fake_picamera2: type[FakePicamera2]) -> None:
    source = PiCameraSource(width=1920, height=1080, fps=10)
    camera = fake_picamera2.made[-1]
    assert camera.asked == {"main": {"size": (1920, 1080), "format": "RGB888"},
                            "controls": {"FrameDurationLimits": (100000, 100000)}}
    assert camera.configured == {"video": camera.asked} and camera.started
    frame = source.read()
    assert frame is not None and frame.image.shape == (4, 4, 3)
    PiCameraSource()  # no rate given: picamera2's own
    assert fake_picamera2.made[-1].asked["controls"] == {}


def test_a_numpy_picamera2_was_not_built_for_is_one_device_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What Raspberry Pi OS shows when pip put numpy 2 over the OS's numpy 1.24: importing
    picamera2 (its simplejpeg) raises ValueError, not ImportError."""
    package = tmp_path / "picamera2"
    package.mkdir()
    (package / "__init__.py").write_text(f"raise ValueError({NUMPY_ABI!r})\n", encoding="utf-8")
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(DeviceError) as info:
        PiCameraSource()
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("picamera2 cannot be imported: a helper of it was built for "
                              "another numpy than the venv's (numpy.dtype size changed")
    assert "run 'bash setup.sh' again" in message and "troubleshooting.md" in message


def test_another_import_value_error_is_named_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "picamera2"
    package.mkdir()
    (package / "__init__.py").write_text("raise ValueError('no libcamera')\n", encoding="utf-8")
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(DeviceError, match=r"^picamera2 cannot be imported: no libcamera$"):
        PiCameraSource()


class RecordingCapture:
    """An OpenCV capture that records the properties set on it."""

    def __init__(self, target: object) -> None:
        self.props: dict[int, float] = {}

    def isOpened(self) -> bool:  # OpenCV's name
        return True

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def release(self) -> None:
        pass


def test_an_opencv_camera_is_asked_for_size_and_frame_rate() -> None:
    source = VideoCaptureSource(0, width=1920, height=1080, fps=15,
                                capture_factory=RecordingCapture)
    assert source.capture.props == {cv2.CAP_PROP_FRAME_WIDTH: 1920,
                                    cv2.CAP_PROP_FRAME_HEIGHT: 1080, cv2.CAP_PROP_FPS: 15}
    assert VideoCaptureSource(0, capture_factory=RecordingCapture).capture.props == {}
