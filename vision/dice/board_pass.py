"""The dice and cube pass of a board reading: DESIGN.md's ``dice`` and ``cube`` fields."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vision.board_reader import PreparedFrame


def read_dice_and_cube(frame: PreparedFrame) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Every die and the cube on a prepared frame (not wired yet: reports none)."""
    del frame
    return [], None
