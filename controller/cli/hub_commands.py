"""Subcommands of ``hakem`` for the tournament hub.

``hakem hub --broker URL --http PORT --db FILE`` runs the hub; ``hakem hub --db FILE
--add-user NAME`` creates (or resets) a director account, reading the password from the first
line of stdin. Tables publish through :class:`controller.hub.publisher.TablePublisher`
(``hakem run`` with ``hub.url``, ``hakem demo --publish URL --table ID``).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import socket
import sqlite3
import ssl
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.cli.broker_options import add_broker_options, broker_link, check_pem
from controller.cli.common import (
    CommandError,
    add_command,
    emit_json,
    is_utf8,
    number_in,
    open_stdin,
    os_reason,
    wants_json,
)
from controller.hub.hosts import check_host_name
from controller.hub.link import LinkConfig, shown_url, ssl_reason
from engine.errors import HakemError, InvalidInputError

if TYPE_CHECKING:
    from controller.hub.server import HubApp

MAX_SESSION_HOURS = 24 * 366  # a year: a session lasting longer is a mistake
EVERY_INTERFACE = ("0.0.0.0", "", "::")  # --bind values that listen on every interface

_EPILOG = """\
examples:
  hakem hub --broker mqtt://127.0.0.1:1883 --http 8080 --db hub.sqlite
  hakem hub --broker mqtt://127.0.0.1:1883 --http 8080 --db hub.sqlite --allow-host hub.cup.example
  echo 'long secret' | hakem hub --db hub.sqlite --add-user director
Broker URLs: mqtt://[user[:password]@]host[:port] or mqtts://... for TLS (port 8883).
The dashboard is at http://HOST:PORT/; JSON under /api/ (see hardware_docs/hub.md).
"""


def register(subparsers: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add the hub's subcommands to ``hakem``."""
    parser = add_command(subparsers, "hub", parents,
                         "the tournament hub: every table live on the director's dashboard")
    parser.epilog = _EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--db", required=True, metavar="FILE", help="the hub's SQLite database")
    parser.add_argument("--broker", metavar="URL",
                        help="the MQTT broker (mqtt:// or mqtts://); needed to run the hub, "
                             "not with --add-user or --list-users")
    parser.add_argument("--http", type=int, metavar="PORT",
                        help="port of the web dashboard; needed to run the hub, not with "
                             "--add-user or --list-users")
    parser.add_argument("--bind", default="0.0.0.0", metavar="ADDR",
                        help="address the dashboard listens on (default: every interface)")
    add_broker_options(parser)
    parser.add_argument("--allow-host", action="append", default=[], type=_host_name,
                        metavar="NAME", help="a DNS name the dashboard is reached by, besides "
                        "its addresses, localhost and this machine's name (NAME.local too); "
                        "repeatable")
    parser.add_argument("--https-cert", metavar="FILE", help="serve HTTPS with this certificate")
    parser.add_argument("--https-key", metavar="FILE", help="the certificate's private key")
    parser.add_argument("--session-hours", type=number_in(0, MAX_SESSION_HOURS, above_low=True),
                        default=8.0, help="director sessions expire after this many hours "
                        f"(default 8, at most {MAX_SESSION_HOURS})")
    parser.add_argument("--add-user", metavar="NAME",
                        help="create or reset a director account; the password is the first "
                             "line of stdin (at least 8 characters); then exit")
    parser.add_argument("--list-users", action="store_true", help="list director accounts; exit")
    parser.set_defaults(func=run_hub)


def _host_name(text: str) -> str:
    """An argparse type for ``--allow-host``: a DNS name, checked before the hub starts."""
    try:
        return check_host_name(text)
    except InvalidInputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def run_hub(args: argparse.Namespace) -> int:
    """Run the hub, or manage accounts."""
    if not args.db.strip():
        raise CommandError("hub: --db must name the hub's database file, not be empty")
    if args.add_user is not None or args.list_users:
        return _accounts(args)
    if args.broker is None or args.http is None:
        raise CommandError("hub: --broker URL and --http PORT are required to run the hub")
    if not 0 <= args.http < 65536:
        raise CommandError(f"hub: --http is not a port number: {args.http}")
    if (args.https_cert is None) != (args.https_key is None):
        raise CommandError("hub: --https-cert and --https-key go together")
    _check_https_files(args)
    link = broker_link(args, "--broker", "hub")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    app = _start_app(args, link)
    broker = shown_url(args.broker)  # said and logged: never with the password
    message = f"hakem hub: dashboard on {dashboard_words(app.url, args.bind)} (broker {broker})"
    if wants_json(args):
        emit_json({"url": app.url, "broker": broker})
    else:
        print(message, file=sys.stderr, flush=True)
    # SIGTERM (systemd stop) shuts down cleanly: the hub says offline and closes its database.
    signal.signal(signal.SIGTERM,
                  lambda signum, frame: threading.Thread(target=app.http.shutdown).start())
    app.serve_forever()
    return 0


def _accounts(args: argparse.Namespace) -> int:
    """``--add-user NAME`` (password from stdin) and ``--list-users``."""
    from controller.hub.auth import check_user_name
    from controller.hub.service import HubService

    if args.add_user is not None:
        check_user_name(args.add_user)  # before the password is typed
    elif not Path(args.db).exists():
        # listing reads accounts: a mistyped --db would otherwise make a new, empty database
        raise CommandError(f"hub: no hub database at {args.db!r} (--add-user makes one)")
    with _database(args.db):
        service = HubService(args.db)
        try:
            if args.add_user is not None:
                service.add_user(args.add_user, _password_line())
                print(f"account {args.add_user} saved", file=sys.stderr)
            users = service.store.users()
        finally:
            service.store.close()
    if args.list_users:
        if wants_json(args):
            emit_json({"users": users})
        elif users:
            print("\n".join(users))
        else:
            print("hub: no accounts yet (hakem hub --db FILE --add-user NAME makes one)",
                  file=sys.stderr)
    return 0


def _password_line() -> str:
    """The first line of stdin, which must be UTF-8 text (it is hashed as such)."""
    problem = "hub: the password (first line of stdin) is not UTF-8 text"
    try:
        line = open_stdin("hub: the password").readline()
    except UnicodeDecodeError:
        raise CommandError(problem) from None
    if not is_utf8(line):  # stdin decoded with surrogates for the bytes that are not UTF-8
        raise CommandError(problem)
    return line.rstrip("\r\n")


@contextlib.contextmanager
def _database(path: str) -> Iterator[None]:
    """SQLite's errors opening ``--db`` as one line naming the file."""
    try:
        yield
    except sqlite3.Error as exc:
        raise CommandError(f"cannot open the hub's database {path}: {exc}") from None


def _check_https_files(args: argparse.Namespace) -> None:
    """Load ``--https-cert`` and ``--https-key`` now, so a missing or bad file is named before
    the hub starts."""
    if args.https_cert is None:
        return
    check_pem("hub", "--https-cert", args.https_cert, "certificate")
    check_pem("hub", "--https-key", args.https_key, "private key")
    try:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.https_cert, args.https_key)
    except (OSError, ValueError) as exc:
        raise CommandError(f"hub: --https-cert {args.https_cert} --https-key {args.https_key}:"
                           f" not a usable certificate and key ({ssl_reason(exc)})") from None


def dashboard_words(url: str, bind: str) -> str:
    """Where the dashboard is, as the start line says it: ``url`` (the loopback address when
    the hub listens on every interface, which no other device can open) and then, on every
    interface, the machine's mDNS name, which the hub answers to (``hosts.default_names``),
    when it has one."""
    from urllib.parse import urlsplit

    from controller.hub.hosts import mdns_name

    if bind not in EVERY_INTERFACE:
        return f"{url}/"
    parts, name = urlsplit(url), mdns_name()
    named = f"{parts.scheme}://{name}:{parts.port}/ or " if name else ""
    return f"{url}/ (every interface: from another device, {named}this machine's address)"


def _start_app(args: argparse.Namespace, link: LinkConfig) -> HubApp:
    """Open the database and bind the dashboard; failures name the option at fault."""
    from controller.hub.server import HubApp

    where = f"--bind {args.bind} --http {args.http}"
    with _database(args.db):
        try:
            return HubApp(args.db, link, host=args.bind, port=args.http,
                          certfile=args.https_cert, keyfile=args.https_key,
                          session_ttl_s=args.session_hours * 3600,
                          allowed_hosts=args.allow_host)
        except socket.gaierror as exc:
            raise CommandError(f"hub: --bind {args.bind}: no such address ({os_reason(exc)})"
                               ) from None
        except ssl.SSLError as exc:
            raise CommandError(f"hub: --https-cert {args.https_cert}: {ssl_reason(exc)}"
                               ) from None
        except OSError as exc:
            # the database's folder: its own message (a missing one) or the general one
            if exc.filename is not None or isinstance(exc, HakemError):
                raise
            raise CommandError(f"hub: cannot listen on {where}: {os_reason(exc)}") from None
