"""The round and its sets (MG-T-1, MG-T-2, MG-CLOCK-1): journalling their starts and ends,
and the score the live log says."""

from __future__ import annotations

from controller.mangala.state import RefereeState
from controller.referee.api import ClockCommand
from engine.mangala.scoring import SetResult


def begin_round(ref: RefereeState) -> None:
    """Journal the round's start and its first set."""
    cfg = ref.config
    ref._emit("match_start", game="mangala", **cfg.to_json())
    ref._do(ref._countdown())
    ref._signal("system_ok", True)
    ref._say(f"Mangala round: {ref.name('a')} (a, bottom) against {ref.name('b')} "
             f"(b, top); up to 3 sets, 2 set points win (MG-T-1)")
    start_set(ref)


def start_set(ref: RefereeState) -> None:
    """Journal the next set's start, if the round has one: both times reset (MG-CLOCK-1)."""
    number = ref.round.current_set
    if number is None:
        return
    starter = ref.round.starter(number)
    ref._emit("game_start", set=number, starter=starter, clock_ms=ref.config.set_ms)
    # MG-CLOCK-1: both times back to the set's full time, on hold until the set starts
    ref._do(ref._countdown())
    minutes = ref.config.set_ms / 60000
    ref._say(f"Set {number}: {ref.name(starter)} ({starter}) starts (MG-T-2); "
             f"{minutes:g} minutes each on the clock (MG-CLOCK-1); 4 stones in every pit")


def end_set(ref: RefereeState, result: SetResult, *, checked: bool | None,
            seen: tuple[int, int] | None) -> None:
    """Journal a set's end and its result (MG-4, MG-CLOCK-3); then the next set or the
    round's end."""
    ref._emit(
        "game_end",
        set=result.number,
        starter=result.starter,
        stores=[result.a_store, result.b_store],
        winner=result.winner,
        ended_by=result.ended_by,
        timed_out=result.timed_out,
        stores_total=result.a_store + result.b_store,
        stores_checked=checked,
        stores_seen=list(seen) if seen is not None else None,
        points={"a": ref.round.set_points("a") + result.points("a"),
                "b": ref.round.set_points("b") + result.points("b")},
    )
    ref._do(ClockCommand("hold"))
    outcome = ("drawn" if result.winner == "draw"
               else f"won by {ref.name(result.winner)} ({result.winner})")
    ref._say(f"Set {result.number} {outcome} {result.a_store}-{result.b_store} "
             f"({result.ended_by}); {score_text(ref)}")
    if ref.round.over:
        end_round(ref, "played")
    else:
        start_set(ref)


def end_round(ref: RefereeState, how: str) -> None:
    """Journal the round's end and its round points (MG-T-1); ``how`` it ended."""
    winner = ref.round.winner
    points = ref.round.round_points() if ref.round.over else {"a": 0.0, "b": 0.0}
    ref._emit("match_end", winner=winner, points=points, how=how,
              sets=[s.to_obj() for s in ref.round.sets])
    ref._do(ClockCommand("hold"))
    who = "drawn" if winner == "draw" else f"won by {ref.name(winner or 'a')} ({winner})"
    ref._say(f"Round {who}: points a {points['a']:g}, b {points['b']:g} (MG-T-1)")


def score_text(ref: RefereeState) -> str:
    """The set points and warnings so far, as the live log says them."""
    r = ref.round
    return (f"sets a {r.set_points('a'):g} - b {r.set_points('b'):g}, "
            f"warnings a {r.warning_count('a')} b {r.warning_count('b')}")


__all__ = ["begin_round", "end_round", "end_set", "score_text", "start_set"]
