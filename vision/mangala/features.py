"""Measurements of one pit or store seen from above, for counting its stones.

The cell is warped to a top-down raster (``PX_PER_MM``); the bare wood's colour is learnt from
the board around the cells, and stone pixels are those whose colour is far from it. Features:
stone area in stone units, highlight peaks (each visible glass stone shows one), the stone area
left over once a stone is placed under every highlight (stones whose highlight another stone
hides) and its pieces, edge density inside the stones (more boundaries where they overlap), the
local maxima of the stone mask's distance transform (about one per stone lying apart), the
patches of one stone colour big enough to be a stone but holding no highlight (stones whose
highlight an upper stone covers) with their area, how much the discs of the lit stones
overlap one another (stacking, which keeps growing with the pile where area and highlights
saturate: the more stones lie on others, the more lie hidden under them), and the stone area
well clear of every lit stone in solid pieces (what stones with a hidden highlight still show).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

PX_PER_MM = 3.0
FEATURE_NAMES = ("area", "highlights", "residual", "fragments", "edges", "dist_peaks", "unlit",
                 "unlit_area", "overlap", "hidden_area")


@dataclass(frozen=True)
class WoodModel:
    """The bare board's colour as chromaticity (b, g, r over their sum, so shading from the
    pit's rim does not change it) and its spread."""

    chroma: tuple[float, float, float]
    spread: float


def chromaticity(bgr: np.ndarray) -> np.ndarray:
    """Each pixel's colour divided by its brightness (float32, sums to 1)."""
    f = bgr.astype(np.float32) + 4.0
    out: np.ndarray = f / f.sum(axis=-1, keepdims=True)
    return out


def wood_model(bgr: np.ndarray, mask: np.ndarray) -> WoodModel:
    """Robust wood colour from the ``mask`` pixels of a BGR picture."""
    sub = (slice(None, None, 3), slice(None, None, 3))  # every 9th pixel is plenty
    sel = chromaticity(bgr[sub])[mask[sub] > 0]
    if sel.shape[0] < 50:
        sel = chromaticity(bgr[sub]).reshape(-1, 3)
    med = np.median(sel, axis=0)
    dev = np.linalg.norm(sel - med[None, :], axis=1)
    spread = 1.8 * float(np.median(dev))  # about the 90th percentile, robust to an arm
    return WoodModel((float(med[0]), float(med[1]), float(med[2])), max(spread, 0.01))


def wood_distance(bgr: np.ndarray, wood: WoodModel) -> np.ndarray:
    """How far each pixel's chromaticity is from the wood's (float32)."""
    d = chromaticity(bgr) - np.array(wood.chroma, np.float32)[None, None, :]
    out: np.ndarray = np.sqrt((d * d).sum(axis=-1))
    return out


def stone_mask(bgr: np.ndarray, wood: WoodModel, region: np.ndarray) -> np.ndarray:
    """Pixels whose colour is unlike the wood's: uint8 0/255 inside ``region``."""
    smooth = cv2.GaussianBlur(bgr, (0, 0), 1.5)
    dist = wood_distance(smooth, wood)
    # chromaticity is noisier where it is dark (a stone's shadow on the wood): ask for more there
    bright = smooth.astype(np.float32).sum(axis=-1)
    thr = max(0.045, wood.spread * 2.5) * (1.0 + 60.0 / (bright + 30.0))
    m0: np.ndarray = (dist > thr).astype(np.uint8) * 255
    m1: np.ndarray = cv2.morphologyEx(m0, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    m2: np.ndarray = cv2.morphologyEx(m1, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    return fill_holes(cv2.bitwise_and(m2, region))


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """The mask with enclosed holes filled (a highlight on an amber stone is wood-coloured)."""
    h, w = mask.shape
    padded = np.zeros((h + 2, w + 2), np.uint8)
    padded[1:-1, 1:-1] = mask
    flood = padded.copy()
    cv2.floodFill(flood, np.zeros((h + 4, w + 4), np.uint8), (0, 0), 255)
    holes = cv2.bitwise_not(flood)[1:-1, 1:-1]
    out: np.ndarray = cv2.bitwise_or(mask, holes)
    return out


def highlight_map(bgr: np.ndarray) -> np.ndarray:
    """Specular highlights: small, nearly white spots brighter than their surroundings."""
    low = bgr.min(axis=-1).astype(np.float32)  # white light raises every channel
    spot = cv2.GaussianBlur(low, (0, 0), 0.9) - cv2.GaussianBlur(low, (0, 0), 4.0)
    out: np.ndarray = spot
    return out


HIGHLIGHT_MIN = 40.0  # how much brighter than its surroundings a highlight is (a caustic too)


@dataclass(frozen=True)
class CellMeasure:
    """A cell's stone pixels and highlight positions (raster pixels), before the features."""

    mask: np.ndarray
    peaks: np.ndarray  # (k, 2) x, y
    r_px: float
    peak_values: np.ndarray | None = None  # (k,) the highlight map at each peak, when known


def measure(bgr: np.ndarray, region: np.ndarray, wood: WoodModel, stone_mm: float
            ) -> CellMeasure:
    """Stone pixels and highlights of one cell raster; ``region`` is its 0/255 mask."""
    mask = stone_mask(bgr, wood, region)
    r_px = stone_mm / 2 * PX_PER_MM
    spot = highlight_map(bgr)
    k = 2 * max(2, int(r_px * 0.5)) + 1
    dil = cv2.dilate(spot, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    # a highlight is a stone even where the stone's colour is too close to the wood's to show;
    # a raised stone near the rim is seen pushed outward (parallax) and may hang over the rim,
    # so highlights up to 2 mm outside the cell count too
    grow = 2 * round(2.0 * PX_PER_MM) + 1
    near = cv2.dilate(region, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (grow, grow)))
    peak = ((spot >= dil) & (spot > HIGHLIGHT_MIN) & (near > 0)).astype(np.uint8)
    n, _, _, cents = cv2.connectedComponentsWithStats(peak)
    peaks = cents[1:n].astype(np.float64) if n > 1 else np.zeros((0, 2))
    return CellMeasure(mask, peaks, r_px, _values_at(spot, peaks))


def _values_at(spot: np.ndarray, peaks: np.ndarray) -> np.ndarray:
    """The highlight map at each peak (nearest pixel)."""
    h, w = spot.shape
    ix = np.clip(np.round(peaks[:, 0]).astype(int), 0, w - 1)
    iy = np.clip(np.round(peaks[:, 1]).astype(int), 0, h - 1)
    out: np.ndarray = spot[iy, ix]
    return out


def centre_offsets(m: CellMeasure) -> np.ndarray:
    """For each highlight, the way to the middle of the stone pixels around it (k x 2)."""
    out = []
    h, w = m.mask.shape
    rad = m.r_px * 1.1
    for x, y in m.peaks:
        x0, x1 = max(0, int(x - rad)), min(w, int(x + rad) + 1)
        y0, y1 = max(0, int(y - rad)), min(h, int(y + rad) + 1)
        ys, xs = np.nonzero(m.mask[y0:y1, x0:x1])
        if xs.size == 0:
            continue
        dx, dy = xs + x0 - x, ys + y0 - y
        near = dx * dx + dy * dy <= rad * rad
        if np.count_nonzero(near) < 10:
            continue
        out.append((float(dx[near].mean()), float(dy[near].mean())))
    return np.array(out).reshape(-1, 2)


def light_direction(offsets: np.ndarray) -> np.ndarray:
    """Unit vector from a highlight towards its stone's centre (the light is the other way),
    the median over many stones; (0, 0) when there are too few to tell."""
    if len(offsets) < 3:
        return np.zeros(2)
    v = np.median(offsets, axis=0)
    norm = float(np.hypot(*v))
    return v / norm if norm > 1e-6 else np.zeros(2)


CAUSTIC_ALONG = (0.6, 1.05)  # where a glass stone's caustic lies from its highlight (radii)
CAUSTIC_ACROSS = 0.3
CAUSTIC_RATIO = 0.9  # a caustic is fainter than its stone's highlight


def drop_caustics(m: CellMeasure, direction: np.ndarray, bgr: np.ndarray) -> CellMeasure:
    """The measure without the peaks that are the light focused through a pale glass stone:
    a fainter spot about 0.87 radii from a highlight, away from the light (``direction`` points
    from a highlight to its stone's centre). Without it a milky stone counts twice."""
    if len(m.peaks) < 2 or not np.any(direction):
        return m
    val = m.peak_values if m.peak_values is not None else _values_at(highlight_map(bgr), m.peaks)
    d = (m.peaks[:, None, :] - m.peaks[None, :, :]) / m.r_px  # [j, i]: from peak i to peak j
    along = d[..., 0] * direction[0] + d[..., 1] * direction[1]
    across = -d[..., 0] * direction[1] + d[..., 1] * direction[0]
    caustic = ((along >= CAUSTIC_ALONG[0]) & (along <= CAUSTIC_ALONG[1])
               & (np.abs(across) < CAUSTIC_ACROSS)
               & (val[:, None] < CAUSTIC_RATIO * val[None, :]))
    np.fill_diagonal(caustic, False)
    keep = ~caustic.any(axis=1)
    if keep.all():
        return m
    return CellMeasure(m.mask, m.peaks[keep], m.r_px, val[keep])


def lit_overlap(m: CellMeasure, direction: np.ndarray) -> float:
    """How much the lit stones' discs overlap, in stone areas: their number less the area of
    their union (0 when they lie apart, growing as stones stack on one another)."""
    if len(m.peaks) < 2:
        return 0.0
    r = m.r_px
    h, w = m.mask.shape
    pad = round(2 * r)
    union = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    for x, y in m.peaks:
        cx, cy = x + direction[0] * 0.42 * r + pad, y + direction[1] * 0.42 * r + pad
        cv2.circle(union, (round(cx), round(cy)), round(r), 255, -1)
    one = np.zeros((2 * pad + 1, 2 * pad + 1), np.uint8)
    cv2.circle(one, (pad, pad), round(r), 255, -1)  # a drawn disc's own area is the unit
    return float(len(m.peaks)) - float(np.count_nonzero(union)) / np.count_nonzero(one)


HIDDEN_REACH = 1.15  # lit stones' discs are drawn this much bigger (stones vary in size)
HIDDEN_MIN = 0.15  # smallest piece (stone areas) taken for part of a stone


def hidden_area(m: CellMeasure, direction: np.ndarray) -> float:
    """Stone pixels farther than ``HIDDEN_REACH`` radii from every lit stone's centre, opened
    and kept in pieces of at least ``HIDDEN_MIN`` stones, in stone areas: what a stone whose
    highlight another covers shows, with little of a lit stone's rim or a gap's shadow."""
    r = m.r_px
    covered = np.zeros_like(m.mask)
    for x, y in m.peaks:
        cx, cy = x + direction[0] * 0.42 * r, y + direction[1] * 0.42 * r
        cv2.circle(covered, (round(cx), round(cy)), round(r * HIDDEN_REACH), 255, -1)
    rest = cv2.bitwise_and(m.mask, cv2.bitwise_not(covered))
    rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
    _, _, stats, _ = cv2.connectedComponentsWithStats(rest)
    areas = stats[1:, cv2.CC_STAT_AREA] / (np.pi * r ** 2)
    return float(areas[areas >= HIDDEN_MIN].sum())


def cell_features(m: CellMeasure, direction: np.ndarray, bgr: np.ndarray) -> np.ndarray:
    """The feature vector (``FEATURE_NAMES``) of one measured cell, given the frame's light
    ``direction`` (from :func:`light_direction`); caustics are dropped first."""
    m = drop_caustics(m, direction, bgr)
    r = m.r_px
    stone_px = np.pi * r ** 2
    area = float(np.count_nonzero(m.mask)) / stone_px
    covered = np.zeros_like(m.mask)
    for x, y in m.peaks:
        cx, cy = x + direction[0] * 0.42 * r, y + direction[1] * 0.42 * r
        rad = r * (1.0 if np.any(direction) else 1.45)
        cv2.circle(covered, (round(cx), round(cy)), round(rad), 255, -1)
    rest = cv2.bitwise_and(m.mask, cv2.bitwise_not(covered))
    rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    residual = float(np.count_nonzero(rest)) / stone_px
    _, _, stats, _ = cv2.connectedComponentsWithStats(rest)
    fragments = int(np.count_nonzero(stats[1:, cv2.CC_STAT_AREA] > 0.2 * stone_px))
    light = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    edges_img = cv2.Canny(cv2.GaussianBlur(light, (0, 0), 1.0), 30, 80)
    core: np.ndarray = cv2.erode(m.mask, np.ones((3, 3), np.uint8))
    edge = float(np.count_nonzero(cv2.bitwise_and(edges_img, core)))
    edge /= 2 * np.pi * r
    unlit, unlit_area = unlit_stones(bgr, m)
    return np.array([area, float(len(m.peaks)), residual, fragments, edge,
                     float(distance_peaks(m)), float(unlit), unlit_area,
                     lit_overlap(m, direction), hidden_area(m, direction)], dtype=np.float64)


def distance_peaks(m: CellMeasure) -> int:
    """Local maxima of the stone mask's distance to its edge at least 0.45 stone radii deep:
    about one per stone, fewer where stones overlap."""
    r = m.r_px
    dist = cv2.distanceTransform(m.mask, cv2.DIST_L2, 5)
    k = int(r * 1.2) | 1
    grown = cv2.dilate(dist, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    top = ((dist >= grown) & (dist > 0.45 * r)).astype(np.uint8)
    return int(cv2.connectedComponents(top)[0]) - 1


UNLIT_EDGE = 0.1  # chromaticity gradient that separates two stones' colours
UNLIT_MIN = 0.15  # smallest patch (stone areas) taken for a stone


def unlit_stones(bgr: np.ndarray, m: CellMeasure) -> tuple[int, float]:
    """Patches of the stone mask of one colour (cut at colour edges), at least ``UNLIT_MIN``
    stones big, with no highlight within 0.45 radii: their number and area in stone units."""
    chroma = chromaticity(cv2.GaussianBlur(bgr, (0, 0), 1.2))
    gx = cv2.Sobel(chroma, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(chroma, cv2.CV_32F, 0, 1, ksize=3)
    grad = np.sqrt((gx * gx + gy * gy).sum(axis=-1))
    flat = ((m.mask > 0) & (grad < UNLIT_EDGE)).astype(np.uint8)
    flat = cv2.erode(flat, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(flat)
    lit = np.zeros(m.mask.shape, np.uint8)
    for x, y in m.peaks:
        cv2.circle(lit, (round(x), round(y)), round(0.45 * m.r_px), 1, -1)
    lit_labels = set(np.unique(labels[lit > 0]).tolist())
    stone_px = np.pi * m.r_px ** 2
    count = 0
    area = 0.0
    for i in range(1, n):
        a = float(stats[i, cv2.CC_STAT_AREA])
        if a >= UNLIT_MIN * stone_px and i not in lit_labels:
            count += 1
            area += a / stone_px
    return count, area
