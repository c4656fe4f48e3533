"""The referee after turns it could not see (TTB-6.1, ``PressesUnseen``): who is on roll, the
position taken from the board, presses before it is taken, the director's say."""

from __future__ import annotations

import dataclasses

from controller.referee.api import ClockPressed, CubeSeen, PressesUnseen
from controller.referee.config import RefereeConfig
from controller.referee.resume import resume
from controller.referee.unseen import plausible
from engine.backgammon.moves import legal_plays
from engine.backgammon.position import Position
from engine.backgammon.rules import DiceSetup, Rules
from tests.controller.referee.table import Table


def _opened(config: RefereeConfig | None = None) -> Table:
    """A table through the opening 3-1 and a reply 6-4, player 0 on roll to throw."""
    table = Table(config)
    table.opening(3, 1)
    table.play_first_legal()
    table.throw(1, 6, 4)
    table.play_first_legal()
    assert table.referee.match.on_roll == 0 and table.referee.stage == "decide"
    return table


def _press(table: Table, player: int, number: int) -> ClockPressed:
    table.t += 10
    return ClockPressed(table.t, table.config.side_of(player), (250_000, 250_000),
                        press=(7, number))


def _unseen(table: Table, *presses: ClockPressed, lost: tuple[tuple[int, int], ...] = (),
            running: int | None = None) -> None:
    side = None if running is None else table.config.side_of(running)
    table.send(PressesUnseen(table.t, presses, lost, side))


def _seen_after_two_moves(table: Table) -> Position:
    """Player 0 plays 6-5, player 1 plays 2-1, unseen: the board, player 0's view (player 0
    on roll again)."""
    mine = legal_plays(table.referee.match.position, (6, 5))[0].result
    return legal_plays(mine.swap(), (2, 1))[0].result.swap()


def test_two_unseen_presses_are_journalled_and_the_board_is_taken() -> None:
    table = _opened()
    _unseen(table, _press(table, 0, 3), _press(table, 1, 4))
    journal = table.journal()
    unseen = [e for e in journal if e.get("means") == "unseen"]
    assert [e["press"] for e in unseen] == [[7, 3], [7, 4]]
    gap = [e for e in journal if e["type"] == "cannot_read"][-1]
    assert (gap["about"], gap["rule"], gap["player"], gap["turns"]) == ("turns_unseen",
                                                                       "TTB-6.1", 0, 2)
    assert table.referee.match.on_roll == 0  # player 1 pressed last: player 0's turn
    # nothing is judged until the board is read whole: the checkers as they lie now
    seen = _seen_after_two_moves(table)
    table.motion()
    table.board0 = seen
    table.dice = (table.die(2, 1), table.die(1, 1))  # player 1's dice, in player 1's half
    out = table.frames()
    taken = table.entries(out, "position_taken")
    assert len(taken) == 1 and taken[0]["player"] == 0
    assert taken[0]["position_id"] == seen.position_id
    assert "seen" in taken[0]  # the last mover's dice are no throw of player 0's
    assert (taken[0]["cube"], taken[0]["owner"]) == (1, None)
    assert not table.entries(table.log, "illegal_move")
    # play goes on from the position taken
    table.throw(0, 5, 2)
    assert table.referee.match.dice == (5, 2)
    table.play_first_legal()
    assert table.entries(table.log, "move")[-1]["player"] == 0
    assert not table.entries(table.log, "illegal_move")


def test_presses_that_never_come_take_the_turn_from_the_clock() -> None:
    """Presses the clock counted but will not send (which buttons is not known): the player
    whose time runs is on roll; each number is journalled so a later restart does not count
    it again."""
    table = _opened()
    _unseen(table, lost=((7, 3), (7, 4), (7, 5)), running=1)
    journal = table.journal()
    assert [e["press"] for e in journal if e.get("means") == "unseen"] == [[7, 3], [7, 4], [7, 5]]
    assert table.referee.match.on_roll == 1
    assert table.entries(table.log, "cannot_read")[-1]["turns"] == 3


def test_a_press_before_the_board_is_taken_is_one_more_unseen_turn() -> None:
    """The hands never left the board long enough: the player on roll throws, moves and
    presses before the position could be taken. That turn is not judged either; the turn
    passes, and the position is taken once the board is seen whole."""
    table = _opened()
    _unseen(table, _press(table, 0, 3), _press(table, 1, 4))
    table.occluded = True  # hands over the board: nothing is read whole
    table.frames()
    out = table.press(0)
    assert [e["means"] for e in table.entries(out, "clock")] == ["unseen"]
    assert table.referee.match.on_roll == 1
    table.occluded = False
    seen = _seen_after_two_moves(table).apply_steps([(13, 8)])  # player 0 moved meanwhile
    table.motion()
    table.board0 = seen
    out = table.frames()
    taken = table.entries(out, "position_taken")
    assert taken and taken[0]["player"] == 1
    assert taken[0]["position_id"] == seen.swap().position_id
    assert not table.entries(table.log, "illegal_move")


def test_with_a_pair_each_the_dice_lying_are_no_throw() -> None:
    """BG-EQ-2 with a pair each: the player on roll's own pair lies in their half from their
    last turn; taking it for a new throw would record a roll nobody made."""
    config = RefereeConfig(players=("Ayse", "Mehmet"), length=5,
                           rules=Rules(dice=DiceSetup.PAIR_EACH))
    table = _opened(config)
    _unseen(table, _press(table, 0, 3), _press(table, 1, 4))
    table.motion()
    table.board0 = _seen_after_two_moves(table)
    table.dice = (table.die(6, 0), table.die(5, 0), table.die(2, 1), table.die(1, 1))
    out = table.frames()
    taken = table.entries(out, "position_taken")
    assert taken and "seen" in taken[0]
    assert not table.entries(out, "roll")


def test_the_director_sets_the_position_and_the_turn() -> None:
    """When the board cannot be taken (here: hidden), the director sets the position and
    who is on roll (``hakem director set-position ID --player N``)."""
    table = _opened()
    _unseen(table, _press(table, 0, 3), lost=((7, 4),), running=1)
    table.occluded = True
    table.frames()
    seen = _seen_after_two_moves(table)
    out = table.director("set_position", position_id=seen.position_id, player=0)
    assert table.entries(out, "director")
    assert table.referee.match.on_roll == 0
    assert table.referee.match.position == seen
    table.occluded = False
    table.frames()
    assert not table.entries(table.log, "position_taken")  # the director's stands
    out = table.director("set_position", position_id=seen.position_id, player=2)
    assert not table.entries(out, "director")  # refused: no such player


def test_a_restarted_table_folds_the_gap_alike() -> None:
    table = _opened()
    _unseen(table, _press(table, 0, 3), _press(table, 1, 4))
    referee, _ = resume(table.journal())
    assert referee.match.on_roll == 0 and referee.stage == "decide"
    assert referee.match.moves_made == table.referee.match.moves_made


def test_a_hidden_checker_is_not_taken_for_one_borne_off() -> None:
    before = Position.initial()
    hidden = Position(tuple(c - 1 if i == 13 else c for i, c in enumerate(before.board)))
    assert hidden.my_off == 1
    assert not plausible(hidden, before)
    home = Position((0, 0, 0, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -15, 0, 0, 0,
                     0, 0, 0))
    fewer = dataclasses.replace(home, board=(0, 0, 0, 0, 0, 3, 3, *home.board[7:]))
    assert plausible(fewer, home)  # bearing off: every checker left is home
    assert not plausible(home, fewer)  # a checker borne off does not come back


def test_the_cube_taken_from_the_board() -> None:
    """A double and a take unseen: the cube on the taker's side, turned to 2."""
    table = _opened()
    _unseen(table, _press(table, 0, 3), _press(table, 1, 4))
    table.motion()
    table.cube = CubeSeen(2, f"{table.config.colour_of(1)}-side", 0.95)  # type: ignore[arg-type]
    out = table.frames()
    taken = table.entries(out, "position_taken")
    assert (taken[0]["cube"], taken[0]["owner"]) == (2, 1)
    assert (table.referee.match.cube.value, table.referee.match.cube.owner) == (2, 1)


def test_a_game_that_ended_while_the_table_was_down_is_ended_by_the_director() -> None:
    """In the bear-off the host goes down; the last checker comes off meanwhile and the board
    shows the next game's set-up. That is no position of the game under way (checkers borne
    off do not come back), so nothing is taken; the director records the game's end
    (``resign``) and the next game is refereed from its opening as usual."""
    table = _opened()
    race = Position((0, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -3, -3, 0, 0, 0,
                     0, 0))  # player 0 on roll: 6 left, 9 off; player 1: 6 left, 9 off
    table.director("set_position", position_id=race.position_id)
    table.board0 = race
    table.frames()
    _unseen(table, _press(table, 0, 3), _press(table, 1, 4))
    table.board0 = Position.initial()
    table.frames()
    assert not table.entries(table.log, "position_taken")
    table.director("resign", player=1, kind=1)
    assert table.entries(table.log, "game_end")
    table.opening(5, 2)
    assert table.referee.match.on_roll == 0 and table.referee.stage == "move"
    table.play_first_legal()
    table.throw(1, 6, 4)
    table.play_first_legal()
    assert not table.entries(table.log, "illegal_move")
    assert [e["player"] for e in table.entries(table.log, "move")[-2:]] == [0, 1]
    assert not table.entries(table.log, "position_taken")  # the new game needs none


def test_a_game_won_while_the_table_was_down_goes_to_the_winner() -> None:
    """Player 1 bore off the last checker unseen: the board shows none of theirs. The game is
    theirs, scored as played from player 0's board (nine off: a single game, BG-SCORE-1);
    it went to player 0 on their next bear-off (review)."""
    table = _opened()
    race = Position((0, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -3, -3, 0, 0, 0,
                     0, 0))
    table.director("set_position", position_id=race.position_id)
    _unseen(table, _press(table, 0, 3), _press(table, 1, 4))
    table.motion()
    table.board0 = Position((0, 1, 2, 1, 0, *[0] * 21))  # player 0: 4 left; player 1: none
    table.frames()
    ended = table.entries(table.log, "game_end")
    assert len(ended) == 1 and (ended[0]["winner"], ended[0]["points"], ended[0]["how"]) == (
        1, 1, "played")
    assert table.referee.match.score == (0, 1)
    assert table.entries(table.log, "game_start")[-1]["number"] == 2


def test_the_red_light_of_a_flag_before_the_gap_goes_out() -> None:
    """A flagged move can no longer be corrected once turns went by unseen: its LED goes
    out, as a restarted table's lights are (review)."""
    table = _opened()
    table.throw(0, 6, 5)
    wrong = legal_plays(table.referee.match.position, (2, 1))[0].result  # not a 6-5 play
    table.place(wrong, 0)
    table.press(0)
    assert table.referee.flagged and "illegal_move" in table.referee._signals
    _unseen(table, _press(table, 1, 4), _press(table, 0, 5))
    assert "illegal_move" not in table.referee._signals
    assert "cannot_read" in table.referee._signals


def test_export_and_dashboard_follow_a_press_made_before_the_board_was_taken() -> None:
    """A press of the player on roll before the board was taken passes the turn (one more
    unseen turn); the director then sets the position without naming the player: the journal
    check (export) and the dashboard read the ID from the same side as the referee (review:
    the export was refused, the dashboard's board turned round)."""
    from controller.hub.contract import MatchState
    from controller.records.mat_export import export_match

    table = _opened()
    _unseen(table, _press(table, 0, 3), _press(table, 1, 4))
    table.occluded = True
    table.frames()
    table.press(0)  # one more unseen turn: player 1 on roll
    assert table.referee.match.on_roll == 1
    theirs = legal_plays(_seen_after_two_moves(table).swap(), (6, 5))[0].result.swap()
    table.director("set_position", position_id=theirs.swap().position_id)
    table.occluded = False
    table.board0 = theirs
    table.throw(1, 4, 2)
    table.play_first_legal()
    journal = [{"seq": i + 1, **e} for i, e in enumerate(table.journal())]
    export = export_match(journal, "j.jsonl")
    assert export.summary["games"][0]["moves"][-1]["player"] == 1
    state = MatchState("m")
    for entry in journal:
        state.apply(entry)
        if entry["type"] == "director":
            assert state.summary()["position_player"] == 1
