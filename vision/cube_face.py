"""The number on a doubling cube's face: drawn as OpenCV's fonts draw it (:func:`number_glyph`, the
renderer's too) and read from a rectified face (:func:`read_face`: the face cropped to its ink
and correlated with every value's glyph at every quarter turn; a die, a marker or a patch of
board correlates far below a number). 64 is the centred cube of value 1 (BG-CUBE-1).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import cv2
import numpy as np

CUBE_VALUES = (2, 4, 8, 16, 32, 64)
READ_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX)
RENDER_FONTS = (*READ_FONTS, cv2.FONT_HERSHEY_COMPLEX)
FACE_PX = 48  # side of the rectified face the reader compares


def number_glyph(value: int, side: int, font: int, thickness_scale: float = 1.0) -> np.ndarray:
    """The number as drawn on a cube face: dark ink on white, ``side`` pixels square."""
    face = np.full((side, side), 255, np.uint8)
    text = str(value)
    target = side * (0.62 if len(text) == 1 else 0.78)
    (w, h), _ = cv2.getTextSize(text, font, 1.0, 2)
    scale = target / max(w, h * 1.1)
    thickness = max(1, round(side / 22 * thickness_scale))
    (w, h), _base = cv2.getTextSize(text, font, scale, thickness)
    org = (round((side - w) / 2), round((side + h) / 2))
    cv2.putText(face, text, org, font, scale, 0, thickness, cv2.LINE_AA)
    return face


INK_MARGIN = 1.12  # a normalised face: the number's bounding square and this much around it


def _normalised(face: np.ndarray, counts: np.ndarray
                ) -> tuple[np.ndarray, tuple[float, float], float, float]:
    """A face (dark ink on light, float32 of whole numbers 0..255; ``counts``: how many pixels
    have each) cropped to the square about its number's ink and
    resized to ``FACE_PX``: a face read a little too large, too small or off centre, in a
    thinner or bolder font, then lines up with the templates. Dark parts touching the
    picture's rim (the cube's shaded edge, the board or a checker beyond it) are not ink.
    Also gives the ink's centre (pixels of ``face``), the face's centre on a cube, the longer
    side of its box as a share of the picture's side, and the share of that box inked."""
    n = face.shape[0]
    k_lo, k_mid = int(0.03 * (face.size - 1)), int(0.6 * (face.size - 1))
    lo, mid = float(_nth(counts, k_lo)), float(_nth(counts, k_mid))
    ink = (face < (lo + mid) / 2).astype(np.uint8)
    # 16-bit labels: a face has far fewer parts, and they are labelled twice as fast
    _, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8,
                                                           ltype=cv2.CV_16U)
    x, y, w, h, area = stats[1:, :5].T
    edge = 1
    rim = (x < edge) | (y < edge) | (x + w > n - edge) | (y + h > n - edge)
    kept = ~rim & (area >= 3)
    if not kept.any():
        return (cv2.resize(face, (FACE_PX, FACE_PX), interpolation=cv2.INTER_AREA),
                ((n - 1) / 2, (n - 1) / 2), 0.0, 0.0)
    x0, y0 = int(x[kept].min()), int(y[kept].min())
    x1, y1 = int((x + w)[kept].max()), int((y + h)[kept].max())
    inked = int(area[kept].sum())
    cx, cy = (x0 + x1 - 1) / 2, (y0 + y1 - 1) / 2
    half = max(x1 - x0, y1 - y0, 2) / 2 * INK_MARGIN
    scale = FACE_PX / (2 * half)
    m = np.array([[scale, 0, (FACE_PX - 1) / 2 - scale * cx],
                  [0, scale, (FACE_PX - 1) / 2 - scale * cy]])
    if rim.any():  # painted plain face, lest they outweigh the number in the correlation
        beyond = np.concatenate(([0], rim)).astype(np.uint8)  # per label: touches the rim
        plain = cv2.dilate(beyond[labels], np.ones((3, 3), np.uint8))
        face = np.where(plain > 0, np.float32(mid), face).astype(np.float32)
    out: np.ndarray = cv2.warpAffine(face, m, (FACE_PX, FACE_PX), flags=cv2.INTER_AREA,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=mid)
    return out, (cx, cy), max(x1 - x0, y1 - y0) / n, inked / ((x1 - x0) * (y1 - y0))


def _counts(face: np.ndarray) -> np.ndarray:
    """How many pixels of an 8-bit picture have each value 0..255."""
    out: np.ndarray = np.bincount(face.reshape(-1), minlength=256)
    return out


def _nth(counts: np.ndarray, k: int) -> int:
    """The ``k``-th smallest (from 0) of the values ``counts`` counts: what sorting them would
    give, read off their running total (faster than a partition of the pixels)."""
    return int(np.searchsorted(np.cumsum(counts), k, side="right"))


@lru_cache(maxsize=1)
def _templates() -> tuple[tuple[int, np.ndarray], ...]:
    """Zero-mean, unit-norm templates of every value, font and quarter turn, normalised as a
    face read is (:func:`_normalised`)."""
    out = []
    for value in CUBE_VALUES:
        for font in READ_FONTS:
            g = number_glyph(value, 2 * FACE_PX, font)
            for k in range(4):
                t = _normalised(np.rot90(g, k).astype(np.float32), _counts(g))[0]
                t -= t.mean()
                t /= np.linalg.norm(t) + 1e-6
                out.append((value, t))
    return tuple(out)


@lru_cache(maxsize=1)
def _template_matrix() -> tuple[np.ndarray, np.ndarray]:
    """:func:`_templates` as one matrix (a row per template) and each row's value."""
    ts = _templates()
    return (np.stack([t.reshape(-1) for _, t in ts]).astype(np.float32),
            np.array([v for v, _ in ts]))


class FaceMatch(NamedTuple):
    """A face read: the best value, its correlation and the best other value's, the number's
    centre (face pixels), its box's longer side (share of the face image's side) and the
    share of that box inked."""

    value: int
    top: float
    second: float
    centre: tuple[float, float]
    extent: float
    fill: float


def face_match(face_gray: np.ndarray) -> tuple[int, float, float]:
    """The best-matching cube value on a rectified face image, its normalised correlation
    with that value's templates, and the best correlation of any other value."""
    found = located_face_match(face_gray)
    return found.value, found.top, found.second


def located_face_match(face_gray: np.ndarray) -> FaceMatch:
    """:func:`face_match` with the number's centre and size (``face_gray``: 8-bit)."""
    face = face_gray.astype(np.float32)
    counts = _counts(face_gray)
    # ink is whichever is rarer: dark on a light cube or light on a dark one
    median = _nth(counts, face.size // 2)
    if median < float(face.reshape(-1).mean()) - 10 or median < 100:
        face = 255 - face
        counts = counts[::-1]
    x, centre, extent, fill = _normalised(face, counts)
    x = x - x.mean()
    x /= np.linalg.norm(x) + 1e-6
    matrix, values = _template_matrix()
    scores = (matrix @ x.reshape(-1)).reshape(len(CUBE_VALUES), -1).max(axis=1)
    order = np.argsort(-scores)
    value = int(values.reshape(len(CUBE_VALUES), -1)[order[0], 0])
    return FaceMatch(value, float(scores[order[0]]), float(scores[order[1]]), centre, extent,
                     fill)


def read_confidence(top: float, second: float) -> float:
    """A face read's confidence in 0..1 from its best and second-best value's correlation.

    Synthetic throws: a cube's face read square-on correlates at 0.86 and above; a marker, a
    light patch, a die (a dark die's body) at 0.72 and below."""
    return float(np.clip((top - MATCH_FLOOR) / 0.12, 0.0, 1.0)
                 * np.clip((top - second) * 5.0, 0.0, 1.0))


def read_face(face_gray: np.ndarray) -> tuple[int, float]:
    """The cube value shown on a rectified face image and a confidence in 0..1."""
    value, top, second = face_match(face_gray)
    return value, read_confidence(top, second)


MATCH_FLOOR = 0.78  # a face read correlating below this is not the cube's
