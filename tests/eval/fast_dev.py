"""Dev check of the fast die read's gates (``vision.dice.fast_read``, issue 5) on its dev block:
which dice each rule would take fast and how many of those it would read wrong.

Run ``.venv/bin/python -m tests.eval.fast_dev collect OUT.json [--random N] [--per-kind K]``
(random throws ``synth.random_dice_scene`` from 8,700,000; ``train_cocked``'s kinds 3-6, K
each, seeds from 8,701,000) then ``... report OUT.json``. ``collect`` keeps, for every raster
place whose first look calls a flat die past :data:`LOOSE_FIRST`, both looks and the pip grid
confirmation's read (``fast_read.grid_confirm``) about the first look's centre (the one-look
read); where the second look calls the same face past :data:`LOOSE_SECOND` within
``AGREE_MM``, also the face fit's read at the place and the pip grid's at the second look's
centre; the gates at each centre and the truth of the die nearest it; and per throw its places'
not-a-die probabilities (for the places left to the full reader). ``report`` applies each rule
(bars, confirmation) as ``fast_dice`` does, the gates and the one-die-per-reach check
included, and counts the dice it takes fast, the wrong ones by kind (pips, a cocked die
taken, on a checker, half, no die within 8 mm) and the places left to the full reader. The
dev block of issue 5's fast read: 1,000 random throws and 150 of each kind (~10 minutes a
core); every rule in :data:`RULES` read none wrong there.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.dice.candidates import READ_THRESHOLD, scored_raster_candidates
from vision.dice.face_fit import MIN_GRID_SCORE, read_candidate
from vision.dice.fast_read import (
    AGREE_MM,
    COCKED,
    NOT_DIE,
    fast_model,
    grid_confirm,
    look,
    near_a_line,
    within_lean_of_rail,
)
from vision.dice.on_checker import on_checker
from vision.dice.reading import image_to_mm
from vision.dice.synth import DiceScene, random_dice_scene
from vision.dice.train_cocked import training_scene

RANDOM_SEED0 = 8_700_000
KIND_SEED0 = 8_701_000
KINDS = (3, 4, 5, 6)
LOOSE_FIRST = 0.8
LOOSE_SECOND = 0.5


def dev_scenes(random: int, per_kind: int) -> Iterator[tuple[str, int, DiceScene]]:
    """The dev block's throws: (kind name, seed, scene)."""
    for seed in range(RANDOM_SEED0, RANDOM_SEED0 + random):
        yield "random", seed, random_dice_scene(seed)
    for kind in KINDS:
        for seed in range(KIND_SEED0, KIND_SEED0 + per_kind):
            yield f"kind{kind}", seed, training_scene(kind, seed)


def _gates(scene: DiceScene, image: np.ndarray, from_mm: np.ndarray, x: float, y: float
           ) -> dict[str, Any]:
    """The gates and the nearest die's truth at a centre (mm)."""
    g = scene.geometry
    near = min(scene.dice, key=lambda d: math.hypot(d.x_mm - x, d.y_mm - y), default=None)
    truth: dict[str, Any] = {"dist": 1e9}
    if near is not None:
        truth = {"dist": math.hypot(near.x_mm - x, near.y_mm - y), "pips": near.pips,
                 "flat": near.flat, "on_checker": near.on_checker, "half": near.half}
    return {"x": x, "y": y, "line": near_a_line(g, x, y), "lean": within_lean_of_rail(g, x, y),
            "on_checker": on_checker(image, from_mm, x, y, g), "half": g.half_at(x, y),
            "truth": truth}


def collect_scene(kind: str, seed: int, scene: DiceScene) -> dict[str, Any]:
    """One throw's records (module docstring)."""
    model = fast_model()
    assert model is not None
    g = scene.geometry
    image = scene.image
    to_mm = image_to_mm(scene.corners, g)
    from_mm = np.linalg.inv(to_mm)
    places = [(x, y) for x, y, _ in scored_raster_candidates(image, from_mm, g,
                                                               threshold=READ_THRESHOLD)]
    first = look(model, image, to_mm, places)
    again = [n for n, f in enumerate(first) if f.p_flat >= LOOSE_FIRST]
    second = look(model, image, to_mm, [(first[n].x_mm, first[n].y_mm) for n in again])
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    die = g.die_size_mm
    cands = []
    for n, s in zip(again, second, strict=True):
        f = first[n]
        px, py = places[n]
        # the one-look read (``fast_dice`` past the model's bar): the pip grid about the first
        # look's centre, kept whether or not the second look agrees
        one = grid_confirm(gray, from_mm, f.x_mm, f.y_mm, die, (px, py))
        rec: dict[str, Any] = {"n": n, "pips": f.flat_pips, "p1": f.p_flat, "p2": s.p_flat,
                               "p_cocked": float(s.probs[COCKED]), "sx": s.x_mm, "sy": s.y_mm,
                               "fx": f.x_mm, "fy": f.y_mm,
                               "one": {"value": one.value, "score": one.score,
                                       "contrast": one.contrast,
                                       **_gates(scene, image, from_mm, one.x_mm, one.y_mm)}}
        rec["second_ok"] = not (s.p_flat < LOOSE_SECOND or s.flat_pips != f.flat_pips
                                or math.hypot(s.x_mm - f.x_mm, s.y_mm - f.y_mm) > AGREE_MM)
        if not rec["second_ok"]:
            cands.append(rec)
            continue
        read = read_candidate(gray, from_mm, px, py, die)
        if read is not None:
            x, y = px + read.dx, py + read.dy
            rec["fit"] = {"value": read.value, "score": read.score, "contrast": read.contrast,
                          **_gates(scene, image, from_mm, x, y)}
        grid = grid_confirm(gray, from_mm, s.x_mm, s.y_mm, die, (px, py))
        rec["grid"] = {"value": grid.value, "score": grid.score, "contrast": grid.contrast,
                       **_gates(scene, image, from_mm, grid.x_mm, grid.y_mm)}
        rec["net"] = {"value": s.flat_pips, "score": 1.0, "contrast": 1.0,
                      **_gates(scene, image, from_mm, s.x_mm, s.y_mm)}
        cands.append(rec)
    return {"kind": kind, "seed": seed, "places": places,
            "not_die": [float(f.probs[NOT_DIE]) for f in first],
            "flat_dice": sum(d.flat for d in scene.dice), "cands": cands}


@dataclass(frozen=True)
class Rule:
    """A way to take dice fast: the looks' bars, the confirmation (``fit``: the face fit at
    the raster's place, main's before the pip grid; ``grid``: ``fast_read.grid_confirm``;
    ``net``: none, at the network's centre) and how near the network's centre its centre must
    lie."""

    name: str
    first: float = 0.98
    second: float = 0.9
    confirm: str = "fit"
    face_agree: float = 4.0
    # a first look past this is taken on the pip grid about its own centre, without a second
    # look (``fast_dice``: the model's bar); None: every die needs both looks
    one_look: float | None = None


def _confirmed(rule: Rule, c: dict[str, Any]) -> dict[str, Any] | None:
    """The confirmation's read of a candidate under a rule, or None when it fails: the one
    look's when the rule takes it, else the two looks' (the second past the rule's bar)."""
    if rule.one_look is not None and c["p1"] >= rule.one_look:
        read = _passed(c.get("one"), c, c["fx"], c["fy"], rule.face_agree)
        if read is not None:
            return read
    if not c.get("second_ok", True) or c["p2"] < rule.second:
        return None
    return _passed(c.get(rule.confirm), c, c["sx"], c["sy"], rule.face_agree)


def _passed(read: dict[str, Any] | None, c: dict[str, Any], x: float, y: float,
            face_agree: float) -> dict[str, Any] | None:
    """``read`` when it gives the looks' pips within ``face_agree`` mm of the look's centre
    (x, y) and passes the gates (lines, the rail's reach, the rim test), else None."""
    if read is None or read["score"] < MIN_GRID_SCORE or read["value"] != c["pips"]:
        return None
    if math.hypot(read["x"] - x, read["y"] - y) > face_agree:
        return None
    if read["line"] or read["lean"]:
        return None
    return None if read["on_checker"] else read


def apply_rule(rule: Rule, scenes: list[dict[str, Any]], drop: float
               ) -> tuple[int, dict[str, int], int, list[str]]:
    """Fast dice, their errors by kind, places left to the full reader, and the wrong ones."""
    fast, left = 0, 0
    errors = {"pips": 0, "cocked": 0, "on_checker": 0, "half": 0, "no_die": 0}
    wrong: list[str] = []
    for s in scenes:
        taken: list[tuple[float, float]] = []
        for c in sorted(s["cands"], key=lambda c: c["n"]):
            if c["p1"] < rule.first:
                continue
            read = _confirmed(rule, c)
            if read is None or any(math.hypot(read["x"] - x, read["y"] - y) < 16.0
                                   for x, y in taken):
                continue
            taken.append((read["x"], read["y"]))
            fast += 1
            t = read["truth"]
            kinds = []
            if t["dist"] > 8.0:
                kinds.append("no_die")
            else:
                kinds += [k for k, bad in (("pips", t["pips"] != c["pips"]),
                                           ("cocked", not t["flat"]),
                                           ("on_checker", t["on_checker"]),
                                           ("half", t["half"] != read["half"])) if bad]
            for k in kinds:
                errors[k] += 1
            if kinds:
                wrong.append(f"{s['kind']} {s['seed']} {kinds} p1={c['p1']:.4f} "
                             f"p2={c['p2']:.4f}")
        left += sum(1 for (x, y), nd in zip(s["places"], s["not_die"], strict=True)
                    if nd < drop and all(math.hypot(x - a, y - b) >= 16.0 * 0.7
                                         for a, b in taken))
    return fast, errors, left, wrong


RULES = (
    Rule("main (fit, 0.98/0.9)"),
    Rule("grid, 0.98/0.9", confirm="grid"),
    Rule("net alone, 0.99/0.99", first=0.99, second=0.99, confirm="net"),
    Rule("net alone, 0.995/0.995", first=0.995, second=0.995, confirm="net"),
    *(Rule(f"{how}, {bar}/0.9", first=bar, confirm=how)
      for bar in (0.97, 0.95, 0.93, 0.9) for how in ("fit", "grid")),
    Rule("grid, one look 0.98", first=0.98, second=2.0, confirm="grid", one_look=0.98),
    Rule("grid, one look 0.98, else 0.95/0.9", first=0.95, confirm="grid", one_look=0.98),
)


def report(path: Path, rules: tuple[Rule, ...] = RULES, show: Callable[[str], None] = print
           ) -> None:
    """Each rule's counts over the collected throws."""
    scenes = json.loads(path.read_text())
    model = fast_model()
    assert model is not None
    flat = sum(s["flat_dice"] for s in scenes)
    show(f"{len(scenes)} throws, {flat} flat dice")
    for rule in rules:
        fast, errors, left, wrong = apply_rule(rule, scenes, model.drop)
        show(f"{rule.name:32s} fast {fast:5d}  errors {errors}  places left {left}")
        for w in wrong:
            show(f"    {w}")


def main(argv: list[str]) -> int:
    """Collect or report (module docstring)."""
    parser = argparse.ArgumentParser(prog="tests.eval.fast_dev")
    parser.add_argument("what", choices=("collect", "report"))
    parser.add_argument("path", type=Path)
    parser.add_argument("--random", type=int, default=1000)
    parser.add_argument("--per-kind", type=int, default=150)
    parser.add_argument("--skip", type=int, default=0, help="throws to skip (to split a run)")
    parser.add_argument("--count", type=int, default=10**9, help="throws to collect")
    args = parser.parse_args(argv)
    if args.what == "report":
        report(args.path)
        return 0
    out = []
    t0 = time.time()
    for i, (kind, seed, scene) in enumerate(dev_scenes(args.random, args.per_kind)):
        if i < args.skip:
            continue
        if i >= args.skip + args.count:
            break
        out.append(collect_scene(kind, seed, scene))
        if len(out) % 50 == 0:
            print(f"{len(out)} throws, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    args.path.write_text(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
