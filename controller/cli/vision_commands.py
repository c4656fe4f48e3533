"""``hakem vision ...``: board readers here, dice readers in ``vision_dice_commands``.

``read`` (the board in photos, DESIGN.md's JSON), ``markers`` (a printable sheet of the four
ArUco markers), ``render`` (a synthetic photo of a Position ID), ``calibrate`` (an annotated
picture of what the camera set-up shows, for a director on a headless Pi).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from controller.cli import vision_dice_commands, vision_stones_commands
from controller.cli.common import (
    CommandError,
    add_command,
    add_group,
    each_image,
    emit_json,
    non_negative_int,
    refuse_clobbering,
    wants_json,
    write_output,
)
from controller.table_layout import TableLayout
from engine.errors import ImageError
from vision.board_reader import BoardReading, read_board, start_colours, with_colours
from vision.calibration import Calibration, detect_markers, locate_board, parse_corners
from vision.config import DEFAULT_CONFIG, VisionConfig, load_vision_config
from vision.dice.scale import face_px, too_small
from vision.geometry import Canonical
from vision.imageio import load_image
from vision.markers import marker_sheet
from vision.overlay import annotate
from vision.render import SCHEMES, SceneSpec, random_camera, random_hand, render_scene
from vision.render.scene import BoardContents

# File name endings each command writes (OpenCV encodes these; a sheet is printed, so a
# lossless one first). render writes its own JPEG bytes, or PNG.
PICTURE_FORMATS = (".png", ".jpg", ".jpeg", ".bmp")
SHEET_FORMATS = (".png", ".bmp", ".tif", ".tiff", ".jpg", ".jpeg")
RENDER_FORMATS = (".jpg", ".jpeg", ".png")
MIN_DPI, MAX_DPI = 72, 1200
CORNERS_HELP = "playing-surface corners x,y,x,y,x,y,x,y (TL TR BR BL), in pixels"
CONFIG_HELP = ("table configuration (TOML): its [vision] table; the board's corners from "
               "[vision] corners, else [camera] corners, unless --corners is given")
# How the board was located when no corners were given, by a calibration's source.
_LOCATED = {"found": "outline"}


def register(subparsers: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``hakem vision`` and its subcommands."""
    vision = add_group(subparsers, "vision", "read boards, dice and stones in photos")
    vision_dice_commands.register(vision, parents)
    vision_stones_commands.register(vision, parents)

    p = add_command(vision, "read", parents,
                    "the board in photos: checkers per slot, bar, off, dice and cube")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--corners", help=CORNERS_HELP)
    p.add_argument("--config", help=CONFIG_HELP)
    p.set_defaults(func=_read)

    p = add_command(vision, "markers", parents, "write a printable sheet of the four markers")
    p.add_argument("--out", default="hakem-markers.png",
                   help=f"image file to write ({_kinds(SHEET_FORMATS)}; default "
                   "%(default)s in the current folder)")
    p.add_argument("--dpi", type=int, default=300,
                   help=f"printer resolution, {MIN_DPI}..{MAX_DPI} (default %(default)s)")
    p.add_argument("--config", help="table configuration (marker size; default: the built-in "
                   "vision settings' marker size)")
    p.set_defaults(func=_markers)

    p = add_command(vision, "render", parents, "a synthetic photo of a position")
    p.add_argument("position", metavar="POSITION_ID")
    p.add_argument("--out", required=True, help="JPEG (or PNG) file to write")
    p.add_argument("--seed", type=non_negative_int, default=0,
                   help="seed of the random camera and light (and arm, with --hand), 0 or "
                   "more: the same seed gives the same picture (default %(default)s)")
    p.add_argument("--scheme", choices=[s.name for s in SCHEMES], default=SCHEMES[0].name,
                   help="colours of the board and checkers (default %(default)s)")
    p.add_argument("--hard", action="store_true", help="glare, shadows, distortion, noise")
    p.add_argument("--hand", action="store_true", help="an arm over the board")
    p.add_argument("--markers", action="store_true", help="draw the four ArUco markers")
    p.add_argument("--first-colour", choices=["darker", "lighter"], default="darker",
                   help="colour of the player on roll (who sits at the bottom; default "
                   "%(default)s)")
    p.set_defaults(func=_render)

    p = add_command(vision, "calibrate", parents,
                    "find the board and write an annotated picture to check the set-up")
    p.add_argument("image", metavar="IMAGE")
    p.add_argument("--out", required=True,
                   help=f"annotated picture to write ({_kinds(PICTURE_FORMATS)})")
    p.add_argument("--corners", help=CORNERS_HELP)
    p.add_argument("--config", help=CONFIG_HELP)
    p.set_defaults(func=_calibrate)


def _config(args: argparse.Namespace) -> VisionConfig:
    path = getattr(args, "config", None)
    return load_vision_config(path) if path else DEFAULT_CONFIG


def _corners(args: argparse.Namespace) -> np.ndarray | None:
    text = getattr(args, "corners", None)
    return None if text is None else parse_corners(text)


def _given_corners(args: argparse.Namespace, config: VisionConfig
                   ) -> tuple[np.ndarray | None, str | None]:
    """The corners to locate the board by, and where they come from: ``--corners``, else the
    configuration's ``[vision] corners``, else its table's ``[camera] corners`` (what ``hakem
    run`` uses, so a table's set-up is checked with its own file); (None, None): none given,
    the board is found by its markers or its outline."""
    corners = _corners(args)
    if corners is not None:
        return corners, "--corners"
    path = getattr(args, "config", None)
    if config.corners is not None:
        return np.array(config.corners, dtype=np.float32).reshape(4, 2), \
            f"[vision] corners of {path}"
    if path:
        from controller.config.table import load_table_config

        table = load_table_config(path)
        if table.camera.corners:
            return np.array(table.camera.corners, dtype=np.float32).reshape(4, 2), \
                f"[camera] corners of {path}"
    return None, None


def _kinds(formats: tuple[str, ...]) -> str:
    """The file name endings allowed, for help texts and messages."""
    return ", ".join(formats)


def _out_path(path: str, formats: tuple[str, ...]) -> Path:
    """Where to write, refused when its ending names a format not written here (a sheet
    saved as "m.pdf" must not be a PNG under a PDF's name) or its folder is missing."""
    out = Path(path)
    if out.suffix.lower() not in formats:
        kind = out.suffix or "a file without an ending"
        raise CommandError(f"--out {path}: cannot write {kind}; the file name must end in "
                           f"{_kinds(formats)}")
    if out.parent and not out.parent.exists():
        raise CommandError(f"directory {out.parent} does not exist")
    return out


def _write_image(path: str, img: np.ndarray, formats: tuple[str, ...] = PICTURE_FORMATS) -> None:
    """Encode ``img`` in the format its file name ends in, and write it."""
    out = _out_path(path, formats)
    ok, buf = cv2.imencode(out.suffix.lower(), img)
    if not ok:
        raise CommandError(f"opencv cannot encode {path} as {out.suffix.lower()}")
    write_output(str(out), buf.tobytes())


def _summary(reading: BoardReading) -> str:
    """Human-readable reading: slots as darker/lighter counts, '?' where hidden."""
    parts = []
    for i, c in enumerate(reading.slot_counts()):
        if c is None:
            parts.append(f"{i}:?")
        elif c != (0, 0):
            parts.append(f"{i}:{'D' if c[0] else 'L'}{c[0] or c[1]}")
    bar = "?" if reading.bar.hidden else f"{reading.bar.counts[0]}/{reading.bar.counts[1]}"
    off = reading.off()
    off_text = "?" if off is None else f"{off[0]}/{off[1]}"
    occ = " occluded" if reading.occluded else ""
    return (f"{reading.image}: {' '.join(parts) or 'empty'}; bar {bar}; off {off_text}; "
            f"{_dice_and_cube(reading)}; confidence {reading.confidence:.3f}{occ}")


def _dice_and_cube(reading: BoardReading) -> str:
    """The dice and the cube as read ("dice 5 (0.97), 3 (cocked, 0.88); cube 2 (centre)"):
    what a director looks for in a flag's snapshot, each die with its confidence (a low one
    from a single photo may be a misreading)."""
    dice = []
    for die in reading.dice:
        how = []
        if not die.get("flat", True):
            how.append("cocked")
        if die.get("on_checker"):
            how.append("on a checker")
        if die.get("confidence") is not None:
            how.append(f"{float(die['confidence']):.2f}")
        dice.append(str(die.get("pips")) + (f" ({', '.join(how)})" if how else ""))
    dice_text = "dice " + ", ".join(dice) if dice else "no dice"
    cube = reading.cube
    cube_text = "no cube" if cube is None else f"cube {cube.get('value')} ({cube.get('zone')})"
    return f"{dice_text}; {cube_text}"


def _read(args: argparse.Namespace) -> int:
    config = _config(args)
    corners, given = _given_corners(args, config)
    learn = config.checkers.darker_bgr is None or config.checkers.lighter_bgr is None

    def read(path: str) -> None:
        nonlocal config, learn
        img = load_image(path)
        # corners, else the markers, else the board found from its own edges
        calibration = locate_board(img, config.geometry, corners, config.finder)
        reading = read_board(img, config=config, name=path, calibration=calibration)
        if learn:
            # checker colours not configured: learned from the first picture of the starting
            # position (BG-EQ-3), then used for the pictures after it
            colours = start_colours(reading)
            if colours is not None:
                config = with_colours(config, colours)
                learn = False
        located = given or _LOCATED.get(calibration.source, calibration.source)
        if wants_json(args):
            emit_json({**reading.to_json(), "corners_from": located})
        else:
            print(_summary(reading))
            if given is not None and given != "--corners":
                print(f"{reading.image}: the board located by the {given}")
            for warning in reading.warnings():
                print(f"{reading.image}: {warning}")

    return each_image(args, read)


def _markers(args: argparse.Namespace) -> int:
    config = _config(args)
    if not MIN_DPI <= args.dpi <= MAX_DPI:
        raise CommandError(f"--dpi {args.dpi} is not in {MIN_DPI}..{MAX_DPI}")
    _out_path(args.out, SHEET_FORMATS)  # before the sheet is drawn
    sheet = marker_sheet(config.geometry, dpi=args.dpi)
    _write_image(args.out, sheet, SHEET_FORMATS)
    info = {"out": args.out, "ids": [0, 1, 2, 3], "size_mm": config.geometry.marker_size_mm,
            "dictionary": "DICT_4X4_50", "dpi": args.dpi}
    if wants_json(args):
        emit_json(info)
    else:
        print(f"wrote {args.out}: markers 0..3 (4x4), {config.geometry.marker_size_mm:g} mm, "
              f"print at {args.dpi} dpi without scaling")
    return 0


def _render(args: argparse.Namespace) -> int:
    out = _out_path(args.out, RENDER_FORMATS)
    layout = TableLayout(first_colour=args.first_colour)
    counts = layout.counts_from_id(args.position)
    contents = BoardContents(counts.slots, counts.bar, counts.off)
    rng = np.random.default_rng(args.seed)
    scheme = next(s for s in SCHEMES if s.name == args.scheme)
    spec = SceneSpec(contents, scheme, random_camera(rng, hard=args.hard))
    if args.hand:
        spec.hands = (random_hand(rng, spec.geometry),)
    spec.markers = args.markers
    spec.darker_at_bottom = args.first_colour == "darker"
    spec.seed = args.seed
    frame = render_scene(spec)
    if out.suffix.lower() in (".jpg", ".jpeg"):
        write_output(str(out), frame.jpeg)
    else:
        _write_image(args.out, frame.image, RENDER_FORMATS)
    info = {
        "out": args.out,
        "position": args.position,
        "corners": [round(v, 1) for v in frame.corners_flat],
        "slots": [list(s) for s in contents.slots],
        "bar": list(contents.bar),
        "off": list(contents.off),
        "hidden_slots": list(frame.hidden_slots),
    }
    if wants_json(args):
        emit_json(info)
    else:
        corners = ",".join(f"{v:.1f}" for v in frame.corners_flat)
        # "--corners=" form: a first corner with a negative x would read as an option
        print(f"wrote {args.out}; read it with: hakem vision read {args.out} --corners={corners}")
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    config = _config(args)
    _out_path(args.out, PICTURE_FORMATS)  # before the picture is read
    refuse_clobbering([("picture", args.image)], [("--out", args.out)])  # a flag's snapshot...
    img = load_image(args.image)
    corners, given = _given_corners(args, config)
    found = detect_markers(img)
    calibration: Calibration = locate_board(img, config.geometry, corners, config.finder)
    reading = read_board(img, config=config, name=args.image, calibration=calibration)
    picture = annotate(img, reading, found)
    _write_image(args.out, picture)
    info = {
        "image": args.image,
        "out": args.out,
        "source": calibration.source,
        "corners_from": given or _LOCATED.get(calibration.source, calibration.source),
        "markers_found": sorted(found),
        "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in calibration.corners],
        "occluded": reading.occluded,
        "checkers_seen": [sum(c[0] for c in reading.slot_counts() if c) + reading.bar.counts[0],
                          sum(c[1] for c in reading.slot_counts() if c)
                          + reading.bar.counts[1]],
    }
    unit = Canonical(config.geometry, 1.0, (0.0, 0.0))
    px = face_px(np.linalg.inv(unit.homography_from_image(calibration.corners)), config.geometry)
    info["dice_face_px"] = round(px, 1)  # a die's face, where the board is seen smallest
    warning = too_small(px)
    if warning is not None:
        info["warnings"] = [warning]
    if wants_json(args):
        emit_json(info)
    else:
        print(_calibration_text(info))
    return 0


def _calibration_text(info: dict[str, Any]) -> str:
    """``calibrate``'s account for people: where the board was found, the corners as the line
    a table's configuration takes, what was seen, and how large a die's face is."""
    how = info["corners_from"]
    how = how if how == "--corners" else f"the {how}"
    markers = ", ".join(str(m) for m in info["markers_found"]) or "none"
    flat = ", ".join(f"{v:.1f}" for pair in info["corners"] for v in pair)
    darker, lighter = info["checkers_seen"]
    hidden = " (part of the board is hidden)" if info["occluded"] else ""
    lines = [f"wrote {info['out']}: the board of {info['image']} located by {how} "
             f"(markers found: {markers})",
             f"corners (TL TR BR BL) for [camera]: corners = [{flat}]",
             f"checkers seen: {darker} darker, {lighter} lighter{hidden}",
             f"a die's face is about {info['dice_face_px']:.1f} px across"]
    lines += [f"warning: {w}" for w in info.get("warnings", [])]
    return "\n".join(lines)


__all__ = ["ImageError", "register"]
