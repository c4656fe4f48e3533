"""GNU Backgammon Match ID, both directions, bit for bit as GNU Backgammon prints it.

A Match ID is 67 bits packed little-endian into 9 bytes, written as 12 base64 characters:
cube log2 (4 bits), cube owner (2: player 0, player 1, 3 centred), player on roll (1), Crawford
game (1), game state (3), player to decide (1), double offered (1), resignation offered (2),
the two dice (3 each, 0 when not rolled), match length (15, 0 for money play), the two
scores (15 each) and, since GNU Backgammon 1.0x, the Jacoby rule (1 bit: set whenever the
session has Jacoby on, matches included). Players are GNU Backgammon's 0 and 1; importing a
``.mat`` file makes its first-named player GNU Backgammon's player 0.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from enum import IntEnum

from engine.errors import InvalidInputError

MATCH_ID_LENGTH = 12
_MAX15 = (1 << 15) - 1
MAX_MATCH_LENGTH = _MAX15  # the longest match a Match ID (and so a .mat record) can hold

# (name, first bit, width), in the order GNU Backgammon packs them.
_FIELDS: tuple[tuple[str, int, int], ...] = (
    ("cube_log", 0, 4),
    ("cube_owner", 4, 2),
    ("on_roll", 6, 1),
    ("crawford", 7, 1),
    ("game_state", 8, 3),
    ("turn", 11, 1),
    ("double_offered", 12, 1),
    ("resignation", 13, 2),
    ("die1", 15, 3),
    ("die2", 18, 3),
    ("match_length", 21, 15),
    ("score0", 36, 15),
    ("score1", 51, 15),
    ("jacoby", 66, 1),
)


class GameState(IntEnum):
    """GNU Backgammon's game state field."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


@dataclass(frozen=True)
class MatchIdState:
    """Everything a Match ID holds. ``cube_owner`` None is a centred cube; ``dice`` (0, 0) means
    not rolled; ``turn`` is the player who must decide now (differs from ``on_roll`` while a
    double or a resignation waits for an answer); ``resignation`` 0 none, 1 single, 2 gammon,
    3 backgammon."""

    match_length: int
    score: tuple[int, int]
    cube_value: int = 1
    cube_owner: int | None = None
    on_roll: int = 0
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    turn: int = 0
    double_offered: bool = False
    resignation: int = 0
    dice: tuple[int, int] = (0, 0)
    jacoby: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.match_length <= _MAX15:
            raise InvalidInputError(f"match length must be 0..{_MAX15}, not {self.match_length}")
        if any(not 0 <= s <= _MAX15 for s in self.score):
            raise InvalidInputError(f"scores must be 0..{_MAX15}, not {self.score}")
        if (
            self.cube_value < 1
            or self.cube_value & (self.cube_value - 1)
            or self.cube_value > 1 << 15
        ):
            raise InvalidInputError(f"cube value must be a power of two, not {self.cube_value}")
        if self.cube_owner not in (None, 0, 1):
            raise InvalidInputError(f"cube owner must be 0, 1 or centred, not {self.cube_owner}")
        if self.on_roll not in (0, 1) or self.turn not in (0, 1):
            raise InvalidInputError(f"players are 0 and 1, not {self.on_roll}/{self.turn}")
        if not 0 <= self.resignation <= 3:
            raise InvalidInputError(f"resignation must be 0..3, not {self.resignation}")
        if any(not 0 <= d <= 6 for d in self.dice):
            raise InvalidInputError(f"dice must be 0..6, not {self.dice}")


def encode_match_id(state: MatchIdState) -> str:
    """The 12-character Match ID GNU Backgammon prints for ``state``."""
    values = {
        "cube_log": state.cube_value.bit_length() - 1,
        "cube_owner": 3 if state.cube_owner is None else state.cube_owner,
        "on_roll": state.on_roll,
        "crawford": int(state.crawford),
        "game_state": int(state.game_state),
        "turn": state.turn,
        "double_offered": int(state.double_offered),
        "resignation": state.resignation,
        "die1": state.dice[0],
        "die2": state.dice[1],
        "match_length": state.match_length,
        "score0": state.score[0],
        "score1": state.score[1],
        "jacoby": int(state.jacoby),
    }
    key = 0
    for name, start, width in _FIELDS:
        key |= (values[name] & ((1 << width) - 1)) << start
    return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")


def decode_match_id(text: str) -> MatchIdState:
    """The match state in a Match ID; malformed or impossible IDs raise InvalidInputError."""
    if not isinstance(text, str) or len(text.strip()) != MATCH_ID_LENGTH:
        raise InvalidInputError(f"a match id has {MATCH_ID_LENGTH} characters: {text!r}")
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidInputError(f"match id is not base64: {text!r}") from exc
    key = int.from_bytes(raw, "little")
    if key >> 67:
        raise InvalidInputError(f"match id has bits set beyond the 67 used: {text!r}")
    v = {name: (key >> start) & ((1 << width) - 1) for name, start, width in _FIELDS}
    if v["cube_owner"] == 2:
        raise InvalidInputError(f"match id has an impossible cube owner: {text!r}")
    if v["game_state"] > int(GameState.DROPPED):
        raise InvalidInputError(f"match id has an unknown game state {v['game_state']}: {text!r}")
    if v["match_length"] == 0 and v["crawford"]:
        raise InvalidInputError(f"match id marks a Crawford game in money play: {text!r}")
    if v["match_length"] and max(v["score0"], v["score1"]) > v["match_length"]:
        raise InvalidInputError(f"match id has a score beyond the match length: {text!r}")
    if v["cube_log"] > 15:
        raise InvalidInputError(f"match id has an impossible cube value: {text!r}")
    try:
        return MatchIdState(
            match_length=v["match_length"],
            score=(v["score0"], v["score1"]),
            cube_value=1 << v["cube_log"],
            cube_owner=None if v["cube_owner"] == 3 else v["cube_owner"],
            on_roll=v["on_roll"],
            crawford=bool(v["crawford"]),
            game_state=GameState(v["game_state"]),
            turn=v["turn"],
            double_offered=bool(v["double_offered"]),
            resignation=v["resignation"],
            dice=(v["die1"], v["die2"]),
            jacoby=bool(v["jacoby"]),
        )
    except InvalidInputError as exc:
        raise InvalidInputError(f"match id {text!r}: {exc}") from exc


__all__ = [
    "MATCH_ID_LENGTH",
    "MAX_MATCH_LENGTH",
    "GameState",
    "MatchIdState",
    "decode_match_id",
    "encode_match_id",
]
