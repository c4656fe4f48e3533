"""Refereed matches with the referee's and the director's interventions, as a tournament
produces them every day: each a seeded :class:`Table` script whose journal the records layer
exports. Shared by the export tests and the GNU Backgammon check of their ``.mat`` records."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from controller.referee.api import ClockPressed, CubeSeen, PressesUnseen
from controller.referee.config import RefereeConfig
from engine.backgammon.moves import legal_plays
from engine.backgammon.position import Position
from tests.controller.referee.table import Table

WRONG_53 = [(13, 7), (8, 6)]  # player 1's opening 53 played as 6 and 2
SET = Position.from_checkers({6: 5, 5: 5, 4: 5}, {6: 4, 5: 4, 4: 4, 3: 3})  # a race set


class Script:
    """A table and a seeded source of throws, with the steps the scripts share."""

    def __init__(self, seed: int, length: int = 5) -> None:
        self.table = Table(RefereeConfig(players=("Ayse", "Mehmet"), length=length), seed)
        self.rng = random.Random(seed)

    @property
    def on_roll(self) -> int:
        on_roll = self.table.referee.match.on_roll
        assert on_roll is not None
        return on_roll

    def start(self) -> None:
        """Player 1 opens with 53 (player 0 presses the smaller die's side)."""
        self.table.cube = CubeSeen(64, "centre", 0.95)
        self.table.board0 = Position.initial()
        self.next_game(3, 5)

    def dice(self) -> tuple[int, int]:
        return (self.rng.randint(1, 6), self.rng.randint(1, 6))

    def turn(self) -> None:
        """The player on roll throws (seeded dice) and plays a legal move."""
        if self.table.referee.match.dice is None:  # the opening roll is the opener's throw
            self.table.throw(self.on_roll, *self.dice())
        self.table.play_first_legal(self.rng.randrange(64))

    def turns(self, n: int) -> None:
        for _ in range(n):
            self.turn()

    def wrong(self, player: int) -> Position:
        """Leave an illegal move on the board (one checker moved a distance no play of the
        dice gives); returns the board left (the mover's view)."""
        m = self.table.referee.match
        assert m.dice is not None
        before = m.position
        legal = {play.result for play in legal_plays(before, m.dice)}
        for point in range(24, 0, -1):
            for distance in range(1, point):
                target = point - distance
                if before.board[point] > 0 and before.board[target] >= 0:
                    wrong = before.apply_steps([(point, target)])
                    if wrong not in legal:
                        self.table.place(wrong, player)
                        return wrong
        raise AssertionError("no illegal move found")

    def leave(self, a: int, b: int) -> int:
        """The player on roll throws ``a``-``b`` and leaves the first legal play on the board,
        not pressed yet; returns that player."""
        mover = self.on_roll
        self.table.throw(mover, a, b)
        self.table.place(legal_plays(self.table.referee.match.position, (a, b))[0].result, mover)
        return mover

    def early(self, mover: int, a: int, b: int) -> None:
        """The opponent of ``mover`` throws ``a``-``b`` before the mover pressed (BG-ROLL-5)."""
        self.table.motion()
        self.table.dice = (self.table.die(a, 1 - mover), self.table.die(b, 1 - mover))
        self.table.frames()

    def next_game(self, d0: int, d1: int) -> None:
        """The next game's opening throw (player 0's die first); the smaller die presses."""
        self.table.opening(d0, d1)
        self.table.press(0 if d1 > d0 else 1)

    def set_position(self, position: Position) -> None:
        """The director sets ``position`` (seen by the player on roll) and the checkers lie so."""
        self.table.director("set_position", position_id=position.position_id)
        self.table.board0 = position if self.on_roll == 0 else position.swap()

    def resign(self, player: int, kind: int = 1) -> None:
        self.table.director("resign", player=player, kind=kind)
        self.table.cube = CubeSeen(64, "centre", 0.95)
        self.table.board0 = Position.initial()


def illegal_corrected(s: Script) -> None:
    s.start()
    before = s.table.referee.match.position
    s.table.place(before.apply_steps(WRONG_53), 1)
    s.table.press(1)
    s.table.place(before.apply_steps([(8, 3), (6, 3)]), 1)
    s.table.press(1)
    s.turns(6)
    s.resign(0)


def illegal_stands(s: Script) -> None:
    s.start()
    s.turns(3)
    s.table.throw(s.on_roll, 6, 5)
    player = s.on_roll
    s.wrong(player)
    s.table.press(player)
    s.table.throw(1 - player, *s.dice())  # the opponent throws: the move stands (TTB-4.8)
    s.turns(4)
    s.resign(player)


def _accepted_53(s: Script) -> Position:
    """Player 1's opening 53 played wrong and accepted by the director; the position before."""
    s.start()
    before = s.table.referee.match.position
    s.table.place(before.apply_steps(WRONG_53), 1)
    s.table.press(1)
    s.table.director("accept")
    return before


def director_accepts(s: Script) -> None:
    _accepted_53(s)
    s.turns(4)
    s.resign(1, 2)


def _third_throw(s: Script, a: int, b: int) -> int:
    """The match started, two turns played, the player on roll throws ``a``-``b``: them."""
    s.start()
    s.turns(2)
    player = s.on_roll
    s.table.throw(player, a, b)
    return player


def director_rejects(s: Script) -> None:
    player = _third_throw(s, 4, 2)
    m = s.table.referee.match
    plays = legal_plays(m.position, (4, 2))
    s.table.place(plays[0].result, player)
    s.table.press(player)
    s.table.director("reject", reason="a checker was knocked over")
    s.table.place(plays[-1].result, player)
    s.table.press(player)
    s.turns(4)
    s.resign(player)


def set_position(s: Script) -> None:
    s.start()
    s.turns(3)
    player = s.on_roll
    s.set_position(Position.from_checkers({6: 5, 5: 5, 4: 5}, {6: 4, 5: 4, 4: 4, 3: 3}))
    s.turns(4)
    s.resign(1 - player)


def accepted_then_rejected(s: Script) -> None:
    """The director accepts a flagged move (it stands), then rejects it after all (TTB-4.9):
    the corrected move is played, and no note says a move stands."""
    before = _accepted_53(s)
    s.table.director("reject", reason="changed mind")
    s.table.place(before.apply_steps([(8, 3), (6, 3)]), 1)
    s.table.press(1)
    s.turns(4)
    s.resign(1, 2)


def rejected_then_time_out(s: Script) -> None:
    """An accepted flagged move rejected, then the mover's flag falls (TTB-CLOCK-3)."""
    player = _third_throw(s, 6, 5)
    s.wrong(player)
    s.table.press(player)
    s.table.director("accept")
    s.table.director("reject", reason="changed mind")
    s.table.flag(player)


def set_position_at_start(s: Script) -> None:
    """The director sets the position before the game's first move."""
    s.start()
    s.set_position(SET)
    s.turns(3)
    s.resign(0)


def set_position_then_cube(s: Script) -> None:
    """After the position the director set, the player on roll doubles, the other takes and
    resigns a backgammon: the result counts the cube turned after the cut."""
    s.start()
    s.turns(2)
    s.set_position(Position.from_checkers({6: 5, 5: 5, 4: 5},
                                          {25: 2, 24: 3, 6: 4, 5: 3, 4: 3}))
    _double_taken_then_resigned(s, 3)


def _double_taken_then_resigned(s: Script, kind: int) -> None:
    """The player on roll doubles, the other takes, one turn is played and the taker resigns
    (``kind``: 1 single, 2 gammon, 3 backgammon)."""
    doubler = s.on_roll
    s.table.offer(doubler)
    s.table.take(1 - doubler)
    s.turns(1)
    s.resign(1 - doubler, kind)


def set_position_then_opponent_doubles(s: Script) -> None:
    """After the position the director set, the mover plays and the opponent doubles: the
    record, whose last move is the doubler's, gives that move up to hold the double."""
    s.start()
    s.turns(3)
    s.set_position(SET)
    s.turn()
    _double_taken_then_resigned(s, 2)


def set_dice_and_rethrow(s: Script) -> None:
    s.start()
    s.turns(2)
    player = s.on_roll
    s.table.press(1 - player, frames=0)  # nothing thrown: the camera reads no dice
    s.table.director("set_dice", dice=[4, 4])
    s.table.play_first_legal()
    # an early throw, then thrown again at the director's word (BG-ROLL-5)
    mover = s.leave(6, 1)
    s.early(mover, 5, 2)
    s.table.press(mover)
    s.table.director("rethrow")
    s.table.throw(1 - mover, 3, 1)
    s.table.play_first_legal()
    s.turns(3)
    s.resign(mover)


def early_throw(s: Script) -> None:
    s.start()
    s.turns(2)
    mover = s.leave(6, 4)
    s.early(mover, 2, 1)
    s.table.press(mover)
    s.table.play_first_legal()
    s.turns(3)
    s.resign(mover, 2)


def early_double(s: Script) -> None:
    s.start()
    s.turns(2)
    mover = s.leave(6, 4)
    s.table.cube = CubeSeen(2, "offered", 0.9)
    s.table.frames(1)
    s.table.press(1 - mover)
    s.table.take(mover)
    s.turns(3)
    s.resign(mover)


def invalid_throws(s: Script) -> None:
    s.start()
    s.turns(1)
    player = s.on_roll
    s.table.throw(player, 3, 3, flat=False)  # cocked: thrown again
    s.table.throw(player, 5, 2, wrong_half=True)
    s.turn()
    s.turns(3)
    s.resign(player, 3)


def closed_out_pass(s: Script) -> None:
    s.start()
    s.turns(1)
    assert s.on_roll == 0
    s.set_position(Position.from_checkers({25: 1, 6: 5, 8: 3, 13: 6},
                                          {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}))
    s.table.throw(0, 6, 5)
    s.table.press(0)  # no legal play: the turn passes
    s.turns(3)
    s.resign(0)


def forced_partial(s: Script) -> None:
    """A position where only one die of the roll can be played."""
    s.start()
    s.turns(1)
    assert s.on_roll == 0
    s.set_position(Position.from_checkers({25: 1, 6: 5, 5: 5, 4: 4}, {6: 2, 11: 2, 13: 11}))
    s.table.throw(0, 6, 5)  # only bar/20 can be played
    s.table.play_first_legal()
    s.turns(3)
    s.resign(1)


def resignations(s: Script) -> None:
    s.start()
    s.turns(3)
    s.resign(0, 1)
    s.next_game(2, 6)
    s.turns(2)
    s.resign(1, 2)


def cube_game(s: Script) -> None:
    """Double, take, redouble, take, then a double dropped in the next game."""
    s.start()
    s.turns(1)
    s.table.offer(0)
    s.table.take(1)
    s.turns(1)
    s.table.offer(1)
    s.table.take(0)
    s.turns(3)
    s.resign(s.on_roll)
    s.next_game(1, 4)
    s.turns(1)
    s.table.offer(s.on_roll)
    s.table.drop()


def crawford(s: Script) -> None:
    s.start()
    s.turns(2)
    s.resign(1, 2)  # 2-0 in a 3-point match: the Crawford game next
    s.table.cube = None
    s.next_game(5, 2)
    s.turns(3)
    s.resign(0)
    s.table.cube = CubeSeen(64, "centre", 0.95)
    s.next_game(2, 4)
    s.turns(1)
    s.table.offer(s.on_roll)
    s.table.drop()


def _into_game_2(s: Script, loser: int, turns: int) -> None:
    """Game 1 resigned by ``loser``, then ``turns`` turns of game 2."""
    s.start()
    s.turns(3)
    s.resign(loser)
    s.next_game(4, 1)
    s.turns(turns)


def time_out(s: Script) -> None:
    _into_game_2(s, 1, 3)
    s.table.flag(s.on_roll)


def director_ends(s: Script) -> None:
    _into_game_2(s, 0, 2)
    s.table.director("end_match", winner=1, reason="player 0 left")


def played_out(s: Script) -> None:
    """A game played to its last checker, passes (no legal play) and forced partial moves
    included (seed 4: a backgammon with two passes)."""
    s.start()
    while s.table.referee.match.game == 1:
        s.turn()


def unseen_turns(s: Script) -> None:
    """Two turns played while the table could not see (TTB-6.1), then the board is read."""
    s.start()
    s.turns(3)
    table = s.table
    player = s.on_roll
    presses = []
    for number, who in ((7, player), (8, 1 - player)):
        table.t += 10
        presses.append(ClockPressed(table.t, table.config.side_of(who), (250_000, 250_000),
                                    press=(7, number)))
    mine = legal_plays(table.referee.match.position, (6, 5))[0].result
    seen = legal_plays(mine.swap(), (2, 1))[0].result.swap()
    table.send(PressesUnseen(table.t, tuple(presses), (), None))
    table.motion()
    table.board0 = seen if player == 0 else seen.swap()
    table.dice = (table.die(2, 1 - player), table.die(1, 1 - player))
    table.frames()
    s.turns(3)
    s.resign(player)


def set_cube(s: Script, value: int, owner: int | None) -> None:
    """The director puts the cube right (BG-CUBE-5), and the players turn it so."""
    s.table.director("set_cube", value=value, owner=owner)
    zone = "centre" if owner is None else f"{s.table.config.colour_of(owner)}-side"
    s.table.cube = CubeSeen(64 if value == 1 else value, zone, 0.95)  # type: ignore[arg-type]


def cube_set_in_play(s: Script) -> None:
    """The players doubled and took without turning the cube (the table saw no double): the
    director puts it at 2 on the taker's side; the game goes on and is resigned at 2."""
    s.start()
    s.turns(3)
    taker = 1 - s.on_roll
    set_cube(s, 2, taker)
    s.turns(3)
    s.resign(taker)


def cube_set_after_game(s: Script) -> None:
    """Game 1 was resigned at the cube the table held (1); before the next game's first throw
    the director puts it right at 2 (a double and take the table missed): the game is scored
    again, and game 2 starts from the score put right."""
    s.start()
    s.turns(3)
    s.resign(0)
    set_cube(s, 2, 0)
    s.table.cube = CubeSeen(64, "centre", 0.95)
    s.next_game(4, 1)
    s.turns(2)
    s.resign(1)


def cube_set_decides_the_match(s: Script) -> None:
    """A 3-point match: game 1 resigned at 2 (2-0, the Crawford game next); put right to 4
    before its first throw (a redouble the table missed), the game is scored again and wins
    the match."""
    s.start()
    s.turns(2)
    doubler = s.on_roll
    s.table.offer(doubler)
    s.table.take(1 - doubler)
    s.turns(2)
    s.resign(1 - doubler)
    set_cube(s, 4, doubler)


def dropped_cube_set_decides_the_match(s: Script) -> list[dict[str, Any]]:
    """A 3-point match: game 1's double is dropped (1-0 at the cube of 1 the table held); put
    right to 4 on the doubler's side before game 2's first throw (a double and redouble the
    table missed), the doubler wins the value before the double, 4, and the match. Not among
    :data:`SCRIPTS`: its .mat cannot count the game so (the record's cube stays at 1), so its
    journal is tested apart. Returns the journal."""
    s.start()
    s.turns(3)
    doubler = s.on_roll
    s.table.offer(doubler)
    s.table.drop()
    set_cube(s, 4, doubler)
    return s.table.journal()


def everything(s: Script) -> None:
    """Several interventions in one match."""
    illegal_corrected(s)
    s.next_game(6, 3)
    s.turns(2)
    s.table.throw(s.on_roll, 6, 5)
    player = s.on_roll
    s.wrong(player)
    s.table.press(player)
    s.table.director("accept")
    s.turns(2)
    doubler = s.on_roll
    s.table.offer(doubler)
    s.table.take(1 - doubler)
    s.turns(2)
    s.resign(0, 2)


SCRIPTS: dict[str, Callable[[Script], None]] = {
    "illegal_corrected": illegal_corrected,
    "illegal_stands": illegal_stands,
    "director_accepts": director_accepts,
    "director_rejects": director_rejects,
    "set_position": set_position,
    "set_dice_and_rethrow": set_dice_and_rethrow,
    "accepted_then_rejected": accepted_then_rejected,
    "rejected_then_time_out": rejected_then_time_out,
    "set_position_at_start": set_position_at_start,
    "set_position_then_cube": set_position_then_cube,
    "set_position_then_opponent_doubles": set_position_then_opponent_doubles,
    "early_throw": early_throw,
    "early_double": early_double,
    "invalid_throws": invalid_throws,
    "closed_out_pass": closed_out_pass,
    "forced_partial": forced_partial,
    "resignations": resignations,
    "cube_game": cube_game,
    "crawford": crawford,
    "time_out": time_out,
    "director_ends": director_ends,
    "played_out": played_out,
    "unseen_turns": unseen_turns,
    "everything": everything,
    "cube_set_in_play": cube_set_in_play,
    "cube_set_after_game": cube_set_after_game,
    "cube_set_decides_the_match": cube_set_decides_the_match,
}
LENGTHS = {"crawford": 3, "cube_game": 7, "cube_set_decides_the_match": 3}
SEEDS = {"played_out": 4}


def journal_of(name: str) -> list[dict[str, Any]]:
    """The journal entries of script ``name`` (less seq and time)."""
    script = Script(SEEDS.get(name, 1), LENGTHS.get(name, 5))
    SCRIPTS[name](script)
    return script.table.journal()
