"""The hub's web server (standard library only): JSON under /api/, pages, live updates.

Reads need no login (the hall can watch); every change needs a director session. A request
whose ``Host`` is not one of the hub's names (:mod:`controller.hub.hosts`) gets 421. Sessions
ride in an HttpOnly, SameSite=Strict cookie (or ``Authorization: Bearer TOKEN`` for scripts), and
every POST must be ``application/json``, which a cross-site form cannot send.

Routes::

    GET  /                                      dashboard        GET /tables/T/N   a table's page
    GET  /audit                                 the audit's page (its data: /api/audit)
    GET  /api/tables                            every table: [{"table", "tournament", "players",
                                                "score", "finished", "cube", "clocks_ms", ...}]
    GET  /api/tables/T/N[?match=M]              one table: moves, flags, games
    GET  /api/tables/T/N/board.svg[?match=M]    the board       GET /api/results   results
    GET  /api/tables/T/N/match.mat[?match=M]    the record      GET /api/stream    SSE updates
    GET  /api/tables/T/N/round.txt[?match=M]    a Mangala round's record (it has no .mat)
    GET  /api/tables/T/N/snapshots/M/SEQ.jpg    a flag's photo  GET /api/session   who am I
    POST /api/login {"user", "password"}        POST /api/logout
    POST /api/tables/T/N/flags/SEQ/ack {}       POST /api/tables/T/N/flags/SEQ/override
         {"verdict": "upheld"|"overturned", "note"}      POST /api/tables/T/N/end {"winner", "note"}
    GET  /api/audit                             the action log (directors only)
"""

from __future__ import annotations

import json
import logging
import queue
import select
import socket
import ssl
import sys
import threading
import time
from collections.abc import Iterable
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from controller.hub.board_svg import board_svg
from controller.hub.export import match_record, round_record
from controller.hub.hosts import HostCheck
from controller.hub.mangala_svg import mangala_svg
from controller.hub.pages import (
    STATIC_TYPES,
    audit_page,
    dashboard_page,
    not_found_page,
    static_file,
    table_page,
)
from controller.hub.refusals import Refusals, refusal_response
from controller.hub.service import ActionRefusedError, HubService, NotFoundError
from engine.errors import HakemError, InvalidInputError

log = logging.getLogger("hakem.hub.http")

COOKIE = "hakem_session"
MAX_BODY = 64 * 1024
KEEPALIVE_S = 15.0  # a comment line on an idle event stream, for proxies on the way
STREAM_CHECK_S = 1.0  # how often an idle event stream looks whether its client has closed
STREAM_STALL_S = 30.0  # a stream whose client takes or acknowledges nothing this long is dropped
REQUEST_TIMEOUT_S = 30.0  # a client silent this long mid-request (or idle between) is dropped
MAX_CONNECTIONS_PER_ADDRESS = 32  # open at once from one address (loopback too), streams included
MAX_CONNECTIONS = 256  # open at once from every address together: one thread each
_CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "frame-ancestors 'none'")


class HubHTTPServer(ThreadingHTTPServer):
    """A threading HTTP server that knows its hub."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], hub: HubService, *, secure: bool = False,
                 request_timeout_s: float = REQUEST_TIMEOUT_S,
                 allowed_hosts: Iterable[str] = (),
                 max_connections: int = MAX_CONNECTIONS,
                 stream_stall_s: float = STREAM_STALL_S) -> None:
        """``allowed_hosts``: names to answer to besides :func:`hosts.default_names`;
        ``max_connections``: connections (threads) open at once from all addresses;
        ``stream_stall_s``: how long an event stream's client may take or acknowledge nothing
        before it is dropped (:func:`bound_stream`)."""
        if not stream_stall_s > 0:  # before binding, as a bad name
            raise InvalidInputError(f"stream_stall_s must be above 0 seconds, got "
                                    f"{stream_stall_s!r}")
        self.host_check = HostCheck(address[0], allowed_hosts)  # a bad name: before binding
        # before binding: a failed bind calls server_close, which closes them
        self.refusals = Refusals()  # connections turned away, touched by the accept loop only
        super().__init__(address, HubRequestHandler)
        self.hub = hub
        self.secure = secure
        self.request_timeout_s = request_timeout_s
        self.max_connections = max_connections
        self.stream_stall_s = stream_stall_s
        self.stopping = threading.Event()
        self.connections: dict[str, int] = {}  # open connections by remote address
        self.open_connections = 0  # their sum
        self.connections_lock = threading.Lock()

    def admit(self, address: str) -> str | None:
        """Count a new connection from ``address``; or, uncounted, why not: that address holds
        MAX_CONNECTIONS_PER_ADDRESS already (one client cannot take every thread), or all
        addresses together hold ``max_connections`` (many cannot start threads unbounded)."""
        with self.connections_lock:
            held = self.connections.get(address, 0)
            if held >= MAX_CONNECTIONS_PER_ADDRESS:
                return (f"too many connections from {address} (at most "
                        f"{MAX_CONNECTIONS_PER_ADDRESS}); close some and try again")
            if self.open_connections >= self.max_connections:
                return (f"the hub has {self.open_connections} connections open, its most; "
                        "try again shortly")
            self.connections[address] = held + 1
            self.open_connections += 1
            return None

    def release(self, address: str) -> None:
        """Uncount a connection :meth:`admit` counted."""
        with self.connections_lock:
            held = self.connections.pop(address, 0) - 1
            if held > 0:
                self.connections[address] = held
            self.open_connections -= 1

    def process_request(self, request: Any, client_address: Any) -> None:
        """Start the connection's thread; or, over a cap, turn it away here in the accept loop
        with no thread: a 503 sent at once, its request unread (over HTTPS, before any
        handshake, it is closed instead)."""
        address = str(client_address[0])
        refusal = self.admit(address)
        if refusal is not None:
            log.debug("refused a connection from %s: %s", address, refusal)
            self.refusals.refuse(request, None if isinstance(request, ssl.SSLSocket)
                                 else refusal_response(refusal))
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread started: nothing else uncounts it
            self.release(address)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """Serve the connection on its thread, then uncount it."""
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.release(str(client_address[0]))

    def service_actions(self) -> None:
        """Between accepts (and every half second): close refused connections whose clients
        have closed or whose time is up."""
        self.refusals.sweep()

    def server_close(self) -> None:
        """Close the listening socket and any refused connection still kept."""
        super().server_close()
        self.refusals.close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One log line instead of socketserver's traceback on stderr: a browser closing its
        connection (a phone locked, a page left) is routine; any other error is named, with
        its traceback only when the hub logs at debug level."""
        exc = sys.exc_info()[1]
        where = client_address[0]  # (host, port): the hub listens on TCP only
        if isinstance(exc, ConnectionError):
            log.info("%s closed the connection mid-request (%s)", where,
                     (exc.strerror or type(exc).__name__).lower())
            return
        if isinstance(exc, (ssl.SSLError, TimeoutError)):  # a plain-HTTP or silent client
            log.info("%s failed the TLS handshake: %s", where, exc)
            return
        log.warning("request from %s failed: %s: %s", where, type(exc).__name__, exc,
                    exc_info=log.isEnabledFor(logging.DEBUG))


class HubRequestHandler(BaseHTTPRequestHandler):
    """One request; routes by path."""

    server: HubHTTPServer
    protocol_version = "HTTP/1.1"
    server_version = "hakem-hub"
    _body_unread = False  # the request declared a body not read (yet)
    _host_refused = False  # its Host header names another site: answered, then closed

    def setup(self) -> None:
        """Give the connection (admitted by the server under its caps) the server's timeout: a
        client that stops sending, mid-body or before a word, frees its thread; and, on HTTPS,
        shake hands here rather than in the accept loop, which one silent client would stop."""
        self.request.settimeout(self.server.request_timeout_s)
        if isinstance(self.request, ssl.SSLSocket):
            self.request.do_handshake()
        super().setup()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the hub logs actions and refusals itself."""

    # -- plumbing ---------------------------------------------------------------------------
    def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None,
              ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", _CSP)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if self._body_unread or self._host_refused:
            # a body left unread would be read as the next request; one for another site's
            # name ends here
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(obj).encode("utf-8"), "application/json", headers)

    def _error(self, status: int, message: str) -> None:
        self._json(status, {"error": message})

    def _token(self) -> str | None:
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            return auth[7:].strip() or None
        try:
            cookie = SimpleCookie(self.headers.get("Cookie", ""))
        except CookieError:
            return None
        morsel = cookie.get(COOKIE)
        return morsel.value if morsel is not None else None

    def parse_request(self) -> bool:
        """Parse a request line and headers, and note whether the request declares a body: one
        left unread would be taken for the next request on the connection."""
        if not super().parse_request():
            return False
        self._body_unread = (self.command == "POST" or "Transfer-Encoding" in self.headers
                             or self.headers.get("Content-Length", "0").strip() != "0")
        refusal = self.server.host_check.refusal(self.headers.get_all("Host") or [])
        if refusal is not None:  # a page from another site, its name rebound to the hub
            self._host_refused = True
            self._json(int(HTTPStatus.MISDIRECTED_REQUEST), {"error": refusal})
            return False
        return True

    def _body(self) -> dict[str, Any]:
        """The POST body as a JSON object. Refused unread when it is not application/json, has
        no single valid Content-Length or is larger than MAX_BODY: the answer then closes the
        connection (``_send``), so its bytes are never read as a request."""
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
            raise InvalidInputError("a POST body must be application/json")
        if "Transfer-Encoding" in self.headers:
            raise InvalidInputError(f"transfer-encoding "
                                    f"{self.headers['Transfer-Encoding']!r} is not accepted: "
                                    "send a Content-Length")
        lengths = self.headers.get_all("Content-Length") or []
        if len(lengths) != 1:
            raise InvalidInputError(f"a POST needs one Content-Length, not {len(lengths)}")
        text = lengths[0].strip()
        if not (text.isascii() and text.isdigit()):
            raise InvalidInputError(f"bad Content-Length {lengths[0]!r}")
        length = int(text)
        if length > MAX_BODY:
            raise InvalidInputError(f"body too large: {length} bytes (at most {MAX_BODY})")
        raw = self.rfile.read(length) if length else b"{}"
        if len(raw) < length:
            raise InvalidInputError(f"body shorter than its Content-Length: {len(raw)} of "
                                    f"{length} bytes")
        self._body_unread = False
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise InvalidInputError("the body is not JSON (or is nested too deeply)") from None
        if not isinstance(body, dict):
            raise InvalidInputError("the body must be a JSON object")
        return body

    def _remote(self) -> str:
        return str(self.client_address[0])

    # -- dispatch -----------------------------------------------------------------------------
    def do_HEAD(self) -> None:
        """Like GET without the body."""
        self.do_GET()

    def do_GET(self) -> None:
        """Pages, static files and the read API."""
        url = urlsplit(self.path)
        parts = [unquote(p) for p in url.path.split("/") if p]
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        hub = self.server.hub
        try:
            if not parts:
                self._send(200, dashboard_page().encode(), "text/html; charset=utf-8")
            elif parts[0] == "static" and len(parts) == 2 and parts[1] in STATIC_TYPES:
                data = static_file(parts[1]) or b""
                self._send(200, data, STATIC_TYPES[parts[1]])
            elif parts == ["favicon.ico"]:
                # browsers ask for it whatever the page names: the page's own icon, not the
                # person's "no such page" (which a browser would log as an error on every page)
                self._send(200, static_file("icon.svg") or b"", STATIC_TYPES["icon.svg"])
            elif parts == ["audit"]:
                self._send(200, audit_page().encode(), "text/html; charset=utf-8")
            elif parts[0] == "tables" and len(parts) == 3:
                self._send(200, table_page(parts[1], parts[2]).encode(), "text/html; charset=utf-8")
            elif parts == ["api", "tables"]:
                self._json(200, hub.tables())
            elif parts == ["api", "results"]:
                self._json(200, hub.results())
            elif parts == ["api", "session"]:
                self._json(200, {"user": hub.session_user(self._token())})
            elif parts == ["api", "audit"]:
                if hub.session_user(self._token()) is None:
                    self._error(401, "log in to read the audit log")
                else:
                    self._json(200, hub.store.audit_log(before=_audit_page(query.get("before"))))
            elif parts == ["api", "stream"]:
                self._stream()
            elif parts[:2] == ["api", "tables"] and len(parts) >= 4:
                self._table_get(parts[2], parts[3], parts[4:], query.get("match"))
            elif parts[0] not in ("api", "static"):
                # a person's mistyped address: a page they can read, as the other pages are
                self._send(404, not_found_page(url.path).encode(), "text/html; charset=utf-8")
            else:
                self._error(404, f"no such page: {url.path}")
        except NotFoundError as exc:
            self._error(404, str(exc))
        except HakemError as exc:
            self._error(400, str(exc))
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _table_get(self, tournament: str, table: str, rest: list[str], match: str | None) -> None:
        hub = self.server.hub
        if not rest:
            self._json(200, hub.table(tournament, table, match))
        elif rest == ["board.svg"]:
            state = hub.match_state(tournament, table, match)
            names = (state.players[0], state.players[1])
            svg = (mangala_svg(state.position, names) if state.game == "mangala"
                   else board_svg(state.position_id, state.position_player, names))
            self._send(200, svg.encode(), "image/svg+xml")
        elif rest in (["match.mat"], ["round.txt"]):
            state = hub.match_state(tournament, table, match)
            wanted = "round.txt" if state.game == "mangala" else "match.mat"
            if rest[0] != wanted:
                raise NotFoundError(f"match {state.match!r} at table {tournament}/{table} is "
                                    f"{state.game}: its record is {wanted}, not {rest[0]}")
            entries = hub.match_entries(tournament, table, state.match)
            if state.game == "mangala":
                text, ctype, name = round_record(state, entries, table)
            else:
                text, ctype, name = match_record(state, table, entries)
            self._send(200, text.encode("utf-8"), ctype,
                       {"Content-Disposition": f'attachment; filename="{name}"'})
        elif len(rest) == 3 and rest[0] == "snapshots" and rest[2].endswith(".jpg"):
            seq = rest[2][:-4]
            jpeg = None
            if seq.isdigit():
                jpeg = hub.store.snapshot(tournament, table, rest[1], int(seq))
            if jpeg is None:
                raise NotFoundError(f"no snapshot {rest[1]}/{seq} at table {tournament}/{table}")
            self._send(200, jpeg, "image/jpeg")
        else:
            raise NotFoundError(f"no such resource: {'/'.join(rest)}")

    def _stream(self) -> None:
        """Server-Sent Events: every table once, then each table's summary when it changes.
        Idle, it looks every STREAM_CHECK_S whether its client has closed, so a page left frees
        its connection within about that (a write alone would fail only at the second one); a
        client that stalls or leaves the network unannounced is dropped (:func:`bound_stream`)."""
        hub = self.server.hub
        listener = hub.broadcaster.subscribe()
        try:
            bound_stream(self.request, self.server.stream_stall_s)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            if self.command == "HEAD":  # the headers alone: no stream to hold a thread open
                return
            self.wfile.write(f"retry: 1000\nevent: tables\ndata: {json.dumps(hub.tables())}\n\n"
                             .encode())
            self.wfile.flush()
            quiet_since = time.monotonic()
            while not self.server.stopping.is_set():
                try:
                    item = listener.get(timeout=STREAM_CHECK_S)
                except queue.Empty:
                    if self._client_gone():
                        return
                    if time.monotonic() - quiet_since >= KEEPALIVE_S:
                        self.wfile.write(b": keepalive\n\n")
                        self.wfile.flush()
                        quiet_since = time.monotonic()
                    continue
                if item is None:
                    return
                chunks = [item]
                while len(chunks) < 500:
                    try:
                        more = listener.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        break
                    chunks.append(more)
                self.wfile.write("".join(f"event: table\ndata: {c}\n\n" for c in chunks).encode())
                self.wfile.flush()
                quiet_since = time.monotonic()
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            hub.broadcaster.unsubscribe(listener)

    def _client_gone(self) -> bool:
        """True when the stream's client has closed its connection: it sends nothing once its
        request is made, so the socket turns readable only at its end (anything it does send is
        read and dropped)."""
        sock: socket.socket = self.request
        if not select.select([sock], [], [], 0)[0]:
            return False
        timeout = sock.gettimeout()
        sock.settimeout(0)
        try:
            return sock.recv(4096) == b""
        except (BlockingIOError, ssl.SSLWantReadError):
            return False  # part of a TLS record: not an end yet
        except OSError:  # reset, or timed out by the kernel (bound_stream)
            return True
        finally:
            sock.settimeout(timeout)

    def do_POST(self) -> None:
        """Login, logout and director actions."""
        url = urlsplit(self.path)
        parts = [unquote(p) for p in url.path.split("/") if p]
        hub = self.server.hub
        try:
            if parts[:2] == ["api", "tables"] and len(parts) >= 5:
                self._act(parts[2], parts[3], parts[4:])
                return
            body = self._body()
            if parts == ["api", "login"]:
                name, password = body.get("user"), body.get("password")
                if not isinstance(name, str) or not isinstance(password, str):
                    raise InvalidInputError("login needs a user and a password")
                token = hub.login(name, password, self._remote())
                secure = "; Secure" if self.server.secure else ""
                cookie = (f"{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; "
                          f"Max-Age={int(hub.session_ttl_s)}{secure}")
                self._json(200, {"user": body.get("user"), "token": token},
                           {"Set-Cookie": cookie})
            elif parts == ["api", "logout"]:
                old = self._token()
                if old:
                    hub.logout(old)
                clear = f"{COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0"
                self._json(200, {"user": None}, {"Set-Cookie": clear})
            else:
                self._error(404, f"no such action: {url.path}")
        except ActionRefusedError as exc:
            self._error(int(HTTPStatus.UNAUTHORIZED), str(exc))
        except NotFoundError as exc:
            self._error(404, str(exc))
        except HakemError as exc:
            self._error(400, str(exc))
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _act(self, tournament: str, table: str, rest: list[str]) -> None:
        """A director action at a table; one refused here, before the hub takes it (its body or
        address bad), is audited as the hub's own refusals are."""
        hub = self.server.hub
        kind = _action_name(rest)
        asked: dict[str, Any] | None = None
        try:
            body = self._body()
            if kind not in ("acknowledge", "override", "end"):
                raise NotFoundError(f"no such action: {'/'.join(rest)}")
            asked = _action_asked(kind, rest[1] if len(rest) > 1 else "", body)
            if not isinstance(asked.get("seq", 0), int):
                raise NotFoundError(f"no flag {rest[1]!r}")
        except HakemError as exc:
            hub.refused(self._token(), self._remote(), f"{kind} {tournament}/{table}", asked,
                        str(exc))
            raise
        result = hub.act(self._token(), self._remote(), tournament, table, kind, asked)
        self._json(200, result)


def _audit_page(before: str | None) -> int | None:
    """The ``before`` of ``GET /api/audit?before=ID`` (the next page: lines older than that
    one), or None for the latest; InvalidInputError (400) naming anything else."""
    if before is None:
        return None
    number = _small_number(before)
    if number is None:
        raise InvalidInputError(f"before must be an audit line's id, not {before[:40]!r}")
    return number


def _small_number(text: str) -> int | None:
    """``text`` as a whole number of at most 18 ASCII digits (a row id, a flag's seq), else
    None: ``int()`` takes other digits ("²" is no number) and refuses 4300 of them."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def _action_name(rest: list[str]) -> str:
    """What a POST under a table's address asks for, by its address: ``acknowledge``,
    ``override``, ``end``, or the address itself when it names no action."""
    if len(rest) == 3 and rest[0] == "flags" and rest[2] in ("ack", "override"):
        return "acknowledge" if rest[2] == "ack" else "override"
    return "end" if rest == ["end"] else "/".join(rest)


def _action_asked(kind: str, seq: str, body: dict[str, Any]) -> dict[str, Any]:
    """The data of action ``kind`` as asked, unchecked: a flag's ``seq`` from its address (text
    when it is no number), the rest from the body."""
    if kind == "end":
        return {"winner": body.get("winner"), "note": body.get("note", "")}
    number = _small_number(seq)
    data: dict[str, Any] = {"seq": seq if number is None else number,
                            "note": body.get("note", "")}
    if kind == "override":
        data["verdict"] = body.get("verdict")
    return data


def bound_stream(sock: socket.socket, stall_s: float) -> None:
    """Bound how long an event stream's client may stall it, so a device gone from the network
    without closing frees its connection within about ``stall_s`` rather than when TCP gives up
    (many minutes): a write blocked that long fails (its client reads nothing), data left
    unacknowledged that long ends the connection (TCP_USER_TIMEOUT, Linux), and an idle one is
    probed by TCP keep-alive, which fails within it too (where the platform has the options)."""
    sock.settimeout(stall_s)
    options = [(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
    probe = max(1, int(stall_s / 6))  # three probes this far apart after an idle third
    for name, value in (("TCP_KEEPIDLE", max(1, int(stall_s / 3))), ("TCP_KEEPINTVL", probe),
                        ("TCP_KEEPCNT", 3), ("TCP_USER_TIMEOUT", max(1, int(stall_s * 1000)))):
        number = getattr(socket, name, None)
        if number is not None:
            options.append((socket.IPPROTO_TCP, number, value))
    for level, option, value in options:
        try:
            sock.setsockopt(level, option, value)
        except OSError as exc:  # a platform that lacks one: the send bound still holds
            log.debug("stream socket option %s not set: %s", option, exc)


def serve(hub: HubService, host: str, port: int, *, certfile: str | None = None,
          keyfile: str | None = None, request_timeout_s: float = REQUEST_TIMEOUT_S,
          allowed_hosts: Iterable[str] = (),
          max_connections: int = MAX_CONNECTIONS,
          stream_stall_s: float = STREAM_STALL_S) -> HubHTTPServer:
    """Bind the web server (HTTPS when a certificate is given); call ``serve_forever``.
    It answers only requests whose ``Host`` names it (``allowed_hosts`` adds names)."""
    server = HubHTTPServer((host, port), hub, secure=certfile is not None,
                           request_timeout_s=request_timeout_s, allowed_hosts=allowed_hosts,
                           max_connections=max_connections, stream_stall_s=stream_stall_s)
    if certfile is not None:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(certfile, keyfile)
        server.socket = context.wrap_socket(server.socket, server_side=True,
                                            do_handshake_on_connect=False)  # in its thread
    return server
