"""Where the demo's script plants invalid throws: only faults a table can tell (BG-ROLL-2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.demo.script import Act, InvalidKind, build_script
from engine.backgammon.moves import closed_out
from engine.errors import InvalidInputError

# a real match where a player on the bar faces a closed board (BG-BAR-4) and still throws
CLOSED_OUT_MATCH = "match6036606.txt"
WRONG_HALF: tuple[InvalidKind, ...] = ("wrong-half",)


def _throws(path: Path) -> tuple[list[Act], list[Act]]:
    """A match's throws of two dice (every move but a game's first) and those of them thrown
    by a closed-out player."""
    script = build_script(path)
    throws = [a for g in script.games for i, a in enumerate(g.acts) if a.kind == "move" and i]
    closed = [a for a in throws if closed_out(a.before if a.player == 0 else a.before.swap())]
    return throws, closed


def test_a_closed_out_player_never_plants_a_wrong_half_throw(shared_data: Path) -> None:
    # thrown into the opponent's half, it lands where the opponent's own valid throw would:
    # the referee rightly takes it as the opponent's (the closed-out player need not throw)
    path = shared_data / "matches" / CLOSED_OUT_MATCH
    throws, closed = _throws(path)
    assert closed, "the match should have a closed-out player's throw"
    room = len(throws) - len(closed)
    script = build_script(path, invalid_throws=room, invalid_kinds=WRONG_HALF, seed=5)
    planted = [a for g in script.games for a in g.acts if a.invalid is not None]
    assert len(planted) == room
    assert not any(closed_out(a.before if a.player == 0 else a.before.swap()) for a in planted)
    with pytest.raises(InvalidInputError, match=f"at most {room} invalid throws of wrong-half"):
        build_script(path, invalid_throws=room + 1, invalid_kinds=WRONG_HALF)


def test_a_closed_out_players_throw_may_still_be_spoilt_otherwise(shared_data: Path) -> None:
    path = shared_data / "matches" / CLOSED_OUT_MATCH
    throws, closed = _throws(path)
    script = build_script(path, invalid_throws=len(throws), seed=5)
    spots = {(a.player, a.before, a.move) for a in closed}
    kinds = {a.invalid for g in script.games for a in g.acts
             if a.invalid is not None and (a.player, a.before, a.move) in spots}
    assert kinds and "wrong-half" not in kinds
