"""Setup steps reach the device in as few round trips as their order allows, each still checked
on its own output and status; a capture never reads a reply cut short as an empty device."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from mgfarm.catalog import load_catalog
from mgfarm.errors import MgfarmError
from mgfarm.tasks.state import capture, run_sections
from mgfarm.tasks.steps import apply_steps, queue_steps
from tests.unit.shellkit import SimTaskDevice
from tests.unit.sim_screen import Screen

CATALOG = load_catalog([])


@dataclass
class Reply:
    output: str
    exit_code: int


@dataclass
class FakeDevice:
    """A device whose shell runs each line of a script: `echo` prints, anything else is looked up in
    `replies` (output, status; default no output and status 0) and recorded."""

    replies: dict[str, tuple[str, int]] = field(default_factory=dict)
    profile: str = ""
    trips: list[str] = field(default_factory=list)  # what each round trip was
    ran: list[str] = field(default_factory=list)  # every command, in order
    cut_after: int = 0  # a device that dies after this many bytes of reply (0: never)

    def _run(self, script: str) -> tuple[str, int]:
        out, status = [], 0
        for line in script.split("\n"):
            for part in line.split("; "):
                if echo := re.fullmatch(r"echo ['\"](.*)['\"]", part):
                    out.append(echo.group(1).replace("$?", str(status)) + "\n")
                    continue
                self.ran.append(part)
                if part.startswith("sha1sum "):  # every file missing: nothing to pull
                    paths = part.split()[1:]
                    text, status = "".join(f"sha1sum: {p}: No such file or directory\n" for p in paths), 1
                else:
                    text, status = self.replies.get(part, ("", 0))
                out.append(text)
        text = "".join(out)
        return (text[: self.cut_after] if self.cut_after else text), status

    def shell2(self, script: str) -> Reply:
        self.trips.append("shell")
        text, status = self._run(script)
        return Reply(text.rstrip(), status)

    def shell(self, script: str) -> str:
        self.trips.append("shell")
        return self._run(script)[0]

    def push(self, data: bytes, path: str) -> None:
        self.push_many([(data, path)])

    def push_many(self, files: list[tuple[bytes, str]]) -> None:
        self.trips.append("push")
        self.ran += [f"push {path}" for _, path in files]

    def snapshot_load(self, name: str) -> None:
        self.trips.append("console")


def test_consecutive_writes_go_in_one_round_trip_and_a_push_keeps_its_place() -> None:
    device = FakeDevice()
    steps: list[Any] = [
        {"settings": {"global": {"wifi_on": 0}}},
        {"set_time": "2026-07-01 12:34"},
        {"sql": {"db": "alarms", "sql": "DELETE FROM alarm_templates"}},
        {"push_file": {"path": "/sdcard/a.txt", "text": "hi"}},
        {"content_insert": {"uri": "content://sms/inbox", "values": {"address": "555", "read": True}}},
        "home",
    ]
    apply_steps(device, steps, CATALOG)  # type: ignore[arg-type]
    assert device.trips == ["shell", "push", "shell"]
    assert device.ran[0] == "settings put global wifi_on 0"
    assert device.ran[1] == "date 070112342026.00"
    assert device.ran[3] == "push /sdcard/a.txt"
    assert device.ran[4] == "content insert --uri content://sms/inbox --bind address:s:555 --bind read:b:true"


def test_consecutive_pushes_share_one_sync_session_in_the_steps_order() -> None:
    device = FakeDevice()
    steps: list[Any] = [
        {"set_time": "2026-07-01 12:34"},
        {"push_file": {"path": "/sdcard/Music/a.mp3", "size": 3}},
        {"push_file": {"path": "/sdcard/Music/b.mp3", "size": 3}},
        "home",
        {"push_file": {"path": "/sdcard/Music/c.mp3", "size": 3}},
    ]
    apply_steps(device, steps, CATALOG)  # type: ignore[arg-type]
    assert device.trips == ["shell", "push", "shell", "push"]
    assert device.ran[1:3] == ["push /sdcard/Music/a.mp3", "push /sdcard/Music/b.mp3"]
    assert device.ran[-1] == "push /sdcard/Music/c.mp3"
    queued = FakeDevice()
    queue_steps(queued, steps[:3], CATALOG)  # type: ignore[arg-type]
    assert queued.trips == ["shell", "push"]  # the files are written before queue_steps returns


def test_each_step_is_checked_on_its_own_output() -> None:
    insert = "content insert --uri content://sms/inbox --bind body:s:x"
    device = FakeDevice(replies={insert: ("Error: no such table\n", 0)})
    steps: list[Any] = [
        {"set_time": "2026-07-01 12:34"},
        {"content_insert": {"uri": "content://sms/inbox", "values": {"body": "x"}}},
    ]
    with pytest.raises(MgfarmError, match=r"Setup step content_insert failed.*no such table"):
        apply_steps(device, steps, CATALOG)  # type: ignore[arg-type]
    device = FakeDevice(replies={"date 070112342026.00": ("date: bad\n", 1)})
    with pytest.raises(MgfarmError, match="Setup step set_time failed"):
        apply_steps(device, [*steps[:1], "home"], CATALOG)  # type: ignore[arg-type]


def test_events_read_the_time_zone_once_with_the_writes_before() -> None:
    device = FakeDevice(replies={"getprop persist.sys.timezone": ("Asia/Kolkata\n", 0)})
    event = {"title": "Dentist", "day": "2026-03-04", "start": "09:30", "end": "10:00"}
    apply_steps(
        device, [{"set_time": "2026-03-02 08:00"}, {"add_event": event}, {"add_event": event}], CATALOG
    )  # type: ignore[arg-type]
    assert device.trips == ["shell", "shell"]
    assert device.ran.count("getprop persist.sys.timezone") == 1
    start = 1772596800000  # 2026-03-04 09:30 in Asia/Kolkata (UTC+5:30)
    assert f"--bind dtstart:l:{start}" in device.ran[-1] and "eventTimezone:s:Asia/Kolkata" in device.ran[-1]


def test_a_reset_time_zone_goes_first_in_the_setup_round_trip_and_is_not_read_back() -> None:
    device = FakeDevice()
    event = {"title": "Dentist", "day": "2026-03-04", "start": "09:30", "end": "10:00"}
    queue_steps(device, [{"add_event": event}], CATALOG, timezone="Asia/Kolkata").flush()  # type: ignore[arg-type]
    assert device.trips == ["shell"]
    assert device.ran[0] == "setprop persist.sys.timezone Asia/Kolkata"
    assert "getprop persist.sys.timezone" not in device.ran
    assert "--bind dtstart:l:1772596800000" in device.ran[-1]  # 09:30 in Kolkata, not in UTC


def test_a_capture_reply_cut_short_is_an_error_not_an_empty_device() -> None:
    commands = {"settings.global": "settings list global", "files": "ls -lR /storage/emulated/0"}
    replies = {
        "settings list global": ("wifi_on=1\n", 0),
        "ls -lR /storage/emulated/0": ("/storage/emulated/0:\n", 0),
    }
    whole = run_sections(FakeDevice(replies=replies), commands)  # type: ignore[arg-type]
    assert whole["settings.global"] == ["wifi_on=1"]
    with pytest.raises(MgfarmError, match="stopped early"):
        run_sections(FakeDevice(replies=replies, cut_after=40), commands)  # type: ignore[arg-type]


def test_the_last_setup_commands_share_the_capture_round_trip_and_are_checked() -> None:
    device = FakeDevice(replies={"settings list global": ("wifi_on=0\n", 0)})
    steps: list[Any] = [{"settings": {"global": {"wifi_on": 0}}}, {"set_time": "2026-07-01 12:34"}]
    snap = capture(device, CATALOG.state, before=queue_steps(device, steps, CATALOG))  # type: ignore[arg-type]
    assert device.trips == ["shell"]
    assert device.ran[:2] == ["settings put global wifi_on 0", "date 070112342026.00"]
    assert device.ran[2].startswith("settings list")  # the reads come after the writes
    assert snap.table("settings.global") == {"wifi_on": {"value": "0"}}
    failing = FakeDevice(replies={"date 070112342026.00": ("date: bad\n", 1)})
    with pytest.raises(MgfarmError, match="Setup step set_time failed"):
        capture(failing, CATALOG.state, before=queue_steps(failing, steps, CATALOG))  # type: ignore[arg-type]


def test_a_preferences_step_replaces_the_apps_settings_file_and_the_app_shows_them(
    task_device: SimTaskDevice,
) -> None:
    prefs = "/data/data/de.dennisguse.opentracks/shared_prefs/de.dennisguse.opentracks_preferences.xml"
    task_device.shell(
        f'mkdir -p {prefs.rsplit("/", 1)[0]} && echo \'<map><int name="old" value="1" /></map>\' > {prefs}'
    )
    values = {"statsUnits": "IMPERIAL", "odd": "<&'\">", "n": 3, "on": True}
    apply_steps(task_device, [{"preferences": {"app": "opentracks", "values": values}}], CATALOG)  # type: ignore[arg-type]
    text = task_device.sh.host(prefs).read_text()
    assert "old" not in text  # replaced, not merged
    assert '<int name="n" value="3" />' in text and '<boolean name="on" value="true" />' in text
    db = "/data/data/de.dennisguse.opentracks/databases/database.db"
    task_device.shell(
        f'sqlite3 {db} "INSERT INTO tracks (name, description, category, starttime, stoptime, totaldistance,'
        " totaltime, movingtime) VALUES ('Loop', '', 'running', 1, 2, 1979, 2700000, 2700000)\""
    )
    screen = Screen(task_device.sh.device)
    screen.am.launch("de.dennisguse.opentracks")
    assert screen.has(text="45:00 (1.23 mi)")  # the app's own default would show 1.98 km
    # What the app reads back is what the step wrote, special characters included.
    app = task_device.sh.device.services.apps["de.dennisguse.opentracks"]
    assert app.preferences() == values
