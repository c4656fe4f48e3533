"""``hakem hub``: accounts from stdin, argument errors, and the real command end to end."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from controller.cli import main
from controller.hub.publisher import publish_journal
from controller.hub.service import HubService
from tests.controller.hub.broker import Broker, free_port, wait_for
from tests.controller.hub.conftest import table_link
from tests.controller.hub.matches import simulated_match

REPO = Path(__file__).resolve().parents[3]


def test_add_user_reads_the_password_from_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "hub.db"
    monkeypatch.setattr(sys, "stdin", io.StringIO("a long secret\n"))
    assert main(["hub", "--db", str(db), "--add-user", "td"]) == 0
    service = HubService(str(db))
    assert service.login("td", "a long secret", "test")
    service.store.close()
    monkeypatch.setattr(sys, "stdin", io.StringIO("short\n"))
    assert main(["hub", "--db", str(db), "--add-user", "td2"]) == 2
    assert "password too short" in capsys.readouterr().err
    assert main(["hub", "--db", str(db), "--list-users", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"users": ["td"]}


def test_bad_arguments_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "hub.db")
    assert main(["hub", "--db", db]) == 2
    assert "--broker URL and --http PORT are required" in capsys.readouterr().err
    assert main(["hub", "--db", db, "--broker", "http://x", "--http", "8080"]) == 2
    assert "not a broker url" in capsys.readouterr().err
    assert main(["hub", "--db", db, "--broker", "mqtt://h", "--http", "8080",
                 "--prefix", "a/#"]) == 2
    assert "bad prefix id" in capsys.readouterr().err


def test_hakem_hub_serves_the_dashboard_and_stops_cleanly_on_sigterm(
    broker: Broker, tmp_path: Path
) -> None:
    port = free_port()
    process = subprocess.Popen(
        [str(REPO / ".venv/bin/hakem"), "hub", "--broker", broker.url, "--http", str(port),
         "--db", str(tmp_path / "hub.db"), "--bind", "127.0.0.1"],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/api/tables"

    def tables() -> list[dict[str, object]] | None:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                result: list[dict[str, object]] = json.loads(response.read())
                return result
        except OSError:
            return None

    try:
        wait_for(lambda: tables() is not None, 30, "the hub's web server")
        entries = simulated_match(8, seed=8)
        publish_journal(entries, table_link(broker, tmp_path, "8"), until="hub", timeout_s=60)
        listed = tables()
        assert listed is not None and listed[0]["table"] == "8" and listed[0]["finished"] is True
        process.send_signal(signal.SIGTERM)
        assert process.wait(20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        assert process.stderr is not None
        err = process.stderr.read().decode()
        process.stderr.close()
    assert "dashboard on http://127.0.0.1:" in err and "Traceback" not in err
