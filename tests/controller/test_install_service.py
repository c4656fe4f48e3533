"""The Pi's service installer (hardware_docs/systemd/install-table-service.sh), run without a Pi:
into a temporary root with ``HAKEM_DRY_RUN`` (usermod and systemctl printed, not run). The unit
it writes is checked by systemd's own ``systemd-analyze verify`` where that is installed."""

from __future__ import annotations

import getpass
import grp
import os
import pwd
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from controller.config.table import EXAMPLE_TOML, load_table_config

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "hardware_docs" / "systemd" / "install-table-service.sh"


def _install(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, HAKEM_ROOT=str(root), HAKEM_DRY_RUN="1")
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True,
                          env=env, timeout=120, check=False)


def test_the_installer_writes_the_unit_and_the_configuration(tmp_path: Path) -> None:
    user = getpass.getuser()
    done = _install(tmp_path, user)
    assert done.returncode == 0, done.stderr
    unit = (tmp_path / "etc/systemd/system/hakem-table.service").read_text()
    assert "@" not in unit.replace("multi-user.target", "")
    assert f"User={user}" in unit
    assert f"ExecStart={ROOT}/.venv/bin/hakem run --config /etc/hakem/table.toml" in unit
    config = tmp_path / "etc/hakem/table.toml"
    assert config.read_text() == EXAMPLE_TOML
    load_table_config(str(config))
    assert (tmp_path / "var/lib/hakem").is_dir()
    for command in ("usermod -aG dialout,gpio,video", "systemctl enable hakem-table.service",
                    "systemctl restart hakem-table.service"):
        assert f"would run: {command}" in done.stdout
    if shutil.which("systemd-analyze"):
        verify = subprocess.run(["systemd-analyze", "verify",
                                 str(tmp_path / "etc/systemd/system/hakem-table.service")],
                                capture_output=True, text=True, timeout=60, check=False)
        assert verify.returncode == 0, verify.stderr


def test_running_it_again_keeps_the_tables_configuration(tmp_path: Path) -> None:
    user = getpass.getuser()
    assert _install(tmp_path, user).returncode == 0
    config = tmp_path / "etc/hakem/table.toml"
    edited = config.read_text().replace('id = "table-1"', 'id = "table-4"')
    config.write_text(edited)
    again = _install(tmp_path, user)
    assert again.returncode == 0, again.stderr
    assert config.read_text() == edited
    assert "wrote" not in again.stdout


def test_the_configuration_is_readable_by_root_and_the_services_group_only(
    tmp_path: Path,
) -> None:
    """It may hold the hub's broker password (hub.url), so no other user of the Pi reads it;
    an older installation's world-readable file is closed on the next run."""
    user = getpass.getuser()
    group = grp.getgrgid(pwd.getpwnam(user).pw_gid).gr_name
    config = tmp_path / "etc/hakem/table.toml"
    for _ in range(2):
        done = _install(tmp_path, user)
        assert done.returncode == 0, done.stderr
        assert stat.S_IMODE(config.stat().st_mode) == 0o640
        assert f"would run: chown root:{group} {config}" in done.stdout
        config.chmod(0o644)


def test_a_wrong_key_stops_the_installation_naming_it(tmp_path: Path) -> None:
    config = tmp_path / "etc/hakem/table.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[match]\nlenght = 7\n")
    done = _install(tmp_path, getpass.getuser())
    assert done.returncode == 2
    assert "lenght" in done.stderr
    assert not (tmp_path / "etc/systemd/system/hakem-table.service").exists()


def test_an_unknown_user_is_refused(tmp_path: Path) -> None:
    done = _install(tmp_path, "no-such-user-hakem")
    assert done.returncode == 2 and "no-such-user-hakem" in done.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root may install for real")
def test_without_root_and_without_dry_run_it_asks_for_sudo(tmp_path: Path) -> None:
    env = dict(os.environ, HAKEM_ROOT=str(tmp_path))
    env.pop("HAKEM_DRY_RUN", None)
    done = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, env=env,
                          timeout=60, check=False)
    assert done.returncode == 2 and "sudo" in done.stderr


@pytest.mark.parametrize("args", [[""], []])
def test_an_empty_user_name_says_to_name_the_user(tmp_path: Path, args: list[str]) -> None:
    """``sudo bash ... "$USER"`` with USER unset, or a root shell without sudo: one line that
    says how to name the user, nothing installed."""
    env = dict(os.environ, HAKEM_ROOT=str(tmp_path), HAKEM_DRY_RUN="1")
    env.pop("SUDO_USER", None)
    done = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True,
                          env=env, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no such user" not in done.stderr
    assert "the user name is empty" in done.stderr
    assert "install-table-service.sh pi" in done.stderr
    assert not any(tmp_path.iterdir())


def test_sudo_from_a_root_shell_does_not_install_for_root(tmp_path: Path) -> None:
    """No user named and sudo run by root (SUDO_USER=root): the service would run as root, so
    the installer asks for the user instead, installing nothing."""
    env = dict(os.environ, HAKEM_ROOT=str(tmp_path), HAKEM_DRY_RUN="1", SUDO_USER="root")
    done = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, env=env,
                          timeout=60, check=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "not root" in done.stderr and "install-table-service.sh pi" in done.stderr
    assert not any(tmp_path.iterdir())
