"""Recordings for ``hakem replay``: the frames a pipeline saw and the clock events it heard, each
at its time, so the same pipeline can run again on them and write the same journal.

A recording is a folder: ``meta.json`` (the table configuration the session ran with, and
where its journal is, when the session says: ``journal``, relative to the folder),
``frames/KEY.jpg`` (every distinct picture once) and ``timeline.jsonl`` (one line per frame,
clock event or director action, in order, with the time in ms). A session resumed after a
stop (``hakem demo`` run again on its folder) goes on in the same recording after a
``{"resumed": true}`` line: its time starts afresh and its referee starts from the journal as
the stop left it, which a replay from the first frame cannot be, so a replay refuses it.

Durability: syncing every frame would cost the table time, so frames are written whole but
unsynced, and the timeline's lines are held back until a checkpoint syncs the frames they name
and then appends and syncs the lines. A checkpoint comes with every clock press, flag and
director action (what the referee acts on and journals at once), at the first frame
:data:`SYNC_MS` of the table's time or more after the oldest line held, and on closing. So a
power cut loses only the frames since the last checkpoint, and never leaves a timeline naming
a frame that is missing or empty; a session resumed writes again every frame its timeline does
not name.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.clock.messages import ClockEvent, FlagEvent, PressEvent
from controller.records.files import (
    naming,
    remove_stale_parts,
    sync_file,
    sync_folder,
    write_whole,
)
from controller.referee.api import DirectorAction
from engine.errors import ImageError, RecordFormatError
from vision.imageio import decode_image

META = "meta.json"
TIMELINE = "timeline.jsonl"
FRAMES = "frames"
SYNC_MS = 2000  # the longest a recorded line waits (the table's time) for its checkpoint


class Recorder:
    """Appends what a pipeline sees to a recording folder (an observer of :class:`Pipeline`)."""

    def __init__(self, folder: str | os.PathLike[str], meta: dict[str, Any], *,
                 resumed: bool = False) -> None:
        """``resumed``: the session goes on from a journal a stopped one left (its timeline
        may hold nothing yet: its lines wait for a checkpoint, the journal is written at once)."""
        self.folder = Path(folder)
        (self.folder / FRAMES).mkdir(parents=True, exist_ok=True)
        # frames a killed session was writing: each write's part file has a name of its own
        remove_stale_parts(self.folder / FRAMES)
        meta_path = self.folder / META
        if not meta_path.exists():  # whole or not at all: a torn one would stay for good
            write_whole(meta_path, json.dumps(meta, indent=1, sort_keys=True).encode("utf-8"))
        path = self.folder / TIMELINE
        earlier = _cut_torn_tail(path)
        self._timeline = path.open("a", encoding="utf-8")
        sync_folder(self.folder)  # the timeline's and the frames folder's names
        # durable frames only: one written but never named may have been cut by a power cut
        self._saved: set[str] = _named_frames(path)
        self._held: list[str] = []  # lines waiting for their checkpoint
        self._held_since: int | None = None  # the time of the first of them
        self._unsynced: list[Path] = []  # frames written since the last checkpoint
        if earlier or resumed:  # a resumed session goes on after a mark
            self._held.append(json.dumps({"resumed": True}) + "\n")
            self._checkpoint()

    def __call__(self, kind: str, t_ms: int, payload: object) -> None:
        if self._timeline.closed:
            return
        line: dict[str, Any] | None = None
        if kind == "frame" and isinstance(payload, tuple):
            key, jpeg = payload
            if key is None or jpeg is None:
                raise RecordFormatError("a recorded frame needs its name and its JPEG bytes")
            frame_name(key, "a recorded frame")
            if key not in self._saved:
                path = self.folder / FRAMES / f"{key}.jpg"
                write_whole(path, jpeg, synced=False)  # synced at the next checkpoint
                self._unsynced.append(path)
                self._saved.add(key)
            line = {"t": t_ms, "frame": key}
        elif kind == "clock" and isinstance(payload, PressEvent):
            line = {"t": t_ms, "press": payload.button, "times": list(payload.times_ms),
                    "number": payload.number, "boot": payload.boot}
        elif kind == "clock" and isinstance(payload, FlagEvent):
            line = {"t": t_ms, "flag": payload.side}
        elif kind == "event" and isinstance(payload, DirectorAction):
            # the request id too: the journal's director entry names it, and a replay
            # writes the same journal
            director: dict[str, Any] = {"action": payload.action, "args": payload.args,
                                        "director": payload.director}
            if payload.request:
                director["request"] = payload.request
            line = {"t": t_ms, "director": director}
        if line is not None:
            self._held.append(json.dumps(line, separators=(",", ":")) + "\n")
            if self._held_since is None:
                self._held_since = t_ms
            if "frame" not in line or t_ms - self._held_since >= SYNC_MS:
                self._checkpoint()

    def _checkpoint(self) -> None:
        """Sync the frames written since the last checkpoint, then append the lines held and
        sync the timeline: a line reaches the disk only after the frame it names."""
        for path in self._unsynced:
            sync_file(path)
        if self._unsynced:
            sync_folder(self.folder / FRAMES)
        self._unsynced.clear()
        # taken out before writing: a write that fails (a full disk) leaves them in the file's
        # buffer, which the next flush or close writes; kept here too, they would be written twice
        lines, self._held, self._held_since = "".join(self._held), [], None
        with naming(self.folder / TIMELINE):
            self._timeline.write(lines)
            self._timeline.flush()
            os.fsync(self._timeline.fileno())

    def close(self) -> None:
        """Write what is held (a checkpoint) and close; safe to call twice."""
        if not self._timeline.closed:
            try:
                self._checkpoint()
            finally:
                self._timeline.close()


@dataclass(frozen=True)
class Step:
    """One line of a recording's timeline."""

    t_ms: int
    frame: str | None = None
    clock: ClockEvent | None = None
    director: DirectorAction | None = None


class Recording:
    """A recording folder opened for replay."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        if not (self.folder / TIMELINE).is_file():
            raise RecordFormatError(f"{self.folder}: not a recording (no {TIMELINE})")
        try:
            meta = json.loads((self.folder / META).read_text("utf-8"))
        except (OSError, ValueError, RecursionError) as exc:  # ValueError: not JSON, or not UTF-8
            reason = "nested too deeply" if isinstance(exc, RecursionError) else exc
            raise RecordFormatError(f"{self.folder / META}: cannot be read ({reason})") from None
        if not isinstance(meta, dict):
            raise RecordFormatError(f"{self.folder / META}: must hold a JSON object, not "
                                    f"{type(meta).__name__} {json.dumps(meta)[:40]}")
        self.meta: dict[str, Any] = meta

    def journal(self) -> Path | None:
        """The journal the recorded session wrote (``meta.json``'s ``journal``, relative to the
        folder), or None when the recording does not name one."""
        name = self.meta.get("journal")
        return (Path(os.path.normpath(self.folder / name)) if isinstance(name, str) and name
                else None)

    def frame(self, key: str) -> tuple[Any, bytes]:
        """The picture called ``key``: decoded image and JPEG bytes."""
        path = self.folder / FRAMES / f"{key}.jpg"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise RecordFormatError(f"{path}: frame missing from the recording") from None
        try:
            image = decode_image(data, str(path))
        except ImageError as exc:
            raise RecordFormatError(str(exc)) from None
        return image, data

    def resumed_at(self) -> int | None:
        """The timeline line where a resumed session goes on, or None."""
        for number, raw in enumerate((self.folder / TIMELINE).read_bytes().split(b"\n"),
                                     start=1):
            if raw.startswith(b'{"resumed"'):
                return number
        return None

    def steps(self) -> Iterator[Step]:
        """The timeline in order; a torn last line (the session was killed) ends it."""
        path = self.folder / TIMELINE
        lines = path.read_bytes().split(b"\n")
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            try:
                item = json.loads(raw)
            except (json.JSONDecodeError, RecursionError):
                if number == len(lines):
                    return
                raise RecordFormatError(f"{path} line {number}: not JSON") from None
            yield _step(item, f"{path} line {number}")


def _cut_torn_tail(path: Path) -> int:
    """Cut off a torn last line of the timeline at ``path`` (the session was killed while
    writing it); the bytes of whole lines left (0: none, or no file)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return 0
    whole = data.rfind(b"\n") + 1
    if whole < len(data):
        with path.open("r+b") as f:
            f.truncate(whole)
    return whole


def _named_frames(path: Path) -> set[str]:
    """The frames the timeline at ``path`` names (each synced before its line was written)."""
    try:
        lines = path.read_bytes().split(b"\n")
    except FileNotFoundError:
        return set()
    named: set[str] = set()
    for raw in lines:
        if b'"frame"' in raw:
            with contextlib.suppress(ValueError, KeyError, TypeError, RecursionError):
                named.add(str(json.loads(raw)["frame"]))
    return named


def frame_name(key: str, where: str) -> str:
    """``key`` when it names a picture inside the recording's frames folder: a plain file name
    (a timeline naming ``../../x`` would have a replay read files outside the recording)."""
    if key in ("", ".", "..") or "/" in key or "\\" in key or "\0" in key:
        raise RecordFormatError(f"{where}: frame name {key!r} is not a picture of {FRAMES}/")
    return key


def _step(item: dict[str, Any], where: str) -> Step:
    try:
        t = int(item["t"])
        if "frame" in item:
            return Step(t, frame=frame_name(str(item["frame"]), where))
        if "press" in item:
            times = (int(item["times"][0]), int(item["times"][1]))
            press = PressEvent(int(item.get("number", 0)), item["press"], t, None, times, 0,
                               "run", boot=int(item.get("boot", 0)))
            return Step(t, clock=press)
        if "flag" in item:
            return Step(t, clock=FlagEvent(item["flag"], t))
        if "director" in item:
            d = item["director"]
            # a recording from before the request id was kept has none
            return Step(t, director=DirectorAction(t, str(d["action"]), dict(d.get("args", {})),
                                                   str(d.get("director", "")),
                                                   str(d.get("request", ""))))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise RecordFormatError(f"{where}: malformed ({exc})") from None
    raise RecordFormatError(f"{where}: neither a frame, a clock event nor a director action")
