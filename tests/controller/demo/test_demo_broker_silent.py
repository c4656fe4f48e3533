"""``hakem demo --publish`` to a broker that takes the connection and never answers: at its end
the demo waits for the broker (:data:`controller.demo.harness.HUB_WAIT_S`, 30 s, made short
here), then exits 2 with one line on stderr naming the outbox where the entries wait, for
either game. The players stop after a few journal entries, as the resume tests stop them."""

from __future__ import annotations

import functools
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import main
from controller.demo.table import DemoOptions
from controller.mangala.demo import MangalaDemoOptions


@pytest.fixture
def silent_broker() -> Iterator[int]:
    """A local port that accepts connections and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


@pytest.fixture
def short_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Either demo stopped after 6 journal entries, and its wait for the broker at the end cut
    to 1.5 s."""
    monkeypatch.setattr("controller.demo.harness.HUB_WAIT_S", 1.5)
    monkeypatch.setattr("controller.demo.table.DemoOptions",
                        functools.partial(DemoOptions, record=False, stop_after=6))
    monkeypatch.setattr("controller.mangala.cli.MangalaDemoOptions",
                        functools.partial(MangalaDemoOptions, stop_after=6))


@pytest.mark.parametrize("game", ["backgammon", "mangala"])
def test_a_demo_whose_broker_never_answers_exits_2_naming_the_outbox(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], short_demo: None,
        silent_broker: int, game: str) -> None:
    out = tmp_path / "demo"
    code = main(["demo", "--game", game, "--out", str(out), "--quiet",
                 "--publish", f"mqtt://127.0.0.1:{silent_broker}", "--table", "7"])
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert code == 2, err
    assert last.startswith("hakem") and "not confirmed by the broker within" in last
    assert f"they wait in {out / 'hub-outbox.sqlite'}" in last
    assert (out / "journal.jsonl").exists()


@pytest.fixture
def closed_port() -> int:
    """A local port nothing listens on (bound for a moment, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("game", ["backgammon", "mangala"])
def test_a_quiet_demo_whose_broker_cannot_be_reached_says_so_on_stderr_and_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], short_demo: None,
        closed_port: int, game: str) -> None:
    """QA as a tournament director: ``--quiet`` kept the live log's line on the broker off the
    screen, so nothing said the hub would not see the table until the outbox line at the end.
    The line goes to stderr, naming the broker; the match is played on, as without --quiet."""
    out = tmp_path / "demo"
    code = main(["demo", "--game", game, "--out", str(out), "--quiet",
                 "--publish", f"mqtt://127.0.0.1:{closed_port}", "--table", "7"])
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    said = [k for k, line in enumerate(lines) if "cannot be reached" in line]
    assert len(said) == 1, captured.err
    assert lines[said[0]].startswith(f"The hub's broker at mqtt://127.0.0.1:{closed_port} "
                                      "cannot be reached")
    assert said[0] < next(k for k, line in enumerate(lines) if line.startswith("waiting up to"))
    assert "cannot be reached" not in captured.out  # quiet: no live log on stdout...
    assert lines[said[0]] in (out / "live.log").read_text().splitlines()  # ...but its file
    assert code == 2  # played on, then the entries waiting in the outbox, as without --quiet
    assert len((out / "journal.jsonl").read_text().splitlines()) >= 6
