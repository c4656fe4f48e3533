"""A board reading's confidence reflects what it cannot see, and counts no board can show
(more than 15 checkers of a colour, BG-EQ-1) are reported as impossible, not as sure."""

from __future__ import annotations

import math

import numpy as np

from vision.board_reader import BarReading, BoardReading, SlotReading, read_board
from vision.calibration import Calibration
from vision.geometry import BoardGeometry
from vision.occlusion import Occlusion
from vision.render import random_scene, render_scene


def _slot(count: int, darker: bool, sure: float = 0.9) -> SlotReading:
    probs = np.full(16, (1.0 - sure) / 15)
    probs[count] = sure
    return SlotReading(probs, 1.0 if darker else 0.0)


def _bar(darker: int, lighter: int) -> BarReading:
    return BarReading(np.eye(16)[darker], np.eye(16)[lighter])


def _reading(slots: list[SlotReading], bar: BarReading, hidden: tuple[int, ...] = (),
             bar_hidden: bool = False) -> BoardReading:
    for i in hidden:
        slots[i].hidden = True
    bar.hidden = bar_hidden
    occlusion = Occlusion(hidden, bar_hidden, np.zeros((1, 1), np.uint8), np.zeros(24))
    calibration = Calibration(np.zeros((4, 2), np.float32), "corners", BoardGeometry())
    return BoardReading(slots, bar, occlusion, calibration, image="x.jpg")


def _start() -> list[SlotReading]:
    """A legal board: 5 darker on slot 0, 5 lighter on slot 12, the rest empty."""
    return [_slot(5, True) if i == 0 else _slot(5, False) if i == 12 else _slot(0, True)
            for i in range(24)]


def test_a_reading_that_sees_nothing_is_not_sure() -> None:
    reading = _reading(_start(), _bar(0, 0), hidden=tuple(range(24)), bar_hidden=True)
    assert reading.confidence == 0.0
    assert reading.to_json()["confidence"] == 0.0


def test_hidden_places_lower_the_confidence_in_proportion() -> None:
    half = _reading(_start(), _bar(0, 0), hidden=tuple(range(12, 24)))
    visible = math.prod(s.confidence for s in half.slots if not s.hidden)
    assert half.confidence == visible * 13 / 25  # 12 slots and the bar of 25 places seen
    no_bar = _reading(_start(), _bar(0, 0), bar_hidden=True)
    assert no_bar.confidence == math.prod(s.confidence for s in no_bar.slots) * 24 / 25


def test_a_whole_board_keeps_the_product_of_its_counts() -> None:
    reading = _reading(_start(), _bar(0, 0))
    product = 1.0
    for _ in range(24):
        product *= 0.9
    assert reading.confidence == product
    assert reading.warnings() == [] and reading.to_json()["warnings"] == []


def test_a_rendered_board_keeps_its_confidence_exactly() -> None:
    frame = render_scene(random_scene(31, hand_probability=0.0))
    reading = read_board(frame.image, corners=frame.corners)
    assert not reading.occluded
    product = 1.0
    for s in reading.slots:
        product *= s.confidence
    product *= reading.bar.confidence
    assert reading.confidence == float(product) > 0.0


def test_sixteen_checkers_of_a_colour_are_impossible() -> None:
    slots = _start()
    slots[1] = _slot(10, True)  # 5 + 10 darker on the points
    reading = _reading(slots, _bar(1, 0))  # and 1 on the bar: 16
    assert reading.warnings() == ["impossible: 16 darker checkers (at most 15, BG-EQ-1)"]
    assert reading.confidence == 0.0
    data = reading.to_json()
    assert data["warnings"] == reading.warnings()
    assert data["slots"][1] == [10, 0] and data["bar"] == [1, 0]  # the counts stay as read


def test_hidden_slots_do_not_count_towards_the_total() -> None:
    slots = _start()
    slots[1] = _slot(11, True)
    reading = _reading(slots, _bar(0, 0), hidden=(1,))
    assert reading.warnings() == []
    reading = _reading(_start(), _bar(0, 11))  # 5 + 11 lighter
    assert reading.warnings() == ["impossible: 16 lighter checkers (at most 15, BG-EQ-1)"]
