"""The one rules object and its variants (BG-OPEN-T, BG-EQ-2, BG-SCORE-4, BG-MATCH-3)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engine.backgammon.rules import DiceSetup, Opening, Rules
from engine.errors import ConfigError


def test_tournament_defaults_follow_ttb() -> None:
    """TTB (seed 004): cube and Crawford in every match (BG-MATCH-2), one shared pair of
    dice (BG-EQ-2), modern opening (BG-OPEN-1), no money options (BG-SCORE-4)."""
    rules = Rules.tournament()
    assert rules == Rules()
    assert rules.cube and rules.crawford and rules.backgammons
    assert rules.dice is DiceSetup.SHARED_PAIR
    assert rules.opening is Opening.MODERN and rules.opening_rolls_every_game
    assert not (rules.jacoby or rules.beavers or rules.automatic_doubles or rules.holland)
    assert not rules.touch_move
    rules.check_match(5)


def test_turkish_traditional_is_a_configuration_not_a_copy() -> None:
    """BG-OPEN-T (seed 000 KURAL FARKI): no cube, touch-move, the opening winner throws both
    dice afresh (doubles can open), the previous winner starts; one pair of dice; no
    backgammon (000 §7: katmerli mars is not played in Turkey)."""
    rules = Rules.turkish()
    assert isinstance(rules, Rules)
    assert not rules.cube and not rules.crawford
    assert rules.touch_move
    assert rules.opening is Opening.TURKISH
    assert rules.opening_can_be_double and not rules.opening_rolls_every_game
    assert rules.dice is DiceSetup.SHARED_PAIR
    assert not rules.backgammons


def test_modern_casual_has_a_pair_of_dice_each() -> None:
    """BG-EQ-2: casual modern play gives each player their own pair and cup (seed 000)."""
    assert Rules.modern_casual().dice is DiceSetup.PAIR_EACH
    assert Rules.money().dice is DiceSetup.PAIR_EACH


def test_money_options_are_off_in_matches() -> None:
    """BG-SCORE-4: Jacoby, beavers, automatic doubles, the bar counting 4x: money play only."""
    for option in (
        {"jacoby": True},
        {"beavers": True},
        {"automatic_doubles": 1},
        {"bar_counts_four": True},
    ):
        rules = dataclasses.replace(Rules(crawford=False), **option)
        rules.check_match(0)  # fine for money play
        with pytest.raises(ConfigError, match="BG-SCORE-4"):
            rules.check_match(7)


def test_holland_needs_crawford_and_has_a_count() -> None:
    """BG-MATCH-3: optional, off by default; seed 002 says after the first rolls (1), the
    usual published form after each side has rolled twice (2)."""
    assert Rules().holland is False
    assert Rules(holland=True).holland_rolls == 1
    assert Rules(holland=True, holland_rolls=2).holland_rolls == 2
    with pytest.raises(ConfigError, match="holland"):
        Rules(holland=True, crawford=False)
    with pytest.raises(ConfigError, match="holland_rolls"):
        Rules(holland=True, holland_rolls=0)


@pytest.mark.parametrize("name", ["crawford", "holland", "jacoby", "beavers"])
def test_cube_options_need_the_cube(name: str) -> None:
    with pytest.raises(ConfigError, match=name):
        options: dict[str, Any] = {name: True}
        dataclasses.replace(Rules.turkish(), **options)


def test_automatic_doubles_need_the_modern_opening() -> None:
    with pytest.raises(ConfigError, match="BG-OPEN-T"):
        dataclasses.replace(Rules.money(), automatic_doubles=1, opening=Opening.TURKISH)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"cube": "yes"}, "cube must be true or false"),
        ({"cube_limit": 3}, "cube_limit"),
        ({"automatic_doubles": -1}, "automatic_doubles"),
        ({"opening": "japanese"}, "opening must be one of modern, turkish"),
        ({"dice": 2}, "dice must be one of"),
        ({"holland_rolls": 1.5}, "holland_rolls must be an integer"),
    ],
)
def test_bad_values_name_the_key(values: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Rules(**values)  # type: ignore[arg-type]


def test_from_mapping_for_table_configuration() -> None:
    rules = Rules.from_mapping({"variant": "turkish"})
    assert rules == Rules.turkish()
    rules = Rules.from_mapping({"variant": "money", "beavers": True, "automatic_doubles": 1})
    assert rules.beavers and rules.automatic_doubles == 1 and rules.jacoby
    rules = Rules.from_mapping({"opening": "turkish", "cube": False, "crawford": False})
    assert rules.opening is Opening.TURKISH
    assert Rules.from_mapping({}) == Rules()
    with pytest.raises(ConfigError, match="unknown key 'crawfrod'"):
        Rules.from_mapping({"crawfrod": True})
    with pytest.raises(ConfigError, match="unknown variant 'hapis'"):
        Rules.from_mapping({"variant": "hapis"})


def test_rules_are_immutable() -> None:
    rules = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.cube = False  # type: ignore[misc]
