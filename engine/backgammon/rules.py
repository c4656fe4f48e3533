"""The one rules object: every variant (tournament match, money play, Turkish traditional) is a
configuration of :class:`Rules`, never a copy of the engine.

Rule IDs are those of the project's rules catalogue (``BG-CUBE-1``, ``BG-OPEN-T``...).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.errors import ConfigError


class Opening(StrEnum):
    """How a game starts (BG-OPEN-1 modern, BG-OPEN-T Turkish traditional)."""

    MODERN = "modern"
    """Every game: one die each, the higher die plays both opening dice; never a double."""
    TURKISH = "turkish"
    """One die each for the first game, the higher throws both dice afresh (doubles possible);
    from the second game on the previous game's winner starts with a fresh roll."""


class DiceSetup(StrEnum):
    """Which dice the players throw (BG-EQ-2)."""

    SHARED_PAIR = "shared-pair"
    """One pair and one cup for both players: tournament play (TTB-3.1, 3.3)."""
    PAIR_EACH = "pair-each"
    """Each player has their own pair and cup (four dice): casual modern play (``000`` §1)."""


@dataclass(frozen=True)
class Rules:
    """The rules a table plays by. Defaults are a tournament match (TTB, ``004``).

    ``holland_rolls`` is how many rolls each side must have made in a post-Crawford game before
    a double may be offered (BG-MATCH-3): ``002`` says after the first rolls (1), the usual
    published form says after each side has rolled twice (2).
    ``automatic_doubles`` is the most automatic doubles per game (0 = off; ``002`` says players
    usually allow one). ``cube_limit`` 0 means no upper limit (BG-CUBE-4).
    """

    cube: bool = True
    crawford: bool = True
    holland: bool = False
    holland_rolls: int = 1
    jacoby: bool = False
    beavers: bool = False
    automatic_doubles: int = 0
    backgammons: bool = True
    bar_counts_four: bool = False
    opening: Opening = Opening.MODERN
    dice: DiceSetup = DiceSetup.SHARED_PAIR
    touch_move: bool = False
    cube_limit: int = 0

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.name == "opening":
                _enum_field(self, field.name, Opening, value)
            elif field.name == "dice":
                _enum_field(self, field.name, DiceSetup, value)
            elif field.type in ("bool", bool):
                if not isinstance(value, bool):
                    raise ConfigError(f"rules: {field.name} must be true or false, not {value!r}")
            elif not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(f"rules: {field.name} must be an integer, not {value!r}")
        if self.holland_rolls < 1:
            raise ConfigError(f"rules: holland_rolls must be at least 1, not {self.holland_rolls}")
        if self.automatic_doubles < 0:
            raise ConfigError(
                f"rules: automatic_doubles must be 0 or more, not {self.automatic_doubles}"
            )
        if self.cube_limit < 0 or (self.cube_limit & (self.cube_limit - 1)) != 0:
            raise ConfigError(
                f"rules: cube_limit must be 0 (no limit) or a power of two, not {self.cube_limit}"
            )
        if not self.cube:
            for name in ("crawford", "holland", "jacoby", "beavers"):
                if getattr(self, name):
                    raise ConfigError(f"rules: {name} needs the doubling cube (cube = true)")
            if self.automatic_doubles:
                raise ConfigError("rules: automatic_doubles needs the doubling cube (cube = true)")
        if self.holland and not self.crawford:
            raise ConfigError("rules: holland applies after the Crawford game (crawford = true)")
        if self.automatic_doubles and self.opening is Opening.TURKISH:
            raise ConfigError(
                "rules: automatic_doubles come from equal opening dice, which the Turkish opening"
                " rethrows without effect (BG-OPEN-T)"
            )

    # --- the variants -------------------------------------------------------------------

    @classmethod
    def tournament(cls) -> Rules:
        """A tournament match (TTB, ``004``): cube, Crawford, one shared pair of dice."""
        return cls()

    @classmethod
    def money(
        cls,
        *,
        jacoby: bool = True,
        beavers: bool = False,
        automatic_doubles: int = 0,
        bar_counts_four: bool = False,
    ) -> Rules:
        """Money play (no match length) with the optional rules of BG-SCORE-4."""
        return cls(
            crawford=False,
            jacoby=jacoby,
            beavers=beavers,
            automatic_doubles=automatic_doubles,
            bar_counts_four=bar_counts_four,
            dice=DiceSetup.PAIR_EACH,
        )

    @classmethod
    def modern_casual(cls) -> Rules:
        """Casual modern play (``000``): cube and Crawford, a pair of dice each."""
        return cls(dice=DiceSetup.PAIR_EACH)

    @classmethod
    def turkish(cls) -> Rules:
        """Turkish traditional tavla (BG-OPEN-T, ``000`` KURAL FARKI): no cube, touch-move, the
        opening winner throws both dice afresh, the previous winner starts; one pair of dice;
        no backgammon (``000`` §7: katmerli mars is not played in Turkey, a gammon is 2)."""
        return cls(
            cube=False,
            crawford=False,
            backgammons=False,
            opening=Opening.TURKISH,
            dice=DiceSetup.SHARED_PAIR,
            touch_move=True,
        )

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Rules:
        """Rules from a configuration table (TOML); a ``variant`` key picks the base preset,
        other keys override it. Unknown keys are refused with their name."""
        data = dict(values)
        variant = data.pop("variant", "tournament")
        presets = {
            "tournament": cls.tournament,
            "money": cls.money,
            "modern": cls.modern_casual,
            "turkish": cls.turkish,
        }
        if variant not in presets:
            raise ConfigError(
                f"rules: unknown variant {variant!r} (expected one of {', '.join(presets)})"
            )
        names = {f.name for f in dataclasses.fields(cls)}
        for key in data:
            if key not in names:
                raise ConfigError(f"rules: unknown key {key!r}")
        base = presets[variant]()
        return dataclasses.replace(base, **data)

    # --- questions the match asks ----------------------------------------------------------

    def check_match(self, length: int) -> None:
        """Refuse money-only options in a match (BG-SCORE-4: off in matches)."""
        if length <= 0:
            return
        for name in ("jacoby", "beavers", "bar_counts_four"):
            if getattr(self, name):
                raise ConfigError(
                    f"rules: {name} is a money-play option, off in matches (BG-SCORE-4)"
                )
        if self.automatic_doubles:
            raise ConfigError(
                "rules: automatic_doubles is a money-play option, off in matches (BG-SCORE-4)"
            )

    @property
    def opening_rolls_every_game(self) -> bool:
        """True when every game starts with an opening roll (BG-OPEN-1); under BG-OPEN-T only
        the first game does, later ones are started by the previous winner."""
        return self.opening is Opening.MODERN

    @property
    def opening_can_be_double(self) -> bool:
        """Under BG-OPEN-T the first move is a fresh roll of both dice, so it may be a double."""
        return self.opening is Opening.TURKISH


def _enum_field(rules: Rules, name: str, enum: type[StrEnum], value: object) -> None:
    """Accept an enum member or its text value for ``name``; refuse anything else."""
    if isinstance(value, enum):
        return
    if isinstance(value, str):
        try:
            object.__setattr__(rules, name, enum(value))
            return
        except ValueError:
            pass
    allowed = ", ".join(member.value for member in enum)
    raise ConfigError(f"rules: {name} must be one of {allowed}, not {value!r}")


__all__ = ["DiceSetup", "Opening", "Rules"]
