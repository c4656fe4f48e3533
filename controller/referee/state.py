"""The backgammon referee's state and the journal fold that changes it: every decision is a
journal entry, written through ``_emit`` and folded at once, so a journal replayed after a
restart rebuilds the same state (``controller.referee.resume``)."""

from __future__ import annotations

import dataclasses
from typing import Any

from controller.records.journal import THROW_TYPES
from controller.referee.api import BoardView, Command, CubeSeen, DieSeen
from controller.referee.clock_run import ClockRun
from controller.referee.config import RefereeConfig
from controller.referee.cube_set import correction
from controller.referee.dice_places import Sig, less, sig_of_json
from controller.referee.outputs import Outputs
from controller.referee.phantoms import Phantoms
from controller.referee.unseen import FOLLOWED, after_gap, taken
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
from engine.backgammon.position import Position
from engine.backgammon.scoring import WinKind

SETUP_MOVES = 5  # BG-EQ-4: a set-up error is corrected only before the 5th move


class RefereeState(Outputs):
    """What the referee knows of the match (journalled and not), its public state, and
    the fold of the journal entries that change it."""

    def __init__(self, config: RefereeConfig) -> None:
        self.config = config
        self.match: MatchState = new_match(config.length, config.rules)
        self._out: list[Command] = []
        self._started = False
        # journalled state (rebuilt by _fold)
        self._flag: tuple[Position, str, str] | None = None  # seen position, rule, reason
        self._undo: MatchState | None = None
        # whether the director may still reject the move ``_undo`` undoes (TTB-4.9: only
        # before the next roll or double, and not once a position was set); kept apart from
        # ``_undo`` so a journal that rejected later (older tables) still replays
        self._rejectable = False
        self._throw_again = False
        self._pending: str | None = None
        self._times: tuple[int, int] = (0, 0)
        self._times_known = False  # a clock entry journalled both times (0 for a delay-only match)
        self._clock_run = ClockRun()  # whose time runs on the clock, for a restart
        self._ended_game = 0
        self._started_game = 0
        # the match as the last game ended, while the next has had no throw: a director's cube
        # correction then scores that game again (BG-CUBE-5, TTB annexes 5, 6), whose end is
        # journalled again (``_rescored``) before the next game's start or the match's end
        self._last_over: MatchState | None = None
        self._rescored = False
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
        self._director_due: tuple[str, dict[str, Any]] | None = None
        # the opponent doubled while the mover's move was open (``004`` 4.6: before the mover
        # pressed; TTB-4.8: while a flagged move waited for its correction): once the move
        # is finished (or stands), the double is judged
        self._double_after: int | None = None
        # the opponent pressed while a flagged move waited, no cube seen offered yet: a double
        # once the cube is seen there (the hand over it hid it at the press), TTB-4.8
        self._double_wait: int | None = None
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

    def _cube_offered(self) -> bool:
        """Whether the cube is seen in the offered place: a double is made once the
        cube is put there (BG-CUBE-3, BG-CUBE-6)."""
        cube = self._cube
        return cube is not None and cube.zone == "offered"

    # --- journal and fold ------------------------------------------------------------------

    def _fold(self, kind: str, f: dict[str, Any]) -> None:
        """Change the state as the journal entry ``kind`` says (live and on resume alike)."""
        m = self.match
        self._director_due = None  # any entry after a director's action is what it decided
        self._clock_run.fold(kind, f)
        if kind in THROW_TYPES:
            self._last_over = None  # the next game has started: the last one stands as scored
        if kind == "match_start":
            self._started = True
        elif kind == "game_start":
            self._double_after, self._double_wait = None, None
            self._setup_open, self._setup_pos0 = False, None
            self._retake = False  # a game ended meanwhile (the director's resign): play afresh
            if m.phase is Phase.GAME_OVER:
                self._last_over = m
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
            # BG-CUBE-2: no double after a roll; one still waiting here was lost by an older
            # table (before c8b98ca) and must not be judged turns later on resume
            self._double_after, self._double_wait = None, None
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
            stands = bool(f.get("stands"))
            # TTB-4.8/4.9: a move followed by the opponent's double (made before the press, or
            # one it stands for) cannot be rejected, even if the double is refused
            self._undo = m
            self._rejectable = self._double_after is None and not (
                stands and self._double_wait is not None)
            if stands:
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
                self._double_wait = None  # the mover's correction came first
            self._flag = None
            self._pending = None
            self._corrected = None
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
            self._double_after, self._double_wait = None, None
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
            self._double_after, self._double_wait = None, None
            # TTB-4.9: a move is corrected only before the next roll or double; undoing it
            # now would undo the cube too (the take or drop that follows is no less final)
            self._rejectable = False
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
            self._double_after, self._double_wait = None, None
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
            if means == "double" and self._flag is not None and m.on_roll is not None:
                # the opponent doubled: the flagged move stands (TTB-4.8), then the double
                # is judged (it was lost with the pending press when the move stood)
                self._pending = None
                self._double_after = 1 - m.on_roll
            if means == "double_unseen" and presser in (0, 1):
                self._double_wait = int(presser)
            if means == "early_double" and m.on_roll is not None:
                self._pending = "move"
                self._double_after = 1 - m.on_roll
        elif kind == "game_end":
            self._ended_game = m.game
            self._last_over, self._rescored = None, False
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
        """The state a journalled director's action changes at once: a position set,
        an early throw to be thrown again (BG-ROLL-5), the dice set during a move."""
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
            # the position set stands: a reject now would undo it with the move before it
            self._flag, self._rejectable, self._double_wait = None, False, None
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
        elif action == "set_cube":
            self._fold_cube(args)
        elif action == "set_dice" and m.phase is Phase.MOVE:
            self.match = dataclasses.replace(m, dice=(int(args["dice"][0]), int(args["dice"][1])))
            self._flag = None

    def _fold_cube(self, args: dict[str, Any]) -> None:
        """The cube the director put right (BG-CUBE-5): in the game under way, also in the
        states a reject or a rethrow goes back to (the cube stays right); or the game just
        ended, scored again, its end then journalled again (``_step``)."""
        ended = self._last_over
        if ended is not None:
            self.match = apply(ended, correction(args))
            self._last_over, self._rescored = None, True
            return
        self.match = apply(self.match, correction(args))
        cube = self.match.cube
        if self._undo is not None:
            self._undo = dataclasses.replace(self._undo, cube=cube)
        if self._before_early_roll is not None:
            self._before_early_roll = dataclasses.replace(self._before_early_roll, cube=cube)

    def _learn_beside(self) -> None:
        """The dice lying beside a judged throw (``_stale`` less ``_thrown``) were not thrown:
        with one shared pair (BG-EQ-2) nothing else lies on the board, so they are phantoms.
        Folded from the throw's entry, so a restart learns them again."""
        if self.config.rules.dice.value == "pair-each":
            return  # the other player's pair lies there too
        for sig in less(self._stale, self._thrown):
            self._phantoms.remember(sig, self._frame_no)

    def _fold_unseen(self, f: dict[str, Any]) -> None:
        """The state once unseen turns end (see :meth:`_unseen`): nothing of the turns before
        them can be corrected any more, and a throw is due once the position is taken."""
        m = self.match
        player = f.get("player")
        if m.phase not in FOLLOWED or player not in (0, 1):
            return
        self._last_over = None  # the next game went on unseen: the last one stands as scored
        self.match = after_gap(m, int(player), int(f.get("turns", 1)))
        self._flag, self._undo, self._corrected = None, None, None
        self._pending, self._early, self._before_early_roll = None, None, None
        self._double_after, self._double_wait, self._throw_again = None, None, False
        self._setup_open = False
        self._retake = True
        self._phantoms.clear()  # checkers moved meanwhile
