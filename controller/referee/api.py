"""The referee's contract with the runtime: what it is told, and what it asks to be done.

The referee does no I/O and reads no clock: every event carries ``t_ms`` (the runtime's
monotonic milliseconds), and every effect is a command the runtime carries out in order. A
:class:`JournalEntry` is always emitted before the commands that act on it, and the runtime
appends (and fsyncs) it before going on (DESIGN.md, Records). Replaying a journal's events
through a new referee rebuilds the same state, which is how a restarted table resumes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

Side = Literal["left", "right"]
Colour = Literal["darker", "lighter"]
Zone = Literal["centre", "darker-side", "lighter-side", "offered", "off-board"]
ClockAction = Literal[
    "start", "hold", "resume", "set_times", "configure_delay", "configure_countdown"
]
Signal = Literal[
    "turn_left", "turn_right", "throw_again", "illegal_move", "cannot_read", "system_ok"
]


# --- what vision saw, as the referee needs it -------------------------------------------------


@dataclass(frozen=True)
class DieSeen:
    """One die at rest: its upward face and whether the throw may count (BG-ROLL-2)."""

    pips: int
    half: Literal["left", "right", "off-board"]  # half of the picture it rests in
    flat: bool
    on_checker: bool
    confidence: float
    # Where it rests (any fixed unit, e.g. mm of the playing surface), or None. Only compared
    # between frames: a die thrown again never lands exactly where it lay, so with centres a
    # new throw of the same numbers into the same half is told from the dice lying there.
    centre: tuple[float, float] | None = None
    # Whether the picture about it changed since the board at the last press (the camera's
    # word, ``vision.dice.reuse``), or None when unknown: a die thrown again that landed
    # where it lay is told from one nobody touched.
    touched: bool | None = None
    # The dice reader's probability that it is cocked (its pose model; 0 when not given): a die
    # read flat is judged flat only below ``RecognitionSettings.flat_doubt``.
    p_cocked: float = 0.0


@dataclass(frozen=True)
class CubeSeen:
    """The doubling cube: face shown (64 for the centred cube of value 1) and where it is."""

    value: int
    zone: Zone
    confidence: float


class BoardView(Protocol):
    """A still frame's reading as the referee asks about it (engine-in-the-loop, DESIGN.md).

    The runtime adapts ``vision.board_reader.BoardReading`` and ``vision.scoring`` to this;
    tests use synthetic views.
    """

    @property
    def occluded(self) -> bool:
        """True when a hand or anything else hides part of the board."""
        ...

    def log_likelihood(
        self, slots: Sequence[tuple[int, int]], bar: tuple[int, int]
    ) -> float | None:
        """How well (darker, lighter) per image slot and on the bar explain the frame.

        None when too little of the board is visible to judge at all.
        """
        ...

    def best_counts(self) -> tuple[tuple[tuple[int, int], ...], tuple[int, int], float] | None:
        """Vision's own most likely (slots, bar) and its confidence, or None when hidden."""
        ...


# --- events in --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FrameSeen:
    """A still frame (the stillness gate passed): the board, dice and cube as read.

    Keep sending still frames while the scene stays still: a verdict on a move adds up the
    evidence of several still frames since the last :class:`MotionSeen` (the referee's
    ``RecognitionSettings.agree``, 3 by default), so one misread frame cannot decide it.
    """

    t_ms: int
    board: BoardView
    dice: tuple[DieSeen, ...] = ()
    cube: CubeSeen | None = None


@dataclass(frozen=True)
class MotionSeen:
    """Frames are moving (hands, rolling dice): nothing can be read now."""

    t_ms: int


@dataclass(frozen=True)
class ClockPressed:
    """A player pressed their side of the clock (TTB-CLOCK-2: this ends a move or a cube action)."""

    t_ms: int
    side: Side
    times_ms: tuple[int, int]  # both clocks right after the press, (left, right)
    # (boot, number) the clock gave the press, journalled so a restart knows which presses it
    # has acted on; ``recovered``: a press the clock counted but the journal never got (the
    # host died between acknowledging and journalling it), recovered from the clock's count
    press: tuple[int, int] | None = None
    recovered: bool = False


@dataclass(frozen=True)
class ClockHoldPressed:
    """The hold button (a player stopping the clock: a drop under BG-CUBE-3, or a dispute)."""

    t_ms: int
    times_ms: tuple[int, int]
    press: tuple[int, int] | None = None  # as ClockPressed.press
    recovered: bool = False


def press_fields(event: ClockPressed | ClockHoldPressed) -> dict[str, Any]:
    """A press's journal fields: ``press`` ([boot, number] the clock gave it) and
    ``recovered``, so a restarted table knows which presses it has acted on."""
    out: dict[str, Any] = {}
    if event.press is not None:
        out["press"] = [int(event.press[0]), int(event.press[1])]
    if event.recovered:
        out["recovered"] = True
    return out


@dataclass(frozen=True)
class PressesUnseen:
    """Clock presses made while the table could not see the board (the host was down; the
    clock sent or counted them on the restart). The turns they ended cannot be judged on the
    picture seen now, which already shows what came after them (TTB-6.1).

    ``presses``: those that arrived, in order; ``lost``: ``(boot, number)`` of those the clock
    counted that will not come (their buttons unknown); ``running``: the side whose time runs
    now, as the clock says (None when held, flagged or unknown)."""

    t_ms: int
    presses: tuple[ClockPressed | ClockHoldPressed, ...]
    lost: tuple[tuple[int, int], ...] = ()
    running: Side | None = None


@dataclass(frozen=True)
class FlagFell:
    """A side's time ran out (TTB-CLOCK-3)."""

    t_ms: int
    side: Side


@dataclass(frozen=True)
class DirectorAction:
    """A tournament director's override from the command line or the hub.

    ``action`` is one of: "accept" (accept the flagged move as it stands), "reject" (flag the
    last accepted move), "set_position" (``args["position_id"]``), "set_dice"
    (``args["dice"]``), "end_match" (``args["winner"]``), "note", "rethrow" (BG-ROLL-5: the
    mover has a throw made before they pressed the clock thrown again; also once it counted,
    until the thrower moves).
    Also "resign" (``args["player"]`` 0 or 1 resigns, ``args["kind"]`` 1 single, 2 gammon,
    3 backgammon; the opponent has accepted): how a game ends without being played out. And
    "set_cube" (``args["value"]`` 1..64, ``args["owner"]`` 0, 1 or None for centred, optional
    ``args["game"]``): the cube put right (BG-CUBE-5), in the game under way or, until the
    next game's first throw, in the game that ended, which is scored again.

    ``request``: the id of the ``hakem director`` request it carries out, journalled with it so
    that a table restarted before answering the request does not carry it out twice.
    """

    t_ms: int
    action: str
    args: dict[str, Any] = field(default_factory=dict)
    director: str = ""
    request: str = ""


def director_fields(event: DirectorAction, args: dict[str, Any]) -> dict[str, Any]:
    """A director's action's journal fields (``args`` as the referee checked them), with the
    id of the request it carries out, by which a restarted table knows it was taken."""
    out: dict[str, Any] = {"action": event.action, "args": args, "director": event.director}
    if event.request:
        out["request"] = event.request
    return out


Event = (FrameSeen | MotionSeen | ClockPressed | ClockHoldPressed | PressesUnseen | FlagFell
         | DirectorAction)


def director_command(action: str) -> str:
    """The ``hakem director`` command that asks for ``action`` (``set_position`` is typed
    ``set-position``): the word the director knows it by."""
    return action.replace("_", "-")


def director_refusal(action: str, reason: object) -> str:
    """The live log's sentence for a director's request the referee refused (either game),
    naming the action as the director typed it: "The director's set-position was refused: ..."."""
    return f"The director's {director_command(action)} was refused: {reason}"


def director_note(args: dict[str, Any]) -> str:
    """The live log's line for a director's note (either game), which is also the answer
    ``hakem director note`` prints: "Director's note: ..."."""
    return f"Director's note: {args.get('text', '')}"


def refusal_reason(text: str, action: str) -> str | None:
    """The reason in :func:`director_refusal`'s sentence for ``action``; None for other text."""
    said = director_refusal(action, "")
    return text[len(said):] if text.startswith(said) else None


# --- commands out -----------------------------------------------------------------------------


@dataclass(frozen=True)
class JournalEntry:
    """Append to the journal (contract types of DESIGN.md) before doing anything after it."""

    type: str
    fields: dict[str, Any]


@dataclass(frozen=True)
class ClockCommand:
    """Drive the match clock: start a side, hold, resume, set both times, or configure it.
    ``set_times`` with a side also starts that side's time: the clock as the journal left it,
    restored after a restart (a clock that kept its state is not sent it)."""

    action: ClockAction
    side: Side | None = None
    args: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class SetSignal:
    """Turn an LED on or off (turn lights per side and the shared status lights)."""

    signal: Signal
    on: bool


@dataclass(frozen=True)
class Buzz:
    """Sound a buzzer pattern: "flag", "illegal", "throw_again", "ok"."""

    pattern: str


@dataclass(frozen=True)
class TakeSnapshot:
    """Keep a JPEG of the current frame as evidence for the flag journalled as ``seq`` (TTB-6.1).

    ``missing``: only if no file of that name was kept, from the next still frame: a restarted
    table whose journal ends with a flag went down before that flag's snapshot was taken."""

    label: str
    missing: bool = False


def lost_snapshot(entries: Sequence[Mapping[str, Any]]) -> list[TakeSnapshot]:
    """On a restart, the snapshot of the journal's last entry when that is a flag: the snapshot
    is taken just after the flag is journalled, so a table that went down between the two left
    the journal naming a picture it never kept (taken then, if still missing, from the board
    as the restarted table first sees it still)."""
    label = entries[-1].get("snapshot") if entries else None
    return [TakeSnapshot(label, missing=True)] if isinstance(label, str) and label else []


@dataclass(frozen=True)
class Say:
    """One line for the live log a person reads (who threw what, each move, each flag and why)."""

    text: str


Command = JournalEntry | ClockCommand | SetSignal | Buzz | TakeSnapshot | Say


class RefereeProtocol(Protocol):
    """What the runtime drives: one event in, the commands to carry out in order."""

    def handle(self, event: Event) -> list[Command]:
        """Take one event (a frame, a press, a director's action) and return what the table
        must carry out for it, in order."""
