"""Synthetic table: event streams for the referee built from real ``.mat`` matches.

Each recorded action becomes what the referee would see at a real table: hands moving
(``MotionSeen``), still frames whose :class:`NoisyView` is synthesised from the exact position
with a seeded noise model (misread slots, occluded frames), dice readings with planted invalid
throws, cube moves and clock presses, and planted illegal moves that the player corrects once
flagged. Every planted fault is marked on the event that must raise it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from controller.referee.api import (
    ClockHoldPressed,
    ClockPressed,
    CubeSeen,
    DieSeen,
    DirectorAction,
    Event,
    FrameSeen,
    MotionSeen,
)
from controller.referee.config import RecognitionSettings, RefereeConfig
from controller.referee.machine import signature
from controller.table_layout import TableLayout
from engine.backgammon.mat_play import FoundPlay, find_play
from engine.backgammon.mat_reader import ActionKind, MatMatch
from engine.backgammon.mat_replay import rules_for
from engine.backgammon.match import (
    Double,
    Drop,
    MatchState,
    Move,
    NextGame,
    OpeningRoll,
    Phase,
    Resign,
    Roll,
    Take,
    apply,
    new_match,
)
from engine.backgammon.moves import result_boards
from engine.backgammon.position import Position
from engine.backgammon.scoring import resignation_kind
from engine.errors import InvalidInputError

Slots = tuple[tuple[int, int], ...]

MISREAD = 1.5  # nats by which a misread slot's true count trails vision's reading
WRONG = 9.0  # nats for a count that is neither vision's reading nor the truth


class NoisyView:
    """A frame's reading of an exact position: per slot vision reads the truth, or with
    probability ``misread`` a neighbouring count (the truth still likely); occluded frames hide
    a band of slots and say nothing about them."""

    def __init__(
        self,
        slots: Slots,
        bar: tuple[int, int],
        rng: random.Random,
        *,
        misread: float = 0.03,
        occlude: bool = False,
    ) -> None:
        self.truth = slots
        self.bar = bar
        read = []
        self.misreads = 0
        for a, b in slots:
            if rng.random() < misread and a + b > 0:
                if a:
                    a = max(0, a + rng.choice((-1, 1)))
                else:
                    b = max(0, b + rng.choice((-1, 1)))
                self.misreads += 1
            read.append((a, b))
        self.read: Slots = tuple(read)
        self.hidden: frozenset[int] = frozenset()
        if occlude:
            start = rng.randrange(24)
            width = rng.randint(3, 16)
            self.hidden = frozenset((start + k) % 24 for k in range(width))
        self._occluded = occlude

    @property
    def occluded(self) -> bool:
        return self._occluded

    def _slot_ll(self, i: int, hyp: tuple[int, int]) -> float:
        if hyp == self.read[i]:
            return 0.0
        if hyp == self.truth[i]:
            return -MISREAD
        return -WRONG

    def log_likelihood(
        self, slots: Sequence[tuple[int, int]], bar: tuple[int, int]
    ) -> float | None:
        if len(self.hidden) > 12:
            return None
        total = 0.0
        for i in range(24):
            if i not in self.hidden:
                total += self._slot_ll(i, (slots[i][0], slots[i][1]))
        if tuple(bar) != self.bar:
            total -= WRONG
        return total

    def best_counts(self) -> tuple[tuple[tuple[int, int], ...], tuple[int, int], float] | None:
        if len(self.hidden) > 12:
            return None
        confidence = 0.97 * math.exp(-0.5 * self.misreads)
        return self.read, self.bar, confidence


@dataclass
class Planted:
    """Faults planted into a stream and where each must be flagged."""

    illegal: list[int] = field(default_factory=list)  # event indices whose output must flag
    invalid: list[int] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


@dataclass
class Stream:
    events: list[Event]
    expect: dict[int, str]  # event index -> journal type it must produce
    planted: Planted


def _told_apart(a: tuple[int, ...], b: tuple[int, ...], tall: int) -> bool:
    """Whether a point that may decide a flag tells board ``b`` (as read) from board ``a``, as
    the referee judges it (``controller.referee.recognition``): the bar always; a point when
    not both tall, and, if ``b`` shows fewer checkers on the board, not a tall stack of ``a``
    one short (a checker missed in a tall stack is no illegal move)."""
    fewer = sum(abs(c) for c in b) < sum(abs(c) for c in a)
    for p in range(26):
        if a[p] == b[p]:
            continue
        if p in (0, 25):
            return True
        va, vb = abs(a[p]), abs(b[p])
        short = vb <= va - (1 if fewer else 2)
        if min(va, vb) < tall and not (va >= tall and short):
            return True
    return False


def illegal_variant(before: Position, result: Position, dice: tuple[int, int]) -> Position | None:
    """A position close to the legal ``result`` that is no legal result: one of the mover's
    checkers one point further than it should be (or, failing that, no move at all). Not one
    the referee is meant to wait on rather than flag (:func:`_told_apart`)."""
    legal = result_boards(before, dice)
    board = result.board
    tall = RecognitionSettings().tall_stack
    others = list(legal) or [before.board]
    for p in range(24, 1, -1):
        if board[p] > 0 and board[p - 1] >= 0:
            b = list(board)
            b[p] -= 1
            b[p - 1] += 1
            candidate = Position(tuple(b))
            if candidate.board not in legal and all(
                    _told_apart(other, candidate.board, tall) for other in others):
                return candidate
    if legal and before.board not in legal:
        return before
    return None


class TableSim:
    """Turns a match record into referee events (seeded)."""

    def __init__(
        self,
        record: MatMatch,
        config: RefereeConfig,
        seed: int,
        *,
        illegal: float = 0.04,
        invalid: float = 0.04,
        occluded: float = 0.05,
        ties: float = 0.2,
        after_press: int = 4,
        misread: float = 0.02,
        pair_each: bool = False,
    ) -> None:
        self.record = record
        self.config = config
        self.layout: TableLayout = config.layout
        self.rng = random.Random(seed)
        self.p_illegal = illegal
        self.p_invalid = invalid
        self.p_occluded = occluded
        self.p_ties = ties
        self.t = 0
        self.times = [600_000, 600_000]
        self.events: list[Event] = []
        self.expect: dict[int, str] = {}
        self.planted = Planted()
        self.dice_on_board: tuple[DieSeen, ...] = ()
        self.cube: CubeSeen | None = CubeSeen(64, "centre", 0.95)
        self.scene: Position | None = None
        self.after_press = after_press
        self.misread = misread
        self.pair_each = pair_each  # BG-EQ-2: the other player's pair stays on the board
        self.lying: dict[int, tuple[DieSeen, ...]] = {0: (), 1: ()}

    # --- primitives --------------------------------------------------------------------------

    def _tick(self, ms: int = 700) -> int:
        self.t += ms
        return self.t

    def _add(self, event: Event, expect: str | None = None) -> None:
        if expect is not None:
            self.expect[len(self.events)] = expect
        self.events.append(event)

    def _view(self, position0: Position, *, occlude: bool = False) -> NoisyView:
        counts = self.layout.counts(position0)
        return NoisyView(
            counts.slots, counts.bar, self.rng, occlude=occlude, misread=self.misread
        )

    def motion(self) -> None:
        self.scene = None
        self._add(MotionSeen(self._tick(300)))

    def frame(self, position0: Position, expect: str | None = None) -> None:
        self.scene = position0
        if self.rng.random() < self.p_occluded:
            view = self._view(position0, occlude=True)
            self._add(FrameSeen(self._tick(), view, self.dice_on_board, self.cube), expect)
            expect = None
        view = self._view(position0)
        self._add(FrameSeen(self._tick(), view, self.dice_on_board, self.cube), expect)

    def press(self, player: int, expect: str | None = None) -> None:
        used = self.rng.randint(1_000, 9_000)
        self.times[player] = max(1, self.times[player] - used)
        side = self.config.side_of(player)
        left = self.config.clock_sides.index("left")
        lr = (self.times[left], self.times[1 - left])
        self._add(ClockPressed(self._tick(), side, lr), expect)
        if self.scene is not None:  # the camera keeps seeing the still board after a press
            for _ in range(self.after_press):
                view = self._view(self.scene)
                self._add(FrameSeen(self._tick(200), view, self.dice_on_board, self.cube))

    def hold(self) -> None:
        left = self.config.clock_sides.index("left")
        self._add(ClockHoldPressed(self._tick(), (self.times[left], self.times[1 - left])))

    def die(self, pips: int, player: int, **kw: object) -> DieSeen:
        half = self.config.right_half(player)
        flat = bool(kw.get("flat", True))
        on_checker = bool(kw.get("on_checker", False))
        if kw.get("wrong_half"):
            half = "left" if half == "right" else "right"
        x = self.rng.uniform(20, 230) + (250 if half == "right" else 0)
        centre = (round(x, 1), round(self.rng.uniform(20, 380), 1))
        return DieSeen(pips, half, flat, on_checker, 0.95, centre)  # type: ignore[arg-type]

    def bad_die(self, pips: int, player: int) -> DieSeen:
        kind = self.rng.choice(("cocked", "checker", "half", "off"))
        if kind == "cocked":
            return self.die(pips, player, flat=False)
        if kind == "checker":
            return self.die(pips, player, on_checker=True)
        if kind == "half":
            return self.die(pips, player, wrong_half=True)
        return DieSeen(pips, "off-board", True, False, 0.9, (-50.0, self.rng.uniform(0, 400)))

    # --- the match ------------------------------------------------------------------------------

    def run(self) -> Stream:
        record = self.record
        state = new_match(record.length, rules_for(record))
        for game in record.games:
            if state.phase is Phase.MATCH_OVER:
                break
            if state.phase is Phase.GAME_OVER:
                state = apply(state, NextGame())
            self.cube = None if state.crawford_game else CubeSeen(64, "centre", 0.95)
            self.motion()
            self.dice_on_board = ()
            self.frame(Position.initial())
            actions = list(game.actions)
            for index, action in enumerate(actions):
                later = actions[index + 1 :]
                if state.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
                    break
                if action.kind is ActionKind.ROLL:
                    state = self._roll(state, action.player, action.dice, action.moves,
                                       action.cannot_move, later)
                elif action.kind is ActionKind.DOUBLE:
                    state = self._double(state, action.player)
                elif action.kind is ActionKind.TAKE:
                    state = self._take(state, action.player)
                elif action.kind is ActionKind.DROP:
                    state = self._drop(state)
                elif action.kind is ActionKind.BEAVER:
                    raise InvalidInputError(
                        f"game {game.number}: a beaver ({action.text!r}, line {action.line}):"
                        " the referee does not play beavers"
                    )
                elif action.kind is ActionKind.WIN:
                    if state.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER):
                        loser = 1 - action.player
                        kind = resignation_kind(action.value, state.cube.value)
                        self._add(
                            DirectorAction(
                                self._tick(), "resign", {"player": loser, "kind": int(kind)}
                            )
                        )
                        state = apply(state, Resign(loser, kind))
                elif (
                    action.kind is ActionKind.LOSS
                    and not any(a.kind is ActionKind.WIN for a in later)
                    and state.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER)
                ):
                        kind = resignation_kind(action.value, state.cube.value)
                        self._add(
                            DirectorAction(
                                self._tick(), "resign", {"player": action.player,
                                                         "kind": int(kind)}
                            )
                        )
                        state = apply(state, Resign(action.player, kind))
        self.final_state = state
        return Stream(self.events, self.expect, self.planted)

    def _pos0(self, state: MatchState, position: Position, mover: int) -> Position:
        return position if mover == 0 else position.swap()

    def _opening(self, state: MatchState, player: int, dice: tuple[int, int]) -> MatchState:
        hi, lo = max(dice), min(dice)
        mine = {player: hi, 1 - player: lo}
        board0 = Position.initial()
        if self.rng.random() < self.p_ties:
            tie = self.rng.choice([d for d in range(1, 7)])
            self.motion()
            self.dice_on_board = (self.die(tie, 0), self.die(tie, 1))
            self.frame(board0, "opening_roll")
        if self.rng.random() < self.p_invalid:
            who = self.rng.randint(0, 1)
            self.motion()
            bad = self.bad_die(mine[who], who)
            good = self.die(mine[1 - who], 1 - who)
            self.dice_on_board = (good, bad) if who else (bad, good)
            self.frame(board0, "invalid_throw")
            self.planted.invalid.append(len(self.events) - 1)
            self.motion()
            self.dice_on_board = (good, self.die(mine[who], who))
        else:
            self.motion()
            self.dice_on_board = (self.die(mine[0], 0), self.die(mine[1], 1))
        self.frame(board0, "opening_roll")
        self.lying = {0: self.dice_on_board[:1], 1: self.dice_on_board[1:]}
        state = apply(state, OpeningRoll((mine[0], mine[1])))
        self.press(1 - player)  # the smaller die starts the starter's clock (BG-OPEN-3)
        return state

    def _throw(self, state: MatchState, player: int, dice: tuple[int, int]) -> MatchState:
        pos0 = self._pos0(state, state.position, player)
        if self.rng.random() < self.p_invalid:
            self.motion()
            b = self.die(dice[1], player)
            a = self.bad_die(dice[0], player)
            if signature((a, b)) == signature(self.dice_on_board):
                # a throw landing exactly like the dice already lying there cannot be seen
                a = self.die(dice[0], player, flat=False)
            self.dice_on_board = (a, b) if self.rng.random() < 0.5 else (b, a)
            if self.pair_each:
                self.dice_on_board = self.lying[1 - player] + self.dice_on_board
            self.frame(pos0, "invalid_throw")
            self.planted.invalid.append(len(self.events) - 1)
        self.motion()
        self.dice_on_board = (self.die(dice[0], player), self.die(dice[1], player))
        if self.pair_each:
            self.lying[player] = self.dice_on_board
            self.dice_on_board = self.lying[1 - player] + self.dice_on_board
        self.frame(pos0, "roll")
        return apply(state, Roll(dice))

    def _roll(
        self,
        state: MatchState,
        player: int,
        dice: tuple[int, int] | None,
        moves: tuple[object, ...],
        cannot_move: bool,
        later: Sequence[object],
    ) -> MatchState:
        assert dice is not None
        if state.phase is Phase.OPENING:
            state = self._opening(state, player, dice)
        else:
            state = self._throw(state, player, dice)
        before = state.position
        resigns = (
            not moves
            and not cannot_move
            and result_boards(before, dice)
            and any(getattr(a, "kind", None) is ActionKind.WIN for a in later)
        )
        if resigns:
            return state
        found = find_play(before, state.dice or dice, moves)  # type: ignore[arg-type]
        assert isinstance(found, FoundPlay), found
        result = found.result
        if self.rng.random() < self.p_illegal:
            wrong = illegal_variant(before, result, state.dice or dice)
            if wrong is not None:
                self.motion()
                self.frame(self._pos0(state, wrong, player))
                self.press(player, "illegal_move")
                self.planted.illegal.append(len(self.events) - 1)
        self.motion()
        self.frame(self._pos0(state, result, player))
        self.press(player, "move")
        return apply(state, Move(result))

    def _double(self, state: MatchState, player: int) -> MatchState:
        pos0 = self._pos0(state, state.position, player)
        self.motion()
        self.cube = CubeSeen(state.cube.value * 2, "offered", 0.95)
        self.frame(pos0)
        self.press(player, "double")
        return apply(state, Double())

    def _take(self, state: MatchState, player: int) -> MatchState:
        assert state.on_roll is not None
        pos0 = self._pos0(state, state.position, state.on_roll)
        self.motion()
        colour = self.config.colour_of(player)
        self.cube = CubeSeen(state.cube.value * 2, f"{colour}-side", 0.95)  # type: ignore[arg-type]
        self.frame(pos0)
        self.press(player, "take")
        return apply(state, Take())

    def _drop(self, state: MatchState) -> MatchState:
        assert state.on_roll is not None
        pos0 = self._pos0(state, state.position, state.on_roll)
        self.motion()
        self.cube = CubeSeen(64, "centre", 0.95)
        self.frame(pos0)
        self.hold()
        return apply(state, Drop())
