"""What replaying a ``.mat`` record reports when the rules refuse something (the game, line,
text and rule ID), and how the replay stops there: an engine error turned into that report."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.backgammon.mat_reader import MatAction, MatGame
from engine.backgammon.match import Event, MatchState, apply
from engine.errors import HakemError


@dataclass(frozen=True)
class Problem:
    """The first thing in a record the rules do not allow: where, what was written, which rule."""

    game: int
    move: int
    line: int
    text: str
    rule: str
    reason: str


class Stop(Exception):
    """Internal: the replay met a problem and stops there."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.reason)
        self.problem = problem


_RULE_RE = re.compile(r"\b((?:BG|TTB)-[A-Z0-9.]+(?:-[0-9]+)?)\b")


def _rule_of(message: str, default: str) -> str:
    found = _RULE_RE.findall(message)
    return found[-1] if found else default


def stop(game: MatGame, action: MatAction, rule: str, reason: str) -> Stop:
    """The stop for a problem at ``action`` of ``game``, to be raised."""
    return Stop(Problem(game.number, action.number, action.line, action.text, rule, reason))


def do(
    state: MatchState, event: Event, game: MatGame, action: MatAction, default: str
) -> MatchState:
    """``event`` applied to ``state``; an engine error becomes a stop naming its rule."""
    try:
        return apply(state, event)
    except HakemError as exc:
        rule = _rule_of(str(exc), default)
        # the report names the rule first: the engine's closing "(RULE)" would say it twice
        reason = str(exc).removesuffix(f" ({rule})")
        raise stop(game, action, rule, reason) from exc


__all__ = [
    "Problem",
    "Stop",
    "do",
    "stop",
]
