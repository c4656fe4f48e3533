"""A minimal W3C WebDriver client over urllib, driving Debian's chromedriver and Chromium."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request
from types import TracebackType
from typing import Any

from tests.controller.hub.broker import free_port, wait_for

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=412,900"]


class Browser:
    """One chromedriver process and one headless Chromium session with a fresh profile."""

    def __init__(self) -> None:
        self.port = free_port()
        self.profile = tempfile.mkdtemp(prefix="hakem-chromium-")
        self.driver = subprocess.Popen(
            [CHROMEDRIVER, f"--port={self.port}"], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.base = f"http://127.0.0.1:{self.port}"
        wait_for(self._ready, 20, "chromedriver to answer")
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM,
                                   "args": [*FLAGS, f"--user-data-dir={self.profile}"]},
        }}}
        self.session = self._call("POST", "/session", caps)["sessionId"]

    def _ready(self) -> bool:
        try:
            return bool(self._call("GET", "/status")["ready"])
        except OSError:
            return False

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())["value"]
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"webdriver {method} {path}: {exc.read()[:500]!r}") from None

    def get(self, url: str) -> None:
        """Navigate (waits for the load event)."""
        self._call("POST", f"/session/{self.session}/url", {"url": url})

    def run(self, script: str, *args: Any) -> Any:
        """Run a script in the page and return its value."""
        return self._call("POST", f"/session/{self.session}/execute/sync",
                          {"script": script, "args": list(args)})

    def keys(self, *keys: str) -> None:
        """Press and release each key in turn on the focused element, as a keyboard does
        (WebDriver's key codes: "\ue007" Enter, "\ue004" Tab)."""
        steps = [step for key in keys
                 for step in ({"type": "keyDown", "value": key}, {"type": "keyUp", "value": key})]
        self._call("POST", f"/session/{self.session}/actions",
                   {"actions": [{"type": "key", "id": "keyboard", "actions": steps}]})

    def viewport(self, width: int, height: int, *, mobile: bool = False) -> None:
        """Lay pages out as a screen of ``width`` x ``height`` CSS pixels (a phone's when
        ``mobile``: the page's viewport meta tag is then obeyed, as on a phone)."""
        self._call("POST", f"/session/{self.session}/goog/cdp/execute", {
            "cmd": "Emulation.setDeviceMetricsOverride",
            "params": {"width": width, "height": height, "deviceScaleFactor": 1,
                       "mobile": mobile}})

    def close(self) -> None:
        """End the session and chromedriver; remove the profile."""
        try:
            self._call("DELETE", f"/session/{self.session}")
        finally:
            self.driver.terminate()
            try:
                self.driver.wait(10)
            except subprocess.TimeoutExpired:
                self.driver.kill()
                self.driver.wait(10)
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
