"""A tournament director's actions for a running table, from the command line
(``hakem director``): requests appended to a file in the table's journal folder, taken by the
table's loop between frames, and answered in a second file.

Files rather than a socket: the journal folder is where a director already looks, a request
survives the table restarting (it is taken when the table runs again, unless it has expired),
and each request is applied once: the answers file says which were taken, also across a
restart (a request the table journalled just before going down is answered taken when it
restarts, correcting a withdrawal its director wrote meanwhile). Each line is appended and
``fsync``ed, like the journal. A request expires after :data:`REQUEST_TTL_S` so that an
action typed for a situation long gone (dice set for a throw the players have since thrown
again) is not applied to another.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.records.files import naming
from controller.referee.api import Command, DirectorAction, JournalEntry, Say, director_refusal
from engine.errors import HakemError, InvalidInputError

INBOX_NAME = "director-inbox.jsonl"
ANSWERS_NAME = "director-answers.jsonl"
REQUEST_TTL_S = 60.0

# what carries a director's action out: the table's pipeline (its referee, then its commands)
Director = Callable[[DirectorAction], list[Command]]


@dataclass(frozen=True)
class DirectorRequest:
    """One action asked of the table's referee (its ``DirectorAction``)."""

    id: str
    action: str
    args: dict[str, Any]
    director: str
    posted: float  # wall-clock seconds (time.time) when asked

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "action": self.action, "args": self.args,
                "director": self.director, "posted": self.posted}


def _append(path: Path, obj: dict[str, Any]) -> None:
    """One line, synced. After a line torn by a crash (no newline at its end) it starts a line
    of its own: run on with the torn one, the request or answer would be lost with it."""
    line = (json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
    with naming(path), open(path, "a+b") as f:
        if f.seek(0, os.SEEK_END) > 0:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                line = b"\n" + line
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


def post_request(folder: Path, action: str, args: dict[str, Any], director: str, *,
                 now: Callable[[], float] = time.time) -> DirectorRequest:
    """Ask the table whose journal is in ``folder``; returns the request (its id names the
    answer). The folder must exist: it is the table's."""
    if not folder.is_dir():
        raise InvalidInputError(f"no table journal folder at {folder}")
    request = DirectorRequest(uuid.uuid4().hex, action, dict(args), director, now())
    _append(folder / INBOX_NAME, request.as_json())
    return request


WITHDRAWN = "withdrawn"


def withdraw(folder: Path, request_id: str, text: str, *,
             now: Callable[[], float] = time.time) -> dict[str, Any]:
    """Take a request back (its director gave up waiting): a table starting later does not
    carry it out. Returns the answer that stands (:func:`read_answer`): the table's, if it
    took the request meanwhile, else this withdrawal."""
    _append(folder / ANSWERS_NAME, {"id": request_id, "ok": False,
                                    "text": f"{WITHDRAWN}: {text}", "answered": now()})
    found = read_answer(folder, request_id)
    assert found is not None  # just written
    return found


def read_answer(folder: Path, request_id: str) -> dict[str, Any] | None:
    """The answer that stands for a request (``{"id", "ok", "text"}``), or None while it has
    none: the first one written, unless the table corrected it later (``"corrects": true``: a
    request it journalled just before going down, which its director withdrew meanwhile)."""
    return _standing(_lines(folder / ANSWERS_NAME)).get(request_id)


def _standing(answers: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The answer that stands for each request id (:func:`read_answer`)."""
    out: dict[str, dict[str, Any]] = {}
    for obj in answers:
        rid = str(obj.get("id"))
        if rid not in out or obj.get("corrects") is True:
            out[rid] = obj
    return out


def _lines(path: Path) -> list[dict[str, Any]]:
    """The complete JSON object lines of a file (a torn last line, or a bad one, is skipped)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    out = []
    for line in text.split("\n")[:-1]:  # the text after the last newline is not complete yet
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


class DirectorInbox:
    """The table's side: the requests not taken yet, each taken once (the answers file, read
    when the table opens, holds the ones taken before a restart; the journal, those the table
    took but did not answer before it went down)."""

    def __init__(self, folder: Path, *, now: Callable[[], float] = time.time,
                 journalled: Iterable[Mapping[str, Any]] = ()) -> None:
        """``journalled``: the journal's entries; a ``director`` entry names the request it
        carried out, which is answered now if the table went down before answering it."""
        self.inbox = folder / INBOX_NAME
        self.answers = folder / ANSWERS_NAME
        self.now = now
        self._size = -1  # the inbox's size when last read: unchanged, nothing new
        standing = _standing(_lines(self.answers))
        self._answered = set(standing)
        for entry in journalled:
            rid = entry.get("request") if entry.get("type") == "director" else None
            if not isinstance(rid, str) or not rid:
                continue
            text = f"taken (journal entry {entry.get('seq')}) before the table restarted"
            if rid not in standing:
                self.answer(rid, True, text)
            elif str(standing[rid].get("text", "")).startswith(WITHDRAWN):
                # its director gave up before the table came back: sent again, it would be
                # carried out twice (a Mangala sowing sown twice)
                self.answer(rid, True, text, corrects=True)

    def poll(self) -> list[DirectorRequest]:
        """The requests not answered yet, oldest first; expired ones are answered as such."""
        try:
            size = self.inbox.stat().st_size
        except FileNotFoundError:
            return []
        if size == self._size:
            return []
        self._size = size
        out = []
        for obj in _lines(self.inbox):
            rid = str(obj.get("id", ""))
            if not rid or rid in self._answered:
                continue
            try:
                request = DirectorRequest(rid, str(obj["action"]), dict(obj.get("args") or {}),
                                          str(obj.get("director", "")), float(obj["posted"]))
            except (KeyError, TypeError, ValueError):
                self.answer(rid, False, "refused: the request is malformed")
                continue
            if self.now() - request.posted > REQUEST_TTL_S:
                self.answer(rid, False, f"expired: not taken within {REQUEST_TTL_S:.0f} s "
                                        "(was the table running?)")
                continue
            out.append(request)
        return out

    def still_open(self, request_id: str) -> bool:
        """Whether nobody has answered the request yet: its director may have withdrawn it
        since it was read (:func:`withdraw`)."""
        if request_id in self._answered:
            return False
        if any(str(a.get("id")) == request_id for a in _lines(self.answers)):
            self._answered.add(request_id)
            return False
        return True

    def answer(self, request_id: str, ok: bool, text: str, *, corrects: bool = False) -> None:
        """Say what became of a request (once; ``corrects``: again, replacing a withdrawal
        that was wrong, :func:`read_answer`)."""
        self._answered.add(request_id)
        line: dict[str, Any] = {"id": request_id, "ok": ok, "text": text,
                                "answered": self.now()}
        if corrects:
            line["corrects"] = True
        _append(self.answers, line)

    def take(self, director: Director, now_ms: int, say: Callable[[str], None]) -> int:
        """Hand the new requests to the referee through ``director``, in order, and answer
        each: taken (the referee journalled it) or refused, in the referee's words (a refusal
        by raising is also said through ``say``, the live log). Returns how many were taken."""
        taken_count = 0
        for request in self.poll():
            if not self.still_open(request.id):
                continue  # its director withdrew it
            event = DirectorAction(now_ms, request.action, request.args,
                                   request.director or "director", request=request.id)
            try:
                commands = director(event)
            except (HakemError, KeyError, TypeError, ValueError) as exc:  # refused by raising
                text = director_refusal(request.action, exc)
                say(text)
                self.answer(request.id, False, text)
                continue
            taken = any(isinstance(c, JournalEntry) and c.type == "director" for c in commands)
            said = [c.text for c in commands if isinstance(c, Say)]
            self.answer(request.id, taken, "; ".join(said) or ("taken" if taken else "refused"))
            taken_count += taken
        return taken_count
