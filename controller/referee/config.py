"""The referee's settings for one table: the match, the players, the rules, how the table and the
clock are laid out, and the thresholds of engine-in-the-loop recognition (DESIGN.md)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.referee.api import Side
from controller.table_layout import DEFAULT_LAYOUT, TableLayout
from engine.backgammon.match_id import MAX_MATCH_LENGTH
from engine.backgammon.rules import Rules
from engine.errors import ConfigError


class DieReading(Protocol):
    """What the dice thresholds look at in a die as read (the referee's ``DieSeen``; vision's
    ``BoardDie`` in the evaluations, which ask what the referee would judge)."""

    @property
    def pips(self) -> int:
        """The face read on top."""

    @property
    def flat(self) -> bool:
        """Whether the die was read lying flat (a cocked die voids the throw, BG-ROLL-2)."""

    @property
    def confidence(self) -> float:
        """How sure the reading of the face is, 0..1."""

    @property
    def p_cocked(self) -> float:
        """The reader's probability that the die is cocked (0 when not given)."""


@dataclass(frozen=True)
class RecognitionSettings:
    """When a legal candidate "explains the frames clearly" and when a reading is "confident".

    Evidence is per frame: log-likelihoods (natural log units, nats) summed over the still
    frames of a scene and divided by their number, so a threshold means the same for three frames
    or eight. ``margin``: the best legal candidate must beat the second best by this many nats
    per frame to be taken. ``fit_slack``: it may be at most this much per frame worse than
    vision's own best reading. ``illegal_margin`` and ``confident`` judge single slots: a move is
    called illegal only when every legal candidate has a slot where vision's reading beats the
    candidate's count by at least ``illegal_margin`` nats per frame, vision's reading of that
    slot has a probability of at least ``confident`` against its neighbouring counts, and most
    frames read it so on their own (not whole-board confidence, which shrinks with the number
    of slots). The set-up check (BG-EQ-3) uses the same test. ``tall_stack``: a slot where
    vision's reading or the candidate holds at least this many checkers is not counted surely
    (tall stacks get miscounted, even mis-coloured): it never makes a move illegal, and a legal
    candidate that differs from the reading only there still fits.
    ``cannot_read_ms``: how long after a press the referee waits for a readable frame before it
    says "cannot read". ``throw_unread_ms``: how long new dice may lie still without a throw
    that can be judged (a die not found, or read unsurely: perhaps cocked) before it says so.
    ``dice_confidence``: dice read below this are not judged yet.
    ``dice_moved``: how far (in the unit of ``DieSeen.centre``) a die must lie from where it
    lay to count as thrown again (a die lying where it lay was not thrown, whatever face it is
    read with now). ``cocked_confidence``: a die read as cocked at least this surely makes the
    throw invalid (BG-ROLL-2) although its tilted face cannot be read to ``dice_confidence``.
    ``flat_doubt``: a die read flat whose cocked probability (the dice reader's pose model) is
    at least this is not judged flat either: more likely cocked than not, yet not surely enough
    to call the throw invalid, it is left unjudged (read again thoroughly, then "cannot judge"
    for the director) rather than counted as a valid roll.
    ``agree``: how many readable still frames of the scene
    (since hands last moved) a verdict on a move needs; their evidence is pooled, so one misread
    slot in one frame cannot decide.
    """

    margin: float = 1.0
    fit_slack: float = 1.5
    illegal_margin: float = 4.0
    confident: float = 0.9
    tall_stack: int = 6
    cannot_read_ms: int = 8_000
    throw_unread_ms: int = 3_000
    dice_confidence: float = 0.5
    agree: int = 3
    dice_moved: float = 6.0
    cocked_confidence: float = 0.15
    flat_doubt: float = 0.5

    def __post_init__(self) -> None:
        """Refuse a threshold out of range with a ConfigError naming it, when the
        settings are made rather than mid-match."""
        for name in ("margin", "fit_slack", "illegal_margin", "dice_moved"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
                raise ConfigError(f"referee: {name} must be a number >= 0, not {value!r}")
            if not math.isfinite(float(value)):
                raise ConfigError(f"referee: {name} must be finite, not {value!r}")
        for name in ("confident", "dice_confidence", "cocked_confidence", "flat_doubt"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 1:
                raise ConfigError(f"referee: {name} must be between 0 and 1, not {value!r}")
        if not isinstance(self.agree, int) or isinstance(self.agree, bool) or self.agree < 1:
            raise ConfigError(f"referee: agree must be an integer >= 1, not {self.agree!r}")
        value = self.tall_stack
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ConfigError(f"referee: tall_stack must be an integer >= 1, not {value!r}")
        for name in ("cannot_read_ms", "throw_unread_ms"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ConfigError(f"referee: {name} must be an integer >= 0, not {value!r}")

    def readable(self, die: DieReading, *, doubt: bool = True) -> bool:
        """A die read surely enough to judge (a face 1..6 with ``dice_confidence``; read flat,
        with a cocked probability under ``flat_doubt`` unless ``doubt`` is False)."""
        return (isinstance(die.pips, int) and 1 <= die.pips <= 6
                and die.confidence >= self.dice_confidence
                and not (doubt and die.flat and die.p_cocked >= self.flat_doubt))

    def surely_cocked(self, die: DieReading) -> bool:
        """A die seen cocked surely enough to make the throw invalid (BG-ROLL-2): its tilted
        face need not be readable, the throw does not count whatever it shows."""
        return not die.flat and die.confidence >= self.cocked_confidence

    def judgeable(self, dice: Sequence[DieReading], *, doubt: bool = True) -> bool:
        """Two dice of a throw, each read surely or surely cocked (BG-ROLL-2); ``doubt``
        False: a die read flat that may be cocked counts as read (for a throw that is invalid
        whatever that die is)."""
        return len(dice) == 2 and all(self.readable(d, doubt=doubt) or self.surely_cocked(d)
                                      for d in dice)


@dataclass(frozen=True)
class RefereeConfig:
    """One table's match. Player 0 is the first-named player (the ``.mat`` left column), who sits
    where ``layout`` puts the first player; ``clock_sides[i]`` is player i's side of the clock.
    ``reserve_ms``/``delay_ms``: when set, the referee configures the clock at match start
    (TTB-CLOCK-4; common: 12 s delay, 2 min per match point)."""

    players: tuple[str, str] = ("Player 1", "Player 2")
    length: int = 5
    rules: Rules = field(default_factory=Rules.tournament)
    layout: TableLayout = DEFAULT_LAYOUT
    clock_sides: tuple[Side, Side] = ("left", "right")
    recognition: RecognitionSettings = field(default_factory=RecognitionSettings)
    reserve_ms: int | None = None
    delay_ms: int | None = None

    def __post_init__(self) -> None:
        """Refuse a setting out of range with a ConfigError naming it, when the table is
        set up rather than mid-match."""
        if (
            not isinstance(self.players, tuple)
            or len(self.players) != 2
            or not all(isinstance(p, str) for p in self.players)
        ):
            raise ConfigError(f"referee: players must be two names, not {self.players!r}")
        if not isinstance(self.length, int) or isinstance(self.length, bool) or self.length < 1:
            raise ConfigError(f"referee: length must be a whole number of points >= 1, not "
                              f"{self.length!r}")
        if not isinstance(self.rules, Rules):
            raise ConfigError(f"referee: rules must be a Rules object, not {self.rules!r}")
        self.rules.check_match(self.length)
        sides = self.clock_sides
        if (
            not isinstance(sides, tuple)
            or len(sides) != 2
            or set(sides) != {"left", "right"}
        ):
            raise ConfigError(
                f"referee: clock_sides must be left and right in some order, not {sides!r}"
            )
        for name in ("reserve_ms", "delay_ms"):
            value = getattr(self, name)
            if value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or value < 0
            ):
                raise ConfigError(f"referee: {name} must be an integer >= 0, not {value!r}")

    def player_of_side(self, side: Side) -> int:
        """The player whose side of the clock ``side`` is."""
        return self.clock_sides.index(side)

    def side_of(self, player: int) -> Side:
        """The clock side (left or right) in front of ``player``."""
        return self.clock_sides[player]

    def right_half(self, player: int) -> str:
        """The half of the picture on ``player``'s right, where they throw (BG-ROLL-2)."""
        at_bottom = self.layout.first_at_bottom == (player == 0)
        return "right" if at_bottom else "left"

    def colour_of(self, player: int) -> str:
        """``player``'s checker colour as the layout names it (it names the cube's places)."""
        return self.layout.first_colour if player == 0 else self.layout.second_colour

    def to_json(self) -> dict[str, Any]:
        """The settings as journalled in ``match_start`` (enough to rebuild the referee)."""
        rules = {
            f.name: (
                getattr(self.rules, f.name).value
                if hasattr(getattr(self.rules, f.name), "value")
                else getattr(self.rules, f.name)
            )
            for f in dataclasses.fields(self.rules)
        }
        return {
            "players": list(self.players),
            "length": self.length,
            "rules": rules,
            "layout": {
                "first_at_bottom": self.layout.first_at_bottom,
                "home_on_right": self.layout.home_on_right,
                "first_colour": self.layout.first_colour,
            },
            "clock_sides": list(self.clock_sides),
            "recognition": dataclasses.asdict(self.recognition),
            "reserve_ms": self.reserve_ms,
            "delay_ms": self.delay_ms,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RefereeConfig:
        """The inverse of :meth:`to_json` (a ``match_start`` entry's fields)."""
        for key in ("rules", "layout", "recognition"):
            if not isinstance(data.get(key, {}), dict):
                raise ConfigError(f"referee: match_start {key} must be a JSON object, got "
                                  f"{data[key]!r}")
        length = data.get("length")
        if isinstance(length, int) and not 0 <= length <= MAX_MATCH_LENGTH:
            raise ConfigError(f"referee: match_start length must be 0..{MAX_MATCH_LENGTH} "
                              f"points, got {length}")
        try:
            players = data["players"]
            rules = Rules(**data.get("rules", {}))
            layout = TableLayout(**data.get("layout", {}))
            sides = data.get("clock_sides", ["left", "right"])
            recognition = RecognitionSettings(**data.get("recognition", {}))
            return cls(
                players=(str(players[0]), str(players[1])),
                length=int(data["length"]),
                rules=rules,
                layout=layout,
                clock_sides=(sides[0], sides[1]),
                recognition=recognition,
                reserve_ms=data.get("reserve_ms"),
                delay_ms=data.get("delay_ms"),
            )
        except (KeyError, IndexError, TypeError) as exc:
            raise ConfigError(f"referee: match_start entry lacks a setting ({exc})") from None
