"""Benchmark: the dice and cube pass against the board reading it rides on (issue 5).

Run ``.venv/bin/python -m tests.bench.dice [--frames N] [--repeat R] [--spots]``: N synthetic
1280x720 throws (board, checkers, two dice, the cube; ``vision.dice.synth`` seeds from 50,000),
each read R times, interleaved, as CPU time of this (single) thread with one OpenCV thread (as
``tests.bench.vision``), so other processes on a busy machine count as little as they can:

- board: ``vision.board_reader.read_board`` with the corners given and the dice pass off
  (calibration from the corners, warp to the reading raster, checkers, bar, occlusion);
- dice: ``vision.dice.board_pass.read_frame_dice`` on the prepared frame (raster candidates,
  face, pose, on-checker: ``vision.dice.board.read_board_dice``);
- cube: the cube half of the pass on the same frame (``board_pass.read_frame_cube``);
- with ``--spots``, for comparison, the dice with the older whole-frame spot candidates;
- with ``--stages``, each frame's dice read once more through ``tests.bench.stages``: the
  mean per frame of each stage of the die reader (candidates, face fit, face check and pose
  features, second chances, networks, on-checker, the rest), apart from the figures above;
  with ``--recording`` as well, the same for a second dice memory reading its frames.

Prints the median per frame of each, and (dice + cube) / board: the issue's target is at most
0.30 (the pass adds at most 30% to a board reading). Each frame is read once untimed first
(warp tables are kept per camera pose, as on the table, where the camera does not move).
These are the FRESH figures: a frame read from nothing.

Then the STREAM figures (``--streams S --steps N --rereads R``; 0 streams skips them): what
a table pays frame after frame, where the dice and the cube are read again only where the
picture changed (``vision.dice.reuse``: ``DiceMemory``, ``CubeMemory``, timed through
``controller.runtime.view``'s ``FrameReader``, which keeps them). S synthetic table streams of
N events (:func:`table_stream`: the demo's camera and dice; each event one of a throw, the
same numbers thrown again, a cocked throw, a die nudged (BG-MOVE-8), the dice picked up, a
hand over the board, a checker moved, the cube moved, or nothing), each scene read R + 1
times (the pipeline reads a still scene again every second), each stream twice: without live
noise (a scene shown again is the very same picture, as in the demo) and with live camera
noise new on every frame. With ``--recording DIR``, the still frames of a ``hakem demo``
recording (the stillness gate's still frames, each distinct picture once: the demo names its
pictures, so the pipeline never reads the same one twice; every such frame differs from the
last somewhere). Each frame, timed as above: board reading, dice with reuse, cube with reuse;
printed as median and mean per frame with (dice + cube) / board, how many frames were
unchanged / read in part / read whole, and, reading every frame fresh as well (untimed),
"frames where reuse != fresh" (the same dice: pips, flat, on a checker, half, centres within
``SAME_MM``, confidence within ``SAME_CONFIDENCE``; the cube's value and zone), next to how
often the fresh reader itself changed its reading of a scene read again under other noise
(its own flicker, which the memory does not repeat). Without live noise, the frames where the
dice differ only where the picture changed, since the memory last read there, by a shift of
a hair (the demo lays every checker again a few mm aside when one moves, and draws the dice
lying still again; the memory sees no change there, the fresh reader reads a die there or
not) are counted apart. Per stream also how the cube memory took each frame (a cube lying
still taken again, no cube and nothing of a cube's size changed, searched in the changed
parts, searched whole) and, on the synthetic streams, how often the cube lying on the case
is read right with and without the memory. The fresh cube figure searches every frame.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.demo import players as pl
from controller.demo.camera import DemoCamera, Shot, contents_from_counts
from controller.table_layout import DEFAULT_LAYOUT
from engine.backgammon.position import Position
from engine.errors import ImageError
from tests.bench.stages import STAGES, StageClock
from vision.board_reader import prepare, read_board
from vision.calibration import locate_board
from vision.cube import CubeProp, CubeReading, cube_place
from vision.dice import board_pass
from vision.dice.board import read_board_dice
from vision.dice.board_die import BoardDie
from vision.dice.change_map import change_mask
from vision.dice.reading import image_to_mm
from vision.dice.reuse import DiceMemory
from vision.dice.synth import random_dice_scene
from vision.geometry import BoardGeometry
from vision.render.scene import BoardContents

TARGET = 0.30
SAME_MM = 3.0  # half the referee's ``dice_moved``: a die this close lies where it lay
SAME_CONFIDENCE = 0.05
LIVE_NOISE = 2.0  # grey-level sigma of a live camera's noise, new every frame
EVENTS = ("throw", "same", "cocked", "nudge", "pickup", "hand", "checker", "cube", "still",
          "still")


def _thread_ms(fn: Callable[[], Any]) -> float:
    t = time.thread_time()
    fn()
    return 1000.0 * (time.thread_time() - t)


def _cube_reader() -> Callable[[Any], Any]:
    """The cube half of the pass (``read_frame_cube``; before it existed, the same calls),
    searching every frame afresh (a cube found before is not taken again)."""
    reader = getattr(board_pass, "read_frame_cube", None)
    if reader is not None:
        return functools.partial(reader, reuse=False)
    from vision.cube_strips import find_cube_on_strips

    def read(frame: Any) -> Any:
        g = frame.calibration.geometry
        from_mm = board_pass._from_mm(frame.calibration.corners, g)
        strips = [*board_pass.cube_strips(frame, from_mm), board_pass.bar_strip(frame)]
        return find_cube_on_strips(strips, frame.image, from_mm, g)

    return read


def measure(frames: int, repeat: int, spots: bool = False,
            stages: StageClock | None = None) -> dict[str, float]:
    """Median per frame (ms, thread CPU time) of board, dice, cube (and spot-candidate dice);
    with ``stages``, each frame's dice are read once more through it (the die reader's
    stages, see ``tests.bench.stages``), apart from the figures."""
    cv2.setNumThreads(1)
    cube_reader = _cube_reader()
    per: dict[str, list[float]] = {"board": [], "dice": [], "cube": [], "spots": []}
    for seed in range(50_000, 50_000 + frames):
        scene = random_dice_scene(seed)
        try:
            calibration = locate_board(scene.image, scene.geometry, scene.corners)
        except ImageError:  # a corner just outside the picture: not a usable frame
            continue
        image, corners = scene.image, np.asarray(scene.corners, np.float32).reshape(4, 2)
        frame = prepare(image, calibration)
        to_mm = image_to_mm(corners, scene.geometry)
        read_board(image, corners=corners, dice=False)  # warm-up: warp tables, models
        board_pass.read_frame_dice(frame)
        cube_reader(frame)
        runs: dict[str, list[float]] = {k: [] for k in per}
        calls: list[tuple[str, Callable[[], Any]]] = [
            ("board", functools.partial(read_board, image, corners=corners, dice=False)),
            ("dice", functools.partial(board_pass.read_frame_dice, frame)),
            ("cube", functools.partial(cube_reader, frame)),
        ]
        if spots:
            calls.append(("spots", functools.partial(read_board_dice, image, to_mm,
                                                     scene.geometry, spots=True)))
        for _ in range(repeat):
            for key, fn in calls:
                runs[key].append(_thread_ms(fn))
        for k, v in runs.items():
            if v:
                per[k].append(statistics.median(v))
        if stages is not None:
            with stages:
                stages.run(functools.partial(board_pass.read_frame_dice, frame))
    return {k: statistics.median(v) for k, v in per.items() if v}


def aside_cube(geometry: BoardGeometry) -> CubeProp:
    """The stream's undoubled cube: beside the board at its middle edge, where the demo laid
    its centred cube before it lay on the bar, so that the stream (and the digests of
    ``tests.bench.digest``) read the same pictures as before."""
    return CubeProp(geometry.outer_rect.x0 - 30.0, geometry.height_mm / 2, 64, yaw_deg=3.0,
                    size_mm=pl.CUBE_MM)


def table_stream(seed: int, steps: int, camera: DemoCamera, noise: float = LIVE_NOISE,
                 noise_seed: int | None = None, rereads: int = 0,
                 cubes: list[CubeProp] | None = None) -> Iterator[tuple[str, np.ndarray]]:
    """Still frames of one table, one event each (see the module docstring): (event, picture),
    each scene read ``rereads`` more times (the pipeline reads a still scene again every
    second). ``noise`` adds a live camera's noise, new every frame (0: the demo's fixed
    pattern, so a scene shown again is the very same picture). ``cubes`` is given the cube
    each frame shows, before the frame."""
    rng = random.Random(seed)
    noisy = np.random.default_rng(seed if noise_seed is None else noise_seed)
    g = camera.geometry
    c = DEFAULT_LAYOUT.counts(Position.initial())
    contents = contents_from_counts(c.slots, c.bar, c.off)
    player = 0
    dice = pl.thrown_dice(g, player, (rng.randint(1, 6), rng.randint(1, 6)), rng)
    cube = aside_cube(g)
    for _ in range(steps):
        kind = rng.choice(EVENTS)
        hands: tuple[Any, ...] = ()
        if kind == "throw" or (kind == "same" and not dice):
            player = 1 - player
            dice = pl.thrown_dice(g, player, (rng.randint(1, 6), rng.randint(1, 6)), rng)
        elif kind == "same":  # picked up and thrown again to the same numbers
            dice = pl.thrown_dice(g, player, (dice[0].value, dice[-1].value), rng)
        elif kind == "cocked":
            dice = pl.thrown_dice(g, player, (rng.randint(1, 6), rng.randint(1, 6)), rng,
                                  invalid="cocked", contents=contents)
        elif kind == "nudge" and dice:
            i = rng.randrange(len(dice))
            d = dice[i]
            moved = dataclasses.replace(d, x_mm=d.x_mm + rng.uniform(-6, 6),
                                        y_mm=d.y_mm + rng.uniform(-6, 6),
                                        yaw_deg=d.yaw_deg + rng.uniform(-20, 20))
            dice = (*dice[:i], moved, *dice[i + 1:])
        elif kind == "pickup":
            dice = ()
        elif kind == "hand":
            target = ((dice[0].x_mm, dice[0].y_mm) if dice
                      else (rng.uniform(0, g.width_mm), g.height_mm / 2))
            hands = (pl.hand(g, player, target, rng),)
        elif kind == "checker":  # a checker moved, often beside a die
            slots = [list(s) for s in contents.slots]
            i = rng.choice([i for i, s in enumerate(slots) if sum(s) > 0])
            colour = 0 if slots[i][0] > 0 else 1
            j = rng.choice([j for j, s in enumerate(slots)
                            if s[1 - colour] == 0 and j != i and sum(s) < 5])
            slots[i][colour] -= 1
            slots[j][colour] += 1
            contents = BoardContents(tuple((a, b) for a, b in slots), contents.bar, contents.off)
        elif kind == "cube":
            cube = rng.choice([aside_cube(g), pl.offered_cube(g, player, 2),
                               pl.owned_cube(g, player, rng.choice([2, 4, 8]))])
        shown, _ = camera.render(Shot(contents, dice, cube, hands))
        for again in range(rereads + 1):
            image = shown
            if noise > 0:
                image = np.clip(shown.astype(np.float32)
                                + noisy.normal(0.0, noise, shown.shape), 0, 255).astype(np.uint8)
            if cubes is not None:
                cubes.append(cube)
            yield (kind if again == 0 else "reread"), image


def same_dice(a: list[BoardDie], b: list[BoardDie]) -> bool:
    """The same dice as the referee sees them (see the module docstring)."""
    return len(a) == len(b) and all(
        x.pips == y.pips and x.flat == y.flat and x.on_checker == y.on_checker
        and x.half == y.half and abs(x.confidence - y.confidence) <= SAME_CONFIDENCE
        and math.hypot(x.centre_mm[0] - y.centre_mm[0], x.centre_mm[1] - y.centre_mm[1])
        <= SAME_MM for x, y in zip(a, b, strict=True))


def same_cube(a: CubeReading | None, b: CubeReading | None) -> bool:
    """The same cube value and place."""
    if a is None or b is None:
        return a is b
    return a.value == b.value and a.zone == b.zone


def recording_frames(folder: Path) -> Iterator[tuple[str, np.ndarray]]:
    """The still frames of a ``hakem demo`` recording as the table's stillness gate passes
    them, each distinct picture once."""
    from controller.runtime.recording import Recording
    from vision.config import DEFAULT_CONFIG
    from vision.stillness import StillnessGate

    recording = Recording(folder)
    gate = StillnessGate(DEFAULT_CONFIG.stillness)
    last = None
    for step in recording.steps():
        if step.frame is None:
            continue
        image, _ = recording.frame(step.frame)
        if gate.update(image) and step.frame != last:
            last = step.frame
            yield "recorded", image


def _into(out: list[Any], fn: Callable[..., Any], *args: Any) -> None:
    out.append(fn(*args))


def _cube_right(seen: CubeReading | None, truth: CubeProp, geometry: Any) -> bool:
    """The cube read with the value and at the place it has."""
    return (seen is not None and seen.value == truth.value
            and seen.place == cube_place(geometry, truth.x_mm, truth.y_mm))


def measure_stream(frames: Iterable[tuple[str, np.ndarray]], corners: np.ndarray,
                   check: bool = True, shown: list[CubeProp] | None = None,
                   exact: bool = True, stages: StageClock | None = None) -> dict[str, Any]:
    """Per-frame thread CPU ms of board, dice with reuse, cube with reuse (the table's
    ``FrameReader``: its ``DiceMemory`` and its cube reading); how the memory read each frame;
    frames where reuse != fresh (when ``check``: a second reader with reuse off). ``shown``:
    the cube each frame shows (``table_stream`` fills it), to count how often each reading
    of the cube is right where it lies on the case (the cube beside it, BG-CUBE-1's place in
    the demo, lies outside the rasters the reader looks at). ``exact``: a scene shown again
    is the very same picture (no live noise), so a frame where the dice differ can be told to
    differ only where checkers were laid again a hair aside (:func:`_aside`). With
    ``stages``, a second dice memory reads every frame through it, apart from the figures."""
    from controller.runtime.view import FrameReader

    cv2.setNumThreads(1)
    flat = [float(v) for v in corners.reshape(-1)]
    reader, fresh_reader = FrameReader(corners=flat), FrameReader(corners=flat, reuse=False)
    out: dict[str, Any] = {"board": [], "dice": [], "cube": [], "differ": 0, "cube_differ": 0,
                           "frames": 0, "kinds": {}, "events": [], "flicker": 0,
                           "differ_flicker": 0, "cube_flicker": 0, "cube_differ_flicker": 0,
                           "cube_shown": 0, "cube_right": 0, "cube_right_fresh": 0,
                           "cube_kinds": {}, "differ_aside": 0}
    before: list[BoardDie] | None = None
    cube_before: CubeReading | None = None
    aside: np.ndarray | None = None
    staged = DiceMemory() if stages is not None else None
    for kind, image in frames:
        calibration = reader._calibrate(image)
        fresh_reader._calibrate(image)
        if not out["frames"]:
            read_board(image, corners=corners, dice=False)  # warm-up: tables, models
        g = calibration.geometry
        memory = reader.dice_memory
        out["board"].append(_thread_ms(functools.partial(read_board, image, corners=corners,
                                                         dice=False)))
        found: list[list[BoardDie]] = []
        ref_before = None if memory._reference is None else memory._reference.copy()
        out["dice"].append(_thread_ms(functools.partial(_into, found, memory.read, image,
                                                        corners, g)))
        aside = _aside(aside, ref_before, memory) if exact else None
        if stages is not None and staged is not None:
            with stages:
                stages.run(functools.partial(staged.read, image, corners, g))
        cubes: list[CubeReading | None] = []
        was = dataclasses.asdict(reader.cube_memory.stats)
        out["cube"].append(_thread_ms(functools.partial(
            _into, cubes, reader._cube, image, calibration,
            reader._change_raster(image, with_dice=True))))
        out["frames"] += 1
        out["kinds"][memory.stats.last] = out["kinds"].get(memory.stats.last, 0) + 1
        now = dataclasses.asdict(reader.cube_memory.stats)
        for how in ("still", "none_kept", "parts", "whole"):
            if now[how] != was[how]:
                out["cube_kinds"][how] = out["cube_kinds"].get(how, 0) + 1
        if check:
            fresh = read_board_dice(image, image_to_mm(corners, g), g)
            differ = not same_dice(found[0], fresh)
            # the same scene read again, under other noise: does the fresh reader itself change?
            flicker = kind == "reread" and before is not None and not same_dice(fresh, before)
            before = fresh
            out["flicker"] += flicker
            out["differ_flicker"] += differ and flicker
            out["differ"] += differ
            fresh_cube = fresh_reader._cube(image, calibration)
            cube_differ = not same_cube(cubes[0], fresh_cube)
            truth = shown[out["frames"] - 1] if shown is not None else None
            if truth is not None and g.outer_rect.contains(truth.x_mm, truth.y_mm):
                out["cube_shown"] += 1
                out["cube_right"] += _cube_right(cubes[0], truth, g)
                out["cube_right_fresh"] += _cube_right(fresh_cube, truth, g)
            cube_flicker = kind == "reread" and not same_cube(fresh_cube, cube_before)
            cube_before = fresh_cube
            out["cube_differ"] += cube_differ
            out["cube_flicker"] += cube_flicker
            out["cube_differ_flicker"] += cube_differ and cube_flicker
            if differ:
                out["events"].append((out["frames"] - 1, kind, memory.stats.last))
                out["differ_aside"] += _only_aside(found[0], fresh, memory, aside)
    return out


def _aside(acc: np.ndarray | None, ref: np.ndarray | None, memory: DiceMemory
           ) -> np.ndarray | None:
    """Where the picture changed, since the memory last read there, only by shifts of a hair
    (changed pixel by pixel, not beyond what its neighbours showed, ``change_mask``): the
    last frame's such places and this frame's, but where the memory reads again."""
    if ref is None or memory.raster is None or memory.stats.last == "full":
        return None
    now = memory.raster[1]
    strict = change_mask(now, ref, np.ones(now.shape, bool))
    kept = change_mask(now, ref)
    if strict is None or kept is None:
        return None
    grown = cv2.dilate(kept.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    out: np.ndarray = ((strict & ~kept) if acc is None else (acc | (strict & ~kept))) & ~grown
    return out


def _only_aside(reused: list[BoardDie], fresh: list[BoardDie], memory: DiceMemory,
                aside: np.ndarray | None) -> bool:
    """Every die read otherwise with and without reuse lies where the picture changed, since
    the memory last read there, only by a shift of a hair (:func:`_aside`): a checker laid
    again a few mm aside, under which the fresh reader reads a die or not."""
    if aside is None or memory.raster is None:
        return False
    canonical = memory.raster[0]
    odd = ([d for d in reused if not any(same_dice([d], [f]) for f in fresh)]
           + [f for f in fresh if not any(same_dice([d], [f]) for d in reused)])
    reach = _die_reach(canonical)
    for d in odd:
        u, v = (round(c) for c in canonical.mm_to_px(*d.centre_mm))
        box = (slice(max(0, v - reach), v + reach + 1), slice(max(0, u - reach), u + reach + 1))
        if not aside[box].any():
            return False
    return bool(odd)


def _die_reach(canonical: Any) -> int:
    """Change-map pixels about a die's centre its reading looks at (a die's size)."""
    return max(1, round(canonical.geometry.die_size_mm * canonical.px_per_mm))


def _print_stream(title: str, m: dict[str, Any]) -> None:
    board, dice, cube = (np.array(m[k]) for k in ("board", "dice", "cube"))
    print(f"{title}: {m['frames']} still frames, dice read as {m['kinds']}, the cube as "
          f"{m['cube_kinds']}")
    for name, fn in (("median", np.median), ("mean", np.mean)):
        b, d, c = float(fn(board)), float(fn(dice)), float(fn(cube))
        print(f"  {name:6s} per frame: board {b:6.2f} ms, dice with reuse {d:6.2f} ms, cube "
              f"with reuse {c:5.2f} ms: (dice + cube) / board {(d + c) / b:.2f} "
              f"(target at most {TARGET:.2f})")
    print(f"  frames where reuse != fresh: {m['differ']} (dice), {m['cube_differ']} (cube)")
    if m["cube_shown"]:
        print(f"  the cube lying on the case: read right (value and place) on {m['cube_right']} "
              f"frames with reuse, {m['cube_right_fresh']} fresh, of {m['cube_shown']}")
    if m["differ_aside"]:
        print(f"  {m['differ_aside']} of the frames where the dice differ differ only by dice "
              f"where the picture changed by a shift of a hair (checkers laid again a few mm "
              f"aside; the memory reads no change there, the fresh reader reads dice or none)")
    if m["flicker"]:
        print(f"  the fresh reader itself changed its reading of an unchanged scene (other "
              f"noise) on {m['flicker']} rereads; {m['differ_flicker']} of the frames where "
              f"reuse != fresh are among them")
    if m["cube_flicker"]:
        print(f"  the fresh cube reader changed its reading of an unchanged scene on "
              f"{m['cube_flicker']} rereads; {m['cube_differ_flicker']} of the frames where the "
              f"cube with reuse != fresh are among them")
    if m["events"]:
        print(f"  dice differ at (frame, event, read as): {m['events']}")


def main(argv: list[str]) -> int:
    """Time the readers and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--spots", action="store_true",
                        help="also time the dice with the whole-frame spot candidates")
    parser.add_argument("--streams", type=int, default=2, help="synthetic table streams")
    parser.add_argument("--steps", type=int, default=40, help="events per stream")
    parser.add_argument("--rereads", type=int, default=2,
                        help="reads of each still scene after its first (one a second)")
    parser.add_argument("--recording", type=Path, help="a hakem demo recording folder")
    parser.add_argument("--stages", action="store_true",
                        help="also where a read of the fresh frames' (and the recording's) "
                             "dice spends its time")
    args = parser.parse_args(argv)
    clock = StageClock() if args.stages else None
    m = measure(args.frames, args.repeat, args.spots, clock) if args.frames > 0 else {}
    if m:
        _print_fresh(m, args.frames, args.repeat)
    if clock is not None and clock.reads:
        _print_stages(clock, "the fresh frames read once more")
    camera = DemoCamera(seed=0)
    corners = np.asarray(camera.corners, np.float32).reshape(4, 2)
    for seed in range(args.streams):
        for noise in (0.0, LIVE_NOISE):
            shown: list[CubeProp] = []
            frames = table_stream(seed, args.steps, camera, noise=noise, rereads=args.rereads,
                                  cubes=shown)
            what = (f"live noise sigma {noise:g}" if noise else
                    "no live noise: a scene shown again is the same picture")
            _print_stream(f"stream {seed} (synthetic table, {what}; {args.steps} events, each "
                          f"scene read {args.rereads + 1} times)",
                          measure_stream(frames, corners, shown=shown, exact=noise == 0))
    if args.recording is not None:
        from controller.runtime.recording import Recording

        meta = Recording(args.recording).meta.get("config", {}).get("camera", {})
        if meta.get("corners"):
            corners = np.asarray(meta["corners"], np.float32).reshape(4, 2)
        clock = StageClock() if args.stages else None
        _print_stream(f"recording {args.recording}",
                      measure_stream(recording_frames(args.recording), corners, stages=clock))
        if clock is not None and clock.reads:
            _print_stages(clock, "the recording's frames read by a second dice memory")
    return 0


def _print_fresh(m: dict[str, float], frames: int, repeat: int) -> None:
    ratio = (m["dice"] + m["cube"]) / m["board"]
    print(f"fresh frames: {frames} synthetic 1280x720 throws, {repeat} reads each "
          f"(median per frame, CPU time of one thread)")
    print(f"  board reading, dice pass off : {m['board']:7.2f} ms")
    print(f"  dice                         : {m['dice']:7.2f} ms")
    print(f"  cube                         : {m['cube']:7.2f} ms")
    if "spots" in m:
        print(f"  dice, spot candidates        : {m['spots']:7.2f} ms")
    print(f"(dice + cube) / board: {ratio:.2f} (dice {m['dice'] / m['board']:.2f}, cube "
          f"{m['cube'] / m['board']:.2f}); target at most {TARGET:.2f}: "
          f"{'within' if ratio <= TARGET else 'OUTSIDE'}")


def _print_stages(clock: StageClock, what: str) -> None:
    total = max(clock.total, 1e-9)
    print(f"the dice read by stage ({clock.reads} frames: {what}; each stage's own time, mean "
          f"ms per frame and share):")
    for name in STAGES:
        ms = clock.ms[name]
        print(f"  {name:28s}: {ms / clock.reads:7.2f} ms  {100 * ms / total:5.1f}%")
    print(f"  {'rest':28s}: {clock.rest / clock.reads:7.2f} ms  {100 * clock.rest / total:5.1f}%")
    print(f"  {'total':28s}: {clock.total / clock.reads:7.2f} ms")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
