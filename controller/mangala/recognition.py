"""Which legal sowing explains the still frames: engine-in-the-loop recognition for Mangala.

The position before the move gives at most six legal sowings (MG-1), a few more when a sowing
ends in the mover's own store and the mover sows again (MG-1's extra turn, followed here up to
``depth`` sowings). Each candidate's 14 counts are scored against the frames; the best legal
candidate is accepted when it explains the frames nearly as well as vision's own best board and
clearly better than any other legal board. When none does:

- the opponent may have sown before the mover pressed: a legal turn of the mover followed by a
  sowing of the opponent, legal or one of the typical mistakes, that explains the frames is no
  mistake of the mover (MG-CLOCK-2, ``early``): the opponent's early sowing is not judged
  before their own press (the warning of MG-T-4 is for the player whose move it is); but a
  board one wrong sowing of the mover also gives is the mover's mistake, not the opponent's;
- one of the mistakes players make while sowing (``controller.mangala.mistakes``, or the board
  left unchanged) that explains the frames well and much better than every legal candidate is
  flagged;
- otherwise vision's own board is flagged when it is read confidently in every cell, holds the
  48 stones, differs plainly from every legal result (``unexplained_visibility``) and explains
  the frames far better than any of them (``unexplained_gap``): whatever the mistake, no legal
  sowing gives that board (MG-T-4). The engine's judge names the rule and why.

Never an accusation from a hidden cell, a reading that is not 48 stones (a stone that left the
board is put back by the referee, MG-T-6), or a board that differs from a legal result only as a
misread pile would: the referee takes the one legal sowing that explains the frames far better
than any other, or waits for more frames and in the end says it cannot read.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from controller.mangala.mistakes import all_mistakes, mistakes, other_mistakes
from controller.mangala.view import CELLS, MangalaView
from engine.mangala.judge import judge
from engine.mangala.position import STONES, Position
from engine.mangala.sowing import MoveResult, legal_pits, play

Board = tuple[int, ...]
STORES = (6, 13)  # the stores' cells: a's, b's
Kind = Literal["legal", "illegal", "early", "unclear", "unreadable"]


@dataclass(frozen=True)
class Settings:
    """Thresholds in nats per frame (log-likelihood units of the stone reader)."""

    accept_gap: float = 10.0  # best legal board this close to vision's best board: accept
    flag_gap: float = 12.0  # an illegal board this much better than every legal one: flag
    ambiguity: float = 3.0  # two different legal boards closer than this: wait for more
    frames: int = 3  # still frames (since the last motion) whose evidence is added up
    depth: int = 3  # sowings in one turn followed through extra turns (MG-1)
    max_hidden: int = 2  # a legal board may be accepted with up to this many cells hidden
    unexplained_visibility: int = 3  # a board no legal sowing gives, this plain (visibility)
    unexplained_gap: float = 14.0  # ... and this much better than any legal one: flag it
    pit_evidence: float = 4.0  # ... with this much of it in the pits (stores are big piles)
    sweep_gap: float = 15.0  # the swept board may be this far from vision's best (big stores)
    strong_margin: float = 10.0  # a legal board this much better than any other legal one ...
    misread_gap: float = 24.0  # ... is taken over an unexplained reading at most this far off
    chain_prior: float = 2.0  # per extra sowing in a line seen only at the press (MG-1)


@dataclass(frozen=True)
class Line:
    """One way the turn may have gone: the pits sown in order and their results.

    ``board`` is what the table shows after it; ``sweep_pending`` marks the board of a set's
    last sowing before the MG-4 sweep has been made.
    """

    pits: tuple[int, ...]
    results: tuple[MoveResult, ...]
    board: Board
    sweep_pending: bool = False
    mistake: str | None = None  # a mistaken sowing of the last pit: what went wrong

    @property
    def last(self) -> MoveResult:
        return self.results[-1]

    @property
    def wrongly(self) -> str:
        """How a mistaken sowing went, as said after its pit (`` wrongly (...)``); else ""."""
        return f" wrongly ({self.mistake})" if self.mistake else ""


@dataclass(frozen=True)
class Decision:
    """What the frames say about the move: a legal line, an illegal board, or not yet."""

    kind: Kind
    line: Line | None = None
    lines: tuple[Line, ...] = ()  # every legal line giving the same board as ``line``
    seen: Board | None = None  # the board the frames show best (illegal verdicts)
    gap: float = math.inf  # per frame: vision's best minus the best legal candidate
    rule: str | None = None
    reason: str = ""
    frames: int = 0
    then: Line | None = None  # "early": the opponent's sowing made before the mover pressed


def lines(position: Position, depth: int = 3) -> list[Line]:
    """Every legal way to play the turn from ``position`` (MG-1: extra turns followed)."""
    out: list[Line] = []

    def walk(pos: Position, pits: tuple[int, ...], results: tuple[MoveResult, ...]) -> None:
        for pit in legal_pits(pos):
            r = play(pos, pit)
            p, rs = (*pits, pit), (*results, r)
            out.append(Line(p, rs, r.position.board()))
            if r.set_over and r.sown.board() != r.position.board():
                out.append(Line(p, rs, r.sown.board(), sweep_pending=True))
            if r.extra_turn and len(p) < depth:
                walk(r.position, p, rs)

    walk(position, (), ())
    return out


def usable(views: Sequence[MangalaView], settings: Settings) -> list[MangalaView]:
    """The last ``settings.frames`` frames with a reading at all."""
    ok = [v for v in views if not v.occluded and v.best_counts() is not None]
    return ok[-settings.frames:]


def score(views: Sequence[MangalaView], board: Board) -> float | None:
    """The summed log-likelihood of ``board`` over ``views``; None if any cannot judge it."""
    total = 0.0
    for v in views:
        value = v.log_likelihood(board)
        if value is None:
            return None
        total += value
    return total


def vision_board(views: Sequence[MangalaView]) -> tuple[Board, Board]:
    """Vision's best board over ``views`` (per cell, summed log-probabilities) and the best
    board holding exactly 48 stones reached from it by the cheapest changes of one stone."""
    sums = [[0.0] * (STONES + 1) for _ in range(CELLS)]
    for v in views:
        best = v.best_counts()
        assert best is not None
        for c, row in enumerate(best[1]):
            for n, lp in enumerate(row[: STONES + 1]):
                sums[c][n] += lp
    raw = [max(range(len(row)), key=lambda n, r=row: r[n]) for row in sums]  # type: ignore[misc]
    board = list(raw)
    for _ in range(2 * STONES):
        total = sum(board)
        if total == STONES:
            break
        step = 1 if total < STONES else -1
        options = [
            (sums[c][board[c] + step] - sums[c][board[c]], c)
            for c in range(CELLS)
            if 0 <= board[c] + step <= STONES
        ]
        _, cell = max(options)
        board[cell] += step
    return tuple(raw), tuple(board)


def decide(
    views: Sequence[MangalaView], position: Position, settings: Settings = Settings()
) -> Decision:
    """The verdict the frames support on the turn played from ``position``."""
    frames = usable(views, settings)
    if not frames:
        return Decision("unreadable", reason="no still frame of the whole board yet")
    n = len(frames)
    hidden = max(sum(v.hidden) for v in frames)
    candidates = lines(position, settings.depth)
    scored: list[tuple[float, Line]] = []
    for line in candidates:
        s = score(frames, line.board)
        if s is not None:
            # two sowings with no still frame between them are less likely than one
            scored.append((s - settings.chain_prior * (len(line.pits) - 1) * n, line))
    if not scored:
        return Decision("unreadable", reason="too few pits in view to judge", frames=n)
    scored.sort(key=lambda t: -t[0])
    best_score, best = scored[0]
    raw, fixed = vision_board(frames)
    tops = [best_score]
    for board in {raw, fixed}:
        s = score(frames, board)
        if s is not None:
            tops.append(s)
    top = max(tops)
    gap = (top - best_score) / n
    same = tuple(line for s, line in scored if line.board == best.board)
    others = [s for s, line in scored if line.board != best.board]
    margin = (best_score - others[0]) / n if others else math.inf
    if gap <= settings.accept_gap:
        # a legal sowing explains the frames about as well as vision's own best board
        if margin < settings.ambiguity:
            return Decision("unclear", best, same, gap=gap, frames=n,
                            reason=f"two legal sowings explain the frame almost equally "
                                   f"({margin:.1f} nats apart)")
        if hidden <= settings.max_hidden:
            return Decision("legal", best, same, gap=gap, frames=n)
        return Decision("unclear", best, same, gap=gap, frames=n, reason=f"{hidden} cells hidden")
    # The illegal outcomes: the board unchanged, and the mistakes players make (MG-1..MG-3).
    legal_boards = {line.board for line in candidates}
    wrong: list[tuple[float, Board]] = []
    for board in {position.board(), *(b for _, _, b in all_mistakes(position))}:
        if board in legal_boards:
            continue
        s = score(frames, board)
        if s is not None:
            wrong.append((s, board))
    wrong.sort(key=lambda t: -t[0])
    wrong_score = wrong[0][0] if wrong else -math.inf
    # The opponent sowing before the mover pressed: no mistake at all (MG-CLOCK-2).
    early = _early(frames, position, candidates, legal_boards)
    fixed_score = score(frames, fixed)
    # the best board of 48 stones: vision's own best may not hold 48 (a misread big store)
    top48 = max(best_score, fixed_score if fixed_score is not None else -math.inf)
    if early is not None and hidden == 0:
        early_score, (line, then) = early
        if ((top48 - early_score) / n <= settings.accept_gap
                and (early_score - best_score) / n >= settings.flag_gap
                and early_score > wrong_score):
            mover, opponent = line.results[0].mover, then.results[0].mover
            return Decision("early", line, (line,), seen=then.board, gap=gap, then=then,
                            rule="MG-CLOCK-2", frames=n,
                            reason=f"{opponent} sowed pit {then.pits[0]}{then.wrongly} before "
                                   f"{mover} pressed the clock: not illegal; {opponent} takes it "
                                   f"back and waits for the press (MG-CLOCK-2)")
    lead = (wrong_score - best_score) / n
    fits = bool(wrong) and (max(top, wrong_score) - wrong_score) / n <= settings.accept_gap
    if hidden == 0 and lead >= settings.flag_gap and fits:
        seen = wrong[0][1]
        rule, reason = explain_illegal(position, seen)
        return Decision("illegal", best, same, seen=seen, gap=gap, rule=rule, reason=reason,
                        frames=n)
    if hidden:
        return Decision("unclear", best, same, gap=gap, frames=n, reason=f"{hidden} cells hidden")
    if lead > settings.accept_gap and fits:
        return Decision("unclear", best, same, seen=wrong[0][1], gap=gap, frames=n,
                        reason=f"a mistaken sowing explains the frame {lead:.1f} nats better "
                               f"than any legal one, not surely enough to flag")
    # No legal sowing and no modelled mistake fits: what does vision's own reading show?
    raw_score = score(frames, raw)
    seen = fixed
    ref = best.board  # the legal board the generic flag weighs vision's own board against
    plain = visibility(seen, best.board)
    lead_seen = ((fixed_score - best_score) / n) if fixed_score is not None else -math.inf
    if fixed_score is None or (
        raw_score is not None and (raw_score - fixed_score) / n > settings.accept_gap
    ):
        # vision insists the stones are not 48: a stone off the board, or a misread store (a
        # big pile) when the pits alone are read as the 48-stone board has them; then only
        # the pits' evidence counts, against the legal board whose pits fit best
        in_stores = all(x == y for c, (x, y) in enumerate(zip(raw, fixed, strict=True))
                        if c not in STORES)
        seen = fixed if fixed_score is not None and in_stores else raw
        ref = max(candidates, key=lambda line: pit_score(frames, line.board)).board
        plain = visibility(seen, ref)
        lead_seen = (pit_score(frames, seen) - pit_score(frames, ref)) / n
    count = sum(seen)
    pit_evidence = (pit_score(frames, seen) - pit_score(frames, ref)) / n
    in_pits = any(x != y for c, (x, y) in enumerate(zip(seen, ref, strict=True))
                  if c not in STORES)
    differing = sum(1 for x, y in zip(seen, best.board, strict=True) if x != y)
    # Stones are never added in play, and one that leaves the board is no foul of the sowing:
    # the players report it and the referee puts it back (seed rule g, MG-T-6). So a reading
    # that is not 48 stones is no accusation; nor is a board that differs from a legal result
    # only as a misread big pile would (a stone between two piles of 3 or more).
    misread = count != STONES or plain < settings.unexplained_visibility
    if count < STONES:
        note = (f"{count} stones in view, not 48: if a stone left the board, the players report "
                f"it and the referee puts it back (MG-T-6)")
    elif count > STONES:
        note = f"the reading adds up to {count} stones, not 48"
    else:
        note = (f"the board is {differing} pit(s) from pit {best.pits[0]}'s result, as a "
                f"misread pile would be")
    if misread and margin >= settings.strong_margin and gap <= settings.misread_gap:
        # one legal sowing explains the frame far better than any other: take it (DESIGN.md)
        return Decision("legal", best, same, seen=seen, gap=gap, frames=n,
                        reason=f"best explained by this sowing; {note}")
    if (not misread and seen == fixed and fixed_score is not None
            and lead_seen >= settings.unexplained_gap
            and in_pits and pit_evidence >= settings.pit_evidence
            and (early is None or early[0] < fixed_score - settings.accept_gap * n)):
        # vision reads, confidently and in every pit, a board of 48 stones that no legal
        # sowing gives (and that differs from it in the pits, not only in the big piles of the
        # stores), nor the opponent's early sowing: the move is against the rules whatever
        # the mistake was (MG-T-4)
        rule, reason = explain_illegal(position, seen)
        return Decision("illegal", best, same, seen=seen, gap=gap, rule=rule, reason=reason,
                        frames=n)
    if not misread:
        note = (f"the best legal sowing is {gap:.1f} nats per frame from what vision sees, "
                f"not surely enough to flag")
    return Decision("unclear", best, same, seen=seen, gap=gap, frames=n, reason=note)


def _early(frames: Sequence[MangalaView], position: Position, candidates: Sequence[Line],
           legal_boards: set[Board]) -> tuple[float, tuple[Line, Line]] | None:
    """The best board of a legal turn of the mover followed by a sowing of the opponent, legal
    or mistaken (the mover forgot to press, MG-CLOCK-2), with its score, or None. A mistaken
    one is left out when one wrong sowing of the mover gives the same board: the simpler
    reading, and the warning of MG-T-4 is for the player whose turn it was."""
    out: tuple[float, tuple[Line, Line]] | None = None
    movers_own: set[Board] | None = None  # worked out only when a mistaken one would win
    for line in candidates:
        after = line.last
        if after.set_over or after.extra_turn or line.sweep_pending:
            continue
        wrong = [Line((pit,), (play(after.position, pit),), board, mistake=name)
                 for pit, name, board in all_mistakes(after.position)]
        for then in [*lines(after.position, 2), *wrong]:
            if then.board in legal_boards:
                continue
            s = score(frames, then.board)
            if s is None or (out is not None and s <= out[0]):
                continue
            if then.mistake is not None:
                if movers_own is None:
                    movers_own = _movers_wrong(position, candidates)
                if then.board in movers_own:
                    continue
            out = (s, (line, then))
    return out


def _movers_wrong(position: Position, candidates: Sequence[Line]) -> set[Board]:
    """Every board one wrong sowing of the mover gives, modelled or not
    (:mod:`controller.mangala.mistakes`), at the turn's start or after an extra turn (MG-1)."""
    starts = {position.board(): position}
    for line in candidates:
        if line.last.extra_turn and not line.last.set_over:
            starts.setdefault(line.last.position.board(), line.last.position)
    return {board for start in starts.values() for pit in legal_pits(start)
            for _, board in (*mistakes(start, pit), *other_mistakes(start, pit))}


def pit_score(views: Sequence[MangalaView], board: Board) -> float:
    """The summed log-probability vision gives ``board``'s pit counts (stores left out)."""
    total = 0.0
    for v in views:
        best = v.best_counts()
        assert best is not None
        logs = best[1]
        total += sum(logs[c][board[c]] for c in range(CELLS)
                     if c not in STORES and not v.hidden[c] and board[c] < len(logs[c]))
    return total


def visibility(board: Board, other: Board) -> int:
    """How plainly two boards differ to a camera and a watching player: stones out of place,
    counting double where a small pile (0..2 stones, seen at a glance) differs."""
    return sum(abs(x - y) + (1 if min(x, y) <= 2 else 0)
               for x, y in zip(board, other, strict=True) if x != y)


def explain_illegal(position: Position, seen: Board) -> tuple[str, str]:
    """The rule and sentence for a board no legal sowing gives (the engine's judge)."""
    after = Position.from_board(seen, None)
    verdict = judge(position, after)
    if verdict.legal:  # cannot happen for a board no legal line gives; say so plainly
        return "MG-1", "the board does not match the sowing vision reads; a legal sowing is due"
    rule = verdict.rule or "MG-1"
    return rule, verdict.reason


__all__ = ["Decision", "Line", "Settings", "decide", "explain_illegal", "lines", "score",
           "usable", "visibility", "vision_board"]
