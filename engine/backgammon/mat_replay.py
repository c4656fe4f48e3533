"""Replay a ``.mat`` record through the rules: every move checked against the legal plays, every
cube action and result against the cube, scoring and match rules.

The record's move text is matched to a legal play: the play the text describes exactly, or the
one legal play that leaves the mover's checkers where the text puts them (records often leave
out a ``*`` for a checker hit on the way). A roll with no move followed by ``Wins`` is a
resignation after the roll (by either player); a roll with no move otherwise is "no move" and
must be forced.

This module holds the replay of the whole record and the rules read from its tags; the parts
it is put together from: ``mat_play`` (the play a move's text stands for), ``mat_game_replay``
(one game's actions), ``mat_game_end`` (resignations and ``Wins``), ``mat_problems`` (what a
stop reports), ``mat_replayed`` (the result) and ``mat_events`` (the events applied).
"""

from __future__ import annotations

import dataclasses

from engine.backgammon.mat_game_replay import replay_game
from engine.backgammon.mat_problems import Problem, Stop
from engine.backgammon.mat_reader import MatMatch
from engine.backgammon.mat_replayed import Replay, ReplayedGame, Snapshot, Turn
from engine.backgammon.match import NextGame, Phase, apply, new_match
from engine.backgammon.rules import Rules


def _switch(value: str | None, default: bool) -> bool:
    """An ``On``/``Off`` tag's value; ``default`` when the tag is missing."""
    if value is None:
        return default
    return value.strip().lower() not in ("off", "false", "no", "0")


def rules_for(record: MatMatch) -> Rules:
    """The rules a record was played by, from its tags: Crawford on/off, the cube limit, and
    for money sessions (length 0) Jacoby and beavers (BG-SCORE-4). GNU Backgammon writes no
    such tags (eXtreme Gammon writes ``Jacoby`` and ``Beaver``); without them Jacoby is on, as
    GNU Backgammon's import assumes (but see :func:`replay`), and beavers are allowed (a
    record shows one only where it was played)."""
    if record.length == 0:
        base = Rules.money(
            jacoby=_switch(record.tag("Jacoby"), True),
            beavers=_switch(record.tag("Beaver"), True),
        )
    else:
        base = Rules.tournament()
    crawford = _switch(record.tag("Crawford"), True)
    limit_text = (record.tag("CubeLimit") or "").strip()
    limit = int(limit_text) if limit_text.isdigit() else 0
    if limit & (limit - 1):
        limit = 0
    return dataclasses.replace(base, crawford=crawford and record.length > 0, cube_limit=limit)


def replay(record: MatMatch, rules: Rules | None = None) -> Replay:
    """Replay ``record`` by ``rules`` (else :func:`rules_for`); stops at the first problem,
    which the result reports. A money session whose tags say nothing of Jacoby is replayed
    without it when its running score counts a gammon with the cube not turned in full (so it
    was played without Jacoby: GNU Backgammon writes the score it played by) and the Jacoby
    count would break it (BG-MATCH-4)."""
    if rules is not None:
        return _replay(record, rules)
    chosen = rules_for(record)
    result = _replay(record, chosen)
    problem = result.problem
    if (
        chosen.jacoby
        and record.length == 0
        and record.tag("Jacoby") is None
        and problem is not None
        and problem.rule == "BG-MATCH-4"
    ):
        plain = _replay(record, dataclasses.replace(chosen, jacoby=False))
        if plain.problem is None or plain.problem.line > problem.line:
            return plain
    return result


def _replay(record: MatMatch, rules: Rules) -> Replay:
    """Replay ``record`` by ``rules``."""
    state = new_match(record.length, rules)
    games: list[ReplayedGame] = []
    notes: list[Problem] = []
    problem: Problem | None = None
    for game in record.games:
        turns: list[Turn] = []
        shots: list[Snapshot] = []
        crawford = False
        try:
            if state.phase is Phase.MATCH_OVER:
                raise Stop(
                    Problem(
                        game.number,
                        0,
                        game.line,
                        f"Game {game.number}",
                        "BG-MATCH-1",
                        f"the match was already won {state.score[0]}-{state.score[1]} before"
                        f" game {game.number}",
                    )
                )
            if state.phase is Phase.GAME_OVER:
                state = apply(state, NextGame())
            crawford = state.crawford_game
            if game.score != state.score:
                raise Stop(
                    Problem(
                        game.number,
                        0,
                        game.line,
                        f"Game {game.number}",
                        "BG-MATCH-4",
                        f"the record starts game {game.number} at {game.score[0]}-{game.score[1]}"
                        f" but the games before it make the score {state.score[0]}-"
                        f"{state.score[1]}",
                    )
                )
            state = replay_game(state, game, turns, notes, shots)
        except Stop as stop:
            problem = stop.problem
        result = (
            state.results[-1] if state.results and state.results[-1].game == game.number else None
        )
        games.append(
            ReplayedGame(game.number, game.score, crawford, tuple(turns), result, tuple(shots))
        )
        if problem is not None:
            break
    return Replay(record, rules, tuple(games), state, problem, tuple(notes))


__all__ = [
    "replay",
    "rules_for",
]
