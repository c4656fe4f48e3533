"""Frame sources behind one small interface: a Pi camera (picamera2, imported only there),
OpenCV ``VideoCapture`` (USB camera, video file, stream URL) and a folder of images.

Every source yields :class:`Frame` objects (BGR uint8 picture, a monotonic timestamp in seconds,
a name) from ``read()``, None once it is exhausted; ``close()`` releases the device.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from engine.errors import DeviceError, ImageError
from vision.imageio import load_image

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")


@dataclass(frozen=True)
class Frame:
    """One picture from a source."""

    image: np.ndarray
    time: float
    name: str


class FrameSource(Protocol):
    """What the runtime reads frames from."""

    def read(self) -> Frame | None: ...

    def close(self) -> None: ...


def frames(source: FrameSource) -> Iterator[Frame]:
    """Iterate a source until it is exhausted, closing it afterwards."""
    try:
        while (frame := source.read()) is not None:
            yield frame
    finally:
        source.close()


class FolderSource:
    """The images of a folder in name order (a recorded session, a test set)."""

    def __init__(self, folder: str | Path, *, clock: Callable[[], float] = time.monotonic,
                 fps: float | None = None) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise DeviceError(f"image folder not found: {self.folder}")
        self.paths = sorted(p for p in self.folder.iterdir()
                            if p.suffix.lower() in IMAGE_SUFFIXES)
        self.index = 0
        self.clock = clock
        self.fps = fps  # with fps, timestamps are index / fps (a replay), else the clock

    def read(self) -> Frame | None:
        while self.index < len(self.paths):
            path = self.paths[self.index]
            self.index += 1
            try:
                img = load_image(path)
            except ImageError:
                continue  # a broken file in a folder is skipped, not fatal
            t = (self.index - 1) / self.fps if self.fps else self.clock()
            return Frame(img, t, path.name)
        return None

    def close(self) -> None:
        self.index = len(self.paths)


class VideoCaptureSource:
    """A USB camera (an int index), a video file or a stream URL through OpenCV."""

    def __init__(self, target: int | str, *, width: int | None = None,
                 height: int | None = None, fps: float | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 capture_factory: Callable[[int | str], Any] | None = None) -> None:
        self.capture = (capture_factory or cv2.VideoCapture)(target)
        if not self.capture.isOpened():
            raise DeviceError(f"cannot open video source {target!r}")
        # asked for, not promised: a camera keeps the nearest mode its driver offers
        if width:
            self.capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            self.capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        if fps:
            self.capture.set(cv2.CAP_PROP_FPS, fps)
        self.target = target
        self.clock = clock
        self.count = 0

    def read(self) -> Frame | None:
        ok, img = self.capture.read()
        if not ok or img is None:
            return None
        self.count += 1
        return Frame(img, self.clock(), f"{self.target}#{self.count}")

    def close(self) -> None:
        self.capture.release()


class PiCameraSource:
    """The Raspberry Pi camera through picamera2 (only importable on a Pi) at ``fps`` frames
    a second (None: picamera2's video default, 30)."""

    def __init__(self, *, width: int = 1280, height: int = 720, fps: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise DeviceError("picamera2 is not installed (Raspberry Pi OS: "
                              "apt install python3-picamera2)") from exc
        except ValueError as exc:
            raise DeviceError(_import_failure(exc)) from exc
        # the frame time in microseconds, both limits alike: picamera2's own video default
        # (30 a second) is given under this key, so this one replaces it, and every picamera2
        # version knows it (its "FrameRate" shorthand came later)
        frame_us = round(1_000_000 / fps) if fps else None
        controls = {"FrameDurationLimits": (frame_us, frame_us)} if frame_us else {}
        try:
            self.camera = Picamera2()
            config = self.camera.create_video_configuration(
                main={"size": (width, height), "format": "RGB888"}, controls=controls)
            self.camera.configure(config)
            self.camera.start()
        except Exception as exc:  # the library raises assorted errors for a missing camera
            raise DeviceError(f"cannot start the Pi camera: {exc}") from exc
        self.clock = clock
        self.count = 0

    def read(self) -> Frame | None:
        # picamera2's "RGB888" is laid out B, G, R in memory: OpenCV's order
        img = self.camera.capture_array("main")
        self.count += 1
        return Frame(np.ascontiguousarray(img[..., :3]), self.clock(), f"picamera#{self.count}")

    def close(self) -> None:
        self.camera.stop()
        self.camera.close()


def _import_failure(exc: ValueError) -> str:
    """One line on a picamera2 that cannot be imported. "numpy.dtype size changed, may
    indicate binary incompatibility": one of its compiled helpers (the OS's simplejpeg) was
    built for another numpy than the venv's; setup.sh gives a Pi's venv one of its own."""
    why = " ".join(str(exc).split())
    if "numpy" in why or "binary incompatibility" in why:
        return (f"picamera2 cannot be imported: a helper of it was built for another numpy than "
                f"the venv's ({why}); run 'bash setup.sh' again, which installs one built for "
                f"the venv's numpy (hardware_docs/troubleshooting.md, camera)")
    return f"picamera2 cannot be imported: {why}"


def open_source(spec: str) -> FrameSource:
    """``picamera``, a camera index (``0``), a folder, or a video file / URL."""
    if spec == "picamera":
        return PiCameraSource()
    if spec.isdigit():
        return VideoCaptureSource(int(spec))
    if Path(spec).is_dir():
        return FolderSource(spec)
    return VideoCaptureSource(spec)
