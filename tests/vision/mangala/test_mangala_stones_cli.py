"""``hakem vision stones``: one pit or store per photo, JSON as DESIGN.md gives it."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main
from vision.mangala.geometry import DEFAULT_GEOMETRY, calibrate
from vision.mangala.render import render_mangala

CELLS = [3, 0, 1, 6, 2, 5, 9, 4, 4, 4, 4, 4, 4, 2]


def _crop(img: np.ndarray, corners: np.ndarray, index: int) -> np.ndarray:
    cal = calibrate(corners, img.shape)
    cell = DEFAULT_GEOMETRY.cell(index)
    (cx, cy), (hx, hy) = cell.centre, cell.half_size
    box = np.array([[cx - hx - 2, cy - hy - 2], [cx + hx + 2, cy - hy - 2],
                    [cx + hx + 2, cy + hy + 2], [cx - hx - 2, cy + hy + 2]])
    p = cal.points_to_image(box)
    x0, y0 = np.floor(p.min(axis=0)).astype(int)
    x1, y1 = np.ceil(p.max(axis=0)).astype(int)
    return np.ascontiguousarray(img[y0:y1, x0:x1])


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    img, corners = render_mangala(CELLS, 31)
    out = {}
    d = tmp_path_factory.mktemp("stones")
    for i in (0, 1, 2, 3, 5, 6):
        path = d / f"cell{i}.jpg"
        cv2.imwrite(str(path), _crop(img, corners, i))
        out[i] = path
    return out


def test_json_per_photo(photos: dict[int, Path], capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(photos[i]) for i in sorted(photos)]
    assert main(["vision", "stones", *paths, "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == len(paths)
    for line, path, i in zip(lines, paths, sorted(photos), strict=True):
        obj = json.loads(line)
        assert set(obj) == {"image", "stones", "confidence"}
        assert obj["image"] == path
        assert obj["stones"] == CELLS[i], (i, obj)
        assert 0.0 < obj["confidence"] <= 1.0


def test_text_output(photos: dict[int, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "stones", str(photos[3])]) == 0
    out = capsys.readouterr().out
    assert out.startswith(str(photos[3])) and " 6 stones" in out


def test_not_a_picture_is_one_line_and_exit_2(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a picture")
    assert main(["vision", "stones", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "notes.jpg" in err
