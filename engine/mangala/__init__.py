"""Mangala rules of the Turkish Mind and Intelligence Games Federation (MG-*).

``position`` holds the value type and its JSON; ``sowing`` plays a pit (MG-1..MG-4); ``judge``
names the pit behind an observed before/after pair or what went wrong; ``scoring`` counts sets,
rounds, warnings and time-outs; ``record`` holds the plain-text round record's format and
entries, which ``record_reader`` reads, ``record_writer`` writes (``record_builder`` during
play) and ``record_check`` replays (what it found in ``record_result``).
"""

from engine.mangala.judge import Verdict, judge
from engine.mangala.position import Position, Side, opposite_pit, other
from engine.mangala.scoring import Round, SetResult, set_result, time_out
from engine.mangala.sowing import MoveResult, explain, legal_pits, play

__all__ = [
    "MoveResult",
    "Position",
    "Round",
    "SetResult",
    "Side",
    "Verdict",
    "explain",
    "judge",
    "legal_pits",
    "opposite_pit",
    "other",
    "play",
    "set_result",
    "time_out",
]
