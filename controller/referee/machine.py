"""The referee: a pure state machine that follows a backgammon match at the table.

Events in (frames, clock presses, flag falls, director actions), commands out (journal entries
first, then clock, LED, buzzer, snapshot and log commands). Every decision is a journal entry,
and the referee's match state is the fold of those entries (:meth:`Referee._fold`), so a journal
rebuilds the referee exactly (``controller.referee.resume``). What only frames carry (the last
picture, the dice lying on the board) is not journalled; the next frames supply it again. The
places where the dice reader sees a die that nobody threw (phantoms) are journalled with the
throws they lay beside and the presses they were seen before, so a restart knows them too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from controller.referee.api import (
    BoardView,
    Buzz,
    ClockCommand,
    ClockHoldPressed,
    ClockPressed,
    Command,
    CubeSeen,
    DieSeen,
    DirectorAction,
    Event,
    FlagFell,
    FrameSeen,
    MotionSeen,
    PressesUnseen,
    RefereeProtocol,
    Side,
    TakeSnapshot,
    director_command,
    director_fields,
    director_refusal,
    lost_snapshot,
    press_fields,
)
from controller.referee.clock_run import ClockRun
from controller.referee.config import RecognitionSettings, RefereeConfig
from controller.referee.dice_places import (
    Sig,
    all_lie,
    die_sig,
    in_place,
    less,
    sig_json,
    sig_of_json,
    signature,
    unmatched,
)
from controller.referee.outputs import Outputs
from controller.referee.phantoms import Phantoms
from controller.referee.recognition import (
    StillViews,
    contradicted,
    hypothesis,
    position_of_counts,
    recognise,
)
from controller.referee.unseen import (
    FOLLOWED,
    after_gap,
    cube_fields,
    on_roll_after,
    plausible,
    taken,
)
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
    may_double,
    new_match,
    result_words,
)
from engine.backgammon.moves import closed_out, result_boards
from engine.backgammon.notation import format_steps
from engine.backgammon.position import CHECKERS, Position
from engine.backgammon.scoring import WinKind
from engine.errors import HakemError, InvalidInputError

SETUP_MOVES = 5  # BG-EQ-4: a set-up error is corrected only before the 5th move


def diff_text(before: Position, after: Position) -> str:
    """A move text for a result that is no legal play (it stands under TTB-4.8): the mover's
    checkers that left each point paired with where checkers arrived, highest first."""
    b, a = before.board, after.board
    sources: list[int] = []
    dests: list[int] = []
    for point in range(25, 0, -1):
        mine_b, mine_a = max(b[point], 0), max(a[point], 0)
        sources.extend([point] * max(0, mine_b - mine_a))
        dests.extend([point] * max(0, mine_a - mine_b))
    off = after.my_off - before.my_off
    dests.extend([0] * max(0, off))
    parts = []
    for src, dst in zip(sources, dests, strict=False):
        parts.append(f"{'bar' if src == 25 else src}/{'off' if dst == 0 else dst}")
    return " ".join(parts)


class Referee(Outputs):
    """Follows one match: ``handle(event)`` returns the commands to carry out, in order.

    The first call journals ``match_start`` and ``game_start``. Pure: no I/O, no clock, no
    randomness; the same events give the same commands.
    """

    def __init__(self, config: RefereeConfig) -> None:
        self.config = config
        self.match: MatchState = new_match(config.length, config.rules)
        self._out: list[Command] = []
        self._started = False
        # journalled state (rebuilt by _fold)
        self._flag: tuple[Position, str, str] | None = None  # seen position, rule, reason
        self._undo: MatchState | None = None
        self._throw_again = False
        self._pending: str | None = None
        self._times: tuple[int, int] = (0, 0)
        self._times_known = False  # a clock entry journalled both times (0 for a delay-only match)
        self._clock_run = ClockRun()  # whose time runs on the clock, for a restart
        self._ended_game = 0
        self._started_game = 0
        self._over = False
        self._timed_out: int | None = None
        self._flags = 0
        self._stale: Sig = ()
        self._thrown: Sig = ()  # the dice of the last throw judged (its own dice, of _stale)
        self._early: tuple[int, tuple[int, int], Sig] | None = None
        self._before_early_roll: MatchState | None = None  # BG-ROLL-5: a rethrow goes back here
        self._setup_checked = 0
        self._setup_open = False  # a set-up error that may still be corrected (BG-EQ-4)
        self._setup_pos0: Position | None = None  # the wrong set-up as read, player 0's view
        # turns played while the table could not see (TTB-6.1): the position is taken as the
        # board next shows it whole (position_taken), or set by the director
        self._retake = False
        self._end_how = ""
        self._winner: int | None = None
        self._corrected: Position | None = None  # a correction journalled, its move not yet
        self._stand_due = False  # a flagged move must stand (TTB-4.8) before what follows
        self._director_due: tuple[str, dict[str, Any]] | None = None
        self._double_after: int | None = None  # doubled before the mover pressed (TTB-4.6)
        # what only frames tell (not journalled)
        self._view: BoardView | None = None
        self._view_fresh = False
        self._dice: tuple[DieSeen, ...] = ()
        self._cube: CubeSeen | None = None
        self._press_t: int | None = None
        self._frame_no = 0
        self._judged_frame = -1
        self._still: list[BoardView] = []  # readable still frames since the last motion
        self._said_cannot_read = False
        self._unjudged_t: int | None = None  # since when new dice lie unjudged (a throw)
        self._throw_unread_said = False  # and that it was said ("cannot read")
        self._lit: int | None = None
        self._signals: set[str] = set()
        # places where the dice reader sees a die that was not thrown (a phantom: part of the
        # board taken for a die), for the game: (as read, frame first seen). Learnt from still
        # frames in which nothing can have been thrown (journalled with the next press) and
        # from the dice lying beside a judged throw (rebuilt from the throw's entry)
        self._phantoms = Phantoms(config.recognition.dice_moved)

    # --- public -----------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """True once the match has ended (``match_end`` journalled)."""
        return self._over

    @property
    def winner(self) -> int | None:
        """The match winner (player 0 or 1) once the match has ended."""
        return self._winner if self._over else None

    @property
    def ended_by(self) -> str:
        """How the match ended: "played", "time_out" or "director" ("" while it goes on)."""
        return self._end_how

    @property
    def flagged(self) -> bool:
        """True while an illegal move waits for its correction (TTB-4.8)."""
        return self._flag is not None

    @property
    def stage(self) -> str:
        """Where the table is: opening, decide, move, correcting, doubled, game-over, over."""
        if self._over:
            return "over"
        phase = self.match.phase
        if phase is Phase.MOVE and self._flag is not None:
            return "correcting"
        return phase.value

    @property
    def dice_due(self) -> bool:
        """Whether the dice of still frames are wanted now: while a throw may come (the
        opening, a player on roll, a flagged move's correction), and from the press that ends
        a move until its verdict, when the board shows what lies there before the next throw
        (phantoms, see ``_note_phantoms``). Reading dice is slow; the rest of the move needs
        none."""
        return self.stage in ("opening", "decide", "correcting") or self.move_pressed

    @property
    def move_pressed(self) -> bool:
        """Whether a press that ends a move awaits its verdict, the correction of a flagged
        move's included: the board then shows what lies there before the next throw, and the
        dice memory keeps that picture (``vision.dice.reuse``: a die the thorough read finds
        where nothing changed since was not thrown). A correction moves checkers after the
        first press, so its own press shows the board anew (BG-ROLL-2's phantom dice,
        TTB-4.8's correction)."""
        return self._pending == "move" and self.stage in ("move", "correcting")

    @property
    def dice_lie_as_thrown(self) -> bool:
        """Whether, a throw being due, the dice of the last still frame lie as the last throw
        judged left them (``_stale``, journalled with it): none picked up, none thrown since.
        A restarted table's dice memory has no picture of the board before the throw (taken at
        the last press), so it takes such a frame's instead: a die thrown again that lands
        where one lay is then told from one nobody touched (``DieSeen.touched``)."""
        if self._over or self.stage != "decide":
            return False
        dice = self._dice
        return (len(dice) == len(self._stale)
                and not unmatched(dice, self._stale, self.config.recognition.dice_moved))

    @property
    def thrown_at(self) -> tuple[tuple[float, float], ...]:
        """Where the dice of the last throw judged lay when it was judged (``_thrown``'s
        centres, board mm, journalled with it): the table's dice memory takes the dice it holds
        there as that throw's, and with one pair (BG-EQ-2) reads no other part for dice while
        they lie untouched (``DiceMemory.hold_pair``). Empty when none was judged, or a die of
        it has no centre."""
        out: list[tuple[float, float]] = []
        for sig in () if self._over else self._thrown:
            if sig[4] is None or sig[5] is None:
                return ()
            out.append((float(sig[4]), float(sig[5])))
        return tuple(out)

    @property
    def throw_unsure(self) -> bool:
        """Whether the last still frame shows a throw that cannot be judged yet: new dice on
        the board while a throw is due, but not two of them each read surely or surely cocked
        (a die of the throw not found, or read unsurely). The runtime then reads a still frame
        of the scene whole once, rather than only where it changed (``vision.dice.reuse``):
        a die the incremental read missed is not missed for good."""
        if self._over or self.stage != "decide":
            return False
        fresh = self._fresh()
        return bool(fresh) and not self._throw_judgeable(fresh)

    def _throw_judgeable(self, fresh: Sequence[DieSeen]) -> bool:
        """Whether the throw of the player on roll can be judged (``judgeable``), or, when the
        only doubt is a die read flat that may be cocked (``flat_doubt``), whether it is
        invalid whatever that die is (another die off the half or on a checker, BG-ROLL-2).
        The opponent's throw passing a closed-out player's turn (BG-BAR-4) is a roll: it is
        judged only free of doubt."""
        rec = self.config.recognition
        player = self.match.on_roll
        if rec.judgeable(fresh):
            return True
        if player is None or not rec.judgeable(fresh, doubt=False):
            return False
        return not self._opponents_throw(fresh, player) and any(
            self._die_problem(d, player) is not None for d in fresh)

    def _opponents_throw(self, fresh: Sequence[DieSeen], player: int) -> bool:
        """BG-BAR-4: ``player`` is closed out and the throw is a valid one of the opponent's."""
        return closed_out(self.match.position) and all(
            self._die_problem(d, 1 - player) is None for d in fresh)

    def begin(self) -> list[Command]:
        """Journal the match's start (done by the first :meth:`handle` if not called)."""
        self._out = []
        self._begin()
        self._lights()
        return self._out

    def handle(self, event: Event) -> list[Command]:
        """One event in, the commands to carry out in order (journal entries first)."""
        self._out = []
        if not self._started:
            self._begin()
        if isinstance(event, FrameSeen):
            self._frame(event)
        elif isinstance(event, MotionSeen):
            self._view_fresh = False
            self._still = []
        elif isinstance(event, ClockPressed):
            self._press(event)
        elif isinstance(event, ClockHoldPressed):
            self._hold(event)
        elif isinstance(event, PressesUnseen):
            self._unseen(event)
        elif isinstance(event, FlagFell):
            self._flag_fell(event)
        elif isinstance(event, DirectorAction):
            self._director(event)
        else:  # pragma: no cover - the Event union is closed
            raise InvalidInputError(f"unknown referee event {event!r}")
        self._advance(event.t_ms)
        self._lights()
        return self._out

    # --- journal and fold ------------------------------------------------------------------

    def _fold(self, kind: str, f: dict[str, Any]) -> None:
        """Change the state as the journal entry ``kind`` says (live and on resume alike)."""
        m = self.match
        self._director_due = None  # any entry after a director's action is what it decided
        self._clock_run.fold(kind, f)
        if kind == "match_start":
            self._started = True
        elif kind == "game_start":
            self._double_after = None
            self._setup_open, self._setup_pos0 = False, None
            self._retake = False  # a game ended meanwhile (the director's resign): play afresh
            if m.phase is Phase.GAME_OVER:
                self.match = apply(m, NextGame())
            self._started_game = self.match.game
            self._flag, self._undo, self._throw_again = None, None, False
            self._pending = None
            self._early = None  # the last dice may still lie on the board: keep them stale
            self._phantoms.clear()  # the set-up moved every checker
        elif kind == "opening_roll":
            self._throw_unread_said = False
            dice = (int(f["dice"][0]), int(f["dice"][1]))
            if dice[0] != dice[1]:
                self.match = apply(m, OpeningRoll(dice))
                adopted = self._setup_pos0
                if adopted is not None and self.match.on_roll is not None:
                    # BG-EQ-4: the set-up as it lies is played until it is corrected
                    self.match = dataclasses.replace(
                        self.match,
                        position=adopted if self.match.on_roll == 0 else adopted.swap())
            self._stale = sig_of_json(f.get("seen"))
            self._thrown = sig_of_json(f["thrown"]) if "thrown" in f else self._stale
            if dice[0] != dice[1]:
                # the opening's were only guesses (see _note_phantoms)
                self._phantoms.clear()
            self._learn_beside()
        elif kind == "roll":
            self._throw_unread_said = False
            self._before_early_roll = m if f.get("early") else None
            self.match = apply(m, Roll((int(f["dice"][0]), int(f["dice"][1]))))
            self._throw_again = False
            self._pending = None
            self._stale = sig_of_json(f.get("seen"))
            self._thrown = sig_of_json(f["thrown"]) if "thrown" in f else self._stale
            self._early = None
            self._learn_beside()
        elif kind == "invalid_throw":
            self._throw_unread_said = False
            self._flags += 1
            if not f.get("opening"):
                self._throw_again = True
            self._stale = sig_of_json(f.get("seen"))
            self._thrown = sig_of_json(f["thrown"]) if "thrown" in f else self._stale
            self._learn_beside()
        elif kind == "early_throw":
            dice = (int(f["dice"][0]), int(f["dice"][1]))
            self._early = (int(f["player"]), dice, sig_of_json(f.get("seen")))
        elif kind == "move":
            result = Position.from_id(str(f["position_id"]))
            self._before_early_roll = None
            self._undo = m
            if f.get("stands"):
                assert m.on_roll is not None
                self.match = dataclasses.replace(
                    m,
                    position=result.swap(),
                    on_roll=1 - m.on_roll,
                    phase=Phase.DECIDE,
                    dice=None,
                    moves_made=m.moves_made + 1,
                )
            else:
                self.match = apply(m, Move(result))
            self._flag = None
            self._pending = None
            self._corrected = None
            self._stand_due = False
            if self.match.moves_made >= SETUP_MOVES:
                self._setup_open = False  # BG-EQ-4: the set-up stands to the game's end
        elif kind == "setup_corrected":
            self.match = dataclasses.replace(m, position=Position.from_id(str(f["position_id"])))
            self._setup_open = False
            self._setup_pos0 = None
        elif kind == "turn_passed":
            assert m.on_roll is not None
            self.match = dataclasses.replace(m, position=m.position.swap(),
                                             on_roll=1 - m.on_roll, phase=Phase.DECIDE,
                                             dice=None, moves_made=m.moves_made + 1)
            self._pending = None
        elif kind == "correction":
            self._corrected = Position.from_id(str(f["position_id"]))
        elif kind == "illegal_move":
            self._flags += 1
            if f.get("reopen") and self._undo is not None:
                self.match = self._undo
                self._undo = None
            seen = Position.from_id(str(f["position_id"]))
            self._flag = (seen, str(f["rule"]), str(f["reason"]))
            self._pending = None
        elif kind == "position_taken":
            self.match = taken(m, f)
            self._retake = False
            self._stale = self._thrown = sig_of_json(f.get("seen"))
        elif kind in ("cannot_read", "setup_error"):
            self._flags += 1
            if f.get("about") == "turns_unseen":
                self._fold_unseen(f)
            if kind == "cannot_read":  # said once: not again after a restart
                self._said_cannot_read = True
                self._throw_unread_said = self._throw_unread_said or f.get("about") == "throw"
            if kind == "setup_error":
                self._setup_checked = m.game
                self._setup_open = True
                pid = f.get("position_id")
                self._setup_pos0 = Position.from_id(str(pid)) if pid else None
        elif kind == "double":
            self.match = apply(m, Double())
            self._pending = None
            self._double_after = None
        elif kind == "take":
            self.match = apply(m, Take())
            self._pending = None
        elif kind == "drop":
            self.match = apply(m, Drop())
            self._pending = None
        elif kind == "resign":
            worth = WinKind(int(f.get("resigned", 1)))
            self.match = apply(m, Resign(int(f["player"]), worth))
            self._flag = None
            self._pending = None
        elif kind == "cube_refused":
            self._pending = None
            self._double_after = None
        elif kind == "clock":
            if f.get("event") == "press":
                self._said_cannot_read = False  # a new wait for what the press asks
            times = f.get("times_ms")
            if isinstance(times, list) and len(times) == 2:
                self._times = (int(times[0]), int(times[1]))
                self._times_known = True
            for place in sig_of_json(f.get("phantoms")):
                self._phantoms.remember(place, 0)
            self._phantoms.unsaid = []
            means = f.get("means")
            presser = f.get("player")
            if means == "unseen" and self._retake and presser in (0, 1):
                self.match = after_gap(m, 1 - int(presser), 1)
            if means in ("move", "double", "take", "drop", "unclear", "pass"):
                self._pending = str(means)
            if means == "double" and self._flag is not None:
                self._stand_due = True  # the opponent doubled: the flagged move stands
            if means == "early_double" and m.on_roll is not None:
                self._pending = "move"
                self._double_after = 1 - m.on_roll
        elif kind == "game_end":
            self._ended_game = m.game
        elif kind == "time_out":
            self._timed_out = int(f["player"])
        elif kind == "match_end":
            self._over = True
            winner = f.get("winner")
            self._winner = winner if winner in (0, 1) else None
            self._end_how = str(f.get("how", ""))
            self._pending = None
        elif kind == "director":
            action, args = str(f.get("action", "")), dict(f.get("args") or {})
            self._fold_director(action, args)
            if action in ("accept", "reject", "end_match", "resign", "set_dice"):
                self._director_due = (action, args)

    def _fold_director(self, action: str, args: dict[str, Any]) -> None:
        m = self.match
        if action == "set_position":
            position = Position.from_id(str(args["position_id"]))
            player = args.get("player", m.on_roll)
            if player is not None and player != m.on_roll:
                # the director says who is on roll (from whose side the ID is written): a
                # throw of theirs is due
                self.match = dataclasses.replace(m, position=position, on_roll=int(player),
                                                 phase=Phase.DECIDE, dice=None)
                self._pending = None
            else:
                self.match = dataclasses.replace(m, position=position)
            self._flag = None
            self._retake = False
        elif action == "rethrow":
            # BG-ROLL-5: the mover has the early throw thrown again; the dice lying there now
            # are not the new throw
            if self._early is not None:
                self._stale = self._thrown = self._early[2]
                self._early = None
            elif self._before_early_roll is not None:
                self.match = self._before_early_roll
                self._before_early_roll = None
        elif action == "set_dice" and m.phase is Phase.MOVE:
            self.match = dataclasses.replace(m, dice=(int(args["dice"][0]), int(args["dice"][1])))
            self._flag = None

    # --- the start --------------------------------------------------------------------------

    def _begin(self) -> None:
        cfg = self.config
        self._emit("match_start", game="backgammon", **cfg.to_json())
        self._configure_clock()
        self._signal("system_ok", True)
        names = cfg.players
        self._say(f"{cfg.length}-point match: {names[0]} against {names[1]}")
        self._game_start()

    def _configure_clock(self) -> None:
        """The match's delay and reserve (TTB-CLOCK-4), when the table sets them; on hold."""
        self._out.extend(self._clock_settings())

    def _clock_settings(self) -> list[Command]:
        """``configure_delay`` with the match's delay and reserve, when the table sets them."""
        settings = self.clock_settings
        if settings is None:
            return []
        _mode, delay, reserve = settings
        return [ClockCommand("configure_delay", args={"delay_ms": delay, "reserve_ms": reserve})]

    def _clock_times(self) -> list[Command]:
        """The journal's last times, with the side whose time runs (none on hold). A reserve of
        0 is a time like any other (a delay-only match); 0 and 0 where the match sets no clock
        are times no clock reported."""
        configured = self.clock_settings is not None
        if not self._times_known or not (configured or any(self._times)):
            return []
        left = self._times[self.config.clock_sides.index("left")]
        right = self._times[self.config.clock_sides.index("right")]
        run = self._clock_run.running
        return [ClockCommand("set_times", None if run is None else self.config.side_of(run),
                             args={"left_ms": left, "right_ms": right})]

    def clock_restore(self) -> list[Command]:
        """What puts a clock that lost its state (power) where the journal leaves it: the
        match's delay and reserve, both times and whose time runs; for a restarted table whose
        clock answers only later (:meth:`restore` gives the same at once)."""
        return [*([] if self._over else self._clock_settings()), *self._clock_times()]

    @property
    def clock_on_hold(self) -> bool:
        """Whether the journal leaves the clock on hold (TTB-CLOCK-4, BG-OPEN-3, TTB-4.5, the
        match over): a restarted table holds a clock that ran on without a press since."""
        return self._over or self._clock_run.on_hold

    @property
    def clock_reset(self) -> list[Command]:
        """What a clock that kept its state through a restart needs at a game's start: nothing
        (the reserve runs on through the match, TTB-CLOCK-4; a Mangala set resets it)."""
        return []

    @property
    def clock_runs(self) -> Side | None:
        """The clock side whose time the journal leaves running (the opponent's after a press,
        TTB-CLOCK-2; the mover's after a flagged move, TTB-4.5); None on hold or not known."""
        run = self._clock_run.running
        if self._over or not self._clock_run.known or run is None:
            return None
        return self.config.side_of(run)

    @property
    def clock_settings(self) -> tuple[str, int, int] | None:
        """What the clock reports of its set-up once configured for the match (its ``HI``:
        mode, delay, reserve), None where the match leaves the clock's own (TTB-CLOCK-4)."""
        cfg = self.config
        if cfg.reserve_ms is None and cfg.delay_ms is None:
            return None
        return ("delay", cfg.delay_ms or 0, cfg.reserve_ms or 0)

    def _game_start(self) -> None:
        m = self.match
        number = m.game + (1 if m.phase is Phase.GAME_OVER else 0)
        crawford_next = m.crawford_game
        if m.phase is Phase.GAME_OVER:
            after = apply(m, NextGame())
            crawford_next = after.crawford_game
        self._emit("game_start", number=number, score=list(m.score), crawford=crawford_next)
        self._do(ClockCommand("hold"))
        names = self.config.players
        extra = " (Crawford game: no cube, BG-MATCH-2)" if crawford_next else ""
        self._say(f"Game {number}: {names[0]} {m.score[0]}, {names[1]} {m.score[1]}{extra}")
        if self.match.phase is Phase.OPENING:
            self._say("Opening throw: one die each into your right half (BG-OPEN-1)")

    # --- frames -----------------------------------------------------------------------------

    def _frame(self, ev: FrameSeen) -> None:
        self._view = ev.board
        self._view_fresh = True
        self._frame_no += 1
        if not ev.board.occluded:
            self._still = [*self._still[-7:], ev.board]
        self._dice = ev.dice
        self._cube = ev.cube
        if self._over:
            return
        stage = self.stage
        if stage != "opening":
            self._note_phantoms()
        if stage == "opening":
            self._opening_frame(ev)
        elif stage == "decide":
            if self._retake:
                self._take_position()
            elif not self._setup_correction():
                self._throw_frame(ev)
        elif stage == "move" and self._pending is None:
            self._early_frame(ev)
            self._last_checker_off()
        elif stage == "correcting":
            mover = self.match.on_roll
            assert mover is not None
            if self._opponent_threw(1 - mover):
                self._stand("the opponent threw")
                self._throw_frame(ev)
        if stage == "opening" and self.stage == "opening":
            self._note_phantoms()

    # --- phantoms: "dice" that were there before the throw -----------------------------------

    def _learn_beside(self) -> None:
        """The dice lying beside a judged throw (``_stale`` less ``_thrown``) were not thrown:
        with one shared pair (BG-EQ-2) nothing else lies on the board, so they are phantoms.
        Folded from the throw's entry, so a restart learns them again."""
        if self.config.rules.dice.value == "pair-each":
            return  # the other player's pair lies there too
        for sig in less(self._stale, self._thrown):
            self._phantoms.remember(sig, self._frame_no)

    def _note_phantoms(self) -> None:
        """Remember where the dice reader sees a die while no throw can be under way: the dice
        last judged all lie where they lay (so nobody picked them up to throw), and this die is
        none of them. A die read there alike later is no part of a throw. In the opening nobody
        can tell a phantom from the first player's die waiting for the other's (BG-OPEN-1):
        what is seen there only decides between more than two dice (see :meth:`_fresh`)."""
        dice = self._dice
        if not dice or any(d.centre is None for d in dice):
            return
        tolerance = self.config.recognition.dice_moved
        stage = self.stage
        if stage == "opening":
            for die in dice:  # the opening takes every die lying (BG-OPEN-2), stale or not
                self._phantoms.remember(die_sig(die), self._frame_no)
            return
        if stage not in ("move", "correcting", "decide", "doubled"):
            return
        if len(self._thrown) < 2 or not all_lie(dice, self._thrown, tolerance):
            return
        extra = unmatched(dice, self._stale, tolerance)
        if self.config.rules.dice.value == "pair-each" and (stage == "decide" or len(extra) != 1):
            # BG-EQ-2: a player throws their own pair while the last throw lies still; only a
            # lone die seen between the throw and the press is surely none (BG-ROLL-5: an
            # early throw is two dice)
            return
        for die in extra:
            self._phantoms.remember(die_sig(die), self._frame_no, unsaid=True)

    def _fresh(self, *, whole: bool = False) -> tuple[DieSeen, ...]:
        """The dice of a new throw: nothing while the dice lie as last counted. With a pair of
        dice each (BG-EQ-2) the other player's pair stays on the board: the dice still lying
        where they lay are not part of the throw (``DieSeen.centre`` tells a rethrow of the same
        numbers; without centres such a throw is seen only once the dice change). ``whole``:
        all the dice once any moved (the opening, where one player's die stays while the other
        throws again, BG-OPEN-2)."""
        dice = self._dice
        tolerance = self.config.recognition.dice_moved
        moved = unmatched(dice, self._stale, tolerance)
        if not moved and len(dice) == len(self._stale) and not self._thrown_in_place(dice):
            return ()
        fresh = list(dice)
        if self.config.rules.dice.value == "pair-each" or (
                not whole and all(d.centre is not None for d in dice)):
            # with centres, what still lies where it lay was not thrown now (a die nobody
            # picked up, or something on the board the dice reader takes for a die) ...
            fresh = self._with_touched(dice, moved)
            if (self._throw_again and not whole and self.config.rules.dice.value != "pair-each"
                    and not all_lie(dice, self._thrown, tolerance)):
                # BG-ROLL-2: an invalid throw is thrown again with both dice; once one has
                # moved, the other was thrown too even if it landed where it lay
                fresh = unmatched(dice, less(self._stale, self._thrown), tolerance)
        # nor is what was read alike where no throw could be under way (a phantom)
        fresh = self._phantoms.without(fresh, opening=whole)
        if len(fresh) > 2:
            # a throw is two dice: more than two read, of which exactly two surely, is those two
            # and something else taken for a die (never the other way round: a cocked die is
            # read unsurely, so a throw with one stays unjudged rather than misjudged)
            rec = self.config.recognition
            sure = [d for d in fresh if rec.readable(d)]
            if len(sure) == 2 and not any(rec.surely_cocked(d) for d in fresh):
                fresh = sure
        return tuple(fresh)

    def _thrown_in_place(self, dice: Sequence[DieSeen]) -> bool:
        """Whether, nothing having moved by ``dice_moved``, a throw landed on the last throw's
        places: two dice the camera saw touched since the press, each lying at least a quarter
        of ``dice_moved`` from where any die lay, or read surely with a face no die within
        that showed (a die does not turn over by itself). A die touched but neither shifted
        nor turned had a shadow or a light change over it, not a throw."""
        touched = self._with_touched(dice, [])
        shift = self.config.recognition.dice_moved / 4
        rec = self.config.recognition

        def thrown(die: DieSeen) -> bool:
            near = [s for s in self._stale if in_place(die_sig(die), s, shift)]
            return not near or (rec.readable(die) and all(s[0] != die.pips for s in near))

        return len(touched) == 2 and all(thrown(d) for d in touched)

    def _with_touched(self, dice: Sequence[DieSeen], moved: list[DieSeen]) -> list[DieSeen]:
        """... unless the camera saw it touched since the press (``DieSeen.touched``) and,
        with it, the throw is two dice: a die thrown again that landed where a die lay (or
        both, ``moved`` empty: the same numbers thrown onto the last throw's places; a die
        lying untouched is never part of it, so a hand passing over the dice is no throw)."""
        if self.stage != "decide" or len(moved) >= 2:
            return moved
        touched = [d for d in dice if d.touched and not any(d is m for m in moved)]
        if len(moved) + len(touched) != 2:
            return moved
        return [d for d in dice if d.touched or any(d is m for m in moved)]

    def _die_problem(self, die: DieSeen, player: int) -> str | None:
        name = self.config.players[player]
        if die.half == "off-board":
            return f"a die left the board; {name} throws again"
        if die.half != self.config.right_half(player):
            return f"a die came to rest outside {name}'s right half"
        if not die.flat:
            return "a die is cocked (not flat)"
        if die.on_checker:
            return "a die rests on a checker"
        return None

    def _opening_frame(self, ev: FrameSeen) -> None:
        fresh = self._fresh(whole=True)
        if not self.config.recognition.judgeable(fresh):
            self._unjudged_throw(ev.t_ms, None, fresh)
            return
        self._unjudged_t = None
        if self._throw_unread_said:
            self._throw_unread_said = False
            self._signal("cannot_read", False)
        cfg = self.config
        owners: dict[int, list[DieSeen]] = {0: [], 1: []}
        for die in fresh:
            for p in (0, 1):
                if die.half == cfg.right_half(p):
                    owners[p].append(die)
        seen = sig_json(signature(self._dice))
        names = cfg.players
        bad: list[tuple[int, str]] = []
        if len(owners[0]) != 1 or len(owners[1]) != 1:
            # the player whose half holds no die threw outside it (BG-ROLL-2)
            for p in (0, 1):
                if not owners[p]:
                    bad.append((p, f"{names[p]}'s die did not land in their right half"))
        else:
            for p in (0, 1):
                problem = self._die_problem(owners[p][0], p)
                if problem is not None:
                    bad.append((p, problem))
        if bad:
            for p, reason in bad:
                self._invalid_throw(
                    p, "BG-OPEN-2", f"{reason}; only {names[p]} throws again", seen, opening=True
                )
            return
        d0, d1 = owners[0][0].pips, owners[1][0].pips
        self._signal("throw_again", False)
        self._check_setup()
        if d0 == d1:
            self._emit("opening_roll", dice=[d0, d1], player=None, tie=True, seen=seen,
                       **self._thrown_field(seen, fresh))
            self._say(f"Opening throw {d0} and {d1}: equal, both throw again (BG-OPEN-1)")
            return
        starter = 0 if d0 > d1 else 1
        self._emit("opening_roll", dice=[d0, d1], player=starter, seen=seen,
                   **self._thrown_field(seen, fresh))
        other = 1 - starter
        if cfg.rules.opening.value == "turkish":
            self._say(
                f"Opening throw: {names[0]} {d0}, {names[1]} {d1}: {names[starter]} starts and"
                f" throws both dice (BG-OPEN-T); {names[other]} starts {names[starter]}'s clock"
            )
        else:
            hi, lo = max(d0, d1), min(d0, d1)
            self._say(
                f"Opening throw: {names[0]} {d0}, {names[1]} {d1}: {names[starter]} plays {hi}{lo};"
                f" {names[other]} starts {names[starter]}'s clock (BG-OPEN-3)"
            )

    def _check_setup(self) -> None:
        """BG-EQ-3: the board must show the starting position when the game opens."""
        view = self._view
        m = self.match
        if view is None or view.occluded or self._setup_checked == m.game or m.moves_made:
            return
        initial = hypothesis(self.config.layout, Position.initial().board, 0)
        if contradicted(view, initial, self.config.recognition):
            # the set-up as it lies is played (moves are judged from it) until it is corrected
            # before the 5th move, or to the game's end (BG-EQ-4); only a whole set-up (15
            # checkers each on the board) is taken as read, else the director sets it
            read = view.best_counts()
            adopted = None
            if read is not None:
                adopted = position_of_counts(self.config.layout, read[0], read[1], 0)
            if adopted is not None and (adopted.my_off or adopted.their_off):
                adopted = None
            extra = {"position_id": adopted.position_id} if adopted is not None else {}
            self._emit(
                "setup_error",
                rule="BG-EQ-3",
                reason="the checkers are not in the starting position (2 on 24, 5 on 13, 3 on 8,"
                " 5 on 6); put them right before the 5th move (BG-EQ-4)",
                game=m.game,
                **extra,
            )
            self._say("Set-up is not the starting position: please correct it (BG-EQ-3, BG-EQ-4)")

    def _setup_correction(self) -> bool:
        """BG-EQ-4: after a set-up error, before the 5th move, the players put the checkers
        right between turns: the board now surely shows another whole position than the one
        played so far, in every still frame alike. It is adopted and the game goes on from it."""
        m = self.match
        player = m.on_roll
        agree = self.config.recognition.agree
        if not self._setup_open or player is None or len(self._still) < agree:
            return False
        frames = self._still[-agree:]
        readings = [f.best_counts() for f in frames]
        first = readings[0]
        if first is None or any(r is None or r[:2] != first[:2] for r in readings):
            return False
        seen = position_of_counts(self.config.layout, first[0], first[1], player)
        if seen is None or seen == m.position or seen.my_off or seen.their_off:
            return False
        now = hypothesis(self.config.layout, m.position.board, player)
        if not contradicted(StillViews(frames), now, self.config.recognition):
            return False
        self._emit("setup_corrected", player=player, rule="BG-EQ-4",
                   position_id=seen.position_id, moves_made=m.moves_made)
        self._say("Set-up corrected before the 5th move: play goes on from the corrected "
                  "position (BG-EQ-4)")
        return True

    def _pass_turn(self, why: str) -> None:
        """BG-BAR-4: a player on the bar facing a closed home board need not throw; the turn
        passes (nothing is recorded for it in the ``.mat``: it has no dice)."""
        m = self.match
        player = m.on_roll
        assert player is not None
        name = self.config.players[player]
        self._emit("turn_passed", player=player, rule="BG-BAR-4",
                   reason=f"{name} is on the bar against a closed board and need not throw")
        self._say(f"{name} is closed out and passes ({why}, BG-BAR-4)")

    def _throw_frame(self, ev: FrameSeen) -> None:
        m = self.match
        player = m.on_roll
        if player is None or m.phase is not Phase.DECIDE:
            return
        fresh = self._fresh()
        if not self._throw_judgeable(fresh):
            self._unjudged_throw(ev.t_ms, player, fresh)
            return
        self._unjudged_t = None
        self._throw_unread_said = False
        seen = sig_json(signature(self._dice))
        if self._opponents_throw(fresh, player):
            # BG-BAR-4: the closed-out player did not throw; the opponent's throw is theirs
            self._pass_turn("the opponent threw")
            self._roll(1 - player, (fresh[0].pips, fresh[1].pips), seen, thrown=fresh)
            return
        for die in fresh:
            problem = self._die_problem(die, player)
            if problem is not None:
                self._invalid_throw(
                    player,
                    "BG-ROLL-2",
                    f"{problem}: both dice are thrown again (BG-ROLL-2); no double now (BG-ROLL-6)",
                    seen,
                    opening=False,
                )
                return
        dice = (fresh[0].pips, fresh[1].pips)
        self._roll(player, dice, seen, thrown=fresh)

    def _unjudged_throw(self, t_ms: int, player: int | None, fresh: Sequence[DieSeen]) -> None:
        """New dice that lie still without a throw that can be judged (a die not found, or
        read unsurely: perhaps cocked) for ``throw_unread_ms``: said once ("cannot read"),
        rather than guessed, so that the players look before moving (BG-ROLL-2, BG-ROLL-4).
        ``player`` None: the opening throw, where one die lying alone waits for the other
        player's (BG-OPEN-1), so only two or more dice that cannot be judged are said."""
        if player is None and len(fresh) < 2:
            fresh = ()
        if not fresh:  # no new dice (picked up again): a new throw is judged afresh
            self._unjudged_t = None
            if self._throw_unread_said:
                self._throw_unread_said = False
                self._signal("cannot_read", False)
            return
        if self._unjudged_t is None:
            self._unjudged_t = t_ms
        waited = t_ms - self._unjudged_t
        if (self._throw_unread_said or self._said_cannot_read
                or waited < self.config.recognition.throw_unread_ms):
            return
        self._throw_unread_said = True
        names = self.config.players
        name = "the opening" if player is None else f"{names[player]}'s"
        rec = self.config.recognition
        if len(fresh) < 2:
            why = "only one of the two dice is seen"
        elif len(fresh) > 2:
            why = f"{len(fresh)} dice are seen where two were thrown"
        else:
            unsure = [_die_doubt(rec, d) for d in fresh
                      if not (rec.readable(d) or rec.surely_cocked(d))]
            why = f"{len(unsure)} of the two dice cannot be read surely: {' and '.join(unsure)}"
        self._announce_cannot_read(
            0 if player is None else player,
            "BG-ROLL-2",
            f"{name} throw cannot be judged ({why}): a cocked die is thrown again; else the"
            " director sets the dice",
            f"Cannot judge {name} throw: {why}; is a die cocked? (BG-ROLL-2)",
            "throw",
        )

    def _thrown_field(self, seen: list[list[Any]], thrown: Sequence[DieSeen]) -> dict[str, Any]:
        """``thrown``: the throw's own dice, journalled when other dice lie there too (a pair
        each, a phantom) so that a restart knows which dice must lie still (_note_phantoms)."""
        own = sig_json(signature(thrown))
        return {} if own == seen else {"thrown": own}

    def _roll(self, player: int, dice: tuple[int, int], seen: list[list[Any]], *,
              early: bool = False, thrown: Sequence[DieSeen] | None = None) -> None:
        extra: dict[str, Any] = {"early": True} if early else {}
        if thrown is not None:
            extra.update(self._thrown_field(seen, thrown))
        self._emit("roll", player=player, dice=[dice[0], dice[1]], seen=seen, **extra)
        self._signal("throw_again", False)
        self._signal("cannot_read", False)
        self._say(f"{self.config.players[player]} throws {dice[0]}{dice[1]}")

    def _invalid_throw(
        self, player: int, rule: str, reason: str, seen: list[list[Any]], *, opening: bool
    ) -> None:
        fresh = self._fresh(whole=opening)
        dice = [d.pips for d in fresh]
        label = self._snapshot_label()
        self._emit(
            "invalid_throw",
            player=player,
            rule=rule,
            reason=reason,
            dice=dice,
            opening=opening,
            seen=seen,
            snapshot=label,
            **self._thrown_field(seen, fresh),
        )
        self._signal("throw_again", True)
        self._signal("cannot_read", False)
        self._do(Buzz("throw_again"))
        self._do(TakeSnapshot(label))
        self._say(f"Invalid throw by {self.config.players[player]}: {_cited(reason, rule)}")

    def _snapshot_label(self) -> str:
        """The file name of the next flag's snapshot (numbered by the flags journalled)."""
        return f"flag-{self._flags + 1:04d}.jpg"

    def _opponent_threw(self, opponent: int) -> bool:
        """Two new dice in the opponent's right half that are not the mover's own dice moved
        aside (BG-MOVE-8): the opponent has thrown."""
        fresh = self._fresh()
        half = self.config.right_half(opponent)
        m = self.match
        if len(fresh) != 2 or not all(d.half == half for d in fresh):
            return False
        return m.dice is None or sorted(d.pips for d in fresh) != sorted(m.dice)

    def _last_checker_off(self) -> None:
        """The move that bears off the last checker ends the game even if nobody presses."""
        m = self.match
        if m.dice is None or m.on_roll is None or m.position.my_off < 11:
            return
        if len(self._still) < self.config.recognition.agree:
            return
        legal = result_boards(m.position, m.dice)
        if not any(sum(c for c in board if c > 0) == 0 for board in legal):
            return
        found = recognise(
            StillViews(self._still),
            m.position,
            m.dice,
            m.on_roll,
            self.config.layout,
            self.config.recognition,
        )
        if found.verdict == "legal" and found.result is not None and found.result.my_off == 15:
            self._signal("cannot_read", False)
            self._emit_move(found.result)

    def _early_frame(self, ev: FrameSeen) -> None:
        """BG-ROLL-5: the opponent threw before the mover pressed the clock."""
        m = self.match
        mover = m.on_roll
        if mover is None or m.dice is None:
            return
        early = self._early
        if early is not None:
            # thrown again at the mover's request (BG-ROLL-5): two dice that are not the early
            # throw lying where it lay
            moved = unmatched(self._dice, early[2], self.config.recognition.dice_moved)
            moved = self._phantoms.without(moved, opening=False)
            if len(moved) != 2 or not self.config.recognition.judgeable(moved):
                return
            fresh: tuple[DieSeen, ...] = tuple(moved)
            if any(d.half != self.config.right_half(1 - mover) for d in fresh):
                return
        else:
            if not self._opponent_threw(1 - mover):
                return
            fresh = self._fresh()
        dice = (fresh[0].pips, fresh[1].pips)
        if any(
            self._die_problem(d, 1 - mover) is not None for d in fresh
        ):
            return
        names = self.config.players
        again = {"rethrow": True} if early is not None else {}
        self._emit(
            "early_throw",
            player=1 - mover,
            dice=[dice[0], dice[1]],
            rule="BG-ROLL-5",
            reason=f"{names[1 - mover]} threw before {names[mover]} pressed the clock;"
            f" {names[mover]} may accept the roll or have it thrown again",
            seen=sig_json(signature(self._dice)),
            **again,
        )
        if early is not None:
            self._say(f"{names[1 - mover]} threw again: {dice[0]}{dice[1]} (BG-ROLL-5)")
            return
        self._say(
            f"{names[1 - mover]} threw {dice[0]}{dice[1]} before {names[mover]} pressed the clock"
            f" (BG-ROLL-5): it counts unless {names[mover]} asks for a new throw"
        )

    # --- the clock --------------------------------------------------------------------------

    def _times_json(self, times_lr: tuple[int, int]) -> list[int]:
        left, right = times_lr
        return [left if self.config.side_of(p) == "left" else right for p in (0, 1)]

    def _cube_offered(self) -> bool:
        cube = self._cube
        return cube is not None and cube.zone == "offered"

    def _press(self, ev: ClockPressed) -> None:
        if self._over:
            return
        player = self.config.player_of_side(ev.side)
        stage = self.stage
        m = self.match
        means = "none"
        if self._retake and stage == "decide" and player == m.on_roll:
            # the board was not taken yet since unseen turns: this turn is unseen too
            means = "unseen"
            self._say(f"{self.config.players[player]} pressed before the board could be read"
                      " whole: that turn is not judged either (TTB-6.1)")
        elif stage == "decide" and player == m.on_roll and self._cube_offered():
            means = "double"
        elif stage == "decide" and player == m.on_roll and closed_out(m.position):
            means = "pass"  # BG-BAR-4: closed out, the player need not throw
        elif stage == "decide" and player == m.on_roll:
            means = "unclear"  # a double whose cube is not seen yet, or a throw not read
        elif stage == "move" and player == m.on_roll:
            means = "move"
        elif stage == "move" and player != m.on_roll and self._cube_offered():
            # the opponent doubled before the mover pressed: the double counts and the move is
            # finished as it lies (``004`` 4.6; a flagged move then stands, TTB-4.8)
            means = "early_double"
        elif stage == "move" and m.moves_made == 0 and player != m.on_roll:
            means = "start"  # the opening: the smaller die starts the opponent's time (BG-OPEN-3)
        elif stage == "correcting" and player == m.on_roll:
            means = "move"
        elif stage == "correcting" and self._cube_offered():
            means = "double"  # the flagged move stands first (TTB-4.8): see _step
        elif stage == "doubled" and m.cube.offered_by is not None and player != m.cube.offered_by:
            means = "take"
        self._emit(
            "clock",
            event="press",
            player=player,
            side=ev.side,
            times_ms=self._times_json(ev.times_ms),
            running=1 - player,
            means=means,
            **press_fields(ev),
            **self._phantoms.press_field(),
        )
        self._press_t = ev.t_ms
        self._said_cannot_read = False

    def _unclear_press(self, t_ms: int) -> bool:
        """The player on roll pressed with neither a throw nor an offered cube seen: a double
        once the cube is seen offered (BG-CUBE-3), else "cannot read" after the time-out."""
        m = self.match
        player = m.on_roll
        assert player is not None
        if self._cube_offered():
            self._pending = "double"
            return self._double()
        # (a throw seen later is journalled as the roll and clears this press)
        if self._press_t is None:
            self._press_t = t_ms
        if self._said_cannot_read or t_ms - self._press_t < self.config.recognition.cannot_read_ms:
            return False
        name = self.config.players[player]
        self._announce_cannot_read(
            player,
            "BG-ROLL-2",
            f"{name} pressed the clock, but neither a throw nor a double of {name}'s was"
            " read: throw the dice into your right half, or the director sets them",
            f"{name} pressed the clock without a throw or a double that could be read",
            "press",
        )
        return True

    def _unseen(self, ev: PressesUnseen) -> None:
        """Presses made while the table could not see (TTB-6.1): each journalled as unseen,
        their turns not judged (the picture shows what came after them); the turn goes to the
        player whose time runs, the position is taken as the board next shows it whole
        (:meth:`_take_position`), and the director is called to check it."""
        if self._over:
            return
        self._still, self._view_fresh = [], False  # what was seen before is not the board now
        for press in ev.presses:
            fields = press_fields(press)
            times = self._times_json(press.times_ms)
            if isinstance(press, ClockPressed):
                presser = self.config.player_of_side(press.side)
                self._emit("clock", event="press", player=presser, side=press.side,
                           times_ms=times, running=1 - presser, means="unseen", **fields)
            else:
                self._emit("clock", event="hold", player=None, times_ms=times, running=None,
                           means="unseen", **fields)
        for boot, number in ev.lost:
            self._emit("clock", event="press", means="unseen", press=[boot, number])
        m = self.match
        player = on_roll_after(self.config, ev.presses, ev.running, m.on_roll)
        count = len(ev.presses) + len(ev.lost)
        if m.phase not in FOLLOWED or player is None or count == 0:
            return
        names = self.config.players
        label = self._snapshot_label()
        self._emit(
            "cannot_read",
            player=player,
            rule="TTB-6.1",
            reason=f"{count} clock presses were made while the table could not see the board:"
            " the turns they ended were not judged; the position is taken as the board shows it"
            " and the director checks it",
            about="turns_unseen",
            turns=count,
            snapshot=label,
        )
        self._signal("cannot_read", True)
        self._signal("illegal_move", False)  # nothing before the gap can be corrected now
        self._signal("throw_again", False)
        self._do(TakeSnapshot(label))
        self._say(f"{count} presses were made while the table could not see the board: their"
                  f" turns were not judged; {names[player]} is on roll; the position is taken"
                  " as the board shows it; call the director to check it (TTB-6.1)")

    def _fold_unseen(self, f: dict[str, Any]) -> None:
        """The state once unseen turns end (see :meth:`_unseen`): nothing of the turns before
        them can be corrected any more, and a throw is due once the position is taken."""
        m = self.match
        player = f.get("player")
        if m.phase not in FOLLOWED or player not in (0, 1):
            return
        self.match = after_gap(m, int(player), int(f.get("turns", 1)))
        self._flag, self._undo, self._corrected = None, None, None
        self._pending, self._early, self._before_early_roll = None, None, None
        self._stand_due, self._double_after, self._throw_again = False, None, False
        self._setup_open = False
        self._retake = True
        self._phantoms.clear()  # checkers moved meanwhile

    def _take_position(self) -> None:
        """After unseen turns (TTB-6.1): the position the still frames since the last motion
        show (at least ``agree`` of them, their counts weighed together, the board whole), from
        the view of the player on roll, is taken, with the cube where it lies. The dice lying
        then are a throw only when they are a valid one of the player on roll (the last
        mover's dice lie in the other half); else they are no throw."""
        m = self.match
        player = m.on_roll
        if player is None or len(self._still) < self.config.recognition.agree:
            return
        read = StillViews(self._still).best_counts()
        if read is None:
            return
        seen = position_of_counts(self.config.layout, read[0], read[1], player)
        if seen is None or not plausible(seen, m.position):
            return
        dice = self._dice
        rec = self.config.recognition
        # with a pair each (BG-EQ-2) the player's own pair lies in their half from their
        # last turn: only dice seen moving are a throw
        thrown = (self.config.rules.dice.value != "pair-each" and len(dice) == 2
                  and rec.judgeable(dice)
                  and all(self._die_problem(d, player) is None for d in dice))
        stale = {} if thrown else {"seen": sig_json(signature(dice))}
        self._emit("position_taken", player=player, position_id=seen.position_id,
                   rule="TTB-6.1", **cube_fields(self.config, m, self._cube), **stale)
        names = self.config.players
        self._say(f"Position taken as the board shows it, {names[player]} on roll:"
                  f" {seen.position_id} (the director checks it, TTB-6.1)")

    def _hold(self, ev: ClockHoldPressed) -> None:
        if self._over:
            return
        means = "drop" if self.stage == "doubled" else "hold"
        taker = None
        if means == "drop" and self.match.cube.offered_by is not None:
            taker = 1 - self.match.cube.offered_by
        self._emit(
            "clock",
            event="hold",
            player=taker,
            times_ms=self._times_json(ev.times_ms),
            running=None,
            means=means,
            **press_fields(ev),
        )
        if means == "hold":
            self._say("Clock on hold (TTB-4.5, TTB-6.1)")

    def _flag_fell(self, ev: FlagFell) -> None:
        if self._over:
            return
        player = self.config.player_of_side(ev.side)
        name = self.config.players[player]
        self._emit(
            "time_out",
            player=player,
            rule="TTB-CLOCK-3",
            reason=f"{name}'s time ran out: {name} loses the match",
        )
        self._do(Buzz("flag"))
        self._say(f"{name}'s time ran out: {name} loses the match (TTB-CLOCK-3)")

    # --- decisions that need no new input ------------------------------------------------------

    def _advance(self, t_ms: int) -> None:
        for _ in range(8):
            if not self._step(t_ms):
                return

    def _step(self, t_ms: int) -> bool:
        """Take one decision the state calls for; False when there is none to take now."""
        if self._over:
            return False
        m = self.match
        names = self.config.players
        if self._started_game < m.game and m.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER):
            self._game_start()  # the match's first game_start was not journalled yet
            return True
        if self._timed_out is not None:
            winner = 1 - self._timed_out
            self._emit(
                "match_end", winner=winner, score=list(m.score), how="time_out", game=m.game
            )
            self._do(ClockCommand("hold"))
            self._say(f"{names[winner]} wins the match on time")
            return True
        if m.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
            if self._ended_game != m.game:
                last = m.results[-1]
                self._emit(
                    "game_end",
                    winner=last.winner,
                    points=last.points,
                    score=list(m.score),
                    win=last.kind.word,
                    how=last.how.value,
                    cube=last.cube_value,
                    game=m.game,
                )
                self._do(ClockCommand("hold"))
                self._signal("illegal_move", False)
                self._signal("cannot_read", False)
                words = result_words(last.points, last.kind.word, last.how.value,
                                     last.cube_value, names[1 - last.winner])
                self._say(f"{names[last.winner]} wins {words}; score {names[0]} {m.score[0]}, "
                          f"{names[1]} {m.score[1]}")
                return True
            if m.phase is Phase.MATCH_OVER:
                winner = 0 if m.score[0] >= m.length else 1
                self._emit("match_end", winner=winner, score=list(m.score), how="played")
                self._say(f"{names[winner]} wins the match {m.score[0]}-{m.score[1]}")
                return True
            self._game_start()
            return True
        if self._director_due is not None:
            action, args = self._director_due
            self._director_due = None
            self._director_follow(action, args)
            return True
        if self._stand_due:
            self._stand_due = False
            self._stand("The opponent doubled")
            return True
        if self._corrected is not None:
            self._emit_move(self._corrected)
            return True
        doubler = self._double_after
        if doubler is not None and self._pending is None:
            if self._flag is not None and m.on_roll == 1 - doubler:
                self._stand("The opponent doubled")  # TTB-4.8: a double ends the correction
                return True
            if m.phase is Phase.DECIDE and m.on_roll == doubler:
                self._pending = "double"
                return self._double()
            self._double_after = None
        pending = self._pending
        if pending == "double":
            return self._double()
        if pending == "take":
            doubler = m.cube.offered_by
            assert doubler is not None
            self._emit("take", player=1 - doubler, cube=m.cube.value * 2)
            self._say(f"{names[1 - doubler]} takes: the cube is at {m.cube.value * 2}")
            self._cube_place_check(1 - doubler)
            return True
        if pending == "drop":
            doubler = m.cube.offered_by
            assert doubler is not None
            self._emit("drop", player=1 - doubler)
            self._say(f"{names[1 - doubler]} drops (BG-CUBE-4)")
            return True
        if pending == "move":
            return self._judge_move(t_ms)
        if pending == "unclear":
            return self._unclear_press(t_ms)
        if pending == "pass":
            self._pass_turn("pressed the clock without throwing")
            return True
        if self._early is not None and m.phase is Phase.DECIDE and m.on_roll == self._early[0]:
            player, dice, sig = self._early
            self._roll(player, dice, sig_json(sig), early=True)
            return True
        return False

    def _double(self) -> bool:
        m = self.match
        names = self.config.players
        player = m.on_roll
        assert player is not None
        reason = may_double(m)
        rule = "BG-CUBE-2"
        if self._throw_again:
            reason, rule = "the dice were thrown, even if invalidly: no double now", "BG-ROLL-6"
        elif reason is not None and "BG-MATCH-2" in reason:
            rule = "BG-MATCH-2"
        elif reason is not None and "BG-CUBE-4" in reason:
            rule = "BG-CUBE-4"
        if reason is not None:
            self._emit("cube_refused", player=player, rule=rule, reason=reason)
            self._do(Buzz("illegal"))
            self._say(f"{names[player]} may not double: {_cited(reason, rule)}")
            return True
        offered = self._cube.value if self._cube is not None else m.cube.value * 2
        self._emit("double", player=player, cube=m.cube.value * 2)
        self._say(f"{names[player]} doubles to {m.cube.value * 2}")
        if offered != m.cube.value * 2:
            self._say(f"The cube shows {offered}: it should show {m.cube.value * 2} (BG-CUBE-5)")
        return True

    def _cube_place_check(self, taker: int) -> None:
        cube = self._cube
        colour = self.config.colour_of(taker)
        if cube is not None and cube.zone not in (f"{colour}-side", "offered"):
            self._say(f"The cube should be on {self.config.players[taker]}'s side (BG-CUBE-3)")

    def _judge_move(self, t_ms: int) -> bool:
        m = self.match
        player = m.on_roll
        assert player is not None and m.dice is not None
        if self._press_t is None:
            self._press_t = t_ms
        view = self._view
        names = self.config.players
        if view is None or not self._view_fresh:
            return self._maybe_cannot_read(t_ms, player, "no still picture of the board yet")
        if self._judged_frame == self._frame_no:
            return self._maybe_cannot_read(t_ms, player, "waiting for another still picture")
        self._judged_frame = self._frame_no
        if len(self._still) < self.config.recognition.agree:
            return self._maybe_cannot_read(t_ms, player, "waiting for a clear still picture")
        found = recognise(
            StillViews(self._still),
            m.position,
            m.dice,
            player,
            self.config.layout,
            self.config.recognition,
        )
        dice = [m.dice[0], m.dice[1]]
        if found.verdict == "legal":
            assert found.result is not None
            self._signal("cannot_read", False)
            if self._flag is not None:
                self._emit("correction", player=player, position_id=found.result.position_id)
                self._signal("illegal_move", False)
                self._say(f"{names[player]} corrected the move (TTB-4.8)")
                return True  # the move itself follows (_step), also after a restart
            self._emit_move(found.result)
            return True
        if found.verdict == "illegal":
            assert found.result is not None
            self._signal("cannot_read", False)
            label = self._snapshot_label()
            self._emit(
                "illegal_move",
                player=player,
                dice=dice,
                rule=found.rule,
                reason=found.reason,
                position_id=found.result.position_id,
                snapshot=label,
            )
            self._flag_commands(player, label)
            self._say(f"Illegal move by {names[player]}: {found.reason} ({found.rule}, TTB-4.8)")
            return True
        return self._maybe_cannot_read(t_ms, player, found.reason)

    def _emit_move(self, result: Position) -> None:
        """Journal the legal move that leaves ``result`` (mover's view)."""
        m = self.match
        player = m.on_roll
        assert player is not None and m.dice is not None
        legal = result_boards(m.position, m.dice)
        text = format_steps(m.position.board, legal[result.board]) if legal else ""
        after = apply(m, Move(result))
        dice = [m.dice[0], m.dice[1]]
        self._emit(
            "move",
            player=player,
            dice=dice,
            move=text,
            position_id=result.position_id,
            match_id=after.match_id,
        )
        name = self.config.players[player]
        self._say(f"{name} {dice[0]}{dice[1]}: {text or 'no move (BG-MOVE-7)'}")

    def _flag_commands(self, player: int, label: str) -> None:
        self._do(ClockCommand("hold"))
        self._signal("illegal_move", True)
        self._do(Buzz("illegal"))
        self._do(TakeSnapshot(label))
        self._do(ClockCommand("start", side=self.config.side_of(player)))

    def _maybe_cannot_read(self, t_ms: int, player: int, why: str) -> bool:
        assert self._press_t is not None
        if self._said_cannot_read or t_ms - self._press_t < self.config.recognition.cannot_read_ms:
            return False
        self._announce_cannot_read(
            player,
            "TTB-6.1",
            f"the board cannot be read ({why}); keep hands off the board, or call the director",
            f"Cannot read the board after {self.config.players[player]}'s move: {why}",
            "board",
        )
        return True

    def _announce_cannot_read(self, player: int, rule: str, reason: str, line: str,
                              about: str) -> None:
        """Say "cannot read" once (journal, LED, snapshot, log) instead of guessing a verdict.
        ``about``: "throw" (a throw that cannot be judged), "press" (a press with no throw or
        double read) or "board" (the board after a press): journalled, so that a restarted
        table does not say it again."""
        self._said_cannot_read = True
        label = self._snapshot_label()
        self._emit("cannot_read", player=player, rule=rule, reason=reason, snapshot=label,
                   about=about)
        self._signal("cannot_read", True)
        self._do(TakeSnapshot(label))
        self._say(line)

    def _stand(self, why: str) -> None:
        """TTB-4.8: once the opponent throws or doubles, a flagged move stands as played."""
        flag = self._flag
        m = self.match
        if flag is None or m.on_roll is None or m.dice is None:
            return
        seen, rule, _ = flag
        player = m.on_roll
        self._emit(
            "move",
            player=player,
            dice=[m.dice[0], m.dice[1]],
            move=diff_text(m.position, seen),
            position_id=seen.position_id,
            stands=True,
            rule="TTB-4.8",
            flag_rule=rule,
        )
        self._signal("illegal_move", False)
        self._say(f"{why}: {self.config.players[player]}'s move stands as played (TTB-4.8)")

    # --- the director -----------------------------------------------------------------------

    def _director(self, ev: DirectorAction) -> None:
        action, args = ev.action, dict(ev.args)
        try:
            self._check_director(action, args)
        except (HakemError, KeyError, TypeError, ValueError) as exc:
            self._say(director_refusal(action, exc))
            return
        self._emit("director", **director_fields(ev, args))
        if action == "set_position":
            on_roll = self.match.on_roll
            whom = "" if on_roll is None else f", {self.config.players[on_roll]} on roll"
            self._say(f"The director set the position to {args['position_id']}{whom}")
        elif action == "note":
            self._say(f"Director's note: {args.get('text', '')}")
        elif action == "rethrow":
            self._say("The early throw is thrown again at the mover's request (BG-ROLL-5)")

    def _director_follow(self, action: str, args: dict[str, Any]) -> None:
        """What a director's action (journalled just before) decides."""
        m = self.match
        names = self.config.players
        if action == "accept":
            self._stand("The director accepted the move")
        elif action == "reject":
            undo = self._undo
            if undo is None or undo.on_roll is None or undo.dice is None:
                return
            seen = m.position.swap()
            label = self._snapshot_label()
            self._emit(
                "illegal_move",
                player=undo.on_roll,
                dice=[undo.dice[0], undo.dice[1]],
                rule="TTB-4.9",
                reason=str(args.get("reason", "the director ruled the move illegal")),
                position_id=seen.position_id,
                snapshot=label,
                reopen=True,
            )
            self._flag_commands(undo.on_roll, label)
        elif action == "end_match":
            winner = int(args["winner"])
            self._emit("match_end", winner=winner, score=list(m.score), how="director")
            self._do(ClockCommand("hold"))
            reason = str(args.get("reason") or args.get("note") or "").strip()
            self._say(f"The director ends the match: {names[winner]} wins"
                      f"{f' ({reason})' if reason else ''}")
        elif action == "resign":
            loser = int(args["player"])
            kind = int(args.get("kind", 1))
            self._emit("resign", player=loser, resigned=kind)
            self._say(f"{names[loser]} resigns ({WinKind(kind).word})")
        elif action == "set_dice":
            dice = (int(args["dice"][0]), int(args["dice"][1]))
            if m.phase is Phase.DECIDE and m.on_roll is not None:
                # the dice lying now are the throw the camera could not read: they (and
                # anything taken for a die with them) are no part of the next throw
                self._roll(m.on_roll, dice, sig_json(signature(self._dice)),
                           thrown=self._entered(dice))
            elif m.phase is Phase.OPENING:
                self._director_opening(dice)
            else:
                self._say(f"The director set the dice to {dice[0]}{dice[1]}")

    def _entered(self, dice: tuple[int, int]) -> list[DieSeen]:
        """The dice lying that a director's throw names: for each number, the new die read
        flat with it, surest first (a throw the director enters is a valid one). All the dice
        lying when they cannot all be found (then none is taken for a phantom)."""
        fresh = unmatched(self._dice, self._stale, self.config.recognition.dice_moved)
        pool = sorted((d for d in fresh if d.flat), key=lambda d: -d.confidence)
        out: list[DieSeen] = []
        for pips in dice:
            die = next((d for d in pool if d.pips == pips), None)
            if die is None:
                return list(self._dice)
            pool.remove(die)
            out.append(die)
        return out

    def _director_opening(self, dice: tuple[int, int]) -> None:
        """The director enters the opening throw the camera could not read: (player 0's die,
        player 1's die); the higher starts (BG-OPEN-1) and the other starts its clock."""
        starter = 0 if dice[0] > dice[1] else 1
        self._signal("throw_again", False)
        self._emit("opening_roll", dice=[dice[0], dice[1]], player=starter,
                   seen=sig_json(signature(self._dice)))
        names = self.config.players
        self._say(f"Opening throw set by the director: {names[0]} {dice[0]}, {names[1]} "
                  f"{dice[1]}: {names[starter]} starts (BG-OPEN-1, BG-OPEN-3)")

    def _check_director(self, action: str, args: dict[str, Any]) -> None:
        m = self.match
        if action == "accept":
            if "pit" in args:  # the command cannot tell the table's game: say, don't ignore
                raise InvalidInputError(f"accept takes no pit at a backgammon table (a pit, "
                                        f"{args['pit']!r}, is a Mangala table's)")
            if self._flag is None:
                raise InvalidInputError("no flagged move to accept")
        elif action == "reject":
            if self._undo is None or m.phase is not Phase.DECIDE or self._flag is not None:
                raise InvalidInputError("no accepted move that can still be corrected (TTB-4.8)")
        elif action == "end_match":
            if args.get("winner") not in (0, 1):
                raise InvalidInputError(f"winner must be 0 or 1, not {args.get('winner')!r}")
            if self._over:
                raise InvalidInputError("the match is already over: there is no match to end")
        elif action == "resign":
            if args.get("player") not in (0, 1) or args.get("kind", 1) not in (1, 2, 3):
                raise InvalidInputError(f"resign needs player 0 or 1 and kind 1..3, not {args}")
            apply(m, Resign(int(args["player"]), WinKind(int(args.get("kind", 1)))))
        elif action == "set_position":
            _settable(args.get("position_id"))
            if m.phase not in (Phase.DECIDE, Phase.MOVE):
                raise InvalidInputError("the position can be set only during a game")
            if "player" in args and args["player"] not in (0, 1):
                raise InvalidInputError(f"the player on roll is 0 or 1, not {args['player']!r}")
        elif action == "set_dice":
            dice = args["dice"]
            if len(dice) != 2 or not all(1 <= int(d) <= 6 for d in dice):
                raise InvalidInputError(f"dice must be two numbers 1..6, not {dice!r}")
            if m.phase not in (Phase.OPENING, Phase.DECIDE, Phase.MOVE):
                raise InvalidInputError("dice can be set only during a game")
            if m.phase is Phase.OPENING and int(dice[0]) == int(dice[1]):
                raise InvalidInputError(f"opening dice are thrown again when equal (BG-OPEN-1),"
                                        f" not {dice!r}")
        elif action == "rethrow":
            if self._early is None and self._before_early_roll is None:
                raise InvalidInputError("no early throw to have thrown again (BG-ROLL-5)")
        elif action != "note":
            raise InvalidInputError(f"{director_command(action)} is not an action at a "
                                    f"backgammon table")

    # --- lights -----------------------------------------------------------------------------

    def _lights(self) -> None:
        """The turn lights follow whoever must act (the player on roll, or the doubled player)."""
        m = self.match
        who = None if self._over else m.to_act
        if who == self._lit:
            return
        for p in (0, 1):
            self._signal("turn_left" if self.config.side_of(p) == "left" else "turn_right",
                         p == who)
        self._lit = who

    # --- resume -----------------------------------------------------------------------------

    def restore(
        self, entries: Sequence[dict[str, Any]], *, restore_clock: bool = True
    ) -> list[Command]:
        """Fold journalled entries (``seq``/``time`` ignored) into a fresh referee and return the
        commands that bring the table back: the lights, the clock times, and any decision the
        journal shows was due but not yet written (a game's end after its last move...).

        ``restore_clock`` configures the clock again (the match's delay and reserve), sets it
        to the last journalled times and starts the time of the player whose time ran
        (``set_times`` with that side; none between games, before the opening's press, after
        the hold button): right for a clock that lost its state with the host (the simulated
        clock, a power cut); a clock that kept running through the restart knows better
        (DESIGN.md, Clock), so pass False and read its times instead (:meth:`clock_restore`
        gives the same clock commands later, for a clock found to have lost its state).
        """
        self._out = []
        kind = ""
        for entry in entries:
            kind = str(entry.get("type", ""))
            fields = {k: v for k, v in entry.items() if k not in ("seq", "time", "type")}
            self._fold(kind, fields)
        self._started = True
        if self._flag is not None:
            self._signal("illegal_move", True)
        if self._throw_again:
            self._signal("throw_again", True)
        if kind == "cannot_read":  # said last, and nothing has answered it yet
            self._signal("cannot_read", True)
        if not self._over:
            self._signal("system_ok", True)
            if restore_clock:
                self._configure_clock()  # a clock that lost its state lost its settings too
        self._advance(0)  # decisions due first: a game's end puts the clock on hold
        if restore_clock:
            self._out.extend(self._clock_times())
        held = self._clock_run.held
        if held is not None and not self._over:
            names = self.config.players
            self._say(f"The clock is on hold, as it was when the table stopped: "
                      f"{names[1 - held]} presses their button to start {names[held]}'s time "
                      "again (TTB-4.5)")
        self._press_t = None  # the next event's time starts the cannot-read wait afresh
        self._lights()
        self._out.extend(lost_snapshot(entries))
        return self._out


__all__ = ["Referee", "closed_out", "diff_text", "signature"]


def _conforms(referee: Referee) -> RefereeProtocol:
    """Type-checked proof that :class:`Referee` is what the runtime drives (mypy runs it)."""
    return referee


def _settable(position_id: object) -> Position:
    """The position a director sets: a Position ID of a game under way (both sides with
    checkers still to bear off: a game where one side has borne off all 15 is over, and the
    director ends it instead, BG-SCORE-1)."""
    if not isinstance(position_id, str):
        raise InvalidInputError(f"a backgammon position is a Position ID (14 characters, as "
                                f"gnubg writes it), not {position_id!r}")
    position = Position.from_id(position_id)
    for off, who in ((position.my_off, "the player on roll"), (position.their_off,
                                                               "the opponent")):
        if off == CHECKERS:
            raise InvalidInputError(
                f"position {position_id} is no game under way: {who} has borne off all "
                f"{CHECKERS} checkers (BG-SCORE-1; end the game with end-match or resign)")
    return position


def _cited(reason: str, rule: str) -> str:
    """A reason with its rule named after it, once (a reason may name it already)."""
    return reason if rule in reason else f"{reason} ({rule})"


def _die_doubt(rec: RecognitionSettings, die: DieSeen) -> str:
    """Why one die of a throw cannot be judged, naming it by face and place so that the
    players and a director know which die to look at (BG-ROLL-2)."""
    where = ("off the board" if die.half == "off-board"
             else f"in the {die.half} half of the picture")
    if not die.flat:
        return f"a die {where} looks cocked, not surely"
    if die.p_cocked >= rec.flat_doubt:
        return f"the {die.pips} {where} may be cocked"
    return f"the {die.pips} {where} is read faintly"
