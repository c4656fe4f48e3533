"""The Mangala referee's state and the journal fold that changes it: every decision is a
journal entry, written through :meth:`RefereeState._emit` and folded at once, so a journal
replayed after a restart rebuilds the same state."""

from __future__ import annotations

from typing import Any, Literal

from controller.clock.messages import Side as ClockSide
from controller.mangala.config import MangalaConfig
from controller.mangala.view import MangalaView
from controller.referee.api import ClockCommand, Command
from controller.referee.outputs import Outputs
from engine.errors import RecordFormatError
from engine.mangala.position import Position, Side, other
from engine.mangala.scoring import Round, SetResult
from engine.mangala.sowing import MoveResult, play

Stage = Literal["setup", "turn", "correcting", "sweep", "over"]


class RefereeState(Outputs):
    """What the referee knows of the round (journalled and not), the seats, and the outputs
    through which it journals, commands and speaks."""

    def __init__(self, config: MangalaConfig) -> None:
        self.config = config
        self._out: list[Command] = []
        # journalled state (rebuilt by _fold)
        self._started = False
        self.round = Round(config.first_starter)
        self.set_number = 0
        self.position: Position | None = None
        self.stage: Stage = "setup"
        self._pending = False  # the mover pressed; the verdict is due
        self._flag: tuple[Side, tuple[int, ...]] | None = None
        self._final: MoveResult | None = None  # the set's last sowing, before the sweep check
        self._again = False  # the last sowing ended in the mover's store and was not pressed
        self._times: tuple[int, int] = (config.set_ms, config.set_ms)
        # a player whose flag fell while it was not their turn by the journal (a press awaiting
        # its verdict, unseen turns): their time-out waits for their turn (MG-CLOCK-2)
        self._due: Side | None = None
        self._over = False
        self._said_cannot_read = False
        # turns played while the table could not see (MG-CLOCK-2): how many, and who moves
        # after them by the clock (None: not known); found again from the board, or set by
        # the director
        self._retake: tuple[int, Side | None] | None = None
        # what only frames and the moment tell (not journalled)
        self._early_seen: tuple[int, ...] | None = None  # the early board already announced
        self._still: list[MangalaView] = []
        self._press_t = 0
        self._sweep_t: int | None = None
        self._signals: set[str] = set()

    # --- the seats --------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """True once the round has ended (``match_end`` journalled)."""
        return self._over

    @property
    def mover(self) -> Side | None:
        """The player whose turn it is, while a set is being played."""
        return self.position.to_move if self.position is not None else None

    @property
    def flagged(self) -> bool:
        """True while an illegal sowing waits for its correction."""
        return self._flag is not None

    @property
    def judging(self) -> bool:
        """True while the mover's press awaits its verdict (not read yet)."""
        return self._pending

    @property
    def unseen_turns(self) -> bool:
        """True while turns played unseen are still looked for on the board (MG-CLOCK-2)."""
        return self._retake is not None

    @property
    def unseen_left(self) -> int:
        """How many turns played unseen are still looked for (0: none)."""
        return self._retake[0] if self._retake is not None else 0

    def side_of(self, player: Side) -> ClockSide:
        """The clock side (button and display) of a player."""
        a = self.config.clock_a
        if player == "a":
            return a
        return "right" if a == "left" else "left"

    def player_of(self, side: ClockSide) -> Side:
        """The player sitting at a clock side."""
        return "a" if side == self.config.clock_a else "b"

    def name(self, player: Side) -> str:
        """A player's name as the live log says it."""
        return self.config.players[0 if player == "a" else 1]

    def _lr(self, ab: tuple[int, int]) -> tuple[int, int]:
        return ab if self.config.clock_a == "left" else (ab[1], ab[0])

    def _ab(self, lr: tuple[int, int]) -> tuple[int, int]:
        return lr if self.config.clock_a == "left" else (lr[1], lr[0])

    def _countdown(self) -> ClockCommand:
        """Both times back to the set's full time, on hold (MG-CLOCK-1)."""
        return ClockCommand("configure_countdown", args={"total_ms": self.config.set_ms})

    def _start(self, player: Side) -> str:
        """Start ``player``'s time, unless a flag waits for its turn: the clock stands flagged
        and starts nothing until the set's end resets it (MG-CLOCK-1), so play goes on
        untimed up to the flagged player's turn. Returns what the live log says of it."""
        if self._due is not None:
            return f"the clock stands at {self.name(self._due)}'s flag"
        self._do(ClockCommand("start", self.side_of(player)))
        return f"the clock goes back to {self.name(player)}"

    # --- the journal fold -------------------------------------------------------------------

    def _fold(self, kind: str, f: dict[str, Any]) -> None:
        """Change the state as the journal entry says (live and on a restart alike)."""
        if kind == "match_start":
            self._started = True
        elif kind == "game_start":
            self.set_number = int(f["set"])
            starter: Side = "a" if f["starter"] == "a" else "b"
            self.position = Position.initial(starter)
            self.stage = "setup"
            self._pending = False
            self._flag = None
            self._final = None
            self._due = None
            self._times = (self.config.set_ms, self.config.set_ms)
        elif kind == "clock":
            times = f.get("times_ms")
            if isinstance(times, list) and len(times) == 2:
                self._times = self._ab((int(times[0]), int(times[1])))
            means = f.get("means")
            if means == "start" and self.stage == "setup":
                self.stage = "turn"
            elif means == "move":
                self._pending = True
                self._said_cannot_read = False
            elif means == "unseen" and self._retake is not None and f.get("player") in ("a", "b"):
                # a press before the board was found again: one more unseen turn
                self._retake = (self._retake[0] + 1, other(f["player"]))
        elif kind == "move":
            self._early_seen = None
            before = self.position
            if before is None:
                raise RecordFormatError("a move with no set being played")
            result = play(before, int(f["pit"]))
            if self._retake is not None and (result.set_over
                                             or (f.get("unseen") and f.get("pressed"))):
                # an unseen turn found or entered by the director; a set that ended leaves
                # none to find in it (its sweep is checked next, MG-4)
                left = 0 if result.set_over else self._retake[0] - 1
                self._retake = (left, self._retake[1]) if left > 0 else None
            self.position = result.position
            self._again = result.extra_turn and not f.get("pressed")
            self._flag = None
            self._said_cannot_read = False
            if result.set_over:
                self._final = result
                self.stage = "sweep"
                self._pending = False
            elif not result.extra_turn or f.get("pressed"):
                self._pending = False
                self.stage = "turn"
            else:
                self.stage = "turn"
        elif kind == "illegal_move":
            player: Side = "a" if f["player"] == "a" else "b"
            self._flag = (player, tuple(int(x) for x in f["seen"]))
            self._pending = False
            self._said_cannot_read = False
            self.stage = "correcting"
            if f.get("warning"):
                self.round = self.round.warn(player, str(f.get("reason", "")))
        elif kind == "cannot_read":
            self._said_cannot_read = True
            if f.get("about") == "turns_unseen" and self.position is not None:
                to_move = f.get("player")
                self._retake = (int(f.get("turns", 1)),
                                to_move if to_move in ("a", "b") else None)
                self._flag, self._pending, self.stage = None, False, "turn"
        elif kind == "position_taken":
            self.position = Position.from_obj(f["position"])
            self._retake = None
            self._flag, self._pending, self._again, self.stage = None, False, False, "turn"
        elif kind == "extra_turn":
            self._pending = False
            self._again = False
        elif kind == "flag_fell":
            self._due = "a" if f["player"] == "a" else "b"
            self._times = (0, self._times[1]) if self._due == "a" else (self._times[0], 0)
        elif kind == "game_end":
            ended = SetResult(
                number=int(f["set"]),
                starter="a" if f["starter"] == "a" else "b",
                a_store=int(f["stores"][0]),
                b_store=int(f["stores"][1]),
                winner=f["winner"],
                ended_by="MG-CLOCK-3" if f.get("ended_by") == "MG-CLOCK-3" else "MG-4",
                timed_out=f.get("timed_out"),
            )
            self.round = self.round.add_set(ended)
            self._retake = None  # the set ended (also meanwhile): nothing more to find
            self._due = None
            self.position = None
            self._final = None
            self._pending = False
            self._flag = None
        elif kind == "match_end":
            named = f.get("winner")
            if f.get("how") == "director" and not self.round.over and named in ("a", "b"):
                # the director's winner (round points 1 and 0, MG-T-1), the set left unscored
                self.round = self.round.end_by_director("a" if named == "a" else "b",
                                                        self.set_number or 1)
            self._over = True
            self.stage = "over"
            self.position = None
            self._retake = None  # the round ended: no turn is looked for any more
        elif kind == "director":
            args = dict(f.get("args") or {})
            if f.get("action") == "set_position":
                self.position = Position.from_obj(args["position"])
                self._flag = None
                self._pending = False
                self._again = False  # no sowing into the store waits for its press any more
                self.stage = "turn"
                self._retake = None
            elif f.get("action") == "warn":
                self.round = self.round.warn(
                    "a" if args.get("player") == "a" else "b", str(args.get("reason", "")))


__all__ = ["RefereeState", "Stage"]
