"""setup.sh installs the project with its ``rpi`` extra on Raspberry Pi OS (a simplejpeg for the
venv's numpy 2, before the OS's, built for numpy 1, which picamera2 would import) and with the
development tools alone elsewhere: its ``--extras`` mode prints which, with the Pi's marker file
replaced by a stand-in (no Pi, no apt, no pip)."""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETUP = ROOT / "setup.sh"


def _extras(marker: Path) -> subprocess.CompletedProcess[str]:
    # an older setup.sh without the mode would set the machine up instead: never run it so
    assert "--extras" in SETUP.read_text(encoding="utf-8")
    return subprocess.run(["bash", str(SETUP), "--extras"], capture_output=True, text=True,
                          env={**os.environ, "HAKEM_RPI_ISSUE": str(marker)}, timeout=60,
                          check=False)


def test_the_script_parses() -> None:
    assert subprocess.run(["bash", "-n", str(SETUP)], check=False).returncode == 0


def test_a_pi_gets_the_rpi_extra_and_other_machines_do_not(tmp_path: Path) -> None:
    marker = tmp_path / "rpi-issue"
    done = _extras(marker)
    assert done.returncode == 0 and done.stdout == "dev\n"
    marker.write_text("Raspberry Pi reference 2024-11-19\n", encoding="utf-8")
    done = _extras(marker)
    assert done.returncode == 0 and done.stdout == "dev,rpi\n"


def test_the_install_step_installs_the_extras_it_printed() -> None:
    text = SETUP.read_text(encoding="utf-8")
    install = next(line for line in text.splitlines() if "pip install -q -e" in line)
    assert '".[$wanted]"' in install and 'wanted="$(extras)"' in text


def test_the_rpi_extra_holds_a_simplejpeg_for_numpy_2_and_opencv_5_is_required() -> None:
    """simplejpeg 1.8 and later are built for numpy 2; the vision is tested with OpenCV 5
    (4.11 to 4.14 read some cube faces and dice differently)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["optional-dependencies"]["rpi"] == ["simplejpeg>=1.8"]
    assert "opencv-python>=5.0" in project["dependencies"]
    assert "numpy>=2.0" in project["dependencies"]
