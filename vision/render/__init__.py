"""Synthetic scene renderer, deterministic by seed: tests, the evaluation and the demo use it.

Drawing happens in canonical top-down space (:class:`vision.geometry.Canonical`, whole case at
``RENDER_PX_PER_MM``): board, checkers (columns, then checkers laid over them), borne-off
checkers in the tray, markers, then every ``Prop`` (dice, cube: see :class:`Prop`), then hands;
then the camera (tilt, lens distortion), light, glare, shadow, blur, noise and JPEG.

Typical use::

    frame = render_scene(random_scene(seed=7))
    frame.image, frame.corners, frame.contents, frame.hidden_slots
    frame.project_mm([[x, y]])   # board millimetres to image pixels (e.g. a die's centre)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.geometry import Canonical
from vision.render.board import (
    checker_layout,
    draw_board,
    draw_checker,
    draw_markers,
    draw_off,
)
from vision.render.camera import CameraModel, camera_model, jpeg_round_trip, photograph
from vision.render.hands import draw_hand
from vision.render.scene import (
    SCHEMES,
    BoardContents,
    CameraSpec,
    ColourScheme,
    HandSpec,
    Prop,
    SceneSpec,
    random_camera,
    random_contents,
    random_hand,
    random_scene,
)

RENDER_PX_PER_MM = 1.3
# A slot counts as hidden in the ground truth when a hand covers this share of its column.
HIDDEN_SLOT_FRACTION = 0.02


@dataclass
class RenderedFrame:
    """A rendered picture with its ground truth."""

    spec: SceneSpec
    image: np.ndarray  # BGR uint8, after JPEG
    jpeg: bytes
    canvas: np.ndarray  # the canonical top-down drawing (whole case), before the camera
    canonical: Canonical
    camera: CameraModel
    corners: np.ndarray  # playing-surface corners in the image (TL, TR, BR, BL), 4x2 float
    hand_cover: tuple[float, ...]  # share of each slot's column a hand covers
    bar_cover: float  # share of the bar a hand covers
    occluded: bool  # a hand (or an occluding prop) is over the playing surface

    @property
    def contents(self) -> BoardContents:
        return self.spec.contents

    @property
    def hidden_slots(self) -> tuple[int, ...]:
        """Slots a hand covers enough that no count may be claimed for them."""
        return tuple(i for i, f in enumerate(self.hand_cover) if f >= HIDDEN_SLOT_FRACTION)

    def project_mm(self, pts_mm: np.ndarray | list[list[float]]) -> np.ndarray:
        """Board millimetres (N x 2) to image pixels (N x 2), through tilt and lens."""
        canvas_px = self.canonical.points_mm_to_px(np.asarray(pts_mm, dtype=np.float64))
        return self.camera.canvas_to_image(canvas_px)

    @property
    def corners_flat(self) -> list[float]:
        """Corners as ``x,y,x,y,...`` for ``hakem vision read --corners``."""
        return [float(v) for v in self.corners.reshape(-1)]


def draw_canvas(spec: SceneSpec, rng: np.random.Generator) -> tuple[np.ndarray, Canonical,
                                                                       np.ndarray]:
    """Draw the canonical top-down scene; returns (canvas, canonical, occlusion mask)."""
    g = spec.geometry
    canonical = Canonical.whole_board(g, RENDER_PX_PER_MM)
    w, h = canonical.size
    canvas = np.zeros((h, w, 3), np.uint8)
    scheme = spec.scheme
    draw_board(canvas, canonical, scheme, rng)
    if spec.markers:
        draw_markers(canvas, canonical)
    draw_off(canvas, canonical, scheme, spec.contents, darker_at_bottom=spec.darker_at_bottom)
    layout = checker_layout(g, spec.contents, rng, darker_at_bottom=spec.darker_at_bottom,
                            off_axis_mm=spec.off_axis_mm)
    for layer in (0, 1, 2):
        for x, y, colour, lay in layout:
            if lay != layer:
                continue
            draw_checker(
                canvas,
                canonical,
                x,
                y,
                scheme.darker if colour == 0 else scheme.lighter,
                rng,
                marbled=scheme.marbled and colour == 0,
                pearl=scheme.pearl,
                lift_mm=8.0 * layer,
            )
    occ = np.zeros((h, w), np.uint8)
    for prop in spec.props:
        mask = prop.draw(canvas, canonical, rng)
        if mask is not None and getattr(prop, "occludes", False):
            occ |= (mask > 0).astype(np.uint8) * 255
    for hand in spec.hands:
        occ |= draw_hand(canvas, canonical, hand, rng)
    return canvas, canonical, occ


def _cover(canonical: Canonical, occ: np.ndarray) -> tuple[tuple[float, ...], float, bool]:
    g = canonical.geometry
    fractions = []
    for slot in range(24):
        r = g.slot_rect(slot)
        u0, v0 = canonical.mm_to_px(r.x0, r.y0)
        u1, v1 = canonical.mm_to_px(r.x1, r.y1)
        patch = occ[int(v0) : int(np.ceil(v1)), int(u0) : int(np.ceil(u1))]
        fractions.append(float((patch > 0).mean()) if patch.size else 0.0)
    b = g.bar
    u0, v0 = canonical.mm_to_px(b.x0 - g.checker_diameter_mm / 4, b.y0)
    u1, v1 = canonical.mm_to_px(b.x1 + g.checker_diameter_mm / 4, b.y1)
    bar_patch = occ[int(v0) : int(v1), int(u0) : int(u1)]
    bar = float((bar_patch > 0).mean()) if bar_patch.size else 0.0
    u0, v0 = canonical.mm_to_px(0, 0)
    u1, v1 = canonical.mm_to_px(g.width_mm, g.height_mm)
    on_board = bool((occ[int(v0) : int(v1), int(u0) : int(u1)] > 0).any())
    return tuple(fractions), bar, on_board


def render_scene(spec: SceneSpec) -> RenderedFrame:
    """Render ``spec`` reproducibly (its ``seed`` drives every random detail)."""
    rng = np.random.default_rng(spec.seed)
    canvas, canonical, occ = draw_canvas(spec, rng)
    model = camera_model(canonical, spec.camera)
    photo = photograph(canvas, model, spec.camera, rng)
    image, jpeg = jpeg_round_trip(photo, spec.camera.jpeg_quality)
    corners = model.canvas_to_image(canonical.points_mm_to_px(spec.geometry.corners_mm))
    cover, bar, on_board = _cover(canonical, occ)
    return RenderedFrame(spec, image, jpeg, canvas, canonical, model, corners, cover, bar,
                         on_board)


__all__ = [
    "HIDDEN_SLOT_FRACTION",
    "RENDER_PX_PER_MM",
    "SCHEMES",
    "BoardContents",
    "CameraSpec",
    "ColourScheme",
    "HandSpec",
    "Prop",
    "RenderedFrame",
    "SceneSpec",
    "draw_canvas",
    "random_camera",
    "random_contents",
    "random_hand",
    "random_scene",
    "render_scene",
]
