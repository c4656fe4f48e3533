"""Loading pictures with one-line errors (not an image, empty, unreadable)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from engine.errors import ImageError


def decode_image(data: bytes, name: str = "image") -> np.ndarray:
    """Decode JPEG/PNG bytes to a BGR uint8 array; ImageError when they are not a picture."""
    if not data:
        raise ImageError(f"{name} is empty")
    buf = np.frombuffer(data, dtype=np.uint8)
    try:
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    except cv2.error:  # e.g. a header claiming more pixels than opencv will allocate
        raise ImageError(f"{name} is not an image opencv can decode (too large or damaged)"
                         ) from None
    if img is None or img.size == 0:
        raise ImageError(f"{name} is not an image opencv can decode")
    return img


def load_image(path: str | Path) -> np.ndarray:
    """Read a picture file (BGR uint8). FileNotFoundError when missing (the CLI reports it)."""
    p = Path(path)
    if p.is_dir():
        raise ImageError(f"{p} is a directory, not an image")
    data = p.read_bytes()
    return decode_image(data, str(p))


def check_image(img: object, name: str = "image") -> np.ndarray:
    """Accept a BGR (or grey) uint8 array; grey pictures are turned into BGR."""
    if not isinstance(img, np.ndarray) or img.dtype != np.uint8 or img.size == 0:
        raise ImageError(f"{name} is not a uint8 picture array")
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.ndim != 3 or img.shape[2] not in (3, 4):
        raise ImageError(f"{name} has an unsupported shape {img.shape}")
    if img.shape[2] == 4:
        return cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    return img
