"""Drive a referee through a synthetic stream and check it, shared by the referee tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.referee.api import Command, Event, JournalEntry, MotionSeen
from controller.referee.config import RefereeConfig
from controller.referee.machine import Referee
from engine.backgammon.mat_reader import ActionKind, MatMatch, parse_mat_bytes
from engine.backgammon.mat_replay import replay, rules_for
from engine.backgammon.mat_replayed import Replay
from tests.controller.referee.tablesim import Stream, TableSim


def read_mat(path: Path) -> MatMatch:
    return parse_mat_bytes(path.read_bytes())


def complete_matches(folder: Path) -> list[Path]:
    """The real matches that replay legally to the end (the others are unfinished records)."""
    out = []
    for path in sorted(folder.glob("*.txt")):
        result = replay(read_mat(path))
        if result.legal and result.complete:
            out.append(path)
    return out


def entries_of(commands: Sequence[Command]) -> list[dict[str, Any]]:
    """The journal entries among commands, as the journal would hold them (less seq/time)."""
    return [{"type": c.type, **c.fields} for c in commands if isinstance(c, JournalEntry)]


@dataclass
class Run:
    stream: Stream
    outputs: list[list[Command]]
    entries: list[dict[str, Any]]
    owner: list[int]  # for each entry, the index of the event that produced it


def config_for(record: MatMatch, **kw: Any) -> RefereeConfig:
    return RefereeConfig(
        players=(record.players[0] or "Player 1", record.players[1] or "Player 2"),
        length=record.length,
        rules=rules_for(record),
        **kw,
    )


def run_stream(config: RefereeConfig, stream: Stream) -> Run:
    referee = Referee(config)
    outputs: list[list[Command]] = []
    entries: list[dict[str, Any]] = []
    owner: list[int] = []
    for index, event in enumerate(stream.events):
        out = referee.handle(event)
        outputs.append(out)
        new = entries_of(out)
        entries.extend(new)
        owner.extend([index] * len(new))
    return Run(stream, outputs, entries, owner)


def simulate(
    path: Path, seed: int, *, config: RefereeConfig | None = None, **kw: Any
) -> tuple[MatMatch, RefereeConfig, Run]:
    record = read_mat(path)
    config = config or config_for(record)
    stream = TableSim(record, config, seed, **kw).run()
    return record, config, run_stream(config, stream)


def windows(events: Sequence[Event], start: int) -> range:
    """Events from ``start`` up to the next hand movement: while the scene stays as it is."""
    end = start + 1
    while end < len(events) and not isinstance(events[end], MotionSeen):
        end += 1
    return range(start, end)


def check_expectations(run: Run) -> list[str]:
    """Every expected journal entry (and every planted fault) came while the scene it is about
    was still on the board, and no illegal_move came anywhere else."""
    problems = []
    types = [[e["type"] for e in entries_of(out)] for out in run.outputs]
    flag_windows: set[int] = set()
    for index, want in sorted(run.stream.expect.items()):
        window = windows(run.stream.events, index)
        if want == "move":
            # the last checker borne off ends the game from the still frames, before any press
            start = index
            while start > 0 and not isinstance(run.stream.events[start - 1], MotionSeen):
                start -= 1
            window = range(start, window.stop)
        if want == "illegal_move":
            flag_windows.update(window)
        if not any(want in types[i] for i in window):
            problems.append(f"event {index}: expected {want}, got {types[index]}")
    for index, got in enumerate(types):
        if "illegal_move" in got and index not in flag_windows:
            problems.append(f"event {index}: a legal move was flagged")
    return problems


def match_facts(result: Replay) -> list[Any]:
    """Per game: every move (player, dice as a set, position after), every cube action, the
    result and the score before it: what must survive a round trip through the referee."""
    facts: list[Any] = []
    turns = {(t.game, t.line, t.player): t for g in result.games for t in g.turns}
    for game, replayed in zip(result.record.games, result.games, strict=False):
        items: list[Any] = [("score", replayed.start_score)]
        for action in game.actions:
            if action.kind is ActionKind.ROLL:
                turn = turns.get((game.number, action.line, action.player))
                if turn is not None:
                    items.append(
                        ("move", turn.player, tuple(sorted(turn.dice)), turn.result.position_id)
                    )
            elif action.kind in (ActionKind.DOUBLE, ActionKind.TAKE, ActionKind.DROP):
                items.append((action.kind.value, action.player))
        if replayed.result is not None:
            items.append(("result", replayed.result.winner, replayed.result.points))
        facts.append(items)
    facts.append(("final", result.final_score))
    return facts
