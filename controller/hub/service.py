"""The hub's core: subscribe to every table, store each event once, keep every table's view.

Messages from paho's thread go onto a queue; one writer thread takes them in batches, stores a
batch in one SQLite transaction, folds the new events into the views (in ``seq`` order, holding
back any that arrive after a gap), then acknowledges to the tables (retained ``ack``) and tells
the dashboards (Server-Sent Events). Director actions go through :meth:`HubService.act`.

The queue is bounded (INBOX_MESSAGES, INBOX_BYTES): a message that arrives while it is full is
dropped unacknowledged, and once the queue is down to half, the hub asks every table to resend
what it has not acknowledged (a new ``boot``), so a flood costs a table time, never an entry.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import logging
import math
import queue
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt

from controller.hub.auth import (
    AuthError,
    check_user_name,
    hash_password,
    new_token,
    token_hash,
    verify_password,
    verify_unknown,
)
from controller.hub.contract import VERDICTS, MatchState
from controller.hub.export import result_details
from controller.hub.link import LinkConfig, make_client, reason_failed
from controller.hub.store import HubStore
from controller.hub.tls_words import failed_connect_words
from controller.hub.topics import (
    MAX_MESSAGE_BYTES,
    hub_presence_topic,
    hub_subscriptions,
    parse_table_topic,
    table_topic,
)
from controller.records.journal import utc_now_iso, validate_entry
from engine.errors import HakemError, InvalidInputError, ProtocolError, RecordFormatError

log = logging.getLogger("hakem.hub")
audit_log = logging.getLogger("hakem.hub.audit")

SESSION_TTL_S = 8 * 3600.0
LOGIN_FAILURES = 5  # wrong passwords from one address within LOCKOUT_S before it is locked out
LOCKOUT_S = 300.0
ACCOUNT_FAILURES = 10  # wrong passwords for one account (from any address) before it is held
ACCOUNT_DELAY_S = 10.0  # the first hold; it doubles with each further wrong password...
ACCOUNT_DELAY_CAP_S = 240.0  # ...up to this, so guessing at it shuts a director out 4 min at most
ACCOUNT_QUIET_S = 900.0  # an account with no wrong password for this long starts counting anew
ACCOUNTS_TRACKED = 1000  # names counted at once (any name counts); beyond, the stalest is dropped
# refusals without a session (wrong passwords, actions not logged in, bodies the hub cannot
# read) audited per address within UNSIGNED_WINDOW_S, at most: anyone on the hall's Wi-Fi can
# send them, and beyond these they are counted in the log, not written, so that they cannot
# push a director's own actions out of the audit's latest lines
UNSIGNED_ROWS = 30
UNSIGNED_WINDOW_S = 60.0
ACKED_MATCHES = 8  # matches per table named in each ack
MAX_SEQ = 2**63 - 1  # SQLite's largest integer: a larger seq cannot be stored
INBOX_MESSAGES = 50_000  # messages received and not yet stored, at most
INBOX_BYTES = 64 * 1024 * 1024  # their bodies together, at most (one body: 4 MiB at most)
THROTTLE_SAY_S = 60.0  # a table whose messages are dropped is named in the log once per this


class ActionRefusedError(HakemError, PermissionError):
    """A director action without a valid session, or with the wrong password."""


class NotFoundError(InvalidInputError):
    """No such table, match or flag."""


@dataclass
class TableView:
    """Everything the hub knows about one table."""

    tournament: str
    table: str
    matches: dict[str, MatchState] = field(default_factory=dict)
    applied: dict[str, int] = field(default_factory=dict)
    pending: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    presence: str = "unknown"
    presence_time: str | None = None
    reported: dict[str, Any] | None = None
    revision: int = 0  # stamp of the last change (see HubService._stamp)
    twin: str | None = None  # why two tables seem to publish under this id (HubService)
    name: str = ""  # the table's name for people ([table] name), from its presence
    # when (this hub's monotonic clock) each match's clock reading was heard: the entry that
    # last changed its clocks_ms or running; a page counts a running clock from then
    clock_heard: dict[str, float] = field(default_factory=dict)

    @property
    def current(self) -> MatchState | None:
        """The latest match (first seen last)."""
        return next(reversed(self.matches.values()), None) if self.matches else None

    def summary(self) -> dict[str, Any]:
        """One dashboard card: the contract's ``/api/tables`` item."""
        match = self.current
        base = match.summary() if match is not None else MatchState("").summary()
        base.update(self.table_fields())
        base["clock_age_ms"] = self.clock_age_ms(match.match) if match is not None else None
        return base

    def clock_age_ms(self, match: str) -> int | None:
        """How long ago this hub heard the match's clock reading (None: not since it started,
        or no reading): a page counts the running clock down from then, not from its own
        first sight of the summary, so one opened late shows the time the player has."""
        heard = self.clock_heard.get(match)
        return None if heard is None else max(0, round((time.monotonic() - heard) * 1000))

    def table_fields(self) -> dict[str, Any]:
        """What a card says about the table rather than its match; a table's detail carries
        them too, so its page can show the name and the warnings the card shows."""
        return {
            "table": self.table,
            "name": self.name,
            "tournament": self.tournament,
            "online": self.presence == "online",
            "presence": self.presence,
            "matches": len(self.matches),
            "reported_seq": (self.reported or {}).get("seq"),
            "warnings": [self.twin] if self.twin else [],
            "revision": self.revision,
        }


class Broadcaster:
    """Fan-out of JSON updates to every open Server-Sent Events stream."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: list[queue.Queue[str | None]] = []

    def subscribe(self) -> queue.Queue[str | None]:
        """A new listener's queue (``None`` means the hub is stopping)."""
        q: queue.Queue[str | None] = queue.Queue(maxsize=10000)
        with self._lock:
            self._queues.append(q)
        return q

    def unsubscribe(self, q: queue.Queue[str | None]) -> None:
        """Forget a listener."""
        with self._lock:
            if q in self._queues:
                self._queues.remove(q)

    def send(self, data: str) -> None:
        """Queue one update for everyone; a listener too slow to keep 10000 is dropped."""
        with self._lock:
            for q in list(self._queues):
                try:
                    q.put_nowait(data)
                except queue.Full:
                    self._queues.remove(q)

    def close(self) -> None:
        """Wake every listener so it ends."""
        with self._lock:
            for q in self._queues:
                with contextlib.suppress(queue.Full):
                    q.put_nowait(None)
            self._queues.clear()


class HubService:
    """Store, views, MQTT subscriber and director actions; the HTTP layer sits on top."""

    def __init__(
        self,
        db_path: str,
        link: LinkConfig | None = None,
        *,
        session_ttl_s: float = SESSION_TTL_S,
        clock: Callable[[], float] = time.time,
        client_id: str | None = None,
        inbox_limits: tuple[int, int] = (INBOX_MESSAGES, INBOX_BYTES),
    ) -> None:
        """``client_id``: the hub's MQTT client id; by default one of its own per process, so
        that a second hub on the broker (another room's) does not take this one's connection
        over, each knocking the other off (its session is clean: nothing is kept under it).
        ``inbox_limits``: messages and bytes the queue to the writer holds at most."""
        self.store = HubStore(db_path)
        self.link = link
        self.session_ttl_s = session_ttl_s
        self.clock = clock
        self.prefix = link.prefix if link is not None else "hakem"
        self.boot = uuid.uuid4().hex
        self.views: dict[tuple[str, str], TableView] = {}
        self.views_lock = threading.RLock()
        self.broadcaster = Broadcaster()
        self.stats = {"messages": 0, "stored": 0, "duplicates": 0, "rejected": 0, "dropped": 0}
        self.connected = threading.Event()
        self._failure_said = ""  # why the broker could not be reached, as last said
        self._inbox: queue.Queue[tuple[str, bytes] | None] = queue.Queue()
        self._writer: threading.Thread | None = None
        self._client: mqtt.Client | None = None
        self._client_id = client_id or f"hakem-hub-{uuid.uuid4().hex[:12]}"
        self._failures: dict[str, list[float]] = {}  # by address: times of recent failures
        # by name: failures and the last one's time, the least recent first
        self._account_failures: OrderedDict[str, tuple[int, float]] = OrderedDict()
        self._trusted: dict[str, dict[str, float]] = {}  # by name: address -> last login there
        # by address: times of the refusals without a session audited lately, the stalest first
        self._unsigned: OrderedDict[str, list[float]] = OrderedDict()
        self._failures_lock = threading.Lock()
        self._idle = threading.Condition()
        self._received = 0
        self._done = 0
        self._inbox_limits = inbox_limits
        self._queued_bytes = 0  # bodies received and not yet stored
        self._dropped_since_resend = False  # a message was dropped: the tables must resend
        self._throttle_said: dict[str, float] = {}  # by table: when its drops were last logged
        self._revision = 0
        self.rebuild()

    # -- life cycle ---------------------------------------------------------------------------
    def start(self) -> HubService:
        """Start the writer and, with a broker configured, the subscriber."""
        self._writer = threading.Thread(target=self._write_loop, name="hub-writer", daemon=True)
        self._writer.start()
        if self.link is not None:
            client = make_client(self.link, self._client_id, clean_session=True)
            client.will_set(hub_presence_topic(self.prefix),
                            json.dumps({"status": "offline", "boot": self.boot}), 1, True)
            client.on_connect = self._on_connect
            client.on_connect_fail = self._on_connect_fail
            client.on_subscribe = self._on_subscribe
            client.on_disconnect = self._on_disconnect
            client.on_message = self._on_message
            client.connect_async(self.link.host, self.link.port, self.link.keepalive_s)
            client.loop_start()
            self._client = client
        return self

    def stop(self) -> None:
        """Say offline, stop the subscriber and the writer, close the database."""
        client, self._client = self._client, None
        if client is not None:
            if self.connected.is_set():
                info = client.publish(hub_presence_topic(self.prefix),
                                      json.dumps({"status": "offline", "boot": self.boot}), 1, True)
                deadline = time.monotonic() + 2
                while not info.is_published() and time.monotonic() < deadline:
                    self.connected.wait(0.02)
            client.disconnect()
            client.loop_stop()
        if self._writer is not None:
            self._inbox.put(None)
            self._writer.join(10)
            self._writer = None
        self.broadcaster.close()
        self.store.close()

    def wait_idle(self, timeout_s: float) -> bool:
        """True once every message received so far has been stored and folded."""
        deadline = time.monotonic() + timeout_s
        with self._idle:
            while self._done < self._received:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._idle.wait(min(remaining, 0.05))
        return True

    # -- rebuild from the database -------------------------------------------------------------
    def rebuild(self) -> None:
        """Fold every stored event and replay every director action where it was taken: after
        the entries its match had folded then, before the later ones (after a restart). So a
        table's own ``match_end`` that followed a director's ``end`` still has the last word,
        as it had live. Actions an older hub stored without their place are set aside and
        replayed after every entry, so they hold back none of the placed ones."""
        with self.store.lock, self.views_lock:  # same order as the writer: store, then views
            # when each clock reading was heard is no stored fact: kept across a rebuild (an
            # ingest error's resync), unknown after a restart (a page counts from its own sight)
            heard = {where: dict(view.clock_heard) for where, view in self.views.items()}
            self.views.clear()
            placed: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
            unplaced: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
            for action in self.store.actions():
                key = (action["tournament"], action["table"], action["match"])
                kept = unplaced if action["after_seq"] is None else placed
                kept.setdefault(key, []).append(action)
            for tournament, table, match in self.store.matches():
                view = self._view(tournament, table)
                view.matches[match] = MatchState(match)
                view.applied[match] = 0
                view.pending[match] = {}
                key = (tournament, table, match)
                waiting = placed.pop(key, [])
                for entry in self.store.events(tournament, table, match):
                    waiting = _replay_due(view, match, waiting)
                    self._fold(view, match, entry, live=False)
                # after the last entry, in the order they were taken
                for action in sorted([*waiting, *unplaced.pop(key, [])], key=lambda a: a["id"]):
                    _replay(view.matches[match], action)
            for tournament, table, status, at in self.store.presences():
                view = self._view(tournament, table)
                view.presence, view.presence_time = status, at
            for tournament, table, name, twin in self.store.table_infos():
                view = self._view(tournament, table)
                view.name, view.twin = name, twin
            for tournament, table, state_obj in self.store.reported_states():
                self._view(tournament, table).reported = state_obj
            for where, view in self.views.items():
                view.clock_heard.update(heard.get(where, {}))
                self._stamp(view)

    def _stamp(self, view: TableView) -> None:
        """Mark a changed view with a stamp above every earlier one, even across restarts
        (microseconds of the wall clock, or one more than the last): a page that gets two
        summaries of a table out of order (a slow poll after a streamed update) keeps the newer."""
        self._revision = max(self._revision + 1, time.time_ns() // 1000)
        view.revision = self._revision

    def _view(self, tournament: str, table: str) -> TableView:
        key = (tournament, table)
        view = self.views.get(key)
        if view is None:
            view = self.views[key] = TableView(tournament, table)
        return view

    def _fold(self, view: TableView, match: str, entry: dict[str, Any], *,
              live: bool = True) -> bool:
        """Apply ``entry`` if it is the next seq (then any held back after it); else hold it.
        ``live``: the entry arrives now, so a clock reading it changes was heard now (not
        when a rebuild folds stored entries again)."""
        pending = view.pending.setdefault(match, {})
        pending[int(entry["seq"])] = entry
        state = view.matches[match]
        progressed = False
        clock = (list(state.clocks_ms or []), state.running)
        while view.applied[match] + 1 in pending:
            nxt = pending.pop(view.applied[match] + 1)
            state.apply(nxt)
            view.applied[match] += 1
            progressed = True
        if live and (list(state.clocks_ms or []), state.running) != clock:
            view.clock_heard[match] = time.monotonic()
        return progressed

    # -- MQTT (paho's thread) ------------------------------------------------------------------
    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any, properties: Any
    ) -> None:
        if reason_failed(reason_code):
            log.warning("broker refused the hub: %s", reason_code)
            return
        # A new id on every connection: the broker may have lost what was in flight to us
        # (restarted, or our session dropped), so the tables resend whatever we have not acked.
        # Connected, and said, once the broker has acknowledged the subscriptions
        # (_on_subscribe): an event a table sent before that would not reach the hub.
        self._announce(client)

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int,
                      reason_codes: list[Any], properties: Any) -> None:
        """The broker took the hub's subscriptions (its SUBACK): only now say online with a new
        boot id and count as connected, so no table resends into subscriptions not yet made."""
        refused = [code for code in reason_codes if reason_failed(code)]
        if refused:
            log.warning("the broker at %s refused the hub's subscriptions (%s): no table is "
                        "heard; check the broker's acl for the hub's login", self._broker_name(),
                        ", ".join(str(code) for code in refused))
            return
        self.boot = uuid.uuid4().hex
        client.publish(hub_presence_topic(self.prefix),
                       json.dumps({"status": "online", "boot": self.boot}), 1, True)
        if not self.connected.is_set():
            self.connected.set()
            self._failure_said = ""
            log.info("connected to the broker at %s", self._broker_name())

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        # each failure said once until the hub connects: paho tries again every few seconds
        problem = failed_connect_words(self.link) if self.link is not None else None
        text = (f"cannot connect to the broker at {self._broker_name()}: {problem}; no table "
                "is heard until it is put right; trying again" if problem else
                f"cannot reach the broker at {self._broker_name()}: no table is heard until "
                "it answers; trying again")
        if text != self._failure_said:
            self._failure_said = text
            log.warning("%s", text)

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any, properties: Any
    ) -> None:
        was = self.connected.is_set()
        self.connected.clear()
        if was and self._client is not None:  # not the hub's own stop
            log.warning("lost the broker at %s (%s): trying again", self._broker_name(),
                        reason_code)

    def _announce(self, client: mqtt.Client) -> None:
        """Subscribe (anew: the broker sends every retained presence and state again); on its
        acknowledgement (:meth:`_on_subscribe`) the hub says online with a new boot id, on which
        every table resends what the hub has not acked."""
        client.subscribe([(topic, 1) for topic in hub_subscriptions(self.prefix)])

    def _broker_name(self) -> str:
        link = self.link
        return "(none)" if link is None else link.where()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        self.ingest(message.topic, bytes(message.payload))

    def ingest(self, topic: str, payload: bytes) -> bool:
        """Queue one message as if it came from the broker (tests and replays use this). False
        when the queue holds its limit: the message is dropped, never acknowledged, and its
        table sends it again when asked to (:meth:`_write_loop`, once there is room)."""
        messages, size = self._inbox_limits
        with self._idle:
            queued = self._queued_bytes
            full = (self._received - self._done >= messages
                    or (queued > 0 and queued + len(payload) > size))
            if full:
                self._dropped_since_resend = True
                self.stats["dropped"] += 1
            else:
                self._received += 1
                self._queued_bytes += len(payload)
        if full:
            self._say_throttled(topic)
            return False
        self._inbox.put((topic, payload))
        return True

    def _say_throttled(self, topic: str) -> None:
        """Log which table a message was dropped from: once per THROTTLE_SAY_S for each table
        (the service's clock), however many are dropped meanwhile."""
        parts = topic.split("/")
        table = "/".join(parts[1:3]) if len(parts) == 4 else repr(topic[:100])
        now = self.clock()
        said = self._throttle_said
        if now - said.get(table, -math.inf) < THROTTLE_SAY_S:
            return
        if len(said) >= 1000:  # many table ids: keep only those said lately
            for name in [n for n, at in said.items() if now - at >= THROTTLE_SAY_S]:
                del said[name]
        said[table] = now
        messages, size = self._inbox_limits
        log.warning("the hub is behind (its queue to the store holds its limit, %d messages "
                    "or %d bytes): messages from table %s are dropped unacknowledged; it sends "
                    "them again once the hub has caught up", messages, size, table)

    # -- the writer thread ---------------------------------------------------------------------
    def _write_loop(self) -> None:
        while True:
            item = self._inbox.get()
            if item is None:
                return
            batch = [item]
            while len(batch) < 2000:
                try:
                    more = self._inbox.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._inbox.put(None)
                    break
                batch.append(more)
            try:
                self._process(batch)
            except Exception:  # keep the hub up; the tables resend what was not acknowledged
                log.exception("hub writer failed on a batch of %d messages", len(batch))
            finally:
                with self._idle:
                    self._done += len(batch)
                    self._queued_bytes -= sum(len(payload) for _, payload in batch)
                    self._idle.notify_all()
            self._resend_when_caught_up()

    def _resend_when_caught_up(self) -> None:
        """Once messages were dropped and the queue is down to half its limits, ask every table
        to resend what the hub has not acknowledged (a table keeps it until then). Not
        connected, nothing to do: the hub's next connection asks the same."""
        messages, size = self._inbox_limits
        with self._idle:
            if not self._dropped_since_resend or (
                    self._received - self._done > messages // 2
                    or self._queued_bytes > size // 2):
                return
            self._dropped_since_resend = False
        client = self._client
        if client is not None and self.connected.is_set():
            log.info("the hub has caught up: the tables are asked to resend what it dropped")
            self._announce(client)

    def _process(self, batch: list[tuple[str, bytes]]) -> None:
        now = self.clock()
        changed: set[tuple[str, str]] = set()
        acked: set[tuple[str, str]] = set()
        with self.store.lock, self.views_lock:
            self.store.begin()
            try:
                resync = False
                for topic, payload in batch:
                    self.stats["messages"] += 1
                    self.store.mark()
                    try:
                        key, ack = self._handle(topic, payload, now)
                    except (ProtocolError, RecordFormatError) as exc:
                        self.store.keep()
                        self.stats["rejected"] += 1
                        log.warning("rejected message on %s: %s", topic, exc)
                        continue
                    except Exception:  # a bug one message finds: it alone is left out
                        self.store.undo()
                        self.stats["rejected"] += 1
                        resync = True
                        log.exception("hub failed on a message on %s: left out", topic)
                        continue
                    self.store.keep()
                    if key is not None:
                        changed.add(key)
                        if ack:
                            acked.add(key)
                self.store.commit()
            except BaseException:
                self.store.rollback()
                self.rebuild()
                raise
            if resync:  # the views may hold half of a message left out: fold them anew
                self.rebuild()
                changed.update(self.views)
            summaries = []
            for k in sorted(changed & self.views.keys()):
                self._stamp(self.views[k])
                summaries.append(json.dumps(self.views[k].summary()))
            acks = {k: self._ack_body(self.views[k]) for k in acked & self.views.keys()}
        client = self._client
        if client is not None:
            for (tournament, table), body in acks.items():
                client.publish(table_topic(self.prefix, tournament, table, "ack"), body, 1, True)
        for text in summaries:
            self.broadcaster.send(text)

    def _ack_body(self, view: TableView) -> str:
        recent = list(view.matches)[-ACKED_MATCHES:]
        return json.dumps({"matches": {m: view.applied[m] for m in recent}})

    def _handle(
        self, topic: str, payload: bytes, now: float
    ) -> tuple[tuple[str, str] | None, bool]:
        where = parse_table_topic(self.prefix, topic)
        key = (where.tournament, where.table)
        if where.leaf in ("ack", "director"):
            return None, False
        if not payload:
            return None, False  # a cleared retained message
        if len(payload) > MAX_MESSAGE_BYTES:  # the broker's limit, for a broker without one
            raise ProtocolError(f"a message of {len(payload)} bytes on {topic} (at most "
                                f"{MAX_MESSAGE_BYTES})")
        try:
            body = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise ProtocolError(f"not JSON (or nested too deeply) on {topic}") from None
        if not isinstance(body, dict):
            raise ProtocolError(f"not a JSON object on {topic}")
        if where.leaf == "presence":
            status = body.get("status")
            if status not in ("online", "offline"):
                raise ProtocolError(f"bad presence status {status!r} on {topic}")
            view = self._view(*key)
            view.presence, view.presence_time = str(status), _str_or_none(body.get("time"))
            name = body.get("name")
            if isinstance(name, str) and name.strip() and name.strip()[:80] != view.name:
                view.name = name.strip()[:80]
                self.store.set_table_info(view.tournament, view.table, view.name, view.twin)
            self.store.set_presence(where.tournament, where.table, view.presence,
                                    view.presence_time)
            return key, False
        if where.leaf == "state":
            view = self._view(*key)
            view.reported = body
            self.store.set_reported(where.tournament, where.table, body)
            return key, False
        match, entry = body.get("match"), body.get("entry")
        if not isinstance(match, str) or not match or not isinstance(entry, dict):
            raise ProtocolError(f"an event on {topic} needs 'match' and 'entry'")
        validate_entry(entry, f"event on {topic}")
        if entry["seq"] > MAX_SEQ:
            raise ProtocolError(f"seq {entry['seq']} on {topic} is too large (at most {MAX_SEQ})")
        view = self._view(*key)  # only now: a message refused makes no card
        if match not in view.matches:
            self.store.add_match(where.tournament, where.table, match, now)
            view.matches[match] = MatchState(match)
            view.applied[match] = 0
            view.pending[match] = {}
        if not self.store.add_event(where.tournament, where.table, match, entry, now):
            self.stats["duplicates"] += 1
            return key, True  # re-acknowledge: the table may have missed the ack
        self.stats["stored"] += 1
        snapshot = body.get("snapshot_jpeg")
        if isinstance(snapshot, str):
            try:
                jpeg = base64.b64decode(snapshot, validate=True)
            except (binascii.Error, ValueError):
                raise ProtocolError(f"bad snapshot_jpeg on {topic}") from None
            self.store.add_snapshot(where.tournament, where.table, match, int(entry["seq"]), jpeg)
        state = view.matches[match]
        self._twin_check(view, match)
        before = _result(state)
        self._fold(view, match, entry)
        self._keep_result(view, state, before, state.last_time)
        return key, True

    def _keep_result(self, view: TableView, state: MatchState, before: tuple[Any, ...] | None,
                     finished_at: str | None) -> None:
        """Store a finished match's result when it changed (``before``: :func:`_result` before
        the change): whichever ended it first, the table's ``match_end`` or a director's
        ``end``, and the table's final word after a director's end (one row per match)."""
        after = _result(state)
        if after is not None and after != before:
            self.store.set_result(view.tournament, view.table, state.match, state.players,
                                  state.score, state.winner, finished_at)

    def _twin_check(self, view: TableView, match: str) -> None:
        """A new entry of an unfinished match that is not the table's latest, while the latest
        is unfinished too: two tables publish under one id (a configuration copied without
        changing ``[table] id``). They take each other's broker connection over and the
        dashboard card switches between their matches; say so once, on the card as well."""
        current = view.current
        if (current is None or current.match == match or current.finished
                or view.matches[match].finished or view.twin):
            return
        view.twin = (f"entries of two unfinished matches arrive for table {view.table}: two "
                     "tables with the same [table] id?")
        log.warning("%s/%s: %s", view.tournament, view.table, view.twin)
        self.store.set_table_info(view.tournament, view.table, view.name, view.twin)

    # -- reads for the HTTP layer ----------------------------------------------------------------
    def tables(self) -> list[dict[str, Any]]:
        """Every table's summary, ordered by tournament and table (numbers in numeric order)."""
        with self.views_lock:
            views = sorted(self.views.values(), key=lambda v: (v.tournament, _natural(v.table)))
            return [v.summary() for v in views]

    def table(self, tournament: str, table: str, match: str | None = None) -> dict[str, Any]:
        """A table's full view: the chosen (default current) match with moves and flags."""
        with self.views_lock:
            view = self.views.get((tournament, table))
            if view is None:
                raise NotFoundError(f"no table {tournament}/{table}")
            state = view.matches.get(match) if match else view.current
            if state is None:
                raise NotFoundError(f"no match {match!r} at table {tournament}/{table}")
            out = state.detail()
            out.update(view.table_fields())
            out["clock_age_ms"] = view.clock_age_ms(state.match)
            out["all_matches"] = list(view.matches)
            out["current"] = state is view.current
            out["reported"] = view.reported
            match_id = state.match
        # Outside views_lock: the writer takes store.lock then views_lock, so taking them in
        # the other order here deadlocks against it.
        for flag in out["flags"]:
            flag["snapshot"] = self.store.has_snapshot(tournament, table, match_id, flag["seq"])
        return out

    def results(self) -> list[dict[str, Any]]:
        """``/api/results``: each finished match's stored result, with what its folded state
        adds (:func:`result_details`: the game, a drawn round said as such, the round's and
        each game's points, who ended it)."""
        rows = self.store.results()
        with self.views_lock:
            for row in rows:
                view = self.views.get((row["tournament"], row["table"]))
                state = view.matches.get(row["match"]) if view is not None else None
                row.update(result_details(state))
        return rows

    def match_state(self, tournament: str, table: str, match: str | None) -> MatchState:
        """The MatchState object (for exports)."""
        with self.views_lock:
            view = self.views.get((tournament, table))
            state = None if view is None else (view.matches.get(match) if match else view.current)
            if state is None:
                raise NotFoundError(f"no match at table {tournament}/{table}")
            return state

    def match_entries(self, tournament: str, table: str, match: str) -> list[dict[str, Any]]:
        """A match's stored journal entries as far as they are folded (in ``seq`` order, none
        held back after a gap): what its record is written from."""
        with self.views_lock:
            view = self.views.get((tournament, table))
            folded = view.applied.get(match, 0) if view is not None else 0
        return [e for e in self.store.events(tournament, table, match)
                if int(e["seq"]) <= folded]

    # -- accounts and sessions ------------------------------------------------------------------
    def add_user(self, name: str, password: str) -> None:
        """Create (or reset the password of) a director account."""
        self.store.put_user(check_user_name(name), hash_password(password))
        audit_log.info("account %s created or reset", name)

    def login(self, name: str, password: str, remote: str) -> str:
        """A new session token, or ActionRefusedError (logged) for a wrong name or password.

        After LOGIN_FAILURES wrong attempts from one address within LOCKOUT_S, that address
        may not try again until LOCKOUT_S after its last failure (guessing on the hall Wi-Fi).
        After ACCOUNT_FAILURES for one account name, from any addresses, each further attempt
        for it must come a hold after the last (ACCOUNT_DELAY_S, doubling, at most
        ACCOUNT_DELAY_CAP_S) or is refused unchecked; an address that logged in to the account
        within the session lifetime is not held. An unknown name costs a password check too.
        """
        now = self.clock()
        with self._failures_lock:
            recent = [t for t in self._failures.get(remote, []) if now - t < LOCKOUT_S]
            self._failures[remote] = recent
            locked = len(recent) >= LOGIN_FAILURES
            held = 0.0 if locked else self._account_hold(name, remote, now)
            if not locked and not held:  # counted as a failure until it succeeds: attempts
                recent.append(now)  # sent all at once, while the first is checked, count too
        if locked:
            self._refuse(remote, name, "login", "too many wrong passwords from this address; "
                         f"try again in {int(LOCKOUT_S - (now - recent[-1])) + 1} s")
        if held:
            self._refuse(remote, name, "login", f"too many wrong passwords for account {name!r}; "
                         f"try again in {math.ceil(held)} s")
        stored = self.store.user(name)
        right = (verify_password(password, stored) if stored is not None
                 else verify_unknown(password))
        if not right:
            self._refuse(remote, name, "login", "wrong user name or password")
        with self._failures_lock:
            with contextlib.suppress(ValueError):
                self._failures.get(remote, []).remove(now)  # it was a right one: uncounted
            self._account_failures.pop(name, None)
            self._trusted.setdefault(name, {})[remote] = now
        token = new_token()
        self.store.add_session(token_hash(token), name, self.clock() + self.session_ttl_s)
        self.store.audit(utc_now_iso(), remote, name, "login", True, "")
        audit_log.info("login by %s from %s", name, remote)
        return token

    def _account_hold(self, name: str, remote: str, now: float) -> float:
        """Seconds the account ``name`` is still held for ``remote`` (0: go on, and the attempt
        is counted against the account). Called with ``_failures_lock`` held."""
        seen = self._trusted.get(name, {}).get(remote)
        if seen is not None and now - seen < self.session_ttl_s:
            return 0.0  # this address logged in to it lately: the director's own device
        try:
            check_user_name(name)
        except AuthError:
            return 0.0  # no account has it: not kept (a name may be 64 KiB long)
        count, last = self._account_failures.get(name, (0, now))
        if now - last >= ACCOUNT_QUIET_S:
            count = 0
        if count >= ACCOUNT_FAILURES:
            doublings = min(count - ACCOUNT_FAILURES, 30)  # past the cap long before 2^30
            hold = min(ACCOUNT_DELAY_S * (1 << doublings), ACCOUNT_DELAY_CAP_S)
            if now < last + hold:
                return last + hold - now
        self._account_failures[name] = (count + 1, now)
        self._account_failures.move_to_end(name)
        while len(self._account_failures) > ACCOUNTS_TRACKED:
            self._account_failures.popitem(last=False)  # the one longest without a failure
        return 0.0

    def logout(self, token: str) -> None:
        """End a session."""
        self.store.drop_session(token_hash(token))

    def session_user(self, token: str | None) -> str | None:
        """The user of a live session token, or None."""
        if not token:
            return None
        return self.store.session_user(token_hash(token), self.clock())

    def _refuse(self, remote: str, user: str | None, action: str, why: str) -> None:
        """Refuse an attempt made without a session (a log-in, an action not logged in):
        audited (:meth:`_unsigned_kept`), then raised."""
        if self._unsigned_kept(remote):
            self._audit_refusal(remote, user, action, why)
        raise ActionRefusedError(f"{action} refused: {why}")

    def _unsigned_kept(self, remote: str) -> bool:
        """Whether one more refusal without a session from ``remote`` is audited: at most
        :data:`UNSIGNED_ROWS` within :data:`UNSIGNED_WINDOW_S` (the log counts the rest)."""
        now = self.clock()
        with self._failures_lock:
            recent = [t for t in self._unsigned.pop(remote, []) if now - t < UNSIGNED_WINDOW_S]
            kept = len(recent) < UNSIGNED_ROWS
            if kept:
                recent.append(now)
            self._unsigned[remote] = recent
            while len(self._unsigned) > ACCOUNTS_TRACKED:
                self._unsigned.popitem(last=False)
        if not kept:
            audit_log.warning("refused again from %s without a session: not audited (more "
                              "than %d within %g s)", remote, UNSIGNED_ROWS, UNSIGNED_WINDOW_S)
        return kept

    def _audit_refusal(self, remote: str, user: str | None, action: str, why: str,
                       asked: Any = None) -> None:
        """Keep a refused attempt in the audit, marked refused (``ok`` false) with why, and
        what it asked for when given (never a password)."""
        self.store.audit(utc_now_iso(), remote, user, action, False, why, asked)
        audit_log.warning("refused %s from %s (user %s): %s", action, remote, user or "-", why)

    def refused(self, token: str | None, remote: str, action: str, asked: Any, why: str) -> None:
        """Audit a director action the web layer refused before :meth:`act` (a body or an
        address it cannot take): what it asked for is kept only from a live session."""
        user = self.session_user(token)
        if user is not None or self._unsigned_kept(remote):
            self._audit_refusal(remote, user, action, why, asked if user is not None else None)

    # -- director actions -----------------------------------------------------------------------
    def act(
        self, token: str | None, remote: str, tournament: str, table: str, kind: str,
        data: dict[str, Any],
    ) -> dict[str, Any]:
        """Acknowledge a flag, override a verdict or end a match; refused without a session."""
        action = f"{kind} {tournament}/{table}"
        user = self.session_user(token)
        if user is None:
            self._refuse(remote, None, action,
                         "not logged in" if not token else "session expired or unknown")
            raise AssertionError("unreachable")  # _refuse always raises
        with self.store.lock, self.views_lock:
            view = self.views.get((tournament, table))
            state = view.current if view is not None else None
            try:
                if view is None or state is None:
                    raise NotFoundError(f"no match at table {tournament}/{table}")
                _check_action(state, kind, data)
            except HakemError as exc:  # a director reviewing a dispute sees the attempt too
                self._audit_refusal(remote, user, action, str(exc), data)
                raise
            self.store.add_action(utc_now_iso(), user, tournament, table, state.match, kind, data,
                                  view.applied.get(state.match, 0))
            before = _result(state)
            _apply_action(state, kind, user, data)
            self._keep_result(view, state, before, utc_now_iso())
            self.store.audit(utc_now_iso(), remote, user, action, True, json.dumps(data), data)
            self._stamp(view)
            summary = json.dumps(view.summary())
        audit_log.info("%s by %s: %s", action, user, data)
        self.broadcaster.send(summary)
        client = self._client
        if client is not None:
            body = {"kind": kind, "user": user, "match": state.match, **data}
            # an end is kept on the broker (retained): a table offline now gets it when it is
            # back (its session is clean, so nothing else waits for it there)
            client.publish(table_topic(self.prefix, tournament, table, "director"),
                           json.dumps(body), 1, kind == "end")
        return {"ok": True, "user": user, "kind": kind, **data}


def _check_action(state: MatchState, kind: str, data: dict[str, Any]) -> None:
    if kind in ("acknowledge", "override"):
        seq = data.get("seq")
        if not isinstance(seq, int) or state.flag(seq) is None:
            raise NotFoundError(f"no flag with seq {seq!r} in match {state.match}")
        if kind == "override" and data.get("verdict") not in VERDICTS:
            raise InvalidInputError(f"verdict must be one of {', '.join(VERDICTS)}, "
                                    f"got {data.get('verdict')!r}")
    elif kind == "end":
        if data.get("winner") not in (0, 1, None):
            raise InvalidInputError(f"winner must be 0, 1 or null, got {data.get('winner')!r}")
        if state.finished and not state.end_pending:
            # the page offers no end for a match the table ended; one posted all the same (a
            # page not updated yet, a card taken for another) put the director's winner beside
            # the table's score on the card and in the results. A director's own end on the hub
            # that the table has not carried out yet (it is down) may still be replaced, and the
            # page offers that: a wrong winner put right, sent to the table in its place
            noun = "round" if state.mangala is not None else "match"
            raise InvalidInputError(f"the {noun} is over ({_result_words(state)}): its result "
                                    "stands, and there is nothing to end")
    else:
        raise InvalidInputError(f"no such director action: {kind!r}")
    note = data.get("note", "")
    if not isinstance(note, str) or len(note) > 500:
        raise InvalidInputError("note must be text of at most 500 characters")


def _result_words(state: MatchState) -> str:
    """A finished match's result in a refusal's words: who won (or nobody; a drawn Mangala
    round is said drawn, as its card and results tell it apart), the score, and the director
    who ended it, when one did."""
    winner = state.winner
    drawn = state.mangala is not None and state.mangala.result == "draw"
    who = (f"won by {state.players[winner]}" if winner in (0, 1)
           else "drawn" if drawn else "no winner")
    score = "-".join(f"{points:g}" for points in state.score)
    return f"{who}, score {score}{f', ended by {state.ended_by}' if state.ended_by else ''}"


def _apply_action(state: MatchState, kind: str, user: str, data: dict[str, Any]) -> None:
    if kind == "acknowledge":
        state.acknowledge(int(data["seq"]), user)
    elif kind == "override":
        state.override(int(data["seq"]), str(data["verdict"]), user, str(data.get("note", "")))
    elif kind == "end":
        winner = data.get("winner")
        state.end(winner if winner in (0, 1) else None, user, str(data.get("note", "")))


def _replay(state: MatchState, action: dict[str, Any]) -> None:
    """Carry out a stored director action again (a rebuild)."""
    _apply_action(state, action["kind"], action["user"], action["data"])


def _replay_due(view: TableView, match: str, actions: list[dict[str, Any]]
                ) -> list[dict[str, Any]]:
    """Replay the leading ``actions`` (oldest first, each with its place ``after_seq``) taken
    when ``match`` had been folded no further than it is now; return the rest, still to come."""
    folded = view.applied[match]
    for k, action in enumerate(actions):
        if action["after_seq"] > folded:
            return actions[k:]
        _replay(view.matches[match], action)
    return []


def _result(state: MatchState) -> tuple[Any, ...] | None:
    """What ``/api/results`` lists of a match, None while it is not finished; compared before
    and after a change to know whether the stored result must be written."""
    if not state.finished:
        return None
    return tuple(state.players), tuple(state.score), state.winner


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _natural(name: str) -> tuple[int, str]:
    return (int(name), "") if name.isdigit() else (10**9, name)


__all__ = ["ActionRefusedError", "AuthError", "HubService", "NotFoundError", "TableView"]
