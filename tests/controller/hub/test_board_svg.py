"""The SVG board drawn from a Position ID, always from player 0's side."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from controller.hub.board_svg import board_svg
from engine.backgammon.position import Position


def stacks(svg: str) -> dict[str, tuple[int, str]]:
    """{where: (count, fill colour)} for every drawn stack."""
    root = ET.fromstring(svg)
    out = {}
    for group in root.iter("{http://www.w3.org/2000/svg}g"):
        circle = group.find("{http://www.w3.org/2000/svg}circle")
        assert circle is not None
        out[group.attrib["data-at"]] = (int(group.attrib["data-count"]), circle.attrib["fill"])
    return out


def test_the_starting_position_puts_each_stack_on_its_point() -> None:
    drawn = stacks(board_svg(Position.initial().position_id, 0))
    light, dark = "#f4efe1", "#2b2b2b"
    assert drawn == {
        "p6": (5, light), "p8": (3, light), "p13": (5, light), "p24": (2, light),
        "p19": (5, dark), "p17": (3, dark), "p12": (5, dark), "p1": (2, dark),
    }


def test_a_position_seen_by_player_1_is_drawn_from_player_0s_side() -> None:
    mine = Position.initial().apply_steps([(8, 5), (6, 5), (24, 23)])
    ours = board_svg(mine.position_id, 0)
    theirs = board_svg(mine.swap().position_id, 1)
    assert ours == re.sub(r'aria-label="board [^"]+"', f'aria-label="board {mine.position_id}"',
                          theirs)
    drawn = stacks(ours)
    assert drawn["p5"] == (2, "#f4efe1") and drawn["p23"] == (1, "#f4efe1")


def test_bar_and_borne_off_checkers_are_shown() -> None:
    position = Position.from_checkers({25: 1, 6: 4}, {25: 2, 1: 3})
    svg = board_svg(position.position_id, 0, ("Ayşe", "Mehmet"))
    drawn = stacks(svg)
    assert drawn["bar0"] == (1, "#f4efe1") and drawn["bar1"] == (2, "#2b2b2b")
    assert ">10 off<" in svg and ">10 off<" in svg.split('data-off="1"')[1]
    assert "Ayşe" in svg


def test_the_point_numbers_and_counts_are_readable_on_a_phone() -> None:
    """QA pass: a phone draws the 620-wide board about 360 px wide, where the point numbers
    (font 10) came out under 6 px and a stack's count (11) under 7: unreadable in a hall."""
    scale = 360 / 620
    position = Position.from_checkers({6: 9, 8: 6}, {6: 7, 8: 8})  # stacks over five: counts
    root = ET.fromstring(board_svg(position.position_id, 0, ("Ayşe", "Mehmet")))
    texts = list(root.iter("{http://www.w3.org/2000/svg}text"))
    numbers = [t for t in texts if (t.text or "").isdigit() and not t.attrib.get("data-off")]
    assert len(numbers) >= 24 + 4  # the 24 points and the four counts written on stacks
    assert min(float(t.attrib["font-size"]) for t in numbers) * scale >= 8


def test_the_players_are_named_in_full_in_the_title_not_cut_small_in_the_tray() -> None:
    """QA pass: the tray wrote each name cut to 8 letters in 10-unit text (under 6 px on a
    phone); the page now writes who has which checkers, so the drawing names them only in
    its title, in full, escaped."""
    names = ("Gülşen Şahinoğlu", "<img src=x onerror=alert(1)>")
    root = ET.fromstring(board_svg(Position.initial().position_id, 0, names))
    svg = "{http://www.w3.org/2000/svg}"
    texts = " ".join(t.text or "" for t in root.iter(f"{svg}text"))
    assert "Gülşen" not in texts and "img" not in texts
    title = root.find(f"{svg}title")
    assert title is not None
    assert title.text == f"light checkers (○): {names[0]}; dark checkers (●): {names[1]}"
    assert root.find(f"{svg}img") is None
    assert ET.fromstring(board_svg(None, 0)).find(f"{svg}title") is None
