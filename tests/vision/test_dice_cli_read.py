"""``hakem vision read --json`` on rendered throws: the ``dice`` and ``cube`` fields (DESIGN.md)
come from the board's dice and cube pass, through the real command-line entry point."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from controller.cli import main
from vision.dice.synth import random_dice_scene


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("seed", [50_003, 50_005])
def test_vision_read_gives_the_dice_and_the_cube(seed: int, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    scene = random_dice_scene(seed, cocked_rate=0.0, on_checker_rate=0.0, cube_rate=1.0)
    path = tmp_path / "throw.png"
    cv2.imwrite(str(path), scene.image)
    corners = ",".join(f"{v:.2f}" for v in scene.corners.reshape(-1))
    code, out, err = _run(["vision", "read", str(path), "--corners", corners, "--json"], capsys)
    assert code == 0, err
    obj = json.loads(out.strip().splitlines()[0])
    assert 1 <= len(obj["dice"]) <= len(scene.dice)
    assert scene.frame is not None
    truths = scene.frame.project_mm([[t.x_mm, t.y_mm] for t in scene.dice])
    for entry in obj["dice"]:
        assert set(entry) == {"pips", "centre", "flat", "on_checker", "confidence"}
        assert entry["on_checker"] is False
        # reported where a die lies (image px), not elsewhere
        x, y = entry["centre"]
        assert min(abs(x - tx) + abs(y - ty) for tx, ty in truths) < 16
    assert scene.cube is not None
    assert obj["cube"] is not None
    assert obj["cube"]["value"] == scene.cube.value
    assert set(obj["cube"]) == {"value", "centre", "zone"}
