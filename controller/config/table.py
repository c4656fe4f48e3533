"""One table's configuration: a TOML file per table, validated with the key's name in every error.

Every section has defaults, so ``hakem demo`` needs no file at all and ``hakem run`` needs only
what differs at a real table (the camera's corners, the clock's serial port, the players' names).
Sections: ``[table]``, ``[match]``, ``[players]``, ``[rules]``, ``[camera]``, ``[clock]``,
``[signals]`` (LED and buzzer pins), ``[journal]``, ``[hub]`` and ``[vision]`` (passed to
``vision.config``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from controller.config.loader import build, load_toml_file
from controller.hub.topics import DEFAULT_PREFIX, check_id
from controller.signals import SignalPins
from controller.table_layout import TableLayout
from engine.backgammon.rules import DiceSetup, Opening, Rules
from engine.errors import ConfigError, HakemError, InvalidInputError
from vision.config import VisionConfig, vision_config_from_mapping
from vision.dice.reading import COCKED_FLOOR, DIE_FLOOR

if TYPE_CHECKING:
    from controller.hub.link import LinkConfig

Side = Literal["left", "right"]
Colour = Literal["darker", "lighter"]


@dataclass(frozen=True)
class TableSection:
    """Which table this is (the hub and the journal name it)."""

    id: str = "table-1"
    name: str = ""

    def __post_init__(self) -> None:
        if not self.id or any(c.isspace() or c in "/#+" for c in self.id):
            raise ConfigError(f"table.id must be a name without spaces, '/', '#' or '+': "
                              f"{self.id!r}")


@dataclass(frozen=True)
class MatchSection:
    """The game played at the table, and for backgammon the match's length in points
    (BG-MATCH-1) and the Crawford rule (BG-MATCH-2); a Mangala round is fixed (MG-T-1)."""

    game: Literal["backgammon", "mangala"] = "backgammon"
    length: int = 5
    crawford: bool = True

    def __post_init__(self) -> None:
        if self.game not in ("backgammon", "mangala"):
            raise ConfigError(f"match.game must be 'backgammon' or 'mangala': {self.game!r}")
        if not 1 <= self.length <= 99:
            raise ConfigError(f"match.length must be 1..99 points: {self.length}")


@dataclass(frozen=True)
class PlayersSection:
    """Who sits where: names per clock side, which side sits at the bottom of the picture, and
    which colour the bottom player has (image slot order of DESIGN.md)."""

    left: str = "Left"
    right: str = "Right"
    bottom: Side = "left"
    bottom_colour: Colour = "darker"
    home_on_right: bool = True

    def __post_init__(self) -> None:
        for key in ("left", "right"):
            if not getattr(self, key).strip():
                raise ConfigError(f"players.{key} must be a non-empty name")
        if self.left == self.right:
            raise ConfigError(f"players.right must differ from players.left: {self.right!r}")

    def layout(self) -> TableLayout:
        """The image layout with the bottom player as the engine's first player."""
        return TableLayout(first_at_bottom=True, home_on_right=self.home_on_right,
                           first_colour=self.bottom_colour)

    def name(self, side: Side) -> str:
        return self.left if side == "left" else self.right


@dataclass(frozen=True)
class RulesSection:
    """Table settings the rules leave open: the dice set-up (BG-EQ-2), the opening variant
    (BG-OPEN-1 modern, BG-OPEN-T Turkish traditional) and Holland (BG-MATCH-3)."""

    dice: Literal["shared-pair", "pair-each"] = "shared-pair"
    opening: Literal["modern", "turkish"] = "modern"
    holland: bool = False

    def engine_rules(self, *, crawford: bool) -> Rules:
        """The engine's rules object for a tournament match with these settings."""
        return Rules(crawford=crawford, holland=self.holland and crawford,
                     opening=Opening(self.opening), dice=DiceSetup(self.dice))


@dataclass(frozen=True)
class CameraSection:
    """Where frames come from and where the board is in them.

    ``source``: "picamera2", a device number ("0"), a video file or stream URL, or a folder of
    images. ``corners``: the playing surface's corners in pixels (top-left, top-right,
    bottom-right, bottom-left as x, y pairs); empty to find the markers instead.
    """

    source: str = "picamera2"
    width: int = 1280
    height: int = 720
    fps: float = 10.0
    corners: tuple[float, ...] = ()
    reread_ms: int = 400
    dice_always: bool = False  # read dice in every still picture (BG-ROLL-5 early throws)
    # a die found with less confidence than this is taken for a reflection, not a die (the
    # referee's dice_confidence: a die kept below it would never be judged; tests.eval.dice
    # prints what the floors keep: 0.75 dropped a fifth of the flat dice of varied sets)
    die_floor: float = DIE_FLOOR  # 0.5
    # a die read as cocked is kept down to this confidence: a tilted face reads unsurely, and
    # the referee judges the throw invalid on it (BG-ROLL-2) only from its own cocked_confidence
    # (0.35 dropped 10 of 97 demo-style cocked dice found; dice-free boards' cocked phantoms 2
    # -> 7 of 200, learnt by the referee at each press before the next throw)
    cocked_floor: float = COCKED_FLOOR  # 0.15

    def __post_init__(self) -> None:
        if not self.source:
            raise ConfigError("camera.source must not be empty")
        if not (64 <= self.width <= 8192 and 64 <= self.height <= 8192):
            raise ConfigError(f"camera.width and camera.height must be 64..8192: "
                              f"{self.width}x{self.height}")
        if not 0.5 <= self.fps <= 120:
            raise ConfigError(f"camera.fps must be 0.5..120: {self.fps}")
        if self.corners and len(self.corners) != 8:
            raise ConfigError(f"camera.corners needs 8 numbers (4 x, y pairs), "
                              f"got {len(self.corners)}")
        if not 0.0 <= self.die_floor <= 1.0:
            raise ConfigError(f"camera.die_floor must be 0..1: {self.die_floor}")
        if not 0.0 <= self.cocked_floor <= 1.0:
            raise ConfigError(f"camera.cocked_floor must be 0..1: {self.cocked_floor}")
        if self.reread_ms < 100:
            raise ConfigError(f"camera.reread_ms must be at least 100: {self.reread_ms}")


@dataclass(frozen=True)
class ClockSection:
    """The match clock: its serial port ("sim" runs the firmware core in-process) and the
    time control (TTB-CLOCK-4: a delay per move plus a reserve per match point)."""

    port: str = "/dev/ttyACM0"
    baudrate: int = 115200
    delay_s: float = 12.0
    reserve_s_per_point: float = 120.0

    def __post_init__(self) -> None:
        if not self.port:
            raise ConfigError("clock.port must not be empty")
        if self.baudrate <= 0:
            raise ConfigError(f"clock.baudrate must be positive: {self.baudrate}")
        if not 0 <= self.delay_s <= 600:
            raise ConfigError(f"clock.delay_s must be 0..600 seconds: {self.delay_s}")
        if not 0 < self.reserve_s_per_point <= 3600:
            raise ConfigError(f"clock.reserve_s_per_point must be 0..3600 seconds: "
                              f"{self.reserve_s_per_point}")


@dataclass(frozen=True)
class JournalSection:
    """Where the journal, the snapshots and the records of the match go."""

    directory: str = "/var/lib/hakem"


@dataclass(frozen=True)
class HubSection:
    """The tournament hub's MQTT broker (``url`` empty: do not publish), the tournament the
    table plays in, and its login: the password in a file of its own, not in this file."""

    url: str = ""  # mqtt://[USER@]HOST[:PORT], or mqtts://... for TLS
    tournament: str = "default"
    prefix: str = DEFAULT_PREFIX  # the topics' first level: as the hub's --prefix
    ca_file: str = ""  # the CA of the broker's certificate (mqtts only; else the system's CAs)
    password_file: str = ""  # its first line: the password of the url's user

    def __post_init__(self) -> None:
        for key in ("tournament", "prefix"):
            try:
                check_id(getattr(self, key), key)
            except InvalidInputError as exc:
                raise ConfigError(f"hub.{key}: {exc}") from None
        if self.url:
            self.link("1", "hub-outbox.sqlite")  # the url and the files, checked on load

    def link(self, table: str, outbox: str) -> LinkConfig:
        """The publisher's link for table ``table`` with its outbox at ``outbox``; a bad url,
        a password given twice or a file that cannot be used raises ConfigError naming it."""
        try:
            from controller.hub.link import LinkConfig, check_ca_file, parse_broker_url
        except ImportError as exc:  # paho-mqtt missing
            raise ConfigError(f"hub.url is set, but publishing cannot work here: {exc}") from None
        if not self.url:
            raise ConfigError("hub.url is empty: this table does not publish")
        try:
            check_id(table, "table")
        except InvalidInputError as exc:
            raise ConfigError(f"table.id: {exc} (hub.url is set: it names the table's topics)"
                              ) from None
        base = LinkConfig(table=table, tournament=self.tournament, prefix=self.prefix,
                          outbox=outbox, ca_file=self.ca_file or None,
                          password_file=self.password_file or None)
        try:
            link = parse_broker_url(self.url, base)
        except InvalidInputError as exc:
            raise ConfigError(f"hub.url: {exc}") from None
        if self.ca_file:
            if not link.tls:
                raise ConfigError(f"hub.ca_file: {self.ca_file} is for a TLS broker, but hub.url "
                                  "is not mqtts://")
            check_ca_file(self.ca_file, "hub.ca_file")
        if self.password_file:
            if link.password is not None:
                raise ConfigError("hub.password_file: hub.url holds a password too: keep it in "
                                  f"{self.password_file} only")
            if link.username is None:
                raise ConfigError("hub.password_file: hub.url names no user for the password "
                                  "(mqtt://USER@HOST)")
            link.secret()  # a missing, unreadable or empty file, named now
        return link


@dataclass(frozen=True)
class TableConfig:
    """The whole file."""

    table: TableSection = field(default_factory=TableSection)
    match: MatchSection = field(default_factory=MatchSection)
    players: PlayersSection = field(default_factory=PlayersSection)
    rules: RulesSection = field(default_factory=RulesSection)
    camera: CameraSection = field(default_factory=CameraSection)
    clock: ClockSection = field(default_factory=ClockSection)
    signals: SignalPins = field(default_factory=SignalPins)
    journal: JournalSection = field(default_factory=JournalSection)
    hub: HubSection = field(default_factory=HubSection)
    vision: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.vision_config()  # refuse a bad [vision] table at load time, naming its key
        if self.hub.url:
            self.hub.link(self.table.id, "hub-outbox.sqlite")  # table.id must suit the topics

    def vision_config(self) -> VisionConfig:
        """The ``[vision]`` table as the vision package's typed configuration."""
        try:
            return vision_config_from_mapping(dict(self.vision))
        except HakemError as exc:
            message = str(exc)
            raise ConfigError(message if "vision" in message else f"vision: {message}") from None
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"vision: {exc}") from None


def table_config_from_mapping(data: dict[str, Any]) -> TableConfig:
    """Build and validate a configuration from parsed TOML."""
    return build(TableConfig, data)


def load_table_config(path: str | Path | None) -> TableConfig:
    """The table's configuration from ``path``, or every default when ``path`` is None."""
    if path is None:
        return TableConfig()
    return load_toml_file(TableConfig, path)


EXAMPLE_TOML = """\
# hakem table configuration (every key is optional; these are the defaults unless noted)
[table]
id = "table-1"

[match]
length = 5
crawford = true

[players]
left = "Left"
right = "Right"
bottom = "left"            # clock side of the player at the bottom of the picture
bottom_colour = "darker"
home_on_right = true

[rules]
dice = "shared-pair"       # BG-EQ-2: "shared-pair" (one pair) or "pair-each"
opening = "modern"         # "modern" (BG-OPEN-1) or "turkish" (BG-OPEN-T)

[camera]
source = "picamera2"
width = 1280
height = 720
# corners = [x0, y0, x1, y1, x2, y2, x3, y3]

[clock]
port = "/dev/ttyACM0"
delay_s = 12.0
reserve_s_per_point = 120.0

[signals]                  # BCM GPIO numbers
turn_left = 5
turn_right = 6
throw_again = 13
illegal_move = 19
cannot_read = 26
system_ok = 21
buzzer = 12

[journal]
directory = "/var/lib/hakem"

[hub]
url = ""                   # e.g. "mqtts://table-1@hub.local" (empty: do not publish)
tournament = "default"
# ca_file = "/etc/hakem/hall-ca.crt"        # the CA of the broker's own certificate
# password_file = "/etc/hakem/hub-password"  # the password of the url's user
"""
