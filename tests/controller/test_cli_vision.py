"""``hakem vision read / markers / render / calibrate`` through the real entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main

START_ID = "4HPwATDgc/ABMA"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A rendered starting position with markers, and its corners."""
    out = tmp_path_factory.mktemp("render") / "start.jpg"
    proc = subprocess.run(
        [sys.executable, "-m", "controller.cli", "vision", "render", START_ID, "--out", str(out),
         "--seed", "3", "--markers", "--json"],
        capture_output=True, text=True, check=True,
    )
    info = json.loads(proc.stdout)
    corners = ",".join(f"{v}" for v in info["corners"])
    return out, corners


def test_render_then_read_gives_the_position_back(
    rendered: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, corners = rendered
    code, out, err = run(["vision", "read", str(path), str(path), "--corners", corners, "--json"],
                         capsys)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 2  # one JSON object per image per line
    obj = json.loads(lines[0])
    assert obj["image"] == str(path)
    assert obj["occluded"] is False
    assert obj["slots"][18] == [5, 0] and obj["slots"][6] == [0, 5]
    assert obj["bar"] == [0, 0] and obj["off"] == [0, 0]
    assert obj["dice"] == [] and obj["cube"] is None


def test_read_finds_the_board_by_its_markers(
    rendered: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = rendered
    code, out, _ = run(["--json", "vision", "read", str(path)], capsys)
    assert code == 0
    assert json.loads(out)["slots"][11] == [2, 0]
    code, out, _ = run(["vision", "read", str(path)], capsys)
    assert code == 0 and "18:D5" in out


def test_calibrate_writes_an_annotated_picture(
    rendered: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = rendered
    out_png = tmp_path / "check.png"
    code, out, _ = run(["vision", "calibrate", str(path), "--out", str(out_png), "--json"],
                       capsys)
    assert code == 0
    info = json.loads(out)
    assert info["source"] == "markers" and info["markers_found"] == [0, 1, 2, 3]
    assert info["checkers_seen"] == [15, 15]
    img = cv2.imread(str(out_png))
    assert img is not None and img.shape[:2] == (720, 1280)


def test_calibrate_tells_people_in_words_and_json_only_when_asked(
    rendered: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the plain output was the JSON object; the corners now come as the configuration's line
    path, _ = rendered
    argv = ["vision", "calibrate", str(path), "--out", str(tmp_path / "check.png")]
    code, out, _ = run([*argv, "--json"], capsys)
    assert code == 0
    info = json.loads(out)
    code, out, _ = run(argv, capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == (f"wrote {tmp_path / 'check.png'}: the board of {path} located by the "
                        "markers (markers found: 0, 1, 2, 3)")
    flat = ", ".join(f"{v:.1f}" for pair in info["corners"] for v in pair)
    assert lines[1] == f"corners (TL TR BR BL) for [camera]: corners = [{flat}]"
    assert lines[2] == "checkers seen: 15 darker, 15 lighter"
    assert lines[3] == f"a die's face is about {info['dice_face_px']:.1f} px across"
    assert len(lines) == 4 + len(info.get("warnings", []))


def test_markers_sheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheet = tmp_path / "m.png"
    code, out, _ = run(["vision", "markers", "--out", str(sheet), "--dpi", "150", "--json"],
                       capsys)
    assert code == 0 and json.loads(out)["ids"] == [0, 1, 2, 3]
    img = cv2.imread(str(sheet))
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    _, ids, _ = detector.detectMarkers(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert sorted(ids.reshape(-1).tolist()) == [0, 1, 2, 3]


def _assert_one_line_exit_2(code: int, err: str, needle: str) -> None:
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("hakem: ")
    assert needle in err


def test_bad_input_is_one_line_and_exit_2(
    rendered: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = rendered
    text = tmp_path / "notes.jpg"
    text.write_text("this is not a picture")
    code, _, err = run(["vision", "read", str(text)], capsys)
    _assert_one_line_exit_2(code, err, "not an image")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    code, _, err = run(["vision", "read", str(empty)], capsys)
    _assert_one_line_exit_2(code, err, "empty")
    code, _, err = run(["vision", "read", str(path), "--corners", "0,0,5000,0,5000,700,0,700"],
                       capsys)
    _assert_one_line_exit_2(code, err, "outside")
    code, _, err = run(["vision", "read", str(path), "--corners", "1,2,3"], capsys)
    _assert_one_line_exit_2(code, err, "8 numbers")
    code, _, err = run(["vision", "read", str(tmp_path / "missing.jpg")], capsys)
    _assert_one_line_exit_2(code, err, "missing.jpg")
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((200, 300, 3), 200, np.uint8))
    code, _, err = run(["vision", "read", str(blank)], capsys)
    _assert_one_line_exit_2(code, err, "board not found")
    code, _, err = run(["vision", "render", "garbage", "--out", str(tmp_path / "x.jpg")], capsys)
    assert code == 2 and err.count("\n") == 1


def test_render_says_how_to_read_it_back_with_any_corners(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.jpg"
    code, text, err = run(["vision", "render", START_ID, "--out", str(out), "--seed", "2"], capsys)
    assert code == 0, err
    suggested = text.split("read it with: hakem ")[1].split()
    assert suggested[-1].startswith("--corners=")  # a negative first corner stays its value
    code, _, err = run(suggested, capsys)
    assert code == 0, err


def test_render_seed_must_not_be_negative(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["vision", "render", START_ID, "--out", str(tmp_path / "r.jpg"), "--seed", "-1"])
    assert info.value.code == 2
    assert "argument --seed: must be 0 or more, not -1" in capsys.readouterr().err


def test_real_photo_through_the_cli(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = json.loads((shared_data / "boards_dev" / "labels.json").read_text())["images"]
    lab = labels["test12.jpg"]
    c = lab["corners"]
    corners = ",".join(str(v) for k in ("top_left", "top_right", "bottom_right", "bottom_left")
                       for v in c[k])
    code, out, _ = run(["vision", "read", str(shared_data / "boards_dev" / "test12.jpg"),
                        "--corners", corners, "--json"], capsys)
    assert code == 0
    assert json.loads(out)["slots"] == lab["slots"]


def test_out_files_in_a_format_not_written_are_refused(
    rendered: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = rendered
    pdf = tmp_path / "m.pdf"
    code, _, err = run(["vision", "markers", "--out", str(pdf)], capsys)
    _assert_one_line_exit_2(code, err, "cannot write .pdf; the file name must end in .png")
    gif = tmp_path / "r3.gif"
    code, _, err = run(["vision", "render", START_ID, "--out", str(gif)], capsys)
    _assert_one_line_exit_2(code, err, "must end in .jpg, .jpeg, .png")
    code, _, err = run(["vision", "calibrate", str(path), "--out", str(gif)], capsys)
    _assert_one_line_exit_2(code, err, "cannot write .gif")
    assert not pdf.exists() and not gif.exists()
    tif = tmp_path / "m.tif"
    code, _, _ = run(["vision", "markers", "--out", str(tif), "--dpi", "72"], capsys)
    assert code == 0 and tif.read_bytes()[:2] in (b"II", b"MM")  # a TIFF, not a PNG


def test_absurd_corners_are_refused_before_any_arithmetic(
    rendered: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = rendered
    code, _, err = run(["vision", "read", str(path), "--corners", "1e308,0,100,0,100,100,0,100"],
                       capsys)
    _assert_one_line_exit_2(code, err, "corner coordinate 1e308 is not a finite number")


def test_a_bad_vision_config_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "mk.toml"
    config.write_text("[vision.geometry]\nmarker_size_mm = -5\n")
    code, _, err = run(["vision", "markers", "--config", str(config), "--out",
                        str(tmp_path / "m.png")], capsys)
    _assert_one_line_exit_2(code, err, "vision.geometry.marker_size_mm must be a positive "
                            "finite number of mm")


def test_an_impossible_reading_says_so(
    rendered: tuple[Path, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from controller.cli import vision_commands
    from tests.vision.test_reading_checks import _bar, _reading, _slot, _start

    slots = _start()
    slots[1] = _slot(10, True)
    impossible = _reading(slots, _bar(1, 0))
    monkeypatch.setattr(vision_commands, "read_board", lambda *a, **k: impossible)
    path, corners = rendered
    code, out, _ = run(["vision", "read", str(path), "--corners", corners], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].endswith("confidence 0.000")
    assert lines[1] == "x.jpg: impossible: 16 darker checkers (at most 15, BG-EQ-1)"
    code, out, _ = run(["vision", "read", str(path), "--corners", corners, "--json"], capsys)
    assert json.loads(out)["warnings"] == [lines[1].removeprefix("x.jpg: ")]


def test_the_plain_reading_names_the_dice_and_the_cube(
    rendered: tuple[Path, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a director reads a flag's snapshot for its dice (table-service.md): the plain output
    # says them, not only --json
    from controller.cli import vision_commands
    from tests.vision.test_reading_checks import _bar, _reading, _start

    thrown = _reading(_start(), _bar(0, 0))
    thrown.dice = [{"pips": 5, "centre": [10.0, 20.0], "flat": True, "on_checker": False,
                    "confidence": 0.9},
                   {"pips": 3, "centre": [40.0, 20.0], "flat": False, "on_checker": True,
                    "confidence": 0.6}]
    thrown.cube = {"value": 2, "centre": [5.0, 5.0], "zone": "darker-side"}
    nothing = _reading(_start(), _bar(0, 0))
    readings = iter([thrown, nothing])
    monkeypatch.setattr(vision_commands, "read_board", lambda *a, **k: next(readings))
    path, corners = rendered
    code, out, _ = run(["vision", "read", str(path), str(path), "--corners", corners], capsys)
    assert code == 0
    first, second = out.splitlines()
    # each die with its confidence: a director weighs a low one from a single photo
    assert ("; dice 5 (0.90), 3 (cocked, on a checker, 0.60); cube 2 (darker-side); "
            "confidence") in first
    assert "; no dice; no cube; confidence" in second


def test_help_explains_seed_and_dpi(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["vision", "render", "--help"])
    assert "the same seed gives the same picture" in " ".join(capsys.readouterr().out.split())
    with pytest.raises(SystemExit):
        main(["vision", "markers", "--help"])
    assert "72..1200" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["read", "dice", "stones"])
def test_an_image_that_cannot_be_read_does_not_stop_the_others(
        command: str, tmp_path: Path, shared_data: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``vision read a.jpg missing.jpg b.jpg``: the command stopped at the first image it
    could not read, and the images after it were never read (QA). Each failure is a line on
    stderr naming its image (``--json``: an ``error`` object too); exit code 2 when any
    failed."""
    photo = str(shared_data / "boards_dev" / "test10.jpg")
    missing = str(tmp_path / "missing.jpg")
    assert main(["--json", "vision", command, missing, photo]) == 2
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [line["image"] for line in lines] == [missing, photo]
    assert lines[0] == {"image": missing, "error": f"no such file: {missing}"}
    assert "error" not in lines[1]
    assert captured.err == f"hakem: no such file: {missing}\n"
    assert main(["vision", command, photo]) == 0


def test_calibrate_says_how_large_the_dice_are(tmp_path: Path, shared_data: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A tournament board filmed at 1280 x 720 from far above: its 16 mm dice are about 17 px
    across, too small for real dice (``vision.dice.scale``); calibrate says so."""
    photo = shared_data / "boards_dev" / "test10.jpg"
    assert main(["--json", "vision", "calibrate", str(photo), "--corners",
                 "304,92,934,88,934,654,308,656", "--out", str(tmp_path / "c.png")]) == 0
    info = json.loads(capsys.readouterr().out)
    assert 15 < info["dice_face_px"] < 20
    assert "read reliably from 24 px" in info["warnings"][0]


def test_a_reader_of_the_output_that_leaves_is_no_error(shared_data: Path) -> None:
    """``hakem vision stones a b c | head -0``: each image said "broken pipe" and the exit
    code was 2 (review); as for any command, it is a quiet exit 0."""
    photo = str(shared_data / "boards_dev" / "test10.jpg")
    process = subprocess.Popen([sys.executable, "-m", "controller.cli", "vision", "stones",
                                photo, photo, photo], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=Path(__file__).parents[2])
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait() == 0 and err == ""
