"""Tasks (org.tasks) reads rows written as AndroidWorld writes them into its `tasks` table and shows each
task's title, due date, priority and completion; unstarted and completed tasks show when the menu says."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from mgfarm.sim.apps.base import sql
from mgfarm.sim.device import SimDevice
from tests.unit.sim_screen import Screen, boot_device, nodes

PKG = "org.tasks"
DB = "/data/data/org.tasks/databases/database"
NOW = datetime(2023, 10, 15, 15, 34, tzinfo=timezone.utc)
COLUMNS = [
    "title",
    "importance",
    "dueDate",
    "hideUntil",
    "created",
    "modified",
    "completed",
    "deleted",
    "notes",
    "estimatedSeconds",
    "elapsedSeconds",
    "timerStart",
    "notificationFlags",
    "lastNotified",
    "recurrence",
    "repeat_from",
    "calendarUri",
    "remoteId",
    "collapsed",
    "parent",
    "order",
    "read_only",
]


def ms(day: int, hour: int = 0, minute: int = 0) -> int:
    return int(datetime(2023, 10, day, hour, minute, tzinfo=timezone.utc).timestamp() * 1000)


def add(db: Path, title: str, importance: int, due: int, hide: int = 0, completed: int = 0) -> None:
    """One row as AndroidWorld's sqlite_utils inserts it: every column named, quoted."""
    values = dict.fromkeys(COLUMNS, 0) | {"title": title, "importance": importance, "dueDate": due}
    values |= {"hideUntil": hide, "completed": completed, "notes": "Note of " + title, "recurrence": None}
    values |= {"calendarUri": None, "remoteId": title, "order": None}
    names = ", ".join(f'"{c}"' for c in COLUMNS)
    sql(db, f"INSERT INTO tasks ({names}) VALUES ({', '.join('?' for _ in COLUMNS)})", list(values.values()))


def booted(tmp_path: Path) -> tuple[SimDevice, Screen, Path]:
    device = boot_device(tmp_path)
    device.services.clock.freeze(True)
    device.services.clock.set_ms(int(NOW.timestamp() * 1000))
    return device, Screen(device), device.fs.host(DB, "/")


def rows(screen: Screen) -> list[tuple[str, str, str]]:
    """(title, due date, priority) of each task row on screen."""
    found = []
    for n in nodes(screen.xml()):
        rid = n.attrs["resource-id"]
        if rid == PKG + ":id/completeBox":
            done = " done" if n.attrs["checked"] == "true" else ""
            found.append(["", "", n.attrs["content-desc"] + done])
        elif rid == PKG + ":id/title" and found:
            found[-1][0] = n.attrs["text"]
        elif rid == PKG + ":id/due_date" and found:
            found[-1][1] = n.attrs["text"]
    return [(t, d, p) for t, d, p in found]


def test_list_shows_due_dates_priorities_and_hides_unstarted_and_completed_by_default(tmp_path: Path) -> None:
    device, screen, db = booted(tmp_path)
    add(db, "Pay rent", 0, ms(16))
    add(db, "Call client", 3, ms(15, 17, 30) + 1000)  # seconds set: a due time
    add(db, "Plan outing", 1, ms(20), hide=ms(18))
    add(db, "Old report", 2, ms(12), completed=ms(12, 9))
    screen.am.launch(PKG)
    assert rows(screen) == [
        ("Call client", "Today 5:30 PM", "None priority"),
        ("Pay rent", "Tomorrow", "High priority"),
    ]
    screen.tap(desc="More options")
    screen.tap(text="Show unstarted")
    screen.tap(desc="More options")
    screen.tap(text="Show completed")
    assert rows(screen)[2:] == [
        ("Plan outing", "Fri, Oct 20", "Medium priority"),
        ("Old report", "Thu, Oct 12", "Low priority done"),
    ]
    assert screen.has(text="Completed")
    assert device.services.window.screencap_png().startswith(b"\x89PNG")


def test_editor_shows_a_task_and_the_checkbox_completes_it(tmp_path: Path) -> None:
    _, screen, db = booted(tmp_path)
    add(db, "Pay rent", 0, ms(16))
    screen.am.launch(PKG)
    screen.tap(text="Pay rent")
    assert screen.has(text="Note of Pay rent")
    assert screen.has(text="Tomorrow")
    screen.tap(text="Low")
    screen.wm.key(4)  # BACK leaves the editor
    assert rows(screen) == [("Pay rent", "Tomorrow", "Low priority")]
    screen.tap(desc="Low priority")
    assert sql(db, "SELECT completed FROM tasks") == [(int(NOW.timestamp() * 1000),)]
    assert rows(screen) == []


def test_a_new_task_is_saved_with_its_title_and_an_untitled_one_is_discarded(tmp_path: Path) -> None:
    _, screen, db = booted(tmp_path)
    screen.am.launch(PKG)
    screen.tap(desc="Create new task")
    screen.wm.text("Buy milk")
    screen.wm.key(4)  # BACK hides the keyboard
    screen.wm.key(4)  # then leaves the editor, saving the title
    assert rows(screen) == [("Buy milk", "", "Low priority")]
    screen.tap(desc="Create new task")
    screen.wm.key(4)
    screen.wm.key(4)
    assert sql(db, "SELECT title, importance, dueDate, completed, deleted FROM tasks") == [
        ("Buy milk", 2, 0, 0, 0)
    ]
