"""The match record from a journal: Jellyfish ``.mat`` text, per-move Position IDs, a summary.

The journal's contract entries (DESIGN.md, Records) carry everything: ``match_start`` the
players and length, ``game_start`` the score, ``move`` the dice and the move text, ``double``/
``take``/``drop`` the cube, ``game_end`` the points. After turns the table could not see
(``cannot_read`` about ``turns_unseen``, TTB-6.1) a game's ``.mat`` record has only its result,
as has a game played from a wrong set-up (``setup_error``, BG-EQ-4) or one whose position or
cube the director set (``set_position``, ``set_cube``: a .mat cube turns only by doubles and
takes); the summary keeps every move. Such a cut game keeps its opening roll when cut before
its first move (BG-OPEN-1), and the cube's double and answer after the cut where the record
can hold them (else a note), so its result is the journal's. A game scored again after the
director put its cube right (a ``rescored`` ``game_end``, BG-CUBE-5) has its new points on its
``Wins`` line, with a note when the record's cube is not the one counted (GNU Backgammon
counts a game's end from the record's cube), and another when that game won the match and
the record's count leaves it unfinished.
A move the director rejects (TTB-4.9) leaves the record, with its notes and any cube action
after it; a flagged move that stands (TTB-4.8) is kept as played, though
``hakem mat check`` calls it illegal. What the record cannot say (a position set, a move that
stands, a match lost on time or ended by the director) is a note naming the game and move,
which ``hakem export`` prints on stderr. The ``.mat`` text is written by the
engine's :mod:`engine.backgammon.mat_writer`, so GNU Backgammon imports it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.records.journal_check import check_journal
from engine.backgammon.mat_reader import (
    ActionKind,
    MatAction,
    MatGame,
    MatMatch,
    MatMove,
    parse_move,
)
from engine.backgammon.mat_replay import replay
from engine.backgammon.mat_writer import action_text, format_mat, move_numbers
from engine.errors import RecordFormatError


@dataclass
class _Game:
    number: int
    score: tuple[int, int]
    crawford: bool
    actions: list[MatAction] = field(default_factory=list)
    moves: list[dict[str, Any]] = field(default_factory=list)
    rolled: tuple[int, tuple[int, int]] | None = None  # a roll not yet followed by its move
    result: dict[str, Any] | None = None
    # turns the table could not see (TTB-6.1): the .mat has no way to jump to the position
    # taken after them, so the game's record stops there and goes on with its result (GNU
    # Backgammon imports it as a game ended by resignation, for the points it gave)
    gap: bool = False
    # a cut before the game's first move keeps the opening roll (a .mat game cannot end before
    # it, BG-OPEN-1): written, with no move, just before the result
    cut_roll: tuple[int, tuple[int, int]] | None = None
    # the cube's actions after the cut, (kind, player, value): kept in the record when it can
    # hold them (see _close_gap), so that its result has the cube the journal's has
    gap_cube: list[tuple[ActionKind, int, int]] = field(default_factory=list)
    # what the .mat cannot say, noted once the move numbers are known: (the index of the
    # action it is about, True when it came after that action (-1: before the first), what)
    marks: list[tuple[int, bool, str]] = field(default_factory=list)
    # the director put the game's cube right (BG-CUBE-5): the record's cube, which only its
    # doubles and takes can turn, may no longer be the one its result counts
    cube_set: bool = False


@dataclass(frozen=True)
class MatchExport:
    """What a journal says about the match: the ``.mat`` record and the summary."""

    record: MatMatch
    summary: dict[str, Any]
    notes: tuple[str, ...] = ()  # entries skipped, games cut short (TTB-6.1), for stderr

    @property
    def mat_text(self) -> str:
        return format_mat(self.record)


def _action(player: int, kind: ActionKind, **kw: Any) -> MatAction:
    action = MatAction(line=0, player=player, kind=kind, text="", **kw)
    return MatAction(
        line=0, player=player, kind=kind, text=action_text(action), **kw
    )


def _int(entry: Mapping[str, Any], key: str) -> int:
    value = entry.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise RecordFormatError(
            f"journal entry {entry.get('seq', '?')} ({entry.get('type')}): {key} must be an"
            f" integer, got {value!r}"
        )
    return value


def _dice(entry: Mapping[str, Any]) -> tuple[int, int]:
    dice = entry.get("dice")
    if (
        not isinstance(dice, list | tuple)
        or len(dice) != 2
        or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice)
    ):
        raise RecordFormatError(
            f"journal entry {entry.get('seq', '?')} ({entry.get('type')}): dice must be two"
            f" numbers 1..6, got {dice!r}"
        )
    return (int(dice[0]), int(dice[1]))


def export_match(entries: Sequence[Mapping[str, Any]], source: str = "journal") -> MatchExport:
    """Fold journal entries (oldest first, one per line of ``source``) into the match record
    and its summary, after checking them (impossible values, illegal moves: RecordFormatError
    naming the line)."""
    notes = check_journal(entries, source)
    players: tuple[str, str] | None = None
    length = 0
    games: list[_Game] = []
    flags: list[dict[str, Any]] = []
    match_end: dict[str, Any] | None = None
    for entry in entries:
        kind = entry.get("type")
        if kind == "match_start":
            names = entry.get("players")
            if not isinstance(names, list | tuple) or len(names) != 2:
                raise RecordFormatError(f"match_start: players must be two names, got {names!r}")
            players = (str(names[0]), str(names[1]))
            length = _int(entry, "length")
            continue
        if players is None:
            if kind in (None, ""):
                continue
            raise RecordFormatError(f"the journal's first entry is {kind!r}, not match_start")
        if kind == "game_start":
            score = entry.get("score") or [0, 0]
            games.append(
                _Game(
                    _int(entry, "number"),
                    (int(score[0]), int(score[1])),
                    bool(entry.get("crawford")),
                )
            )
            continue
        if kind in ("invalid_throw", "illegal_move", "cannot_read", "setup_error", "time_out",
                    "early_throw", "cube_refused"):
            flags.append(
                {
                    "seq": entry.get("seq"),
                    "type": kind,
                    "game": games[-1].number if games else 0,
                    "player": entry.get("player"),
                    "rule": entry.get("rule"),
                    "reason": entry.get("reason"),
                    "snapshot": entry.get("snapshot"),
                }
            )
        if kind == "match_end":
            match_end = dict(entry)
            continue
        if not games:
            continue
        game = games[-1]
        if (kind == "opening_roll" and not game.actions and not game.gap
                and isinstance(entry.get("player"), int)):
            first, second = _dice(entry)
            if first != second:  # equal opening dice are thrown again (BG-OPEN-1)
                game.rolled = (_int(entry, "player"), (max(first, second), min(first, second)))
            continue
        if kind == "cannot_read" and entry.get("about") == "turns_unseen" and not game.gap:
            _cut(game)
            notes.append(f"game {game.number}: turns were played unseen at entry seq "
                         f"{entry.get('seq', '?')} (TTB-6.1): the .mat record of that game "
                         f"stops there and {_gives(game.number)}")
        if kind == "setup_error" and entry.get("position_id") and not game.gap:
            # BG-EQ-4: played from the set-up as it lay, which a .mat game cannot start from
            _cut(game)
            notes.append(f"game {game.number} was played from a wrong set-up (BG-EQ-3, entry "
                         f"seq {entry.get('seq', '?')}): its .mat record "
                         f"{_gives(game.number, only=True)}")
        if (kind == "director" and entry.get("action") == "set_position"
                and isinstance(entry.get("args"), Mapping) and not game.gap):
            # the director put the checkers where they should be (or a position of their
            # choice): a .mat game cannot jump to a position either
            _cut(game)
            game.marks.append((len(game.actions) - 1, True, (
                f"the director set the position{_seq(entry)}, which a .mat game cannot do: its"
                f" .mat record stops there and {_gives(game.number)}")))
        if (kind == "director" and entry.get("action") == "set_cube"
                and isinstance(entry.get("args"), Mapping) and game.result is None
                and (game.actions or game.rolled is not None or game.gap)):
            # in a game under way (after a game, before the next game's first throw, it
            # scores the game that ended again: the rescored game_end that follows)
            _cube_set(game, entry, players)
        if kind == "game_end" and entry.get("rescored"):
            notes.extend(_rescored(games, entry, players, length))
            continue
        if kind == "illegal_move" and entry.get("reopen"):
            notes.extend(_reject(game, entry))
            continue
        if game.gap and kind in ("roll", "move", "double", "take", "drop"):
            if kind == "move":
                game.moves.append(_summary_move(entry, in_mat=False))
            elif kind != "roll":
                value = _int(entry, "cube") if kind == "double" else 0
                game.gap_cube.append((ActionKind(kind), _int(entry, "player"), value))
            continue
        if kind == "roll":
            game.rolled = (_int(entry, "player"), _dice(entry))
        elif kind == "move":
            player, dice = _int(entry, "player"), _dice(entry)
            text = str(entry.get("move", ""))
            moves: tuple[MatMove, ...] = tuple(parse_move(tok) for tok in text.split())
            game.actions.append(
                _action(player, ActionKind.ROLL, dice=dice, moves=moves, cannot_move=not moves)
            )
            game.rolled = None
            game.moves.append(_summary_move(entry))
            if entry.get("stands"):
                name = players[player]
                game.marks.append((len(game.actions) - 1, False, (
                    f"{name}'s {dice[0]}{dice[1]}: {text or 'no move'} was flagged illegal "
                    f"({entry.get('flag_rule') or '?'}) and stands "
                    f"({entry.get('rule') or 'TTB-4.8'}); the .mat keeps it as played: GNU "
                    "Backgammon imports it as written, hakem mat check stops there as illegal"
                )))
        elif kind == "double":
            game.actions.append(
                _action(_int(entry, "player"), ActionKind.DOUBLE, value=_int(entry, "cube"))
            )
        elif kind == "take":
            game.actions.append(_action(_int(entry, "player"), ActionKind.TAKE))
        elif kind == "drop":
            game.actions.append(_action(_int(entry, "player"), ActionKind.DROP))
        elif kind == "game_end":
            if game.gap:
                notes.extend(_close_gap(game, players))
            if game.rolled is not None:
                # rolled, then resigned without moving: the roll stays in the record
                player, dice = game.rolled
                game.actions.append(_action(player, ActionKind.ROLL, dice=dice))
                game.rolled = None
            winner, points = _int(entry, "winner"), _int(entry, "points")
            after = entry.get("score") or [0, 0]
            and_match = length > 0 and int(after[winner]) >= length
            game.actions.append(
                _action(winner, ActionKind.WIN, value=points, and_match=and_match)
            )
            game.result = {
                "winner": winner,
                "points": points,
                "win": entry.get("win"),
                "how": entry.get("how"),
                "cube": entry.get("cube"),
                "score": [int(after[0]), int(after[1])],
            }
            unlike = _record_cube(game, entry.get("cube")) if game.cube_set else ""
            if unlike:
                notes.append(f"game {game.number}'s result counts the cube at"
                             f" {entry.get('cube')}, which the director put right"
                             f" (BG-CUBE-5){unlike}")
    if players is None:
        raise RecordFormatError("the journal has no match_start entry")
    mat_games = tuple(
        MatGame(g.number, 0, g.score, tuple(g.actions)) for g in games if g.actions
    )
    for game, mat_game in zip((g for g in games if g.actions), mat_games, strict=True):
        numbers = move_numbers(mat_game)
        for index, after, what in game.marks:
            number = numbers[index] if 0 <= index < len(numbers) else 0
            at = (f"{'after ' if after else ''}move {number}" if number
                  else "before its first move")
            notes.append(f"game {game.number}, {at}: {what}")
    for game in games:
        if not game.actions:  # a game the .mat leaves out (cut before its first move)
            notes.extend(f"game {game.number}, before its first move: {what}; the .mat leaves"
                         " the game out (it has no result)" for _, _, what in game.marks)
    if match_end is not None and mat_games:  # with no game, no .mat is written at all
        notes.extend(_unrecorded_end(match_end, games, players, length))
    record = MatMatch(length=length, players=players, games=mat_games)
    if match_end is not None and mat_games and (games[-1].result or {}).get("rescored"):
        notes.extend(_uncounted_end(record, games[-1], _final_score(games, match_end),
                                    match_end.get("winner"), players))
    summary = {
        "players": list(players),
        "length": length,
        "games": [
            {
                "number": g.number,
                "score_before": [g.score[0], g.score[1]],
                "crawford": g.crawford,
                "result": g.result,
                "moves": g.moves,
            }
            for g in games
        ],
        "final_score": _final_score(games, match_end),
        "winner": match_end.get("winner") if match_end else None,
        "finished": match_end is not None,
        "ended_by": match_end.get("how") if match_end else None,
        "flags": flags,
    }
    return MatchExport(record, summary,
                       tuple(_results_said(notes, games, ended=match_end is not None)))


_GIVES = re.compile("\x00(\\d+)(!?)\x00")


def _gives(number: int, only: bool = False) -> str:
    """A note's word for what the record of game ``number`` gives, settled once the journal's
    whole read (:func:`_results_said`): the game may still be under way."""
    return f"\x00{number}{'!' if only else ''}\x00"


def _results_said(notes: list[str], games: list[_Game], ended: bool) -> list[str]:
    """The notes with each game's record said to give its result, or, for a game still under
    way at the export, to give it once the game ends (there is none yet to give); a game
    without one in a match that has ended (a time-out, the director's end_match) never ends,
    so its record gives none."""
    over = {g.number for g in games if g.result is not None}

    def said(m: re.Match[str]) -> str:
        only = "only " if m.group(2) else ""
        if int(m.group(1)) in over:
            return f"gives {only}its result"
        if ended:
            return "gives no result (the match ended before the game did)"
        return f"will give {only}its result once the game ends"
    return [_GIVES.sub(said, note) for note in notes]


def _seq(entry: Mapping[str, Any]) -> str:
    """`` (entry seq N)`` for an entry the journal numbered, else nothing."""
    return f" (entry seq {entry['seq']})" if entry.get("seq") is not None else ""


def _cube_set(game: _Game, entry: Mapping[str, Any], players: tuple[str, str]) -> None:
    """The director put the cube right during the game (BG-CUBE-5): a .mat game has no line
    for it (its cube turns only by doubles and takes), so its record stops there, as for a
    position set, and gives its result."""
    args = entry["args"]
    owner = args.get("owner")
    said = (f"at {args.get('value')}, {players[owner]}'s" if owner in (0, 1)
            else f"at {args.get('value')} in the centre")
    game.cube_set = True
    if game.gap:
        return
    _cut(game)
    game.marks.append((len(game.actions) - 1, True, (
        f"the director put the cube right ({said}){_seq(entry)}, which a .mat game cannot do:"
        f" its .mat record stops there and {_gives(game.number)}")))


def _rescored(games: list[_Game], entry: Mapping[str, Any], players: tuple[str, str],
              length: int) -> list[str]:
    """A game scored again after the director put its cube right (BG-CUBE-5): its ``Wins``
    line and result take the new points (with the match, when they decide it); a note says
    so, and that its record's cube is not the one counted."""
    number = entry.get("game")
    game = next((g for g in reversed(games) if g.number == number and g.result is not None),
                None)
    if game is None:
        raise RecordFormatError(f"journal entry {entry.get('seq', '?')} (game_end): game"
                                f" {number!r} is scored again, but no such game has ended")
    while games[-1] is not game and not games[-1].actions and games[-1].rolled is None:
        # the next game's start, journalled before it had a throw: it is journalled again
        # with the new score next, or the match has ended
        games.pop()
    winner, points = _int(entry, "winner"), _int(entry, "points")
    after = entry.get("score") or [0, 0]
    and_match = length > 0 and int(after[winner]) >= length
    wins = [i for i, a in enumerate(game.actions) if a.kind is ActionKind.WIN]
    if wins:
        game.actions[wins[-1]] = _action(winner, ActionKind.WIN, value=points,
                                         and_match=and_match)
    game.result = {**(game.result or {}), "points": points, "cube": entry.get("cube"),
                   "score": [int(after[0]), int(after[1])], "rescored": True}
    game.cube_set = True
    note = (f"game {game.number} was scored again{_seq(entry)} after the director put its cube"
            f" right (BG-CUBE-5): {players[winner]} wins {points} point(s) at cube"
            f" {entry.get('cube')}, which its Wins line says")
    return [note + _record_cube(game, entry.get("cube"))]


def _record_cube(game: _Game, counted: object) -> str:
    """The end of a note on a game whose cube the director put right: the cube its record
    shows, when that is not the one its result counts (GNU Backgammon counts a game's end
    from the record's cube, so it may give the game other points)."""
    cube, offered = 1, 1
    for action in game.actions:
        if action.kind is ActionKind.DOUBLE:
            offered = action.value or cube * 2
        elif action.kind is ActionKind.TAKE:
            cube = offered
    if cube == counted:
        return ""
    return (f"; its record's cube stays at {cube} (a .mat cannot set it), from which GNU"
            " Backgammon counts the game's end")


def _cut(game: _Game) -> None:
    """The game's .mat record stops here (see ``_Game.gap``); before its first move it keeps
    the opening roll."""
    if not game.actions:
        game.cut_roll = game.rolled
    game.gap, game.rolled = True, None


_CUBE = (ActionKind.DOUBLE, ActionKind.TAKE, ActionKind.DROP, ActionKind.BEAVER)


def _reject(game: _Game, entry: Mapping[str, Any]) -> list[str]:
    """The director rejected a move the referee had accepted (TTB-4.9): it leaves the record
    (the corrected move follows), with what was noted of it (a move that stands) and any cube
    action after it (a journal of a referee that allowed that: the reject undid the cube,
    which a note says); the summary keeps it, marked rejected."""
    player = entry.get("player")
    rolls = [i for i, a in enumerate(game.actions) if a.kind is ActionKind.ROLL]
    notes = []
    if rolls and not game.gap and game.actions[rolls[-1]].player == player and all(
            a.kind in _CUBE for a in game.actions[rolls[-1] + 1:]):
        cube = [a.text for a in game.actions[rolls[-1] + 1:]]
        del game.actions[rolls[-1]:]
        game.marks = [m for m in game.marks if m[0] < len(game.actions)]
        if cube:
            notes.append(f"game {game.number}: the director rejected a move{_seq(entry)} after"
                         f" the cube was turned ({', '.join(cube)}), which undid the cube too:"
                         " the .mat leaves both out")
    if game.moves and game.moves[-1]["player"] == player:
        game.moves[-1].update(rejected=True, in_mat=False)
    return notes


def _close_gap(game: _Game, players: tuple[str, str]) -> list[str]:
    """At the end of a game whose record was cut: the cube's actions after the cut, where the
    record can hold them (a double at the turn of the player the record has next to roll: the
    last move written gives way to it when its mover doubled), so that the result has the
    journal's cube; the opening roll kept by a cut before the first move. Else a note."""
    cube, roll = game.gap_cube, game.cut_roll
    doubles = sum(1 for kind, _, _ in cube if kind is ActionKind.DOUBLE)
    rolls = [i for i, a in enumerate(game.actions) if a.kind is ActionKind.ROLL]
    # after the director put the cube right, the record's cube is not the journal's: a
    # double written there would double the wrong value
    if cube and (doubles != 1 or cube[0][0] is not ActionKind.DOUBLE or not rolls
                 or game.cube_set):
        said = ", ".join(f"{players[p]} {k.value}s" for k, p, _ in cube)
        out = [f"game {game.number}: the cube's actions after its .mat record stops ({said})"
               " cannot be written there: the .mat's cube stays at its last value, though its"
               " result counts the journal's"]
        cube = []
    else:
        out = []
    if cube:
        doubler = cube[0][1]
        if game.actions[rolls[-1]].player == doubler:
            # the record has the doubler's move last: it gives way to the double
            del game.actions[rolls[-1]:]
            shown = [m for m in game.moves if m.get("in_mat", True) and not m.get("rejected")]
            if shown:
                shown[-1]["in_mat"] = False
                out.append(f"game {game.number}: the .mat record stops a move earlier, before"
                           f" {players[doubler]}'s {shown[-1]['move'] or 'no move'}, to write"
                           " the double that came after the cut")
        for kind, player, value in cube:
            game.actions.append(_action(player, kind, value=value) if value
                                else _action(player, kind))
    if roll is not None and not game.actions:
        game.rolled = roll
    return out


def _unrecorded_end(match_end: Mapping[str, Any], games: list[_Game],
                    players: tuple[str, str], length: int) -> list[str]:
    """A note when the match ended otherwise than the .mat's games say: lost on time
    (TTB-CLOCK-3) or ended by the director, which a .mat has no way to record."""
    winner = match_end.get("winner")
    score = _final_score(games, match_end)
    if winner not in (0, 1) or (length and score[winner] >= length):
        return []
    how = {"time_out": "a time-out (TTB-CLOCK-3)",
           "director": "the director's end_match"}.get(str(match_end.get("how")),
                                                      f"{match_end.get('how')!r}")
    last = games[-1] if games else None
    where = ""
    if last is not None and last.result is None and last.actions:
        where = f" in game {last.number}, which the .mat leaves unfinished"
    return [f"the match ended by {how}{where}, {players[winner]} the winner at "
            f"{score[0]}-{score[1]}: a .mat record cannot say so (its score shows no winner)"]


def _uncounted_end(record: MatMatch, game: _Game, score: list[int], winner: Any,
                   players: tuple[str, str]) -> list[str]:
    """A note when the game scored again (BG-CUBE-5) that won the match is counted short by
    the .mat: a reader counts a game's end from the record's cube, which a .mat cannot set (a
    drop wins the cube before the double; a resignation at most a backgammon), so the record
    may leave the match unfinished though the journal's is won."""
    if winner not in (0, 1):
        return []
    counted = replay(record)
    if not counted.legal or counted.complete:
        return []
    short = counted.final_score
    return [f"the match ended when game {game.number} was scored again (BG-CUBE-5),"
            f" {players[winner]} the winner at {score[0]}-{score[1]}: the .mat counts"
            " that game from its record's cube (as GNU Backgammon and hakem mat check do), which"
            f" leaves the match unfinished at {short[0]}-{short[1]}"]


def _summary_move(entry: Mapping[str, Any], *, in_mat: bool = True) -> dict[str, Any]:
    """A move as the summary lists it (``"in_mat": false`` when the game's .mat record has
    not got it: played after unseen turns, or from a wrong set-up)."""
    dice = _dice(entry)
    out = {
        "player": _int(entry, "player"),
        "dice": [dice[0], dice[1]],
        "move": str(entry.get("move", "")),
        "position_id": entry.get("position_id"),
        "match_id": entry.get("match_id"),
        "stands": bool(entry.get("stands", False)),
    }
    if not in_mat:
        out["in_mat"] = False
    return out


def _final_score(games: list[_Game], match_end: Mapping[str, Any] | None) -> list[int]:
    if match_end is not None and isinstance(match_end.get("score"), list):
        score = match_end["score"]
        return [int(score[0]), int(score[1])]
    for game in reversed(games):
        if game.result is not None:
            return list(game.result["score"])
    return list(games[0].score) if games else [0, 0]


def position_ids(export: MatchExport) -> list[dict[str, Any]]:
    """Every move with its resulting Position ID (mover's view), game by game."""
    rows = []
    for game in export.summary["games"]:
        for number, move in enumerate(game["moves"], start=1):
            rows.append({"game": game["number"], "move": number, **move})
    return rows


__all__ = ["MatchExport", "export_match", "position_ids"]
