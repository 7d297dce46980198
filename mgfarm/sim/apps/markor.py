"""Markor (net.gsantner.markor): notes as plain files under /storage/emulated/0/Documents/Markor.

The file browser creates notes and folders, renames, moves and deletes (one or many, after a long
press), sorts by name or date; the document screen edits a note's text and saves it when left, as
Markor saves on pause. Everything is the real files: AndroidWorld reads them with `ls` and `cat`.
"""

from __future__ import annotations

import contextlib
import itertools
import posixpath
import stat
from collections.abc import Callable
from functools import partial
from pathlib import Path

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn
from mgfarm.sim.system.clipboard import select_word, text_toolbar
from mgfarm.sim.system.clock import local_time
from mgfarm.sim.system.fs import PathEscapeError
from mgfarm.sim.system.intents import IntentFilter
from mgfarm.sim.ui.views import Column, EditText, IconButton, Row, Rows, Scroll, Stack, Text, View
from mgfarm.sim.ui.widgets import action, chip, dialog, empty_state, fab, list_item

PKG = "net.gsantner.markor"
MAIN = "net.gsantner.markor.activity.MainActivity"
DOCUMENT = "net.gsantner.markor.activity.DocumentActivity"
STORAGE = "/storage/emulated/0"
NOTEBOOK = f"{STORAGE}/Documents/Markor"
# Names that already end in one of these keep it; others get the extension field's value.
TEXT_EXTENSIONS = (".md", ".txt", ".markdown", ".text", ".todo.txt", ".csv", ".json", ".html")
TITLE = "move_item_title"
MAX_ENTRIES = 2000  # a folder lists at most this many entries (a planted million must not stall frames)
MAX_NOTE_BYTES = 1 << 20  # larger files open read-only, as a note too big to edit
NOTE_TYPES = ("text/plain", "text/markdown", "text/x-markdown")
TYPES = (("Markdown", ".md"), ("Plain text", ".txt"))


def valid_name(name: str) -> bool:
    return bool(name) and "/" not in name and name not in (".", "..") and "\x00" not in name


def file_name(name: str, ext: str) -> str:
    """The name a new note gets: the typed name, plus the extension unless it already has one."""
    if not ext or name.lower().endswith(TEXT_EXTENSIONS) or name.lower().endswith(ext.lower()):
        return name
    return name + ext


class Markor(App):
    package = PKG
    label = "Markor"
    main_activity = MAIN
    icon = "edit"  # a pen, unlike the recipe and note apps' page icons
    icon_color = "#455A64"
    version_name = "2.11.1"
    intent_filters = (
        IntentFilter(
            DOCUMENT,
            ("android.intent.action.VIEW", "android.intent.action.EDIT"),
            mime_types=NOTE_TYPES,
            schemes=("file", "content"),
        ),
    )

    def create_data(self) -> None:
        """Markor makes its notebook folder on first start."""
        # Something else may stand there (an agent's doing): the browser then shows it empty.
        with contextlib.suppress(OSError, PathEscapeError):
            self.host(NOTEBOOK).mkdir(parents=True, exist_ok=True)

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main, DOCUMENT: self.document}

    def host(self, device_path: str) -> Path:
        return self.device.fs.host(device_path)

    def entries(self, folder: str) -> list[tuple[str, bool, float]]:
        """(name, is folder, modified) of a folder's entries; stat only, so no note's atime moves."""
        try:
            path = self.host(folder)
            if not path.is_dir():
                return []
            found = []
            for p in itertools.islice(path.iterdir(), MAX_ENTRIES):
                try:
                    st = p.stat()
                except OSError:  # a device symlink (dangling on the host): listed, never followed
                    st = p.lstat()
                found.append((p.name, stat.S_ISDIR(st.st_mode), st.st_mtime))
        except (OSError, PathEscapeError):
            return []
        return found

    # ---- the file browser
    def main(self, ctx: ScreenContext) -> View:
        cwd = str(ctx.state.get("cwd", NOTEBOOK))
        if not cwd.startswith(NOTEBOOK):
            cwd = NOTEBOOK
        selected: list[str] = list(ctx.state.get("selected", []))
        by_date = bool(ctx.state.get("by_date", False))
        entries = self.entries(cwd)
        if by_date:
            entries.sort(key=lambda e: (not e[1], -e[2], e[0].lower()))
        else:
            entries.sort(key=lambda e: (not e[1], e[0].lower()))

        def toggle(name: str) -> Callable[[], None]:
            def run() -> None:
                chosen = list(ctx.state.get("selected", []))
                if name in chosen:
                    chosen.remove(name)
                else:
                    chosen.append(name)
                ctx.state["selected"] = chosen

            return run

        def open_entry(name: str, is_dir: bool) -> Callable[[], None]:
            def run() -> None:
                if is_dir:
                    ctx.state.update(cwd=f"{cwd}/{name}", selected=[])
                    ctx.state.pop("scroll", None)
                else:
                    ctx.start(DOCUMENT, {"path": f"{cwd}/{name}"})

            return run

        def back() -> None:
            if ctx.state.get("selected"):
                ctx.state["selected"] = []
            elif cwd != NOTEBOOK:
                ctx.state["cwd"] = cwd.rsplit("/", 1)[0]
                ctx.state.pop("scroll", None)
            else:
                ctx.finish()

        ctx.on_back(back)
        rows = [  # made as the list shows them
            partial(
                self.entry_row,
                name,
                is_dir,
                mtime,
                toggle(name) if selected else open_entry(name, is_dir),
                toggle(name),
                name in selected,
            )
            for name, is_dir, mtime in entries
        ]
        if selected:
            bar = self.selection_bar(ctx, entries, selected)
        else:
            bar = self.title_bar(ctx, cwd, by_date, back)
        layers: list[View] = [
            Column(
                children=[
                    bar,
                    Text(
                        id="ui__filesystem_dialog__current_folder",
                        text=cwd.removeprefix("/storage/emulated/0/"),
                        size=14,
                        color="primary",
                        pad=(16, 4, 16, 8),
                    ),
                    Scroll(
                        id="ui__filesystem_dialog__recycler_view",
                        key="list",
                        weight=1,
                        pad=(0, 0, 0, 88),
                        rows=Rows.of(rows),
                        empty=empty_state("note", "No notes yet: tap + to create one"),
                    ),
                ]
            ),
            fab("add", "Create a new file or folder", lambda: self.open_new(ctx), id="fab_add_new_item"),
        ]
        layers += self.dialogs(ctx, cwd, selected)
        return Stack(bg="surface", children=layers)

    def entry_row(
        self,
        name: str,
        is_dir: bool,
        mtime: float,
        on_click: Callable[[], None],
        on_long_click: Callable[[], None],
        selected: bool,
    ) -> View:
        """A file or folder of the browser: its name and its modification time in the device's zone."""
        when = local_time(self.device.props, mtime).strftime("%Y-%m-%d %H:%M:%S")
        return list_item(
            name,
            when,
            icon="folder" if is_dir else "note",
            on_click=on_click,
            on_long_click=on_long_click,
            selected=selected,
            id="ui__filesystem_item__root",
            title_id="ui__filesystem_item__title",
            subtitle_id="ui__filesystem_item__description",
        )

    def title_bar(self, ctx: ScreenContext, cwd: str, by_date: bool, back: Callable[[], None]) -> View:
        lead: list[View] = []
        if cwd != NOTEBOOK:
            lead.append(IconButton(name="arrow_back", desc="Navigate up", on_click=back, tint="on_surface"))
        title = "Markor" if cwd == NOTEBOOK else cwd.rsplit("/", 1)[1]
        return Row(
            id="toolbar",
            height=64,
            pad=(4, 0, 4, 0),
            children=[
                *lead,
                Text(id="toolbar_title", text=title, size=22, weight=1, pad=(12 if not lead else 4, 0, 0, 0)),
                action(
                    "schedule" if not by_date else "label",
                    "Sort by date" if not by_date else "Sort by name",
                    lambda: ctx.state.update(by_date=not by_date),
                    id="action_sort",
                ),
            ],
        )

    def selection_bar(
        self, ctx: ScreenContext, entries: list[tuple[str, bool, float]], selected: list[str]
    ) -> View:
        def ask(kind: str) -> Callable[[], None]:
            def run() -> None:
                ctx.state["dialog"] = kind
                if kind == "rename":
                    ctx.set_fields({"name": selected[0]})
                    ctx.focus("name")
                if kind == "move":
                    ctx.state["move_to"] = NOTEBOOK

            return run

        actions: list[View] = [
            action(
                "check",
                "Select all",
                lambda: ctx.state.update(selected=[e[0] for e in entries]),
                id="action_select_all",
            )
        ]
        if len(selected) == 1:
            actions.append(action("edit", "Rename", ask("rename"), id="action_rename_selected_item"))
        actions += [
            action("folder", "Move", ask("move"), id="action_move_selected_items"),
            action("delete", "Delete", ask("delete"), id="action_delete_selected_items"),
        ]
        return Row(
            id="toolbar",
            height=64,
            bg="secondary_container",
            pad=(4, 0, 4, 0),
            children=[
                IconButton(
                    name="close", desc="Clear selection", on_click=lambda: ctx.state.update(selected=[])
                ),
                Text(id="toolbar_title", text=f"{len(selected)} selected", size=20, weight=1),
                *actions,
            ],
        )

    def open_new(self, ctx: ScreenContext) -> None:
        ctx.state["dialog"] = "new"
        ctx.set_fields({"name": "", "ext": ".md"})
        ctx.focus("name")

    # ---- dialogs of the browser
    def dialogs(self, ctx: ScreenContext, cwd: str, selected: list[str]) -> list[View]:
        kind = ctx.state.get("dialog")
        if kind is None:
            return []

        def close() -> None:
            ctx.state.pop("dialog", None)
            ctx.set_fields({})

        ctx.on_back(close)
        if kind == "new":
            return [self.new_dialog(ctx, cwd, close)]
        if kind == "rename" and len(selected) == 1:
            return [self.rename_dialog(ctx, cwd, selected[0], close)]
        if kind == "move":
            return [self.move_dialog(ctx, cwd, selected, close)]
        if kind == "delete":

            def delete() -> None:
                for name in selected:
                    self.remove(f"{cwd}/{name}")
                ctx.state["selected"] = []
                close()

            what = f'"{selected[0]}"' if len(selected) == 1 else f"{len(selected)} items"
            return [
                dialog(
                    "Delete",
                    [],
                    [("Cancel", close), ("OK", delete)],
                    close,
                    message=f"Do you really want to delete {what}?",
                )
            ]
        close()
        return []

    def new_dialog(self, ctx: ScreenContext, cwd: str, close: Callable[[], None]) -> View:
        def target() -> str | None:
            name = ctx.field("name").strip()
            if not valid_name(name):
                ctx.toast("Enter a name")
                return None
            return name

        def create_file() -> None:
            name = target()
            if name is None:
                return
            name = file_name(name, ctx.field("ext").strip())
            if not valid_name(name):
                ctx.toast("Enter a name")
                return
            # Through the device filesystem, which stamps what it writes with the device clock.
            fs = self.device.fs
            try:
                fs.mkdir(cwd, parents=True)
                if fs.exists(f"{cwd}/{name}"):
                    ctx.toast("File already exists")
                    return
                fs.write_bytes(f"{cwd}/{name}", b"")
            except (OSError, PathEscapeError):
                ctx.toast("Could not create the file")
                return
            close()
            ctx.start(DOCUMENT, {"path": f"{cwd}/{name}"})

        def create_folder() -> None:
            name = target()
            if name is None:
                return
            try:
                if self.device.fs.exists(f"{cwd}/{name}"):
                    ctx.toast("Folder already exists")
                    return
                self.device.fs.mkdir(f"{cwd}/{name}", parents=True)
            except (OSError, PathEscapeError):
                ctx.toast("Could not create the folder")
                return
            close()

        def pick(ext: str) -> Callable[[], None]:
            return lambda: ctx.set_field("ext", ext)

        ext = ctx.field("ext")
        body: list[View] = [
            EditText(id="new_file_dialog__name", key="name", hint="Name", text=ctx.field("name")),
            Row(spacing=8, children=[chip(label, pick(e), e == ext) for label, e in TYPES]),
            EditText(id="new_file_dialog__ext", key="ext", hint="Extension", text=ext),
        ]
        return dialog(
            "Create a new file or folder",
            body,
            [("Folder", create_folder), ("Cancel", close), ("OK", create_file)],
            close,
        )

    def rename_dialog(self, ctx: ScreenContext, cwd: str, old: str, close: Callable[[], None]) -> View:
        def rename() -> None:
            new = ctx.field("name").strip()
            if not valid_name(new):
                ctx.toast("Enter a name")
                return
            if new != old:
                try:
                    if self.device.fs.exists(f"{cwd}/{new}"):
                        ctx.toast("A file with this name already exists")
                        return
                    self.device.fs.rename(f"{cwd}/{old}", f"{cwd}/{new}")
                except (OSError, PathEscapeError):
                    ctx.toast("Could not rename")
                    return
            ctx.state["selected"] = []
            close()

        return dialog(
            "Rename",
            [EditText(id="new_name", key="name", hint="Name", text=ctx.field("name"))],
            [("Cancel", close), ("OK", rename)],
            close,
        )

    def move_dialog(
        self, ctx: ScreenContext, cwd: str, selected: list[str], close: Callable[[], None]
    ) -> View:
        dest = str(ctx.state.get("move_to", NOTEBOOK))
        if not dest.startswith(NOTEBOOK):
            dest = NOTEBOOK
        moving = {f"{cwd}/{n}" for n in selected}
        folders = sorted(
            (n for n, is_dir, _m in self.entries(dest) if is_dir and f"{dest}/{n}" not in moving),
            key=str.lower,
        )

        def go(path: str) -> Callable[[], None]:
            return lambda: ctx.state.update(move_to=path)

        def move() -> None:
            if dest == cwd:
                ctx.toast("Choose another folder")
                return
            for name in selected:
                try:
                    if self.device.fs.exists(f"{dest}/{name}"):
                        ctx.toast(f"{name} already exists there")
                        continue
                    self.device.fs.rename(f"{cwd}/{name}", f"{dest}/{name}")
                except (OSError, PathEscapeError):
                    ctx.toast(f"Could not move {name}")
            ctx.state["selected"] = []
            ctx.state.pop("move_to", None)
            close()

        rows: list[Callable[[], View]] = []  # made as the list shows them
        if dest != NOTEBOOK:
            up = go(dest.rsplit("/", 1)[0])
            rows.append(partial(list_item, "..", icon="folder", on_click=up, id="move_item", title_id=TITLE))
        rows += [
            partial(list_item, n, icon="folder", on_click=go(f"{dest}/{n}"), id="move_item", title_id=TITLE)
            for n in folders
        ]
        body: list[View] = [
            Text(id="move_current_folder", text=dest.removeprefix("/storage/emulated/0/"), color="primary"),
            Scroll(
                key="move",
                height=min(56 * max(1, len(rows)), 336),
                rows=Rows.of(rows),
            ),
        ]
        return dialog("Move to folder", body, [("Cancel", close), ("OK", move)], close)

    def remove(self, device_path: str) -> None:
        with contextlib.suppress(OSError, PathEscapeError):
            if self.device.fs.exists(device_path):
                self.device.fs.remove(device_path, recursive=True)

    # ---- the editor
    def document(self, ctx: ScreenContext) -> View:
        path = str(ctx.extras.get("path") or ctx.extras.get("data", "")).removeprefix("file://")
        name = path.rsplit("/", 1)[-1] or "Untitled"
        if not ctx.state.get("loaded"):
            ctx.state["loaded"] = True
            data = self.read_note(path)
            ctx.state["read_only"] = data is None
            ctx.set_fields({"text": "" if data is None else data.decode(errors="replace")})
            ctx.state["saved"] = ctx.field("text")
        read_only = bool(ctx.state.get("read_only"))

        def save() -> None:
            text = ctx.field("text")
            if read_only or text == ctx.state.get("saved"):
                return
            fs = self.device.fs
            try:
                fs.mkdir(posixpath.dirname(fs.normalize(path)), parents=True)
                fs.write_bytes(path, text.encode())
            except (OSError, PathEscapeError, ValueError):
                ctx.toast("Could not save the file")
                return
            ctx.state["saved"] = text

        def leave() -> None:
            save()
            ctx.finish()

        ctx.on_back(leave)
        bar = Row(
            id="toolbar",
            height=64,
            pad=(4, 0, 4, 0),
            children=[
                IconButton(name="arrow_back", desc="Navigate up", on_click=leave, tint="on_surface"),
                Text(id="note__activity__text_note_title", text=name, size=20, weight=1, pad=(4, 0, 0, 0)),
                action("check", "Save", save, id="action_save"),
            ],
        )
        editor = EditText(
            on_long_click=select_word(ctx, "text"),
            id="document__fragment__edit__highlighting_editor",
            key="text",
            hint="This file cannot be edited" if read_only else "",
            text=ctx.field("text"),
            enabled=not read_only,
            multiline=True,
            style="plain",
            height=None,
            weight=1,
            pad=(12, 8, 12, 8),
        )
        toolbar = text_toolbar(ctx, "text", editable=not read_only)  # after a long press
        menu: list[View] = [toolbar] if toolbar is not None else []
        return Column(
            bg="surface", children=[bar, *menu, Column(weight=1, pad=(4, 0, 4, 0), children=[editor])]
        )

    def read_note(self, device_path: str) -> bytes | None:
        """A note's bytes ("" when it does not exist yet); None when it cannot be edited: outside shared
        storage (Markor has no access to app data), not a regular file (a FIFO would block), too large."""
        try:
            if not self.device.fs.canonical(device_path).startswith(STORAGE + "/"):
                return None
            path = self.host(device_path)
            if not path.exists():
                return b""
            if not stat.S_ISREG(path.stat().st_mode):
                return None
            with path.open("rb") as f:
                data = f.read(MAX_NOTE_BYTES + 1)
        except (OSError, PathEscapeError, ValueError):
            return None
        return data if len(data) <= MAX_NOTE_BYTES else None
