"""MQTT topic layout: one prefix, then the tournament, then the table, then what is sent.

``{prefix}/{tournament}/{table}/presence``  retained "online"/"offline" JSON, the table's will
``{prefix}/{tournament}/{table}/events``    QoS 1, one journal entry in an envelope per message
``{prefix}/{tournament}/{table}/state``     retained, the table's current state (summary form)
``{prefix}/{tournament}/{table}/ack``       retained, from the hub: the last seq stored per match
``{prefix}/{tournament}/{table}/director``  QoS 1, from the hub: a director's action
``{prefix}/_hub/presence``                  retained, the hub's presence; a new ``boot`` id on
                                            every connection tells tables to resend

IDs are 1..64 characters of letters, digits, ``_ . -`` and may not start with ``_`` (kept for the
hub), so no ID can smuggle MQTT wildcards or extra levels into a topic; nor be dots only (``..``
in a page's or the API's path would name another path).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from engine.errors import InvalidInputError, ProtocolError

DEFAULT_PREFIX: Final = "hakem"
TABLE_LEAVES: Final = ("presence", "events", "state", "ack", "director")
MAX_MESSAGE_BYTES: Final = 4 * 1024 * 1024
"""The largest message body a table sends and the hub takes (hub.md's ``message_size_limit``):
an event with a flag's photo in base64, about 3 MiB of JPEG; every other body is a few KiB."""
_ID_RE: Final = re.compile(r"[A-Za-z0-9.-][A-Za-z0-9_.-]{0,63}")


def check_id(value: str, what: str) -> str:
    """Return ``value`` if it is a valid tournament, table or prefix ID, else raise."""
    if not isinstance(value, str) or not _ID_RE.fullmatch(value) or not value.strip("."):
        raise InvalidInputError(
            f"bad {what} id {value!r}: use 1-64 letters, digits, '_', '.', '-' (not starting "
            "'_', not dots only)"
        )
    return value


def table_topic(prefix: str, tournament: str, table: str, leaf: str) -> str:
    """The topic of one table's ``leaf`` (one of TABLE_LEAVES)."""
    if leaf not in TABLE_LEAVES:
        raise InvalidInputError(f"no such table topic: {leaf!r}")
    return f"{prefix}/{tournament}/{table}/{leaf}"


def hub_presence_topic(prefix: str) -> str:
    """Where the hub says it is online (retained) so tables know to resend."""
    return f"{prefix}/_hub/presence"


def hub_subscriptions(prefix: str) -> list[str]:
    """What the hub subscribes to: every table's presence, events and state."""
    return [f"{prefix}/+/+/{leaf}" for leaf in ("presence", "events", "state")]


@dataclass(frozen=True)
class TableTopic:
    """A parsed table topic."""

    tournament: str
    table: str
    leaf: str


def parse_table_topic(prefix: str, topic: str) -> TableTopic:
    """Split a table topic; anything else is a ProtocolError naming the topic."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[0] != prefix or parts[3] not in TABLE_LEAVES:
        raise ProtocolError(f"not a table topic: {topic!r}")
    try:
        check_id(parts[1], "tournament")
        check_id(parts[2], "table")
    except InvalidInputError as exc:
        raise ProtocolError(f"topic {topic!r}: {exc}") from None
    return TableTopic(parts[1], parts[2], parts[3])
