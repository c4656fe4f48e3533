"""What the dice lying on the board are: the dice of a new throw (``_fresh``), phantoms (a
part of the board the dice reader takes for a die) and what makes a die's throw invalid
(BG-ROLL-2), with what the runtime's dice reader is told of them."""

from __future__ import annotations

from collections.abc import Sequence

from controller.referee.api import DieSeen
from controller.referee.dice_places import all_lie, die_sig, in_place, less, unmatched
from controller.referee.state import RefereeState
from engine.backgammon.moves import closed_out


class RefereeDice(RefereeState):
    """Which dice are a throw, and what the table's dice reader needs to know of them."""

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

    # --- phantoms: "dice" that were there before the throw -----------------------------------

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
            """Whether ``die`` lies where no die lay, or surely shows a face none near it showed."""
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
        """Why ``die`` voids ``player``'s throw (off the board, outside their right half,
        cocked, on a checker: BG-ROLL-2), or None for a die that counts."""
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

    def _opponent_threw(self, opponent: int) -> bool:
        """Two new dice in the opponent's right half that are not the mover's own dice moved
        aside (BG-MOVE-8): the opponent has thrown."""
        fresh = self._fresh()
        half = self.config.right_half(opponent)
        m = self.match
        if len(fresh) != 2 or not all(d.half == half for d in fresh):
            return False
        return m.dice is None or sorted(d.pips for d in fresh) != sorted(m.dice)
