"""The sim's Chrome starts a second browser when the host's Chromium fails to start for a page (its
pipe closed on a loaded host: AndroidWorld's browser tasks failed so), and shows the error only when
that one fails too. A stand-in for the browser: no Chromium needed."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from mgfarm.sim.apps import chrome
from mgfarm.sim.system.chromium import BrowserError, Node
from tests.unit.shellkit import ShellDevice
from tests.unit.sim_screen import Screen

PAGE = "/sdcard/Download/task.html"


class StandIn:
    """A browser whose first `fails` starts fail as a dying Chromium's do."""

    fails = 0
    started = 0

    def __init__(self, exe: str, width: int, height: int, scale: float) -> None:
        StandIn.started += 1
        if StandIn.started <= StandIn.fails:
            raise BrowserError("the browser closed its pipe")

    def open(self, source: Path) -> None: ...

    def scan(self) -> tuple[str, list[Node]]:
        return "Task", [Node("text", -1, (10, 10, 100, 20), "Click Me", "", "")]

    def screenshot(self) -> bytes:
        out = io.BytesIO()
        Image.new("RGB", (8, 8), "white").save(out, format="PNG")
        return out.getvalue()

    def close(self) -> None: ...


@pytest.mark.parametrize(("fails", "shown"), [(1, "Click Me"), (2, "This page can't be shown")])
def test_a_browser_that_fails_to_start_is_started_once_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: int, shown: str
) -> None:
    monkeypatch.setattr(chrome, "Browser", StandIn)
    monkeypatch.setattr(chrome, "binary", lambda: "/usr/lib/chromium/chromium")
    monkeypatch.setattr(StandIn, "fails", fails)
    monkeypatch.setattr(StandIn, "started", 0)
    sh = ShellDevice(tmp_path)
    try:
        assert sh.run(f"mkdir -p /sdcard/Download && echo '<p>hi</p>' > {PAGE}").status == 0
        assert sh.run(f"am start -a android.intent.action.VIEW -d file://{PAGE} -t text/html").status == 0
        texts: list[Any] = [n for n in Screen(sh.device).xml().split('"') if shown in n]
        assert texts, shown
        assert StandIn.started == 2
    finally:
        sh.close()
