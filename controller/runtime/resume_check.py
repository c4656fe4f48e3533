"""What ``hakem run`` tells the people at a table when its journal already holds a match.

The journal is the source of truth (DESIGN.md, Records): a restarted table goes on with the
match its journal holds, whatever the configuration now says. So that an edited
configuration (other players, another length, another game) is never ignored in silence, and
a finished match does not look like a table that quietly does nothing, these lines say what
was kept and how to start a new match instead.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from controller.config.table import TableConfig
from controller.runtime.effects import LiveLog
from engine.errors import ConfigError, RecordFormatError

GAMES: tuple[str, ...] = ("backgammon", "mangala")  # the games a journal can hold (match.game)


def new_match_steps(folder: Path) -> str:
    """How to start a new match at a table whose journal folder is ``folder``."""
    return (f"stop the table (sudo systemctl stop hakem-table), move the files of {folder} "
            "aside (they are this match's record), set [players] and [match] in the "
            "configuration, and start the table again")


def check_game(game: str, entries: Sequence[Mapping[str, Any]], folder: Path,
               live: LiveLog) -> None:
    """Refuse to resume a journal of another game than ``game`` (the table's ``match.game``),
    naming both, in the live log too (the referee of one game cannot read the other's
    journal)."""
    first = entries[0] if entries else {}
    if first.get("type") != "match_start":
        return  # not a match's journal: the referee's restore says what is wrong with it
    held = first.get("game", "backgammon")
    if held not in GAMES:  # a damaged or hand-edited journal: no setting would resume it
        text = (f"the journal in {folder} holds a match of game {held!r}, which is neither "
                f"{' nor '.join(map(repr, GAMES))}: it is damaged")
        live.say(f"Cannot start: {text}")
        raise RecordFormatError(text)
    if held != game:
        text = (f"match.game is {game!r}, but the journal in {folder} holds a {held} match: "
                f"set match.game = {held!r} to resume it, or to start a new match, "
                f"{new_match_steps(folder)}")
        live.say(f"Cannot start: {text}")
        raise ConfigError(text)


def differences(config: TableConfig, entries: Sequence[Mapping[str, Any]], folder: Path,
                players: tuple[str, str]) -> list[str]:
    """The live log's lines when the configuration names other players (``players``, bottom
    first, as the referee would be given them) or, for a backgammon journal (which holds a
    length), another match length than the journal's match; empty when they agree."""
    first = entries[0] if entries else {}
    held = first.get("players")
    lines: list[str] = []
    if isinstance(held, list) and len(held) == 2 and tuple(held) != players:
        lines.append(f"The configuration names the players {players[0]} and {players[1]} "
                     f"(bottom first), but the match in the journal is {held[0]} against "
                     f"{held[1]}: that match goes on with its own players")
    length = first.get("length")
    if isinstance(length, int) and not isinstance(length, bool) \
            and length != config.match.length:
        lines.append(f"The configuration says match.length = {config.match.length}, but the "
                     f"match in the journal is played to {length} points: that match goes on "
                     f"to {length}")
    if lines:
        lines.append(f"To start a new match instead: {new_match_steps(folder)}")
    return lines


def finished(entries: Sequence[Mapping[str, Any]], journal: Path, folder: Path,
             noun: str = "match") -> list[str]:
    """The live log's lines for a journal whose match (``noun``: a Mangala table plays a
    round) is over: who won, and how to start the next one (the table has nothing to
    referee)."""
    said = outcome(entries)
    return [f"The {noun} in {journal} is over{f' ({said})' if said else ''}: there is "
            "nothing to referee, and the table stops",
            f"To start the next {noun}: {new_match_steps(folder)}"]


def match_end(entries: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The journal's ``match_end`` entry (the last, should a hand-edited journal hold two), or
    None while its match goes on."""
    return next((e for e in reversed(entries) if e.get("type") == "match_end"), None)


def outcome(entries: Sequence[Mapping[str, Any]]) -> str:
    """Who won the match a journal holds, in words (:func:`_outcome`); empty when it has not
    ended or its end names no winner."""
    first = entries[0] if entries else {}
    names = first.get("players")
    return _outcome(match_end(entries) or {},
                    names if isinstance(names, list) and len(names) == 2 else None)


def _outcome(end: Mapping[str, Any], names: list[Any] | None) -> str:
    """Who won a match (backgammon: player 0 or 1 and the score; Mangala: side a or b, or a
    draw, and the round points), from its ``match_end`` entry."""
    winner = end.get("winner")
    if winner == "draw":
        text = "drawn"
    elif winner in (0, 1) and names is not None:
        text = f"won by {names[int(winner)]}"
    elif winner in ("a", "b") and names is not None:
        text = f"won by {names[0 if winner == 'a' else 1]} ({winner})"
    else:
        return ""
    score, points = end.get("score"), end.get("points")
    if isinstance(score, list) and len(score) == 2:
        text += f", score {score[0]}-{score[1]}"
    elif isinstance(points, Mapping) and {"a", "b"} <= set(points):
        text += f", points a {points['a']:g}, b {points['b']:g}"
    return text


def tell(live: LiveLog, lines: Sequence[str]) -> None:
    """Say each line in the live log and on stderr (a service's operator reads either)."""
    for line in lines:
        live.say(line)
        print(f"hakem: {line[:1].lower()}{line[1:]}", file=sys.stderr)


__all__ = ["check_game", "differences", "finished", "match_end", "new_match_steps", "outcome",
           "tell"]
