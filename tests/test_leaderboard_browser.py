"""leaderboard.html in a real headless browser (Debian's chromium).

The browser is driven over the DevTools protocol through a pipe
(--remote-debugging-pipe: NUL-separated JSON on fds 3 and 4), so no
WebSocket library is needed. The test sees what a reader's browser sees:
every console message, exception, log entry and network request of the page,
the laid-out DOM, and a screenshot. A deliberately broken page checks that
each of those detectors really fires.
"""

import base64
import fcntl
import json
import os
import select
import struct
import subprocess
import time
from pathlib import Path
from xml.etree import ElementTree

import pytest

from grader.leaderboard.page_html import html_page
from tests.helpers import CHROMIUM, HEADLESS_FLAGS
from tests.helpers import HOSTILE_ID as HOSTILE
from tests.helpers import leaderboard_document as document

WIDTH, HEIGHT = 1200, 900
TIMEOUT = 60.0  # the machine is shared: a cold browser start can be slow


pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="needs a headless Chromium (Debian package chromium)"
)


class Browser:
    """A headless Chromium and one page, driven over the DevTools pipe."""

    def __init__(self, profile: Path):
        to_browser, from_us = os.pipe()
        to_us, from_browser = os.pipe()

        def wire_fds():  # in the child: its fd 3 reads our commands, fd 4 writes replies
            commands = fcntl.fcntl(to_browser, fcntl.F_DUPFD, 10)
            replies = fcntl.fcntl(from_browser, fcntl.F_DUPFD, 10)
            os.dup2(commands, 3)
            os.dup2(replies, 4)

        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                *HEADLESS_FLAGS,
                "--remote-debugging-pipe",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            preexec_fn=wire_fds,
            pass_fds=(3, 4),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self.writer, self.reader = from_us, to_us
        self.buffer = b""
        self.last_id = 0
        self.events = []
        self.session = None

    def close(self) -> None:
        try:
            self.call("Browser.close", session=False, timeout=10)
        except (OSError, RuntimeError, TimeoutError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.writer)
        os.close(self.reader)

    def call(self, method: str, params=None, *, session=True, timeout=TIMEOUT) -> dict:
        self.last_id += 1
        message = {"id": self.last_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.writer, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._next(deadline)
            if reply.get("id") == self.last_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def wait_for(self, event: str, timeout=TIMEOUT) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for seen in self.events:
                if seen.get("method") == event:
                    return seen
            self.events.append(self._next(deadline))

    def _next(self, deadline: float) -> dict:
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the browser did not answer in time")
            ready, _, _ = select.select([self.reader], [], [], left)
            if ready:
                chunk = os.read(self.reader, 1 << 16)
                if not chunk:
                    raise RuntimeError("the browser closed the DevTools pipe")
                self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def open(self, page: Path) -> None:
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
        )
        self.call("Page.navigate", {"url": page.resolve().as_uri()})
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = False) -> bytes:
        params = {"format": "png"}
        if full_page:
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params.update(
                captureBeyondViewport=True,
                clip={"x": 0, "y": 0, "width": WIDTH, "height": size["height"], "scale": 1},
            )
        data = base64.b64decode(self.call("Page.captureScreenshot", params)["data"])
        path.write_bytes(data)
        return data

    def problems(self, page: Path) -> list:
        """Everything a clean, self-contained page must not cause."""
        self.call("Runtime.evaluate", {"expression": "1"})  # flush pending events
        own = page.resolve().as_uri()
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(("exception", params["exceptionDetails"].get("text", "")))
            elif method == "Runtime.consoleAPICalled":  # the page has no script at all
                found.append(("console", params.get("type")))
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                found.append(("log", params["entry"]["text"]))
            elif method == "Network.loadingFailed":
                found.append(("failed load", params.get("errorText")))
            elif method == "Network.requestWillBeSent" and params["request"]["url"] != own:
                if not params["request"]["url"].startswith("data:"):  # inline, no request out
                    found.append(("request", params["request"]["url"]))
        return found


@pytest.fixture
def browser(tmp_path):
    profile = tmp_path / "profile"
    profile.mkdir()
    opened = Browser(profile)
    try:
        yield opened
    finally:
        opened.close()


def _png_size(data: bytes):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


def test_the_page_loads_cleanly_with_its_table_and_plot(browser, tmp_path):
    doc = document()
    page = tmp_path / "leaderboard.html"
    page.write_text(html_page(doc), encoding="utf-8")
    browser.open(page)

    assert browser.problems(page) == []
    assert browser.evaluate("document.scripts.length") == 0
    rows = browser.evaluate(
        "[...document.querySelectorAll('#ranking tbody tr')].map(r => r.cells[1].textContent)"
    )
    assert len(rows) == len(doc["ranked"])
    assert rows[1] == HOSTILE + " *"  # shown as text, not run, and marked a winner
    plot = browser.evaluate(
        "(() => { const i = document.querySelector('img#runs-plot'); const r = "
        "i.getBoundingClientRect(); return [r.width, r.height, i.complete, i.naturalWidth]; })()"
    )
    assert plot[0] > 600 and plot[1] > 200 and plot[2] and plot[3] > 600  # drawn, loaded
    # The plot is an image of its own (its text alternative is the page's): its drawing
    source = browser.evaluate("document.querySelector('img#runs-plot').src")
    svg = ElementTree.fromstring(base64.b64decode(source.split(",", 1)[1]))
    ns = {"s": "http://www.w3.org/2000/svg"}
    programs = len(doc["ranked"]) + len(doc["startup"])
    dots = svg.findall(".//s:g[@class='program']/s:circle", ns)
    assert len(dots) == 2 * programs * doc["settings"]["runs"]  # each run in both panels
    red = [c for c in svg.iter("{http://www.w3.org/2000/svg}circle") if c.get("class") == "outlier"]
    assert len(red) >= 2 * 2  # the two wild runs, in both panels (+ the legend's)
    # reads at the width it was made for: nothing sticks out sideways
    assert browser.evaluate("document.documentElement.scrollWidth") <= WIDTH

    shot = browser.screenshot(tmp_path / "leaderboard.png")
    assert _png_size(shot) == (WIDTH, HEIGHT) and len(shot) > 20_000
    full = browser.screenshot(tmp_path / "leaderboard-full.png", full_page=True)
    width, height = _png_size(full)
    assert width == WIDTH and height > HEIGHT


def test_the_detectors_see_errors_and_outside_requests(browser, tmp_path):
    page = tmp_path / "broken.html"
    page.write_text(
        "<!DOCTYPE html><html><body><p>broken</p><img src='missing.png'>"
        "<img src='http://127.0.0.1:9/x.png'>"
        "<script>console.error('boom'); notDefined();</script></body></html>"
    )
    browser.open(page)
    kinds = {kind for kind, _ in browser.problems(page)}
    assert {"exception", "console", "failed load", "request", "log"} <= kinds
