"""Evaluation of dice and cube vision: synthetic throws and the real dice photographs.

Run ``.venv/bin/python -m tests.eval.dice [--synthetic N] [--seed0 S] [--reader R]
[--beside N] [--photos DIR | --no-photos] [--errors]``.

Synthetic (``vision.dice.synth``: the board renderer's scenes with dice and cube props, seeds
from ``--seed0``, disjoint from the models' training seeds; ``--reader pass``, the default:
read by the board's dice and cube pass, ``vision.dice.board_pass``, on the board reader's
prepared frame; ``hybrid``: the dice alone by ``board.read_board_dice``, which that pass runs;
``spots``: the same with the older whole-frame spot candidates, for comparison): dice found,
pips right (of every die found, cocked ones included; opaque and translucent separately; and
of the flat dice alone, the faces a referee plays: a cocked die's throw is made again,
BG-ROLL-2, though its face is reported and recorded), cocked dice caught (of the
cocked dice found, and ``cocked_of_all``: of every cocked die in the scenes, found or not) and
flat dice called cocked, half and on-checker right, cube found, value and place right
(``pass`` only), cubes reported where there is none, extra dice reported.
The ``table_`` figures (``pass`` only) count the dice a table's referee gets
(:func:`table_read`): its dice memory reads the board at the press (the scene rendered without
its dice, :func:`before_throw`) and then the throw's picture; the frame reader keeps what it
keeps (it drops a die read less surely than the camera section's ``die_floor``, or
``cocked_floor`` for one read cocked, as a reflection), and a die lying where one lay at the
press is no part of the throw; after the one thorough read (raster and whole-frame pip spots,
keeping no die where the picture did not change since the press) the table makes when the
referee cannot judge the dice kept as a throw (``table_thorough``: how often): dice found and
kept, cocked dice caught and kept (of every cocked die), extra dice kept; of the throws of two
dice, those the referee judges (a roll or "throw again", ``table_judged``; the rest wait for the
director), and of those with a cocked die, the ones it counts as a valid roll
(``table_cocked_passed``: the silent misses; a die read off the board or in the other half, or
on a checker, makes the throw invalid as well), and of the valid throws (both dice flat in one
half, on no checker), the ones it calls invalid (``table_valid_flagged``: false "throw again").
``--errors`` lists every found die read wrong (pips, or flat against cocked): seed, true and read
pips, read flat, style (index in
``synth.DICE_STYLES``), material, flat and tilt, on a checker, the reader's confidence, place
on the board; every die not found (the same, and the region it lies in); and (``pass``) the
throws the table leaves to the director, counted by why (which thrown die was not kept, by its
pose and place, or how many dice were kept that were not thrown), with their seeds, and the
seeds of its false "throw again" and silent misses, with the dice it kept.
Beside (``--beside``, seeds from :data:`BESIDE_SEED0`): the random throws keep their flat dice
clear of checkers, so that their "flat dice called cocked" says nothing of a flat die that
lands against one; these throws have a die 0.5 to 5 mm from a checker or the rail, or cocked
against it (every other throw), read by the pass with the board reading's supports.
Photos (``../shared/data/dice_photos``, Train and Valid): dice found and found dice read right,
with a detection matched to a labelled box by IoU >= 0.5, >= 0.3, >= 0.2, and by mutual centre
containment (the labels' boxes for a one are drawn tight around the pip on some photos and
around the whole face on others, so IoU alone under-counts finds).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from controller.config.table import CameraSection
from controller.referee.api import DieSeen
from controller.referee.config import RecognitionSettings
from controller.referee.dice_places import Sig, signature, unmatched
from controller.runtime.view import table_dice
from tests.conftest import SHARED_DATA
from tests.eval.dice_photos import match
from vision.board_reader import prepare, read_prepared
from vision.calibration import Calibration
from vision.cube import CubeReading
from vision.dice.board import read_board_dice
from vision.dice.board_die import PLAYING, BoardDie
from vision.dice.board_pass import read_frame
from vision.dice.detect import find_dice
from vision.dice.leaning import beside_checker_scene
from vision.dice.reading import image_to_mm, settle_dice_and_cube
from vision.dice.render import DieProp
from vision.dice.reuse import DiceMemory
from vision.dice.synth import DICE_STYLES, DiceScene, DieTruth, random_dice_scene
from vision.dice.train import read_labels
from vision.render import draw_canvas
from vision.render.camera import camera_model, jpeg_round_trip, photograph
from vision.throw import landing_problems

SHARED = SHARED_DATA / "dice_photos"  # ../shared, or HAKEM_SHARED


def _ratio(a: int, b: int) -> str:
    return f"{a}/{b} = {100.0 * a / b:.2f}%" if b else f"{a}/0"


READERS = ("pass", "spots", "hybrid")


@dataclass(frozen=True)
class Misread:
    """A found die read wrong on a synthetic throw (its pips, or flat against cocked): what
    it was, what was read, and its look and pose (style: index in ``synth.DICE_STYLES``; tilt
    in degrees, 0 when flat)."""

    seed: int
    truth: int
    read: int
    style: int
    material: str
    flat: bool
    tilt: float
    on_checker: bool
    confidence: float
    x_mm: float
    y_mm: float
    read_flat: bool

    def line(self) -> str:
        """One line of ``--errors``."""
        return (f"  seed {self.seed:7d}  truth {self.truth}  read {self.read}  "
                f"style {self.style} ({self.material:11s})  flat {self.flat!s:5s}  "
                f"read flat {self.read_flat!s:5s}  tilt {self.tilt:4.1f}  "
                f"on_checker {self.on_checker!s:5s}  "
                f"confidence {self.confidence:.3f}  at ({self.x_mm:.0f}, {self.y_mm:.0f}) mm")


@dataclass(frozen=True)
class Unfound:
    """A die thrown on a synthetic throw that the reader did not find (within 10 mm): what it
    was and where (region: ``BoardGeometry.region_at``'s kind)."""

    seed: int
    truth: int
    style: int
    material: str
    flat: bool
    tilt: float
    on_checker: bool
    x_mm: float
    y_mm: float
    region: str

    def line(self) -> str:
        """One line of ``--errors``."""
        return (f"  seed {self.seed:7d}  truth {self.truth}  style {self.style} "
                f"({self.material:11s})  flat {self.flat!s:5s}  tilt {self.tilt:4.1f}  "
                f"on_checker {self.on_checker!s:5s}  at ({self.x_mm:.0f}, {self.y_mm:.0f}) mm "
                f"({self.region})")


@dataclass
class TableFaults:
    """What ``--errors`` lists of the table's figures: the throws of two dice the referee left
    to the director, counted by why (a die thrown not kept, by its pose and place; dice kept
    that were not thrown), and the seeds of its false "throw again" and silent misses."""

    unjudged: Counter[str] = field(default_factory=Counter)
    unjudged_seeds: dict[str, list[int]] = field(default_factory=dict)
    valid_flagged: list[str] = field(default_factory=list)
    cocked_passed: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The listing, a line each."""
        out = [f"throws left to the director: {sum(self.unjudged.values())}"]
        for why, n in self.unjudged.most_common():
            seeds = " ".join(str(s) for s in self.unjudged_seeds[why][:12])
            more = " ..." if n > 12 else ""
            out.append(f"  {n:4d}  {why}: {seeds}{more}")
        out.append(f"valid throws called invalid: {len(self.valid_flagged)}")
        out.extend(self.valid_flagged)
        out.append(f"cocked throws counted valid: {len(self.cocked_passed)}")
        out.extend(self.cocked_passed)
        return out

    def add(self, seed: int, table: list[BoardDie], why: str | None, fault: str | None) -> None:
        """One throw of two dice: left to the director for ``why`` (:func:`_unjudged_reason`;
        None: judged), judged wrong where ``fault`` names the figure it counts in
        (:func:`_judgement`)."""
        kept = ", ".join(f"{d.pips} {'flat' if d.flat else 'cocked'} {d.confidence:.2f} at "
                         f"({d.centre_mm[0]:.0f}, {d.centre_mm[1]:.0f})" for d in table)
        if why is not None:
            self.unjudged[why] += 1
            self.unjudged_seeds.setdefault(why, []).append(seed)
        elif fault == "table_cocked_passed":
            self.cocked_passed.append(f"  seed {seed:7d}  kept: {kept}")
        elif fault == "table_valid_flagged":
            self.valid_flagged.append(f"  seed {seed:7d}  kept: {kept}")


def _judgement(scene: DiceScene, table: list[BoardDie], judged: bool) -> tuple[str | None, bool]:
    """Which judgement figure a throw of two dice counts in, and whether the table got it
    wrong: ``table_cocked_passed`` for a throw with a cocked die (wrong: counted as a valid
    roll, a silent miss), ``table_valid_flagged`` for a valid throw (wrong: "throw again", a
    false alarm), None for any other throw."""
    if not all(t.flat for t in scene.dice):
        return "table_cocked_passed", judged and _valid_roll(table)
    if _truly_valid(scene):
        return "table_valid_flagged", judged and not _valid_roll(table)
    return None, False


def _unjudged_reason(scene: DiceScene, table: list[BoardDie]) -> str:
    """Why the referee could not judge a throw: each die thrown but not kept (flat or cocked,
    on a checker, off the playing surface), extra dice kept, or neither."""
    pairs, extra = _pairs(scene.dice, table)
    g = scene.geometry
    parts = []
    for truth, d in pairs:
        if d is None:
            where = g.region_at(truth.x_mm, truth.y_mm).kind
            parts.append(("flat" if truth.flat else "cocked")
                         + (" on a checker" if truth.on_checker else "")
                         + ("" if where in PLAYING else f" ({where})"))
    why = "not kept: " + ", ".join(sorted(parts)) if parts else ""
    if extra:
        why += ("; " if why else "") + f"{extra} extra"
    return why or "both kept, in doubt"


def _die_prop(scene: DiceScene, truth: DieTruth) -> DieProp | None:
    """The renderer's prop behind a die's truth (same place), for its style and tilt."""
    if scene.frame is None:
        return None
    for prop in scene.frame.spec.props:
        if isinstance(prop, DieProp) and math.hypot(prop.x_mm - truth.x_mm,
                                                    prop.y_mm - truth.y_mm) < 1e-6:
            return prop
    return None


def _look(scene: DiceScene, truth: DieTruth) -> tuple[int, float]:
    """A thrown die's style (:func:`_style`) and tilt in degrees (nan when its prop is not
    known), for the ``--errors`` listings."""
    prop = _die_prop(scene, truth)
    return _style(prop), prop.tilt_deg if prop else math.nan


def _style(prop: DieProp | None) -> int:
    """The index of a prop's look in ``DICE_STYLES`` (-1 when it is none of them)."""
    if prop is None:
        return -1
    for i, (material, body, pip) in enumerate(DICE_STYLES):
        if (material, body, pip) == (prop.material, prop.body_bgr, prop.pip_bgr):
            return i
    return -1


def synthetic(n: int, seed0: int, reader: str = "pass",
              errors: list[Misread] | None = None, unfound: list[Unfound] | None = None,
              table_faults: TableFaults | None = None) -> dict[str, tuple[int, int]]:
    """Counters (hits, total) over ``n`` synthetic throws. ``reader``: ``pass`` (the board
    pass with the cube, ``board_pass.read_frame``), ``spots`` or ``hybrid`` (the dice alone,
    ``board.read_board_dice`` with spot or raster candidates; no cube figures). Every found die
    read wrong is appended to ``errors``, every die not found to ``unfound``, and the table's
    unjudged throws and wrong judgements counted in ``table_faults`` (``pass``), when given."""
    c: dict[str, list[int]] = {k: [0, 0] for k in (
        "found", "pips", "pips_opaque", "pips_translucent", "pips_flat", "cocked_caught",
        "cocked_of_all", "flat_called_cocked", "half", "on_checker", "cube_found",
        "cube_value", "cube_place", "cube_phantom", "extra_dice", "table_found",
        "table_cocked_of_all", "table_extra_dice", "table_thorough", "table_judged",
        "table_cocked_passed", "table_valid_flagged")}
    camera, recognition = CameraSection(), RecognitionSettings()
    t_read = 0.0
    for seed in range(seed0, seed0 + n):
        scene = random_dice_scene(seed)
        cal = Calibration(np.asarray(scene.corners, np.float32).reshape(4, 2), "corners",
                          scene.geometry)
        slots = None
        if reader == "pass":
            frame = prepare(scene.image, cal)  # as the board reader does, once per frame
            slots = read_prepared(frame, dice=False).slot_counts()  # what a die can lean on
            t = time.perf_counter()
            found = read_frame(frame)  # the pass hakem vision read runs
            t_read += time.perf_counter() - t
            cube = found.cube
            dice = read_frame(frame, slot_counts=slots).dice
        else:
            to_mm = image_to_mm(scene.corners, scene.geometry)
            t = time.perf_counter()
            dice = read_board_dice(scene.image, to_mm, scene.geometry,
                                   spots=reader == "spots")
            t_read += time.perf_counter() - t
            cube = None
        pairs, extra = _pairs(scene.dice, dice)
        for truth, d in pairs:
            c["found"][1] += 1
            c["cocked_of_all"][1] += not truth.flat
            if d is None:
                if unfound is not None:
                    style, tilt = _look(scene, truth)
                    unfound.append(Unfound(
                        seed, truth.pips, style, truth.material, truth.flat, tilt,
                        truth.on_checker, truth.x_mm, truth.y_mm,
                        scene.geometry.region_at(truth.x_mm, truth.y_mm).kind))
                continue
            c["found"][0] += 1
            for key in ("pips", f"pips_{truth.material}", *(("pips_flat",) if truth.flat else ())):
                c[key][0] += d.pips == truth.pips
                c[key][1] += 1
            if errors is not None and (d.pips != truth.pips or d.flat != truth.flat):
                style, tilt = _look(scene, truth)
                errors.append(Misread(seed, truth.pips, d.pips, style, truth.material,
                                      truth.flat, tilt, truth.on_checker, d.confidence,
                                      truth.x_mm, truth.y_mm, d.flat))
            if truth.flat:
                c["flat_called_cocked"][0] += not d.flat
                c["flat_called_cocked"][1] += 1
            else:
                c["cocked_caught"][0] += not d.flat
                c["cocked_caught"][1] += 1
                c["cocked_of_all"][0] += not d.flat
            c["half"][0] += d.half == truth.half
            c["half"][1] += 1
            c["on_checker"][0] += d.on_checker == truth.on_checker
            c["on_checker"][1] += 1
        c["extra_dice"][0] += extra
        c["extra_dice"][1] += 1
        if reader != "pass":
            continue
        c["table_thorough"][1] += 1
        kept, thorough = table_read(scene, cube, slots, camera, recognition)
        c["table_thorough"][0] += thorough
        _count_table(c, scene, kept)
        if len(scene.dice) == 2:  # a throw: judged (a roll or "throw again"), or left unjudged
            judged = recognition.judgeable(kept)
            c["table_judged"][0] += judged
            c["table_judged"][1] += 1
            key, wrong = _judgement(scene, kept, judged)
            if key is not None:
                c[key][0] += wrong
                c[key][1] += 1
            if table_faults is not None:
                table_faults.add(seed, kept, None if judged else _unjudged_reason(scene, kept),
                                 key if wrong else None)
        if scene.cube is None:
            c["cube_phantom"][0] += cube is not None
            c["cube_phantom"][1] += 1
        else:
            c["cube_found"][1] += 1
            if cube is not None:
                c["cube_found"][0] += 1
                c["cube_value"][0] += cube.value == scene.cube.value
                c["cube_value"][1] += 1
                c["cube_place"][0] += cube.place == scene.cube.place
                c["cube_place"][1] += 1
    print(f"synthetic ({reader}): {n} throws, reading {1000.0 * t_read / max(n, 1):.1f} ms/frame")
    return {k: (v[0], v[1]) for k, v in c.items()}


BESIDE_SEED0 = 2_900_000  # beside-a-checker throws apart from the cocked model's training


def beside(n: int, seed0: int = BESIDE_SEED0) -> dict[str, tuple[int, int]]:
    """Counters (hits, total) over ``n`` throws with a die beside a checker or the rail
    (``vision.dice.leaning.beside_checker_scene``: every other one cocked against it, the rest
    flat 0.5 to 5 mm from it; the random throws keep their flat dice clear of checkers), read
    as ``hakem vision read`` reads them (the pass, with the board reading's supports): that
    die found, and called cocked when cocked (``beside_cocked_caught``) or when flat
    (``beside_flat_called_cocked``)."""
    c = {k: [0, 0] for k in ("beside_found", "beside_cocked_caught", "beside_flat_called_cocked")}
    for seed in range(seed0, seed0 + n):
        scene = beside_checker_scene(seed, cocked=seed % 2 == 0)
        cal = Calibration(np.asarray(scene.corners, np.float32).reshape(4, 2), "corners",
                          scene.geometry)
        frame = prepare(scene.image, cal)
        slots = read_prepared(frame, dice=False).slot_counts()
        truth = scene.dice[1]  # the die beside the checker or the rail
        pairs, _ = _pairs([truth], read_frame(frame, slot_counts=slots).dice)
        near = pairs[0][1]
        c["beside_found"][0] += near is not None
        c["beside_found"][1] += 1
        if near is None:
            continue
        key = "beside_flat_called_cocked" if truth.flat else "beside_cocked_caught"
        c[key][0] += not near.flat
        c[key][1] += 1
    return {k: (v[0], v[1]) for k, v in c.items()}


def _pairs(truths: Sequence[DieTruth], dice: Sequence[BoardDie]
           ) -> tuple[list[tuple[DieTruth, BoardDie | None]], int]:
    """Each die thrown with the die read within 10 mm of it (or None), each reading used once,
    and how many readings are left over (extra dice)."""
    used: set[int] = set()
    pairs: list[tuple[DieTruth, BoardDie | None]] = []
    for truth in truths:
        near = [i for i, d in enumerate(dice) if i not in used and math.hypot(
            d.centre_mm[0] - truth.x_mm, d.centre_mm[1] - truth.y_mm) < 10.0]
        if near:
            used.add(near[0])
        pairs.append((truth, dice[near[0]] if near else None))
    return pairs, len(dice) - len(used)


def table_read(scene: DiceScene, cube: CubeReading | None,
               slots: list[tuple[int, int] | None] | None, camera: CameraSection,
               recognition: RecognitionSettings) -> tuple[list[BoardDie], bool]:
    """The dice of a throw as a table's referee gets them, and whether the table read the frame
    thoroughly. Its dice memory (``vision.dice.reuse.DiceMemory``) reads the board at the
    press before the throw (:func:`before_throw`), then the throw's frame where it changed;
    when the referee cannot judge the dice kept as a throw (``RecognitionSettings.judgeable``:
    ``Referee.throw_unsure``), it reads the frame again thoroughly, keeping no die where the
    picture did not change since the press. Each time the frame reader keeps what
    ``controller.runtime.view.table_dice`` keeps, and a die lying where one lay at the press
    is no part of the throw (the referee's ``dice_places.unmatched``, within ``dice_moved``).
    The referee's last resort, two dice read surely among more, is not taken here."""
    g = scene.geometry
    corners = np.asarray(scene.corners, np.float32).reshape(4, 2)
    cube_mm = None if cube is None else cube.centre_mm
    memory = DiceMemory()

    def kept(image: np.ndarray) -> list[BoardDie]:
        dice, _ = settle_dice_and_cube(memory.read(image, corners, g), cube, g)
        return table_dice(dice, g, slots, cube_mm, camera.die_floor, camera.cocked_floor)

    memory.read_before_throw()
    stale = signature([_seen(d) for d in kept(before_throw(scene))])
    fresh = _thrown(kept(scene.image), stale, recognition)
    if recognition.judgeable(fresh):
        return fresh, False
    memory.read_thoroughly(recognition.flat_doubt)
    return _thrown(kept(scene.image), stale, recognition), True


def before_throw(scene: DiceScene) -> np.ndarray:
    """The picture of a synthetic throw's board before the dice landed: its scene rendered
    without the dice and photographed with the very noise of the throw's picture (the dice are
    the last props drawn, so the board's random details come out the same)."""
    spec = scene.frame.spec if scene.frame is not None else None
    if spec is None:
        raise ValueError("a synthetic throw without its rendered frame has no board before it")
    rng = np.random.default_rng(spec.seed)
    draw_canvas(spec, rng)  # the throw's canvas: the camera's noise is drawn after it
    board = dataclasses.replace(spec, props=tuple(p for p in spec.props
                                                  if not isinstance(p, DieProp)))
    canvas, canonical, _ = draw_canvas(board, np.random.default_rng(spec.seed))
    photo = photograph(canvas, camera_model(canonical, spec.camera), spec.camera, rng)
    image, _ = jpeg_round_trip(photo, spec.camera.jpeg_quality)
    return image


def _seen(die: BoardDie) -> DieSeen:
    """A die as the referee's frame event gives it (what its dice places compare)."""
    half: Literal["left", "right", "off-board"] = (
        "left" if die.half == "left" else "right" if die.half == "right" else "off-board")
    return DieSeen(pips=die.pips, half=half, flat=die.flat,
                   on_checker=die.on_checker, confidence=die.confidence,
                   centre=(round(die.centre_mm[0], 1), round(die.centre_mm[1], 1)),
                   p_cocked=die.p_cocked)


def _thrown(dice: list[BoardDie], stale: Sig, recognition: RecognitionSettings
            ) -> list[BoardDie]:
    """The dice of ``dice`` that are not one lying where it lay at the press."""
    seen = [_seen(d) for d in dice]
    fresh = unmatched(seen, stale, recognition.dice_moved)
    return [d for d, s in zip(dice, seen, strict=True) if any(s is f for f in fresh)]


def _valid_roll(dice: list[BoardDie]) -> bool:
    """Whether the referee counts these dice as a valid roll (``vision.throw``'s landing check
    finds nothing wrong) for a thrower whose right half they lie in: a die read off the board,
    the dice read in both halves, on a checker or cocked make any throw invalid."""
    halves = {d.half for d in dice}
    if len(halves) != 1 or None in halves:
        return False
    return not landing_problems([d.sighting() for d in dice], halves.pop())  # type: ignore[arg-type]


def _truly_valid(scene: DiceScene) -> bool:
    """Whether a synthetic throw of two dice is valid (BG-ROLL-2): both flat, on no checker,
    in one half of the playing surface (taken as the thrower's right half)."""
    halves = {t.half for t in scene.dice}
    return (len(scene.dice) == 2 and len(halves) == 1 and None not in halves
            and all(t.flat and not t.on_checker for t in scene.dice))


def _count_table(c: dict[str, list[int]], scene: DiceScene, dice: list[BoardDie]) -> None:
    """The ``table_`` counters: dice found and kept, cocked dice caught, extra dice."""
    pairs, extra = _pairs(scene.dice, dice)
    for truth, d in pairs:
        c["table_found"][1] += 1
        c["table_cocked_of_all"][1] += not truth.flat
        if d is not None:
            c["table_found"][0] += 1
            c["table_cocked_of_all"][0] += not truth.flat and not d.flat
    c["table_extra_dice"][0] += extra
    c["table_extra_dice"][1] += 1


def photos(split_dir: Path, face_px: float | None = None) -> dict[str, tuple[int, int, int]]:
    """Per matching rule: (labelled dice, found, found and read right). ``face_px``: each
    photo first shrunk (never enlarged) so that its labelled faces are about that many pixels
    across, as a camera over a whole board sees dice (a 16 mm die at 1.1 px/mm: ~18 px)."""
    rules: dict[str, list[int]] = {k: [0, 0, 0] for k in ("iou>=0.5", "iou>=0.3", "iou>=0.2",
                                                            "centre")}
    for path in sorted(split_dir.glob("*.jpg")):
        image = cv2.imread(str(path))
        if image is None:
            continue
        labels = read_labels(path, image.shape[1], image.shape[0])
        if face_px is not None and labels:
            side = float(np.median([max(b[2] - b[0], b[3] - b[1]) for _, b in labels]))
            scale = min(1.0, face_px / side)
            if scale < 1.0:
                image = cv2.resize(image, None, fx=scale, fy=scale,
                                   interpolation=cv2.INTER_AREA)
                labels = [(pips, tuple(v * scale for v in box)) for pips, box in labels]
        found = find_dice(image)
        for rule, counts in rules.items():
            for (pips, _), best in zip(labels, match(rule, labels, found), strict=True):
                counts[0] += 1
                if best is not None:
                    counts[1] += 1
                    counts[2] += found[best].pips == pips
    return {k: (v[0], v[1], v[2]) for k, v in rules.items()}


def main(argv: list[str]) -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=int, default=200, help="synthetic throws")
    parser.add_argument("--seed0", type=int, default=0)
    parser.add_argument("--photos", type=Path, default=SHARED)
    parser.add_argument("--reader", choices=READERS, default="pass",
                        help="synthetic: the board pass (with the cube), or read_board_dice "
                             "with spot or raster candidates")
    parser.add_argument("--beside", type=int, default=200,
                        help="throws with a die beside a checker or the rail (0: none)")
    parser.add_argument("--no-photos", action="store_true", help="skip the photographs")
    parser.add_argument("--face-px", type=float, default=None, metavar="PX",
                        help="photographs: shrink each so its dice faces are about PX pixels "
                             "across (a camera over a whole board: ~18)")
    parser.add_argument("--errors", action="store_true",
                        help="synthetic: list every found die read wrong, pips or flat/cocked "
                             "(seed, truth, read, style, flat, tilt, on checker, "
                             "confidence), every die not found, and (pass) the throws the "
                             "table left to the director, by why, and its wrong judgements")
    args = parser.parse_args(argv)
    print(f"dice styles in the synthetic set: {len(DICE_STYLES)}")
    if args.synthetic > 0:
        errors: list[Misread] | None = [] if args.errors else None
        unfound: list[Unfound] | None = [] if args.errors else None
        faults = TableFaults() if args.errors and args.reader == "pass" else None
        figures = synthetic(args.synthetic, args.seed0, args.reader, errors, unfound, faults)
        for key, (hit, total) in figures.items():
            if key in ("extra_dice", "table_extra_dice"):
                print(f"  {key:20s} {hit} over {total} throws")
            elif key == "cube_phantom":
                print(f"  {key:20s} {hit} cubes reported over {total} throws without one")
            else:
                print(f"  {key:20s} {_ratio(hit, total)}")
        if errors is not None:
            print(f"misread dice (pips or flat/cocked): {len(errors)}")
            for e in errors:
                print(e.line())
        if unfound is not None:
            print(f"dice not found: {len(unfound)}")
            for u in unfound:
                print(u.line())
        if faults is not None:
            print("\n".join(faults.lines()))
    if args.beside > 0:
        print(f"beside a checker or the rail: {args.beside} throws from {BESIDE_SEED0}")
        for key, (hit, total) in beside(args.beside).items():
            print(f"  {key:25s} {_ratio(hit, total)}")
    if args.no_photos:
        pass
    elif args.photos.exists():
        for split in ("Train", "Valid"):
            t = time.perf_counter()
            result = photos(args.photos / split, args.face_px)
            n_img = len(list((args.photos / split).glob("*.jpg")))
            ms = 1000.0 * (time.perf_counter() - t) / max(n_img, 1)
            scaled = f", faces ~{args.face_px:g} px" if args.face_px else ""
            print(f"photos {split} ({n_img} images{scaled}, {ms:.1f} ms/image):")
            for rule, (total, found, right) in result.items():
                print(f"  match {rule:9s} found {_ratio(found, total)}, "
                      f"read right {_ratio(right, found)}")
    else:
        print(f"photos: {args.photos} not found, skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
