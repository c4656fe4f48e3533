"""The match record a director downloads from a table's page.

Backgammon matches are written as Jellyfish ``.mat``: ``hakem export``'s record
(``controller.records.mat_export``) from the journal entries the hub stored, or without a
``match_start`` among them by the engine's writer
(``engine.backgammon.mat_writer.write_match_text``, fed the hub's match detail); a journal the
writer refuses (a move text it cannot parse) gets the plain move list instead, which says so in
its first lines. A Mangala round is no ``.mat``: it gets the round record the table itself
writes (``controller.mangala.records``, the engine's format, which ``hakem mangala check``
replays), built from the journal entries the hub stored. A round a director ended on the hub
whose table has journalled no end (offline: the hub is its only record) ends with the format's
director line; once the table's own ``match_end`` is in, the table's record stands alone.
:func:`result_details` is what ``/api/results`` says of a match beyond its score and winner.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.hub.contract import MatchState
from controller.hub.mangala_fold import SIDES
from controller.mangala.records import round_text
from controller.records.mat_export import export_match
from engine.backgammon.mat_writer import write_match_text
from engine.backgammon.match import result_words
from engine.errors import RecordFormatError

TEXT = "text/plain; charset=utf-8"


def match_record(state: MatchState, table: str, entries: Sequence[dict[str, Any]] = ()
                 ) -> tuple[str, str, str]:
    """(text, content type, file name) of a backgammon match's record: from the journal
    entries the hub stored (``hakem export``'s record: a move the director rejected left out,
    a game cut where the director set the position, TTB-4.9), else from the match detail."""
    if state.game == "backgammon":
        if any(e.get("type") == "match_start" for e in entries):
            try:
                return export_match(entries).mat_text, TEXT, f"table-{table}.mat"
            except RecordFormatError:
                pass  # the detail's record below, or the plain move list
        try:
            text = write_match_text(state.detail())
        except RecordFormatError as exc:
            return moves_text(state, table, str(exc)), TEXT, f"table-{table}-moves.txt"
        return text, TEXT, f"table-{table}.mat"
    return (moves_text(state, table, f"no .mat format for {state.game}"), TEXT,
            f"table-{table}-moves.txt")


def round_record(state: MatchState, entries: Sequence[dict[str, Any]], table: str
                 ) -> tuple[str, str, str]:
    """(text, content type, file name) of a Mangala round's record from its journal entries
    (those folded so far: a round still being played gives the record so far)."""
    try:
        text = round_text([*entries, *_hub_end(state, entries)])
    except (KeyError, TypeError, ValueError) as exc:  # ValueError: the project's errors too
        why = f"the round record cannot be written from this journal: {exc}"
        return moves_text(state, table, why), TEXT, f"table-{table}-moves.txt"
    return text, TEXT, f"table-{table}-round.txt"


def _hub_end(state: MatchState, entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A director's end on the hub as the table journals one (``director`` ``end_match``), for
    a round whose journal has no ``match_end`` yet; none without a winner (the format's
    director line names one)."""
    end = state.hub_end
    if end is None or end["winner"] not in (0, 1) or any(
            e.get("type") == "match_end" for e in entries):
        return []
    return [{"type": "director", "action": "end_match",
             "args": {"winner": SIDES[end["winner"]], "reason": end["reason"]}}]


def result_details(state: MatchState | None) -> dict[str, Any]:
    """A finished match's ``/api/results`` keys beyond the stored score and winner: ``game``;
    ``drawn`` (a Mangala round drawn, MG-T-1: its ``winner`` is null as when a director ended
    it without one); ``round_points`` (a Mangala round's [a, b], else null); ``games`` (each
    game or set: ``game``, ``winner``, ``points``, and for a set ``drawn``); ``ended_by`` (the
    card's words, naming the director who ended it; null when play ended it)."""
    if state is None:  # not folded (cannot happen: every stored match is)
        return {"game": None, "drawn": None, "round_points": None, "games": [], "ended_by": None}
    mangala = state.mangala
    keys = ("game", "winner", "points", "drawn") if mangala is not None else (
        "game", "winner", "points")
    return {
        "game": state.game,
        "drawn": mangala is not None and mangala.result == "draw",
        "round_points": (list(mangala.round_points)
                         if mangala is not None and mangala.round_points is not None else None),
        "games": [{k: g.get(k) for k in keys} for g in state.games],
        "ended_by": state.ended_by,
    }


def moves_text(state: MatchState, table: str, why: str) -> str:
    """The plain-text move list, with the reason it is not a ``.mat`` file."""
    players = state.players
    lines = [
        f"# hakem table {table}, match {state.match}",
        f"# plain move list from the journal, not a .mat file: {why}",
        f"# {players[0]} vs {players[1]}, "
        + (f"{state.length}-point match" if state.length else "unlimited"),
    ]
    game = None
    ends = {g["game"]: g for g in state.games}
    for move in state.moves:
        if move["game"] != game:
            if game in ends:
                lines.append(game_end_line(ends[game], players))
            game = move["game"]
            lines.append(f"Game {game}")
        who = players[move["player"]] if move["player"] in (0, 1) else "?"
        dice = "".join(str(d) for d in move["dice"]) if move["dice"] else "--"
        lines.append(f"  {who}: {dice}: {move['move'] or '(no move)'}")
    if game in ends:
        lines.append(game_end_line(ends[game], players))
    lines.append(f"Score {state.score[0]}-{state.score[1]}"
                 + (" (finished)" if state.finished else " (in progress)"))
    return "\n".join(lines) + "\n"


def game_end_line(end: dict[str, Any], players: list[str]) -> str:
    """A game's end as the table's live log says it (``result_words``)."""
    winner = end["winner"]
    who, loser = (players[winner], players[1 - winner]) if winner in (0, 1) else ("?", "?")
    words = result_words(int(end["points"]), str(end.get("win", "single game")),
                         str(end.get("how", "played")), int(end.get("cube", 1)), loser)
    return f"  {who} wins {words}; score {end['score'][0]}-{end['score'][1]}"
