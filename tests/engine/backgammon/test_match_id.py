"""GNU Backgammon Match IDs, both directions (the per-move comparison over all 170 real
matches is in test_mat_gnubg.py)."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from engine.backgammon.match import Move, OpeningRoll, Roll, apply, new_match
from engine.backgammon.match_id import (
    GameState,
    MatchIdState,
    decode_match_id,
    encode_match_id,
)
from engine.backgammon.moves import legal_plays
from engine.errors import InvalidInputError
from tests.gnubg_runner import run_gnubg_script

# Match IDs GNU Backgammon 1.07 printed while importing bundled real matches.
KNOWN = {
    # 5-point match, 0-0, player 1 to play the opening roll (dice not shown yet).
    "cAmgAAAAAAAE": MatchIdState(5, (0, 0), on_roll=1, turn=1, jacoby=True),
    # Player 0 to play 52.
    "MIGqAAAAAAAE": MatchIdState(5, (0, 0), dice=(5, 2), jacoby=True),
    # Player 1 offers a double of the centred cube... now player 0 must answer.
    "MBmgAAAAAAAE": MatchIdState(5, (0, 0), turn=1, double_offered=True, jacoby=True),
    # Match over by resignation: 5-4 with player 1 owning a 2-cube.
    "USugAFAAIAAE": MatchIdState(
        5,
        (5, 4),
        cube_value=2,
        cube_owner=1,
        on_roll=1,
        game_state=GameState.RESIGNED,
        turn=1,
        resignation=1,
        jacoby=True,
    ),
}


@pytest.mark.parametrize(("match_id", "state"), KNOWN.items())
def test_known_gnubg_match_ids(match_id: str, state: MatchIdState) -> None:
    if match_id == "MBmgAAAAAAAE":
        state = dataclasses.replace(state, on_roll=0, turn=1)
    assert encode_match_id(state) == match_id
    assert decode_match_id(match_id) == state


def test_round_trip_of_random_states() -> None:
    rng = random.Random(42)
    for _ in range(2_000):
        length = rng.choice([0, 1, 3, 5, 7, 11, 25, 32767])
        top = length or 32767
        state = MatchIdState(
            match_length=length,
            score=(rng.randint(0, top), rng.randint(0, top)),
            cube_value=2 ** rng.randrange(16),
            cube_owner=rng.choice([None, 0, 1]),
            on_roll=rng.randrange(2),
            crawford=bool(length) and rng.random() < 0.3,
            game_state=GameState(rng.randrange(5)),
            turn=rng.randrange(2),
            double_offered=rng.random() < 0.3,
            resignation=rng.randrange(4),
            dice=(rng.randint(0, 6), rng.randint(0, 6)),
            jacoby=rng.random() < 0.5,
        )
        match_id = encode_match_id(state)
        assert len(match_id) == 12
        assert decode_match_id(match_id) == state


def test_match_state_gives_its_match_id() -> None:
    state = apply(new_match(5), OpeningRoll((3, 5)))
    assert state.match_id == encode_match_id(
        MatchIdState(5, (0, 0), on_roll=1, turn=1, dice=(5, 3))
    )
    assert decode_match_id(state.match_id).dice == (5, 3)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("cAmgAAAAAAA", "12 characters"),
        ("cAmgAAAAAAAEE", "12 characters"),
        ("cAmg!AAAAAAE", "base64"),
        ("cAmgAAAAAAAg", "beyond"),  # a bit above the 67 used
        ("YAmgAAAAAAAA", "cube owner"),  # owner field 2
        ("MAegAAAAAAAA", "game state"),  # state 7
        ("8AEAAAAAAAAA", "Crawford game in money play"),
        ("cAmgAAAAYAAA", "beyond the match length"),
    ],
)
def test_malformed_match_ids_are_refused(text: str, why: str) -> None:
    with pytest.raises(InvalidInputError, match=why):
        decode_match_id(text)


def test_impossible_states_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="cube value"):
        MatchIdState(5, (0, 0), cube_value=3)
    with pytest.raises(InvalidInputError, match="dice"):
        MatchIdState(5, (0, 0), dice=(7, 1))
    with pytest.raises(InvalidInputError, match="match length"):
        MatchIdState(40_000, (0, 0))


@pytest.mark.gnubg
def test_gnubg_takes_our_match_ids_as_they_are(tmp_path: Path, gnubg: str) -> None:
    """gnubg sets each of 300 random match states from hakem's ID and prints the same ID back.
    (``set matchid`` puts dice higher first, drops a pending double and a Crawford flag at
    1 point: the states are drawn in that canonical form.)"""
    rng = random.Random(7)
    ids = []
    for _ in range(300):
        length = rng.choice([0, 0, 1, 3, 5, 7, 11, 15, 25])
        if length:
            score = (rng.randrange(length), rng.randrange(length))
            crawford = length > 1 and length - 1 in score and rng.random() < 0.5
        else:
            score, crawford = (rng.randrange(40), rng.randrange(40)), False
        on_roll = rng.randrange(2)
        rolled = rng.random() < 0.7
        dice = tuple(sorted((rng.randint(1, 6), rng.randint(1, 6)), reverse=True))
        cube = 1 if crawford else 2 ** rng.randrange(7)
        owner = None if cube == 1 else rng.randrange(2)
        state = MatchIdState(
            match_length=length,
            score=score,
            cube_value=cube,
            cube_owner=owner,
            on_roll=on_roll,
            crawford=crawford,
            turn=on_roll,
            dice=(dice[0], dice[1]) if rolled else (0, 0),
            jacoby=True,
        )
        ids.append(encode_match_id(state))
    path = tmp_path / "ids.json"
    path.write_text(json.dumps(ids), encoding="utf-8")
    script = (
        "import gnubg, json\n"
        "gnubg.command('new match 5')\n"
        f"for mid in json.load(open({str(path)!r})):\n"
        "    gnubg.command('set matchid ' + mid)\n"
        "    print('HAKEM-ID', mid, gnubg.matchid())\n"
    )
    pairs = [
        line.split()[1:]
        for line in run_gnubg_script(script).splitlines()
        if line.startswith("HAKEM-ID ")
    ]
    assert len(pairs) == 300
    assert [ours for ours, _ in pairs] == ids
    assert [theirs for _, theirs in pairs] == ids


def test_a_roll_thrown_low_die_first_gives_gnubg_s_match_id(gnubg: str) -> None:
    """GNU Backgammon's Match ID holds the higher die first, however the dice were thrown or
    set (``set dice 14``, ``set matchid``); hakem's held the thrown order (seed 5199 of
    ``tests.eval.gnubg_oracle``)."""
    state = apply(new_match(3), OpeningRoll((4, 1)))
    state = apply(state, Move(legal_plays(state.position, (4, 1))[0].result))
    state = apply(state, Roll((1, 4)))
    assert state.dice == (1, 4)  # the referee keeps the thrown order
    thrown = encode_match_id(dataclasses.replace(state.match_id_state(), dice=(1, 4)))
    script = (
        "import gnubg\n"
        "gnubg.command('new match 3')\n"
        f"gnubg.command('set matchid {thrown}')\n"
        "print('HAKEM-ID', gnubg.matchid())\n"
    )
    theirs = next(
        line.split()[1]
        for line in run_gnubg_script(script).splitlines()
        if line.startswith("HAKEM-ID ")
    )
    ours = dataclasses.replace(state.match_id_state(), jacoby=decode_match_id(theirs).jacoby)
    assert encode_match_id(ours) == theirs
    assert decode_match_id(state.match_id).dice == (4, 1)
