"""Checkers borne off (BG-OFF-4): counted standing on edge in each end of both bear-off trays
(:func:`read_off_zones`), from the length of the stack unlike the empty tray.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.config import CheckerConfig
from vision.geometry import BoardGeometry
from vision.remap import homography_maps


@dataclass
class OffZoneReading:
    """Checkers borne off into one end of a tray (standing on edge from the tray's end):
    P(count = n), and the colour of the stack (BGR) when there is one."""

    side: str  # "left" or "right" tray
    end: str  # "top" or "bottom"
    count_probs: np.ndarray
    colour: np.ndarray | None


def read_off_zones(image: np.ndarray, image_to_mm: np.ndarray, geometry: BoardGeometry,
                   config: CheckerConfig) -> list[OffZoneReading]:
    """Count the checkers standing on edge in each end of both bear-off trays.

    Each tray is warped to its own small raster (``off_px_per_mm``); along it, rows unlike the
    empty tray (the median row: stacks fill at most a third of it) from the tray's end inward
    are the stack,
    whose length over the thickness of a checker is the count. Trays outside the picture are
    left out. ``image_to_mm``: the homography from image pixels to board millimetres."""
    s = config.off_px_per_mm
    h_img, w_img = image.shape[:2]
    pitch = geometry.checker_thickness_mm + config.off_spacing_mm
    out: list[OffZoneReading] = []
    to_img = np.linalg.inv(image_to_mm)
    for side in ("left", "right"):
        tray = geometry.tray_rect(side)
        corners = np.array([[tray.x0, tray.y0], [tray.x1, tray.y0], [tray.x1, tray.y1],
                            [tray.x0, tray.y1]], np.float64).reshape(-1, 1, 2)
        in_img = cv2.perspectiveTransform(corners, to_img).reshape(-1, 2)
        if not ((in_img >= 0).all() and (in_img[:, 0] <= w_img - 1).all()
                and (in_img[:, 1] <= h_img - 1).all()):
            continue
        size = (max(4, round(tray.width * s)), max(8, round(tray.height * s)))
        shift = np.array([[s, 0.0, -tray.x0 * s], [0.0, s, -tray.y0 * s], [0.0, 0.0, 1.0]])
        hmat = tuple(np.round(shift @ image_to_mm, 9).reshape(-1).tolist())
        m1, m2 = homography_maps(hmat, size)
        raster = cv2.remap(image, m1, m2, cv2.INTER_LINEAR)
        inset = max(1, round(config.off_inset_mm * s))
        rows = np.ascontiguousarray(raster[:, inset : max(inset + 1, size[0] - inset)])
        profile = cv2.reduce(rows, 1, cv2.REDUCE_AVG, dtype=cv2.CV_32F).reshape(-1, 3)
        empty = np.median(profile, axis=0)  # stacks fill at most a third of a tray
        filled = np.abs(profile - empty).max(axis=1) > config.off_colour_diff
        gap = max(1, round(config.off_gap_mm * s))
        for end in ("top", "bottom"):
            zone = geometry.off_zone(side, end)
            a = round((zone.y0 - tray.y0) * s)
            b = round((zone.y1 - tray.y0) * s)
            run = filled[a:b] if end == "top" else filled[a:b][::-1]
            length = _stack_length(run, gap)
            x = (length / s + config.off_spacing_mm) / pitch
            n = np.arange(config.max_count + 1)
            probs = np.exp(-0.5 * ((n - x) / config.off_count_sd) ** 2)
            probs /= probs.sum()
            colour = None
            if length > 0:
                stack = profile[a:b] if end == "top" else profile[a:b][::-1]
                colour = np.median(stack[:length], axis=0)
            out.append(OffZoneReading(side, end, probs, colour))
    return out


def _stack_length(filled: np.ndarray, gap: int) -> int:
    """Rows from the start of ``filled`` to the last filled one before ``gap`` empty rows in a
    row (0 when the first rows are empty)."""
    n = len(filled)
    if not n or not filled[: max(1, gap)].any():
        return 0
    empty = np.concatenate([[0], np.cumsum(~filled, dtype=np.int32)])
    runs = np.nonzero(empty[gap:] - empty[:-gap] == gap)[0] if n >= gap else np.zeros(0, int)
    stop = int(runs[0]) if len(runs) else n  # the first run of `gap` empty rows starts here
    taken = np.nonzero(filled[:stop])[0]
    return int(taken[-1]) + 1 if len(taken) else 0
