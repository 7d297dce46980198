"""Android's date and time pickers (mgfarm/sim/ui/pickers.py) as Calendar's event editor opens them,
driven by taps and typing, and the scripted agent's pick_date / pick_time steps playing them from the
uiautomator dump."""

from __future__ import annotations

import math
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from mgfarm.sim.device import SimDevice
from mgfarm.tasks.pickers import pick_date, pick_time
from tests.unit.sim_screen import Screen, boot_device, find, nodes

PKG = "com.android.calendar"
ID = PKG + ":id/"
NOW = datetime(2026, 12, 3, 8, 0, tzinfo=timezone.utc)


def editor(tmp_path: Path) -> tuple[SimDevice, Screen]:
    device = boot_device(tmp_path)
    device.services.clock.freeze(True)
    device.services.clock.set_ms(int(NOW.timestamp() * 1000))
    screen = Screen(device)
    screen.am.launch(PKG)
    screen.tap(desc="Create new event")
    return device, screen


def text(screen: Screen, rid: str) -> str:
    return find(screen.xml(), rid=rid).attrs["text"]


def test_months_turn_and_a_tapped_day_is_taken_by_ok(tmp_path: Path) -> None:
    _, screen = editor(tmp_path)
    assert text(screen, ID + "start_date") == "Thu, Dec 3, 2026"
    screen.tap(rid=ID + "start_date")
    xml = screen.xml()
    assert find(xml, rid="android:id/date_picker_header_year").attrs["text"] == "2026"
    today = find(xml, desc="03 December 2026")
    assert today.attrs["selected"] == "true" and today.attrs["class"] == "android.view.View"
    screen.tap(rid="android:id/next")
    screen.tap(rid="android:id/next")
    screen.tap(rid="android:id/prev")  # December, January, February, back to January
    assert screen.has(desc="01 January 2027") and not screen.has(desc="03 December 2026")
    screen.tap(desc="15 January 2027")
    assert find(screen.xml(), rid="android:id/date_picker_header_date").attrs["text"] == "Fri, Jan 15"
    screen.tap(rid="android:id/button1")
    assert text(screen, ID + "start_date") == "Fri, Jan 15, 2027"
    assert text(screen, ID + "end_date") == "Fri, Jan 15, 2027"  # the end keeps the event's length


def test_cancel_and_back_leave_the_value_as_it_was(tmp_path: Path) -> None:
    _, screen = editor(tmp_path)
    screen.tap(rid=ID + "start_date")
    screen.tap(desc="20 December 2026")
    screen.tap(rid="android:id/button2")
    assert text(screen, ID + "start_date") == "Thu, Dec 3, 2026"
    screen.tap(rid=ID + "start_time")
    screen.tap(desc="4")
    screen.wm.key(4)
    assert not screen.has(rid="android:id/radial_picker")
    assert text(screen, ID + "start_time") == "9:00 AM"


def test_the_dial_sets_the_hour_then_the_minutes_and_am_pm(tmp_path: Path) -> None:
    _, screen = editor(tmp_path)
    screen.tap(rid=ID + "start_time")
    assert find(screen.xml(), rid="android:id/hours").attrs["text"] == "9"
    screen.tap(desc="4")  # the hour; the dial moves on to the minutes
    assert screen.has(desc="55") and not screen.has(desc="11")
    screen.tap(desc="25")
    assert find(screen.xml(), rid="android:id/minutes").attrs["text"] == "25"
    # a tap between the numbers takes the nearest minute: 7 minutes past, short of the 10's disc
    dial = find(screen.xml(), rid="android:id/radial_picker")
    x0, y0, x1, y1 = (int(v) for v in dial.attrs["bounds"].replace("][", ",").strip("[]").split(","))
    r, a = (x1 - x0) / 2 * 0.5, 2 * math.pi * 7 / 60
    screen.wm.tap(round((x0 + x1) / 2 + r * math.sin(a)), round((y0 + y1) / 2 - r * math.cos(a)))
    assert find(screen.xml(), rid="android:id/minutes").attrs["text"] == "07"
    screen.tap(desc="25")
    screen.tap(rid="android:id/pm_label")
    xml = screen.xml()
    assert [find(xml, rid=f"android:id/{v}").attrs["text"] for v in ("hours", "minutes")] == ["4", "25"]
    assert find(xml, rid="android:id/pm_label").attrs["checked"] == "true"
    screen.tap(text="OK")
    assert text(screen, ID + "start_time") == "4:25 PM"
    assert text(screen, ID + "end_time") == "5:25 PM"


def test_the_keyboard_mode_takes_typed_values_and_refuses_bad_ones(tmp_path: Path) -> None:
    _, screen = editor(tmp_path)
    screen.tap(rid=ID + "end_time")
    screen.tap(desc="Switch to text input mode for the time input.")
    screen.wm.text("13")  # the hour field has focus; 13 is no 12-hour hour
    screen.tap(text="OK")
    assert screen.has(rid="android:id/label_error")
    screen.wm.key(67)
    screen.wm.key(67)  # DEL twice: the field is empty again
    screen.wm.text("11")
    screen.type_into("07", rid="android:id/input_minute")
    screen.tap(rid="android:id/am_pm_spinner")
    screen.tap(text="PM", rid="android:id/text1")
    screen.tap(text="OK")
    assert text(screen, ID + "end_time") == "11:07 PM"
    assert text(screen, ID + "start_time") == "9:00 AM"


def elements(screen: Screen) -> list[dict[str, Any]]:
    """The dump as the env's ui_elements (the fields the scripted agent reads)."""
    out = []
    for n in nodes(screen.xml()):
        x0, y0, x1, y1 = (int(v) for v in n.attrs["bounds"].replace("][", ",").strip("[]").split(","))
        out.append(
            {
                "text": n.attrs["text"],
                "content_desc": n.attrs["content-desc"],
                "resource_id": n.attrs["resource-id"],
                "class_name": n.attrs["class"],
                "selected": n.attrs["selected"] == "true",
                "bounds": [x0, y0, x1, y1],
            }
        )
    return out


def play(screen: Screen, step: Any, value: str) -> int:
    """Run a picker step to its end the way the env would; returns the number of actions."""
    for n in range(1, 40):
        els = elements(screen)
        action, finished = step(value, els)
        assert action is not None, "no picker on screen"
        x0, y0, x1, y1 = els[action["index"]]["bounds"]
        screen.wm.tap((x0 + x1) // 2, (y0 + y1) // 2)
        if action["action_type"] == "input_text":
            screen.wm.text(action["text"])
        if finished:
            return n
    raise AssertionError("the step never finished")


def test_scripted_pick_date_and_pick_time_play_the_pickers(tmp_path: Path) -> None:
    _, screen = editor(tmp_path)
    screen.tap(rid=ID + "start_date")
    assert play(screen, pick_date, "2026-10-30") == 4  # two months back, the day, OK
    screen.tap(rid=ID + "start_time")
    play(screen, pick_time, "18:05")
    screen.tap(rid=ID + "end_time")
    play(screen, pick_time, "23:59")
    xml = screen.xml()
    assert find(xml, rid=ID + "start_date").attrs["text"] == "Fri, Oct 30, 2026"
    times = [find(xml, rid=ID + f"{w}_time").attrs["text"] for w in ("start", "end")]
    assert times == ["6:05 PM", "11:59 PM"]
