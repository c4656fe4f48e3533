"""The table side: journal entries to the broker, nothing lost, in order, at QoS 1.

Every entry goes into the durable :class:`~controller.hub.outbox.Outbox` first, then out on the
``events`` topic while connected. On every (re)connect, and whenever the hub comes online with a
new boot id, everything the hub has not acknowledged is sent again in queue order; the hub
ignores what it already has (table + match + seq). Presence is retained with a last will, and
the folded :class:`~controller.hub.contract.MatchState` summary is published retained as
``state``.

Message bodies (JSON, UTF-8):

- events: ``{"v": 1, "match": MATCH_ID, "entry": JOURNAL_ENTRY}`` plus ``"snapshot_jpeg"``
  (base64) for a flag whose ``snapshot`` file exists in ``snapshot_dir``. ``MATCH_ID`` is the
  ``match_id`` field of ``match_start`` when present, else its ``time``: the same journal always
  gives the same ID, so republishing after a reboot makes no duplicate match.
- presence: ``{"status": "online"|"offline", "time": ISO, "instance": RUN}`` (online: and the
  table's ``name`` when it has one; the will: ``"reason": "lost"``, no time); state:
  ``MatchState.summary()``. ``RUN`` marks one run of the table (also in its MQTT client id): a
  table hears another run come online under its id (two tables given one id), and hears the
  will of its own last run that died without a goodbye, then says again that it is online.
"""

from __future__ import annotations

import base64
import contextlib
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import paho.mqtt.client as mqtt

from controller.hub.contract import MatchState
from controller.hub.link import LinkConfig, make_client, reason_failed
from controller.hub.outbox import Outbox
from controller.hub.tls_words import failed_connect_words
from controller.hub.topics import MAX_MESSAGE_BYTES, hub_presence_topic, table_topic
from controller.records.journal import read_journal, utc_now_iso, validate_entry
from engine.errors import DeviceError, HakemError, InvalidInputError

ENVELOPE_VERSION = 1


class PublishTimeoutError(DeviceError, TimeoutError):
    """The broker or the hub did not confirm delivery in time."""


def match_id_of(entry: dict[str, Any]) -> str:
    """The match ID a ``match_start`` entry gives its match."""
    explicit = entry.get("match_id")
    return str(explicit) if explicit else str(entry.get("time", ""))


class TablePublisher:
    """Publishes one table's journal entries; use as a context manager or call start/close."""

    def __init__(
        self,
        config: LinkConfig,
        *,
        match_id: str | None = None,
        snapshot_dir: str | Path | None = None,
        client_id: str | None = None,
        director_folder: str | Path | None = None,
        name: str = "",
    ) -> None:
        """``name``: the table's name for people (``[table] name``), shown on the dashboard
        beside its id."""
        self.config = config
        self.name = name
        # the table's journal folder: a match the hub's director ends is ended at the table
        # too, through the referee (``controller.runtime.director_inbox``)
        self.director_folder = Path(director_folder) if director_folder is not None else None
        self.snapshot_dir = Path(snapshot_dir) if snapshot_dir is not None else None
        self.outbox = Outbox(config.outbox)
        if match_id is not None:
            self.outbox.put("match", match_id)
        self._events = table_topic(config.prefix, config.tournament, config.table, "events")
        self._state_topic = table_topic(config.prefix, config.tournament, config.table, "state")
        self._presence = table_topic(config.prefix, config.tournament, config.table, "presence")
        self._ack_topic = table_topic(config.prefix, config.tournament, config.table, "ack")
        self._hub_topic = hub_presence_topic(config.prefix)
        self.state: MatchState | None = None
        self._send_lock = threading.RLock()
        self._changed = threading.Condition()
        self._connected = False
        self._sent_through = 0
        self._ack_lock = threading.Lock()
        self._unconfirmed: set[int] = set()
        self._early: set[int] = set()
        self._hub_boot: str | None = None
        self.reconnects = 0
        # this run's mark on its presence and in its client id: another run seen coming online
        # under this table's id is a second table given the same [table] id
        self.instance = uuid.uuid4().hex[:12]
        self.twin = False
        self.director_messages: list[dict[str, Any]] = []
        # a client id of its own per run: with one per table id, two tables given the same id
        # took the connection from each other without a word (the broker lets one connection
        # per client id)
        client_name = client_id or (
            f"hakem-table-{config.tournament}-{config.table}-{self.instance}")
        self.client = make_client(config, client_name, clean_session=True)
        will = _dumps({"status": "offline", "reason": "lost", "instance": self.instance})
        self.client.will_set(self._presence, will, 1, True)
        self.client.on_connect = self._on_connect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_disconnect = self._on_disconnect
        # where the table says how its link to the hub goes (``hakem run``: the live log);
        # called from paho's thread, once per change
        self.say: Callable[[str], None] | None = None
        self._link_said = ""
        self.client.on_publish = self._on_publish
        self.client.on_message = self._on_message
        self._started = False

    @classmethod
    def of_folder(cls, config: LinkConfig, folder: Path, *, name: str = "") -> TablePublisher:
        """The publisher of the table whose journal is in ``folder`` (``hakem run``, ``hakem
        demo --publish``): its flags' pictures from ``folder/snapshots``, and the hub
        director's end of its match into the folder's director inbox."""
        return cls(config, snapshot_dir=folder / "snapshots", director_folder=folder, name=name)

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> TablePublisher:
        """Connect in the background (retrying for ever); publishing may begin at once."""
        if not self._started:
            self.client.connect_async(self.config.host, self.config.port, self.config.keepalive_s)
            self.client.loop_start()
            self._started = True
        return self

    def close(self, timeout_s: float = 5.0) -> None:
        """Say ``offline`` (retained) and disconnect; queued events stay in the outbox."""
        if self._started:
            if self._connected:
                offline = {"status": "offline", "time": utc_now_iso(), "instance": self.instance}
                info = self.client.publish(self._presence, _dumps(offline), 1, True)
                deadline = time.monotonic() + timeout_s
                while not info.is_published() and self._connected and time.monotonic() < deadline:
                    with self._changed:
                        self._changed.wait(0.05)
            self._link_said = "closed"  # the table's own goodbye is no lost link
            self.client.disconnect()
            self.client.loop_stop()
            self._started = False
        self.outbox.close()

    def __enter__(self) -> TablePublisher:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        """True while the broker connection is up."""
        return self._connected

    @property
    def link_state(self) -> str:
        """How the link to the broker went when last said: ``connected``, ``unreachable``,
        ``refused``, ``lost``, ``tls: ...`` ("" before the first word, ``closed`` once closing)."""
        return self._link_said

    @property
    def match_id(self) -> str | None:
        """The match the next entry belongs to."""
        return self.outbox.get("match")

    def resume(self, entries: Iterable[dict[str, Any]]) -> int:
        """After a restart: rebuild the retained state from the journal so far, and queue its
        entries past the last one the outbox took (:meth:`Outbox.queued_through`): a power
        cut between the journal and :meth:`publish` kept those from the hub for good. Returns
        the count newly queued."""
        entries = list(entries)
        match, start = self.match_id, len(entries)
        marks: dict[str, int] = {}
        for i, entry in enumerate(entries):
            if entry.get("type") == "match_start":
                match = match_id_of(entry)
            if match is None:
                continue
            if match not in marks:
                marks[match] = self.outbox.queued_through(match)
            if int(entry["seq"]) > marks[match]:
                start = i
                break
        for entry in entries[:start]:
            if entry.get("type") == "match_start":
                self.state = MatchState(match_id_of(entry))
                self.outbox.put("match", self.state.match)
            elif self.state is None:
                continue
            self.state.apply(entry)
        if start < len(entries):
            return self.publish_many(entries[start:])  # publishes the state too
        self._publish_state()
        return 0

    # -- publishing -----------------------------------------------------------------------
    def publish(self, entry: dict[str, Any]) -> None:
        """Queue one journal entry durably, then send it if connected."""
        self.publish_many([entry])

    def publish_many(self, entries: Iterable[dict[str, Any]]) -> int:
        """Queue entries (journal order) in one durable transaction; returns the new count."""
        rows: list[tuple[str, int, bytes]] = []
        match = self.match_id
        for entry in entries:
            validate_entry(entry, f"entry {entry.get('seq')!r} to publish")
            if entry["type"] == "match_start":
                new_match = match_id_of(entry)
                if new_match != match or self.state is None:
                    match = new_match
                    self.state = MatchState(match)
            if match is None:
                raise InvalidInputError(
                    f"entry seq {entry['seq']}: no match_start seen and no match id given"
                )
            if self.state is None or self.state.match != match:
                self.state = MatchState(match)
            self.state.apply(entry)
            envelope: dict[str, Any] = {"v": ENVELOPE_VERSION, "match": match, "entry": entry}
            payload = _dumps(envelope)
            snapshot = self._snapshot_bytes(entry)
            if snapshot is not None:
                envelope["snapshot_jpeg"] = base64.b64encode(snapshot).decode("ascii")
                with_photo = _dumps(envelope)
                if len(with_photo) <= MAX_MESSAGE_BYTES:
                    payload = with_photo
                elif self.say is not None:  # sent whole, the broker would drop it unsaid
                    # and the hub would hold back every later entry of the match
                    self.say(f"Entry {entry['seq']} goes to the hub without its photo "
                             f"{entry['snapshot']}: {len(with_photo)} bytes with it, at most "
                             f"{MAX_MESSAGE_BYTES} (the photo stays in the journal's folder)")
            rows.append((match, int(entry["seq"]), payload))
        if match is not None and match != self.outbox.get("match"):
            self.outbox.put("match", match)
        added = self.outbox.add(rows)
        self._pump()
        self._publish_state()
        return added

    def wait_delivered(
        self, timeout_s: float, until: Literal["hub", "broker"] = "hub"
    ) -> None:
        """Block until the hub has stored every queued event (or the broker has them all)."""
        deadline = time.monotonic() + timeout_s
        while not self._delivered(until):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise PublishTimeoutError(
                    f"table {self.config.table}: {len(self.outbox)} events not confirmed by "
                    f"the {until} within {timeout_s} s"
                )
            with self._changed:  # woken by paho's callbacks; the timeout covers a missed wake
                self._changed.wait(min(remaining, 0.1))

    def _delivered(self, until: str) -> bool:
        # Never takes _send_lock: paho calls on_publish holding its own mutex, which _pump
        # needs while holding _send_lock (lock order: _send_lock, paho, _ack_lock).
        if until == "hub":
            return len(self.outbox) == 0
        queued = self.outbox.after(self._sent_through, 1)
        with self._ack_lock:
            return self._connected and not queued and not self._unconfirmed

    def _snapshot_bytes(self, entry: dict[str, Any]) -> bytes | None:
        name = entry.get("snapshot")
        if not isinstance(name, str) or not name or self.snapshot_dir is None:
            return None
        path = self.snapshot_dir / Path(name).name
        try:
            return path.read_bytes()
        except OSError:
            return None

    def _pump(self) -> None:
        """Hand every queued row past the last one sent to paho, in order."""
        with self._send_lock:
            while self._connected:
                rows = self.outbox.after(self._sent_through)
                if not rows:
                    return
                for row in rows:
                    info = self.client.publish(self._events, row.payload, qos=1)
                    if info.rc != mqtt.MQTT_ERR_SUCCESS:
                        return  # disconnected meanwhile: the next connect resends
                    with self._ack_lock:
                        if info.mid in self._early:
                            self._early.discard(info.mid)
                        else:
                            self._unconfirmed.add(info.mid)
                    self._sent_through = row.id

    def _publish_state(self) -> None:
        if self.state is not None and self._connected:
            self.client.publish(self._state_topic, _dumps(self.state.summary()), 1, True)

    # -- paho callbacks (network thread) --------------------------------------------------
    def _tell(self, state: str, text: str) -> None:
        """Say how the link goes, once per change of ``state`` (nothing once closing)."""
        if self.say is not None and state != self._link_said and self._link_said != "closed":
            self._link_said = state
            self.say(f"The hub's broker at {self.config.where()} {text}")

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        problem = failed_connect_words(self.config)
        if problem:  # TLS: no network fault, a setting to change
            self._tell(f"tls: {problem}", f"cannot be used: {problem}; the table's entries "
                                         "wait in its outbox; trying again")
        else:
            self._tell("unreachable", "cannot be reached: the table's entries wait in its "
                                      "outbox until it answers; trying again")

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any, properties: Any
    ) -> None:
        if reason_failed(reason_code):
            names = self.config.names
            self._tell("refused", f"refused the table ({reason_code}): check its broker user "
                                  f"and password ({names.url}, {names.password_file}); trying "
                                  "again")
            return
        self._tell("connected", "answers: the table is on the hub")
        client.subscribe([(self._ack_topic, 1), (self._hub_topic, 1), (self._presence, 1),
                          (table_topic(self.config.prefix, self.config.tournament,
                                       self.config.table, "director"), 1)])
        self._publish_presence()
        with self._send_lock:
            self.reconnects += 1
            self._connected = True
            self._sent_through = 0
            with self._ack_lock:
                self._unconfirmed.clear()
                self._early.clear()
        self._pump()
        self._publish_state()
        self._notify()

    def _publish_presence(self) -> None:
        """Say (retained) that this table is online, with its name and this run's mark."""
        online: dict[str, Any] = {"status": "online", "time": utc_now_iso(),
                                  "instance": self.instance}
        if self.name:
            online["name"] = self.name
        self.client.publish(self._presence, _dumps(online), 1, True)

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any, properties: Any
    ) -> None:
        if self._connected and self._link_said != "closed":
            self._tell("lost", f"was lost ({reason_code}): the table's entries wait in its "
                               "outbox; trying again")
        self._connected = False
        self._notify()

    def _on_publish(
        self, client: mqtt.Client, userdata: Any, mid: int, reason_code: Any, properties: Any
    ) -> None:
        with self._ack_lock:
            if mid in self._unconfirmed:
                self._unconfirmed.discard(mid)
            else:
                self._early.add(mid)  # PUBACK before _pump recorded the mid
        self._notify()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        try:
            body = json.loads(message.payload.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return
        if not isinstance(body, dict):
            return
        if message.topic == self._ack_topic:
            matches = body.get("matches")
            if isinstance(matches, dict):
                for match, seq in matches.items():
                    if isinstance(seq, int):
                        self.outbox.acknowledge(str(match), seq)
            self._notify()
        elif message.topic == self._presence:
            self._twin_check(body, bool(message.retain))
        elif message.topic == self._hub_topic:
            boot = body.get("boot")
            if body.get("status") == "online" and isinstance(boot, str) and boot != self._hub_boot:
                self._hub_boot = boot
                with self._send_lock:
                    self._sent_through = 0  # a new hub (or one that lost its session): resend
                self._pump()
        else:
            self.director_messages.append(body)
            self._to_referee(body)

    def _twin_check(self, body: dict[str, Any], retained: bool) -> None:
        """Another run speaks under this table's id, now (not a retained word of an earlier
        run): coming online, it is a second table given the same id (said once); going
        offline (the broker's word for an earlier run of this table that died without a
        goodbye), it has overwritten this run's presence, which is said again."""
        other = body.get("instance")
        if retained or other == self.instance:
            return
        if body.get("status") == "offline":
            if self._connected:
                self._publish_presence()
            return
        if self.twin or body.get("status") != "online" or not isinstance(other, str):
            return
        self.twin = True
        if self._connected:
            self._publish_presence()  # now, so that the other table hears of this one too
        if self.say is not None:
            self.say(f"Another table is on the hub as table {self.config.table!r} (tournament "
                     f"{self.config.tournament!r}): each table needs its own [table] id; until "
                     "one is renamed the two take the hub link from each other")

    def _to_referee(self, body: dict[str, Any]) -> None:
        """A director's action on the hub that the table's referee must carry out: ending the
        match with a winner (``end_match``; a Mangala referee's winner is a or b).
        Acknowledging or overriding a flag is the hub's record of the director's decision; the
        referee is overridden at the table (``hakem director``), where the director sees the
        board."""
        folder = self.director_folder
        if folder is None or body.get("kind") != "end" or body.get("winner") not in (0, 1):
            return
        if body.get("match") != self.match_id:
            return  # an earlier match of this table: nothing left to end here
        if self.state is not None and self.state.finished:
            return  # ended already (the hub keeps its end for a table that was offline)
        from controller.runtime.director_inbox import post_request

        winner = int(body["winner"])
        mangala = self.state is not None and self.state.game == "mangala"
        # the hub names players 0 and 1; a Mangala referee names them a and b (MG-EQ-1)
        args: dict[str, Any] = {"winner": "ab"[winner] if mangala else winner}
        note = body.get("note")
        if isinstance(note, str) and note.strip():
            args["note"] = note.strip()  # the director's why, into the table's journal
        with contextlib.suppress(HakemError, OSError):  # the network thread must not die
            post_request(folder, "end_match", args, str(body.get("user") or "hub"))

    def _notify(self) -> None:
        with self._changed:
            self._changed.notify_all()


def publish_journal(
    journal: str | Path | Iterable[dict[str, Any]],
    config: LinkConfig,
    *,
    snapshot_dir: str | Path | None = None,
    timeout_s: float = 30.0,
    until: Literal["hub", "broker"] = "broker",
) -> int:
    """Publish a whole match (a journal file or its entries) as a live table and wait: a
    finished journal sent at once (``hakem run`` and ``hakem demo --publish`` publish entry by
    entry instead). ``until="hub"`` waits for the hub's acknowledgement instead of the
    broker's. Returns the number of entries sent.
    """
    if isinstance(journal, str | Path):
        path = Path(journal)
        entries = read_journal(path).entries
        snapshot_dir = snapshot_dir if snapshot_dir is not None else path.parent
    else:
        entries = list(journal)
    with TablePublisher(config, snapshot_dir=snapshot_dir) as publisher:
        publisher.publish_many(entries)
        publisher.wait_delivered(timeout_s, until)
    return len(entries)


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
