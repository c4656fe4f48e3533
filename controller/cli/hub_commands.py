"""Subcommands of ``hakem`` for the tournament hub.

``hakem hub --broker URL --http PORT --db FILE`` runs the hub; ``hakem hub --db FILE
--add-user NAME`` creates (or resets) a director account, reading the password from the first
line of stdin. The demo publishes through :func:`controller.hub.publisher.publish_journal`
(``hakem demo --publish URL --table ID``).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from dataclasses import replace
from typing import Any

from controller.cli.common import CommandError, add_command, emit_json, wants_json
from controller.hub.link import LinkConfig, parse_broker_url
from controller.hub.topics import DEFAULT_PREFIX, check_id

_EPILOG = """\
examples:
  hakem hub --broker mqtt://127.0.0.1:1883 --http 8080 --db hub.sqlite
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
    parser.add_argument("--broker", metavar="URL", help="the MQTT broker (mqtt:// or mqtts://)")
    parser.add_argument("--http", type=int, metavar="PORT", help="port of the web dashboard")
    parser.add_argument("--bind", default="0.0.0.0", metavar="ADDR",
                        help="address the dashboard listens on (default: every interface)")
    parser.add_argument("--prefix", default=DEFAULT_PREFIX, help="topic prefix (default hakem)")
    parser.add_argument("--ca", metavar="FILE", help="CA file for the broker's TLS certificate")
    parser.add_argument("--broker-user", metavar="NAME", help="broker user name")
    parser.add_argument("--broker-password-file", metavar="FILE",
                        help="file whose first line is the broker password")
    parser.add_argument("--https-cert", metavar="FILE", help="serve HTTPS with this certificate")
    parser.add_argument("--https-key", metavar="FILE", help="the certificate's private key")
    parser.add_argument("--session-hours", type=float, default=8.0,
                        help="director sessions expire after this many hours (default 8)")
    parser.add_argument("--add-user", metavar="NAME",
                        help="create or reset a director account; the password is the first "
                             "line of stdin (at least 8 characters); then exit")
    parser.add_argument("--list-users", action="store_true", help="list director accounts; exit")
    parser.set_defaults(func=run_hub)


def broker_config(args: argparse.Namespace) -> LinkConfig:
    """The hub's broker connection from the command line."""
    base = LinkConfig(prefix=check_id(args.prefix, "prefix"), ca_file=args.ca,
                      username=args.broker_user, password_file=args.broker_password_file)
    link = parse_broker_url(args.broker, base)
    return replace(link, tls=link.tls or args.ca is not None)


def run_hub(args: argparse.Namespace) -> int:
    """Run the hub, or manage accounts."""
    from controller.hub.server import HubApp
    from controller.hub.service import HubService

    if args.add_user or args.list_users:
        service = HubService(args.db)
        try:
            if args.add_user:
                line = sys.stdin.readline().rstrip("\r\n")
                service.add_user(args.add_user, line)
                print(f"account {args.add_user} saved", file=sys.stderr)
            users = service.store.users()
        finally:
            service.store.close()
        if args.list_users:
            if wants_json(args):
                emit_json({"users": users})
            else:
                print("\n".join(users))
        return 0
    if args.broker is None or args.http is None:
        raise CommandError("hub: --broker URL and --http PORT are required to run the hub")
    if not 0 <= args.http < 65536:
        raise CommandError(f"hub: --http is not a port number: {args.http}")
    if (args.https_cert is None) != (args.https_key is None):
        raise CommandError("hub: --https-cert and --https-key go together")
    if args.session_hours <= 0:
        raise CommandError(f"hub: --session-hours must be positive, got {args.session_hours}")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    app = HubApp(args.db, broker_config(args), host=args.bind, port=args.http,
                 certfile=args.https_cert, keyfile=args.https_key,
                 session_ttl_s=args.session_hours * 3600)
    message = f"hakem hub: dashboard on {app.url}/ (broker {args.broker})"
    if wants_json(args):
        emit_json({"url": app.url, "broker": args.broker})
    else:
        print(message, file=sys.stderr, flush=True)
    # SIGTERM (systemd stop) shuts down cleanly: the hub says offline and closes its database.
    signal.signal(signal.SIGTERM,
                  lambda signum, frame: threading.Thread(target=app.http.shutdown).start())
    app.serve_forever()
    return 0
