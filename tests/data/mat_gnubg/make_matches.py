"""Make the .mat files of this folder with GNU Backgammon 1.07 (see README.md).

Run inside gnubg: ``gnubg -t -q -r -p make_matches.py`` in this folder. Self-play matches and
one money session by gnubg's 0-ply player with seeded Mersenne Twister dice, and a money game
driven command by command for GNU Backgammon's beaver notation.
"""

import gnubg  # type: ignore[import-not-found]

NAMES = ("Ali Veli", "Şükrü")


def gnubg_plays() -> None:
    """gnubg's 0-ply player takes both sides and plays on."""
    for player in (0, 1):
        gnubg.command(f"set player {player} gnubg")
        gnubg.command(f"set player {player} chequerplay evaluation plies 0")
        gnubg.command(f"set player {player} cubedecision evaluation plies 0")
    gnubg.command("play")


def self_play(seed: int, new: str, path: str, games: int = 1, extra: tuple[str, ...] = ()) -> None:
    """One match (or ``games`` games of a money session) of gnubg against itself."""
    session = new == "new session"
    for command in (
        "set rng mersenne",
        "set player 0 human",
        "set player 1 human",
        "set display off",
        "set automatic game " + ("off" if session else "on"),
        *extra,
        f"set seed {seed}",
        new,
        f"set player 0 name {NAMES[0]}",
        f"set player 1 name {NAMES[1]}",
    ):
        gnubg.command(command)
    gnubg_plays()
    for _ in range(games - 1):
        gnubg.command("new game")
    gnubg.command("export match mat " + path)


def beaver_game(path: str, answer: str, *, raccoon: bool = False) -> None:
    """A money game: an opening move, a double, a beaver (and with ``raccoon`` the doubler's
    beaver of it, ``Beavers => 8``), then ``answer`` (``take``: two moves each and the doubler
    rolls and resigns; ``drop``: the game ends there)."""
    for command in (
        "set rng mersenne",
        "set seed 42",
        "set player 0 human",
        "set player 1 human",
        "set beavers 3",
        "set jacoby off",
        "set cube use on",
        "set display off",
        "set automatic game off",
        "set automatic roll off",
        "new session",
        "set player 0 name Ali",
        "set player 1 name Veli",
        "move 8/3 6/3",
        "double",
        "beaver",
        *(("beaver",) if raccoon else ()),
        answer,
    ):
        gnubg.command(command)
    if answer == "take":
        for move in ("24/18 13/11", "13/8 13/8 6/1 6/1"):
            gnubg.command("roll")
            gnubg.command("move " + move)
        gnubg.command("roll")
        gnubg.command("resign normal")
        gnubg.command("accept")
    gnubg.command("export match mat " + path)


def resigned_at_once(path: str) -> None:
    """A 5-point match whose first two games the roller resigns on the opening roll, before any
    move (Veli a gammon, then Ali a single game), then a game of gnubg against itself."""
    for command in (
        "set rng mersenne",
        "set seed 42",
        "set player 0 human",
        "set player 1 human",
        "set cube use on",
        "set display off",
        "set automatic game off",
        "set automatic roll off",
        "new match 5",
        "set player 0 name Ali",
        "set player 1 name Veli",
        "resign gammon",
        "accept",
        "new game",
        "resign normal",
        "accept",
        "new game",
    ):
        gnubg.command(command)
    gnubg_plays()
    gnubg.command("export match mat " + path)


for length, seed in ((1, 301), (3, 203), (5, 205), (7, 107), (11, 111)):
    self_play(seed, f"new match {length}", f"match{length:02d}.mat")
self_play(11, "new session", "money.mat", games=6, extra=("set jacoby off", "set beavers 3"))
beaver_game("beaver_taken.mat", "take")
beaver_game("beaver_dropped.mat", "drop")
self_play(
    20, "new session", "money_gammons.mat", games=3, extra=("set jacoby off", "set cube use off")
)
resigned_at_once("resigned_at_once.mat")
beaver_game("raccoon.mat", "take", raccoon=True)
