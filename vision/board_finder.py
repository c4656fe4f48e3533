"""Finding the playing surface without markers or hand-given corners.

A tournament board seen from above shows a fixed pattern of straight edges: the outline of the
playing surface, the bar's two sides and the two long sides of each of the 24 points. The
finder matches that pattern (from :class:`vision.geometry.BoardGeometry`) against the picture's
edges in two steps:

1. a coarse search on a small copy of the picture: the pattern drawn as a template at many
   sizes, aspects and a few rotations, matched against the gradient (``cv2.matchTemplate``);
2. a refinement of the four corners (a homography) at finer and finer copies: every sample of
   every model line looks for the nearest strong edge across itself, and the corners move to
   put the samples on their edges (robust least squares, so checkers and hands do not pull).
   The points' sides fix the board across well but hardly along them, and the frame's outer
   edge runs close to the surface's, so before the middle level the top and bottom edges are
   searched outright for where the whole model (sides, tips, outline) shows the most edge.

The board counts as found when enough of the model's samples sit on a clear edge running along
them at full resolution; otherwise :class:`BoardNotFoundError` says so (a wrong fit is worse
than none: the reader would count checkers on the wrong points).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from engine.errors import ConfigError, ImageError
from vision.config import FinderConfig
from vision.geometry import BoardGeometry


class BoardNotFoundError(ImageError):
    """Neither markers nor corners locate the board in the picture, and it was not found."""


@dataclass(frozen=True)
class FoundBoard:
    """The playing surface's corners (TL, TR, BR, BL image px) and how well the model fits:
    ``inlier_share`` of the model's samples sit on an edge of the picture."""

    corners: np.ndarray
    inlier_share: float
    coarse_score: float
    k1: float = 0.0  # the lens's radial distortion the fit found (see ``_distort``)


@dataclass(frozen=True)
class _Model:
    """Samples along the board's straight edges (mm), their directions and weights."""

    points: np.ndarray  # N x 2 mm
    tangents: np.ndarray  # N x 2 unit vectors (mm)
    weights: np.ndarray  # N
    outline: np.ndarray  # N booleans: the sample lies on the surface's outline
    apex: np.ndarray  # N booleans: the sample is a point's tip (its edge runs across the axis)
    segments: tuple[tuple[float, float, float, float, float], ...]  # x0, y0, x1, y1, weight


@functools.lru_cache(maxsize=4)
def _model(geometry: BoardGeometry, sample_mm: float) -> _Model:
    """The edge model of a board: outline, bar sides and both long sides of every point."""
    g = geometry
    w, h = g.width_mm, g.height_mm
    segs: list[tuple[float, float, float, float, float, float, float]] = []
    # (x0, y0, x1, y1, t_from, t_to, weight): the part of each segment that is sampled
    outline = ((0.0, 0.0, w, 0.0), (w, 0.0, w, h), (w, h, 0.0, h), (0.0, h, 0.0, 0.0))
    for x0, y0, x1, y1 in outline:
        segs.append((x0, y0, x1, y1, 0.02, 0.98, -1.0))
    apexes = np.array([g.point_triangle(slot)[2] for slot in range(24)], dtype=np.float64)
    for x in (g.half_width_mm, g.half_width_mm + g.bar_width_mm):
        segs.append((x, 0.0, x, h, 0.03, 0.97, 1.0))
    for slot in range(24):
        tri = g.point_triangle(slot)
        apex = tri[2]
        for base in (tri[0], tri[1]):
            segs.append((float(base[0]), float(base[1]), float(apex[0]), float(apex[1]),
                         0.06, 0.9, 1.0))
    pts: list[np.ndarray] = []
    tans: list[np.ndarray] = []
    wts: list[np.ndarray] = []
    for x0, y0, x1, y1, t0, t1, wt in segs:
        length = math.hypot(x1 - x0, y1 - y0)
        n = max(2, int(length * (t1 - t0) / sample_mm) + 1)
        t = np.linspace(t0, t1, n)
        p = np.stack([x0 + t * (x1 - x0), y0 + t * (y1 - y0)], axis=1)
        pts.append(p)
        tans.append(np.tile([(x1 - x0) / length, (y1 - y0) / length], (n, 1)))
        wts.append(np.full(n, wt))
    # a point's tip: the point's colour gives way to the field along its axis
    pts.append(apexes)
    tans.append(np.tile([1.0, 0.0], (len(apexes), 1)))
    wts.append(np.full(len(apexes), -2.0))
    kind = np.concatenate(wts)
    return _Model(
        np.concatenate(pts).astype(np.float64),
        np.concatenate(tans).astype(np.float64),
        np.abs(kind).astype(np.float64),
        kind == -1.0,
        kind == -2.0,
        tuple((s[0], s[1], s[2], s[3], s[6]) for s in segs),
    )


def _gray(image: np.ndarray) -> np.ndarray:
    """Grey levels (float32) of a BGR or grey picture."""
    if image.ndim == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return image.astype(np.float32)


def _gradients(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x and y derivatives in grey levels per pixel (lightly smoothed)."""
    g = cv2.GaussianBlur(gray, (0, 0), 1.0)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    return gx, gy


def _shrink(image: np.ndarray, factor: float) -> np.ndarray:
    if factor <= 1.0:
        return image
    h, w = image.shape[:2]
    size = (max(1, round(w / factor)), max(1, round(h / factor)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def _to_level(pts: np.ndarray, factor: float) -> np.ndarray:
    """Full-picture pixels to a copy shrunk ``factor`` times (pixel centres kept aligned)."""
    return (pts + 0.5) / factor - 0.5


def _from_level(pts: np.ndarray, factor: float) -> np.ndarray:
    return (pts + 0.5) * factor - 0.5


# -- coarse search -------------------------------------------------------------------------


def _placement(px_per_mm: float, aspect: float, rotation_deg: float) -> np.ndarray:
    """Board millimetres (about the board's centre) to picture pixels: scaled (the height
    ``aspect`` times more), then rotated."""
    c, s = math.cos(math.radians(rotation_deg)), math.sin(math.radians(rotation_deg))
    out: np.ndarray = np.array([[c, -s], [s, c]]) @ np.diag([px_per_mm, px_per_mm * aspect])
    return out


def _template(geometry: BoardGeometry, model: _Model, rot: np.ndarray,
              blur: float) -> tuple[np.ndarray, np.ndarray]:
    """The model's lines placed by ``rot`` (see :func:`_placement`): a 2-channel template
    (edges across x, edges across y) and the board's centre in it (x, y)."""
    centre_mm = np.array([geometry.width_mm / 2.0, geometry.height_mm / 2.0])
    corners = (geometry.corners_mm.astype(np.float64) - centre_mm) @ rot.T
    margin = 3.0 + 3.0 * blur
    lo = corners.min(axis=0) - margin
    hi = corners.max(axis=0) + margin
    size = np.ceil(hi - lo).astype(int)
    centre = -lo
    shape = (int(size[1]), int(size[0]))
    layers = (np.zeros(shape, np.float32), np.zeros(shape, np.float32))
    shift = 4  # cv2.line's fixed-point bits
    seg = np.array([s[:4] for s in model.segments], dtype=np.float64)
    a = (seg[:, 0:2] - centre_mm) @ rot.T + centre
    b = (seg[:, 2:4] - centre_mm) @ rot.T + centre
    d = b - a
    n = np.abs(np.stack([-d[:, 1], d[:, 0]], axis=1))
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-9)
    ia = np.round(a * (1 << shift)).astype(int).tolist()
    ib = np.round(b * (1 << shift)).astype(int).tolist()
    for i in range(len(seg)):
        for ch in (0, 1):
            strength = float(n[i, ch])
            if strength > 0.2:
                cv2.line(layers[ch], tuple(ia[i]), tuple(ib[i]), strength, 1, cv2.LINE_AA,
                         shift)
    tpl: np.ndarray = np.dstack(layers)
    if blur > 0:
        tpl = np.asarray(cv2.GaussianBlur(tpl, (0, 0), blur), dtype=np.float32)
    return tpl, centre


def _edge_channels(gray: np.ndarray) -> np.ndarray:
    """|d/dx| and |d/dy| of the picture, compressed so that a few very strong edges (checker
    rims) do not outweigh the many faint ones of the points."""
    gx, gy = _gradients(gray)
    mag = np.stack([np.abs(gx), np.abs(gy)], axis=2)
    scale = float(np.percentile(mag, 95)) + 1e-3
    out: np.ndarray = np.minimum(mag / scale, 1.0).astype(np.float32)
    return out


def _coarse_candidates(gray: np.ndarray, geometry: BoardGeometry, model: _Model,
                       cfg: FinderConfig) -> list[tuple[float, np.ndarray]]:
    """The best coarse placements of the board: (score, corners in full-picture px)."""
    w_full = gray.shape[1]
    factor = max(1.0, w_full / float(cfg.coarse_width))
    small = _shrink(gray, factor)
    chans = _edge_channels(small)
    sh, sw = small.shape[:2]
    found: list[tuple[float, np.ndarray]] = []
    width_px = cfg.min_board_share * sw
    while width_px <= cfg.max_board_share * sw:
        px_per_mm = width_px / geometry.width_mm
        if geometry.height_mm * px_per_mm > sh:
            break
        for rotation, aspect in itertools.product(cfg.rotations_deg, cfg.aspects):
            rot = _placement(px_per_mm, aspect, rotation)
            tpl, centre = _template(geometry, model, rot, cfg.template_blur_px)
            th, tw = tpl.shape[:2]
            if th > sh or tw > sw or th < 8 or tw < 8:
                continue
            res = cv2.matchTemplate(chans, tpl, cv2.TM_CCOEFF_NORMED)
            res = np.nan_to_num(res, nan=-1.0)
            for _ in range(2):  # the two best distinct places at this size
                _mn, best, _mnl, loc = cv2.minMaxLoc(res)
                centre_mm = np.array([geometry.width_mm / 2.0, geometry.height_mm / 2.0])
                pos = np.array(loc, dtype=np.float64) + centre
                corners = (geometry.corners_mm.astype(np.float64) - centre_mm) @ rot.T + pos
                found.append((float(best), _from_level(corners, factor)))
                r = max(2, int(0.15 * min(tw, th)))
                x, y = loc
                res[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1] = -1.0
        width_px *= cfg.scale_step
    found.sort(key=lambda f: -f[0])
    picked: list[tuple[float, np.ndarray]] = []
    for score, corners in found:
        size = float(np.linalg.norm(corners[1] - corners[0]))
        if all(float(np.abs(corners - other).max()) > 0.08 * size for _s, other in picked):
            picked.append((score, corners))
        if len(picked) >= cfg.candidates:
            break
    return picked


# -- refinement ------------------------------------------------------------------------------


def _project(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = pts @ h[:, :2].T + h[:, 2]
    out: np.ndarray = p[:, :2] / p[:, 2:3]
    return out


def _homography(corners_mm: np.ndarray, corners_px: np.ndarray) -> np.ndarray:
    h: np.ndarray = cv2.getPerspectiveTransform(corners_mm.astype(np.float32),
                                                corners_px.astype(np.float32))
    return h.astype(np.float64)


Lens = tuple[float, float, float]  # centre x, centre y, half-diagonal (px of one level)


def _lens(shape: tuple[int, ...]) -> Lens:
    """The radial distortion's centre and scale for a picture of ``shape``."""
    h, w = shape[:2]
    return ((w - 1) / 2.0, (h - 1) / 2.0, math.hypot(w / 2.0, h / 2.0))


def _distort(pts: np.ndarray, k1: float, lens: Lens) -> np.ndarray:
    """Where a lens with radial distortion ``k1`` puts undistorted points: ``u = d (1 + k1
    |d|^2)`` in coordinates normalised by the half-diagonal (solved for d by iteration)."""
    if k1 == 0.0:
        return pts
    cx, cy, norm = lens
    centre = np.array([cx, cy])
    q = (pts - centre) / norm
    d = q.copy()
    for _ in range(5):
        d = q / (1.0 + k1 * (d**2).sum(axis=-1, keepdims=True))
    out: np.ndarray = d * norm + centre
    return out


def _place(theta: np.ndarray, cm: np.ndarray, lens: Lens, pts: np.ndarray) -> np.ndarray:
    """Board millimetres to picture pixels for ``theta``: the four corners as an undistorted
    camera would see them (8 numbers), then the lens's ``k1``."""
    h = _homography(cm, theta[:8].reshape(4, 2))
    return _distort(_project(h, pts), float(theta[8]), lens)


def _across(gx: np.ndarray, gy: np.ndarray, points: np.ndarray, normals: np.ndarray, r: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The gradient sampled across each model line: offsets -r..r px along each point's normal,
    the gradient (x, y) there, and its strength across the line (rows: points)."""
    t = np.arange(-r, r + 1, dtype=np.float32)
    mx = (points[:, 0:1] + t[None, :] * normals[:, 0:1]).astype(np.float32)
    my = (points[:, 1:2] + t[None, :] * normals[:, 1:2]).astype(np.float32)
    sx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    sy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    d = np.abs(sx * normals[:, 0:1].astype(np.float32) + sy * normals[:, 1:2].astype(np.float32))
    return t, sx, sy, d


def _search(gx: np.ndarray, gy: np.ndarray, centres: np.ndarray, normals: np.ndarray,
            radius: float, strong_share: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """For each sample, the offset along its normal (px) of the strongest edge across it
    within ``radius``, and that edge's strength (grey levels per px)."""
    t, _, _, d = _across(gx, gy, centres, normals, max(1, math.ceil(radius)))
    # the strong edge nearest the sample (a stronger one further off is often the frame's
    # outer edge or a checker's rim)
    top = d.max(axis=1, keepdims=True)
    local = np.zeros_like(d, dtype=bool)
    local[:, 1:-1] = (d[:, 1:-1] >= d[:, :-2]) & (d[:, 1:-1] >= d[:, 2:])
    strong = local & (d >= strong_share * top)
    dist = np.where(strong, np.abs(t)[None, :], np.inf)
    idx = np.argmin(dist, axis=1)
    idx = np.where(np.isfinite(dist[np.arange(len(idx)), idx]), idx, np.argmax(d, axis=1))
    rows = np.arange(len(idx))
    peak = d[rows, idx]
    left = d[rows, np.maximum(idx - 1, 0)]
    right = d[rows, np.minimum(idx + 1, len(t) - 1)]
    denom = left - 2.0 * peak + right
    sub = np.where(np.abs(denom) > 1e-6, 0.5 * (left - right) / np.where(denom == 0, 1, denom),
                   0.0)
    sub = np.clip(sub, -0.5, 0.5)
    offset = t[idx] + sub
    at_end = (idx == 0) | (idx == len(t) - 1)
    peak = np.where(at_end, 0.0, peak)
    return offset.astype(np.float64), peak.astype(np.float64)


def _normals(theta: np.ndarray, cm: np.ndarray, lens: Lens,
             model: _Model) -> tuple[np.ndarray, np.ndarray]:
    """Projected samples and unit normals of the model's lines in the picture."""
    p = _place(theta, cm, lens, model.points)
    q = _place(theta, cm, lens, model.points + model.tangents)
    d = q - p
    d /= np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
    return p, np.stack([-d[:, 1], d[:, 0]], axis=1)


def _refine_level(gx: np.ndarray, gy: np.ndarray, theta0: np.ndarray,
                  geometry: BoardGeometry, model: _Model, cfg: FinderConfig,
                  radius: float, outline_weight: float, apex_weight: float,
                  fit_lens: bool) -> np.ndarray:
    """Move the corners (px of this level) and, with ``fit_lens``, the lens's distortion so
    the model's lines sit on the picture's edges."""
    cm = geometry.corners_mm.astype(np.float64)
    lens = _lens(gx.shape)
    theta = theta0.astype(np.float64).copy()
    free = 9 if fit_lens else 8
    eps = np.array([0.05] * 8 + [1e-4])
    limit = np.array([radius] * 8 + [0.02])
    c = cfg.robust_px
    for _ in range(cfg.iterations):
        p, n = _normals(theta, cm, lens, model)
        offset, peak = _search(gx, gy, p, n, radius, cfg.strong_share)
        valid = peak >= cfg.min_edge
        targets = p + offset[:, None] * n
        base = np.where(model.outline, outline_weight,
                        np.where(model.apex, apex_weight, model.weights)) * valid
        if base.sum() < 8:
            break
        for _gn in range(3):
            proj = _place(theta, cm, lens, model.points)
            res = np.einsum("ij,ij->i", n, proj - targets)
            jac = np.empty((len(res), free))
            for k in range(free):
                t2 = theta.copy()
                t2[k] += eps[k]
                pk = _place(t2, cm, lens, model.points)
                jac[:, k] = np.einsum("ij,ij->i", n, pk - proj) / eps[k]
            u = np.clip(np.abs(res) / c, 0.0, 1.0)
            w = base * (1.0 - u**2) ** 2
            a = jac.T @ (jac * w[:, None]) + 1e-3 * np.eye(free)
            step = np.linalg.solve(a, -(jac.T @ (w * res)))
            step = np.clip(step, -limit[:free], limit[:free])
            theta[:free] += step
            theta[8] = float(np.clip(theta[8], -cfg.max_k1, cfg.max_k1))
            if float(np.abs(step[:8]).max()) < 0.02:
                break
    return theta


def _edge_response(gx: np.ndarray, gy: np.ndarray, pts: np.ndarray, normals: np.ndarray,
                   scale: float) -> np.ndarray:
    """Edge strength across each model line where its samples fall (0..1, clipped at
    ``scale`` grey levels per px so a few very strong edges do not decide alone)."""
    mx = pts[..., 0].astype(np.float32)
    my = pts[..., 1].astype(np.float32)
    sx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    sy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    d = np.abs(sx * normals[..., 0] + sy * normals[..., 1])
    out: np.ndarray = np.minimum(d / scale, 1.0)
    return out


def _search_rows(gx: np.ndarray, gy: np.ndarray, theta: np.ndarray, geometry: BoardGeometry,
                 model: _Model, cfg: FinderConfig, reach: float) -> np.ndarray:
    """Move the top edge and the bottom edge (each along the board's sides) to where the whole
    model shows the most edge: the points' sides pin the board across but hardly along them,
    and the frame's outer edge lies close to the surface's own. The two edges are searched in
    turn (top, bottom, top again)."""
    cm = geometry.corners_mm.astype(np.float64)
    lens = _lens(gx.shape)
    k1 = float(theta[8])
    out = theta[:8].reshape(4, 2).astype(np.float64).copy()
    left = out[3] - out[0]
    right = out[2] - out[1]
    u = np.array([left / np.linalg.norm(left), right / np.linalg.norm(right)])
    steps = np.arange(-reach, reach + 0.5, 1.0)
    weights = np.where(model.outline, cfg.row_outline_weight,
                       np.where(model.apex, cfg.row_apex_weight, 1.0))
    _p, n = _normals(theta, cm, lens, model)
    for moved in ((0, 1), (3, 2), (0, 1)):  # TL and TR move together, then BL and BR
        trial = np.repeat(out[None], len(steps), axis=0)
        trial[:, moved[0]] += steps[:, None] * u[0]
        trial[:, moved[1]] += steps[:, None] * u[1]
        pts = np.stack([_distort(_project(_homography(cm, c), model.points), k1, lens)
                        for c in trial])
        resp = _edge_response(gx, gy, pts, np.broadcast_to(n, pts.shape), cfg.row_edge_scale)
        best = float(steps[int(np.argmax(resp @ weights))])
        out[moved[0]] += best * u[0]
        out[moved[1]] += best * u[1]
    return np.concatenate([out.reshape(-1), [k1]])


def _inlier_share(gx: np.ndarray, gy: np.ndarray, theta: np.ndarray,
                  geometry: BoardGeometry, model: _Model, cfg: FinderConfig) -> float:
    """Share of the model's samples with an edge within ``inlier_px`` of where they fall: an
    edge running along the model's line (its gradient across it) that stands out from what
    lies either side of it (noise and texture have edges everywhere, in every direction)."""
    p, n = _normals(theta, geometry.corners_mm.astype(np.float64), _lens(gx.shape), model)
    t, sx, sy, d = _across(gx, gy, p, n, math.ceil(cfg.inlier_px) + cfg.inlier_window_px)
    mag = np.hypot(sx, sy)
    near = np.abs(t) <= cfg.inlier_px
    idx = np.argmax(np.where(near[None, :], d, -1.0), axis=1)
    rows = np.arange(len(idx))
    peak = d[rows, idx]
    along = peak / np.maximum(mag[rows, idx], 1e-6)
    background = np.median(d, axis=1)
    ok = ((peak >= cfg.min_edge) & (along >= cfg.inlier_alignment)
          & (peak >= cfg.inlier_contrast * background))
    return float(ok.mean())


def _plausible(corners: np.ndarray, w: int, h: int) -> bool:
    """A convex clockwise quadrilateral inside the picture (to a small tolerance)."""
    if not np.isfinite(corners).all():
        return False
    tol = 2.0
    if (corners[:, 0] < -tol).any() or (corners[:, 0] > w - 1 + tol).any():
        return False
    if (corners[:, 1] < -tol).any() or (corners[:, 1] > h - 1 + tol).any():
        return False
    a, b, d = corners, np.roll(corners, -1, axis=0), np.roll(corners, -2, axis=0)
    cross = (b[:, 0] - a[:, 0]) * (d[:, 1] - b[:, 1]) - (b[:, 1] - a[:, 1]) * (d[:, 0] - b[:, 0])
    return bool((cross > 0).all())


def find_board(image: np.ndarray, geometry: BoardGeometry,
               config: FinderConfig | None = None) -> FoundBoard:
    """The playing surface's four corners in ``image`` (no markers, no hand-given corners);
    :class:`BoardNotFoundError` when no board shape fits the picture's edges well enough."""
    cfg = config or FinderConfig()
    per_level = (cfg.search_px, cfg.outline_weights, cfg.apex_weights)
    if not cfg.levels or any(len(v) != len(cfg.levels) for v in per_level):
        raise ConfigError("vision.finder.search_px, outline_weights and apex_weights need one "
                          f"value per level ({len(cfg.levels)} levels)")
    gray = _gray(image)
    h_full, w_full = gray.shape[:2]
    if min(h_full, w_full) < 64:
        raise BoardNotFoundError(
            f"board not found: the {w_full}x{h_full} picture is too small to find it in"
        )
    model = _model(geometry, cfg.sample_mm)
    levels = [(f, _gradients(_gray(_shrink(image, f)))) for f in cfg.levels]
    best: FoundBoard | None = None
    def at(theta: np.ndarray, factor: float, back: bool = False) -> np.ndarray:
        """``theta`` (undistorted corners, k1) moved to (or back from) a level's pixels."""
        move = _from_level if back else _to_level
        return np.concatenate([move(theta[:8].reshape(4, 2), factor).reshape(-1), theta[8:]])

    def refine(theta: np.ndarray, first: int, rows: bool) -> np.ndarray:
        """Refine ``theta`` (full-picture px) through the levels from ``first`` on."""
        for k in range(first, len(levels)):
            factor, (gx, gy) = levels[k]
            lt = at(theta, factor)
            if rows and k == cfg.row_search_level:
                lt = _search_rows(gx, gy, lt, geometry, model, cfg, cfg.row_search_px)
            lt = _refine_level(gx, gy, lt, geometry, model, cfg, cfg.search_px[k],
                               cfg.outline_weights[k], cfg.apex_weights[k],
                               k >= cfg.lens_from_level)
            theta = at(lt, factor, back=True)
        return theta

    split = min(cfg.row_search_level, len(levels))
    for coarse_score, start in _coarse_candidates(gray, geometry, model, cfg):
        early = refine(np.concatenate([start.reshape(-1), [0.0]]), 0, False) if split else None
        # with and without the search for the top and bottom edges: the better fit is kept
        for rows in (True, False):
            theta = refine(early if early is not None else
                           np.concatenate([start.reshape(-1), [0.0]]), split, rows)
            corners = _distort(theta[:8].reshape(4, 2), float(theta[8]), _lens(gray.shape))
            if not _plausible(corners, w_full, h_full):
                continue
            fine_factor, (gx, gy) = levels[-1]
            share = _inlier_share(gx, gy, at(theta, fine_factor), geometry, model, cfg)
            if best is None or share > best.inlier_share:
                inside = np.clip(corners, 0.0, [float(w_full), float(h_full)])
                best = FoundBoard(inside.astype(np.float32), share, coarse_score,
                                  float(theta[8]))
        if best is not None and best.inlier_share >= cfg.accept_share:
            break  # a clear fit: the other coarse matches cannot beat it
    if best is None or best.inlier_share < cfg.min_inlier_share:
        share = 0.0 if best is None else best.inlier_share
        raise BoardNotFoundError(
            "board not found: no markers and no board outline in the picture "
            f"(best fit {share:.0%} of the board's edges; give --corners x,y,x,y,x,y,x,y)"
        )
    return best


__all__ = ["BoardNotFoundError", "FoundBoard", "find_board"]
