"""The broker options ``hakem hub`` and ``hakem demo --publish`` share (the topic prefix, the
broker's CA, its login and password file), checked before anything starts. A table's ``[hub]``
section gives the same for ``hakem run`` (``controller.config.table.HubSection``)."""

from __future__ import annotations

import argparse
import ssl
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli.common import CommandError
from controller.hub.topics import DEFAULT_PREFIX, check_id
from engine.errors import HakemError

if TYPE_CHECKING:  # paho, under the hub's modules, is imported only when a link is made
    from controller.hub.link import LinkConfig

BROKER_OPTIONS = ("--prefix", "--ca", "--broker-user", "--broker-password-file")


def add_broker_options(parser: argparse.ArgumentParser) -> None:
    """``--prefix``, ``--ca``, ``--broker-user`` and ``--broker-password-file``."""
    parser.add_argument("--prefix", help=f"topic prefix (default {DEFAULT_PREFIX})")
    parser.add_argument("--ca", metavar="FILE", help="CA file for the broker's TLS certificate "
                        "(default: the system's trusted CAs)")
    parser.add_argument("--broker-user", metavar="NAME", help="broker user name")
    parser.add_argument("--broker-password-file", metavar="FILE",
                        help="file whose first line is the broker password")


def given_broker_options(args: argparse.Namespace) -> list[str]:
    """The broker options given on the command line."""
    return [o for o in BROKER_OPTIONS if getattr(args, o[2:].replace("-", "_")) is not None]


def broker_link(args: argparse.Namespace, url_option: str, command: str,
                base: LinkConfig | None = None) -> LinkConfig:
    """The broker link of ``url_option``'s url and the broker options over ``base`` (the
    table, its tournament, its outbox), checked: the password given both in the url and in a
    file, a password file without a user or that cannot be read, and a CA file that cannot be
    used or goes with an ``mqtt://`` url are refused, naming the option."""
    from controller.hub.link import LinkConfig, LinkNames, parse_broker_url, shown_url

    url = str(getattr(args, url_option[2:]))
    prefix = DEFAULT_PREFIX if args.prefix is None else args.prefix
    base = replace(base or LinkConfig(), prefix=check_id(prefix, "prefix"),
                   username=args.broker_user, password_file=args.broker_password_file,
                   ca_file=args.ca, names=LinkNames(url_option, "--ca", "--broker-password-file"))
    link = parse_broker_url(url, base)
    secret = args.broker_password_file
    if secret is not None:
        if link.password is not None:
            raise CommandError(f"{command}: the broker password is both in {url_option} "
                               f"{shown_url(url)} and in --broker-password-file {secret}: "
                               "give it once")
        if link.username is None:
            raise CommandError(f"{command}: --broker-password-file {secret} needs a user: "
                               f"--broker-user NAME, or USER@ in {url_option}")
        try:
            link.secret()
        except HakemError as exc:
            raise CommandError(f"{command}: {exc}") from None
    if args.ca is not None:
        check_pem(command, "--ca", args.ca, "certificate")
        try:
            ssl.create_default_context(cafile=args.ca)
        except (OSError, ValueError) as exc:
            from controller.hub.link import ssl_reason

            raise CommandError(f"{command}: --ca {args.ca}: not a usable CA file "
                               f"({ssl_reason(exc)})") from None
        if not link.tls:  # as a table's hub.ca_file: TLS comes from the url, on its port
            raise CommandError(f"{command}: --ca {args.ca} is for a TLS broker, but "
                               f"{url_option} {shown_url(url)} is not mqtts://")
    return link


def check_pem(command: str, option: str, path: str, what: str) -> None:
    """``path`` exists and holds a PEM ``what`` ("certificate", "private key"), or the
    option is refused naming it."""
    if not Path(path).is_file():
        raise CommandError(f"{command}: {option} {path}: no such file")
    if f"{what.upper()}-----".encode() not in Path(path).read_bytes():
        raise CommandError(f"{command}: {option} {path}: holds no PEM {what}")
