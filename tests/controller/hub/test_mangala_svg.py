"""The live Mangala board as SVG: 12 pits and 2 stores with their stone counts, laid out as
the table's camera sees the board (a at the bottom), so facing pits face each other."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from controller.hub.mangala_svg import mangala_svg

SVG = "{http://www.w3.org/2000/svg}"
POSITION = {"a": [0, 1, 2, 3, 4, 5], "a_store": 6, "b": [7, 8, 9, 0, 1, 0], "b_store": 2,
            "to_move": "b"}


def drawn(svg: str) -> dict[str, tuple[int, float, float]]:
    """{pit or store: (stones, centre x, centre y)}."""
    out = {}
    for group in ET.fromstring(svg).iter(f"{SVG}g"):
        hollow = group.find(f"{SVG}ellipse")
        assert hollow is not None
        out[group.attrib["data-at"]] = (int(group.attrib["data-count"]),
                                        float(hollow.attrib["cx"]), float(hollow.attrib["cy"]))
    return out


def test_every_pit_and_store_shows_its_stones_where_the_board_has_it() -> None:
    cells = drawn(mangala_svg(POSITION, ("Ayşe", "Mehmet")))
    assert {k: v[0] for k, v in cells.items()} == {
        **{f"a{i}": POSITION["a"][i - 1] for i in range(1, 7)},  # type: ignore[index]
        **{f"b{i}": POSITION["b"][i - 1] for i in range(1, 7)},  # type: ignore[index]
        "a_store": 6, "b_store": 2}
    for pit in range(1, 7):  # a's pit i faces b's pit 7 - i (MG-EQ-1), a's row below b's
        a, b = cells[f"a{pit}"], cells[f"b{7 - pit}"]
        assert a[1] == b[1] and a[2] > b[2]
    xs = [cells[f"a{pit}"][1] for pit in range(1, 7)]
    assert xs == sorted(xs)  # a sows to the right, into its store on the right (MG-1)
    assert cells["a_store"][1] > max(xs) and cells["b_store"][1] < min(xs)


def test_the_player_to_move_is_marked_and_names_are_escaped() -> None:
    svg = mangala_svg(POSITION, ("Ayşe <a>", "Mehmet"))
    texts = {t.attrib["data-side"]: (t.attrib["data-to-move"], t.text)
             for t in ET.fromstring(svg).iter(f"{SVG}text") if "data-side" in t.attrib}
    assert texts == {"a": ("no", "Ayşe <a> (a)"), "b": ("yes", "Mehmet (b) to move")}


def test_an_unknown_or_broken_position_draws_the_start_of_a_set() -> None:
    for position in (None, {"a": [4] * 6}, "not a board"):
        cells = drawn(mangala_svg(position))
        assert {k: v[0] for k, v in cells.items() if "store" not in k} == {
            f"{side}{i}": 4 for side in "ab" for i in range(1, 7)}
        assert cells["a_store"][0] == cells["b_store"][0] == 0


def test_the_names_and_counts_are_readable_on_a_phone() -> None:
    """QA pass: a phone draws the 620-wide board about 360 px wide, where the names (font 13)
    came out under 8 px."""
    scale = 360 / 620
    texts = list(ET.fromstring(mangala_svg(POSITION, ("Ayşe", "Mehmet"))).iter(f"{SVG}text"))
    assert len(texts) == 12 + 2 + 2  # the pits, the stores, the two names
    assert min(float(t.attrib["font-size"]) for t in texts) * scale >= 10
