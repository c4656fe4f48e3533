"""Records that GNU Backgammon itself writes, read by hakem with gnubg as the oracle.

The files in ``tests/data/mat_gnubg/`` are gnubg's own exports (its README says how they were
made): self-play matches of 1 to 11 points and a money session (doubles, takes, drops,
Crawford and post-Crawford games, gammons, backgammons, resignations) and gnubg's beaver
notation. At test time gnubg also re-exports a real match, and each bundled match is written
again in the variations such files carry (CRLF, byte order mark, tabs, trailing spaces, blank
lines, tag headers, ``bar``/``off``, ``(2)`` repeats, ``and the match``). hakem must read each
one, replay it legally, and agree with gnubg's import of the same file on every game, move,
cube action, Position ID and Match ID; hakem's written copy must import in gnubg identically.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from engine.backgammon.mat_reader import ActionKind, parse_mat_bytes
from engine.backgammon.mat_replay import replay
from engine.backgammon.mat_writer import format_mat, record_from_events, record_from_replay
from engine.backgammon.match import (
    Double,
    EndHow,
    Event,
    Move,
    OpeningRoll,
    Resign,
    Roll,
    Take,
    apply,
    new_match,
)
from engine.backgammon.moves import legal_plays
from engine.backgammon.scoring import WinKind
from tests.conftest import TEST_DATA
from tests.engine.backgammon.mat_oracle import (
    check_games,
    check_ids,
    check_records,
    cube_and_moves,
    gnubg_played,
    gnubg_view,
    written_differs,
)
from tests.gnubg_runner import run_gnubg_script

pytestmark = [pytest.mark.gnubg]

GNUBG_DATA = TEST_DATA / "mat_gnubg"
VARIANT_SOURCE = "match11.mat"
# A real match whose game 4 ends with a roll and the roller's own "Wins" in gnubg's re-export.
REEXPORTED = "match5751765.txt"
# Bundled exports that gnubg cannot import, imports wrongly or reads by other rules: tested below.
OWN_TESTS = {"beaver_dropped.mat", "money_gammons.mat", "raccoon.mat", "resigned_at_once.mat"}


def _tab_lead(text: str) -> str:
    return "\n".join("\t" + line[1:] if line.startswith(" ") else line for line in text.split("\n"))


def _headers(text: str) -> str:
    tags = (
        '; [Site "Ankara Tavla Kulübü"]\n; [Match ID "42"]\n; [Player 1 "Ali Veli"]\n'
        '; [Player 2 "Şükrü"]\n; [Player 1 Elo "1500.00/0"]\n; [EventTime "12.00"]\n'
        '; [Variation "Backgammon"]\n; [Unrated "Off"]\n; [Jacoby "Off"]\n; [Beaver "Off"]\n'
        '; [Crawford "On"]\n; [CubeLimit "1024"]\n; [Transcriber "hakem"]\n'
    )
    return tags + text


def _repeats(text: str) -> str:
    """``13/9 13/9`` becomes ``13/9(2)``."""

    def collapse(m: re.Match[str]) -> str:
        return f"{m.group(1)}({m.group(0).count(m.group(1))})"

    return re.sub(r"(\b\d+/\d+\*?)(?: \1(?![\d/*])){1,3}", collapse, text)


VARIANTS: dict[str, Callable[[str], str]] = {
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "bom": lambda t: "\ufeff" + t,
    "trailing": lambda t: t.replace("\n", "   \n"),
    "blank": lambda t: t.replace("\n", "\n\n"),
    "tab_lead": _tab_lead,
    "headers": _headers,
    "bar_off": lambda t: re.sub(r"/0\b", "/off", re.sub(r"\b25/", "bar/", t)),
    "repeats": _repeats,
    "and_the_match": lambda t: re.sub(r"(Wins \d+ points?)(\s*)\Z", r"\1 and the match\2", t),
}

_REEXPORT = """
import gnubg
gnubg.command('import mat ' + SOURCE)
gnubg.command('export match mat ' + TARGET)
"""


@pytest.fixture(scope="module")
def oracle(
    tmp_path_factory: pytest.TempPathFactory, shared_data: Path, gnubg: str
) -> dict[str, Any]:
    """Per file: hakem's replay, gnubg's view of the file and of hakem's written copy."""
    work = tmp_path_factory.mktemp("gnubg-exports")
    reexported = work / REEXPORTED.replace(".txt", ".mat")
    script = _REEXPORT.replace("SOURCE", repr(str(shared_data / "matches" / REEXPORTED)))
    run_gnubg_script(script.replace("TARGET", repr(str(reexported))))
    files = [p for p in sorted(GNUBG_DATA.glob("*.mat")) if p.name not in OWN_TESTS]
    source = (GNUBG_DATA / VARIANT_SOURCE).read_text(encoding="utf-8")
    for name, change in VARIANTS.items():
        variant = work / f"{name}.mat"
        variant.write_bytes(change(source).encode("utf-8"))
        files.append(variant)
    files.append(reexported)
    replays = {}
    paths: list[Path] = []
    for path in files:
        replays[path.name] = replay(parse_mat_bytes(path.read_bytes()))
        written = work / f"written-{path.name}"
        written.write_text(format_mat(record_from_replay(replays[path.name])), encoding="utf-8")
        paths += [path, written]
    seen = gnubg_view(paths, work)
    return {
        path.name: {
            "path": path,
            "replay": replays[path.name],
            "original": seen[str(path)],
            "written": seen[str(work / f"written-{path.name}")],
        }
        for path in files
    }


def test_the_variations_change_the_text(oracle: dict[str, Any]) -> None:
    """Each variation really rewrites the file (else the tests below prove nothing new)."""
    source = (GNUBG_DATA / VARIANT_SOURCE).read_bytes()
    for name in VARIANTS:
        assert oracle[f"{name}.mat"]["path"].read_bytes() != source, name


def test_hakem_replays_every_gnubg_export_legally(oracle: dict[str, Any]) -> None:
    for name, item in oracle.items():
        result = item["replay"]
        assert result.legal, (name, result.problem)
        assert result.complete, name
        assert result.notes == (), name


def test_games_moves_and_ids_agree_with_gnubg(oracle: dict[str, Any]) -> None:
    """Start score, winner, points, resignation and Crawford flag of every game; every move,
    cube action and resignation; Position ID and Match ID before every record."""
    compared = 0
    for name, item in oracle.items():
        check_games(name, item["replay"], item["original"])
        check_records(name, item["replay"], item["original"])
        compared += check_ids(name, item["replay"], item["original"])
    assert compared > 3_000


def test_written_copies_import_in_gnubg_identically(oracle: dict[str, Any]) -> None:
    assert written_differs(oracle) == []


def test_the_files_cover_what_matches_hold(oracle: dict[str, Any]) -> None:
    """Doubles, takes, drops, beavers, Crawford and post-Crawford games, gammons,
    backgammons, resignations, a money session: the bundled exports hold them all."""
    seen: set[str] = set()
    for item in oracle.values():
        result = item["replay"]
        for game in result.games:
            seen |= {shot.kind for shot in game.snapshots}
            assert game.result is not None
            seen.add(f"{game.result.how.value} {game.result.kind.word}")
            if game.crawford:
                seen.add("crawford")
            elif result.record.length and result.record.length - 1 in game.start_score:
                seen.add("post-crawford")
        seen |= {a.kind.value for g in result.record.games for a in g.actions}
        if result.record.length == 0:
            seen.add("money")
    wanted = {
        "double", "take", "drop", "beaver", "resign", "crawford", "post-crawford", "money",
        "played gammon", "played backgammon", "resigned gammon", "resigned backgammon",
        "dropped single game",
    }  # fmt: skip
    assert wanted <= seen


def test_mat_check_json_agrees_with_gnubg(
    oracle: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    for name, item in oracle.items():
        assert main(["mat", "check", "--json", str(item["path"])]) == 0
        report = json.loads(capsys.readouterr().out)
        games = item["original"]["games"]
        score = [0, 0]
        for game in games:
            score[0 if game["info"]["winner"] == "X" else 1] += game["info"]["points-won"]
        assert report["legal"] is True, name
        assert report["games"] == len(games), name
        assert report["final_score"] == score, name
        assert main(["mat", "check", str(item["path"])]) == 0
        assert "ILLEGAL" not in capsys.readouterr().out, name


def test_a_dropped_beaver_as_gnubg_writes_it() -> None:
    """gnubg writes a dropped beaver as ``Beavers => 4`` then ``Drops`` (and imports its own
    file wrongly, so only its play is the oracle: "Veli wins a single game and 2 points")."""
    path = GNUBG_DATA / "beaver_dropped.mat"
    result = replay(parse_mat_bytes(path.read_bytes()))
    assert result.legal
    last = result.games[0].result
    assert last is not None
    assert (last.winner, last.points, last.how, last.cube_value) == (1, 2, EndHow.DROPPED, 2)
    written = format_mat(record_from_replay(result))
    again = parse_mat_bytes(written.encode("utf-8"))
    kinds = [a.kind for a in again.games[0].actions]
    assert kinds[-3:] == [ActionKind.BEAVER, ActionKind.DROP, ActionKind.WIN]


# gnubg plays two games the roller resigns on the opening roll (a gammon, then a single game),
# then a game against itself: as make_matches.py makes resigned_at_once.mat.
_RESIGNED_AT_ONCE = [
    "set rng mersenne", "set seed 42", "set player 0 human", "set player 1 human",
    "set cube use on", "set display off", "set automatic game off", "set automatic roll off",
    "new match 5", "set player 0 name Ali", "set player 1 name Veli",
    "resign gammon", "accept", "new game", "resign normal", "accept", "new game",
    "set player 0 gnubg", "set player 0 chequerplay evaluation plies 0",
    "set player 0 cubedecision evaluation plies 0", "set player 1 gnubg",
    "set player 1 chequerplay evaluation plies 0", "set player 1 cubedecision evaluation plies 0",
    "play",
]  # fmt: skip


def _undated(mat: bytes) -> bytes:
    """A .mat export without its ``EventDate`` line: gnubg dates each export the day it runs."""
    return re.sub(rb'; \[EventDate "[^"\n]*"\]\n', b"", mat)


def test_games_resigned_on_the_opening_roll_agree_with_gnubg_s_play(tmp_path: Path) -> None:
    """gnubg writes a game its roller resigned before any move as ``  1) 53:       Wins 2
    points`` (the roll left whoever rolled, ``Wins`` in the winner's column) and cannot import
    it; its play is the oracle: hakem reads each winner, points, resignation and the IDs
    before every record as gnubg played them. hakem's written copy imports in gnubg as those
    games (it writes the roll in the roller's column)."""
    export = tmp_path / "resigned.mat"
    played = gnubg_played(_RESIGNED_AT_ONCE, export)
    assert _undated(export.read_bytes()) == _undated(
        (GNUBG_DATA / "resigned_at_once.mat").read_bytes())
    assert b"  1) 53:       Wins 2 points\n" in export.read_bytes()
    result = replay(parse_mat_bytes(export.read_bytes()))
    assert result.legal and not result.notes
    check_games("resigned", result, played)
    check_records("resigned", result, played)
    assert check_ids("resigned", result, played) >= 10
    written = tmp_path / "written.mat"
    written.write_text(format_mat(record_from_replay(result)), encoding="utf-8")
    view = gnubg_view([written], tmp_path)[str(written)]
    assert cube_and_moves(view) == cube_and_moves(played)


def test_jacoby_in_money_sessions_as_gnubg_imports_them(tmp_path: Path) -> None:
    """BG-SCORE-4. gnubg writes no Jacoby tag and imports a money session with Jacoby on (its
    default): an uncubed gammon that ends the record counts 1, as hakem counts it. gnubg's
    money session played without Jacoby writes that gammon's 2 points into the next game's
    score line; hakem then reads the session as played without Jacoby, as gnubg imports it
    when told (``set jacoby off``); a ``Jacoby`` tag decides where there is one."""
    source = (GNUBG_DATA / "money_gammons.mat").read_text(encoding="utf-8")
    assert "Jacoby" not in source
    files = {
        "unsaid": source[: source.index(" Game 3\n")],
        "whole": source,
        "tagged": '; [Jacoby "Off"]\n' + source[: source.index(" Game 3\n")],
    }
    paths = {}
    for name, text in files.items():
        paths[name] = tmp_path / f"{name}.mat"
        paths[name].write_text(text, encoding="utf-8")
    default = gnubg_view([paths["unsaid"]], tmp_path)
    told = gnubg_view([paths["whole"], paths["tagged"]], tmp_path, ["set jacoby off"])
    for name, view in (
        ("unsaid", default[str(paths["unsaid"])]),
        ("whole", told[str(paths["whole"])]),
        ("tagged", told[str(paths["tagged"])]),
    ):
        result = replay(parse_mat_bytes(paths[name].read_bytes()))
        assert result.legal, (name, result.problem)
        assert result.rules.jacoby is (name == "unsaid"), name
        check_games(name, result, view)
        check_records(name, result, view)
        check_ids(name, result, view)
    points = [g["info"]["points-won"] for g in default[str(paths["unsaid"])]["games"]]
    assert points == [1, 1]  # the played gammon of game 2, single under Jacoby



def _doubler_resigns_after_the_take() -> list[Event]:
    """Three moves, player 1 doubles, player 0 takes, player 1 resigns a gammon at once."""
    state = new_match(5)
    events: list[Event] = [OpeningRoll((6, 3)), Roll((5, 1)), Roll((3, 1))]
    out: list[Event] = []
    for event in events:
        out.append(event)
        state = apply(state, event)
        assert state.dice is not None
        move = Move(legal_plays(state.position, state.dice)[0].result)
        out.append(move)
        state = apply(state, move)
    return [*out, Double(), Take(), Resign(1, WinKind.GAMMON)]


def test_a_take_then_the_doubler_s_resignation_imports_in_gnubg(tmp_path: Path) -> None:
    """A take alone on its line is padded to the second column, as gnubg writes it; stripped,
    gnubg imported the doubler's resignation after it as a second double (seed 5123 of
    ``tests.eval.gnubg_oracle``)."""
    record = record_from_events(_doubler_resigns_after_the_take(), length=5, players=("A", "B"))
    text = format_mat(record)
    assert "  3) Takes" + " " * 23 + "\n     Wins 4 points\n" in text
    path = tmp_path / "take.mat"
    path.write_text(text, encoding="utf-8")
    view = gnubg_view([path], tmp_path)[str(path)]
    result = replay(parse_mat_bytes(path.read_bytes()))
    assert [r[0] for r in view["games"][0]["records"]][-3:] == ["double", "take", "resign"]
    check_games("take", result, view)
    check_records("take", result, view)
    check_ids("take", result, view)
