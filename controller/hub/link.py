"""The connection to the broker: a config dataclass (TLS, username/password) and a paho client.

A table's ``[hub]`` section (:class:`controller.config.table.HubSection`) and the hub's command
line build :class:`LinkConfig` from a URL (``mqtt://user@host:1883``, ``mqtts://`` for TLS,
default ports 1883 and 8883) plus a CA file and a password file.
"""

from __future__ import annotations

import re
import ssl
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote, unquote, urlsplit

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from controller.hub.topics import DEFAULT_PREFIX, check_id
from engine.errors import ConfigError, InvalidInputError


class LinkNames(NamedTuple):
    """Where a person set a link's url, CA file and password file (a table's ``[hub]`` keys,
    or a command's options): the words a message about the link tells them to change."""

    url: str = "hub.url"
    ca_file: str = "hub.ca_file"
    password_file: str = "hub.password_file"


@dataclass(frozen=True)
class LinkConfig:
    """Where and how to reach the broker, who this table is, and (``names``) where a person
    set it up, for messages."""

    host: str = "localhost"
    port: int = 1883
    tls: bool = False
    ca_file: str | None = None  # trusted CA for the broker's certificate (system CAs if None)
    cert_file: str | None = None  # client certificate, when the broker asks for one
    key_file: str | None = None
    username: str | None = None
    password: str | None = None
    password_file: str | None = None  # read at connect time; keeps secrets out of the TOML
    prefix: str = DEFAULT_PREFIX
    tournament: str = "default"
    table: str = "1"
    keepalive_s: int = 15
    reconnect_min_s: float = 0.2
    reconnect_max_s: float = 5.0
    outbox: str = "hub-outbox.sqlite"  # the durable queue, kept beside the journal
    names: LinkNames = field(default_factory=LinkNames)

    def __post_init__(self) -> None:
        if not self.host:
            raise ConfigError("hub.host: must not be empty")
        if not 0 < self.port < 65536:
            raise ConfigError(f"hub.port: not a port number: {self.port}")
        if self.keepalive_s < 2:
            raise ConfigError(f"hub.keepalive_s: at least 2 seconds, got {self.keepalive_s}")
        for name, value in (("prefix", self.prefix), ("tournament", self.tournament),
                            ("table", self.table)):
            try:
                check_id(value, name)
            except InvalidInputError as exc:
                raise ConfigError(f"hub.{name}: {exc}") from None

    def where(self) -> str:
        """The broker's url as messages name it, a password in it shown as ``***``:
        ``mqtts://USER:***@HOST:PORT``."""
        login = ""
        if self.username is not None:
            shown = ":***" if self.password is not None else ""
            login = f"{quote(self.username, safe='')}{shown}@"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{login}{host}:{self.port}"

    def secret(self) -> str | None:
        """The password, from ``password`` or the first line of ``password_file`` (read on each
        call: a missing, unreadable or empty file is named rather than sent as no password)."""
        if self.password is not None:
            return self.password
        if self.password_file is None:
            return None
        key = self.names.password_file
        try:
            lines = Path(self.password_file).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ConfigError(f"{key}: cannot read {self.password_file}: "
                              f"{(exc.strerror or str(exc)).lower()}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{key}: {self.password_file} is not UTF-8 text") from None
        if not lines or not lines[0]:
            raise ConfigError(f"{key}: the first line of {self.password_file} is empty: it "
                              "must hold the broker password")
        return lines[0]


def ssl_reason(exc: Exception) -> str:
    """OpenSSL's words without its codes: "[X509: ...] no certificate found (_ssl.c:4154)"
    becomes "no certificate found"."""
    text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return re.sub(r"\[[^\]]*\]\s*|\s*\(_ssl\.c:\d+\)", "", text).lower()


def check_ca_file(path: str, key: str) -> None:
    """Load ``path`` as the broker's CA now, so a missing or wrong file is refused naming
    ``key`` before a connection fails on it."""
    try:
        ssl.create_default_context(cafile=path)
    except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError
        raise ConfigError(f"{key}: cannot use {path} as a CA file: {ssl_reason(exc)}") from None


def shown_url(url: str) -> str:
    """``url`` with a password in it replaced by ``***``: fit for a message or a log."""
    return re.sub(r"^([^/]*//[^/@:]*):[^/]*@", r"\1:***@", url)


def parse_broker_url(url: str, base: LinkConfig | None = None) -> LinkConfig:
    """``mqtt://[user[:password]@]host[:port]`` or ``mqtts://...`` as a LinkConfig; a refused
    url is named without its password."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # an unclosed "[" of an IPv6 address
        raise InvalidInputError(f"not a broker url ({str(exc).lower()}): "
                                f"{shown_url(url)!r}") from None
    if parts.scheme not in ("mqtt", "mqtts", "tcp", "ssl") or not parts.hostname:
        raise InvalidInputError("not a broker url (mqtt://host:port or mqtts://...): "
                                f"{shown_url(url)!r}")
    if parts.path not in ("", "/"):
        raise InvalidInputError(f"a broker url has no path: {shown_url(url)!r}")
    tls = parts.scheme in ("mqtts", "ssl")
    try:
        port = parts.port or (8883 if tls else 1883)
    except ValueError:
        raise InvalidInputError(f"bad port in broker url: {shown_url(url)!r}") from None
    config = base or LinkConfig()
    return replace(
        config,
        host=parts.hostname,
        port=port,
        tls=tls or config.tls,
        username=unquote(parts.username) if parts.username else config.username,
        password=unquote(parts.password) if parts.password else config.password,
    )


def make_client(
    config: LinkConfig, client_id: str | None = None, *, clean_session: bool = True
) -> mqtt.Client:
    """A paho 2.x client (MQTT 3.1.1, callback API 2) with TLS, login and quick reconnects."""
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id or f"hakem-{uuid.uuid4().hex[:12]}",
        clean_session=clean_session,
        protocol=mqtt.MQTTv311,
    )
    if config.tls:
        client.tls_set(
            ca_certs=config.ca_file,
            certfile=config.cert_file,
            keyfile=config.key_file,
            cert_reqs=ssl.CERT_REQUIRED,
        )
    if config.username is not None:
        client.username_pw_set(config.username, config.secret())
    client.reconnect_delay_set(config.reconnect_min_s, config.reconnect_max_s)  # type: ignore[arg-type]
    client.max_inflight_messages_set(100)
    return client


def reason_failed(reason_code: Any) -> bool:
    """True when a paho v2 reason code (or int) reports a failure."""
    failure = getattr(reason_code, "is_failure", None)
    if isinstance(failure, bool):
        return failure
    return bool(reason_code)
