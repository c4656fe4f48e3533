"""Annotated pictures: what the reader found, drawn over the camera's picture (calibration
checks by a director, evidence snapshots)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.board_reader import BoardReading


def _poly(pts: np.ndarray) -> np.ndarray:
    return np.round(pts).astype(np.int32).reshape(-1, 1, 2)


def annotate(image: np.ndarray, reading: BoardReading,
             markers: dict[int, np.ndarray] | None = None) -> np.ndarray:
    """The picture with the playing surface, every slot with its count, the bar, the trays,
    hidden slots in red, and the markers found."""
    out = image.copy()
    cal = reading.calibration
    g = cal.geometry
    cv2.polylines(out, [_poly(cal.corners)], True, (0, 255, 255), 2, cv2.LINE_AA)
    counts = reading.slot_counts()
    for slot in range(24):
        r = g.slot_rect(slot)
        quad = np.array([[r.x0, r.y0], [r.x1, r.y0], [r.x1, r.y1], [r.x0, r.y1]])
        pts = cal.mm_to_image(quad)
        hidden = counts[slot] is None
        colour = (0, 0, 255) if hidden else (0, 200, 0)
        cv2.polylines(out, [_poly(pts)], True, colour, 1, cv2.LINE_AA)
        c = counts[slot]
        text = "?" if c is None else ("" if c == (0, 0) else
                                      f"{'D' if c[0] else 'L'}{c[0] or c[1]}")
        anchor = cal.mm_to_image(np.array([[g.slot_centre_x(slot),
                                            g.height_mm * (0.47 if slot < 12 else 0.53)]]))[0]
        label = f"{slot}" + (f" {text}" if text else "")
        cv2.putText(out, label, (int(anchor[0]) - 14, int(anchor[1])),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.4, colour, 1, cv2.LINE_AA)
    for rect in (g.bar, g.tray_rect("left"), g.tray_rect("right")):
        quad = np.array([[rect.x0, rect.y0], [rect.x1, rect.y0], [rect.x1, rect.y1],
                         [rect.x0, rect.y1]])
        cv2.polylines(out, [_poly(cal.mm_to_image(quad))], True, (255, 160, 0), 1, cv2.LINE_AA)
    bar = "?" if reading.bar.hidden else f"bar {reading.bar.counts[0]}/{reading.bar.counts[1]}"
    top = cal.mm_to_image(np.array([[g.bar.centre[0], -8.0]]))[0]
    cv2.putText(out, bar, (int(top[0]) - 30, int(top[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                (255, 160, 0), 1, cv2.LINE_AA)
    for marker_id, centre in (markers or {}).items():
        cv2.circle(out, (int(centre[0]), int(centre[1])), 8, (255, 0, 255), 2, cv2.LINE_AA)
        cv2.putText(out, f"m{marker_id}", (int(centre[0]) + 10, int(centre[1])),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 0, 255), 1, cv2.LINE_AA)
    status = (f"{cal.source}; {'OCCLUDED' if reading.occluded else 'clear'}; "
              f"confidence {reading.confidence:.2f}")
    cv2.putText(out, status, (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(out, status, (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 1,
                cv2.LINE_AA)
    return out
