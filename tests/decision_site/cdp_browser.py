"""Debian's Chromium, headless, driven over the DevTools protocol on a pipe.

`--remote-debugging-pipe` makes Chromium read protocol messages from fd 3 and write
them to fd 4, NUL-terminated JSON: the same channel Playwright and Puppeteer use,
with nothing to install beyond the browser and no port to open. The flags are the
VS Code e2e's (editors/vscode/e2e/run.mjs) plus a fresh profile per run.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)
WAIT_S = 30.0


def chromium_binary() -> str | None:
    """The browser the tests use: $CHROMIUM, else Debian's `chromium` on PATH."""
    given = os.environ.get("CHROMIUM")
    if given:
        return given
    return shutil.which("chromium") or shutil.which("chromium-browser")


class BrowserError(AssertionError):
    """The browser did not do what a step expected; the message names the step."""


class Browser:
    """One headless Chromium with one page; events are kept for assertions."""

    def __init__(self, binary: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="cairn-chromium-")
        # A file, not a pipe: nobody reads Chromium's chatter until it fails.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The shell puts our pipe ends on the fd numbers Chromium reads and writes (bash:
        # dash only redirects single-digit descriptors).
        script = f'exec "$0" "$@" 3<&{to_browser_r} 4>&{from_browser_w}'
        self.proc = subprocess.Popen(
            [
                "bash",
                "-c",
                script,
                binary,
                *FLAGS,
                f"--user-data-dir={self.profile}",
                "about:blank",
            ],
            pass_fds=(to_browser_r, from_browser_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""
        self.size = (800, 600)
        target = self._page_target()
        attached = self.call("Target.attachToTarget", targetId=target, flatten=True)
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(f"{domain}.enable")

    # -- protocol

    def _send(self, message: dict[str, Any]) -> None:
        try:
            os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        except BrokenPipeError:
            raise BrowserError(f"Chromium exited: {self._last_words()}") from None

    def _last_words(self) -> str:
        self.proc.poll()
        self._stderr.seek(0)
        text = self._stderr.read().decode(errors="replace")
        return f"exit status {self.proc.returncode}: {text[-2000:]}"

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("Chromium did not answer in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise BrowserError(f"Chromium exited: {self._last_words()}")
                self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        return dict(json.loads(raw))

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send a command (to the page once attached) and return its result."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        self._send(message)
        deadline = time.monotonic() + WAIT_S
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            if "method" in reply:
                self.events.append(reply)

    def wait_event(self, method: str, timeout: float = WAIT_S) -> dict[str, Any]:
        """The first event named `method` since the last call that looked for it."""
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method and not event.get("_seen"):
                    self.events[i] = {**event, "_seen": True}
                    return event
            reply = self._read(deadline)
            if "method" in reply:
                self.events.append(reply)

    def _page_target(self) -> str:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            targets = self.call("Target.getTargets")["targetInfos"]
            pages = [t for t in targets if t.get("type") == "page"]
            if pages:
                return str(pages[0]["targetId"])
            time.sleep(0.1)
        raise BrowserError("Chromium opened no page")

    # -- page helpers

    def viewport(self, width: int, height: int) -> None:
        self.size = (width, height)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def open(self, url: str) -> None:
        """Navigate and wait for the load event."""
        self.events = [e for e in self.events if e.get("method") != "Page.loadEventFired"]
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")

    def js(self, expression: str) -> Any:
        """Evaluate in the page; the JSON value of the result."""
        result = self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, step: str, timeout: float = WAIT_S) -> Any:
        """Poll a page expression until it is truthy; fail naming the step."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.05)
        raise BrowserError(f"{step}: not true within {timeout:.0f}s: {expression}")

    def type_text(self, selector: str, text: str) -> None:
        """Focus an input and type into it the way an IME commit does (fires `input`)."""
        self.js(f"document.querySelector({json.dumps(selector)}).focus()")
        self.call("Input.insertText", text=text)

    def click(self, selector: str) -> None:
        """A real mouse click at the centre of the element, scrolled into view first (as a
        reader scrolls to a link below the fold)."""
        box = self.js(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); "
            "e.scrollIntoView({block: 'nearest'}); const r = e.getBoundingClientRect(); "
            "return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                type=kind,
                x=box["x"],
                y=box["y"],
                button="left",
                clickCount=1,
            )

    def screenshot(self, path: Path, *, full_page: bool = False) -> Path:
        """A PNG of the viewport, or of the whole page (the viewport grown to fit it)."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            width, height = self.size
            full = int(self.js("document.documentElement.scrollHeight"))
            self.viewport(width, max(height, full))
            try:
                data = self.call("Page.captureScreenshot", **params)["data"]
            finally:
                self.viewport(width, height)
        else:
            data = self.call("Page.captureScreenshot", **params)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def requested_urls(self) -> list[str]:
        return [
            str(e["params"]["request"]["url"])
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        ]

    def console_problems(self) -> list[str]:
        """Errors and warnings the page logged (a CSP violation, a script error)."""
        out = []
        for e in self.events:
            if e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] in (
                "error",
                "warning",
            ):
                out.append(str(e["params"]["entry"]["text"]))
            if e.get("method") == "Runtime.exceptionThrown":
                out.append(str(e["params"]["exceptionDetails"]))
            if e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] in (
                "error",
                "warning",
            ):
                out.append(json.dumps(e["params"]["args"]))
        return out

    def dialogs(self) -> list[str]:
        return [
            str(e["params"]["message"])
            for e in self.events
            if e.get("method") == "Page.javascriptDialogOpening"
        ]

    def close(self) -> None:
        try:
            self._send({"id": 0, "method": "Browser.close", "params": {}})
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(timeout=10)
        finally:
            for fd in (self._to_browser, self._from_browser):
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._stderr.close()
            shutil.rmtree(self.profile, ignore_errors=True)
