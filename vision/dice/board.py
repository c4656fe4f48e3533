"""Dice on a calibrated board: pips, flat or cocked, on a checker, and which half (BG-ROLL-2).

Two stages. A cheap pass over the camera frame finds pip-sized spots (black-hat and top-hat
responses) and clusters them, in board millimetres, into die candidates. Each candidate is then
rectified into a small top-down patch at :data:`PATCH_PX_PER_MM` where the upward face is fitted
(pip layout, orientation), the face colour is measured, and the bands just outside the face are
checked for more of the die's own body (a side face: the die is cocked). A checker rim circling
the die means it lies on a checker.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.dice.pips import to_gray
from vision.dice.render import PIP_LAYOUTS, PIP_OFFSET, PIP_RADIUS
from vision.geometry import BoardGeometry

PATCH_PX_PER_MM = 5.0
PATCH_MM = 44.0
COCKED_BAND_THRESHOLD = 0.42


@dataclass(frozen=True)
class BoardDie:
    """One die read on the board."""

    pips: int
    centre_px: tuple[float, float]  # camera image pixels
    centre_mm: tuple[float, float]  # board millimetres (origin: playing surface top-left)
    flat: bool
    on_checker: bool
    half: str | None  # "left"/"right" of the bar as seen in the picture; None: bar or off board
    region: str  # the geometry's region kind: slot, bar, field, tray, frame, off-board
    confidence: float
    cocked_score: float = 0.0

    def as_json(self) -> dict[str, object]:
        """The ``dice`` entries of ``hakem vision read`` (DESIGN.md)."""
        return {
            "pips": self.pips,
            "centre": [round(self.centre_px[0], 1), round(self.centre_px[1], 1)],
            "flat": self.flat,
            "on_checker": self.on_checker,
            "confidence": round(self.confidence, 3),
        }


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    out: np.ndarray = cv2.perspectiveTransform(p, h).reshape(-1, 2)
    return out


def _local_scale(from_mm: np.ndarray, x: float, y: float) -> float:
    """Image pixels per board millimetre around (x, y)."""
    p = _apply(from_mm, np.array([[x, y], [x + 10.0, y], [x, y + 10.0]]))
    return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 20.0)


def _spot_candidates(gray: np.ndarray, to_mm: np.ndarray, from_mm: np.ndarray,
                     geometry: BoardGeometry) -> list[tuple[float, float]]:
    """Centres (mm) of clusters of pip-sized dark or light spots over the board."""
    outer = geometry.outer_rect
    corners = _apply(from_mm, np.array([[outer.x0, outer.y0], [outer.x1, outer.y0],
                                        [outer.x1, outer.y1], [outer.x0, outer.y1]]))
    h, w = gray.shape
    x0 = int(max(0, np.floor(corners[:, 0].min())))
    y0 = int(max(0, np.floor(corners[:, 1].min())))
    x1 = int(min(w, np.ceil(corners[:, 0].max()) + 1))
    y1 = int(min(h, np.ceil(corners[:, 1].max()) + 1))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return []
    roi = gray[y0:y1, x0:x1]
    scale = _local_scale(from_mm, geometry.width_mm / 2, geometry.height_mm / 2)
    pip_px = 2.0 * PIP_RADIUS * geometry.die_size_mm * scale
    k = max(5, int(round(pip_px * 2.4)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    response = cv2.max(cv2.morphologyEx(roi, cv2.MORPH_BLACKHAT, kernel),
                       cv2.morphologyEx(roi, cv2.MORPH_TOPHAT, kernel))
    mask = (response > 20).astype(np.uint8)
    n, _, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return []
    bw, bh, area = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT], stats[1:, 4]
    size_ok = (bw <= 2.0 * pip_px + 2) & (bh <= 2.0 * pip_px + 2) & (area <= 3.0 * pip_px ** 2)
    pts = centroids[1:][size_ok] + np.array([x0, y0])
    if len(pts) == 0:
        return []
    mm = _apply(to_mm, pts)
    inside = ((mm[:, 0] > outer.x0) & (mm[:, 0] < outer.x1)
              & (mm[:, 1] > outer.y0) & (mm[:, 1] < outer.y1))
    mm = mm[inside]
    if len(mm) > 600:  # a pathological frame: keep it bounded
        mm = mm[:600]
    link = geometry.die_size_mm * 0.6
    d = np.linalg.norm(mm[:, None, :] - mm[None, :, :], axis=2)
    labels = -np.ones(len(mm), int)
    current = 0
    for i in range(len(mm)):
        if labels[i] >= 0:
            continue
        stack = [i]
        labels[i] = current
        while stack:
            j = stack.pop()
            for k2 in np.nonzero((d[j] < link) & (labels < 0))[0]:
                labels[k2] = current
                stack.append(int(k2))
        current += 1
    out = []
    for lab in range(current):
        members = mm[labels == lab]
        if len(members) > 14:  # a texture, not a die
            continue
        out.append((float(members[:, 0].mean()), float(members[:, 1].mean())))
    return out


@dataclass(frozen=True)
class _PatchPip:
    x: float  # mm from the patch centre
    y: float
    contrast: float
    dark: bool
    area_ratio: float


def _patch(image: np.ndarray, from_mm: np.ndarray, cx: float, cy: float, size_mm: float,
           ppm: float) -> np.ndarray:
    """A top-down patch of ``size_mm`` centred on (cx, cy) mm at ``ppm`` pixels per mm."""
    n = int(round(size_mm * ppm))
    patch_to_mm = np.array([[1.0 / ppm, 0, cx - size_mm / 2], [0, 1.0 / ppm, cy - size_mm / 2],
                            [0, 0, 1.0]])
    m = from_mm @ patch_to_mm
    out: np.ndarray = cv2.warpPerspective(image, m, (n, n),
                                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                          borderMode=cv2.BORDER_REPLICATE)
    return out


def _patch_pips(gray: np.ndarray, die_mm: float) -> list[_PatchPip]:
    """Pip-sized blobs of either polarity in a top-down patch: peaks of a difference of
    Gaussians tuned to the pip size, so pips that blur into each other stay apart."""
    ppm = PATCH_PX_PER_MM
    radius = PIP_RADIUS * die_mm * ppm
    centre = gray.shape[0] / 2
    g = gray.astype(np.float32)
    s1 = max(1.0, radius / 1.414)
    dog = cv2.GaussianBlur(g, (0, 0), s1) - cv2.GaussianBlur(g, (0, 0), s1 * 2.5)
    win = int(radius * 2.2) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (win, win))
    out: list[_PatchPip] = []
    for dark in (True, False):
        resp = -dog if dark else dog
        peaks = (resp >= cv2.dilate(resp, kernel)) & (resp > 16.0)
        ys, xs = np.nonzero(peaks)
        for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
            out.append(_PatchPip((x - centre) / ppm, (y - centre) / ppm,
                                 float(resp[y, x]) / 255.0, dark, 1.0))
    return out


def _layout_points(count: int) -> np.ndarray:
    return np.array(PIP_LAYOUTS[count], np.float64)


def _fit_face(pts: np.ndarray, die_mm: float) -> tuple[float, float, float, float]:
    """Best pip layout for these face pips: (residual mm, centre x, centre y, angle rad)."""
    n = len(pts)
    centre = pts.mean(axis=0)
    if n == 1:
        return 0.0, float(centre[0]), float(centre[1]), 0.0
    rel = pts - centre
    step = PIP_OFFSET * die_mm
    layout = _layout_points(n) * step
    angles = []
    for i in range(n):
        for j in range(i + 1, n):
            v = rel[j] - rel[i]
            a = math.atan2(v[1], v[0])
            angles += [a, a + math.pi / 4, a - math.pi / 4]
    best = (1e9, 0.0)
    for a in angles:
        ca, sa = math.cos(a), math.sin(a)
        rot = rel @ np.array([[ca, -sa], [sa, ca]])  # into the face frame
        d = np.linalg.norm(rot[:, None, :] - layout[None, :, :], axis=2)
        # each pip to its nearest layout point, and each layout point covered
        residual = float(max(d.min(axis=1).max(), d.min(axis=0).max()))
        if residual < best[0]:
            best = (residual, a)
    return best[0], float(centre[0]), float(centre[1]), best[1]


def _choose_face(pips: list[_PatchPip], die_mm: float
                 ) -> tuple[list[_PatchPip], float, float, float, float] | None:
    """The upward face's pips near the patch centre: (pips, residual, cx, cy, angle)."""
    near = [p for p in pips if math.hypot(p.x, p.y) < 0.75 * die_mm]
    if not near:
        return None
    best: tuple[float, list[_PatchPip], float, float, float, float] | None = None
    for dark in (True, False):
        same = [p for p in pips if p.dark == dark]
        seeds = [p for p in near if p.dark == dark]
        if not seeds:
            continue
        top = max(p.contrast for p in seeds)
        strong = [p for p in same if p.contrast >= 0.55 * top]
        for seed in seeds:
            if seed.contrast < 0.55 * top:
                continue
            group = [seed]
            changed = True
            while changed:
                changed = False
                for p in strong:
                    if p in group:
                        continue
                    if any(math.hypot(p.x - q.x, p.y - q.y) < 0.78 * die_mm for q in group):
                        if len(group) < 6:
                            group.append(p)
                            changed = True
            # drop pips until the layout fits (touching dice, through-showing pips)
            while True:
                pts = np.array([[p.x, p.y] for p in group])
                residual, cx, cy, angle = _fit_face(pts, die_mm)
                if residual < 0.16 * die_mm or len(group) == 1:
                    break
                far = max(group, key=lambda p: (p is not seed, math.hypot(p.x - cx, p.y - cy)
                                                - 3 * p.contrast))
                group.remove(far)
            if residual >= 0.16 * die_mm:
                continue
            strength = float(np.mean([p.contrast for p in group]))
            score = strength * (1.0 - residual / (0.16 * die_mm)) + 0.02 * len(group)
            if best is None or score > best[0]:
                best = (score, group, residual, cx, cy, angle)
    if best is None:
        return None
    return best[1], best[2], best[3], best[4], best[5]


def _side_bands(patch: np.ndarray, cx: float, cy: float, angle: float, die_mm: float,
                pip_pts: np.ndarray) -> tuple[float, np.ndarray]:
    """Largest share of die-coloured pixels in the four bands just outside the face, and the
    face colour."""
    ppm = PATCH_PX_PER_MM
    n = patch.shape[0]
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32)
    xm = (xs - n / 2) / ppm - cx
    ym = (ys - n / 2) / ppm - cy
    ca, sa = math.cos(angle), math.sin(angle)
    u = xm * ca + ym * sa
    v = -xm * sa + ym * ca
    half = die_mm / 2
    face = (np.abs(u) < half * 0.8) & (np.abs(v) < half * 0.8)
    for px, py in pip_pts:
        face &= np.hypot(xm - (px - cx), ym - (py - cy)) > PIP_RADIUS * die_mm * 1.8
    pixels = patch[face].astype(np.float32)
    if len(pixels) < 10:
        return 0.0, np.zeros(3)
    colour = np.median(pixels, axis=0)
    bright = float(colour.sum()) + 1.0
    chroma = colour / bright
    p = patch.astype(np.float32)
    psum = p.sum(axis=2) + 1.0
    ratio = psum / bright
    cdist = np.abs(p / psum[:, :, None] - chroma).sum(axis=2)
    dielike = (ratio > 0.35) & (ratio < 0.97) & (cdist < 0.07)
    shares = []
    for axis_u, sign in ((True, 1), (True, -1), (False, 1), (False, -1)):
        along = u * sign if axis_u else v * sign
        across = v if axis_u else u
        band = (along > half + 0.6) & (along < half + 0.30 * die_mm) & (np.abs(across) < half * 0.8)
        if band.sum() == 0:
            continue
        shares.append(float(dielike[band].mean()))
    return (max(shares) if shares else 0.0), colour


def _on_checker(image: np.ndarray, from_mm: np.ndarray, x: float, y: float,
                geometry: BoardGeometry) -> bool:
    """True when a checker's rim circles the die: it lies on that checker."""
    r = geometry.checker_diameter_mm / 2
    ppm = 2.0
    size = 4.4 * r
    patch = _patch(image, from_mm, x, y, size, ppm)
    gray = cv2.GaussianBlur(to_gray(patch), (5, 5), 1.2)
    circles = cv2.HoughCircles(gray, cv2.HOUGH_GRADIENT, dp=1, minDist=r * ppm * 0.5,
                               param1=60, param2=14, minRadius=int(r * ppm * 0.88),
                               maxRadius=int(r * ppm * 1.12))
    if circles is None:
        return False
    centre = size * ppm / 2
    limit = (r - geometry.die_size_mm * 0.55) * ppm
    for cx, cy, _ in circles[0]:
        if math.hypot(cx - centre, cy - centre) < limit:
            return True
    return False


def read_board_dice(image: np.ndarray, to_mm: np.ndarray,
                    geometry: BoardGeometry | None = None) -> list[BoardDie]:
    """Every die on (or beside) the board in a camera frame.

    ``to_mm`` is the 3x3 homography from image pixels to board millimetres (the playing
    surface's top-left corner is the origin, see ``vision.geometry``).
    """
    g = geometry or BoardGeometry()
    gray = to_gray(image)
    colour = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    from_mm = np.linalg.inv(to_mm)
    die = g.die_size_mm
    found: list[BoardDie] = []
    for cx, cy in _spot_candidates(gray, to_mm, from_mm, g):
        if any(math.hypot(cx - d.centre_mm[0], cy - d.centre_mm[1]) < die * 0.7 for d in found):
            continue
        patch = _patch(colour, from_mm, cx, cy, PATCH_MM, PATCH_PX_PER_MM)
        pips = _patch_pips(to_gray(patch), die)
        face = _choose_face(pips, die)
        if face is None:
            continue
        members, residual, fx, fy, angle = face
        pts = np.array([[p.x, p.y] for p in members])
        cocked_share, _ = _side_bands(patch, fx, fy, angle, die, pts)
        x_mm, y_mm = cx + fx, cy + fy
        if any(math.hypot(x_mm - d.centre_mm[0], y_mm - d.centre_mm[1]) < die * 0.7
               for d in found):
            continue
        centre_px = _apply(from_mm, np.array([[x_mm, y_mm]]))[0]
        region = g.region_at(x_mm, y_mm)
        fit = 1.0 - residual / (0.16 * die)
        contrast = float(np.mean([p.contrast for p in members]))
        confidence = float(np.clip(0.5 + 0.5 * fit, 0, 1) * np.clip(contrast * 4.0, 0.2, 1.0))
        found.append(BoardDie(
            pips=len(members),
            centre_px=(float(centre_px[0]), float(centre_px[1])),
            centre_mm=(x_mm, y_mm),
            flat=cocked_share < COCKED_BAND_THRESHOLD,
            on_checker=_on_checker(colour, from_mm, x_mm, y_mm, g),
            half=g.half_at(x_mm, y_mm),
            region=region.kind,
            confidence=confidence,
            cocked_score=cocked_share,
        ))
    found.sort(key=lambda d: -d.confidence)
    return sorted(found[:4], key=lambda d: (d.centre_mm[0], d.centre_mm[1]))
