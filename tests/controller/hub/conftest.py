"""Fixtures for the hub tests: a real Mosquitto on a loopback port, a hub, table publishers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.hub.link import LinkConfig, parse_broker_url
from controller.hub.publisher import TablePublisher
from controller.hub.server import HubApp
from tests.controller.hub.broker import MOSQUITTO, Broker
from tests.controller.hub.webdriver import CHROMEDRIVER, CHROMIUM, Browser


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A fresh Mosquitto (setup.sh installs it, so its absence fails rather than skips)."""
    if not Path(MOSQUITTO).exists():
        pytest.fail(f"{MOSQUITTO} not installed: run setup.sh")
    b = Broker(tmp_path / "broker").start()
    yield b
    b.stop()


def table_link(broker: Broker, tmp_path: Path, table: str, **extra: object) -> LinkConfig:
    """A table's link config with its own outbox file."""
    base = LinkConfig(
        table=table, tournament="cup", outbox=str(tmp_path / f"outbox-{table}.db"), keepalive_s=5
    )
    link = parse_broker_url(broker.url, base)
    from dataclasses import replace

    return replace(link, **extra)  # type: ignore[arg-type]


@pytest.fixture
def make_hub(broker: Broker, tmp_path: Path) -> Iterator[Callable[..., HubApp]]:
    """Start hubs on ``tmp_path/hub.db`` (stopped at the end)."""
    started: list[HubApp] = []

    def make(db: Path | None = None, **kw: object) -> HubApp:
        link = parse_broker_url(broker.url, LinkConfig(keepalive_s=5))
        app = HubApp(str(db or tmp_path / "hub.db"), link, **kw).start()  # type: ignore[arg-type]
        started.append(app)
        return app

    yield make
    for app in started:
        if app.http.stopping.is_set():
            continue
        app.stop()


@pytest.fixture
def make_table(broker: Broker, tmp_path: Path) -> Iterator[Callable[..., TablePublisher]]:
    """Start table publishers (closed at the end)."""
    started: list[TablePublisher] = []

    def make(table: str, **kw: object) -> TablePublisher:
        publisher = TablePublisher(table_link(broker, tmp_path, table), **kw).start()  # type: ignore[arg-type]
        started.append(publisher)
        return publisher

    yield make
    for publisher in started:
        publisher.close()


@pytest.fixture
def browser() -> Iterator[Browser]:
    """A headless Chromium (setup.sh installs it and chromedriver: their absence fails)."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            pytest.fail(f"{path} not installed: run setup.sh")
    b = Browser()
    yield b
    b.close()
