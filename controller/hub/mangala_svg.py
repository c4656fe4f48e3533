"""The live Mangala board as SVG, drawn from the position JSON (the DESIGN.md contract).

Drawn as the table's camera sees it: side a at the bottom, pits 1..6 from left to right and
a's store on the right; side b at the top, its pit 1 on the right (b's left) and its store on
the left. So a's pit i faces b's pit 7 - i and sowing runs counter-clockwise (MG-EQ-1, MG-1).
Every pit and store shows its stone count as a number: piles are too big to draw one by one.
"""

from __future__ import annotations

from html import escape
from typing import Any

from engine.errors import PositionError
from engine.mangala.position import PITS, Position, Side

WIDTH = 620
HEIGHT = 260
_MARGIN = 20
_STORE_W = 70
_PIT_W = (WIDTH - 2 * _MARGIN - 2 * _STORE_W) / PITS
_PIT_R = _PIT_W * 0.4
_ROW_Y = (HEIGHT * 0.33, HEIGHT * 0.67)  # b's row, a's row
_WOOD = "#8a5a2b"
_HOLE = "#5e3a17"
_TEXT = "#f4efe1"
_TURN = "#f2c14e"
# text sizes in the 620-wide drawing, readable where a phone draws it ~360 px wide
NAME_FONT = 20
COUNT_FONT = 26


def _pit_x(side: str, pit: int) -> float:
    """Centre x of ``side``'s pit 1..6 as the camera sees it."""
    column = pit - 1 if side == "a" else PITS - pit
    return _MARGIN + _STORE_W + column * _PIT_W + _PIT_W / 2


def mangala_svg(position: Any, players: tuple[str, str] = ("", "")) -> str:
    """An SVG document of ``position`` (the start of a set when none is known or it cannot be
    read): 12 pits and 2 stores, each with its count, and who is to move."""
    try:
        board = Position.from_obj(position, turn_required=False)
    except PositionError:
        board = Position.initial().with_turn(None)
    label = escape(board.describe(), quote=True)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="mangala board {label}" class="board">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" rx="30" fill="{_WOOD}"/>',
    ]
    rows: tuple[tuple[Side, float], ...] = (("b", _ROW_Y[0]), ("a", _ROW_Y[1]))
    for side, row_y in rows:
        for pit, count in enumerate(board.pits(side), start=1):
            parts.extend(_cell(_pit_x(side, pit), row_y, _PIT_R, _PIT_R, f"{side}{pit}", count))
    middle = HEIGHT / 2
    store_ry = HEIGHT / 2 - _MARGIN - 10
    parts.extend(_cell(_MARGIN + _STORE_W / 2, middle, _STORE_W * 0.42, store_ry, "b_store",
                       board.b_store))
    parts.extend(_cell(WIDTH - _MARGIN - _STORE_W / 2, middle, _STORE_W * 0.42, store_ry,
                       "a_store", board.a_store))
    for index, (who, y) in enumerate((("a", HEIGHT - 5), ("b", 19))):
        name = players[index][:24] or who
        turn = board.to_move == who
        parts.append(f'<text x="{WIDTH / 2}" y="{y}" font-size="{NAME_FONT}" text-anchor="middle" '
                     f'fill="{_TURN if turn else _TEXT}" data-side="{who}" '
                     f'data-to-move="{"yes" if turn else "no"}">'
                     f'{escape(name)} ({who}){" to move" if turn else ""}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _cell(cx: float, cy: float, rx: float, ry: float, where: str, count: int) -> list[str]:
    """One pit or store: a hollow with its stone count."""
    return [
        f'<g data-at="{where}" data-count="{count}">',
        f'<ellipse cx="{cx:.1f}" cy="{cy:.1f}" rx="{rx:.1f}" ry="{ry:.1f}" fill="{_HOLE}"/>',
        f'<text x="{cx:.1f}" y="{cy + 9:.1f}" font-size="{COUNT_FONT}" text-anchor="middle" '
        f'fill="{_TEXT}">{count}</text>',
        "</g>",
    ]


__all__ = ["mangala_svg"]
