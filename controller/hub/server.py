"""The whole hub in one object: service (store + subscriber) and the web server on a thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from types import TracebackType

from controller.hub.http import (
    MAX_CONNECTIONS,
    REQUEST_TIMEOUT_S,
    STREAM_STALL_S,
    HubHTTPServer,
    serve,
)
from controller.hub.link import LinkConfig
from controller.hub.service import INBOX_BYTES, INBOX_MESSAGES, SESSION_TTL_S, HubService


class HubApp:
    """Start with :meth:`start` (or ``with``); :attr:`url` is the dashboard's address."""

    def __init__(
        self,
        db_path: str,
        link: LinkConfig | None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        certfile: str | None = None,
        keyfile: str | None = None,
        session_ttl_s: float = SESSION_TTL_S,
        client_id: str | None = None,
        request_timeout_s: float = REQUEST_TIMEOUT_S,
        clock: Callable[[], float] = time.time,
        allowed_hosts: Iterable[str] = (),
        max_connections: int = MAX_CONNECTIONS,
        inbox_limits: tuple[int, int] = (INBOX_MESSAGES, INBOX_BYTES),
        stream_stall_s: float = STREAM_STALL_S,
    ) -> None:
        """``clock``: the service's (sessions, login lockouts); tests pass their own.
        ``allowed_hosts``: names the web server answers to besides its own (``--allow-host``).
        ``max_connections`` and ``inbox_limits`` (messages, bytes): the web server's and the
        service's caps; tests lower them. ``stream_stall_s``: how long an event stream's
        client may stall before it is dropped (a device gone from the network)."""
        self.service = HubService(db_path, link, session_ttl_s=session_ttl_s, client_id=client_id,
                                  clock=clock, inbox_limits=inbox_limits)
        self.http: HubHTTPServer = serve(self.service, host, port, certfile=certfile,
                                         keyfile=keyfile, request_timeout_s=request_timeout_s,
                                         allowed_hosts=allowed_hosts,
                                         max_connections=max_connections,
                                         stream_stall_s=stream_stall_s)
        self._thread: threading.Thread | None = None
        scheme = "https" if certfile else "http"
        bound_host, bound_port = self.http.server_address[:2]
        shown = "127.0.0.1" if bound_host in ("0.0.0.0", "") else str(bound_host)
        self.url = f"{scheme}://{shown}:{bound_port}"

    def start(self) -> HubApp:
        """Start subscribing and serving in background threads."""
        self.service.start()
        self._thread = threading.Thread(target=self.http.serve_forever, name="hub-http",
                                        daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Subscribe in the background and serve HTTP on this thread until interrupted."""
        self.service.start()
        try:
            self.http.serve_forever()
        finally:
            self._shutdown()

    def stop(self) -> None:
        """Stop serving and subscribing; the database is closed."""
        self.http.stopping.set()
        if self._thread is not None:
            self.http.shutdown()
            self._thread.join(10)
            self._thread = None
        self._shutdown()

    def _shutdown(self) -> None:
        self.http.stopping.set()
        self.service.broadcaster.close()
        self.http.server_close()
        self.service.stop()

    def __enter__(self) -> HubApp:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
