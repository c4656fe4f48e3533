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
from engine.backgammon.mat_writer import format_mat, record_from_replay
from engine.backgammon.match import EndHow
from tests.conftest import TEST_DATA
from tests.engine.backgammon.mat_oracle import (
    check_games,
    check_ids,
    check_records,
    gnubg_view,
    written_differs,
)
from tests.gnubg_runner import run_gnubg_script

pytestmark = [pytest.mark.gnubg]

GNUBG_DATA = TEST_DATA / "mat_gnubg"
VARIANT_SOURCE = "match11.mat"
# A real match whose game 4 ends with a roll and the roller's own "Wins" in gnubg's re-export.
REEXPORTED = "match5751765.txt"


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
    files = [p for p in sorted(GNUBG_DATA.glob("*.mat")) if p.name != "beaver_dropped.mat"]
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
