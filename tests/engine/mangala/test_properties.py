"""Property tests over random legal games: 48 stones always, every game ends, stores sum to 48."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.mangala.position import Position
from engine.mangala.sowing import legal_pits, play

# A set can be long but not endless: store counts never fall, and between store increases each
# player's stones only move right on their own side. 1000 moves is far beyond any real set.
MOVE_LIMIT = 1000
SETTINGS = settings(derandomize=True, database=None, max_examples=200, deadline=None)


@SETTINGS
@given(st.sampled_from(["a", "b"]), st.lists(st.integers(0, 5), min_size=1, max_size=400))
def test_random_legal_games_keep_48_stones_end_and_fill_the_stores(
    starter: str, choices: list[int]
) -> None:
    position = Position.initial("a" if starter == "a" else "b")
    moves = 0
    while not position.set_over:
        pits = legal_pits(position)
        assert pits, "a player to move always has a non-empty pit until the set is over"
        pit = pits[choices[moves % len(choices)] % len(pits)]
        result = play(position, pit)
        after = result.position
        assert after.total() == 48
        assert min(after.board()) >= 0
        assert after.a_store >= position.a_store and after.b_store >= position.b_store
        assert (after.to_move == result.mover) == result.extra_turn
        position = after
        moves += 1
        assert moves < MOVE_LIMIT
    assert position.to_move is None
    assert position.a_store + position.b_store == 48
    assert not any(position.a) and not any(position.b)
    assert result.set_over and result.winner is not None


@SETTINGS
@given(
    st.lists(st.integers(0, 48), min_size=13, max_size=13),
    st.sampled_from(["a", "b"]),
    st.integers(0, 5),
)
def test_any_position_with_48_stones_plays_legally(cuts: list[int], side: str, index: int) -> None:
    bounds = [0, *sorted(cuts), 48]
    counts = [hi - lo for lo, hi in pairwise(bounds)]
    position = Position.from_board(counts, "a" if side == "a" else "b")
    pits = legal_pits(position)
    if not pits:
        assert position.set_over
        return
    result = play(position, pits[index % len(pits)])
    assert result.position.total() == 48
    assert result.set_over == result.position.set_over
    if result.set_over:
        assert result.position.a_store + result.position.b_store == 48
