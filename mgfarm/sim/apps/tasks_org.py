"""Tasks (org.tasks): a to-do list on its Room database `databases/database`, table `tasks`.

Columns are the real app's (`importance` 0 high .. 3 none; `dueDate`, `hideUntil`, `completed` and
`created` in epoch ms, 0 for none; `order` as AndroidWorld writes it). As in the real app a due date
carries a time only when its seconds are not zero, tasks whose start date (`hideUntil`) is still ahead
are hidden until "Show unstarted" is on, and completed tasks show only with "Show completed", in a
"Completed" section under the open ones. Tapping a task opens its editor (title, due and start date,
priority, notes); the checkbox completes or reopens it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from mgfarm.sim.apps.base import (
    App,
    ScreenContext,
    ScreenFn,
    sql,
    sql_insert,
    sql_script,
)
from mgfarm.sim.system.clock import local_ms
from mgfarm.sim.ui.views import Button, CheckBox, Column, EditText, Row, Rows, Scroll, Stack, Text, View
from mgfarm.sim.ui.widgets import action, app_bar, empty_state, fab, header, list_item, page

PKG = "org.tasks"
MAIN = "com.todoroo.astrid.activity.MainActivity"
DB = "database"
# The `tasks` table of the app's Room database, plus the `order` column AndroidWorld's rows carry.
SCHEMA = """
CREATE TABLE IF NOT EXISTS `tasks` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `title` TEXT,
  `importance` INTEGER NOT NULL, `dueDate` INTEGER NOT NULL, `hideUntil` INTEGER NOT NULL,
  `created` INTEGER NOT NULL, `modified` INTEGER NOT NULL, `completed` INTEGER NOT NULL,
  `deleted` INTEGER NOT NULL, `notes` TEXT, `estimatedSeconds` INTEGER NOT NULL,
  `elapsedSeconds` INTEGER NOT NULL, `timerStart` INTEGER NOT NULL, `notificationFlags` INTEGER NOT NULL,
  `lastNotified` INTEGER NOT NULL, `recurrence` TEXT, `repeat_from` INTEGER NOT NULL DEFAULT 0,
  `calendarUri` TEXT, `remoteId` TEXT, `collapsed` INTEGER NOT NULL, `parent` INTEGER NOT NULL,
  `order` INTEGER, `read_only` INTEGER NOT NULL DEFAULT 0);
CREATE UNIQUE INDEX IF NOT EXISTS `t_rid` ON `tasks` (`remoteId`);
CREATE INDEX IF NOT EXISTS `active_and_visible` ON `tasks` (`completed`, `deleted`, `hideUntil`);
CREATE TABLE IF NOT EXISTS android_metadata (locale TEXT);
CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY, identity_hash TEXT);
"""
SEED = (("INSERT OR IGNORE INTO android_metadata (rowid, locale) VALUES (1, 'en_US')", ()),)
COLUMNS = ("_id", "title", "importance", "dueDate", "hideUntil", "completed", "notes")
PRIORITIES = ("High", "Medium", "Low", "None")  # by `importance`, 0 to 3
# The checkbox colour that tells a task's priority in the list (high red, medium orange, low blue).
PRIORITY_COLORS = ("#F44336", "#FB8C00", "#2196F3", "#9E9E9E")


class TasksOrg(App):
    package = PKG
    label = "Tasks"
    main_activity = MAIN
    icon = "check"
    icon_color = "#1E88E5"
    version_name = "13.6.5"

    def create_data(self) -> None:
        sql_script(self.db_file(DB), SCHEMA, SEED)  # the app starts with no tasks

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main}

    # ---- data
    def tasks(self, where: str = "1", args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        """Tasks not deleted, open ones by due date (none last) then priority, completed ones newest first."""
        rows = sql(
            self.db_file(DB),
            f"SELECT {', '.join(COLUMNS)} FROM tasks WHERE deleted = 0 AND ({where})"
            " ORDER BY completed > 0, CASE WHEN completed > 0 THEN -completed"
            " WHEN dueDate = 0 THEN 9e18 ELSE dueDate END, importance, title COLLATE NOCASE, _id",
            args,
        )
        return [dict(zip(COLUMNS, r, strict=True)) for r in rows]

    def set_column(self, tid: int, column: str, value: int, now: int) -> None:
        sql(self.db_file(DB), f"UPDATE tasks SET {column} = ?, modified = ? WHERE _id = ?", (value, now, tid))

    # ---- formatting
    def when(self, ms: int, today: date) -> str:
        """A date as the list shows it: Today, Tomorrow, Yesterday or "Mon, Oct 16", and its time if any."""
        moment = local_ms(self.device.props, ms)
        day = moment.date()
        names = {
            today: "Today",
            today + timedelta(days=1): "Tomorrow",
            today - timedelta(days=1): "Yesterday",
        }
        text = names.get(day) or f"{moment.strftime('%a, %b')} {day.day}"
        if day.year != today.year and day not in names:
            text += f", {day.year}"
        if ms % 60000:  # the app's mark of a due time: a date alone has zero seconds
            text += " " + moment.strftime("%I:%M %p").lstrip("0")
        return text

    def today(self, ctx: ScreenContext) -> date:
        return ctx.today()

    # ---- screens
    def main(self, ctx: ScreenContext) -> View:
        if ctx.state.get("edit") is not None:
            return self.editor(ctx, int(ctx.state["edit"]))
        st = ctx.state
        now = ctx.now_ms()
        today = self.today(ctx)
        show_unstarted, show_completed = bool(st.get("show_unstarted")), bool(st.get("show_completed"))
        found = [
            t
            for t in self.tasks()
            if (show_unstarted or t["hideUntil"] <= now) and (show_completed or not t["completed"])
        ]

        def toggle(t: dict[str, Any]) -> Callable[[], None]:
            return lambda: self.set_column(int(t["_id"]), "completed", 0 if t["completed"] else now, now)

        def open_task(tid: int) -> Callable[[], None]:
            return lambda: st.update(edit=tid)

        # The open tasks, then a "Completed" header above the completed ones (None marks it).
        done = next((i for i, t in enumerate(found) if t["completed"]), len(found))
        entries: list[dict[str, Any] | None] = [
            *found[:done],
            *([None] if done < len(found) else []),
            *found[done:],
        ]

        def make(i: int) -> View:
            t = entries[i]
            if t is None:
                return Text(
                    id="completed_header", text="Completed", size=14, medium=True, pad=(16, 16, 16, 8)
                )
            return self.row(t, today, toggle(t), open_task(int(t["_id"])))

        def menu_toggle(key: str) -> Callable[[], None]:
            def run() -> None:
                st[key] = not st.get(key)
                st.pop("menu", None)

            return run

        bar = app_bar("My Tasks", actions=[action("more_vert", "More options", lambda: st.update(menu=True))])
        layers: list[View] = [
            page(
                bar,
                Scroll(
                    id="recycler_view",
                    key="tasks",
                    weight=1,
                    pad=(0, 0, 0, 96),
                    rows=Rows(len(entries), make),
                    empty=empty_state("check", "No tasks"),
                ),
            ),
            fab("add", "Create new task", self.new_task(ctx), id="fab"),
        ]
        if st.get("menu"):
            ctx.on_back(lambda: st.pop("menu", None))
            items = [
                ("Show completed", "show_completed", show_completed),
                ("Show unstarted", "show_unstarted", show_unstarted),
            ]
            layers.append(
                Column(
                    id="popup_menu",
                    bg="surface_container",
                    radius=4,
                    width=240,
                    align="top_end",
                    blocks=True,
                    pad=(0, 8, 0, 8),
                    children=[
                        list_item(
                            label,
                            on_click=menu_toggle(key),
                            title_id="android:id/title",
                            trailing=CheckBox(id="android:id/checkbox", on=on, on_click=menu_toggle(key)),
                        )
                        for label, key, on in items
                    ],
                )
            )
        return Stack(children=layers)

    def row(
        self, t: dict[str, Any], today: date, toggle: Callable[[], None], open_task: Callable[[], None]
    ) -> View:
        """A task row as the app lays it out: checkbox in the priority's colour, title, due date last."""
        importance = min(max(int(t["importance"]), 0), 3)
        due: list[View] = []
        if t["dueDate"]:
            due.append(
                Text(id="due_date", text=self.when(int(t["dueDate"]), today), size=14, pad=(8, 0, 8, 0))
            )
        return Row(
            id="row",
            height=56,
            pad=(4, 0, 8, 0),
            spacing=8,
            on_click=open_task,
            children=[
                CheckBox(
                    id="completeBox",
                    on=bool(t["completed"]),
                    tint=PRIORITY_COLORS[importance],
                    desc=f"{PRIORITIES[importance]} priority",
                    width=48,
                    on_click=toggle,
                ),
                Text(
                    id="title",
                    text=str(t["title"] or ""),
                    size=16,
                    weight=1,
                    color="on_surface_variant" if t["completed"] else "on_surface",
                ),
                *due,
            ],
        )

    def new_task(self, ctx: ScreenContext) -> Callable[[], None]:
        """An empty task to edit, with the app's default priority (Low, 2) and no dates."""

        def run() -> None:
            now = ctx.now_ms()
            tid = sql_insert(
                self.db_file(DB),
                "INSERT INTO tasks (title, importance, dueDate, hideUntil, created, modified, completed,"
                " deleted, estimatedSeconds, elapsedSeconds, timerStart, notificationFlags, lastNotified,"
                " collapsed, parent, remoteId) VALUES ('', 2, 0, 0, ?, ?, 0, 0, 0, 0, 0, 0, 0, 0, 0, ?)",
                (now, now, uuid.uuid4().hex),
            )
            ctx.state["edit"] = tid
            ctx.set_fields({"title": ""})
            ctx.focus("title")

        return run

    def editor(self, ctx: ScreenContext, tid: int) -> View:
        """The task's editor: its title, dates, priority (tap to change) and notes; BACK saves the title."""
        st = ctx.state
        found = self.tasks("_id = ?", (tid,))
        if not found:
            st.pop("edit", None)
            return self.main(ctx)
        t = found[0]
        today = self.today(ctx)
        if "title" not in st.get("fields", {}):
            ctx.set_fields({"title": str(t["title"] or "")})

        def close() -> None:
            title = ctx.field("title").strip()
            if title:
                sql(self.db_file(DB), "UPDATE tasks SET title = ? WHERE _id = ?", (title, tid))
            elif not t["title"]:  # a new task left without a title is discarded, as the app does
                sql(self.db_file(DB), "DELETE FROM tasks WHERE _id = ?", (tid,))
            st.pop("edit", None)
            ctx.set_fields({})

        def set_priority(value: int) -> Callable[[], None]:
            return lambda: self.set_column(tid, "importance", value, ctx.now_ms())

        ctx.on_back(close)
        importance = min(max(int(t["importance"]), 0), 3)
        priority = Row(
            id="priority_row",
            pad=(16, 8, 16, 8),
            spacing=8,
            children=[
                Button(
                    id=f"priority_{name.lower()}",
                    text=name,
                    style="tonal" if i == importance else "outlined",
                    selected=i == importance,
                    height=36,
                    size=14,
                    on_click=set_priority(i),
                )
                for i, name in enumerate(PRIORITIES)
            ],
        )
        facts: list[View] = [
            list_item(
                self.when(int(t[column]), today) if t[column] else f"No {label.lower()}",
                label,
                icon=icon,
                id=f"{rid}_row",
                title_id=rid,
                subtitle_id=f"{rid}_label",
            )
            for column, label, icon, rid in (
                ("dueDate", "Due date", "calendar", "due_date"),
                ("hideUntil", "Start date", "schedule", "start_date"),
            )
        ]
        if t["completed"]:
            facts.append(
                list_item(
                    self.when(int(t["completed"]), today),
                    "Completed",
                    icon="check",
                    id="completed_row",
                    title_id="completed_date",
                    subtitle_id="completed_label",
                )
            )
        body: list[View] = [
            EditText(id="title", key="title", hint="Task name", text=ctx.field("title"), size=22, height=64),
            header("Priority"),
            priority,
            *facts,
            header("Description"),
            Text(id="notes", text=str(t["notes"] or ""), size=16, lines=20, pad=(16, 0, 16, 16)),
        ]
        bar = app_bar("", back=close, actions=[action("check", "Save", close, id="menu_save")])
        return Column(
            bg="surface", children=[bar, Scroll(key="edit", weight=1, pad=(8, 0, 8, 16), children=body)]
        )
