"""The Mangala referee: a pure state machine following one round at the table.

Events in (still frames, motion, clock presses, flag falls, director actions; time passed in
``t_ms``), commands out (journal entries first, then clock, LEDs, buzzer, snapshots and the
live log), as the backgammon referee does (``controller.referee.api``). Every decision is a
journal entry and the round's state is the fold of those entries, so :meth:`restore` rebuilds
the referee from a journal after a restart.

The rules it applies, with the decisions taken where the rules leave room:

- A round is up to 3 sets; 2 set points (win 1, draw 0.5) end it early; round points win 1,
  draw 0.5 (MG-T-1, seed rule e). Set 2 is started by the player who moved second in set 1,
  set 3 by the starter of set 1 (MG-T-2).
- Each set starts with 15 minutes per player, reset for every set (MG-CLOCK-1). The referee
  starts the starter's time once the set-up (4 stones in every pit, MG-EQ-1) is seen, or when
  a player presses to start it.
- A move is complete when the mover presses the clock (MG-CLOCK-2): the board seen in the still
  frames at the press is judged against the legal sowings of the position. Before the press a
  wrong sowing may be corrected, so nothing is flagged before it.
- The extra turn (MG-1): the turn has not passed, so the mover does NOT press after a sowing
  ending in their own store; they sow again and press once at the end of the turn (seed rule
  1: "oyuncu tekrar oynama hakkına sahip olur"; the press completes the move, seed rule j).
  A sowing ending in the store seen in still frames before the press is recorded then (a legal
  move may not be changed, MG-CLOCK-2); chains of sowings seen only at the press are followed
  too. If the mover presses after such a sowing anyway, the clock is given back to them.
- A player forgets to press and the opponent sows anyway: that sowing is not illegal
  (MG-CLOCK-2's last clause). Seen before the press, the referee says so once (``early_move``,
  no warning) and waits for the mover's press while the opponent takes it back; seen at the
  mover's press, the mover's sowing is recorded and the opponent's, made early, is theirs to
  take back or keep and press on their own time.
- An illegal sowing at the press: ``illegal_move`` with the rule and the reason, the LED, the
  buzzer, a snapshot and a warning; the clock goes back to the mover to correct the move and
  press again. The third warning of the round loses it (MG-T-4). The referee counts nothing
  for the players (MG-T-3 as the seed has it: only for the even-capture rule). A board that
  does not hold 48 stones is never an accusation: a stone that left the board is reported by
  the players and put back by the referee (MG-T-6 as seed rule g has it); the referee notes it.
- A director's ``set_position`` is journalled and written into the round record as a
  ``position`` line, so the record replays; one the record could not hold (not 48 stones,
  nobody to move, a side empty, no set being played) is refused. A director's ``end_match``
  (winner a or b) ends the round with round points 1 and 0 (MG-T-1), written into the round
  record as a ``director N end`` line; once the round is over it is refused.
- The set ends when a side is empty (MG-4): after the last sowing the players make the sweep;
  the referee checks the stores in view, that they hold all 48 stones, and journals
  ``game_end`` with ``stores: [a, b]``. A player whose time runs out loses the set unless their
  store holds 24 or more, a draw (MG-CLOCK-3). Only the mover's time runs (MG-CLOCK-2): a flag
  of the other player (a press awaiting its verdict, turns unseen) is journalled as
  ``flag_fell`` and their ``time_out`` waits for their turn, so the round record replays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from controller.clock.messages import Side as ClockSide
from controller.mangala.recognition import (
    Decision,
    Line,
    Settings,
    decide,
    score,
    usable,
    vision_board,
)
from controller.mangala.unseen import find
from controller.mangala.view import MangalaFrameSeen, MangalaView
from controller.records.journal import match_start_fields
from controller.referee.api import (
    Buzz,
    ClockCommand,
    ClockHoldPressed,
    ClockPressed,
    Command,
    DirectorAction,
    FlagFell,
    JournalEntry,
    MotionSeen,
    PressesUnseen,
    Say,
    SetSignal,
    Signal,
    TakeSnapshot,
    director_command,
    director_fields,
    lost_snapshot,
    press_fields,
)
from engine.errors import ConfigError, InvalidInputError, RecordFormatError
from engine.mangala.position import STONES, Position, Side, other
from engine.mangala.scoring import CLOCK_SECONDS_PER_SET, Round, SetResult, set_result, time_out
from engine.mangala.sowing import MoveResult, explain, play, stones

MangalaEvent = (
    MangalaFrameSeen | MotionSeen | ClockPressed | ClockHoldPressed | PressesUnseen | FlagFell
    | DirectorAction
)
Stage = Literal["setup", "turn", "correcting", "sweep", "over"]


@dataclass(frozen=True)
class MangalaConfig:
    """One table's round: the players (a sits at the bottom of the picture), who starts set 1
    (MG-T-2: by draw or the pairing program), which clock side is a's, the set time and how
    long to wait for a readable frame."""

    players: tuple[str, str] = ("a", "b")
    first_starter: Side = "a"
    clock_a: ClockSide = "left"
    set_ms: int = CLOCK_SECONDS_PER_SET * 1000
    cannot_read_ms: int = 8_000
    sweep_wait_ms: int = 30_000
    settings: Settings = field(default_factory=Settings)

    def __post_init__(self) -> None:
        if self.first_starter not in ("a", "b"):
            raise ConfigError(f"first_starter must be a or b, not {self.first_starter!r}")
        if self.clock_a not in ("left", "right"):
            raise ConfigError(f"clock_a must be left or right, not {self.clock_a!r}")
        if self.set_ms <= 0:
            raise ConfigError(f"set_ms must be positive, not {self.set_ms!r}")

    def to_json(self) -> dict[str, Any]:
        """The settings journalled in ``match_start`` (what a restart needs)."""
        return {
            "players": list(self.players),
            "first_starter": self.first_starter,
            "clock_a": self.clock_a,
            "set_ms": self.set_ms,
            "cannot_read_ms": self.cannot_read_ms,
            "sweep_wait_ms": self.sweep_wait_ms,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> MangalaConfig:
        """The settings from a ``match_start`` entry."""
        try:
            players = obj.get("players", ["a", "b"])
            return cls(
                players=(str(players[0]), str(players[1])),
                first_starter=obj.get("first_starter", "a"),
                clock_a=obj.get("clock_a", "left"),
                set_ms=int(obj.get("set_ms", CLOCK_SECONDS_PER_SET * 1000)),
                cannot_read_ms=int(obj.get("cannot_read_ms", 8_000)),
                sweep_wait_ms=int(obj.get("sweep_wait_ms", 30_000)),
            )
        except (TypeError, ValueError, IndexError) as exc:
            raise RecordFormatError(f"mangala match_start settings are malformed: {exc}") from None


class MangalaReferee:
    """Follows one round: ``handle(event)`` returns the commands to carry out, in order."""

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

    # --- public -----------------------------------------------------------------------------

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

    def begin(self) -> list[Command]:
        """Journal the round's start (done by the first :meth:`handle` if not called)."""
        self._out = []
        if not self._started:
            self._begin()
        self._lights()
        return self._out

    def handle(self, event: MangalaEvent) -> list[Command]:
        """One event in, the commands to carry out in order (journal entries first)."""
        self._out = []
        if not self._started:
            self._begin()
        if isinstance(event, MangalaFrameSeen):
            if not event.view.occluded:
                self._still = [*self._still[-7:], event.view]
        elif isinstance(event, MotionSeen):
            self._still = []
        elif isinstance(event, ClockPressed):
            self._press(event)
        elif isinstance(event, ClockHoldPressed):
            self._emit("clock", button="hold", times_ms=list(event.times_ms), means="hold",
                       **press_fields(event))
        elif isinstance(event, PressesUnseen):
            self._unseen(event)
        elif isinstance(event, FlagFell):
            self._flag_fell(event)
        elif isinstance(event, DirectorAction):
            self._director(event)
        else:  # pragma: no cover - the event union is closed
            raise InvalidInputError(f"unknown referee event {event!r}")
        for _ in range(8):
            if not self._step(event.t_ms):
                break
        self._lights()
        return self._out

    def restore(self, entries: Sequence[dict[str, Any]], *, restore_clock: bool = True
                ) -> list[Command]:
        """Fold a journal's entries; return what brings the table back (clock, LEDs).
        ``restore_clock``: with :meth:`clock_restore`, for a clock that lost its state with
        the host (a table whose clock may have kept it asks for it once it answers)."""
        if not entries or entries[0].get("type") != "match_start":
            raise RecordFormatError("a mangala journal starts with match_start")
        for entry in entries:
            fields = {k: v for k, v in entry.items() if k not in ("seq", "time", "type")}
            try:
                self._fold(str(entry["type"]), fields)
            except (KeyError, TypeError, ValueError) as exc:
                raise RecordFormatError(
                    f"journal entry {entry.get('seq')} ({entry.get('type')}) cannot be "
                    f"replayed: {exc}") from None
        self._out = []
        self._complete(entries[-1])
        if restore_clock:
            self._out.extend(self.clock_restore())
        self._signals = set()
        self._lights()
        self._out.extend(lost_snapshot(entries))
        if not self._over:  # a finished round is said to be over by the table or the demo
            self._say(f"Resumed the round: {self._score_text()}")
        return self._out

    def clock_restore(self) -> list[Command]:
        """What puts a clock that lost its state (power) where the journal leaves it: the
        countdown (MG-CLOCK-1), both times and whose time runs; :meth:`restore` gives it, and a
        restarted table whose clock answers only later asks for it then."""
        out: list[Command] = [
            ClockCommand("configure_countdown", args={"total_ms": self.config.set_ms})]
        if not self._over and self.stage != "setup":
            left, right = self._lr(self._times)
            out.append(ClockCommand("set_times", args={"left_ms": left, "right_ms": right}))
            runs = self.clock_runs
            if runs is not None:
                out.append(ClockCommand("start", runs))
        return out

    @property
    def clock_runs(self) -> ClockSide | None:
        """The clock side whose time the journal leaves running: the mover's, or after a press
        awaiting its verdict the opponent's (a verdict giving the turn back starts the
        mover's); None outside a set's play or with a flag down (the clock stops at it)."""
        mover = self.mover
        if self._over or mover is None or self.stage not in ("turn", "correcting") \
                or self._due is not None:
            return None
        if self._retake is not None:  # after unseen turns: the clock's side, if known
            return self.side_of(self._retake[1]) if self._retake[1] is not None else None
        return self.side_of(other(mover) if self._pending else mover)

    @property
    def clock_settings(self) -> tuple[str, int, int] | None:
        """What the clock reports of its set-up once configured for the round (its ``HI``:
        mode, delay, start time): the set's countdown (MG-CLOCK-1)."""
        return ("countdown", 0, self.config.set_ms)

    @property
    def clock_reset(self) -> list[Command]:
        """What a clock that kept its state through a restart still needs: with a set
        journalled but not started (its set-up), the set's countdown (MG-CLOCK-1), which the
        table may have gone down before sending (after a time-out the clock stands flagged)."""
        if self._over or self.stage != "setup" or self.position is None:
            return []
        return [ClockCommand("configure_countdown", args={"total_ms": self.config.set_ms})]

    @property
    def clock_on_hold(self) -> bool:
        """Whether the journal leaves the clock on hold: the round over, or a set not yet
        started by its first press."""
        return self._over or self.stage == "setup"

    def _complete(self, last: dict[str, Any]) -> None:
        """Journal what the journal's ``last`` entry decided but a table going down just after
        it did not write: the set's end after a time-out, the first set after the round's start,
        the next set or the round's end after a set's end or a third warning, a director's
        accepted sowing or ending."""
        if self._over:
            return
        kind = last.get("type")
        if kind == "time_out" and self.position is not None and self.stage != "sweep":
            player: Side = "a" if last.get("player") == "a" else "b"
            self._set_end(time_out(self.position, player, self.set_number,
                                   self.round.starter(self.set_number)), checked=None, seen=None)
        elif self._due is not None and self._time_out_now(self._due):
            self._time_out(self._due)  # the flagged player's turn came (MG-CLOCK-2)
        elif self.round.over:
            self._round_end("played" if kind == "game_end" else "warnings")
        elif kind in ("game_end", "match_start"):
            self._set_start()  # the next set, or the first: the round's start is journalled
        elif kind == "director" and last.get("action") in ("accept", "end_match"):
            self._director_follow(str(last["action"]), dict(last.get("args") or {}))
            if not self._over and self._due is not None and self._time_out_now(self._due):
                self._time_out(self._due)  # the accepted sowing gave the flagged player the turn

    # --- journal and fold -------------------------------------------------------------------

    def _emit(self, kind: str, /, **fields: Any) -> None:
        self._out.append(JournalEntry(kind, fields))
        self._fold(kind, fields)

    def _do(self, command: Command) -> None:
        self._out.append(command)

    def _say(self, text: str) -> None:
        self._out.append(Say(text))

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
            if f.get("unseen") and f.get("pressed") and self._retake is not None:
                left = self._retake[0] - 1
                self._retake = (left, self._retake[1]) if left > 0 else None
            result = play(before, int(f["pit"]))
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
            self._flag, self._pending, self.stage = None, False, "turn"
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
        elif kind == "director":
            args = dict(f.get("args") or {})
            if f.get("action") == "set_position":
                self.position = Position.from_obj(args["position"])
                self._flag = None
                self._pending = False
                self.stage = "turn"
                self._retake = None
            elif f.get("action") == "warn":
                self.round = self.round.warn(
                    "a" if args.get("player") == "a" else "b", str(args.get("reason", "")))

    # --- the round and its sets -------------------------------------------------------------

    def _begin(self) -> None:
        cfg = self.config
        self._emit("match_start", game="mangala", **cfg.to_json())
        self._do(ClockCommand("configure_countdown", args={"total_ms": cfg.set_ms}))
        self._signal("system_ok", True)
        self._say(f"Mangala round: {self.name('a')} (a, bottom) against {self.name('b')} "
                  f"(b, top); up to 3 sets, 2 set points win (MG-T-1)")
        self._set_start()

    def _set_start(self) -> None:
        number = self.round.current_set
        if number is None:
            return
        starter = self.round.starter(number)
        self._emit("game_start", set=number, starter=starter, clock_ms=self.config.set_ms)
        # MG-CLOCK-1: both times back to the set's full time, on hold until the set starts
        self._do(ClockCommand("configure_countdown", args={"total_ms": self.config.set_ms}))
        minutes = self.config.set_ms / 60000
        self._say(f"Set {number}: {self.name(starter)} ({starter}) starts (MG-T-2); "
                  f"{minutes:g} minutes each on the clock (MG-CLOCK-1); 4 stones in every pit")

    def _set_end(self, result: SetResult, *, checked: bool | None,
                 seen: tuple[int, int] | None) -> None:
        self._emit(
            "game_end",
            set=result.number,
            starter=result.starter,
            stores=[result.a_store, result.b_store],
            winner=result.winner,
            ended_by=result.ended_by,
            timed_out=result.timed_out,
            stores_total=result.a_store + result.b_store,
            stores_checked=checked,
            stores_seen=list(seen) if seen is not None else None,
            points={"a": self.round.set_points("a") + result.points("a"),
                    "b": self.round.set_points("b") + result.points("b")},
        )
        self._do(ClockCommand("hold"))
        outcome = ("drawn" if result.winner == "draw"
                   else f"won by {self.name(result.winner)} ({result.winner})")
        self._say(f"Set {result.number} {outcome} {result.a_store}-{result.b_store} "
                  f"({result.ended_by}); {self._score_text()}")
        if self.round.over:
            self._round_end("played")
        else:
            self._set_start()

    def _round_end(self, how: str) -> None:
        winner = self.round.winner
        points = self.round.round_points() if self.round.over else {"a": 0.0, "b": 0.0}
        self._emit("match_end", winner=winner, points=points, how=how,
                   sets=[s.to_obj() for s in self.round.sets])
        self._do(ClockCommand("hold"))
        who = "drawn" if winner == "draw" else f"won by {self.name(winner or 'a')} ({winner})"
        self._say(f"Round {who}: points a {points['a']:g}, b {points['b']:g} (MG-T-1)")

    def _score_text(self) -> str:
        r = self.round
        return (f"sets a {r.set_points('a'):g} - b {r.set_points('b'):g}, "
                f"warnings a {r.warning_count('a')} b {r.warning_count('b')}")

    # --- the clock --------------------------------------------------------------------------

    def _lr(self, ab: tuple[int, int]) -> tuple[int, int]:
        return ab if self.config.clock_a == "left" else (ab[1], ab[0])

    def _ab(self, lr: tuple[int, int]) -> tuple[int, int]:
        return lr if self.config.clock_a == "left" else (lr[1], lr[0])

    def _start(self, player: Side) -> str:
        """Start ``player``'s time, unless a flag waits for its turn: the clock stands flagged
        and starts nothing until the set's end resets it (MG-CLOCK-1), so play goes on
        untimed up to the flagged player's turn. Returns what the live log says of it."""
        if self._due is not None:
            return f"the clock stands at {self.name(self._due)}'s flag"
        self._do(ClockCommand("start", self.side_of(player)))
        return f"the clock goes back to {self.name(player)}"

    def _press(self, ev: ClockPressed) -> None:
        player = self.player_of(ev.side)
        common = {"button": ev.side, "player": player, "times_ms": list(ev.times_ms),
                  **press_fields(ev)}
        if self._retake is not None and self.stage in ("turn", "correcting"):
            self._emit("clock", **common, means="unseen")
            self._say(f"{self.name(player)} pressed before the board could be read whole: that "
                      "turn is not seen either (MG-CLOCK-2)")
            return
        if self.stage == "setup" and self.position is not None:
            starter = self.position.to_move
            assert starter is not None
            self._emit("clock", **common, means="start")
            if player == starter:  # the clock started the wrong time: the starter moves first
                self._do(ClockCommand("start", self.side_of(starter)))
            self._say(f"{self.name(starter)}'s clock runs: set {self.set_number} begins")
            return
        mover = self.mover
        if self.stage in ("turn", "correcting") and player == mover:
            self._emit("clock", **common, means="move")
            self._press_t = ev.t_ms
            return
        self._emit("clock", **common, means="ignored")
        if mover is not None and self.stage in ("turn", "correcting"):
            self._say(f"{self.name(player)} pressed, but it is {self.name(mover)}'s turn "
                      f"(MG-CLOCK-2)")

    def _flag_fell(self, ev: FlagFell) -> None:
        """A flag fell: the set ends on the mover's time-out (MG-CLOCK-3). Only the mover's
        time runs (MG-CLOCK-2), so a flag of the other player (their time ran after a press
        whose verdict is not in, or after turns nobody saw) waits for their turn."""
        player = self.player_of(ev.side)
        position = self.position
        if position is None or self.stage == "over" or self.stage == "sweep" \
                or self._due == player:
            return
        if self._time_out_now(player):
            self._time_out(player)
            return
        mover = position.to_move
        self._emit("flag_fell", set=self.set_number, player=player, mover=mover,
                   rule="MG-CLOCK-2", reason=f"{player}'s flag fell before it was {player}'s "
                   "turn by the referee: the time-out is recorded when it is")
        self._do(Buzz("flag"))
        self._say(f"{self.name(player)}'s time ran out before the referee gave "
                  f"{self.name(player)} the turn: the time-out stands once "
                  f"{self.name(mover or other(player))}'s turn is settled (MG-CLOCK-2)")

    def _time_out_now(self, player: Side) -> bool:
        """Whether ``player``'s time-out can be recorded now: it is their turn, with no press
        awaiting its verdict and no turns unseen (MG-CLOCK-2)."""
        return (self.position is not None and self.position.to_move == player
                and not self._pending and self._retake is None
                and self.stage in ("setup", "turn", "correcting"))

    def _time_out(self, player: Side) -> None:
        """``player``'s time ran out on their turn: their store decides the set (MG-CLOCK-3)."""
        position = self.position
        assert position is not None
        self._emit("time_out", set=self.set_number, player=player,
                   stores=[position.a_store, position.b_store])
        self._do(Buzz("flag"))
        result = time_out(position, player, self.set_number,
                          self.round.starter(self.set_number))
        own = position.store(player)
        verdict = "a drawn set" if result.winner == "draw" else "the set is lost"
        self._say(f"{self.name(player)}'s time ran out: {stones(own)} in the store, "
                  f"{'24 or more' if own >= STONES // 2 else 'fewer than 24'}: {verdict} "
                  f"(MG-CLOCK-3)")
        self._set_end(result, checked=None, seen=None)

    # --- frames and verdicts ----------------------------------------------------------------

    def _step(self, t_ms: int) -> bool:
        """Decide what the frames and the press allow now; True when something was decided."""
        if self._over or self.position is None:
            return False
        if self._due is not None and self._time_out_now(self._due):
            self._time_out(self._due)
            return True
        if self._retake is not None:
            return self._find_unseen()
        if self.stage == "setup":
            return self._setup_check()
        if self.stage == "sweep":
            return self._sweep_check(t_ms)
        if not self._still:
            if self._pending:
                self._maybe_cannot_read(t_ms, "no still frame of the board since the press")
            return False
        decision = decide(self._still, self.position, self.config.settings)
        if decision.kind == "early":
            return self._early(decision)
        if self._pending:
            if decision.kind == "legal":
                self._accept(decision, pressed=True)
                return True
            if decision.kind == "illegal" and self._again and self.position is not None \
                    and decision.seen == self.position.board():
                self._extra_turn_press()
                return True
            if decision.kind == "illegal":
                self._illegal(decision)
                return True
            self._maybe_cannot_read(t_ms, decision.reason)
            return False
        if (decision.kind == "legal" and decision.line is not None
                and len(usable(self._still, self.config.settings)) >= 2
                and all(r.extra_turn for r in decision.line.results)):
            self._accept(decision, pressed=False)
            return True
        return False

    def _setup_check(self) -> bool:
        position = self.position
        assert position is not None
        frames = usable(self._still, self.config.settings)
        if len(frames) < 2:
            return False
        initial = score(frames, position.board())
        raw, fixed = vision_board(frames)
        top = max(s for s in (score(frames, raw), score(frames, fixed), initial)
                  if s is not None) if initial is not None else None
        if initial is None or top is None:
            return False
        if (top - initial) / len(frames) > self.config.settings.accept_gap:
            return False
        starter = position.to_move
        assert starter is not None
        self._emit("clock", button=None, player=starter, times_ms=list(self._lr(self._times)),
                   means="start")
        self._do(ClockCommand("start", self.side_of(starter)))
        self._say(f"The board is set up; {self.name(starter)}'s clock runs "
                  f"(set {self.set_number})")
        return True

    def _accept(self, decision: Decision, *, pressed: bool,
                marks: dict[str, Any] | None = None) -> None:
        line = decision.line
        assert line is not None
        corrected = self._flag is not None
        if corrected:
            self._signal("illegal_move", False)
        self._signal("cannot_read", False)
        mover = line.results[0].mover
        for k, result in enumerate(line.results):
            last = k == len(line.results) - 1
            self._emit(
                "move",
                set=self.set_number,
                player=result.mover,
                pit=result.pit,
                position=result.position.to_obj(),
                board=list(result.position.board()),
                captured=result.captured,
                capture_rule=result.capture_rule,
                extra_turn=result.extra_turn,
                set_over=result.set_over,
                swept=result.swept,
                pressed=pressed and last,
                corrected=corrected,
                fit=round(decision.gap, 2),
                note=decision.reason or None,
                **(marks or {}),
            )
            stores = f" [stores a {result.position.a_store}, b {result.position.b_store}]"
            self._say(f"{self.name(result.mover)} ({result.mover}): {explain(result)}"
                      + (" (corrected)" if corrected else "") + stores)
        if "MG-T-6" in decision.reason:
            self._say(f"Note: {decision.reason}")
        last_result = line.last
        if last_result.set_over:
            self._sweep_t = None
            self._do(ClockCommand("hold"))
            return
        if last_result.extra_turn and pressed:
            # the press gave the time away, but the turn has not passed (MG-1)
            self._say(f"{self.name(mover)} moves again: {self._start(mover)} (MG-1)")

    def _unseen(self, ev: PressesUnseen) -> None:
        """Presses made while the table could not see (MG-CLOCK-2): each journalled as unseen;
        the turns they ended are found again from the board (:meth:`_find_unseen`), and the
        director is called to check."""
        self._still = []  # what was seen before is not the board now
        # in the set-up the first press started the set (the players' own start)
        start = self.stage == "setup" and self.position is not None
        turns = 0
        for press in ev.presses:
            if isinstance(press, ClockPressed):
                means = "start" if start else "unseen"
                turns += not start
                start = False
                self._emit("clock", button=press.side, player=self.player_of(press.side),
                           times_ms=list(press.times_ms), means=means, **press_fields(press))
            else:
                self._emit("clock", button="hold", times_ms=list(press.times_ms),
                           means="unseen", **press_fields(press))
        for boot, number in ev.lost:
            turns += not start
            self._emit("clock", means="start" if start else "unseen", press=[boot, number])
            start = False
        if self.position is None or self.stage not in ("turn", "correcting") or turns == 0:
            return
        to_move = self.player_of(ev.running) if ev.running is not None else None
        self._emit("cannot_read", set=self.set_number, player=to_move, rule="MG-CLOCK-2",
                   about="turns_unseen", turns=turns,
                   reason=f"{turns} clock presses were made while the table could not see the"
                   " board: the sowings are found again from the board, or the director sets"
                   " the position")
        self._signal("cannot_read", True)
        self._do(TakeSnapshot(f"unseen-set{self.set_number}.jpg"))
        whose = f"; {self.name(to_move)} is to move" if to_move is not None else ""
        self._say(f"{turns} presses were made while the table could not see the board{whose}:"
                  " the sowings are looked for on the board; call the director to check them"
                  " (MG-CLOCK-2)")

    def _find_unseen(self) -> bool:
        """The unseen turns from the still frames (``controller.mangala.unseen``): their
        sowings when one way explains the board, else the board itself as the position."""
        assert self._retake is not None and self.position is not None
        turns, to_move = self._retake
        found = find(self._still, self.position, turns, to_move, self.config.settings)
        if found is None:
            return False
        if found.turns is not None:
            marks: dict[str, Any] = {"unseen": True}
            if found.ways > 1:
                marks["guessed"] = True
            for line in found.turns:
                self._accept(Decision("legal", line, (line,), gap=found.gap), pressed=True,
                             marks=marks)
            if found.ways > 1:
                self._say(f"The set ended while the table could not see it: the stores stand; "
                          f"the sowings above are one of the {found.ways} ways to them "
                          "(MG-4, MG-CLOCK-2)")
            else:
                what = "turn" if turns == 1 else f"{turns} turns"
                self._say(f"The unseen {what} found on the board: the sowings above "
                          "(MG-CLOCK-2)")
            return True
        assert found.position is not None
        self._emit("position_taken", set=self.set_number, position=found.position.to_obj(),
                   player=found.position.to_move, rule="MG-CLOCK-2", fit=round(found.gap, 2))
        self._signal("cannot_read", False)
        self._say(f"Position taken as the board shows it (which pits were sown cannot be told): "
                  f"{found.position.describe()}")
        return True

    def _early(self, decision: Decision) -> bool:
        """The opponent sowed before the mover pressed (MG-CLOCK-2): not illegal. Before the
        press the referee says so once and waits; at the press the mover's sowing is recorded
        and the opponent's, made before it, is theirs to take back and play on their time."""
        then, line = decision.then, decision.line
        assert then is not None and line is not None
        mover, opponent = line.results[0].mover, then.results[0].mover
        pressed = self._pending
        if not pressed and self._early_seen == then.board:
            return False
        self._early_seen = then.board
        if pressed:
            self._accept(Decision("legal", line, decision.lines, gap=decision.gap), pressed=True)
        self._emit("early_move", set=self.set_number, player=opponent, mover=mover,
                   pits=list(then.pits), mover_pits=list(line.pits), rule="MG-CLOCK-2",
                   reason=decision.reason, mover_pressed=pressed)
        if pressed:
            self._say(f"{self.name(opponent)} sowed pit {then.pits[0]} before "
                      f"{self.name(mover)} pressed: not illegal (MG-CLOCK-2); "
                      f"{self.name(opponent)} takes it back and plays on their own time")
        else:
            self._say(f"{self.name(mover)} has not pressed the clock and {self.name(opponent)} "
                      f"sowed pit {then.pits[0]}: not illegal; {self.name(opponent)} takes it "
                      f"back and waits for {self.name(mover)}'s press (MG-CLOCK-2)")
        return pressed

    def _extra_turn_press(self) -> None:
        """The mover pressed after a sowing into their own store (already recorded): the turn
        has not passed, the clock goes back to them (MG-1)."""
        mover = self.mover
        assert mover is not None
        self._emit("extra_turn", set=self.set_number, player=mover, rule="MG-1")
        self._say(f"{self.name(mover)} moves again (the last stone fell into the store): "
                  f"{self._start(mover)} (MG-1)")

    def _illegal(self, decision: Decision) -> None:
        mover = self.mover
        assert mover is not None and decision.seen is not None
        repeated = self._flag is not None and self._flag[1] == decision.seen
        warnings = self.round.warning_count(mover) + (0 if repeated else 1)
        self._emit(
            "illegal_move",
            set=self.set_number,
            player=mover,
            rule=decision.rule or "MG-1",
            reason=decision.reason,
            seen=list(decision.seen),
            closest_pits=[line.pits[0] for line in decision.lines][:1],
            warning=not repeated,
            warnings=warnings,
            snapshot=f"illegal-set{self.set_number}-{mover}-{warnings}.jpg",
        )
        self._signal("illegal_move", True)
        self._do(Buzz("illegal"))
        self._do(TakeSnapshot(f"illegal-set{self.set_number}-{mover}-{warnings}.jpg"))
        rule = decision.rule or "MG-1"
        why = decision.reason if rule in decision.reason else f"{decision.reason} ({rule})"
        if self.round.over:
            self._say(f"ILLEGAL sowing by {self.name(mover)}: {why} "
                      f"Third warning: the round is lost (MG-T-4)")
            self._round_end("warnings")
            return
        self._start(mover)  # the correction on the mover's time (MG-CLOCK-2)
        note = ("the same board again: no new warning" if repeated
                else f"warning {warnings} of 3 (MG-T-4)")
        self._say(f"ILLEGAL sowing by {self.name(mover)}: {why} "
                  f"{note[0].upper()}{note[1:]}; correct the sowing and press again (MG-CLOCK-2)")

    def _maybe_cannot_read(self, t_ms: int, why: str) -> None:
        if self._said_cannot_read or t_ms - self._press_t < self.config.cannot_read_ms:
            return
        mover = self.mover
        self._emit("cannot_read", set=self.set_number, player=mover, rule="MG-CLOCK-2",
                   reason=f"the referee cannot read the sowing yet: {why}")
        self._signal("cannot_read", True)
        self._do(Buzz("cannot_read"))
        self._do(TakeSnapshot(f"cannot-read-set{self.set_number}.jpg"))
        self._say(f"Cannot read the board after {self.name(mover or 'a')}'s press: {why}; "
                  f"waiting (keep hands off the board)")

    def _sweep_check(self, t_ms: int) -> bool:
        final = self._final
        assert final is not None
        if self._sweep_t is None:
            self._sweep_t = t_ms
        frames = usable(self._still, self.config.settings)
        result = set_result(final.position, self.set_number,
                            self.round.starter(self.set_number))
        board = final.position.board()
        if len(frames) >= 2:
            # the sweep is made (the swept board beats the one before it) and the stores in
            # view agree with the recorded sowings, within what big piles allow (MG-4)
            expected = score(frames, board)
            before = score(frames, final.sown.board()) if final.swept else None
            raw, fixed = vision_board(frames)
            tops = [s for s in (score(frames, raw), score(frames, fixed)) if s is not None]
            if expected is not None and tops and (before is None or expected > before):
                gap = (max([*tops, expected]) - expected) / len(frames)
                if gap <= self.config.settings.sweep_gap:
                    self._set_end(result, checked=True, seen=(raw[6], raw[13]))
                    return True
        if t_ms - self._sweep_t >= self.config.sweep_wait_ms:
            self._say("The stores could not be checked in view; the set is scored from the "
                      "recorded sowings (MG-4)")
            self._set_end(result, checked=False, seen=None)
            return True
        return False

    # --- the director -----------------------------------------------------------------------

    def _director(self, ev: DirectorAction) -> None:
        action, args = ev.action, dict(ev.args)
        if action == "set_position":
            if "position" not in args and "position_id" in args:
                raise InvalidInputError(
                    f"a mangala position is a JSON object of pits, stores and who moves, not "
                    f"the backgammon Position ID {args['position_id']!r}")
            self._check_set_position(args.get("position"))  # before anything is journalled
            self._emit("director", **director_fields(ev, args))
            self._signal("illegal_move", False)
            self._say(f"Director {ev.director}: the position is set to "
                      f"{Position.from_obj(args['position']).describe()}")
            mover = self.mover
            if mover is not None:
                self._start(mover)  # a flag that fell waits for its player's turn
        elif action == "accept":
            position = self.position
            pit = args.get("pit")
            if position is None:
                raise InvalidInputError("no set is being played: there is no sowing to accept")
            if pit is None:  # a backgammon accept, sent to a Mangala table
                raise InvalidInputError("a mangala accept names the pit that was sown: hakem "
                                        "director accept PIT (1..6)")
            if isinstance(pit, bool) or not isinstance(pit, int):
                raise InvalidInputError(f"the pit to accept is 1..6, not {pit!r}")
            play(position, pit)  # a pit that cannot be sown is refused before the journal
            self._emit("director", **director_fields(ev, args))
            self._director_follow(action, args)
        elif action == "warn":
            player = args.get("player")
            if self.round.over:
                raise InvalidInputError("the round is already over: no warning can be given "
                                        "(MG-T-4)")
            if player not in ("a", "b"):
                raise InvalidInputError(f"a warning is given to player a or b, not {player!r}")
            self._emit("director", **director_fields(ev, args))
            reason = str(args.get("reason") or "").strip()
            self._say(f"Director {ev.director}: warning to {self.name(player)}"
                      f"{f' ({reason})' if reason else ''} (MG-T-4)")
            if self.round.over:
                self._round_end("warnings")
        elif action == "end_match":
            winner = args.get("winner")
            if winner not in ("a", "b"):
                raise InvalidInputError(f"a mangala match's winner is a or b, not {winner!r}")
            if self._over:
                raise InvalidInputError("the round is already over: there is no match to end")
            self._emit("director", **director_fields(ev, args))
            self._director_follow(action, args)
            reason = str(args.get("reason") or args.get("note") or "").strip()
            self._say(f"Director {ev.director} ends the round: {self.name(winner)} ({winner}) "
                      f"wins{f' ({reason})' if reason else ''}")
        elif action == "note":
            self._emit("director", **director_fields(ev, args))
        else:
            raise InvalidInputError(f"{director_command(action)} is not an action at a "
                                    f"mangala table")

    def _director_follow(self, action: str, args: dict[str, Any]) -> None:
        """What a director's accepted sowing or ending (journalled just before) decides."""
        if action == "accept" and self.position is not None:
            pit = int(args["pit"])
            result = play(self.position, pit)
            line = Line((pit,), (result,), result.position.board())
            self._accept(Decision("legal", line, (line,), gap=0.0), pressed=True)
        elif action == "end_match":
            winner = args.get("winner")
            # round points as for any won round (MG-T-1): the round record gives the same
            self._emit("match_end", winner=winner,
                       points={"a": float(winner == "a"), "b": float(winner == "b")},
                       how="director", sets=[s.to_obj() for s in self.round.sets])
            self._do(ClockCommand("hold"))

    def _check_set_position(self, obj: Any) -> None:
        """Refuse a director's position the round record could not replay: outside a set being
        played, without 48 stones (MG-EQ-1), with nobody to move or a side already empty."""
        if self.position is None or self.stage in ("sweep", "over"):
            raise InvalidInputError("the position can be set only while a set is being "
                                    f"played, not at stage {self.stage}")
        position = Position.from_obj(obj)
        position.check_stones()
        if position.to_move is None:
            raise InvalidInputError("the position set needs to_move a or b: who moves next")
        if position.set_over:
            raise InvalidInputError(
                f"the position {position.describe()} has a side with no stones: the set would "
                f"be over (MG-4)")

    # --- lights -----------------------------------------------------------------------------

    def _signal(self, signal: Signal, on: bool) -> None:
        if on == (signal in self._signals):
            return
        if on:
            self._signals.add(signal)
        else:
            self._signals.discard(signal)
        self._out.append(SetSignal(signal, on))

    def _lights(self) -> None:
        mover = self.mover if self.stage in ("turn", "correcting") else None
        if self._retake is not None and self._retake[1] is not None:
            mover = self._retake[1]  # after unseen turns: the player whose time runs
        left = mover is not None and self.side_of(mover) == "left"
        right = mover is not None and self.side_of(mover) == "right"
        self._signal("turn_left", left)
        self._signal("turn_right", right)
        self._signal("illegal_move", self._flag is not None)
        if self._retake is not None:
            self._signal("cannot_read", True)  # the director is called until they are found
        elif not self._pending and "cannot_read" in self._signals:
            self._signal("cannot_read", False)


def start_referee(config: MangalaConfig, entries: Sequence[dict[str, Any]], *,
                  restore_clock: bool = True) -> tuple[MangalaReferee, list[Command]]:
    """A referee for a new round (no entries) or one resumed from a journal's entries, and the
    commands to carry out before anything else (``restore_clock`` as in
    :meth:`MangalaReferee.restore`)."""
    if not entries:
        referee = MangalaReferee(config)
        return referee, referee.begin()
    fields = match_start_fields(entries, "mangala")
    referee = MangalaReferee(MangalaConfig.from_json(fields))
    return referee, referee.restore(entries, restore_clock=restore_clock)


__all__ = ["MangalaConfig", "MangalaEvent", "MangalaReferee", "Stage", "start_referee"]
