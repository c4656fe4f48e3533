"""The set-up of a game (BG-EQ-3) and its correction before the 5th move (BG-EQ-4)."""

from __future__ import annotations

from controller.referee.recognition import StillViews, contradicted, hypothesis, position_of_counts
from controller.referee.state import RefereeState
from engine.backgammon.position import Position


class RefereeSetup(RefereeState):
    """Checks the starting position and adopts a corrected set-up."""

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
