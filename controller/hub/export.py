"""The match record a director downloads from a table's page.

The engine's Jellyfish ``.mat`` writer (``engine.backgammon.mat_writer``) is used when it is
present and offers ``write_match_text``; until then the hub serves the journal-derived move list
as plain text (one line per move: game, player, dice, move), and says so in the file.
"""

from __future__ import annotations

import importlib
from typing import Any

from controller.hub.contract import MatchState


def _engine_writer() -> Any:
    try:
        module = importlib.import_module("engine.backgammon.mat_writer")
    except ImportError:
        return None
    return getattr(module, "write_match_text", None)


def match_record(state: MatchState, table: str) -> tuple[str, str, str]:
    """(text, content type, file name) of a match's record."""
    writer = _engine_writer()
    if writer is not None:
        return str(writer(state.detail())), "text/plain; charset=utf-8", f"table-{table}.mat"
    return moves_text(state, table), "text/plain; charset=utf-8", f"table-{table}-moves.txt"


def moves_text(state: MatchState, table: str) -> str:
    """The plain-text move list (not a .mat file: no .mat writer is available to the hub)."""
    players = state.players
    lines = [
        f"# hakem table {table}, match {state.match}",
        "# plain move list from the journal (the .mat writer is not available)",
        f"# {players[0]} vs {players[1]}, "
        + (f"{state.length}-point match" if state.length else "unlimited"),
    ]
    game = None
    ends = {g["game"]: g for g in state.games}
    for move in state.moves:
        if move["game"] != game:
            if game in ends:
                lines.append(_game_end_line(ends[game], players))
            game = move["game"]
            lines.append(f"Game {game}")
        who = players[move["player"]] if move["player"] in (0, 1) else "?"
        dice = "".join(str(d) for d in move["dice"]) if move["dice"] else "--"
        lines.append(f"  {who}: {dice}: {move['move'] or '(no move)'}")
    if game in ends:
        lines.append(_game_end_line(ends[game], players))
    lines.append(f"Score {state.score[0]}-{state.score[1]}"
                 + (" (finished)" if state.finished else " (in progress)"))
    return "\n".join(lines) + "\n"


def _game_end_line(end: dict[str, Any], players: list[str]) -> str:
    who = players[end["winner"]] if end["winner"] in (0, 1) else "?"
    return f"  {who} wins {end['points']} point(s); score {end['score'][0]}-{end['score'][1]}"
