"""The names the hub's web server answers to (its ``Host`` check against DNS rebinding).

A page from another site whose domain name is re-pointed at the hub reaches it with that name in
``Host``; refusing names the hub does not know keeps such a page from reading the API. Literal
addresses always pass: rebinding needs a domain name.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable
from typing import Final

from engine.errors import InvalidInputError

_LABEL: Final = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")
MAX_SHOWN: Final = 80  # characters of a refused Host header said back


def is_address(name: str) -> bool:
    """True when ``name`` is a literal IPv4 or IPv6 address (an IPv6 zone allowed)."""
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def check_host_name(text: str) -> str:
    """``text`` as a name the hub answers to, lowercased and without a final dot; a name with
    a port, a scheme, a wildcard or characters a DNS name cannot hold is refused."""
    name = text.strip().lower().removesuffix(".")
    if is_address(name):
        return name
    labels = name.split(".")
    if not name or len(name) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise InvalidInputError(f"not a host name: {text!r} (letters, digits, hyphens and "
                                "dots, no port)")
    return name


def host_of(header: str) -> str | None:
    """The name in a ``Host`` header, lowercased, without its port or final dot; None when the
    header is malformed (a port that is not a number, an unclosed ``[``)."""
    text = header.strip().lower()
    if text.startswith("["):
        name, closed, rest = text[1:].partition("]")
        port = rest.removeprefix(":")
        if not closed or rest[:1] not in ("", ":") or not is_address(name):
            return None
    elif text.count(":") > 1:  # a bare IPv6 address (RFC 9110 wants brackets; be lenient)
        name, port = text, ""
    else:
        name, _, port = text.partition(":")
    if port and not (port.isascii() and port.isdigit()):
        return None
    return name.removesuffix(".")


def _machine_names() -> tuple[str, str]:
    """The machine's host name, full and short, as a ``Host`` header would give it."""
    full = socket.gethostname().lower().removesuffix(".")
    return full, full.split(".")[0]


def mdns_name() -> str | None:
    """The machine's mDNS name, ``NAME.local``: how a phone in the hall reaches a Pi. None for
    a machine without a name of its own (none, or ``localhost``), which mDNS does not publish
    under that name."""
    short = _machine_names()[1]
    return f"{short}.local" if short and short != "localhost" else None


def default_names(bound: str) -> frozenset[str]:
    """What the hub answers to unasked: ``localhost``, the machine's name (short and full) and
    its mDNS ``NAME.local``, and ``bound`` (``--bind``) when it is a name."""
    full, short = _machine_names()
    names = {"localhost", full, short, mdns_name() or ""}
    if bound and not is_address(bound):
        names.add(bound.lower().removesuffix("."))
    return frozenset(name for name in names if name)


class HostCheck:
    """Decides whether a request's ``Host`` header names this hub."""

    def __init__(self, bound: str, extra: Iterable[str] = ()) -> None:
        """``bound``: the address or name the server listens on; ``extra``: names a director
        added (``hakem hub --allow-host``), checked here so a bad one fails at start-up."""
        self.names = default_names(bound) | {check_host_name(name) for name in extra}

    def refusal(self, headers: list[str]) -> str | None:
        """None when the request may be answered; otherwise why not, naming the bad value. A
        request without ``Host`` passes: every browser sends one, so only scripts omit it."""
        if not headers:
            return None
        if len(headers) > 1:
            return f"one host header is needed, not {len(headers)}"
        name = host_of(headers[0])
        if name is not None and (is_address(name) or name in self.names):
            return None
        shown = headers[0].strip()[:MAX_SHOWN]
        return (f"this hub does not answer to host {shown!r}; if it is the hub's own name, "
                "start the hub with --allow-host NAME")
