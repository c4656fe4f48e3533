"""A director's override from the command line (``hakem director``) reaches the running
table's referee: posted to the journal folder, taken between frames, journalled or refused,
answered once (also across a restart), and never applied once expired."""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.cli import main
from controller.clock.timebase import FakeTime
from controller.config.table import CameraSection, ClockSection, JournalSection, TableConfig
from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from controller.records.journal import Journal, read_journal
from controller.referee.api import Command, DirectorAction, JournalEntry, Say
from controller.runtime.director_inbox import (
    ANSWERS_NAME,
    INBOX_NAME,
    REQUEST_TTL_S,
    DirectorInbox,
    DirectorRequest,
    post_request,
    read_answer,
    withdraw,
)
from controller.runtime.table import drive, open_table, run_table
from controller.table_layout import DEFAULT_LAYOUT
from engine.backgammon.position import Position
from engine.errors import InvalidInputError
from tests.controller.runtime.test_live_table import Camera, Sink, config, connected
from vision.sources import Frame


class Wall:
    """A wall clock a test moves (seconds)."""

    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


def test_a_request_is_taken_once_even_across_a_restart(tmp_path: Path) -> None:
    wall = Wall()
    first = post_request(tmp_path, "note", {"text": "a"}, "Ayse", now=wall)
    inbox = DirectorInbox(tmp_path, now=wall)
    assert [r.id for r in inbox.poll()] == [first.id]
    assert inbox.poll() == []  # nothing new
    inbox.answer(first.id, True, "noted")
    second = post_request(tmp_path, "note", {"text": "b"}, "Ayse", now=wall)
    assert [(r.id, r.args) for r in inbox.poll()] == [(second.id, {"text": "b"})]
    # the table restarts before answering the second: it is taken then, the first is not
    again = DirectorInbox(tmp_path, now=wall)
    assert [r.id for r in again.poll()] == [second.id]
    assert read_answer(tmp_path, first.id) == {"id": first.id, "ok": True, "text": "noted",
                                               "answered": wall.t}
    assert read_answer(tmp_path, second.id) is None


def test_an_expired_request_is_answered_and_never_applied(tmp_path: Path) -> None:
    wall = Wall()
    old = post_request(tmp_path, "set_dice", {"dice": [5, 3]}, "Ayse", now=wall)
    wall.t += REQUEST_TTL_S + 1
    assert DirectorInbox(tmp_path, now=wall).poll() == []
    answer = read_answer(tmp_path, old.id)
    assert answer is not None and not answer["ok"] and "expired" in answer["text"]


def test_torn_and_malformed_lines_do_not_stop_the_inbox(tmp_path: Path) -> None:
    wall = Wall()
    with (tmp_path / INBOX_NAME).open("w") as f:
        f.write(json.dumps({"id": "bad", "action": "note"}) + "\n")  # no "posted"
        f.write("not json\n")
    good = post_request(tmp_path, "note", {}, "Ayse", now=wall)
    with (tmp_path / INBOX_NAME).open("a") as f:
        f.write('{"id": "half", "act')  # being written: not taken yet
    assert [r.id for r in DirectorInbox(tmp_path, now=wall).poll()] == [good.id]
    answer = read_answer(tmp_path, "bad")
    assert answer is not None and not answer["ok"] and "malformed" in answer["text"]


def test_a_request_and_an_answer_after_a_line_torn_by_a_crash_are_not_lost(
    tmp_path: Path,
) -> None:
    # a power cut tore the last line of each file: what is written next starts a line of its
    # own instead of running on with the torn one (and being lost with it)
    wall = Wall()
    for name in (INBOX_NAME, ANSWERS_NAME):
        (tmp_path / name).write_text('{"id": "torn", "act', encoding="utf-8")
    request = post_request(tmp_path, "note", {"text": "after the cut"}, "Ayse", now=wall)
    inbox = DirectorInbox(tmp_path, now=wall)
    assert [(r.id, r.args) for r in inbox.poll()] == [(request.id, {"text": "after the cut"})]
    inbox.answer(request.id, True, "noted")
    answer = read_answer(tmp_path, request.id)
    assert answer is not None and answer["ok"] and answer["text"] == "noted"


def test_posting_needs_the_tables_folder(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="no table journal folder"):
        post_request(tmp_path / "nowhere", "note", {}, "Ayse")


def test_a_referee_that_refuses_by_raising_does_not_stop_the_table(tmp_path: Path) -> None:
    """Mangala's referee raises on a bad action: the loop answers "refused" and goes on."""
    time = FakeTime(0)
    seen: list[DirectorAction] = []

    def director(event: DirectorAction) -> list[Command]:
        seen.append(event)
        if event.action == "warn":
            raise InvalidInputError("warn needs args player a or b, not None")
        return [JournalEntry("director", {"action": event.action}), Say("noted")]

    bad = post_request(tmp_path, "warn", {}, "Ayse")
    good = post_request(tmp_path, "note", {"text": "x"}, "Ayse")
    sink = Sink()
    with open_table(config(tmp_path), time=time, source=Camera(time, 3), clock=connected(time),
                    pin_factory=MockFactory(), log=io.StringIO()) as table:
        drive(table, sink, lambda: False, director)
    assert [e.action for e in seen] == ["warn", "note"]
    assert sink.seen == ["frame"] * 3  # the table read on
    refused, taken = read_answer(tmp_path, bad.id), read_answer(tmp_path, good.id)
    assert refused is not None and not refused["ok"] and "player a or b" in refused["text"]
    assert taken is not None and taken["ok"] and taken["text"] == "noted"


class StartCamera:
    """The starting position, ``count`` frames, as the demo's camera draws it."""

    def __init__(self, count: int) -> None:
        self.camera = DemoCamera(seed=2)
        c = DEFAULT_LAYOUT.counts(Position.initial())
        self.image, _ = self.camera.render(Shot(contents_from_counts(c.slots, c.bar, c.off)))
        self.left = count

    def read(self) -> Frame | None:
        if self.left == 0:
            return None
        self.left -= 1
        return Frame(self.image, float(self.left), f"f{self.left}")

    def close(self) -> None:
        pass


def test_the_live_backgammon_table_journals_a_director_note_and_refuses_a_bad_accept(
        tmp_path: Path) -> None:
    source = StartCamera(4)
    cfg = TableConfig(camera=CameraSection(source="test", corners=source.camera.corners_flat()),
                      clock=ClockSection(port="sim"),
                      journal=JournalSection(directory=str(tmp_path)))
    note = post_request(tmp_path, "note", {"text": "board checked"}, "Ayse Kaya")
    accept = post_request(tmp_path, "accept", {}, "Ayse Kaya")  # no flagged move: refused
    run_table(cfg, source=source, pin_factory=MockFactory(), log=io.StringIO())
    entries = read_journal(tmp_path / "journal.jsonl").entries
    directed = [e for e in entries if e["type"] == "director"]
    assert [(e["action"], e["args"], e["director"]) for e in directed] == [
        ("note", {"text": "board checked"}, "Ayse Kaya")]
    taken, refused = read_answer(tmp_path, note.id), read_answer(tmp_path, accept.id)
    assert taken is not None and taken["ok"]
    assert refused is not None and not refused["ok"]
    assert "no flagged move to accept" in refused["text"]
    assert (tmp_path / ANSWERS_NAME).read_text().count("\n") == 2


class Killed(BaseException):
    """The table's process dies (SIGKILL, a power cut) where the test says."""


def _killed_before_answering(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                             ) -> tuple[TableConfig, DirectorRequest]:
    """A table on ``tmp_path`` that journals a director's note and dies before answering it;
    its configuration and the request."""
    source = StartCamera(4)
    cfg = TableConfig(camera=CameraSection(source="test", corners=source.camera.corners_flat()),
                      clock=ClockSection(port="sim"),
                      journal=JournalSection(directory=str(tmp_path)))
    note = post_request(tmp_path, "note", {"text": "board checked"}, "Ayse Kaya")

    def die(*args: object, **kwargs: object) -> None:
        raise Killed

    with monkeypatch.context() as patched:
        patched.setattr(DirectorInbox, "answer", die)
        with pytest.raises(Killed):
            run_table(cfg, source=source, pin_factory=MockFactory(), log=io.StringIO())
    return cfg, note


def test_a_request_journalled_just_before_a_crash_is_not_carried_out_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table journalled a director's request and went down before answering it: restarted
    within the request's minute, it carried the request out a second time (a note twice; a
    resignation would have resigned the next game too). The journal names the request it
    carried out: the restarted table answers it as taken, and takes it no more."""
    cfg, note = _killed_before_answering(tmp_path, monkeypatch)
    assert read_answer(tmp_path, note.id) is None  # journalled, not answered
    run_table(cfg, source=StartCamera(4), pin_factory=MockFactory(), log=io.StringIO())
    entries = read_journal(tmp_path / "journal.jsonl").entries
    directed = [e for e in entries if e["type"] == "director"]
    assert [e["action"] for e in directed] == ["note"]  # once
    assert directed[0]["request"] == note.id
    answer = read_answer(tmp_path, note.id)
    assert answer is not None and answer["ok"]
    assert answer["text"] == (f"taken (journal entry {directed[0]['seq']}) before the table "
                              "restarted")


def test_a_request_journalled_before_a_crash_and_withdrawn_meanwhile_is_answered_taken(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The table journalled a request and went down; its director's ``--wait`` ran out before
    the table came back, so the first answer on file was "withdrawn", which stood: the
    director, told to send it again, had it carried out twice (a Mangala sowing sown twice).
    The restarted table corrects the withdrawal, and the answer that stands is its own."""
    cfg, note = _killed_before_answering(tmp_path, monkeypatch)
    withdrawn = withdraw(tmp_path, note.id, "no table answered within 10 s")
    assert withdrawn["text"].startswith("withdrawn") and not withdrawn["ok"]
    run_table(cfg, source=StartCamera(4), pin_factory=MockFactory(), log=io.StringIO())
    run_table(cfg, source=StartCamera(4), pin_factory=MockFactory(), log=io.StringIO())
    directed = [e for e in read_journal(tmp_path / "journal.jsonl").entries
                if e["type"] == "director"]
    assert [e["request"] for e in directed] == [note.id]  # carried out once
    answer = read_answer(tmp_path, note.id)
    assert answer is not None and answer["ok"]
    assert answer["text"] == (f"taken (journal entry {directed[0]['seq']}) before the table "
                              "restarted")
    answers = [json.loads(line) for line in (tmp_path / ANSWERS_NAME).read_text().splitlines()]
    assert [(a["ok"], a.get("corrects")) for a in answers] == [(False, None), (True, True)]


def test_a_correction_stands_over_a_withdrawal_but_a_late_withdrawal_does_not(
        tmp_path: Path) -> None:
    """The answer that stands is the first written, unless the table corrects it later; a
    withdrawal after the table's own answer changes nothing."""
    lost = post_request(tmp_path, "note", {"text": "x"}, "td")
    withdraw(tmp_path, lost.id, "too late")
    DirectorInbox(tmp_path).answer(lost.id, True, "taken (journal entry 3) before the table "
                                   "restarted", corrects=True)
    withdraw(tmp_path, lost.id, "again")
    answer = read_answer(tmp_path, lost.id)
    assert answer is not None and answer["ok"] and answer["text"].startswith("taken")
    kept = post_request(tmp_path, "note", {"text": "y"}, "td")
    DirectorInbox(tmp_path).answer(kept.id, True, "noted")
    assert withdraw(tmp_path, kept.id, "too late")["text"] == "noted"


def table_thread(folder: Path, serve: Callable[[DirectorInbox], bool]) -> threading.Thread:
    """A table's loop in a thread: ``serve`` its inbox every 20 ms until it says it answered
    (for 4 s at most)."""

    def loop() -> None:
        inbox = DirectorInbox(folder)
        for _ in range(200):
            if serve(inbox):
                return
            threading.Event().wait(0.02)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return thread


def _answering_table(folder: Path, ok: bool, text: str) -> threading.Thread:
    """A table's loop in a thread: answers the first request it sees."""

    def serve(inbox: DirectorInbox) -> bool:
        requests = inbox.poll()
        if requests:
            inbox.answer(requests[0].id, ok, text)
        return bool(requests)

    return table_thread(folder, serve)


def test_the_command_prints_the_tables_answer(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    thread = _answering_table(tmp_path, True, "The director set the dice to 53")
    code = main(["director", "set-dice", "5", "3", "--folder", str(tmp_path), "--by", "Ayse"])
    thread.join()
    assert code == 0
    assert capsys.readouterr().out.strip() == "taken: The director set the dice to 53"
    request = json.loads((tmp_path / INBOX_NAME).read_text().splitlines()[0])
    assert (request["action"], request["args"], request["director"]) == (
        "set_dice", {"dice": [5, 3]}, "Ayse")


def test_a_refusal_or_no_table_is_one_line_and_exit_2(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    thread = _answering_table(tmp_path, False, "The director's accept was refused: no flagged "
                                               "move to accept")
    assert main(["director", "accept", "--folder", str(tmp_path)]) == 2
    thread.join()
    err = capsys.readouterr().err
    assert err == "hakem: director accept refused: no flagged move to accept\n"
    assert main(["director", "note", "hello", "--folder", str(tmp_path), "--wait", "0.2"]) == 2
    assert "no answer from a table" in capsys.readouterr().err


def test_set_position_names_the_player_on_roll(tmp_path: Path) -> None:
    """After turns the table could not see (TTB-6.1) the director gives the position and who
    is on roll, from whose side the Position ID is written."""
    thread = _answering_table(tmp_path, True, "The director set the position")
    assert main(["director", "set-position", "4HPwATDgc/ABMA", "--player", "1",
                 "--folder", str(tmp_path)]) == 0
    thread.join()
    request = json.loads((tmp_path / INBOX_NAME).read_text().splitlines()[0])
    assert request["args"] == {"position_id": "4HPwATDgc/ABMA", "player": 1}


def test_the_command_checks_its_arguments(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["director", "set-dice", "7", "3", "--folder", str(tmp_path)])
    assert exc.value.code == 2
    assert main(["director", "end-match", "x", "--folder", str(tmp_path)]) == 2
    assert "the winner is 0 or 1" in capsys.readouterr().err
    assert not (tmp_path / INBOX_NAME).exists()  # nothing was asked


@pytest.mark.parametrize(("args", "said"), [
    (["set-position", "xx"], "not a position id (14 base64 characters): 'xx'"),
    (["set-position", '{"a": [1]}'], "mangala position has no 'a_store'"),
    (["set-position", '{"a": [4, 4, 4, 4, 4, 4], "a_store": 0, "b": [4, 4, 4, 4, 4, 4], '
      '"b_store": 1, "to_move": "a"}'], "position has 49 stones"),
    (["set-position", '{"a": [4, 4, 4, 4, 4, 4], "a_store": 0, "b": [4, 4, 4, 4, 4, 4], '
      '"b_store": 0, "to_move": "a"}', "--player", "1"], "--player is for a backgammon"),
    (["note", "hi", "--wait", "nan"], "--wait must be 0 or more seconds, not nan"),
    (["note", " "], "the note is empty"),
    (["note", "hi", "--by", ""], "--by must name the director"),
])
def test_what_the_table_would_refuse_is_refused_before_it_is_posted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str) -> None:
    """A malformed position, an empty note or name, a wait of nan: one line, exit 2, and
    nothing posted (before, each was posted and refused by the table, or journalled as given;
    text that is not UTF-8 is refused while the arguments are parsed, test_cli_errors)."""
    assert main(["director", *args, "--folder", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hakem: ") and said in err and err.count("\n") == 1
    assert not (tmp_path / INBOX_NAME).exists()


@pytest.mark.parametrize("pit", ["0", "7", "x"])
def test_a_mangala_accept_names_a_pit_1_to_6(tmp_path: Path, pit: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["director", "accept", pit, "--folder", str(tmp_path)])
    assert exc.value.code == 2
    assert not (tmp_path / INBOX_NAME).exists()


def test_a_request_nobody_answered_in_time_is_withdrawn(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The command gave up ("no answer", exit 2) but a table started later still carried the
    request out, so a director who sent it again had it twice (end-to-end QA). Given up, it is
    taken back: neither a table starting later nor one that read it just before takes it."""
    reading = DirectorInbox(tmp_path)  # a table that reads the inbox but is slow to answer
    assert main(["director", "note", "first", "--folder", str(tmp_path), "--wait", "0.2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "The request was withdrawn; " in err
    assert "may have taken it: check for it in its journal" in err  # and how to tell
    # which program that is: a demo takes requests too (it asked only after hakem run)
    assert f"is one running on it (hakem run, or hakem demo --out {tmp_path})? " in err
    [request] = reading.poll()  # read before the withdrawal reached it ...
    assert not reading.still_open(request.id)  # ... and checked before it is carried out
    assert DirectorInbox(tmp_path).poll() == []  # a table started later: nothing to take
    answers = [json.loads(line) for line in (tmp_path / ANSWERS_NAME).read_text().splitlines()]
    assert [a["text"].split(":")[0] for a in answers] == ["withdrawn"]


def test_a_table_that_answers_before_the_withdrawal_stands(tmp_path: Path) -> None:
    request = post_request(tmp_path, "note", {"text": "x"}, "td")
    DirectorInbox(tmp_path).answer(request.id, True, "taken")
    assert withdraw(tmp_path, request.id, "too late")["text"] == "taken"


@pytest.mark.parametrize(("extra", "worth"), [([], 1), (["--kind", "2"], 2), (["--kind", "3"], 3)])
def test_a_resignation_is_posted_with_what_it_is_worth(tmp_path: Path, extra: list[str],
                                                      worth: int) -> None:
    """``resign PLAYER [--kind N]``: the option once overwrote the action's own name (every
    resignation was refused as an unknown action, or its --kind as not a number)."""
    thread = _answering_table(tmp_path, True, "The director took the resignation")
    assert main(["director", "resign", "1", *extra, "--folder", str(tmp_path)]) == 0
    thread.join()
    request = json.loads((tmp_path / INBOX_NAME).read_text().splitlines()[0])
    assert (request["action"], request["args"]) == ("resign", {"player": 1, "kind": worth})


def test_a_request_posted_without_waiting_is_a_success(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--wait 0``: posted for the table, which answers later: exit 0 (it exited 2, which a
    script reads as a failure although the request stands)."""
    assert main(["director", "note", "hello", "--folder", str(tmp_path), "--wait", "0"]) == 0
    assert capsys.readouterr().out.startswith(f"posted: the table in {tmp_path} takes it")
    assert main(["director", "note", "again", "--folder", str(tmp_path), "--wait", "0",
                 "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["ok"] is None and answer["action"] == "note"
    requests = (tmp_path / INBOX_NAME).read_text().splitlines()
    assert [json.loads(line)["args"]["text"] for line in requests] == ["hello", "again"]


def test_a_refusal_is_in_the_commands_own_words(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The live log's "The director's set-position was refused: ..." is the command's
    "director set-position refused: ..." (it was echoed as the live log said it)."""
    thread = _answering_table(tmp_path, False, "The director's set-position was refused: "
                                               "position AAAAAAAAAAAAAA is no game under way")
    assert main(["director", "set-position", "4HPwATDgc/ABMA", "--folder", str(tmp_path)]) == 2
    thread.join()
    assert capsys.readouterr().err == ("hakem: director set-position refused: position "
                                       "AAAAAAAAAAAAAA is no game under way\n")


def test_the_live_log_names_a_refused_director_action_as_the_director_typed_it(
        tmp_path: Path) -> None:
    """A backgammon table's refusals, in the live log and in the answer: "The director's
    end-match was refused: ...", the command's own word (it said "Director action 'end_match'
    refused"); the command turns that into its error line (the test above)."""
    source = StartCamera(4)
    cfg = TableConfig(camera=CameraSection(source="test", corners=source.camera.corners_flat()),
                      clock=ClockSection(port="sim"),
                      journal=JournalSection(directory=str(tmp_path)))
    said = {
        post_request(tmp_path, "accept", {}, "td").id:
            "The director's accept was refused: no flagged move to accept",
        post_request(tmp_path, "end_match", {"winner": 5}, "td").id:
            "The director's end-match was refused: winner must be 0 or 1, not 5",
        post_request(tmp_path, "set_position", {"position_id": "4HPwATDgc/ABMA"}, "td").id:
            "The director's set-position was refused: the position can be set only during a "
            "game",
        post_request(tmp_path, "warn", {"player": "a"}, "td").id:
            "The director's warn was refused: warn is not an action at a backgammon table",
    }
    log = io.StringIO()
    run_table(cfg, source=source, pin_factory=MockFactory(), log=log)
    for rid, text in said.items():
        assert text in log.getvalue()
        answer = read_answer(tmp_path, rid)
        assert answer is not None and not answer["ok"] and answer["text"] == text
    assert "end_match" not in log.getvalue() and "set_position" not in log.getvalue()


@pytest.mark.parametrize(("game", "end", "said"), [
    ("backgammon", {"winner": 0, "score": [3, 0], "how": "played"},
     "the match in {folder} is over (won by lasse, score 3-0; journal entry 3): no table "
     "referees it any more"),
    ("mangala", {"winner": "b", "points": {"a": 0.0, "b": 1.0}, "how": "played"},
     "the round in {folder} is over (won by Mehmet (b), points a 0, b 1; journal entry 3): no "
     "table referees it any more"),
])
def test_a_finished_match_is_said_at_once_and_nothing_is_posted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str, end: dict[str, object],
        said: str) -> None:
    """End-to-end QA: a director's command at a table whose match had ended (the table has
    stopped) waited the whole --wait and then asked whether hakem run was running, as if the
    table were down; the journal says the match is over, which the command now says at once,
    posting nothing (no table will ever take it)."""
    players = ["lasse", "richbkgm1"] if game == "backgammon" else ["Ayşe", "Mehmet"]
    with Journal(tmp_path / "journal.jsonl") as journal:
        journal.append("match_start", players=players, length=3, game=game)
        journal.append("note", text="played")
        journal.append("match_end", **end)
    start = time.monotonic()
    assert main(["director", "note", "late", "--folder", str(tmp_path), "--wait", "5"]) == 2
    assert time.monotonic() - start < 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("hakem: director note refused: " + said.format(folder=tmp_path))
    assert not (tmp_path / INBOX_NAME).exists()


def test_a_match_under_way_or_a_journal_not_read_is_still_asked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only a journal that holds the match's end is refused before posting: one under way, or
    one the command cannot read (the table says what is wrong with it), is posted as before."""
    with Journal(tmp_path / "journal.jsonl") as journal:
        journal.append("match_start", players=["lasse", "richbkgm1"], length=3)
    assert main(["director", "note", "x", "--folder", str(tmp_path), "--wait", "0"]) == 0
    (tmp_path / "journal.jsonl").write_text("not json\n")
    assert main(["director", "note", "y", "--folder", str(tmp_path), "--wait", "0"]) == 0
    assert len((tmp_path / INBOX_NAME).read_text().splitlines()) == 2
