"""Joplin keeps notes and notebooks in joplin.sqlite as AndroidWorld writes them, and shows them: the note
list with to-dos as checkboxes (uncompleted on top), notebooks in the sidebar, search and the note view."""

from __future__ import annotations

from pathlib import Path

from mgfarm.sim.apps.base import sql
from mgfarm.sim.device import SimDevice
from tests.unit.sim_screen import Screen, boot_device, nodes

PKG = "net.cozic.joplin"
DB = "/data/data/net.cozic.joplin/databases/joplin.sqlite"
NOTE = (
    "INSERT INTO notes (id, parent_id, title, body, created_time, updated_time, is_todo, todo_completed,"
    " user_updated_time) VALUES (?, ?, ?, ?, 0, 0, ?, ?, ?)"
)
NORMALIZED = "INSERT INTO notes_normalized (id, parent_id, title, body, is_todo) VALUES (?, ?, ?, ?, ?)"


def booted(tmp_path: Path) -> tuple[SimDevice, Screen, Path]:
    device = boot_device(tmp_path)
    db = device.fs.host(DB, "/")
    sql(db, "INSERT INTO folders (id, title, created_time, updated_time) VALUES ('f1', 'Recipes', 0, 0)")
    sql(db, "INSERT INTO folders (id, title, created_time, updated_time) VALUES ('f2', 'Work', 0, 0)")
    for nid, folder, title, body, todo, done, updated in (
        ("a", "f1", "Pancakes", "Ingredients:\n- 1 cup flour\n- [x] eggs bought\n", 0, 0, 30),
        ("b", "f2", "Call Bob", "About the report.", 1, 0, 10),
        ("c", "f2", "Send invoice", "", 1, 5, 20),
        ("d", "f2", "Minutes", "# Sync\n- 12 people attended", 0, 0, 40),
    ):
        sql(db, NOTE, (nid, folder, title, body, todo, done, updated))
        sql(db, NORMALIZED, (nid, folder, title.lower(), body, todo))
    return device, Screen(device), db


TITLES = ("Pancakes", "Call Bob", "Send invoice", "Minutes", "Buy stamps")


def rows(screen: Screen) -> list[tuple[str, str]]:
    """(checkbox state or '-', title) of each line of the note list, top to bottom."""
    found: list[tuple[str, str]] = []
    mark = "-"
    for n in nodes(screen.xml()):
        if n.attrs["class"] == "android.widget.CheckBox":
            mark = n.attrs["checked"]
        elif n.attrs["class"] == "android.widget.TextView" and n.attrs["text"] in TITLES:
            found.append((mark, n.attrs["text"]))
            mark = "-"
    return found


def test_the_list_puts_open_todos_first_then_newest_and_filters_by_notebook(tmp_path: Path) -> None:
    device, screen, _ = booted(tmp_path)
    screen.am.launch(PKG)
    assert screen.has(text="All notes")
    assert rows(screen) == [
        ("false", "Call Bob"),
        ("-", "Minutes"),
        ("-", "Pancakes"),
        ("true", "Send invoice"),
    ]
    screen.tap(desc="Sidebar")
    assert screen.has(text="Recipes") and screen.has(text="Notebooks")
    screen.tap(text="Work")
    assert rows(screen) == [("false", "Call Bob"), ("-", "Minutes"), ("true", "Send invoice")]
    assert device.services.window.screencap_png().startswith(b"\x89PNG")


def test_search_opens_a_note_whose_markdown_is_shown_line_by_line(tmp_path: Path) -> None:
    _, screen, _ = booted(tmp_path)
    screen.am.launch(PKG)
    screen.tap(desc="Search")
    screen.wm.text("PANCAKES")
    screen.tap(text="Pancakes")
    assert screen.has(text="Recipes")  # the notebook in the bar
    assert not screen.device.services.window.ime_visible
    assert screen.has(text="• 1 cup flour")
    assert screen.has(text="eggs bought")
    assert [
        n.attrs["checked"] for n in nodes(screen.xml()) if n.attrs["class"] == "android.widget.CheckBox"
    ] == ["true"]


def test_a_search_of_a_thousand_words_shows_no_note_and_the_app_goes_on(tmp_path: Path) -> None:
    # Each word once was one SQL condition: past SQLite's expression depth, Joplin crashed.
    _, screen, _ = booted(tmp_path)
    screen.am.launch(PKG)
    screen.tap(desc="Search")
    screen.wm.text("cup flour")
    assert screen.has(text="Pancakes")
    screen.wm.text("".join(f" w{i}" for i in range(1000)))
    assert not screen.has(text="Pancakes") and "keeps stopping" not in screen.xml()


def test_ticking_a_todo_stores_its_completion_time(tmp_path: Path) -> None:
    _, screen, db = booted(tmp_path)
    screen.am.launch(PKG)
    screen.tap(text="Call Bob")
    box = next(n for n in nodes(screen.xml()) if n.attrs["class"] == "android.widget.CheckBox")
    assert box.attrs["checked"] == "false"
    screen.wm.tap(*box.center)
    done = sql(
        db,
        "SELECT n.todo_completed, m.todo_completed FROM notes n JOIN notes_normalized m USING (id)"
        " WHERE id = 'b'",
    )
    assert done[0][0] > 0 and done[0][0] == done[0][1]
    screen.wm.key(4)  # BACK leaves the note for the list
    assert ("true", "Call Bob") in rows(screen)


def test_a_new_todo_goes_to_the_shown_notebook_and_into_search(tmp_path: Path) -> None:
    _, screen, db = booted(tmp_path)
    screen.am.launch(PKG)
    screen.tap(desc="Sidebar")
    screen.tap(text="Work")
    screen.tap(desc="Add new")
    screen.tap(desc="New to-do")
    screen.wm.text("Buy stamps")  # the title has focus
    screen.tap(text="Type your note here")
    screen.wm.text("At the Post Office")
    screen.tap(desc="Save")
    assert sql(
        db, "SELECT parent_id, body, is_todo, todo_completed FROM notes WHERE title = 'Buy stamps'"
    ) == [("f2", "At the Post Office", 1, 0)]
    assert sql(
        db,
        "SELECT title, body, is_todo FROM notes_normalized WHERE parent_id = 'f2' AND is_todo = 1"
        " ORDER BY rowid",
    ) == [
        ("call bob", "About the report.", 1),  # as the test wrote it
        ("send invoice", "", 1),
        ("buy stamps", "at the post office", 1),
    ]
    assert screen.has(text="At the Post Office")  # the saved note is shown
    screen.wm.key(4)
    assert rows(screen)[:2] == [("false", "Buy stamps"), ("false", "Call Bob")]


def test_editing_a_note_and_ticking_its_checklist_rewrite_the_body(tmp_path: Path) -> None:
    _, screen, db = booted(tmp_path)
    screen.am.launch(PKG)
    screen.tap(text="Pancakes")
    box = next(n for n in nodes(screen.xml()) if n.attrs["class"] == "android.widget.CheckBox")
    screen.wm.tap(*box.center)
    body = "Ingredients:\n- 1 cup flour\n- [ ] eggs bought\n"
    assert sql(db, "SELECT body FROM notes WHERE id = 'a'") == [(body,)]
    screen.tap(desc="Edit")
    screen.tap(text="Pancakes")
    screen.wm.text(" for two")
    screen.wm.key(4)  # BACK hides the keyboard
    screen.wm.key(4)  # and then leaves the editor, saving
    assert sql(
        db, "SELECT n.title, m.title FROM notes n JOIN notes_normalized m USING (id) WHERE id = 'a'"
    ) == [("Pancakes for two", "pancakes for two")]
    assert screen.has(text="Pancakes for two") and screen.has(desc="Edit")


def test_a_dozen_notebooks_scroll_in_the_sidebar(tmp_path: Path) -> None:
    _, screen, db = booted(tmp_path)
    more = [
        "Finance",
        "Health",
        "Home",
        "Ideas",
        "Meetings",
        "Misc",
        "Personal",
        "Projects",
        "School",
        "Tasks",
        "Travel",
    ]
    for title in more:
        sql(
            db,
            "INSERT INTO folders (id, title, created_time, updated_time) VALUES (?, ?, 0, 0)",
            (title, title),
        )
    screen.am.launch(PKG)
    screen.tap(desc="Sidebar")
    assert not screen.has(text="Work")  # A to Z, the last notebook is below the screen's end
    screen.wm.swipe(300, 1800, 300, 900, 400)
    screen.tap(text="Work")
    assert rows(screen) == [("false", "Call Bob"), ("-", "Minutes"), ("true", "Send invoice")]
