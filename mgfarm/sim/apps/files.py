"""Files (com.google.android.documentsui; aosp: com.android.documentsui): browse /sdcard, create folders,
rename, delete, copy and move (the real files).

Copy and move are Android 13 DocumentsUI's: a long press selects, the action mode's overflow ("More
options") offers "Copy to…" and "Move to…", which open the picker (PickActivity, as
ACTION_PICK_COPY_DESTINATION) in the current folder; the user browses to the destination (a tap enters
a folder, files are greyed out, the breadcrumb and Navigate up go back) and taps Copy or Move.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn
from mgfarm.sim.system.clock import local_time
from mgfarm.sim.system.fs import PathEscapeError
from mgfarm.sim.system.media import guess_mime
from mgfarm.sim.ui.views import Button, Column, EditText, IconButton, Row, Rows, Scroll, Stack, Text, View
from mgfarm.sim.ui.widgets import action, dialog, empty_state, fab, list_item

MAIN = "com.android.documentsui.files.FilesActivity"
PICK = "com.android.documentsui.picker.PickActivity"
ROOT = "/storage/emulated/0"
VIEW = "android.intent.action.VIEW"
ICONS = {".jpg": "image", ".jpeg": "image", ".png": "image", ".txt": "note", ".md": "note", ".pdf": "file"}


def human_size(n: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}".replace(".00 ", " ")
        n = n / 1000  # type: ignore[assignment]
    return f"{n} B"


NAME_MAX = 255  # bytes of one name, on ext4 and the emulated storage above it


def valid_name(name: str) -> bool:
    return (
        bool(name)
        and "/" not in name
        and "\x00" not in name
        and name not in (".", "..")
        and len(name.encode("utf-8", errors="surrogateescape")) <= NAME_MAX
    )


class Files(App):
    role = "files"
    label = "Files"
    icon = "folder"
    icon_color = "#1A73E8"
    intent_actions = {"android.intent.action.GET_CONTENT": MAIN, "android.intent.action.OPEN_DOCUMENT": MAIN}

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main, PICK: self.pick}

    def host(self, device_path: str) -> Path:
        return self.device.fs.host(device_path)

    def main(self, ctx: ScreenContext) -> View:
        cwd = str(ctx.state.get("cwd", ROOT))
        try:
            folder = self.host(cwd)
        except PathEscapeError:
            cwd, folder = ROOT, self.host(ROOT)
        if not folder.is_dir():
            cwd, folder = ROOT, self.host(ROOT)
            ctx.state["cwd"] = ROOT
        entries = (
            sorted(folder.iterdir(), key=lambda p: (not p.is_dir(), p.name.lower()))
            if folder.is_dir()
            else []
        )
        if ctx.state.get("selected") not in {p.name for p in entries}:
            ctx.state["selected"] = None  # moved or deleted from elsewhere: the selection is gone
            ctx.state.pop("menu", None)
        selected = ctx.state.get("selected")

        def enter(name: str) -> Callable[[], None]:
            return lambda: ctx.state.update(cwd=f"{cwd}/{name}", selected=None)

        def select(name: str) -> Callable[[], None]:
            return lambda: ctx.state.update(selected=name)

        def open_file(name: str) -> Callable[[], None]:
            """A tap on a file opens it in the app that views its type (task.html in Chrome), as
            DocumentsUI sends ACTION_VIEW; a type nothing views selects the file instead."""

            def run() -> None:
                mime = guess_mime(name)
                if ctx.am.start(None, action=VIEW, data=f"file://{cwd}/{name}", mime_type=mime) is not None:
                    ctx.state.update(selected=name)

            return run

        def up() -> None:
            if ctx.state.get("selected"):
                ctx.state["selected"] = None
            elif cwd != ROOT:
                ctx.state["cwd"] = cwd.rsplit("/", 1)[0]
                ctx.state.pop("scroll", None)
            else:
                ctx.finish()

        ctx.on_back(up)

        def make(i: int) -> View:
            p = entries[i]
            try:
                st = p.stat()
            except OSError:  # a link to nothing (a root shell made it): the link itself
                st = p.lstat()
            when = local_time(self.device.props, st.st_mtime).strftime("%b %-d")  # the device's zone
            sub = when if p.is_dir() else f"{human_size(st.st_size)}, {when}"
            return list_item(
                p.name,
                sub,
                icon="folder" if p.is_dir() else ICONS.get(p.suffix.lower(), "file"),
                on_click=(select(p.name) if selected else enter(p.name) if p.is_dir() else open_file(p.name)),
                on_long_click=select(p.name),
                selected=selected == p.name,
                id="item_root",
                title_id="android:id/title",
                subtitle_id="android:id/summary",
            )

        crumbs = "Internal storage" + cwd[len(ROOT) :].replace("/", " › ")
        if selected:

            def delete() -> None:
                ctx.state["dialog"] = "delete"

            def rename() -> None:
                ctx.state["dialog"] = "rename"
                ctx.set_field("name", str(selected))
                ctx.focus("name")

            top: View = Row(
                id="toolbar",
                height=64,
                bg="secondary_container",
                pad=(4, 0, 4, 0),
                children=[
                    IconButton(
                        name="close", desc="Clear selection", on_click=lambda: ctx.state.update(selected=None)
                    ),
                    Text(text="1 selected", size=20, weight=1),
                    action("edit", "Rename", rename, id="action_menu_rename"),
                    action("delete", "Delete", delete, id="action_menu_delete"),
                    action("more_vert", "More options", lambda: ctx.state.update(menu=True)),
                ],
            )
        else:
            top = Row(
                id="toolbar",
                height=64,
                pad=(4, 0, 4, 0),
                children=[
                    IconButton(
                        name="arrow_back" if cwd != ROOT else "menu",
                        desc="Navigate up" if cwd != ROOT else "Show roots",
                        on_click=up,
                    ),
                    Text(
                        id="title", text="Files" if cwd == ROOT else cwd.rsplit("/", 1)[1], size=22, weight=1
                    ),
                ],
            )
        layers: list[View] = [
            Column(
                children=[
                    top,
                    Text(id="breadcrumb", text=crumbs, size=14, color="primary", pad=(16, 4, 16, 8)),
                    Scroll(
                        id="dir_list",
                        key="list",
                        weight=1,
                        pad=(0, 0, 0, 88),
                        rows=Rows(len(entries), make),
                        empty=empty_state("folder", "No items"),
                    ),
                ]
            ),
            fab("add", "New folder", _mkdir(ctx), id="fab", label="New folder"),
        ]
        layers += self.dialogs(ctx, folder, cwd)
        if selected and ctx.state.get("menu"):
            layers.append(self.overflow(ctx, cwd, str(selected)))
        return Stack(bg="surface", children=layers)

    def overflow(self, ctx: ScreenContext, cwd: str, name: str) -> View:
        """The action mode's overflow popup at the top end; Copy to… and Move to… open the picker."""

        def close() -> None:
            ctx.state.pop("menu", None)

        def transfer(op: str) -> Callable[[], None]:
            def run() -> None:
                close()
                ctx.start(PICK, {"op": op, "source": cwd, "name": name})

            return run

        ctx.on_back(close)
        entries = [
            ("Copy to…", "action_menu_copy_to", transfer("copy")),
            ("Move to…", "action_menu_move_to", transfer("move")),
        ]
        items: list[View] = [
            Text(id="android:id/title", text=label, size=16, pad=(16, 14, 32, 14), on_click=fn)
            for label, _, fn in entries
        ]
        card = Column(
            id="popup_menu",
            bg="surface_container",
            radius=4,
            width=200,
            align="top_end",
            blocks=True,
            children=items,
        )
        return Stack(on_click=close, children=[card])

    def pick(self, ctx: ScreenContext) -> View:
        """The destination picker: the folders of `cwd` (files greyed out), Cancel and Copy / Move."""
        source = str(ctx.extras.get("source", ROOT))
        name = str(ctx.extras.get("name", ""))
        move = ctx.extras.get("op") == "move"
        cwd = str(ctx.state.get("cwd", source))
        try:
            folder = self.host(cwd)
        except PathEscapeError:
            cwd, folder = ROOT, self.host(ROOT)
        if not folder.is_dir():
            cwd, folder = ROOT, self.host(ROOT)
        entries = sorted(folder.iterdir(), key=lambda p: (not p.is_dir(), p.name.lower()))

        def go(path: str) -> Callable[[], None]:
            return lambda: ctx.state.update(cwd=path, scroll={})

        def up() -> None:
            if cwd != ROOT:
                go(cwd.rsplit("/", 1)[0])()
            else:
                ctx.finish()

        def done() -> None:
            target = f"{cwd}/{name}"
            try:
                if self.device.fs.exists(target):
                    raise FileExistsError(target)
                if move:
                    self.device.fs.rename(f"{source}/{name}", target)
                else:
                    self.device.fs.copy(f"{source}/{name}", target)
            except (OSError, PathEscapeError):
                ctx.toast(f"Couldn't {'move' if move else 'copy'} 1 file")
            ctx.finish()

        ctx.on_back(up)

        def make(i: int) -> View:
            p = entries[i]
            row = list_item(
                p.name,
                icon="folder" if p.is_dir() else ICONS.get(p.suffix.lower(), "file"),
                on_click=go(f"{cwd}/{p.name}") if p.is_dir() else None,
                id="item_root",
                title_id="android:id/title",
            )
            row.enabled = p.is_dir()  # a destination is a folder: DocumentsUI greys files out
            return row

        crumbs: list[View] = []
        path = ROOT
        for i, part in enumerate(["Internal storage", *cwd[len(ROOT) :].strip("/").split("/")]):
            if not part:
                continue
            if i:
                path = f"{path}/{part}"
            if crumbs:
                crumbs.append(Text(text="›", size=14, color="on_surface_variant"))
            crumbs.append(Text(id="breadcrumb_text", text=part, size=14, color="primary", on_click=go(path)))
        bar = Row(
            id="toolbar",
            height=64,
            pad=(4, 0, 4, 0),
            children=[
                IconButton(
                    name="arrow_back" if cwd != ROOT else "close",
                    desc="Navigate up" if cwd != ROOT else "Cancel",
                    on_click=up,
                ),
                Text(id="title", text="Internal storage" if cwd == ROOT else cwd.rsplit("/", 1)[1], size=22),
            ],
        )
        same = cwd == source  # moving or copying into the item's own folder changes nothing
        buttons = Row(
            id="container_save",
            justify="end",
            spacing=8,
            pad=(16, 8, 16, 8),
            children=[
                Button(id="android:id/button2", text="Cancel", style="text", on_click=ctx.finish),
                Button(
                    id="android:id/button1", text="Move" if move else "Copy", on_click=done, enabled=not same
                ),
            ],
        )
        return Column(
            bg="surface",
            children=[
                bar,
                Row(id="horizontal_breadcrumb", spacing=6, pad=(16, 4, 16, 8), children=crumbs),
                Scroll(
                    id="dir_list",
                    key="list",
                    weight=1,
                    rows=Rows(len(entries), make),
                    empty=empty_state("folder", "No items"),
                ),
                buttons,
            ],
        )

    def dialogs(self, ctx: ScreenContext, folder: Path, cwd: str) -> list[View]:
        kind = ctx.state.get("dialog")
        selected = str(ctx.state.get("selected") or "")

        def close() -> None:
            ctx.state.pop("dialog", None)
            ctx.set_fields({})

        if kind is None:
            return []
        ctx.on_back(close)
        if kind == "mkdir":

            def create() -> None:
                name = ctx.field("name").strip()
                if not valid_name(name) or (folder / name).exists():
                    ctx.toast("Can't create folder")
                    return
                try:  # through the device filesystem, which stamps the folder with the device clock
                    self.device.fs.mkdir(f"{cwd}/{name}")
                except (OSError, PathEscapeError):
                    ctx.toast("Can't create folder")
                    return
                close()

            return [
                dialog(
                    "New folder",
                    [EditText(id="android:id/text1", key="name", hint="Folder name", text=ctx.field("name"))],
                    [("Cancel", close), ("OK", create)],
                    close,
                )
            ]
        if kind == "rename":

            def do_rename() -> None:
                name = ctx.field("name").strip()
                if not valid_name(name) or (folder / name).exists():
                    ctx.toast("Can't rename")
                    return
                try:
                    self.device.fs.rename(f"{cwd}/{selected}", f"{cwd}/{name}")
                except (OSError, PathEscapeError):
                    ctx.toast("Can't rename")
                    return
                ctx.state["selected"] = None
                close()

            return [
                dialog(
                    "Rename",
                    [EditText(id="android:id/text1", key="name", hint="Name", text=ctx.field("name"))],
                    [("Cancel", close), ("OK", do_rename)],
                    close,
                )
            ]

        def do_delete() -> None:
            target = f"{cwd}/{selected}"
            if self.device.fs.exists(target):
                with contextlib.suppress(OSError, PathEscapeError):
                    self.device.fs.remove(target, recursive=True)
            ctx.state["selected"] = None
            close()

        return [dialog(f'Delete "{selected}"?', [], [("Cancel", close), ("Delete", do_delete)], close)]


def _mkdir(ctx: ScreenContext) -> Callable[[], None]:
    def run() -> None:
        ctx.state["dialog"] = "mkdir"
        ctx.focus("name")

    return run
