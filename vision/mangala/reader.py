"""Reading a Mangala board: a probability for every stone count (0..48) in each of the 14 cells.

The referee does not trust a raw count: it asks which candidate sowing (at most 6 a turn) best
explains the frame, with :func:`log_likelihood`. So the probabilities are honest: a pile of 15
spreads over its neighbouring counts, a single stone does not. Cells an arm or hand hides are
``hidden`` and carry no information (uniform probabilities, no contribution to the likelihood).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from engine.errors import ImageError, PositionError
from vision.mangala.features import (
    PX_PER_MM,
    WoodModel,
    cell_features,
    centre_offsets,
    light_direction,
    measure,
    wood_distance,
    wood_model,
)
from vision.mangala.geometry import (
    CELL_COUNT,
    DEFAULT_GEOMETRY,
    TOTAL_STONES,
    Cell,
    MangalaGeometry,
    calibrate,
)

MAX_COUNT = TOTAL_STONES
MODEL_PATH = Path(__file__).with_name("count_model.json")
HIDDEN_FRACTION = 0.04  # a cell this much covered by an arm is not read
FLOOR = 1e-6  # no count is ever impossible: a misread costs a lot, never infinitely much
OUTLIER_WEIGHT = 0.02  # share of frames the count model does not foresee (see KindModel)
OUTLIER_WIDEN = 3.0  # how much wider (standard deviations) their features spread


@dataclass(frozen=True)
class CellReading:
    """One pit or store: ``probs[n]`` is the probability of ``n`` stones (n = 0..48)."""

    probs: tuple[float, ...]
    hidden: bool = False

    @property
    def best(self) -> int:
        """The most probable count."""
        return int(np.argmax(self.probs))

    @property
    def confidence(self) -> float:
        """The probability of the most probable count (0 for a hidden cell)."""
        return 0.0 if self.hidden else float(max(self.probs))


@dataclass(frozen=True)
class MangalaReading:
    """The 14 cells in contract order (a's pits 1..6, a's store, b's pits 1..6, b's store)."""

    cells: tuple[CellReading, ...]
    occluded: bool

    @property
    def counts(self) -> tuple[int, ...]:
        """The most probable count of every cell (hidden ones included, for display only)."""
        return tuple(c.best for c in self.cells)


def uniform_cell(hidden: bool = True) -> CellReading:
    """A cell nothing is known about."""
    p = 1.0 / (MAX_COUNT + 1)
    return CellReading(tuple([p] * (MAX_COUNT + 1)), hidden)


# ---------------------------------------------------------------- the count model


@dataclass(frozen=True)
class KindModel:
    """Feature distribution given the count, for pits or for stores: a Gaussian per count."""

    means: np.ndarray  # (49, d)
    inv_covs: np.ndarray  # (49, d, d)
    log_dets: np.ndarray  # (49,)
    features: tuple[int, ...]  # indices into features.FEATURE_NAMES

    def log_likelihoods(self, feats: np.ndarray) -> np.ndarray:
        """log p(features | n) for n = 0..48: the fitted Gaussian, mixed with a small share
        (``OUTLIER_WEIGHT``) of one ``OUTLIER_WIDEN`` times wider, so that a frame the model
        did not foresee (a false highlight, a stone on the rim) costs a few nats, not dozens:
        the referee then weighs the sowings by honest odds."""
        x = np.asarray(feats, dtype=np.float64)[list(self.features)]
        d = x[None, :] - self.means
        maha = np.einsum("ni,nij,nj->n", d, self.inv_covs, d)
        core = -0.5 * (maha + self.log_dets)
        k = OUTLIER_WIDEN ** 2
        wide = -0.5 * (maha / k + self.log_dets + len(self.features) * math.log(k))
        out: np.ndarray = np.logaddexp(core + math.log1p(-OUTLIER_WEIGHT),
                                       wide + math.log(OUTLIER_WEIGHT))
        return out


@lru_cache(maxsize=4)
def load_model(path: str = str(MODEL_PATH)) -> dict[str, KindModel]:
    """The fitted count model (``vision/mangala/train.py`` writes it)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ImageError(f"stone count model {path} cannot be read: {exc}") from None
    out: dict[str, KindModel] = {}
    for kind in ("pit", "store"):
        k = data[kind]
        covs = np.array(k["covs"], dtype=np.float64)
        inv = np.linalg.inv(covs)
        _, logdet = np.linalg.slogdet(covs)
        out[kind] = KindModel(np.array(k["means"], dtype=np.float64), inv, logdet,
                              tuple(int(i) for i in k["features"]))
    return out


def probabilities(feats: np.ndarray, kind: str, max_count: int = MAX_COUNT) -> np.ndarray:
    """P(n stones | features) for n = 0..48 under a flat prior on 0..``max_count``."""
    model = load_model()[kind]
    ll = model.log_likelihoods(feats)
    ll[max_count + 1:] = -np.inf
    ll = ll - np.max(ll)
    p = np.exp(ll)
    p /= p.sum()
    p = (p + FLOOR) / (1.0 + FLOOR * len(p))
    out: np.ndarray = p / p.sum()
    return out


# ---------------------------------------------------------------- the board


def _cell_box(cell: Cell, pad_mm: float) -> tuple[float, float, float, float]:
    cx, cy = cell.centre
    hx, hy = cell.half_size
    return (cx - hx - pad_mm, cy - hy - pad_mm, cx + hx + pad_mm, cy + hy + pad_mm)


def warp_board(image: np.ndarray, corners: np.ndarray, geometry: MangalaGeometry,
               margin_mm: float = 12.0) -> tuple[np.ndarray, float]:
    """The board top-down at ``PX_PER_MM`` with ``margin_mm`` around it; returns the raster and
    the margin in pixels."""
    cal = calibrate(corners, image.shape, geometry)
    s = PX_PER_MM
    dst = (geometry.corners_mm + margin_mm) * s
    hom = cv2.getPerspectiveTransform(cal.corners, dst.astype(np.float32))
    w = round((geometry.length_mm + 2 * margin_mm) * s)
    h = round((geometry.width_mm + 2 * margin_mm) * s)
    top = cv2.warpPerspective(image, hom, (w, h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    return top, margin_mm * s


def cell_region(shape: tuple[int, int], cell: Cell, origin: tuple[float, float],
                shrink_mm: float = 1.0) -> np.ndarray:
    """The cell's ellipse as a 0/255 mask in a raster whose (0, 0) is ``origin`` (mm)."""
    s = PX_PER_MM
    m = np.zeros(shape, np.uint8)
    centre = (round((cell.centre[0] - origin[0]) * s), round((cell.centre[1] - origin[1]) * s))
    axes = (round((cell.half_size[0] - shrink_mm) * s), round((cell.half_size[1] - shrink_mm) * s))
    cv2.ellipse(m, centre, axes, 0, 0, 360, 255, -1)
    return m


def _wood_region(shape: tuple[int, int], geometry: MangalaGeometry, margin_px: float
                 ) -> np.ndarray:
    """The bare board between the cells and away from its edge (where wood shows)."""
    s = PX_PER_MM
    m = np.zeros(shape, np.uint8)
    inset = 6.0
    cv2.rectangle(m, (round(margin_px + inset * s), round(margin_px + inset * s)),
                  (round(margin_px + (geometry.length_mm - inset) * s),
                   round(margin_px + (geometry.width_mm - inset) * s)), 255, -1)
    for cell in geometry.cells():
        centre = (round(margin_px + cell.centre[0] * s), round(margin_px + cell.centre[1] * s))
        axes = (round((cell.half_size[0] + 4) * s), round((cell.half_size[1] + 4) * s))
        cv2.ellipse(m, centre, axes, 0, 0, 360, 0, -1)
    return m


def arm_mask(top: np.ndarray, wood: WoodModel, wood_px: np.ndarray,
             geometry: MangalaGeometry, margin_px: float) -> np.ndarray:
    """What covers the board and reaches in over its edge (an arm, a hand): 0/255.

    Stones never touch the board's edge, so a large unlike-wood region connected to the edge
    is something lying over the board, and everything it covers is hidden.
    """
    smooth = cv2.GaussianBlur(top, (0, 0), 1.5)
    far = wood_distance(smooth, wood) > max(0.03, wood.spread * 2)
    # a pale hand can share the wood's hue: it also differs in lightness
    light = cv2.cvtColor(smooth, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    wood_l = light[::3, ::3][wood_px[::3, ::3] > 0]
    if wood_l.size > 50:
        med = float(np.median(wood_l))
        mad = float(np.median(np.abs(wood_l - med)))
        far |= np.abs(light - med) > max(32.0, 5.0 * mad)
    s = PX_PER_MM
    board = np.zeros(far.shape, np.uint8)
    x0, y0 = round(margin_px), round(margin_px)
    x1, y1 = round(margin_px + geometry.length_mm * s), round(margin_px + geometry.width_mm * s)
    cv2.rectangle(board, (x0, y0), (x1, y1), 255, -1)
    fm0: np.ndarray = cv2.bitwise_and(far.astype(np.uint8) * 255, board)
    fm: np.ndarray = cv2.morphologyEx(fm0, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    edge = np.zeros(far.shape, np.uint8)
    band = round(4 * s)
    cv2.rectangle(edge, (x0, y0), (x1, y1), 255, band)
    n, labels = cv2.connectedComponents(fm)
    out = np.zeros(far.shape, np.uint8)
    min_edge = round(15 * s)  # the arm crosses the edge over at least 15 mm
    for i in range(1, n):
        comp = labels == i
        touching = np.count_nonzero(comp & (edge > 0))
        if touching >= min_edge * band // 2:
            out[comp] = 255
    if np.any(out):
        grown: np.ndarray = cv2.dilate(out, np.ones((round(3 * s), round(3 * s)), np.uint8))
        return grown
    return out


def measure_cells(image: np.ndarray, corners: np.ndarray,
                  geometry: MangalaGeometry = DEFAULT_GEOMETRY
                  ) -> tuple[list[np.ndarray], list[float]]:
    """The feature vector of every cell and the fraction of it an arm covers."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3:
        raise ImageError("image must be a BGR uint8 picture")
    top, margin_px = warp_board(image, corners, geometry)
    shape = (top.shape[0], top.shape[1])
    wood_px = _wood_region(shape, geometry, margin_px)
    wood = wood_model(top, wood_px)
    arm = arm_mask(top, wood, wood_px, geometry, margin_px)
    measures = []
    patches = []
    covered: list[float] = []
    origin = (-margin_px / PX_PER_MM, -margin_px / PX_PER_MM)
    for cell in geometry.cells():
        x0, y0, x1, y1 = _cell_box(cell, 2.0)
        s = PX_PER_MM
        c0, r0 = max(0, round((x0 - origin[0]) * s)), max(0, round((y0 - origin[1]) * s))
        c1, r1 = min(shape[1], round((x1 - origin[0]) * s)), min(shape[0],
                                                                  round((y1 - origin[1]) * s))
        region = cell_region(shape, cell, origin)[r0:r1, c0:c1]
        patch = top[r0:r1, c0:c1]
        area = max(1, int(np.count_nonzero(region)))
        covered.append(float(np.count_nonzero(arm[r0:r1, c0:c1] & region)) / area)
        measures.append(measure(patch, region, wood, geometry.stone_diameter_mm))
        patches.append(patch)
    offsets = [centre_offsets(m) for m, cov in zip(measures, covered, strict=True) if cov == 0]
    direction = light_direction(np.concatenate(offsets) if offsets else np.zeros((0, 2)))
    feats = [cell_features(m, direction, p) for m, p in zip(measures, patches, strict=True)]
    return feats, covered


def read_mangala(image: np.ndarray, corners: np.ndarray,
                 geometry: MangalaGeometry = DEFAULT_GEOMETRY) -> MangalaReading:
    """Read all 14 cells of the board whose corners (TL, TR, BR, BL pixels) are given."""
    feats, covered = measure_cells(image, corners, geometry)
    cells: list[CellReading] = []
    for cell, f, cov in zip(geometry.cells(), feats, covered, strict=True):
        if cov > HIDDEN_FRACTION:
            cells.append(uniform_cell(True))
            continue
        p = probabilities(f, "store" if cell.is_store else "pit")
        cells.append(CellReading(tuple(float(v) for v in p), False))
    return MangalaReading(tuple(cells), any(c.hidden for c in cells))


def log_likelihood(reading: MangalaReading, counts: Sequence[int]) -> float:
    """How well 14 counts (contract order) explain the frame: the sum over visible cells of
    log P(count); hidden cells contribute 0. Higher is better."""
    vals = [int(c) for c in counts]
    if len(vals) != CELL_COUNT or any(not 0 <= v <= MAX_COUNT for v in vals):
        raise PositionError(f"a hypothesis needs 14 counts in 0..48, not {list(counts)}")
    total = 0.0
    for cell, n in zip(reading.cells, vals, strict=True):
        if not cell.hidden:
            total += math.log(max(cell.probs[n], 1e-300))
    return total
