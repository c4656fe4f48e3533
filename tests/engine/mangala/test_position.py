"""The Mangala position value and its JSON contract (DESIGN.md)."""

from __future__ import annotations

import json

import pytest

from engine.errors import PositionError
from engine.mangala.position import Position


def test_initial_position_json_matches_the_contract() -> None:
    obj = Position.initial("b").to_obj()
    assert obj == {"a": [4] * 6, "a_store": 0, "b": [4] * 6, "b_store": 0, "to_move": "b"}
    assert list(obj) == ["a", "a_store", "b", "b_store", "to_move"]


def test_json_round_trip() -> None:
    p = Position((0, 1, 2, 3, 4, 5), 6, (7, 8, 0, 0, 0, 0), 12, None)
    assert Position.from_json(p.to_json()) == p
    assert json.loads(p.to_json())["to_move"] is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "JSON object"),
        ("{nope", "not valid JSON"),
        (
            '{"a": [4,4,4,4,4], "a_store": 0, "b": [4,4,4,4,4,4], "b_store": 0, "to_move": "a"}',
            "5 pits",
        ),
        (
            '{"a": [4,4,4,4,4,-1], "a_store": 0, "b": [4,4,4,4,4,4], "b_store": 0, "to_move": "a"}',
            "-1",
        ),
        (
            '{"a": [4,4,4,4,4,4], "a_store": 1.5, "b": [4,4,4,4,4,4], "b_store": 0, '
            '"to_move": "a"}',
            "1.5",
        ),
        (
            '{"a": [4,4,4,4,4,4], "a_store": 0, "b": [4,4,4,4,4,true], "b_store": 0, '
            '"to_move": "a"}',
            "True",
        ),
        (
            '{"a": [4,4,4,4,4,4], "a_store": 0, "b": [4,4,4,4,4,4], "b_store": 0, "to_move": "c"}',
            "to_move",
        ),
        ('{"a": [4,4,4,4,4,4], "a_store": 0, "b": [4,4,4,4,4,4], "b_store": 0}', "to_move"),
        ('{"a": [4,4,4,4,4,4], "b": [4,4,4,4,4,4], "b_store": 0, "to_move": "a"}', "a_store"),
        (
            '{"a": [4,4,4,4,4,4], "a_store": 0, "b": [4,4,4,4,4,4], "b_store": 0, "to_move": "a",'
            ' "c": 1}',
            "'c'",
        ),
        ('{"a": "444444", "a_store": 0, "b": [4,4,4,4,4,4], "b_store": 0, "to_move": "a"}', "list"),
    ],
)
def test_malformed_json_is_rejected_naming_the_value(text: str, message: str) -> None:
    with pytest.raises(PositionError, match=message):
        Position.from_json(text)


def test_turn_may_be_left_out_for_an_observed_position() -> None:
    text = '{"a": [4,4,4,4,4,4], "a_store": 0, "b": [4,4,4,4,4,4], "b_store": 0}'
    assert Position.from_json(text, turn_required=False).to_move is None


def test_stone_count_and_set_over() -> None:
    p = Position((0,) * 6, 20, (1,) * 6, 22, "a")
    p.check_stones()
    assert p.set_over and p.side_empty("a") and not p.side_empty("b")
    with pytest.raises(PositionError, match=r"49 stones.*MG-EQ-1"):
        Position((0,) * 6, 21, (1,) * 6, 22, "a").check_stones()
    assert not Position.initial().set_over
