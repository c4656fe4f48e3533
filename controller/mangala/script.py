"""What the demo's simulated players will play: a whole round decided in advance by the engine
(seeded), and the illegal sowings planted in it (MG-1, MG-2, MG-3 mistakes players make).

Players pick pits with a simple seeded policy (mostly the pit that gains the most stones, now
and then any legal pit). A planted illegal sowing is a mistake while sowing the scripted pit,
one the referee's recognition models (``mistakes``) or one it does not (``other_mistakes``),
plain to a camera from every legal result; the player makes it, presses, and corrects it to the
scripted sowing when flagged.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from controller.mangala.mistakes import mistakes, other_mistakes
from controller.mangala.recognition import STORES, lines
from controller.mangala.recognition import visibility as board_visibility
from engine.errors import InvalidInputError
from engine.mangala.position import Position, Side
from engine.mangala.record_builder import RecordBuilder
from engine.mangala.sowing import legal_pits, play

Board = tuple[int, ...]


@dataclass(frozen=True)
class Sowing:
    """One scripted sowing: the position before it, the pit, and a planted mistake if any."""

    set_number: int
    index: int  # 0-based over the whole round
    before: Position
    pit: int
    illegal: Board | None = None
    mistake: str = ""


@dataclass(frozen=True)
class RoundScript:
    """The round's sets, each a list of sowings, and who starts set 1 (MG-T-2)."""

    first_starter: Side
    sets: tuple[tuple[Sowing, ...], ...]

    @property
    def sowings(self) -> int:
        return sum(len(s) for s in self.sets)

    @property
    def planted(self) -> int:
        return sum(1 for s in self.sets for w in s if w.illegal is not None)


def _pick(position: Position, rng: random.Random) -> int:
    pits = legal_pits(position)
    side = position.to_move
    assert side is not None
    if rng.random() < 0.25:
        return rng.choice(pits)
    return max(pits, key=lambda p: (play(position, p).position.store(side), rng.random()))


VISIBLE = 3  # planted mistakes a camera (and a watching player) can see


def visibility(position: Position, pit: int, board: Board) -> int:
    """How plainly a mistaken board differs from every legal result of the turn (extra turns
    followed): stones out of place, counting double where a small pile (0..2 stones, counted at
    a glance) is wrong. ``pit`` is the scripted pit (its result is among the legal ones)."""
    legal = [line.board for line in lines(position)]
    legal.append(play(position, pit).position.board())
    return min(board_visibility(board, right) for right in legal)


def plain(position: Position, pit: int, board: Board) -> bool:
    """True when a mistaken board is plain to a camera and to the players: ``VISIBLE`` from
    every legal result, and different from each in a pit, not only in the stores (big piles
    nobody counts by eye: the referee counts them on request, MG-T-3)."""
    if visibility(position, pit, board) < VISIBLE:
        return False
    legal = [line.board for line in lines(position)]
    return all(any(x != y for c, (x, y) in enumerate(zip(board, right, strict=True))
                   if c not in STORES) for right in legal)


def planting(position: Position, pit: int) -> list[tuple[str, Board]]:
    """The mistakes the demo may plant sowing ``pit``: modelled or not, each plain to see."""
    options = [*mistakes(position, pit), *other_mistakes(position, pit)]
    return [(name, board) for name, board in options if plain(position, pit, board)]


def build_round(seed: int, illegal: int = 0, first_starter: Side = "a", *,
                per_player: int | None = None) -> RoundScript:
    """A whole round played by the engine with seeded players, ``illegal`` mistakes planted
    (alternating between the players, spread over the round; at most ``per_player`` each)."""
    rng = random.Random(f"mangala-round-{seed}")
    builder = RecordBuilder(first_starter)
    sets: list[list[Sowing]] = []
    index = 0
    while not builder.round.over:
        builder.start_set()
        number = builder.round.current_set
        assert number is not None
        current: list[Sowing] = []
        while builder.position is not None:
            position = builder.position
            pit = _pick(position, rng)
            current.append(Sowing(number, index, position, pit))
            builder.move(pit)
            index += 1
        sets.append(current)
    planted = _plant([w for s in sets for w in s], illegal, rng, per_player)
    out = tuple(tuple(planted.get(w.index, w) for w in s) for s in sets)
    return RoundScript(first_starter, out)


# a player's third warning loses the round (MG-T-4), which would leave the mistakes planted
# after it unplayed: two each
MAX_EACH = 2
MAX_PLANTED = 2 * MAX_EACH


def _plant(sowings: list[Sowing], count: int, rng: random.Random,
           per_player: int | None = None) -> dict[int, Sowing]:
    if count <= 0:
        return {}
    each: dict[Side, int] = {"a": 0, "b": 0}
    chosen: dict[int, Sowing] = {}
    # players alternate; the first sowing of each set and set-ending sowings are left alone
    candidates = [w for w in sowings[2:]
                  if not play(w.before, w.pit).set_over and not play(w.before, w.pit).extra_turn]
    by_player: dict[Side, list[Sowing]] = {"a": [], "b": []}
    for w in candidates:
        if planting(w.before, w.pit):
            by_player["a" if w.before.to_move == "a" else "b"].append(w)
    turn: Side = "a" if rng.random() < 0.5 else "b"
    def room(side: Side) -> list[Sowing]:
        if per_player is not None and each[side] >= per_player:
            return []
        return [w for w in by_player[side] if w.index not in chosen]

    for _ in range(count):
        pool = room(turn)
        if not pool:
            turn = "b" if turn == "a" else "a"
            pool = room(turn)
            if not pool:
                raise InvalidInputError(f"--illegal {count}: this round has room for only "
                                        f"{len(chosen)} illegal sowings")
        w = pool[rng.randrange(len(pool))]
        options = planting(w.before, w.pit)
        modelled = {b for _, b in mistakes(w.before, w.pit)}
        kinds = [[o for o in options if o[1] in modelled],
                 [o for o in options if o[1] not in modelled]]
        kinds = [k for k in kinds if k]
        name, board = rng.choice(kinds[rng.randrange(len(kinds))])  # half modelled, half not
        chosen[w.index] = Sowing(w.set_number, w.index, w.before, w.pit, board, name)
        each[turn] += 1
        turn = "b" if turn == "a" else "a"
    return chosen


__all__ = ["VISIBLE", "RoundScript", "Sowing", "build_round", "mistakes", "plain", "planting",
           "visibility"]
