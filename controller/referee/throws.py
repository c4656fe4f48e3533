"""The backgammon referee's verdicts on throws: the opening throw (BG-OPEN-1..3), a player's
throw, valid or thrown again (BG-ROLL-2), one that cannot be judged yet, a closed-out
player's turn passing (BG-BAR-4) and an early throw (BG-ROLL-5)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.referee.api import Buzz, DieSeen, FrameSeen, TakeSnapshot
from controller.referee.config import RecognitionSettings
from controller.referee.dice import RefereeDice
from controller.referee.dice_places import sig_json, signature, unmatched
from controller.referee.flags import RefereeFlags, cited
from controller.referee.setup_check import RefereeSetup
from engine.backgammon.match import Phase


class RefereeThrows(RefereeDice, RefereeFlags, RefereeSetup):
    """Judges the throws the still frames show."""

    def _opening_frame(self, ev: FrameSeen) -> None:
        """Judge the opening throw, one die each: an invalid die is thrown again by its player
        alone (BG-OPEN-2), equal dice by both, else the higher starts (BG-OPEN-1, BG-OPEN-3)."""
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
        """Judge the throw of the player on roll: valid, invalid and thrown again
        (BG-ROLL-2), or the opponent's while a closed-out player passes (BG-BAR-4)."""
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
        """Journal and say a valid throw (``early``: thrown before the mover pressed, BG-ROLL-5);
        ``thrown``: the throw's own dice among those lying."""
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
        """Journal an invalid throw (BG-ROLL-2; BG-OPEN-2 at the opening) with the throw-again
        light, buzzer and a snapshot, so that the players see why they throw again."""
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
        self._say(f"Invalid throw by {self.config.players[player]}: {cited(reason, rule)}")

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
