"""Joplin (net.cozic.joplin): notes and to-dos in notebooks, on its SQLite database `joplin.sqlite`.

Joplin's mobile app is one React Native activity, so its screens (note list, sidebar of notebooks,
search, note view, editor) are states of MainActivity. The tables hold the columns AndroidWorld reads
and writes: `notes` (parent_id is the notebook's id; is_todo, todo_completed), `folders` and
`notes_normalized` (the lower-cased copy search reads). The list shows a to-do as a checkbox before its
title, sorted as the app's defaults sort: uncompleted to-dos on top, then by update time, newest first.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from functools import partial
from typing import Any

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn, SqlValue, sql, sql_script
from mgfarm.sim.ui.views import (
    CheckBox,
    Column,
    EditText,
    IconButton,
    Row,
    Rows,
    Scrim,
    Scroll,
    Stack,
    Text,
    View,
)
from mgfarm.sim.ui.widgets import action, empty_state, fab, header, list_item, page

PKG = "net.cozic.joplin"
MAIN = f"{PKG}.MainActivity"
DB = "joplin.sqlite"
ALL_NOTES = "All notes"
# Joplin's tables as its migrations leave them (the columns AndroidWorld's JoplinNote, JoplinFolder and
# JoplinNormalizedNote rows carry; `select *` on folders must give exactly JoplinFolder's fields).
SCHEMA = """
CREATE TABLE IF NOT EXISTS folders (id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT '',
  created_time INT NOT NULL, updated_time INT NOT NULL, user_created_time INT NOT NULL DEFAULT 0,
  user_updated_time INT NOT NULL DEFAULT 0, encryption_cipher_text TEXT NOT NULL DEFAULT '',
  encryption_applied INT NOT NULL DEFAULT 0, parent_id TEXT NOT NULL DEFAULT '',
  is_shared INT NOT NULL DEFAULT 0, share_id TEXT NOT NULL DEFAULT '', master_key_id TEXT NOT NULL DEFAULT '',
  icon TEXT NOT NULL DEFAULT '', user_data TEXT NOT NULL DEFAULT '', deleted_time INT NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS notes (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL DEFAULT '',
  title TEXT NOT NULL DEFAULT '', body TEXT NOT NULL DEFAULT '', created_time INT NOT NULL,
  updated_time INT NOT NULL, is_conflict INT NOT NULL DEFAULT 0, latitude NUMERIC NOT NULL DEFAULT 0,
  longitude NUMERIC NOT NULL DEFAULT 0, altitude NUMERIC NOT NULL DEFAULT 0, author TEXT NOT NULL DEFAULT '',
  source_url TEXT NOT NULL DEFAULT '', is_todo INT NOT NULL DEFAULT 0, todo_due INT NOT NULL DEFAULT 0,
  todo_completed INT NOT NULL DEFAULT 0, source TEXT NOT NULL DEFAULT '',
  source_application TEXT NOT NULL DEFAULT '', application_data TEXT NOT NULL DEFAULT '',
  `order` NUMERIC NOT NULL DEFAULT 0, user_created_time INT NOT NULL DEFAULT 0,
  user_updated_time INT NOT NULL DEFAULT 0, encryption_cipher_text TEXT NOT NULL DEFAULT '',
  encryption_applied INT NOT NULL DEFAULT 0, markup_language INT NOT NULL DEFAULT 1,
  is_shared INT NOT NULL DEFAULT 0, share_id TEXT NOT NULL DEFAULT '',
  conflict_original_id TEXT NOT NULL DEFAULT '', master_key_id TEXT NOT NULL DEFAULT '',
  user_data TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS notes_parent_id ON notes (parent_id);
CREATE TABLE IF NOT EXISTS notes_normalized (id TEXT NOT NULL, title TEXT NOT NULL DEFAULT '',
  body TEXT NOT NULL DEFAULT '', user_created_time INT NOT NULL DEFAULT 0,
  user_updated_time INT NOT NULL DEFAULT 0, is_todo INT NOT NULL DEFAULT 0,
  todo_completed INT NOT NULL DEFAULT 0, parent_id TEXT NOT NULL DEFAULT '',
  latitude NUMERIC NOT NULL DEFAULT 0, longitude NUMERIC NOT NULL DEFAULT 0,
  altitude NUMERIC NOT NULL DEFAULT 0, source_url TEXT NOT NULL DEFAULT '', todo_due INT NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS tags (id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT '',
  created_time INT NOT NULL, updated_time INT NOT NULL, user_created_time INT NOT NULL DEFAULT 0,
  user_updated_time INT NOT NULL DEFAULT 0, parent_id TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS note_tags (id TEXT PRIMARY KEY, note_id TEXT NOT NULL, tag_id TEXT NOT NULL,
  created_time INT NOT NULL, updated_time INT NOT NULL);
CREATE TABLE IF NOT EXISTS version (version INT NOT NULL, table_fields_version INT NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS android_metadata (locale TEXT);
"""
SEED = (("INSERT OR IGNORE INTO android_metadata (rowid, locale) VALUES (1, 'en_US')", ()),)
NOTE_COLUMNS = ("id", "parent_id", "title", "body", "is_todo", "todo_completed")
# The app's default note order: uncompleted to-dos first, then most recently updated.
ORDER = "ORDER BY (is_todo = 1 AND todo_completed = 0) DESC, user_updated_time DESC, title COLLATE NOCASE, id"
CHECKLIST = re.compile(r"^\s*[-*+] \[( |x|X)\] (.*)$")
BULLET = re.compile(r"^\s*[-*+] (.*)$")
HEADING = re.compile(r"^(#{1,6}) (.*)$")


def markdown_views(body: str, tick: Callable[[int], None]) -> list[View]:
    """The note body as the viewer renders its Markdown: headings, bullets, checklists as checkboxes
    (`tick` gets the line number of a checklist item tapped)."""
    views: list[View] = []

    def ticker(i: int) -> Callable[[], None]:
        return lambda: tick(i)

    for i, line in enumerate(body.split("\n")):
        if m := CHECKLIST.match(line):
            views.append(
                Row(
                    spacing=8,
                    children=[
                        CheckBox(on=m[1] != " ", on_click=ticker(i)),
                        Text(text=m[2], size=16, lines=10, weight=1),
                    ],
                )
            )
        elif m := BULLET.match(line):
            views.append(Text(text="• " + m[1], size=16, lines=10, pad=(8, 2, 0, 2)))
        elif m := HEADING.match(line):
            views.append(Text(text=m[2], size=28 - 3 * len(m[1]), medium=True, lines=4, pad=(0, 8, 0, 4)))
        elif line.strip():
            views.append(Text(text=line, size=16, lines=20, pad=(0, 2, 0, 2)))
        else:
            views.append(Column(height=12))
    return views


def toggle_checklist_line(body: str, index: int) -> str:
    """The body with the checklist item on line `index` ticked or unticked."""
    lines = body.split("\n")
    m = CHECKLIST.match(lines[index])
    if m:
        mark = " " if m[1] != " " else "x"
        start = lines[index].index("[")
        lines[index] = lines[index][: start + 1] + mark + lines[index][start + 2 :]
    return "\n".join(lines)


class Joplin(App):
    package = PKG
    label = "Joplin"
    main_activity = MAIN
    icon = "note"
    icon_color = "#1071D3"

    def create_data(self) -> None:
        sql_script(self.db_file(DB), SCHEMA, SEED)  # a fresh install has no notebooks and no notes

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main}

    # ---- data
    def notes(self, where: str = "1", args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        rows = sql(
            self.db_file(DB), f"SELECT {', '.join(NOTE_COLUMNS)} FROM notes WHERE {where} {ORDER}", args
        )
        return [dict(zip(NOTE_COLUMNS, r, strict=True)) for r in rows]

    def folders(self) -> list[tuple[str, str]]:
        """(id, title) of every notebook, A to Z as the sidebar lists them."""
        rows = sql(self.db_file(DB), "SELECT id, title FROM folders ORDER BY title COLLATE NOCASE, id")
        return [(str(i), str(t)) for i, t in rows]

    def add_note(self, folder_id: str, title: str, body: str, is_todo: bool, now: int) -> str:
        """A new note (or to-do) in a notebook, with its normalized copy for search; returns its id."""
        nid = uuid.uuid4().hex
        db = self.db_file(DB)
        sql(
            db,
            "INSERT INTO notes (id, parent_id, title, body, created_time, updated_time, is_todo,"
            " user_created_time, user_updated_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (nid, folder_id, title, body, now, now, int(is_todo), now, now),
        )
        sql(
            db,
            "INSERT INTO notes_normalized (id, parent_id, title, body, is_todo, user_created_time,"
            " user_updated_time) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (nid, folder_id, title.lower(), body.lower(), int(is_todo), now, now),
        )
        return nid

    def update_note(self, nid: str, values: dict[str, SqlValue], now: int) -> None:
        """Change a note's columns in `notes` and its normalized copy, and stamp the update time."""
        norm = {
            k: (v.lower() if isinstance(v, str) and k in ("title", "body") else v) for k, v in values.items()
        }
        db = self.db_file(DB)
        for table, cols, stamps in (
            ("notes", values, ("updated_time", "user_updated_time")),
            ("notes_normalized", norm, ("user_updated_time",)),
        ):
            sets = ", ".join([f"{k} = ?" for k in cols] + [f"{k} = ?" for k in stamps])
            sql(db, f"UPDATE {table} SET {sets} WHERE id = ?", (*cols.values(), *(now for _ in stamps), nid))

    def search(self, query: str) -> list[dict[str, Any]]:
        """Notes whose title or body holds every word of the query (search reads notes_normalized)."""
        words = list(dict.fromkeys(query.lower().split()))
        if not words:
            return []
        # Matched here rather than as one SQL condition: a query of a thousand words made a condition
        # past SQLite's expression depth, and the app crashed on every screen while it was typed.
        rows = sql(self.db_file(DB), "SELECT id, title, body FROM notes_normalized")
        found = [nid for nid, title, body in rows if all(w in f"{title or ''}\n{body or ''}" for w in words)]
        return self.notes("id IN (SELECT value FROM json_each(?))", (json.dumps(found),)) if found else []

    # ---- screens
    def main(self, ctx: ScreenContext) -> View:
        st = ctx.state
        if st.get("editing"):
            return self.editor(ctx)
        if st.get("note"):
            return self.note_view(ctx, str(st["note"]))
        if st.get("searching"):
            return self.search_screen(ctx)
        folder_id = st.get("folder")
        titles = dict(self.folders())
        if folder_id is not None and folder_id not in titles:
            folder_id = None  # the notebook was deleted under us
        notes = self.notes("parent_id = ?", (folder_id,)) if folder_id else self.notes()

        def start_search() -> None:
            st["searching"] = True
            ctx.set_fields({})
            ctx.focus("query")

        bar = Row(
            height=64,
            pad=(4, 0, 4, 0),
            bg="primary_container",
            children=[
                IconButton(
                    name="menu", desc="Sidebar", tint="on_surface", on_click=lambda: st.update(drawer=True)
                ),
                Text(text=titles[folder_id] if folder_id else ALL_NOTES, size=22, weight=1, pad=(4, 0, 0, 0)),
                action("search", "Search", start_search),
            ],
        )
        layers: list[View] = [
            page(
                bar,
                Scroll(
                    key="notes",
                    weight=1,
                    rows=Rows.of([partial(self.note_row, ctx, n) for n in notes]),
                    empty=empty_state("note", "There are currently no notes."),
                ),
            )
        ]
        folder_ids = list(titles)
        if folder_ids:  # a note needs a notebook: the shown one, else the first
            target = folder_id or folder_ids[0]
            if st.get("fab_open"):
                ctx.on_back(lambda: st.pop("fab_open", None))
                layers.append(
                    Column(
                        align="bottom_end",
                        width=200,
                        spacing=12,
                        children=[
                            fab(
                                "check",
                                "New to-do",
                                lambda: self.start_new(ctx, target, True),
                                label="New to-do",
                            ),
                            fab(
                                "note",
                                "New note",
                                lambda: self.start_new(ctx, target, False),
                                label="New note",
                            ),
                            fab("close", "Close", lambda: st.pop("fab_open", None)),
                        ],
                    )
                )
            else:
                layers.append(fab("add", "Add new", lambda: st.update(fab_open=True)))
        if st.get("drawer"):
            layers.append(self.sidebar(ctx, folder_id))
        return Stack(children=layers)

    def start_new(self, ctx: ScreenContext, folder_id: str, is_todo: bool) -> None:
        ctx.state.pop("fab_open", None)
        ctx.state["editing"] = {"folder": folder_id, "todo": is_todo}
        ctx.set_fields({"title": "", "body": ""})
        ctx.focus("title")

    def editor(self, ctx: ScreenContext) -> View:
        """Title and Markdown body of a new or opened note; saved with the tick or on leaving, as Joplin
        saves as you go (a new note left empty is not kept)."""
        st = ctx.state
        editing: dict[str, Any] = st["editing"]
        nid = editing.get("id")

        def save() -> None:
            title, body = ctx.field("title"), ctx.field("body")
            now = ctx.now_ms()
            if nid is not None:
                self.update_note(str(nid), {"title": title, "body": body}, now)
            elif title.strip() or body.strip():
                st["note"] = self.add_note(str(editing["folder"]), title, body, bool(editing["todo"]), now)
            st.pop("editing", None)
            ctx.set_fields({})

        ctx.on_back(save)
        bar = Row(
            height=64,
            pad=(4, 0, 4, 0),
            bg="primary_container",
            children=[
                IconButton(name="arrow_back", desc="Back", tint="on_surface", on_click=save),
                Text(text=dict(self.folders()).get(str(editing.get("folder")), ""), size=18, weight=1),
                action("check", "Save", save),
            ],
        )
        return Column(
            bg="surface",
            children=[
                bar,
                Column(
                    weight=1,
                    pad=(16, 8, 16, 8),
                    spacing=8,
                    children=[
                        EditText(key="title", hint="Title", text=ctx.field("title"), style="plain", size=22),
                        EditText(
                            key="body",
                            hint="Type your note here",
                            text=ctx.field("body"),
                            style="plain",
                            multiline=True,
                            lines=40,
                            height=None,
                            weight=1,
                        ),
                    ],
                ),
            ],
        )

    def note_row(self, ctx: ScreenContext, note: dict[str, Any]) -> View:
        """One line of the note list: a to-do's checkbox (ticked when completed), then the title."""
        nid = str(note["id"])

        def open_note() -> None:
            ctx.focus(None)  # the keyboard of the search field leaves with it
            ctx.state["note"] = nid

        lead: list[View] = []
        if note["is_todo"]:
            lead.append(self.todo_box(ctx, note))
        title = str(note["title"]) or "Untitled"
        return Row(
            height=56,
            pad=(16 if not lead else 8, 0, 16, 0),
            spacing=8,
            on_click=open_note,
            children=[
                *lead,
                Text(
                    text=title,
                    size=16,
                    weight=1,
                    color="on_surface_variant" if note["todo_completed"] else "on_surface",
                ),
            ],
        )

    def todo_box(self, ctx: ScreenContext, note: dict[str, Any]) -> View:
        """A to-do's checkbox; ticking stores the completion time (0 when unticked), as Joplin does."""

        def toggle() -> None:
            now = ctx.now_ms()
            self.update_note(str(note["id"]), {"todo_completed": 0 if note["todo_completed"] else now}, now)

        return CheckBox(on=bool(note["todo_completed"]), on_click=toggle)

    def sidebar(self, ctx: ScreenContext, current: str | None) -> View:
        st = ctx.state

        def close() -> None:
            st.pop("drawer", None)

        def go(folder_id: str | None) -> Callable[[], None]:
            def run() -> None:
                st["folder"] = folder_id
                st.setdefault("scroll", {}).pop("notes", None)
                close()

            return run

        ctx.on_back(close)
        items: list[View] = [
            list_item(ALL_NOTES, icon="note", on_click=go(None), selected=current is None),
            header("Notebooks"),
        ]
        items += [
            list_item(title, icon="folder", on_click=go(fid), selected=fid == current)
            for fid, title in self.folders()
        ]
        panel = Scroll(
            key="sidebar",
            bg="surface_container",
            width=300,
            blocks=True,
            pad=(12, 24, 12, 12),
            children=[Text(text="Joplin", size=22, medium=True, pad=(16, 8, 16, 16)), *items],
        )
        return Scrim(on_click=close, children=[panel])

    def search_screen(self, ctx: ScreenContext) -> View:
        st = ctx.state
        query = ctx.field("query").strip()

        def stop() -> None:
            st.pop("searching", None)
            ctx.set_fields({})

        ctx.on_back(stop)
        found = self.search(query)
        bar = Row(
            height=64,
            pad=(4, 0, 8, 0),
            bg="primary_container",
            children=[
                IconButton(name="arrow_back", desc="Back", tint="on_surface", on_click=stop),
                Text(text="Search", size=22, pad=(4, 0, 0, 0)),
            ],
        )
        results: list[View] = [self.note_row(ctx, n) for n in found]
        if query and not results:
            results = [empty_state("search", "No notes match the search.")]
        return Column(
            bg="surface",
            children=[
                bar,
                EditText(key="query", hint="Search", style="search", text=query, pad=(8, 8, 8, 8), height=64),
                Scroll(key="results", weight=1, children=results),
            ],
        )

    def note_view(self, ctx: ScreenContext, nid: str) -> View:
        """The note as the viewer shows it: its notebook, a to-do's checkbox with the title, the body."""
        st = ctx.state

        def close() -> None:
            st.pop("note", None)
            st.setdefault("scroll", {}).pop("note", None)

        ctx.on_back(close)
        found = self.notes("id = ?", (nid,))
        if not found:
            close()
            return self.main(ctx)
        note = found[0]
        folder = dict(self.folders()).get(str(note["parent_id"]), "")

        def edit() -> None:
            st["editing"] = {"id": nid, "folder": str(note["parent_id"])}
            ctx.set_fields({"title": str(note["title"]), "body": str(note["body"])})

        def tick(line: int) -> None:
            self.update_note(nid, {"body": toggle_checklist_line(str(note["body"]), line)}, ctx.now_ms())

        bar = Row(
            height=64,
            pad=(4, 0, 4, 0),
            bg="primary_container",
            children=[
                IconButton(name="arrow_back", desc="Back", tint="on_surface", on_click=close),
                Text(text=folder, size=18, weight=1, pad=(4, 0, 0, 0), color="on_surface_variant"),
                action("edit", "Edit", edit),
            ],
        )
        title_row: list[View] = []
        if note["is_todo"]:
            title_row.append(self.todo_box(ctx, note))
        title_row.append(Text(text=str(note["title"]), size=24, lines=3, weight=1))
        return Column(
            bg="surface",
            children=[
                bar,
                Row(pad=(12, 8, 16, 8), spacing=8, children=title_row),
                Scroll(
                    key="note",
                    weight=1,
                    pad=(16, 8, 16, 24),
                    children=markdown_views(str(note["body"]), tick),
                ),
            ],
        )
