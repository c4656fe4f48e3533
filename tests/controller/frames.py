"""A camera folder of the starting position, for tests that run a table on pictures."""

from __future__ import annotations

from pathlib import Path

from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from controller.table_layout import DEFAULT_LAYOUT
from engine.backgammon.position import Position


def starting_frames(folder: Path, count: int, seed: int = 5) -> DemoCamera:
    """Write ``count`` pictures of the starting position into ``folder`` (made if missing) and
    return the camera that took them (its corners locate the board)."""
    folder.mkdir(parents=True, exist_ok=True)
    camera = DemoCamera(seed=seed)
    c = DEFAULT_LAYOUT.counts(Position.initial())
    _, jpeg = camera.render(Shot(contents_from_counts(c.slots, c.bar, c.off)))
    for k in range(count):
        (folder / f"{k:03d}.jpg").write_bytes(jpeg)
    return camera
