"""The doubling cube searched for in a camera frame or a top-down raster of the board, whole
(:func:`find_cube_in_image`, :func:`find_cube`) or only about boxes where the picture changed
(:func:`find_cube_in_parts`): squares found (``vision.cube_squares``), a face warped from each
and read (``vision.cube_face``), the best taken with its place (none is looked at after a face
read surely: :data:`SURE_READ`). Also the patch about a cube's place the cube memory compares
from frame to frame (:func:`cube_patch`).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable, Iterator

import cv2
import numpy as np

from vision.cube import CubeReading, cube_place, zone_for
from vision.cube_face import FACE_PX, read_face
from vision.cube_squares import PixelBox, light_levels, light_square_candidates, square_candidates
from vision.geometry import BoardGeometry, Canonical


def find_cube_in_image(
    image: np.ndarray,
    to_mm: np.ndarray,
    geometry: BoardGeometry | None = None,
    *,
    darker_at_top: bool | None = None,
    px_per_mm: float = 1.0,
    levels: tuple[float, float] | None = None,
) -> CubeReading | None:
    """The cube in a camera frame given the image-to-board-mm homography, or None.

    Searched on a top-down raster of the whole case at ``px_per_mm``; the face is then read
    from a rectified patch taken from the full-resolution frame. ``levels``: that raster's
    :func:`light_levels`, when already worked out."""
    g = geometry or BoardGeometry()
    canonical = Canonical.whole_board(g, px_per_mm)
    to_raster = _mm_to_raster(canonical) @ to_mm
    if image.shape[1::-1] == canonical.size and np.allclose(to_raster, np.eye(3), atol=1e-9):
        raster = image  # already that raster (find_cube's, at 1 px/mm): warping copies it
    else:
        raster = cv2.warpPerspective(image, to_raster, canonical.size, flags=cv2.INTER_AREA)
    from_mm = np.linalg.inv(to_mm)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    if raster is not image:
        raster_gray = cv2.cvtColor(raster, cv2.COLOR_BGR2GRAY) if raster.ndim == 3 else raster
    else:  # the very frame: its grey is at hand
        raster_gray = gray
    # the light squares are found only when no edge-bound square read surely (_best_face)
    quads = itertools.chain(
        square_candidates(raster_gray, px_per_mm, g.cube_size_mm),
        _later(lambda: light_square_candidates(raster, px_per_mm, g.cube_size_mm, levels)))
    best = _best_face(quads, canonical, (0, 0), from_mm, gray)
    return _reading(best, from_mm, g, darker_at_top)


def _mm_to_raster(canonical: Canonical) -> np.ndarray:
    """Board mm to the pixels of a top-down raster."""
    s = canonical.px_per_mm
    return np.array([[s, 0, canonical.margin_mm[0] * s], [0, s, canonical.margin_mm[1] * s],
                     [0, 0, 1.0]])


def _later(squares: Callable[[], list[np.ndarray]]) -> Iterator[np.ndarray]:
    """The squares ``squares()`` finds, found only once the first is asked for (a search
    that has read a face surely asks for no more: :func:`_best_face`)."""
    yield from squares()


# read_confidence's ceiling: a face read so surely is the best (a later one must read more
# surely to be taken, :func:`_best_face`), and the squares after it are not looked at
SURE_READ = 1.0


def _best_face(quads: Iterable[np.ndarray], canonical: Canonical, origin: tuple[int, int],
               from_mm: np.ndarray, gray: np.ndarray,
               best: tuple[float, int, np.ndarray] | None = None
               ) -> tuple[float, int, np.ndarray] | None:
    """The best face read in squares of a raster (pixels from ``origin`` of ``canonical``'s
    grid), each warped from ``gray`` (board mm to its pixels: ``from_mm``): confidence, value
    and the square's centre (mm); the first read most surely wins. ``best``: the best read
    before these squares (returned unless one reads more surely). Stops at a face read at
    :data:`SURE_READ` (none after it could be taken)."""
    dst = np.array([[0, 0], [FACE_PX - 1, 0], [FACE_PX - 1, FACE_PX - 1], [0, FACE_PX - 1]],
                   np.float32)
    if best is not None and best[0] >= SURE_READ:
        return best
    for quad in quads:
        quad_mm = np.array([canonical.px_to_mm(float(u) + origin[0], float(v) + origin[1])
                            for u, v in order(quad)])
        centre = quad_mm.mean(axis=0)
        inset = centre + (quad_mm - centre) * 0.88
        quad_img = cv2.perspectiveTransform(inset.reshape(-1, 1, 2), from_mm).reshape(-1, 2)
        m = cv2.getPerspectiveTransform(quad_img.astype(np.float32), dst)
        face = cv2.warpPerspective(gray, m, (FACE_PX, FACE_PX), flags=cv2.INTER_LINEAR)
        if float(face.std()) < 15.0:  # a plain light square has no number
            continue
        value, confidence = read_face(face)
        if best is None or confidence > best[0]:
            best = (confidence, value, centre)
            if confidence >= SURE_READ:
                break
    return best


def _reading(best: tuple[float, int, np.ndarray] | None, from_mm: np.ndarray,
             g: BoardGeometry, darker_at_top: bool | None) -> CubeReading | None:
    """The cube of the best face read, if read at all."""
    if best is None or best[0] < 0.05:
        return None
    confidence, value, centre = best
    x_mm, y_mm = float(centre[0]), float(centre[1])
    p = cv2.perspectiveTransform(np.array([[[x_mm, y_mm]]]), from_mm).reshape(2)
    place = cube_place(g, x_mm, y_mm)
    return CubeReading(value, (x_mm, y_mm), (float(p[0]), float(p[1])),
                       zone_for(place, darker_at_top), place, confidence)


# a part searched reaches this many cube sides beyond what changed (a cube put down changes
# the picture over the whole of it, shadow included); a square reaching within
# PART_EDGE_PX of a part's edge inside the raster is not taken (it may be a region the edge
# cut, which the whole raster shows larger: not a cube's)
PART_PAD_CUBES = 0.5
PART_EDGE_PX = 2


def whole_raster_levels(canonical_bgr: np.ndarray, canonical: Canonical) -> tuple[float, float]:
    """:func:`light_levels` of the raster :func:`find_cube` searches for this top-down raster
    (a search of parts of it, :func:`find_cube_in_parts`, takes them)."""
    whole = Canonical.whole_board(canonical.geometry, min(canonical.px_per_mm, 1.0))
    if whole == canonical:  # the very raster searched
        return light_levels(canonical_bgr)
    to_mm = np.linalg.inv(_mm_to_raster(canonical))
    raster = cv2.warpPerspective(canonical_bgr, _mm_to_raster(whole) @ to_mm, whole.size,
                                 flags=cv2.INTER_AREA)
    return light_levels(raster)


def find_cube_in_parts(part: Callable[[tuple[int, int, int, int]], np.ndarray],
                       canonical: Canonical, boxes_mm: Iterable[tuple[float, float, float, float]],
                       levels: tuple[float, float], *, darker_at_top: bool | None = None
                       ) -> CubeReading | None:
    """:func:`find_cube` on parts of its raster only: about each box (x0, y0, x1, y1 mm;
    where the picture changed since a search found no cube there), the cube found in it.

    ``part(box)`` gives the pixels ``(u0, v0, u1, v1)`` (end exclusive) of the top-down
    raster ``canonical`` describes, as :func:`find_cube` would be given it whole (at most
    1 px/mm); ``levels`` are the whole raster's (:func:`whole_raster_levels`). A square is
    taken only where its centre lies in a box, each part reaching :data:`PART_PAD_CUBES` cube
    sides beyond it, so that it is seen as the whole raster shows it."""
    g = canonical.geometry
    s = canonical.px_per_mm
    w, h = canonical.size
    pad = PART_PAD_CUBES * g.cube_size_mm
    to_px = _mm_to_raster(canonical)
    from_mm = to_px
    best: tuple[float, int, np.ndarray] | None = None
    for inner, reach in _merged(list(boxes_mm), pad):
        x0, y0, x1, y1 = reach
        u0, v0 = (max(0, math.floor(a)) for a in canonical.mm_to_px(x0, y0))
        u1, v1 = canonical.mm_to_px(x1, y1)
        u1, v1 = min(w, math.ceil(u1) + 1), min(h, math.ceil(v1) + 1)
        if u1 - u0 < 4 or v1 - v0 < 4:
            continue
        bgr = part((u0, v0, u1, v1))
        gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY) if bgr.ndim == 3 else bgr
        lo = np.array([PART_EDGE_PX if u0 > 0 else -np.inf, PART_EDGE_PX if v0 > 0 else -np.inf])
        hi = np.array([u1 - u0 - 1 - PART_EDGE_PX if u1 < w else np.inf,
                       v1 - v0 - 1 - PART_EDGE_PX if v1 < h else np.inf])
        # a square is looked at closely only if its centre may fall in a box
        near = [_part_box(canonical, box, (u0, v0)) for box in inner]
        # the light squares are found only when no edge-bound square read surely
        found = itertools.chain(
            square_candidates(gray, s, g.cube_size_mm, near),
            _later(functools.partial(light_square_candidates, bgr, s, g.cube_size_mm, levels,
                                     near)))
        quads = (q for q in found
                 if (q >= lo).all() and (q <= hi).all()
                 and any(_inside(canonical.px_to_mm(float(q[:, 0].mean()) + u0,
                                                    float(q[:, 1].mean()) + v0), box)
                         for box in inner))
        shift = np.array([[1.0, 0, -u0], [0, 1.0, -v0], [0, 0, 1.0]])
        # the best of every part before, taken over only by a face read more surely
        best = _best_face(quads, canonical, (u0, v0), shift @ from_mm, gray, best)
        if best is not None and best[0] >= SURE_READ:
            break  # no part after could give a face read more surely
    return _reading(best, to_px, g, darker_at_top)


def _part_box(canonical: Canonical, box: tuple[float, float, float, float],
              origin: tuple[int, int]) -> PixelBox:
    """A box (mm) in the pixels of a part of ``canonical``'s raster from ``origin``, a pixel
    wider each side: a point :func:`_inside` the box lies within it, whatever the rounding."""
    u0, v0 = canonical.mm_to_px(box[0], box[1])
    u1, v1 = canonical.mm_to_px(box[2], box[3])
    return u0 - origin[0] - 1, v0 - origin[1] - 1, u1 - origin[0] + 1, v1 - origin[1] + 1


def _merged(boxes: list[tuple[float, float, float, float]], pad: float
            ) -> list[tuple[list[tuple[float, float, float, float]],
                            tuple[float, float, float, float]]]:
    """Boxes grouped where their surroundings (``pad`` about each) overlap: each group's
    boxes and the extent of their surroundings (searched once)."""
    groups = [([b], (b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad)) for b in boxes]
    merged = True
    while merged:
        merged = False
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                a, b = groups[i][1], groups[j][1]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    groups[i] = (groups[i][0] + groups[j][0],
                                 (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]),
                                  max(a[3], b[3])))
                    del groups[j]
                    merged = True
                    break
            if merged:
                break
    return groups


def _inside(point: tuple[float, float], box: tuple[float, float, float, float]) -> bool:
    x, y = point
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def find_cube(
    canonical_bgr: np.ndarray,
    canonical: Canonical,
    *,
    to_image: np.ndarray | None = None,
    darker_at_top: bool | None = None,
    levels: tuple[float, float] | None = None,
) -> CubeReading | None:
    """The cube in a top-down raster of the board (``canonical`` describes it), or None.

    ``to_image`` maps raster pixels back to a camera image (the centre is then reported in
    image pixels); without it the centre is in raster pixels. ``levels``: the
    :func:`whole_raster_levels` of this raster, when already worked out (not taken twice)."""
    s = canonical.px_per_mm
    mm_to_can = np.array([[s, 0, canonical.margin_mm[0] * s], [0, s, canonical.margin_mm[1] * s],
                          [0, 0, 1.0]])
    can_to_mm = np.linalg.inv(mm_to_can)
    reading = find_cube_in_image(canonical_bgr, can_to_mm, canonical.geometry,
                                 darker_at_top=darker_at_top, px_per_mm=min(s, 1.0),
                                 levels=levels)
    if reading is None or to_image is None:
        return reading
    p = to_image @ mm_to_can @ np.array([*reading.centre_mm, 1.0])
    return CubeReading(reading.value, reading.centre_mm, (float(p[0] / p[2]), float(p[1] / p[2])),
                       reading.zone, reading.place, reading.confidence)


def cube_patch(image: np.ndarray, from_mm: np.ndarray, centre_mm: tuple[float, float],
               size_mm: float) -> np.ndarray:
    """The frame about a cube's place, top-down (1.3 cube sides square, ``FACE_PX`` pixels,
    grey): compared from frame to frame to tell whether the cube has stayed put."""
    m = _patch_warp(np.asarray(from_mm, np.float64).tobytes(), centre_mm, size_mm)
    patch = cv2.warpPerspective(image, m, (FACE_PX, FACE_PX), flags=cv2.INTER_AREA)
    out: np.ndarray = patch if patch.ndim == 2 else cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    return out


@functools.lru_cache(maxsize=8)
def _patch_warp(from_mm: bytes, centre_mm: tuple[float, float], size_mm: float) -> np.ndarray:
    """The warp from the frame to :func:`cube_patch`'s patch (``from_mm``: float64 bytes),
    worked out once per camera set-up and cube place: a cube lies still for many frames."""
    half = 0.65 * size_mm
    x, y = centre_mm
    quad = np.array([[x - half, y - half], [x + half, y - half], [x + half, y + half],
                     [x - half, y + half]])
    h = np.frombuffer(from_mm, np.float64).reshape(3, 3)
    quad_img = cv2.perspectiveTransform(quad.reshape(-1, 1, 2), h).reshape(-1, 2)
    dst = np.array([[0, 0], [FACE_PX - 1, 0], [FACE_PX - 1, FACE_PX - 1], [0, FACE_PX - 1]],
                   np.float32)
    m: np.ndarray = cv2.getPerspectiveTransform(quad_img.astype(np.float32), dst)
    m.flags.writeable = False
    return m


def order(quad: np.ndarray) -> np.ndarray:
    """Corners in clockwise order starting at the top-left-most one."""
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    q = quad[np.argsort(angles)]
    start = int(np.argmin(q.sum(axis=1)))
    return np.roll(q, -start, axis=0).astype(np.float32)
