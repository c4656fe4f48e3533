"""``hakem vision dice``: JSON per image per line, the text form, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import main

DICE = Path(__file__).resolve().parents[1] / "data" / "dice"


def test_json_one_line_per_image(capsys: pytest.CaptureFixture[str]) -> None:
    images = [str(DICE / "valid_79.jpg"), str(DICE / "valid_1.jpg")]
    assert main(["vision", "dice", "--json", *images]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    first = json.loads(lines[0])
    assert first["image"] == images[0]
    assert sorted(d["pips"] for d in first["dice"]) == [4, 4, 5, 5, 6]
    for d in first["dice"]:
        assert set(d) == {"box", "pips", "confidence"}
        x0, y0, x1, y1 = d["box"]
        assert x0 < x1 and y0 < y1
        assert 0 <= d["confidence"] <= 1
    assert [d["pips"] for d in json.loads(lines[1])["dice"]] == [1]


def test_json_flag_before_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--json", "vision", "dice", str(DICE / "valid_1.jpg")]) == 0
    assert json.loads(capsys.readouterr().out)["dice"][0]["pips"] == 1


def test_text_form(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "dice", str(DICE / "valid_84.jpg")]) == 0
    out = capsys.readouterr().out
    assert "5 dice [" in out and "valid_84.jpg" in out


def test_not_an_image_is_a_one_line_error(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a picture")
    assert main(["vision", "dice", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "notes.jpg" in err


def test_missing_and_empty_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "dice", str(tmp_path / "nope.png")]) == 2
    assert "no such file" in capsys.readouterr().err
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    assert main(["vision", "dice", str(empty)]) == 2
    assert "empty" in capsys.readouterr().err


def test_no_image_argument_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["vision", "dice"])
    assert exc.value.code == 2
