"""A headless Chromium of the host, driven over the DevTools protocol on a pipe, for the sim's Chrome.

Pages need a real JavaScript engine and DOM (AndroidWorld's browser tasks are scripts), so the sim's
Chrome renders them with the host's `chromium`. The browser starts only when a page is opened and
talks over `--remote-debugging-pipe` (fds 3 and 4: NUL-separated JSON), so it opens no port. It
runs with a fresh profile in a private folder, no network (every host name resolves to nothing and
the proxy is a dead address), no file access beyond the one page copied into that folder, no
downloads and a storage quota (the folder is on the host's disk, outside the device's space). It
runs in its own process group, killed as one; a browser whose pipe closes (the worker died) exits.
The sim reads and types into a page from an isolated world (the page's DOM, builtins of its own),
so a page's scripts cannot change what the sim's scan sees, as they cannot change Chrome's own
accessibility tree.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import resource
import select
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Debian's /usr/bin/chromium is a shell script; the binary it runs sits here.
CANDIDATES = ("/usr/lib/chromium/chromium", "/usr/lib/chromium-browser/chromium-browser")
TIMEOUT_S = 15.0
PAGE_STORAGE = 64 * 1024 * 1024  # bytes a page may keep (pages are local files: one origin, file://)
BROWSER_MEMORY = 2 * 1024**3  # the browser's data cap (Chromium itself starts within 1 GiB)

# Visible text, buttons, inputs and canvases with their boxes in CSS pixels (the DOM, as views).
CONTROLS = "button, input, textarea, select, a[href], canvas"  # a control is its index among these
SCAN_JS = r"""(() => {
  const out = [];
  const visible = (r) => r.width > 0 && r.height > 0;
  const shown = (el) => {
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none';
  };
  const box = (r) => [r.left, r.top, r.width, r.height];
  const controls = [...document.querySelectorAll(CONTROLS)];
  controls.forEach((el, i) => {
    const r = el.getBoundingClientRect();
    if (!visible(r) || !shown(el)) return;
    const tag = el.tagName.toLowerCase();
    const clicked = ['button', 'submit', 'checkbox', 'radio'].includes(el.type);
    const field = tag === 'textarea' || (tag === 'input' && !clicked);
    const kind = field ? 'input' : tag === 'canvas' ? 'canvas' : 'button';
    const text = field ? (el.value || '') : (el.innerText || el.value || '').trim();
    const label = el.getAttribute('aria-label') || el.title || '';
    out.push({kind, index: i, box: box(r), text, hint: el.placeholder || '', label});
  });
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.textContent.trim();
    const parent = n.parentElement;
    if (!text || !parent || !shown(parent)) continue;
    if (parent.closest('button, script, style, textarea, a[href]')) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const r = range.getBoundingClientRect();
    if (visible(r)) out.push({kind: 'text', index: -1, box: box(r), text, hint: '', label: ''});
  }
  return {title: document.title, url: location.href, nodes: out};
})()""".replace("CONTROLS", repr(CONTROLS))


def spawn_capped(
    exe: str, args: list[str], env: dict[str, str], actions: list[tuple[Any, ...]], cwd: Path
) -> int:
    """Start `exe` in `cwd`, in its own process group, with a data cap of its own, BROWSER_MEMORY
    (RLIMIT_DATA, as the worker has, see mgfarm.sim.confine): a page is the device's, and one holding
    typed arrays would otherwise take the host's memory (with the cap it gets "Array buffer
    allocation failed"). posix_spawn has no working-folder action, so the worker's own folder and
    cap are changed for the spawn and set back (the sim names every path it uses in full)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    cap = BROWSER_MEMORY if hard == resource.RLIM_INFINITY else min(BROWSER_MEMORY, hard)
    here = os.open(".", os.O_PATH | os.O_CLOEXEC)
    resource.setrlimit(resource.RLIMIT_DATA, (cap, hard))
    try:
        os.chdir(cwd)
        return os.posix_spawn(exe, args, env, file_actions=actions, setpgroup=0)
    finally:
        os.fchdir(here)
        os.close(here)
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


def binary() -> str | None:
    """The host's Chromium binary, or None when none is installed."""
    for path in CANDIDATES:
        if os.access(path, os.X_OK):
            return path
    return None


class BrowserError(RuntimeError):
    """The browser did not answer (crashed, or took too long)."""


@dataclass
class Node:
    """One DOM element or text run as the screen shows it; `box` is x, y, width, height in CSS pixels."""

    kind: str  # text, button, input, canvas
    index: int  # position among the page's controls (for inputs), -1 for text
    box: tuple[float, float, float, float]
    text: str
    hint: str
    label: str


class Browser:
    """One headless Chromium with one page, `width` x `height` CSS pixels at `scale` device pixels each."""

    def __init__(self, exe: str, width: int, height: int, scale: float) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="chrome-"))
        (self.folder / "profile").mkdir()
        cmd_r, self._cmd_w = os.pipe()  # we write commands, the browser reads them on its fd 3
        self._out_r, out_w = os.pipe()  # the browser answers on its fd 4
        args = [
            exe,
            "--headless=new",
            "--remote-debugging-pipe",
            "--no-sandbox",  # its setuid/namespace sandbox cannot start inside the worker's Landlock sandbox
            "--disable-gpu",
            "--in-process-gpu",  # a GPU process checks /proc at start, which the sandbox keeps closed
            "--disable-dev-shm-usage",
            "--no-zygote",  # the zygote needs all of /proc, which the worker's sandbox keeps closed
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-sync",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--proxy-server=127.0.0.1:9",
            "--mute-audio",
            f"--user-data-dir={self.folder / 'profile'}",
            f"--window-size={width},{height}",
            "about:blank",
        ]
        # TMPDIR relative to the browser's folder: Chromium binds its singleton's socket there, and
        # a socket path is at most 107 bytes, which a farm's data folder alone comes near.
        env = {"HOME": str(self.folder), "TMPDIR": ".", "PATH": "/usr/bin:/bin"}
        self.pid = spawn_capped(
            exe,
            args,
            env,
            [
                (os.POSIX_SPAWN_DUP2, cmd_r, 3),
                (os.POSIX_SPAWN_DUP2, out_w, 4),
                (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0),
            ],
            self.folder,
        )
        os.close(cmd_r)
        os.close(out_w)
        self._buf = b""
        self._next_id = 0
        self.session = ""
        self._world: int | None = None  # the scan's isolated world in the page shown (made on use)
        try:
            # The device is hostile and the page is its own: a download or a page's storage would
            # land on the host's disk, outside the device's space. Downloads are refused, and a
            # page's storage (IndexedDB, Cache, OPFS) gets QuotaExceededError past PAGE_STORAGE.
            self.call("Browser.setDownloadBehavior", {"behavior": "deny"})
            targets = self.call("Target.getTargets")["targetInfos"]
            page = next(t["targetId"] for t in targets if t["type"] == "page")
            self.session = self.call("Target.attachToTarget", {"targetId": page, "flatten": True})[
                "sessionId"
            ]
            self.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": False},
            )
            self.call("Network.enable")
            self.call("Network.emulateNetworkConditions", _OFFLINE)
            self.call("Storage.overrideQuotaForOrigin", {"origin": "file://", "quotaSize": PAGE_STORAGE})
        except Exception:
            self.close()
            raise

    # ---- protocol
    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one command (to the page once attached) and wait for its answer."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        try:
            os.write(self._cmd_w, json.dumps(message).encode() + b"\0")
        except OSError as e:
            raise BrowserError(f"the browser is gone: {e}") from e
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            while b"\0" not in self._buf:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self._out_r], [], [], left)[0]:
                    raise BrowserError(f"no answer to {method} within {TIMEOUT_S:.0f} s")
                chunk = os.read(self._out_r, 1 << 20)
                if not chunk:
                    raise BrowserError("the browser closed its pipe")
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            try:
                answer = json.loads(raw)
            except (ValueError, RecursionError) as e:  # a page's value nested past the decoder's depth
                raise BrowserError(f"unreadable answer to {method}") from e
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error'].get('message')}")
                result: dict[str, Any] = answer.get("result", {})
                return result

    def evaluate(self, expression: str, context: int | None = None) -> Any:
        """The value of `expression` in the page's world, or in execution context `context`."""
        params: dict[str, Any] = {"expression": expression, "returnByValue": True}
        if context is not None:
            params["contextId"] = context
        result = self.call("Runtime.evaluate", params)
        if "exceptionDetails" in result:
            raise BrowserError(f"script failed: {result['exceptionDetails'].get('text')}")
        return result.get("result", {}).get("value")

    def in_own_world(self, expression: str) -> Any:
        """`expression` in an isolated world of the page shown, as an extension's content script
        runs: the same DOM, its own builtins, so nothing the page's scripts change in theirs
        (`Array.prototype.push`, `getComputedStyle`) reaches what the sim reads. A page that
        navigated has a new document, and so a new world."""
        for attempt in (1, 2):
            if self._world is None:
                frame = self.call("Page.getFrameTree")["frameTree"]["frame"]["id"]
                made = self.call("Page.createIsolatedWorld", {"frameId": frame, "worldName": "mgfarm"})
                self._world = int(made["executionContextId"])
            try:
                return self.evaluate(expression, self._world)
            except BrowserError:
                self._world = None
                if attempt == 2:
                    raise
        return None

    # ---- what the app does
    def open(self, source: Path) -> None:
        """Load a copy of `source` (a host file) from the browser's own folder, and wait for it to load."""
        page = self.folder / "page" / source.name
        shutil.rmtree(page.parent, ignore_errors=True)
        page.parent.mkdir()
        shutil.copyfile(source, page)
        self.call("Page.navigate", {"url": page.as_uri()})
        self._world = None
        deadline = time.monotonic() + TIMEOUT_S
        while self.evaluate("document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise BrowserError("the page did not finish loading")
            time.sleep(0.02)

    def scan(self) -> tuple[str, list[Node]]:
        """The page's title and its visible texts and controls."""
        found = self.in_own_world(SCAN_JS) or {}
        try:  # the page's own script can change what the scan's builtins return
            nodes = [
                Node(
                    str(n["kind"]),
                    int(n["index"]),
                    (float(n["box"][0]), float(n["box"][1]), float(n["box"][2]), float(n["box"][3])),
                    str(n["text"]),
                    str(n["hint"]),
                    str(n["label"]),
                )
                for n in found.get("nodes", [])
            ]
            return str(found.get("title", "")), nodes
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
            raise BrowserError(f"the page's scan came back as {type(found).__name__}") from e

    def screenshot(self) -> bytes:
        return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"])

    def click(self, x: float, y: float) -> None:
        self.drag([(x, y)])

    def drag(self, points: list[tuple[float, float]]) -> None:
        """Press at the first point, move through the rest, release at the last (CSS pixels)."""
        (x, y), last = points[0], points[-1]
        self._mouse("mouseMoved", x, y, 0)
        self._mouse("mousePressed", x, y, 1)
        for px, py in points[1:]:
            self._mouse("mouseMoved", px, py, 1)
        self._mouse("mouseReleased", last[0], last[1], 0)

    def _mouse(self, kind: str, x: float, y: float, buttons: int) -> None:
        params: dict[str, Any] = {"type": kind, "x": x, "y": y, "buttons": buttons}
        if kind != "mouseMoved":
            params.update(button="left", clickCount=1)
        self.call("Input.dispatchMouseEvent", params)

    def set_value(self, index: int, value: str) -> None:
        """Set a form field's value as typing does (an `input` event follows)."""
        script = (
            f"(() => {{ const el = document.querySelectorAll({json.dumps(CONTROLS)})[{index}];"
            f" if (!el) return; el.value = {json.dumps(value)};"
            " el.dispatchEvent(new Event('input', {bubbles: true})); })()"
        )
        self.in_own_world(script)

    def close(self) -> None:
        """Kill the browser's process group and remove its folder."""
        for fd in (self._cmd_w, self._out_r):
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)
        shutil.rmtree(self.folder, ignore_errors=True)


_OFFLINE = {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
