"""A provider's columns are typed by affinity only: a device may store text in a date, a number in a
name, NULL anywhere, times past the year 9999 (`content insert --bind date:s:abc`). The apps read
them as `Cursor.getLong`/`getString` do and show something, as the real apps do, instead of stopping;
and a screen that still cannot be laid out stops its app alone, never every later frame."""

from __future__ import annotations

import logging
import random
from datetime import timezone
from pathlib import Path

import pytest

from mgfarm.sim.apps.dialer import Dialer
from mgfarm.sim.system.clock import instant
from mgfarm.sim.system.cursor import get_long
from mgfarm.sim.ui.views import Text
from tests.unit.shellkit import ShellDevice
from tests.unit.sim_screen import Screen, crashes, launchable, nodes

VALUES = [
    "s:",
    "s:" + "x" * 3000,
    "i:9223372036854775807",
    "i:-9223372036854775808",
    "i:-1",
    "i:0",
    "s:-1",
    "s:abc",
    "d:1e308",
    "d:-0.5",
    "s:12abc",
    "s:😀\u202e",
    "l:99999999999999",
]
COLUMNS = {
    "content://sms/inbox": ["address", "body", "date", "read", "thread_id", "type", "date_sent", "person"],
    "content://sms/sent": ["address", "body", "date"],
    "content://call_log/calls": ["number", "date", "duration", "type", "name", "new"],
    "content://com.android.calendar/events": [
        "title",
        "dtstart",
        "dtend",
        "calendar_id",
        "allDay",
        "description",
    ],
    "content://com.android.contacts/raw_contacts": [
        "account_type",
        "account_name",
        "starred",
        "display_name",
    ],
}


def test_a_column_reads_as_cursor_getlong_reads_it() -> None:
    assert [get_long(v) for v in (None, "abc", " 12abc", "-7", "1e5", 3.9, -3.9, 1e308, b"42")] == [
        0, 0, 12, -7, 1, 3, -3, 2**63 - 1, 42,
    ]  # fmt: skip
    assert instant(2**63 - 1, timezone.utc).year == 9999 and instant("abc", timezone.utc).year == 1970


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_odd_values_in_providers_show_in_every_app(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, seed: int
) -> None:
    sh = ShellDevice(tmp_path)
    try:
        rng = random.Random(seed)
        for uri, columns in COLUMNS.items():
            for _ in range(6):
                binds = " ".join(f"--bind {c}:{rng.choice(VALUES)}" for c in columns if rng.random() < 0.8)
                sh.run(f"content insert --uri {uri} {binds}")
        screen = Screen(sh.device)
        packages = launchable(screen)
        assert len(packages) >= 20
        with caplog.at_level(logging.ERROR):
            for package in packages:
                screen.am.launch(package)
                for _ in range(10):
                    targets = [n for n in nodes(screen.xml()) if n.attrs["clickable"] == "true"]
                    if targets:
                        screen.wm.tap(*rng.choice(targets).center)
                assert sh.run("screencap -p").out.startswith(b"\x89PNG")
                screen.wm.key(3)
        assert not crashes(caplog.records)
    finally:
        sh.close()


def test_a_screen_that_cannot_be_laid_out_stops_its_app_and_the_device_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sh = ShellDevice(tmp_path)
    try:
        screen = Screen(sh.device)
        # A row built from a value the app did not check: no text at all where text is laid out.
        monkeypatch.setattr(Dialer, "recents", lambda self, ctx: [Text(text=None)])  # type: ignore[arg-type]
        screen.am.launch("com.google.android.dialer")
        shown = screen.xml()
        assert "Phone keeps stopping" in shown and 'package="com.google.android.dialer"' not in shown
        assert sh.run("screencap -p").out.startswith(b"\x89PNG")
        assert sh.run("input keyevent 3").status == 0 and screen.xml().startswith("<?xml")
    finally:
        sh.close()
