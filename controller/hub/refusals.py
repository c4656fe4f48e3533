"""Connections the hub's web server turns away in its accept loop, with no thread of their own.

Each is sent its short 503 at once, without its request being read, and its sending side is
shut; it is then kept (at most ``limit`` of them, each at most ``linger_s``) only to read out and
drop what its client sends until the client closes. Closed with that request unread, the socket
would answer with a reset, which may wipe the 503 before the client reads it.
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections import deque

LINGER_S = 2.0  # how long a refused connection is kept for its client to close it
MAX_LINGERING = 256  # refused connections kept at once; beyond, the oldest is closed at once
_READS_PER_SWEEP = 4  # chunks read from one connection per sweep: a flood cannot hold the loop


def refusal_response(message: str) -> bytes:
    """A whole 503 response carrying ``message`` as the JSON error, closing the connection."""
    body = json.dumps({"error": message}).encode()
    head = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\n"
            "X-Content-Type-Options: nosniff\r\nRetry-After: 5\r\nConnection: close\r\n\r\n")
    return head.encode("ascii") + body


class Refusals:
    """Refused connections waiting for their clients to close; swept by the accept loop."""

    def __init__(self, linger_s: float = LINGER_S, limit: int = MAX_LINGERING) -> None:
        self.linger_s = linger_s
        self.limit = limit
        self._held: deque[tuple[float, socket.socket]] = deque()

    def __len__(self) -> int:
        return len(self._held)

    def refuse(self, sock: socket.socket, answer: bytes | None) -> None:
        """Send ``answer`` without blocking and keep ``sock`` until its client closes; with no
        answer (a TLS connection not yet shaken hands with cannot be written to), close it."""
        if answer is None:
            _close(sock)
            return
        try:
            sock.setblocking(False)
            sock.send(answer)  # a fresh socket's buffer takes a few hundred bytes whole
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            _close(sock)
            return
        self._held.append((time.monotonic() + self.linger_s, sock))
        while len(self._held) > self.limit:
            _close(self._held.popleft()[1])

    def sweep(self) -> None:
        """Read out every kept connection; close those whose client closed or whose time is up."""
        now = time.monotonic()
        kept: deque[tuple[float, socket.socket]] = deque()
        for deadline, sock in self._held:
            if deadline <= now or _client_closed(sock):
                _close(sock)
            else:
                kept.append((deadline, sock))
        self._held = kept

    def close(self) -> None:
        """Close every kept connection (the server is closing)."""
        while self._held:
            _close(self._held.popleft()[1])


def _client_closed(sock: socket.socket) -> bool:
    """Read (and drop) what the client sent; True once it has closed or the socket failed."""
    try:
        for _ in range(_READS_PER_SWEEP):
            if not sock.recv(65536):
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True
    return False


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.close()
