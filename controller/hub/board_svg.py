"""The live board as SVG, drawn from a GNU Backgammon Position ID.

Always drawn from player 0's side (the first player of ``match_start``): their home board
(points 1..6) bottom right, light checkers; player 1 dark, moving the other way. A Position ID is
seen from the player on roll, so one seen from player 1 is swapped first.
"""

from __future__ import annotations

from html import escape

from engine.backgammon.position import Position

WIDTH = 620
HEIGHT = 440
_MARGIN = 20
_BAR = 40
_POINT_W = (WIDTH - 2 * _MARGIN - _BAR - 50) / 12  # 50: the tray for borne-off checkers
_R = _POINT_W * 0.45
POINT_FONT = 15
_LIGHT = "#f4efe1"
_DARK = "#2b2b2b"


def _point_x(point: int) -> float:
    """Centre x of point 1..24 in player 0's numbering."""
    # Bottom row: 12 leftmost ... 1 rightmost; top row: 13 leftmost ... 24 rightmost.
    column = 12 - point if point <= 12 else point - 13
    x = _MARGIN + column * _POINT_W + _POINT_W / 2
    return x + _BAR if column >= 6 else x


def board_svg(position_id: str | None, seen_by: int | None = 0,
              players: tuple[str, str] = ("", "")) -> str:
    """An SVG document of the position (the starting position when none is known yet)."""
    position = Position.from_id(position_id) if position_id else Position.initial()
    if seen_by == 1:
        position = position.swap()
    board = position.board
    top, bottom = _MARGIN, HEIGHT - _MARGIN
    height = (bottom - top) * 0.42
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" aria-label="board {escape(position.position_id)}" class="board">',
        *_title(players),
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#6b4226"/>',
        f'<rect x="{_MARGIN}" y="{top}" width="{12 * _POINT_W + _BAR}" height="{bottom - top}" '
        'fill="#d8c49a"/>',
        f'<rect x="{_MARGIN + 6 * _POINT_W}" y="{top}" width="{_BAR}" height="{bottom - top}" '
        'fill="#6b4226"/>',
    ]
    for point in range(1, 25):
        cx = _point_x(point)
        x0, x1 = cx - _POINT_W / 2, cx + _POINT_W / 2
        colour = "#9b2d20" if point % 2 else "#1f4e5f"
        if point <= 12:
            poly = f"{x0},{bottom} {x1},{bottom} {cx},{bottom - height}"
            label_y = bottom + 16
        else:
            poly = f"{x0},{top} {x1},{top} {cx},{top + height}"
            label_y = top - 4
        parts.append(f'<polygon points="{poly}" fill="{colour}"/>')
        # POINT_FONT: in the margin, readable on a phone, where the board is drawn ~360 px wide
        parts.append(f'<text x="{cx}" y="{label_y}" font-size="{POINT_FONT}" '
                     f'text-anchor="middle" fill="#fff">{point}</text>')
        count = board[point]
        if count:
            parts.extend(_stack(cx, point <= 12, abs(count), _LIGHT if count > 0 else _DARK,
                                top, bottom, f"p{point}"))
    bar_x = _MARGIN + 6 * _POINT_W + _BAR / 2
    if board[25]:
        parts.extend(_stack(bar_x, False, board[25], _LIGHT, top + 30, bottom, "bar0"))
    if board[0]:
        parts.extend(_stack(bar_x, True, -board[0], _DARK, top, bottom - 30, "bar1"))
    tray_x = _MARGIN + 12 * _POINT_W + _BAR + 25
    parts.append(f'<text x="{tray_x}" y="{bottom - 5}" font-size="13" text-anchor="middle" '
                 f'fill="{_LIGHT}" data-off="0">{position.my_off} off</text>')
    parts.append(f'<text x="{tray_x}" y="{top + 15}" font-size="13" text-anchor="middle" '
                 f'fill="#ddd" data-off="1">{position.their_off} off</text>')
    parts.append("</svg>")
    return "".join(parts)


def _title(players: tuple[str, str]) -> list[str]:
    """Who has which checkers, in full, as the drawing's title (a tooltip; the SVG opened alone
    says it). Not drawn: the 50-wide tray held 8 letters at a size unreadable on a phone, and the
    table's page writes each name with its checkers (○ light, ● dark) beside its score."""
    if not (players[0] or players[1]):
        return []
    return [f"<title>light checkers (○): {escape(players[0] or '?')}; "
            f"dark checkers (●): {escape(players[1] or '?')}</title>"]


def _stack(cx: float, from_bottom: bool, count: int, colour: str, top: float, bottom: float,
           where: str) -> list[str]:
    """Up to five checkers drawn, with the count written on the last when there are more."""
    out = [f'<g data-at="{where}" data-count="{count}">']
    stroke = _DARK if colour == _LIGHT else _LIGHT
    for i in range(min(count, 5)):
        offset = _R + i * 2 * _R
        cy = bottom - offset if from_bottom else top + offset
        out.append(f'<circle cx="{cx}" cy="{cy}" r="{_R}" fill="{colour}" stroke="{stroke}"/>')
        if i == 4 and count > 5:
            out.append(f'<text x="{cx}" y="{cy + 5}" font-size="15" text-anchor="middle" '
                       f'fill="{stroke}">{count}</text>')
    out.append("</g>")
    return out
