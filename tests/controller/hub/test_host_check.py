"""The hub's ``Host`` check: a page whose domain name was rebound to the hub (DNS rebinding)
reads nothing; the hub's own names, localhost and literal addresses are served as before."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import main
from controller.hub.hosts import HostCheck
from controller.hub.server import HubApp
from tests.controller.hub.broker import Broker, free_port, wait_for
from tests.controller.hub.test_hall_abuse import SMUGGLED, address, exchange
from tests.controller.hub.test_http import PASSWORD

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[HubApp]:
    hub = HubApp(str(tmp_path / "hub.db"), None, request_timeout_s=5.0,
                 allowed_hosts=["Hub.Cup.Example."]).start()
    hub.service.add_user("td", PASSWORD)
    yield hub
    hub.stop()


def get(app: HubApp, path: str, host: str | None, method: str = "GET", *,
        close: bool = False) -> bytes:
    """One request with this ``Host`` (none when None): see :func:`ask`."""
    header = f"Host: {host}\r\n" if host is not None else ""
    header += "Connection: close\r\n" if close else ""
    return ask(address(app), f"{method} {path} HTTP/1.1\r\n{header}\r\n".encode("latin-1"))


def ask(where: tuple[str, int], request: bytes) -> bytes:
    """Send ``request`` on a connection of its own and read until the hub closes it; what came
    in 10 s, marked, if it does not (a stream served, or a connection kept alive)."""
    deadline = time.monotonic() + 10
    data = b""
    with socket.create_connection(where, timeout=10) as conn:
        conn.sendall(request)
        while (left := deadline - time.monotonic()) > 0:
            conn.settimeout(left)
            try:
                chunk = conn.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                return data
            data += chunk
    return data + b"\n(not closed by the hub)"


def status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def body(answer: bytes) -> dict[str, object]:
    result: dict[str, object] = json.loads(answer.partition(b"\r\n\r\n")[2])
    return result


REFUSED = ["evil.example", "evil.example:8080", "EVIL.example.", "hub.cup.example.evil.example",
           "[evil.example]:80", "hub.cup.example:http", ""]


@pytest.mark.parametrize("path", ["/", "/tables/cup/1", "/api/tables", "/api/stream",
                                  "/static/dashboard.js"])
def test_another_sites_name_is_refused_on_pages_the_api_and_the_stream(
    app: HubApp, path: str
) -> None:
    for host in REFUSED:
        answer = get(app, path, host)  # returns: the hub closed the connection, stream included
        assert status(answer) == 421, (host, answer[:300])
        assert b"\r\nConnection: close\r\n" in answer and b"not closed" not in answer
        assert b"\r\nContent-Type: application/json\r\n" in answer
        assert body(answer) == {"error": f"this hub does not answer to host {host!r}; if it "
                                         "is the hub's own name, start the hub with "
                                         "--allow-host NAME"}
        assert b"event: tables" not in answer and b'"table"' not in answer


def test_a_refused_post_is_not_carried_out_and_its_body_is_never_read_as_a_request(
    app: HubApp
) -> None:
    head = (f"POST /api/login HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json"
            f"\r\nContent-Length: {len(SMUGGLED)}\r\n\r\n").encode()
    answer = exchange(app, head + SMUGGLED)
    assert status(answer) == 421 and answer.count(b"HTTP/1.1 ") == 1, answer[:300]
    head = head.replace(b"evil.example", b"localhost\r\nConnection: close")
    login = json.dumps({"user": "td", "password": PASSWORD}).encode()
    answer = exchange(app, head.replace(str(len(SMUGGLED)).encode(), str(len(login)).encode())
                      + login)
    assert status(answer) == 200 and b"hakem_session=" in answer


def test_two_host_headers_are_refused_even_when_one_is_the_hubs(app: HubApp) -> None:
    answer = exchange(app, b"GET /api/tables HTTP/1.1\r\nHost: localhost\r\n"
                           b"Host: evil.example\r\n\r\n")
    assert status(answer) == 421 and body(answer) == {"error": "one host header is needed, "
                                                               "not 2"}


@pytest.mark.parametrize("host", [
    "localhost", "LOCALHOST:8080", "localhost.", "127.0.0.1", "127.0.0.1:80", "[::1]:8080",
    "10.1.2.3:8080", "192.168.4.1", "[fe80::1]", "hub.cup.example", "HUB.cup.example:443",
    socket.gethostname(), f"{socket.gethostname().split('.')[0]}.local:8080", None,
])
def test_the_hubs_own_names_and_any_address_are_served(
    app: HubApp, host: str | None
) -> None:
    """None: no Host at all, which only a script sends (an HTTP/1.0 one); it is served."""
    assert status(get(app, "/", host, "HEAD", close=True)) == 200
    answer = get(app, "/api/tables", host, close=True)
    assert status(answer) == 200 and answer.endswith(b"\r\n\r\n[]"), (host, answer[:300])


def test_a_bind_address_given_as_a_name_is_one_the_hub_answers_to() -> None:
    check = HostCheck("Hall-Hub.lan.", ["scores.example"])
    assert check.refusal(["hall-hub.lan:8080"]) is None
    assert check.refusal(["scores.example"]) is None
    assert HostCheck("0.0.0.0").refusal(["hall-hub.lan"]) is not None


def test_allow_host_adds_a_name_and_a_bad_one_is_a_one_line_error(
    broker: Broker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = ["hub", "--db", str(tmp_path / "hub.db"), "--broker", broker.url, "--http", "0"]
    for bad in ("hub.cup.example:8080", "http://hub", "*.cup.example", "hub cup", "", "a..b",
                "hub-.example"):
        with pytest.raises(SystemExit) as info:
            main([*run, "--allow-host", "hub.example", "--allow-host", bad])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert err == (f"hakem: hub: argument --allow-host: not a host name: {bad!r} "
                       "(letters, digits, hyphens and dots, no port)\n")
    port = free_port()
    process = subprocess.Popen(
        # this tree's code (.venv/bin/hakem may be another checkout's, installed editable)
        [sys.executable, "-m", "controller.cli", *run[:-1], str(port), "--bind", "127.0.0.1",
         "--allow-host", "hub.cup.example", "--allow-host", "Scores.Example"],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def answer(host: str) -> int | None:
        request = f"GET /api/tables HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n"
        try:
            return status(ask(("127.0.0.1", port), request.encode()))
        except OSError:  # not listening yet
            return None

    try:
        wait_for(lambda: answer("localhost") == 200, 30, "the hub's web server")
        assert answer("hub.cup.example") == 200 and answer("scores.example") == 200
        assert answer("other.cup.example") == 421
    finally:
        process.kill()  # its clean stop on SIGTERM is test_cli's
        process.wait(10)
