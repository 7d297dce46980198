"""A list (or a long note) shows its rows as a RecyclerView does: only the rows in view are laid out
and appear as its children, and rows are measured only a few screens past the view. A device whose
shell filled an app with thousands of rows, or an agent that typed a note of thousands of lines,
made every frame lay out (and measure the text of) every row, ~1 s a frame at 5,000 rows and ~9 s
at 20,000 lines, while every other device of its worker waited."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from mgfarm.sim.apps import broccoli as broccoli_app
from mgfarm.sim.apps import calendar as calendar_app
from mgfarm.sim.apps import clock as clock_app
from mgfarm.sim.apps import files as files_app
from mgfarm.sim.apps import folder_picker as folder_picker_app
from mgfarm.sim.apps import markor as markor_app
from mgfarm.sim.apps import osmand as osmand_app
from mgfarm.sim.apps import retromusic as retro_app
from mgfarm.sim.apps import smsmessenger as sms_app
from mgfarm.sim.apps import vlc as vlc_app
from mgfarm.sim.apps.gallery import Gallery
from mgfarm.sim.apps.retromusic import RetroMusic
from mgfarm.sim.apps.simple_calendar import SimpleCalendar
from mgfarm.sim.apps.tasks_org import TasksOrg
from mgfarm.sim.ui import views
from mgfarm.sim.ui.kept import SETTLED_NS
from mgfarm.sim.ui.views import View
from tests.unit.shellkit import ShellDevice
from tests.unit.sim_screen import Screen, find, nodes

T = TypeVar("T")
TASKS_DB = "/data/data/org.tasks/databases/database"


def add_tasks(sh: ShellDevice, count: int) -> None:
    """`count` tasks of distinct titles, through the device's own sqlite3 as a hostile agent would."""
    rows = (
        f"WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n LIMIT {count}) "
        "INSERT INTO tasks (title, importance, dueDate, hideUntil, created, modified, completed, deleted, "
        "estimatedSeconds, elapsedSeconds, timerStart, notificationFlags, lastNotified, collapsed, parent) "
        "SELECT 'Task number ' || x || ' of the pile', 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 FROM n"
    )
    assert sh.run(f'sqlite3 {TASKS_DB} "{rows}"').status == 0


def counted(made: list[int], real: Callable[..., T]) -> Callable[..., T]:
    """`real`, noting each call in `made` (a row builder, to count the rows a frame makes)."""

    def run(*args: Any, **kwargs: Any) -> T:
        made.append(1)
        return real(*args, **kwargs)

    return run


def empty_files(sh: ShellDevice, folder: str, name: str, count: int) -> None:
    """`count` empty files named `name.format(i)` in device folder `folder`, written on the host."""
    host = sh.host(folder)
    host.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (host / name.format(i)).touch()


def list_rows(screen: Screen) -> list[dict[str, str]]:
    """The rows the task list's RecyclerView holds in its dump, in order."""
    found = [n.attrs for n in nodes(screen.xml()) if n.attrs["resource-id"] == "org.tasks:id/row"]
    assert found, "no task rows on screen"
    return found


def test_a_long_list_costs_a_frame_what_its_screenful_does(sh: ShellDevice, measured: list[int]) -> None:
    screen = Screen(sh.device)
    screen.am.launch("org.tasks")
    work = []
    for count in (100, 5_000):
        assert sh.run(f"sqlite3 {TASKS_DB} 'DELETE FROM tasks'").status == 0
        add_tasks(sh, count)
        measured.clear()
        assert sh.run("screencap -p").status == 0
        assert len(list_rows(screen)) < 20
        work.append(len(measured))
    assert work[1] <= work[0]  # laid out whole, 5,000 rows of distinct titles measured ~15,000 texts


def test_a_list_holds_the_rows_in_view_as_its_children(sh: ShellDevice) -> None:
    screen = Screen(sh.device)
    add_tasks(sh, 60)
    screen.am.launch("org.tasks")
    first = list_rows(screen)
    for _ in range(30):  # flings to the end of the list (sorted by title: "... 9 of the pile" last)
        screen.wm.swipe(540, 1800, 540, 600, 100)
    last = list_rows(screen)
    assert screen.has(text="Task number 9 of the pile") and not screen.has(text="Task number 1 of the pile")
    assert [r["index"] for r in last] == [str(i) for i in range(len(last))]  # as uiautomator numbers them
    assert len(last) <= len(first) + 1  # no more rows held than the screen shows


def test_typing_reaches_a_focused_field_scrolled_out_of_view(sh: ShellDevice) -> None:
    # Landscape with the keyboard up leaves the contact editor a strip to scroll in.
    rotate = "settings put system accelerometer_rotation 0; settings put system user_rotation 1"
    assert sh.run(rotate).status == 0
    screen = Screen(sh.device)
    screen.am.launch("com.google.android.contacts")
    screen.tap(desc="Create contact")
    screen.tap(text="First name")
    scroll = next(n for n in nodes(screen.xml()) if n.attrs["scrollable"] == "true")
    x, y = scroll.center
    screen.wm.swipe(x, y + 100, x, y - 100, 100)
    assert not screen.has(text="First name")  # scrolled out of view, still focused
    screen.wm.text("Ann")
    for _ in range(2):
        screen.wm.swipe(x, y - 100, x, y + 100, 100)
    assert screen.has(text="Ann")


JOPLIN_DB = "/data/data/net.cozic.joplin/databases/joplin.sqlite"


def open_note(sh: ShellDevice, lines: int) -> Screen:
    """Joplin showing a note of `lines` lines of differing lengths (one to three screen lines each),
    which an agent types in a few steps (an input of 10,000 characters makes 1,000 lines)."""
    body = (
        f"WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n LIMIT {lines}) SELECT group_concat("
        "substr('line ' || x || ' of a long note that wraps over more than one line of the screen',"
        " 1, 8 + x % 90), char(10)) FROM n"
    )
    note = (
        "INSERT INTO notes (id, parent_id, title, created_time, updated_time, body) "
        f"VALUES ('big', '', 'Big note', 1, 1, ({body}))"
    )
    assert sh.run(f'sqlite3 {JOPLIN_DB} "{note}"').status == 0
    screen = Screen(sh.device)
    screen.am.launch("net.cozic.joplin")
    screen.tap(text="Big note")
    return screen


def test_a_long_note_costs_a_frame_what_a_few_screens_do(tmp_path: Path, measured: list[int]) -> None:
    work = []
    for lines in (300, 6_000):
        sh = ShellDevice(tmp_path / str(lines))
        try:
            screen = open_note(sh, lines)
            measured.clear()
            assert sh.run("screencap -p").status == 0 and screen.has(text="line 1 of")
            work.append(len(measured))
        finally:
            sh.close()
    assert work[1] <= work[0]  # measured whole, 6,000 lines of distinct text took ~50,000 texts, ~3 s


def test_a_fling_stops_exactly_at_the_end_of_rows_of_differing_heights(sh: ShellDevice) -> None:
    screen = open_note(sh, 400)
    for _ in range(60):
        screen.wm.swipe(540, 2000, 540, 400, 100)
    at_end = screen.xml()
    last = find(at_end, text="line 400 of a long note that wraps over more tha")
    scroll = next(n for n in nodes(at_end) if n.attrs["scrollable"] == "true")
    bottom = int(scroll.attrs["bounds"].rsplit(",", 1)[1].rstrip("]"))
    assert bottom - 100 < int(last.attrs["bounds"].rsplit(",", 1)[1].rstrip("]")) <= bottom
    screen.wm.swipe(540, 2000, 540, 400, 100)
    assert screen.xml() == at_end  # nothing further


def test_an_app_makes_only_the_rows_a_frame_shows(sh: ShellDevice, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tasks hands its rows to the list made on demand, as an adapter binds them: a frame of 20,000
    tasks (half of them completed, shown under their header) made a view for every task, ~1.5 s
    a frame at 100,000, and placed the header with a scan of the rows before it for every completed
    task (quadratic)."""
    made: list[int] = []
    monkeypatch.setattr(TasksOrg, "row", counted(made, TasksOrg.row))
    add_tasks(sh, 20_000)
    assert sh.run(f"sqlite3 {TASKS_DB} 'UPDATE tasks SET completed = 1 WHERE _id % 2 = 0'").status == 0
    screen = Screen(sh.device)
    screen.am.launch("org.tasks")
    screen.tap(desc="More options")
    screen.tap(text="Show completed")
    made.clear()
    for _ in range(3):
        screen.wm.swipe(540, 1800, 540, 600, 100)
        assert list_rows(screen)
    assert 0 < len(made) < 3 * 200  # each frame: the rows a fling can reach, not 20,000


def test_files_makes_only_the_rows_a_frame_shows_and_lists_a_link_to_nothing(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder a shell filled with 20,000 files took Files ~1 s a frame (a stat and a view for each);
    a link to nothing (a root shell can make one) stopped the app."""
    made: list[int] = []
    monkeypatch.setattr(files_app, "list_item", counted(made, files_app.list_item))
    empty_files(sh, "/sdcard/Download", "f{:05d}.txt", 5_000)
    # Shared storage takes no link from a shell (FUSE); planted below it, the app must still cope.
    sh.device.fs.symlink("/nowhere", "/sdcard/Download/a_link")
    screen = Screen(sh.device)
    screen.am.launch("com.google.android.documentsui")
    screen.tap(text="Download")
    assert screen.has(text="a_link") and (screen.am.resumed() or ("",))[0] == "com.google.android.documentsui"
    made.clear()
    screen.wm.swipe(540, 1800, 540, 600, 100)
    assert screen.has(text="f00010.txt") or screen.has(text="f00020.txt")
    assert 0 < len(made) < 200


def test_a_chat_opens_at_its_newest_message_making_only_the_newest(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A thread keeps its offset from its end (a chat's newest message in view): counted from the
    top, opening a thread of 20,000 messages at its newest made and measured every message, ~2 s a
    frame."""
    made: list[int] = []
    monkeypatch.setattr(sms_app, "bubble", counted(made, sms_app.bubble))
    assert (
        sh.run("content insert --uri content://sms --bind address:s:5551234 --bind body:s:first").status == 0
    )
    many = (
        "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 5000) INSERT INTO sms"
        " (thread_id, address, body, type, date, read) SELECT (SELECT thread_id FROM sms LIMIT 1), '5551234',"
        " 'message ' || i, 1 + i % 2, 1772500000000 + i * 1000, 1 FROM k"
    )
    assert (
        sh.run(f'sqlite3 /data/data/com.android.providers.telephony/databases/mmssms.db "{many}"').status == 0
    )
    screen = Screen(sh.device)
    screen.am.launch("com.simplemobiletools.smsmessenger")
    made.clear()
    screen.tap(text="5551234")
    assert screen.has(text="message 5000") and not screen.has(text="message 4900")
    screen.wm.swipe(540, 600, 540, 1800, 300)  # back in time: older messages come down into view
    shown = [
        int(n.attrs["text"].split()[1]) for n in nodes(screen.xml()) if n.attrs["text"].startswith("message ")
    ]
    assert shown == sorted(shown) and 4_900 < shown[0] < 5_000  # the dump lists them from the top
    assert 0 < len(made) < 3 * 100


def test_messages_opens_a_conversation_at_its_newest_message(sh: ShellDevice) -> None:
    """As a phone's Messages does (it opened at the oldest, and a reply sent there was out of view)."""
    for i in range(40):
        sms = f"--bind address:s:5551234 --bind body:s:'note {i}' --bind type:i:1 --bind date:l:{i + 1}"
        assert sh.run(f"content insert --uri content://sms {sms}").status == 0
    screen = Screen(sh.device)
    screen.am.launch("com.android.messaging")
    screen.tap(text="5551234")
    assert screen.has(text="note 39") and not screen.has(text="note 0")
    screen.wm.swipe(540, 600, 540, 2000, 100)  # a fling back to older messages
    screen.wm.swipe(540, 600, 540, 2000, 100)
    assert screen.has(text="note 0")
    screen.type_into("on my way", text="Text message")
    screen.tap(desc="Send SMS")
    assert screen.has(text="on my way") and screen.has(text="note 39")


SIMPLE_CALENDAR = "com.simplemobiletools.calendar.pro"


def event_titles(screen: Screen) -> list[str]:
    """The titles of the events a list of Simple Calendar's shows, from the top."""
    rid = f"{SIMPLE_CALENDAR}:id/event_item_title"
    return [n.attrs["text"] for n in nodes(screen.xml()) if n.attrs["resource-id"] == rid]


def numbers(count: int) -> str:
    """The start of a statement with the numbers 1..count as `n(x)`."""
    return f"WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n LIMIT {count}) "


def at_noon_on_4_march(sh: ShellDevice) -> None:
    clock = sh.device.services.clock
    clock.freeze(True)
    clock.set_ms(1772625600000)


def add_overlapping_events(sh: ShellDevice, count: int) -> None:
    """`count` hour-long events in Simple Calendar, "Event n" starting n seconds after 13:00 on 4 March."""
    events = (
        numbers(count) + "INSERT INTO events"
        " (start_ts, end_ts, title, location, description, reminder_1_minutes, reminder_2_minutes,"
        " reminder_3_minutes, reminder_1_type, reminder_2_type, reminder_3_type, repeat_interval,"
        " repeat_rule, repeat_limit, repetition_exceptions, attendees, import_id, time_zone, flags,"
        " event_type, parent_id, last_updated, source, availability, color, type)"
        " SELECT 1772629200 + x, 1772632800 + x, 'Event ' || x, '', '', -1, -1, -1, 0, 0, 0, 0, 0, 0,"
        " '[]', '[]', '', 'UTC', 0, 1, 0, 0, '', 0, 0, 0 FROM n"
    )
    assert sh.run(f'sqlite3 /data/data/{SIMPLE_CALENDAR}/databases/events.db "{events}"').status == 0


def open_simple_calendar(sh: ShellDevice, events: int) -> Screen:
    """Simple Calendar opened at noon on 4 March (the clock stopped), with `events` overlapping events."""
    at_noon_on_4_march(sh)
    add_overlapping_events(sh, events)
    screen = Screen(sh.device)
    screen.am.launch(SIMPLE_CALENDAR)
    return screen


def test_simple_calendar_makes_only_the_event_rows_a_frame_shows(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Simple Calendar's day view, event list and search results make their rows on demand: 20,000
    events of one day took its day view ~1.7 s a frame, a view for every event."""
    made: list[int] = []
    monkeypatch.setattr(SimpleCalendar, "when", counted(made, SimpleCalendar.when))
    screen = open_simple_calendar(sh, 5000)
    for view in ("Daily view", "Simple event list"):
        screen.tap(desc="Change view")
        screen.tap(text=view)
        assert screen.has(text="Event 1") and screen.has(text="13:00 - 14:00")
        made.clear()
        tops = []
        for _ in range(3):
            screen.wm.swipe(540, 1800, 540, 600, 100)
            tops.append(event_titles(screen)[0])
        assert 0 < len(made) < 3 * 200  # each frame: the rows a fling can reach, not 5,000
        starts = [int(t.split()[1]) for t in tops]  # by start: event n starts n seconds after 13:00
        assert 1 < starts[0] < starts[1] < starts[2] < 100
    screen.tap(desc="Search")
    made.clear()
    screen.wm.text("Event 4")
    assert screen.has(text="Event 4") and screen.has(text="Mar 4 2026, 13:00 - 14:00")
    assert 0 < len(made) < 200  # 1,111 events match: those on screen and a few screens on


def test_simple_calendar_measures_no_title_a_lane_of_its_week_has_no_room_for(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Overlapping events share their day's column of the week grid, a lane each; with more than a
    few, a lane is narrower than its label's padding and TextView shows nothing there. Wrapping each
    title a character a line took the week ~11 s a frame at 20,000 events of one day."""
    wrapped: list[int] = []
    monkeypatch.setattr(views, "wrap", counted(wrapped, views.wrap))
    screen = open_simple_calendar(sh, 2000)
    screen.tap(desc="Change view")
    wrapped.clear()
    screen.tap(text="Weekly view")
    screen.wm.swipe(540, 1800, 540, 900, 300)  # to the afternoon
    assert screen.has(text="Mar 1 - Mar 7") and screen.has(text="13:00")
    assert 0 < len(wrapped) < 500  # the screen's other texts, not a wrap of each of 2,000 titles


def test_calendar_makes_only_the_event_rows_of_a_day_a_frame_shows(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Calendar's day makes its rows on demand: 20,000 events of a day, put in the calendar
    provider's database by a shell, took 0.4-0.9 s a frame, a view for every event."""
    made: list[int] = []
    monkeypatch.setattr(calendar_app, "list_item", counted(made, calendar_app.list_item))
    at_noon_on_4_march(sh)
    events = (
        numbers(5000) + "INSERT INTO Events"
        " (calendar_id, title, dtstart, dtend) SELECT 1, 'Event ' || x, 1772629200000 + x * 1000,"
        " 1772632800000 + x * 1000 FROM n"
    )
    db = "/data/data/com.android.providers.calendar/databases/calendar.db"
    assert sh.run(f'sqlite3 {db} "{events}"').status == 0
    screen = Screen(sh.device)
    screen.am.launch("com.android.calendar")
    screen.tap(text="Day")
    assert screen.has(text="Event 1") and screen.has(text="1:00 PM – 2:00 PM")
    made.clear()
    tops = []
    for _ in range(3):
        screen.wm.swipe(540, 1800, 540, 600, 100)
        first = find(screen.xml(), rid="com.android.calendar:id/event_title")
        tops.append(int(first.attrs["text"].split()[1]))
    assert 1 < tops[0] < tops[1] < tops[2] < 100
    assert 0 < len(made) < 3 * 200  # each frame: the rows a fling can reach, not 5,000


CLOCK = "com.google.android.deskclock"


def test_clock_makes_only_the_alarms_and_laps_a_frame_shows(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Clock's alarms and stopwatch laps are made on demand: 20,000 alarms a shell put in alarms.db
    took 1.3-2.2 s a frame; a shell's loop tapping Lap made a row for every lap on every tap (3,000
    taps: 74 s)."""
    made: list[int] = []
    monkeypatch.setattr(clock_app, "time_text", counted(made, clock_app.time_text))
    monkeypatch.setattr(clock_app, "duration_text", counted(made, clock_app.duration_text))
    alarms = (
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n LIMIT 5000)"
        " INSERT INTO alarm_templates (hour, minutes, daysofweek, enabled, vibrate, label)"
        " SELECT 0, 0, 127, 0, 1, 'alarm ' || x FROM n"
    )
    assert sh.run(f'sqlite3 /data/data/{CLOCK}/databases/alarms.db "{alarms}"').status == 0
    screen = Screen(sh.device)
    screen.am.launch(CLOCK)
    assert screen.has(text="alarm 1 · Every day")
    made.clear()
    for _ in range(3):
        screen.wm.swipe(540, 1800, 540, 600, 100)
    assert screen.has(text="alarm 20 · Every day") and not screen.has(text="alarm 1 · Every day")
    assert 0 < len(made) < 3 * 200
    screen.tap(text="Stopwatch")
    screen.tap(desc="Start")
    record = screen.am.resumed_record()
    assert record is not None
    record.state["sw_laps"] = list(range(1000, 5_001_000, 1000))  # as 5,000 taps of Lap leave them
    made.clear()
    screen.tap(desc="Lap")
    assert screen.has(text="# 5001") and screen.has(text="# 4998")
    screen.wm.swipe(540, 1800, 540, 1500, 100)
    assert not screen.has(text="# 5001") and screen.has(text="# 4990")
    assert 0 < len(made) < 2 * 200


def test_broccoli_makes_only_the_recipe_cards_a_frame_shows(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """20,000 recipes a shell put in Broccoli's database took ~0.4 s a swipe (a card for each)."""
    made: list[int] = []
    real = broccoli_app.Column

    def column(**k: Any) -> View:
        made.extend([1] if k.get("id") == "card_view" else [])
        return real(**k)

    monkeypatch.setattr(broccoli_app, "Column", column)
    many = (
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n LIMIT 10000) INSERT INTO recipes"
        " (title, description, favorite) SELECT 'Recipe ' || printf('%05d', x), 'made ' || x, 0 FROM n"
    )
    assert sh.run(f'sqlite3 /data/data/com.flauschcode.broccoli/databases/broccoli "{many}"').status == 0
    screen = Screen(sh.device)
    screen.am.launch("com.flauschcode.broccoli")
    assert screen.has(text="Recipe 00001")
    made.clear()
    for _ in range(3):
        screen.wm.swipe(540, 1800, 540, 600, 100)
    shown = [n.attrs["text"] for n in nodes(screen.xml()) if n.attrs["text"].startswith("Recipe ")]
    assert shown == sorted(shown) and "Recipe 00010" < shown[0] < "Recipe 00100"
    assert 0 < len(made) < 3 * 200


def test_gallery_makes_only_the_grid_rows_a_frame_shows(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder of 20,000 pictures took Simple Gallery ~2.4 s a swipe: a cell (and its file's host
    path) for every picture; a row of cells is now made as the grid shows it."""
    made: list[int] = []
    monkeypatch.setattr(Gallery, "picture", counted(made, Gallery.picture))
    empty_files(sh, "/sdcard/Pictures/Many", "p{:05d}.png", 5_000)
    screen = Screen(sh.device)
    screen.am.launch("com.simplemobiletools.gallery.pro")
    screen.tap(text="Many")
    made.clear()
    screen.wm.swipe(540, 1800, 540, 600, 100)
    shown = [n.attrs["text"] for n in nodes(screen.xml()) if n.attrs["text"].startswith("p")]
    assert shown and "p00000.png" not in shown and len(shown) % 3 == 0  # whole rows of three
    assert 0 < len(made) < 200


def test_markor_makes_only_the_file_rows_a_frame_shows(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A notebook a shell filled with files took Markor ~0.1 s a swipe at its 2,000 listed entries
    (a row, and its time formatted, for each)."""
    made: list[int] = []
    monkeypatch.setattr(markor_app, "list_item", counted(made, markor_app.list_item))
    empty_files(sh, "/sdcard/Documents/Markor", "note{:05d}.md", 5_000)
    screen = Screen(sh.device)
    screen.am.launch("net.gsantner.markor")
    made.clear()
    for _ in range(2):
        screen.wm.swipe(540, 1800, 540, 600, 100)
    shown = [n.attrs["text"] for n in nodes(screen.xml()) if n.attrs["text"].startswith("note")]
    assert shown and shown == sorted(shown) and shown[0] != "note00000.md"
    assert 0 < len(made) < 2 * 200


def test_markor_move_dialog_makes_only_the_folder_rows_it_shows(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The "Move to folder" dialog over a notebook of 2,000 folders took ~0.3 s a swipe."""
    made: list[int] = []
    monkeypatch.setattr(markor_app, "list_item", counted(made, markor_app.list_item))
    folder = sh.host("/sdcard/Documents/Markor")
    for i in range(2_000):
        (folder / f"dir{i:04d}").mkdir(parents=True)
    screen = Screen(sh.device)
    screen.am.launch("net.gsantner.markor")
    x, y = find(screen.xml(), text="dir0000").center
    screen.wm.swipe(x, y, x, y, 800)  # a long press selects it
    screen.tap(desc="Move")
    made.clear()
    screen.wm.swipe(540, 1400, 540, 1000, 300)
    shown = [
        n.attrs["text"] for n in nodes(screen.xml()) if n.attrs["resource-id"].endswith("move_item_title")
    ]
    assert (
        shown and shown == sorted(shown) and shown[0] > "dir0001"
    )  # scrolled; dir0000 itself is not a target
    assert 0 < len(made) < 200


def browse_playlists(screen: Screen, summary: str, item: str) -> None:
    """20,000 playlists ("List 100001" on): flung down and back, the first opened (`summary`, and
    items "`item` N" from 1), its items swiped."""
    screen.tap(text="Playlists")
    for _ in range(2):
        screen.wm.swipe(540, 1800, 540, 600, 100)
    assert screen.has(text="List 100030") and not screen.has(text="List 100001")
    for _ in range(3):  # back to the first playlist
        screen.wm.swipe(540, 600, 540, 1800, 100)
    screen.tap(text="List 100001")
    assert screen.has(text=summary) and screen.has(text=f"{item} 1")
    screen.wm.swipe(540, 1800, 540, 600, 100)
    assert screen.has(text=f"{item} 20") and not screen.has(text=f"{item} 1")


def test_retro_music_makes_only_the_rows_a_frame_shows(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shell can fill Retro Music's playlist database: 20,000 playlists, or a playlist of 20,000
    songs, took ~1 s a frame (a view for every row)."""
    made: list[int] = []
    monkeypatch.setattr(RetroMusic, "song_row", counted(made, RetroMusic.song_row))
    monkeypatch.setattr(retro_app, "list_item", counted(made, retro_app.list_item))
    screen = Screen(sh.device)
    screen.am.launch(retro_app.PKG)
    db = f"/data/data/{retro_app.PKG}/databases/playlist.db"
    playlists = (
        numbers(20_000) + "INSERT INTO PlaylistEntity (playlist_name) SELECT 'List ' || (100000 + x) FROM n"
    )
    songs = numbers(20_000) + (
        f"INSERT INTO SongEntity (playlist_creator_id, {retro_app.SONG_COLUMNS}) SELECT 1, x, 'Song ' || x,"
        " 0, 0, 200000, '/sdcard/Music/s' || x || '.mp3', 0, 1, 'Album', 2, 'Artist', NULL, NULL FROM n"
    )
    assert sh.run(f'sqlite3 {db} "{playlists}"; sqlite3 {db} "{songs}"').status == 0
    made.clear()
    browse_playlists(screen, "20000 Songs • 1111:06:40", "Song")
    assert 0 < len(made) < 5 * 200  # each frame: the rows a fling can reach, not 20,000


def test_vlc_makes_only_the_rows_a_frame_shows(sh: ShellDevice, monkeypatch: pytest.MonkeyPatch) -> None:
    """A shell can fill VLC's media library: 20,000 playlists, or a playlist of 20,000 videos, took
    ~0.5 s a frame (a view for every row)."""
    made: list[int] = []
    monkeypatch.setattr(vlc_app, "Row", counted(made, vlc_app.Row))
    screen = Screen(sh.device)
    screen.am.launch(vlc_app.PKG)
    media = numbers(20_000) + (
        "INSERT INTO Media (type, duration, title, filename, import_type)"
        " SELECT 1, 61000, 'Video ' || x, 'v' || x || '.mp4', 0 FROM n"
    )
    playlists = (
        numbers(20_000)
        + "INSERT INTO Playlist (name, creation_date) SELECT 'List ' || (100000 + x), 0 FROM n"
    )
    items = numbers(20_000) + (
        "INSERT INTO PlaylistMediaRelation (media_id, playlist_id, position) SELECT x, 1, x - 1 FROM n"
    )
    assert sh.run("; ".join(f'sqlite3 {vlc_app.DB} "{q}"' for q in (media, playlists, items))).status == 0
    made.clear()
    browse_playlists(screen, "20000 videos", "Video")
    assert 0 < len(made) < 5 * 200  # each frame: the rows a fling can reach, not 20,000


MMSSMS_DB = "/data/data/com.android.providers.telephony/databases/mmssms.db"
CONTACTS_DB = "/data/data/com.android.providers.contacts/databases/contacts2.db"


def add_conversations(sh: ShellDevice, count: int) -> None:
    """`count` conversations of one message each (distinct addresses, newest first by number), as a
    shell writes them into the telephony provider's database, threads and all."""
    k = f"WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < {count})"
    rows = (
        f"{k} INSERT INTO canonical_addresses (_id, address) SELECT i, '555' || (100000 + i) FROM k;"
        f"{k} INSERT INTO threads (_id, recipient_ids, date, snippet, read, message_count)"
        " SELECT i, i, 1772600000000 - i * 60000, 'hello number ' || i, 1, 1 FROM k;"
        f"{k} INSERT INTO sms (thread_id, address, body, type, date, read) SELECT i, '555' || (100000 + i),"
        " 'hello number ' || i, 1, 1772600000000 - i * 60000, 1 FROM k"
    )
    assert sh.run(f'sqlite3 {MMSSMS_DB} "{rows}"').status == 0


def add_contacts(sh: ShellDevice, count: int) -> None:
    """`count` contacts with a phone number each (named "Person 00001" on), through sqlite3."""
    k = f"WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < {count})"
    rows = (
        f"{k} INSERT INTO raw_contacts (starred) SELECT i % 2 FROM k;"
        f"{k} INSERT INTO view_data (raw_contact_id, mimetype, data1)"
        " SELECT i, 'vnd.android.cursor.item/name', 'Person ' || substr('0000' || i, -5) FROM k;"
        f"{k} INSERT INTO view_data (raw_contact_id, mimetype, data1, data2)"
        " SELECT i, 'vnd.android.cursor.item/phone_v2', '555' || (100000 + i), 2 FROM k"
    )
    assert sh.run(f'sqlite3 {CONTACTS_DB} "{rows}"').status == 0


def test_simple_sms_makes_only_the_conversations_and_contacts_a_frame_shows(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Simple SMS Messenger's conversations and its new conversation's contacts are made on demand:
    20,000 conversations took ~0.7 s a frame, 20,000 contacts to pick from ~0.6 s."""
    made: list[int] = []
    conversation_row = sms_app.SimpleSmsMessenger.conversation_row
    monkeypatch.setattr(sms_app.SimpleSmsMessenger, "conversation_row", counted(made, conversation_row))
    monkeypatch.setattr(sms_app, "contact_row", counted(made, sms_app.contact_row))
    add_conversations(sh, 5_000)
    add_contacts(sh, 5_000)
    screen = Screen(sh.device)
    screen.am.launch("com.simplemobiletools.smsmessenger")
    made.clear()
    for _ in range(3):
        screen.wm.swipe(540, 1800, 540, 600, 100)
    texts = [n.attrs["text"] for n in nodes(screen.xml())]
    shown = [int(t.split()[2]) for t in texts if t.startswith("hello number ")]
    assert shown == list(range(shown[0], shown[0] + len(shown))) and 10 < shown[0] < 100  # newest first
    assert 0 < len(made) < 3 * 100
    screen.tap(desc="New conversation")
    assert screen.has(text="Person 00001") and screen.has(text="555100001")
    made.clear()
    screen.wm.swipe(540, 1300, 540, 500, 300)  # above the keyboard the picker opens with
    assert screen.has(text="Person 00010") and not screen.has(text="Person 00001")
    assert 0 < len(made) < 100


def test_messages_makes_only_the_conversations_a_frame_shows(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Messages' conversation list is made on demand: 20,000 conversations took ~0.6-0.9 s a frame."""
    from mgfarm.sim.apps import messages as messages_app

    made: list[int] = []
    monkeypatch.setattr(messages_app, "conversation_row", counted(made, messages_app.conversation_row))
    add_conversations(sh, 5_000)
    screen = Screen(sh.device)
    screen.am.launch("com.android.messaging")
    assert screen.has(text="hello number 1") and screen.has(text="555100001")
    made.clear()
    for _ in range(3):
        screen.wm.swipe(540, 1800, 540, 600, 100)
    texts = [n.attrs["text"] for n in nodes(screen.xml())]
    shown = [int(t.split()[2]) for t in texts if t.startswith("hello number ")]
    assert shown == list(range(shown[0], shown[0] + len(shown))) and 10 < shown[0] < 100  # newest first
    assert 0 < len(made) < 3 * 100


def test_the_dialer_makes_only_the_contacts_a_frame_shows(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Phone app's favourites and contacts tabs are made on demand: a view for every one of
    20,000 contacts took ~0.35 s a frame, on top of reading them (see ContactsDb.list)."""
    from mgfarm.sim.apps import dialer as dialer_app

    made: list[int] = []
    monkeypatch.setattr(dialer_app, "contact_row", counted(made, dialer_app.contact_row))
    add_contacts(sh, 2_000)
    screen = Screen(sh.device)
    screen.am.launch("com.google.android.dialer")
    for tab, first, later in (
        ("Contacts", "Person 00001", "Person 00020"),
        ("Favorites", "Person 00001", "Person 00041"),
    ):
        screen.tap(text=tab)
        assert screen.has(text=first) and screen.has(text="555100001")
        made.clear()
        screen.wm.swipe(540, 1800, 540, 600, 100)
        assert screen.has(text=later) and not screen.has(text=first)
        assert 0 < len(made) < 100


def test_osmand_makes_only_the_places_and_markers_a_frame_shows(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shell can write thousands of favourites and markers: "My places" and "Map markers" made a
    row for each (~0.5 s a frame at 20,000 of each)."""
    made: list[int] = []
    monkeypatch.setattr(osmand_app, "list_item", counted(made, osmand_app.list_item))
    points = "".join(f'<wpt lat="47.16" lon="9.54"><name>Place {i}</name></wpt>' for i in range(5000))
    favorites = sh.host(osmand_app.FAVORITES)
    favorites.parent.mkdir(parents=True, exist_ok=True)
    favorites.write_text(f'<gpx xmlns="{osmand_app.GPX_NS}">{points}</gpx>')
    markers = numbers(5000) + (
        "INSERT INTO map_markers (marker_id, marker_lat, marker_lon, marker_description, marker_active,"
        " marker_added, marker_visited, group_name, group_key, marker_color, marker_next_key,"
        " marker_disabled, marker_selected, marker_map_object_name, title) SELECT 'm' || x, 47.16, 9.54,"
        " '', 1, x, 0, '', '', 0, '', 0, 0, '', 'Marker ' || x FROM n"
    )
    db = f"/data/data/{osmand_app.PKG}/databases/{osmand_app.MARKERS_DB}"
    screen = Screen(sh.device)
    screen.am.launch(osmand_app.PKG)
    assert sh.run(f'sqlite3 {db} "{markers}"').status == 0
    for place, first, later in (
        ("My places", "Place 0", "Place 30"),
        ("Map markers", "Marker 5000", "Marker 4970"),
    ):
        screen.tap(desc="Menu")
        made.clear()
        screen.tap(text=place)
        assert screen.has(text=first)
        for _ in range(2):
            screen.wm.swipe(540, 1800, 540, 600, 100)
        assert screen.has(text=later) and not screen.has(text=first)
        assert 0 < len(made) < 3 * 200  # each frame: the rows a fling can reach, not 5,000
        screen.wm.key(4)


def test_simple_calendar_reads_its_events_again_only_when_the_database_changed(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each frame read and expanded every event (~0.3 s a frame of a day of 20,000). They are kept
    while the database is unchanged, and an event a shell adds shows on the next frame."""
    read: list[int] = []
    monkeypatch.setattr(SimpleCalendar, "expanded", counted(read, SimpleCalendar.expanded))
    screen = open_simple_calendar(sh, 300)
    time.sleep(SETTLED_NS / 1e9)
    screen.tap(desc="Change view")
    screen.tap(text="Daily view")
    read.clear()
    for _ in range(3):
        screen.wm.swipe(540, 1800, 540, 900, 300)
        assert event_titles(screen)
    assert len(read) <= 1
    db = f"/data/data/{SIMPLE_CALENDAR}/databases/events.db"
    added = (
        "UPDATE events SET title = 'Moved' WHERE title = (SELECT title FROM events ORDER BY start_ts LIMIT 1)"
    )
    assert sh.run(f'sqlite3 {db} "{added}"').status == 0
    screen.wm.swipe(540, 900, 540, 1800, 100)
    screen.wm.swipe(540, 900, 540, 1800, 100)
    assert event_titles(screen)[0] == "Moved"


def test_the_folder_picker_makes_only_the_rows_it_shows(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Simple Gallery's "Other folder" picker over a folder of 5,000 folders took ~0.5 s a frame (a
    path lookup and a row for each). A link to a folder is listed, a link to a file is not."""
    made: list[int] = []
    monkeypatch.setattr(folder_picker_app, "list_item", counted(made, folder_picker_app.list_item))
    gallery = "com.simplemobiletools.gallery.pro"
    rid = f"{gallery}:id/list_item_name"
    sh.device.fs.mkdir("/sdcard/DCIM", parents=True)
    sh.device.fs.write_bytes("/sdcard/DCIM/receipt.png", b"not a picture")
    download = sh.host("/sdcard/Download")
    for i in range(5000):
        (download / f"dir{i:05d}").mkdir(parents=True)
    (download / "file.txt").write_text("x")
    # No shell can put a link in shared storage (FUSE); planted there, the picker must still cope.
    sh.device.fs.symlink("/sdcard/Download/dir00000", "/sdcard/Download/adir")
    sh.device.fs.symlink("/sdcard/Download/file.txt", "/sdcard/Download/afile")
    screen = Screen(sh.device)
    screen.am.launch(gallery)
    screen.tap(rid=f"{gallery}:id/dir_name", text="DCIM")
    screen.tap(rid=f"{gallery}:id/medium_name", text="receipt.png")
    screen.tap(desc="More options")
    screen.tap(text="Copy to")
    screen.tap(text="Other folder")
    screen.tap(rid=f"{gallery}:id/breadcrumb_text", text="Internal >")
    made.clear()
    screen.tap(rid=rid, text="Download")
    shown = [n.attrs["text"] for n in nodes(screen.xml()) if n.attrs["resource-id"] == rid]
    assert shown[:3] == ["adir", "dir00000", "dir00001"]
    screen.wm.swipe(540, 1300, 540, 900, 300)
    assert "adir" not in [n.attrs["text"] for n in nodes(screen.xml()) if n.attrs["resource-id"] == rid]
    assert 0 < len(made) < 2 * 200


def test_simple_sms_reads_its_messages_again_only_when_the_database_changed(
    sh: ShellDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The conversations list read every message on every frame (~0.25 s a frame at 20,000). They
    are kept while the telephony database is unchanged; a message a shell adds shows at once."""
    read: list[int] = []
    monkeypatch.setattr(
        sms_app.SimpleSmsMessenger, "read_messages", counted(read, sms_app.SimpleSmsMessenger.read_messages)
    )
    add_conversations(sh, 300)
    time.sleep(SETTLED_NS / 1e9)
    screen = Screen(sh.device)
    screen.am.launch(sms_app.PKG)
    read.clear()
    for _ in range(3):
        screen.wm.swipe(540, 1800, 540, 900, 300)
    assert len(read) <= 1
    new = (
        "INSERT INTO sms (thread_id, address, body, type, date, read)"
        " VALUES (1, '5559', 'newest', 1, 1772700000000, 0)"
    )
    assert sh.run(f'sqlite3 {MMSSMS_DB} "{new}"').status == 0
    screen.wm.swipe(540, 900, 540, 1800, 100)
    screen.wm.swipe(540, 900, 540, 1800, 100)
    assert screen.has(text="newest")
