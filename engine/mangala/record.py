"""The plain-text record of a Mangala round: reader, writer and replay check.

One line per event, words separated by spaces, ``#`` to the end of a line is a comment::

    # hakem mangala round record
    player a Ayşe Yılmaz
    player b Mehmet Demir
    set 1 start a
    1 a 4 -> a 4 4 4 1 5 5 [1] b 4 4 4 4 4 4 [0] next a
    1 a 6 -> a 4 4 4 1 5 1 [2] b 5 5 5 4 4 4 [0] next b
    warning 1 b touched pit 3 and played pit 5
    position 1 a 4 4 4 1 5 5 [1] b 4 4 4 4 4 4 [0] next b
    timeout 1 b
    set 1 end a 20 b 16 winner a
    set 2 start b
    ...
    round end winner a points a 1 b 0

or, for a round a tournament director ended during set 2::

    ...
    set 2 start b
    2 b 4 -> a 4 4 4 4 4 4 [0] b 4 4 4 1 5 5 [1] next b
    director 2 end winner a b left the hall

A move line is: set, mover, pit, ``->``, then the position after it: side a's pits 1..6 and
``[store]``, side b's pits and ``[store]``, and ``next`` with the player to move (``-`` once the
set is over, the MG-4 sweep made). A ``position N ...`` line is a tournament director's
correction during set N: the position written (as after a move line's ``->``, with ``next a`` or
``next b``) replaces the one on the board, and play goes on from it; it must hold 48 stones
(MG-EQ-1). A ``director N end winner W [reason]`` line is a tournament director's decision
during set N (or just after it ended): the round ends there, won by W (a or b; round points
1 and 0, MG-T-1), with the director's reason if one was given; the set under way is not
scored and no further line may play on. A ``timeout N X`` line is for the player to move:
only the mover's time runs (MG-CLOCK-2), so a time-out of the other player is an illegal line.
``set N end`` and ``round end`` lines are optional; when present the replay checks them. The
reader rejects a malformed line naming its number; the replay (:func:`check_record`) reports
the first line the rules forbid, with its rule ID.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.errors import PositionError, RecordFormatError, RuleViolationError
from engine.mangala.judge import judge
from engine.mangala.position import PITS, SIDES, STONES, Position, Side
from engine.mangala.scoring import Round, SetResult, set_result, time_out
from engine.mangala.sowing import Winner, play

HEADER = "# hakem mangala round record"


@dataclass(frozen=True)
class SetStart:
    """``set N start X``: set N begins with X to move (MG-T-2)."""

    line: int
    number: int
    starter: Side


@dataclass(frozen=True)
class Move:
    """``N X P -> ...``: in set N, X sowed pit P, giving ``after``."""

    line: int
    number: int
    mover: Side
    pit: int
    after: Position


@dataclass(frozen=True)
class SetPosition:
    """``position N a ... next X``: during set N the director set the board to ``position``."""

    line: int
    number: int
    position: Position


@dataclass(frozen=True)
class Caution:
    """``warning N X reason``: the referee warned X during set N (MG-T-4)."""

    line: int
    number: int
    player: Side
    reason: str


@dataclass(frozen=True)
class TimeOut:
    """``timeout N X``: X's time ran out in set N (MG-CLOCK-3)."""

    line: int
    number: int
    player: Side


@dataclass(frozen=True)
class SetEnd:
    """``set N end a S b S winner W``: the stores and result of set N as the recorder saw them."""

    line: int
    number: int
    a_store: int
    b_store: int
    winner: Winner


@dataclass(frozen=True)
class DirectorDecision:
    """``director N end winner W [reason]``: during set N a tournament director ended the round
    with W the winner, for ``reason`` (empty when none was given)."""

    line: int
    number: int
    winner: Side
    reason: str


@dataclass(frozen=True)
class RoundEnd:
    """``round end winner W points a P b P``: the round's result (MG-T-1)."""

    line: int
    winner: Winner
    a_points: float
    b_points: float


Entry = SetStart | Move | SetPosition | Caution | TimeOut | SetEnd | DirectorDecision | RoundEnd


@dataclass(frozen=True)
class RoundRecord:
    """A whole (or unfinished) round: the players' names and the events in order."""

    players: dict[Side, str] = field(default_factory=dict)
    entries: tuple[Entry, ...] = ()


# --- reading ---------------------------------------------------------------------------------


def parse_record(text: str) -> RoundRecord:
    """Read a round record; :class:`RecordFormatError` names the first malformed line. A byte
    order mark (a record saved by a Windows editor) is not part of the first line."""
    text = text.removeprefix("\ufeff")
    players: dict[Side, str] = {}
    entries: list[Entry] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        try:
            if words[0] == "player":
                side, name = _player_line(words)
                players[side] = name
            else:
                entries.append(_entry(number, words))
        except (RecordFormatError, PositionError) as exc:
            raise RecordFormatError(f"line {number}: {exc}: {_clip(line)}") from None
    return RoundRecord(players, tuple(entries))


def _player_line(words: list[str]) -> tuple[Side, str]:
    if len(words) < 3:
        raise RecordFormatError("a player line is 'player a|b NAME'")
    return _side(words[1]), " ".join(words[2:])


def _entry(line: int, words: list[str]) -> Entry:
    head = words[0]
    if head == "set":
        if len(words) == 4 and words[2] == "start":
            return SetStart(line, _set_number(words[1]), _side(words[3]))
        if (
            len(words) == 9
            and words[2:4] == ["end", "a"]
            and words[5] == "b"
            and (words[7] == "winner")
        ):
            return SetEnd(
                line,
                _set_number(words[1]),
                _count(words[4]),
                _count(words[6]),
                _winner(words[8]),
            )
        raise RecordFormatError("a set line is 'set N start X' or 'set N end a S b S winner W'")
    if head == "position":
        return _set_position(line, words)
    if head == "warning":
        if len(words) < 3:
            raise RecordFormatError("a warning line is 'warning N X [reason]'")
        return Caution(line, _set_number(words[1]), _side(words[2]), " ".join(words[3:]))
    if head == "timeout":
        if len(words) != 3:
            raise RecordFormatError("a time-out line is 'timeout N X'")
        return TimeOut(line, _set_number(words[1]), _side(words[2]))
    if head == "director":
        return _director(line, words)
    if head == "round":
        if (
            len(words) != 9
            or words[1:3] != ["end", "winner"]
            or words[4:6] != ["points", "a"]
            or words[7] != "b"
        ):
            raise RecordFormatError("a round line is 'round end winner W points a P b P'")
        return RoundEnd(line, _winner(words[3]), _points(words[6]), _points(words[8]))
    if head.isdecimal():
        return _move(line, words)
    raise RecordFormatError(f"unknown line kind {head!r}")


def _move(line: int, words: list[str]) -> Move:
    # N X P -> a p p p p p p [s] b p p p p p p [s] next Y
    if (
        len(words) != 22
        or words[3] != "->"
        or words[4] != "a"
        or words[12] != "b"
        or (words[20] != "next")
    ):
        raise RecordFormatError(
            "a move line is 'N X P -> a p p p p p p [s] b p p p p p p [s] next X|-'"
        )
    pit_text = words[2]
    if not pit_text.isdecimal() or not 1 <= int(pit_text) <= PITS:
        raise RecordFormatError(f"pit {pit_text!r} is not 1..6")
    after = _position(words[4:])
    return Move(line, _set_number(words[0]), _side(words[1]), int(pit_text), after)


def _position(words: list[str]) -> Position:
    # a p p p p p p [s] b p p p p p p [s] next X (checked for shape by the caller)
    a = tuple(_count(w) for w in words[1:7])
    b = tuple(_count(w) for w in words[9:15])
    next_text = words[17]
    to_move: Side | None = None if next_text == "-" else _side(next_text)
    return Position(a, _store(words[7]), b, _store(words[15]), to_move)


def _set_position(line: int, words: list[str]) -> SetPosition:
    # position N a p p p p p p [s] b p p p p p p [s] next X
    if len(words) != 20 or words[2] != "a" or words[10] != "b" or words[18] != "next":
        raise RecordFormatError(
            "a position line is 'position N a p p p p p p [s] b p p p p p p [s] next X'"
        )
    if words[19] not in ("a", "b"):
        raise RecordFormatError(f"a set position names who moves next, a or b, not {words[19]!r}")
    return SetPosition(line, _set_number(words[1]), _position(words[2:]))


def _director(line: int, words: list[str]) -> DirectorDecision:
    # director N end winner W [reason ...]
    if len(words) < 5 or words[2] != "end" or words[3] != "winner":
        raise RecordFormatError("a director line is 'director N end winner a|b [reason]'")
    number = _set_number(words[1])
    if words[4] not in ("a", "b"):
        raise RecordFormatError(f"the director's winner {words[4]!r} is not a or b")
    winner: Side = "a" if words[4] == "a" else "b"
    return DirectorDecision(line, number, winner, " ".join(words[5:]))


def _side(text: str) -> Side:
    if text == "a":
        return "a"
    if text == "b":
        return "b"
    raise RecordFormatError(f"player {text!r} is not a or b")


def _winner(text: str) -> Winner:
    return "draw" if text == "draw" else _side(text)


def _set_number(text: str) -> int:
    if text not in ("1", "2", "3"):
        raise RecordFormatError(f"set number {text!r} is not 1, 2 or 3")
    return int(text)


def _count(text: str) -> int:
    if not text.isdecimal():
        raise RecordFormatError(f"stone count {text!r} is not a whole number")
    return int(text)


def _store(text: str) -> int:
    if not (text.startswith("[") and text.endswith("]")):
        raise RecordFormatError(f"store {text!r} is not written [n]")
    return _count(text[1:-1])


def _points(text: str) -> float:
    if text not in ("0", "0.5", "1"):
        raise RecordFormatError(f"round points {text!r} are not 0, 0.5 or 1")
    return float(text)


def _clip(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


# --- writing ---------------------------------------------------------------------------------


def one_line(text: str) -> str:
    """Free text (a name, a reason) as a record line holds it: one line, single spaces, no
    ``#``, which the reader would take for the start of a comment."""
    return " ".join(text.replace("#", "no. ").split())


def format_position(position: Position) -> str:
    """A position as a move line writes it: ``a 4 4 4 1 5 5 [1] b 4 4 4 4 4 4 [0] next a``."""
    return (
        f"a {' '.join(map(str, position.a))} [{position.a_store}] "
        f"b {' '.join(map(str, position.b))} [{position.b_store}] "
        f"next {position.to_move or '-'}"
    )


def format_entry(entry: Entry) -> str:
    """One record line, without its newline."""
    if isinstance(entry, SetStart):
        return f"set {entry.number} start {entry.starter}"
    if isinstance(entry, Move):
        return f"{entry.number} {entry.mover} {entry.pit} -> {format_position(entry.after)}"
    if isinstance(entry, SetPosition):
        return f"position {entry.number} {format_position(entry.position)}"
    if isinstance(entry, Caution):
        return f"warning {entry.number} {entry.player} {one_line(entry.reason)}".rstrip()
    if isinstance(entry, TimeOut):
        return f"timeout {entry.number} {entry.player}"
    if isinstance(entry, SetEnd):
        return f"set {entry.number} end a {entry.a_store} b {entry.b_store} winner {entry.winner}"
    if isinstance(entry, DirectorDecision):
        reason = one_line(entry.reason)
        return f"director {entry.number} end winner {entry.winner} {reason}".rstrip()
    return (
        f"round end winner {entry.winner} points a {_point_text(entry.a_points)} "
        f"b {_point_text(entry.b_points)}"
    )


def _point_text(points: float) -> str:
    return "0.5" if points == 0.5 else str(int(points))


def format_record(record: RoundRecord) -> str:
    """The text of a record, as :func:`parse_record` reads it back."""
    lines = [HEADER]
    lines += [f"player {side} {one_line(record.players[side]) or side}"
              for side in SIDES if side in record.players]
    lines += [format_entry(entry) for entry in record.entries]
    return "\n".join(lines) + "\n"


class RecordBuilder:
    """Builds a correct record while a round is played (used by the referee and tests)."""

    def __init__(self, first_starter: Side, players: dict[Side, str] | None = None) -> None:
        self.players = dict(players or {})
        self.round = Round(first_starter)
        self.entries: list[Entry] = []
        self.position: Position | None = None

    def start_set(self) -> Position:
        """Begin the next set with its MG-T-2 starter; returns the starting position."""
        number = self._number()
        starter = self.round.starter(number)
        self.position = Position.initial(starter)
        self.entries.append(SetStart(0, number, starter))
        return self.position

    def move(self, pit: int) -> Position:
        """Play ``pit`` in the current set and record it; closes the set when it ends (MG-4)."""
        if self.position is None:
            raise RuleViolationError("no set is in progress")
        mover = self.position.to_move
        result = play(self.position, pit)
        assert mover is not None
        self.entries.append(Move(0, self._number(), mover, pit, result.position))
        self.position = result.position
        if result.set_over:
            self._close(set_result(result.position, self._number(), self._starter()))
        return result.position

    def set_position(self, position: Position) -> None:
        """Record a director's correction: play goes on from ``position`` in the current set."""
        if self.position is None:
            raise RuleViolationError("no set is in progress")
        self.entries.append(SetPosition(0, self._number(), position))
        self.position = position

    def warn(self, player: Side, reason: str = "") -> None:
        """Record a warning (MG-T-4)."""
        self.entries.append(Caution(0, self._number(), player, reason))
        self.round = self.round.warn(player, reason)
        if self.round.over:
            self.position = None
            points = self.round.round_points()
            winner = self.round.winner
            assert winner is not None
            self.entries.append(RoundEnd(0, winner, points["a"], points["b"]))

    def time_out(self, player: Side) -> None:
        """Record ``player``'s time running out and close the set (MG-CLOCK-3)."""
        if self.position is None:
            raise RuleViolationError("no set is in progress")
        self.entries.append(TimeOut(0, self._number(), player))
        self._close(time_out(self.position, player, self._number(), self._starter()))

    def end_by_director(self, winner: Side, reason: str = "") -> None:
        """Record a director ending the round in the current (or just ended) set, ``winner``
        the winner; nothing is played after it."""
        number = self.round.current_set
        if number is None:
            raise RuleViolationError("the round is already over: a director cannot end it again")
        if self.position is None:  # between sets: the set just ended
            number = len(self.round.sets)
        if number == 0:
            raise RuleViolationError("no set has started: there is no round to end yet")
        self.entries.append(DirectorDecision(0, number, winner, reason))
        self.round = self.round.end_by_director(winner, number, reason)
        self.position = None

    def _close(self, result: SetResult) -> None:
        self.entries.append(SetEnd(0, result.number, result.a_store, result.b_store, result.winner))
        self.round = self.round.add_set(result)
        self.position = None
        winner = self.round.winner
        if winner is not None:
            points = self.round.round_points()
            self.entries.append(RoundEnd(0, winner, points["a"], points["b"]))

    def _number(self) -> int:
        number = self.round.current_set
        if number is None:
            raise RuleViolationError("the round is over: no further set is played (MG-T-1)")
        return number

    def _starter(self) -> Side:
        return self.round.starter(self._number())

    def record(self) -> RoundRecord:
        """The record so far."""
        return RoundRecord(dict(self.players), tuple(self.entries))


# --- replay ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """The first line of a record the rules forbid."""

    line: int
    set_number: int | None
    rule: str
    reason: str

    def to_obj(self) -> dict[str, object]:
        """The JSON form of ``first_illegal``."""
        return {"line": self.line, "set": self.set_number, "rule": self.rule, "reason": self.reason}


@dataclass(frozen=True)
class RecordCheck:
    """What replaying a record found."""

    moves: int
    round: Round
    in_progress: Position | None
    first_illegal: Problem | None

    @property
    def legal(self) -> bool:
        """True when every line agrees with the rules."""
        return self.first_illegal is None

    def to_obj(self) -> dict[str, object]:
        """The JSON object ``hakem mangala check --json`` prints."""
        over = self.round.over
        return {
            "legal": self.legal,
            "moves": self.moves,
            "sets": [s.to_obj() for s in self.round.sets],
            "warnings": {side: self.round.warning_count(side) for side in SIDES},
            "round_over": over,
            "winner": self.round.winner,
            # the director's decision that ended the round, when one did (else null)
            "director_end": self._director_end(),
            "points": self.round.round_points() if over else None,
            "first_illegal": self.first_illegal.to_obj() if self.first_illegal else None,
            # the set under way where the record stops (its position after the last line)
            "in_progress": self._in_progress(),
        }

    def _director_end(self) -> dict[str, object] | None:
        decision = self.round.ended_by_director
        if decision is None:
            return None
        return {"set": decision.set_number, "winner": decision.winner, "reason": decision.reason}

    def _in_progress(self) -> dict[str, object] | None:
        position, number = self.in_progress, self.round.current_set
        if position is None or number is None or self.round.over:
            return None
        return {"set": number, "position": position.to_obj()}


class _Stop(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.reason)
        self.problem = problem


def check_record(record: RoundRecord) -> RecordCheck:
    """Replay a record through the rules and report the first line they forbid.

    Lines out of order (a move with no set started, a set number that skips) are format errors
    and raise :class:`RecordFormatError` naming the line.
    """
    starters = [e for e in record.entries if isinstance(e, SetStart)]
    first: Side = starters[0].starter if starters else "a"
    state = _Replay(Round(first))
    try:
        for entry in record.entries:
            state.apply(entry)
    except _Stop as stop:
        return RecordCheck(state.moves, state.round, state.position, stop.problem)
    return RecordCheck(state.moves, state.round, state.position, None)


class _Replay:
    def __init__(self, round_: Round) -> None:
        self.round = round_
        self.position: Position | None = None
        self.number: int | None = None
        self.moves = 0
        self.last_result: SetResult | None = None

    def apply(self, entry: Entry) -> None:
        if isinstance(entry, SetStart):
            self._start(entry)
        elif isinstance(entry, Move):
            self._move(entry)
        elif isinstance(entry, SetPosition):
            self._set_position(entry)
        elif isinstance(entry, Caution):
            self._in_set(entry.line, entry.number, allow_finished=True)
            if self.round.over:
                self._stop(entry.line, entry.number, "MG-T-4", "the round is already over")
            self.round = self.round.warn(entry.player, entry.reason)
            if self.round.over:
                self.position = None
        elif isinstance(entry, TimeOut):
            if self.round.over:
                self._stop(entry.line, entry.number, "MG-T-1", "the round is already over")
            self._in_set(entry.line, entry.number)
            assert self.position is not None
            mover = self.position.to_move
            if entry.player != mover:
                self._stop(
                    entry.line,
                    entry.number,
                    "MG-CLOCK-2",
                    f"{entry.player}'s time cannot run out: it is {mover}'s turn, and only "
                    f"the mover's time runs",
                )
            result = time_out(
                self.position, entry.player, entry.number, self.round.starter(entry.number)
            )
            self._close(result)
        elif isinstance(entry, SetEnd):
            self._set_end(entry)
        elif isinstance(entry, DirectorDecision):
            self._director_end(entry)
        else:
            self._round_end(entry)

    def _stop(self, line: int, number: int | None, rule: str, reason: str) -> None:
        raise _Stop(Problem(line, number, rule, reason))

    def _start(self, entry: SetStart) -> None:
        if self.position is not None:
            raise RecordFormatError(
                f"line {entry.line}: set {entry.number} starts while set {self.number} is "
                f"still being played"
            )
        if self.round.over:
            self._stop(
                entry.line,
                entry.number,
                "MG-T-1",
                f"set {entry.number} may not be played: the round is already over",
            )
        due = len(self.round.sets) + 1
        if entry.number != due:
            raise RecordFormatError(f"line {entry.line}: set {entry.number} where set {due} is due")
        if entry.number == 1:
            self.round = Round(entry.starter, self.round.sets, self.round.warnings)
        expected = self.round.starter(entry.number)
        if entry.starter != expected:
            self._stop(
                entry.line,
                entry.number,
                "MG-T-2",
                f"set {entry.number} is started by {expected}, not {entry.starter}",
            )
        self.number = entry.number
        self.position = Position.initial(entry.starter)
        self.last_result = None

    def _in_set(self, line: int, number: int, *, allow_finished: bool = False) -> None:
        if self.position is None and not (allow_finished and self.number == number):
            raise RecordFormatError(f"line {line}: set {number} is not being played")
        if number != self.number:
            raise RecordFormatError(
                f"line {line}: set {number} given while set {self.number} is being played"
            )

    def _move(self, entry: Move) -> None:
        if self.round.over:
            self._stop(entry.line, entry.number, "MG-T-1", "the round is already over")
        self._in_set(entry.line, entry.number)
        before = self.position
        assert before is not None
        if entry.mover != before.to_move:
            self._stop(
                entry.line,
                entry.number,
                "MG-1",
                f"{entry.mover} moves but it is {before.to_move}'s turn",
            )
        if before.pits(entry.mover)[entry.pit - 1] == 0:
            self._stop(
                entry.line,
                entry.number,
                "MG-1",
                f"{entry.mover}'s pit {entry.pit} is empty: there is nothing to sow",
            )
        result = play(before, entry.pit)
        if result.position != entry.after:
            verdict = judge(before, entry.after)
            if verdict.legal and entry.pit in verdict.pits and not verdict.sweep_pending:
                rule = "MG-4" if result.set_over else "MG-1"
                why = (
                    f"the board is right but the player to move next is "
                    f"{result.position.to_move or '-'}, not {entry.after.to_move or '-'}"
                )
            elif verdict.legal:
                rule = "MG-4" if verdict.sweep_pending else "MG-1"
                why = f"the position written is not the one pit {entry.pit} gives: {verdict.reason}"
            else:
                rule = verdict.rule or "MG-1"
                why = verdict.reason
            if not why.startswith(f"pit {entry.pit}:"):
                why = f"pit {entry.pit}: {why}"
            self._stop(entry.line, entry.number, rule, f"{entry.mover} {why}")
        self.moves += 1
        self.position = result.position
        if result.set_over:
            self._close(set_result(result.position, entry.number, self.round.starter(entry.number)))

    def _set_position(self, entry: SetPosition) -> None:
        if self.round.over:
            self._stop(entry.line, entry.number, "MG-T-1", "the round is already over")
        self._in_set(entry.line, entry.number)
        total = entry.position.total()
        if total != STONES:
            self._stop(
                entry.line,
                entry.number,
                "MG-EQ-1",
                f"the position set holds {total} stones, not {STONES}",
            )
        if entry.position.set_over:
            self._stop(
                entry.line,
                entry.number,
                "MG-4",
                "the position set has a side with no stones: the set would already be over",
            )
        self.position = entry.position

    def _director_end(self, entry: DirectorDecision) -> None:
        """The round ends as the director decided; the set under way is left unscored."""
        if self.round.over:
            self._stop(entry.line, entry.number, "MG-T-1", "the round is already over")
        self._in_set(entry.line, entry.number, allow_finished=True)
        self.round = self.round.end_by_director(entry.winner, entry.number, entry.reason)
        self.position = None

    def _close(self, result: SetResult) -> None:
        self.round = self.round.add_set(result)
        self.last_result = result
        self.position = None

    def _set_end(self, entry: SetEnd) -> None:
        result = self.last_result
        if result is None or result.number != entry.number:
            raise RecordFormatError(f"line {entry.line}: set {entry.number} has not ended")
        if (entry.a_store, entry.b_store) != (result.a_store, result.b_store):
            self._stop(
                entry.line,
                entry.number,
                result.ended_by,
                f"the stores are a {result.a_store} b {result.b_store}, not a "
                f"{entry.a_store} b {entry.b_store}",
            )
        if entry.winner != result.winner:
            self._stop(
                entry.line,
                entry.number,
                result.ended_by,
                f"the set's result is {result.winner}, not {entry.winner}",
            )

    def _round_end(self, entry: RoundEnd) -> None:
        if not self.round.over:
            self._stop(entry.line, None, "MG-T-1", "the round is not over yet")
        points = self.round.round_points()
        if (entry.winner, entry.a_points, entry.b_points) != (
            self.round.winner,
            points["a"],
            points["b"],
        ):
            self._stop(
                entry.line,
                None,
                "MG-T-1",
                f"the round's result is {self.round.winner} with points a "
                f"{_point_text(points['a'])} b {_point_text(points['b'])}",
            )


__all__ = [
    "Caution",
    "DirectorDecision",
    "Entry",
    "Move",
    "Problem",
    "RecordBuilder",
    "RecordCheck",
    "RoundEnd",
    "RoundRecord",
    "SetEnd",
    "SetPosition",
    "SetStart",
    "TimeOut",
    "check_record",
    "format_record",
    "one_line",
    "parse_record",
]
