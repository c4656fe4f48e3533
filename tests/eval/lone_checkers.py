"""How surely the board reader sees a lone checker: the evidence the referee needs to call a
move illegal that leaves a stray checker on a point (engine-in-the-loop recognition).

Run ``.venv/bin/python -m tests.eval.lone_checkers [--seeds N] [--seed0 S] [--off-axis MM]``:
for every plain colour scheme (``vision.render.scene.SCHEMES``, marbled ones left out) and N
seeds, a board with a lone checker at both ends of each row and on both sides of the bar (the
other checkers borne off), read by ``vision.board_reader.read_board``. Prints per scheme and
over all: lone checkers counted right, the evidence for "one" against "empty" in nats (log P(1)
/ P(0): the referee calls a move illegal on a point only from
``RecognitionSettings.illegal_margin`` nats, 4.0 by default), its lowest and median, how many
fall short of the margin, and which slots those are. ``--off-axis MM`` lays every checker MM
off its point's axis, alternately left and right (a hurried hand; the renderer's own jitter is
at most 1 mm). Found with match 9311372 of the referee's draws: a lone checker read at 2.78
nats turned an illegal move into "cannot read the board".
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, field

from controller.referee.config import RecognitionSettings
from vision.board_reader import read_board
from vision.render import BoardContents, SceneSpec, render_scene
from vision.render.scene import SCHEMES, CameraSpec

LONE = (0, 5, 6, 11, 12, 17, 18, 23)  # both ends of every row and both sides of the bar
SEED0 = 0


def lone_board() -> tuple[tuple[tuple[int, int], ...], BoardContents]:
    """The slots' truth and the board: the lone checkers alternate in colour, the other
    checkers are borne off."""
    slots = [(0, 0)] * 24
    for k, slot in enumerate(LONE):
        slots[slot] = (1, 0) if k % 2 else (0, 1)
    off = 15 - len(LONE) // 2
    return tuple(slots), BoardContents(tuple(slots), (0, 0), (off, off))


@dataclass
class Tally:
    """Lone checkers of one scheme (or all): counted right, and the evidence for each."""

    right: int = 0
    total: int = 0
    nats: list[float] = field(default_factory=list)
    short: Counter[int] = field(default_factory=Counter)  # slot: checkers read below the margin

    def add(self, slot: int, right: bool, nats: float, margin: float) -> None:
        self.right += right
        self.total += 1
        self.nats.append(nats)
        if nats < margin:
            self.short[slot] += 1

    def line(self, title: str, margin: float) -> str:
        if not self.total:
            return f"{title:22s} no lone checkers"
        short = sum(self.short.values())
        where = ", ".join(f"slot {s}: {n}" for s, n in sorted(self.short.items()))
        median = statistics.median(self.nats)
        return (f"{title:22s} counted right {self.right}/{self.total}; evidence for one against "
                f"empty: lowest {min(self.nats):.2f} nats, median {median:.2f}; below {margin:g} "
                f"nats: {short}/{self.total}" + (f" ({where})" if where else ""))


def evaluate(seeds: int, seed0: int = SEED0, off_axis_mm: float = 0.0) -> dict[str, Tally]:
    """Per scheme name, and "all"."""
    margin = RecognitionSettings().illegal_margin
    truth, contents = lone_board()
    out: dict[str, Tally] = {"all": Tally()}
    for scheme in (s for s in SCHEMES if not s.marbled):
        tally = out.setdefault(scheme.name, Tally())
        for seed in range(seed0, seed0 + seeds):
            frame = render_scene(SceneSpec(contents, scheme, CameraSpec(jpeg_quality=90),
                                           seed=seed, off_axis_mm=off_axis_mm))
            reading = read_board(frame.image, corners=frame.corners)
            counts = reading.slot_counts()
            for slot in LONE:
                probs = reading.slots[slot].count_probs
                nats = math.log(max(float(probs[1]), 1e-12) / max(float(probs[0]), 1e-12))
                right = counts[slot] == truth[slot]
                tally.add(slot, right, nats, margin)
                out["all"].add(slot, right, nats, margin)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10, help="boards per colour scheme")
    parser.add_argument("--seed0", type=int, default=SEED0)
    parser.add_argument("--off-axis", type=float, default=0.0, metavar="MM",
                        help="checkers laid this far off their point's axis")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error(f"--seeds {args.seeds}: at least 1")
    if not 0.0 <= args.off_axis <= 10.0:
        parser.error(f"--off-axis {args.off_axis:g}: between 0 and 10 mm")
    margin = RecognitionSettings().illegal_margin
    results = evaluate(args.seeds, args.seed0, args.off_axis)
    for name, tally in results.items():
        if name != "all":
            print(tally.line(name, margin))
    print(results["all"].line("all", margin))
    return 0


if __name__ == "__main__":
    sys.exit(main())
