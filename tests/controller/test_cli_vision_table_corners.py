"""``hakem vision read/calibrate --config`` locate the board as ``hakem run`` does with the
same file: ``[vision] corners`` when set, else the table's ``[camera] corners``; the output
says which corners were used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli import main

START_ID = "4HPwATDgc/ABMA"


def _corners(capsys: pytest.CaptureFixture[str]) -> list[float]:
    return [float(v) for v in json.loads(capsys.readouterr().out)["corners"]]


def _read(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 0
    result: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return result


def _rendered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, list[float]]:
    """A rendered photo of the starting position and its board's true corners."""
    image = tmp_path / "start.jpg"
    assert main(["vision", "render", START_ID, "--out", str(image), "--seed", "3",
                 "--json"]) == 0
    return image, _corners(capsys)


def _flat(corners: object) -> list[float]:
    assert isinstance(corners, list)
    return [float(v) for pair in corners for v in pair]


def test_the_tables_camera_corners_are_used(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    image, true = _rendered(tmp_path, capsys)
    # the table's corners, a few pixels off the true ones: the output shows they were used
    camera = [round(v + 3.0, 1) for v in true]
    config = tmp_path / "table.toml"
    config.write_text("[camera]\ncorners = [" + ", ".join(str(v) for v in camera) + "]\n",
                      encoding="utf-8")
    result = _read(["vision", "read", str(image), "--config", str(config), "--json"], capsys)
    assert result["corners_from"] == f"[camera] corners of {config}"
    assert _flat(result["corners"]) == pytest.approx(camera, abs=0.06)
    slots = result["slots"]
    assert isinstance(slots, list) and slots[18] == [5, 0] and slots[6] == [0, 5]
    # said in the plain output too
    assert main(["vision", "read", str(image), "--config", str(config)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"{image}: the board located by the [camera] corners of {config}"
    # and by calibrate
    info = _read(["vision", "calibrate", str(image), "--out", str(tmp_path / "c.png"),
                  "--config", str(config), "--json"], capsys)
    assert info["corners_from"] == f"[camera] corners of {config}"
    assert _flat(info["corners"]) == pytest.approx(camera, abs=0.06)


def test_vision_corners_and_the_option_come_first(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    image, true = _rendered(tmp_path, capsys)
    camera = [round(v + 3.0, 1) for v in true]
    vision = [round(v - 2.0, 1) for v in true]
    config = tmp_path / "table.toml"
    config.write_text("[camera]\ncorners = [" + ", ".join(str(v) for v in camera) + "]\n"
                      "[vision]\ncorners = [" + ", ".join(str(v) for v in vision) + "]\n",
                      encoding="utf-8")
    result = _read(["vision", "read", str(image), "--config", str(config), "--json"], capsys)
    assert result["corners_from"] == f"[vision] corners of {config}"
    assert _flat(result["corners"]) == pytest.approx(vision, abs=0.06)
    given = ",".join(str(round(v, 1)) for v in true)
    result = _read(["vision", "read", str(image), "--config", str(config), "--corners", given,
                    "--json"], capsys)
    assert result["corners_from"] == "--corners"
    assert _flat(result["corners"]) == pytest.approx(true, abs=0.06)


def test_a_bad_camera_key_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "table.toml"
    config.write_text("[camera]\ncorners = [1, 2, 3]\n", encoding="utf-8")
    image = tmp_path / "start.jpg"
    assert main(["vision", "render", START_ID, "--out", str(image), "--json"]) == 0
    capsys.readouterr()
    assert main(["vision", "read", str(image), "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "camera.corners" in err
