"""Simple Gallery Pro (com.simplemobiletools.gallery.pro): folders and media from the media store.

MainActivity shows the folders that hold images or videos (content://media/external/file, the
newest folder first), each as a tile with the newest item's thumbnail, the folder name and the item
count. A folder opens MediaActivity, a grid of its items, newest first, each with its file name (the
app's "Show file names" option, on here so that a name can be found on screen). An item opens
ViewPagerActivity: the picture's real pixels scaled to fit a black screen. "Copy to" and "Move to",
from the viewer's overflow menu or a long-press selection's, open the app's PickDirectoryDialog
("Select destination": the gallery's folders, a tap on one picks it) whose "Other folder" opens the
FilePickerDialog on the items' folder for any folder; the files are copied (or moved) there under
their own names. The last copy folder is not remembered (the real app starts its picker there).
"""

from __future__ import annotations

import contextlib
import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn
from mgfarm.sim.apps.folder_picker import folder_picker
from mgfarm.sim.system.fs import PathEscapeError
from mgfarm.sim.system.media import IMAGE, STORAGE, VIDEO
from mgfarm.sim.system.providers import ProviderError
from mgfarm.sim.ui.views import Column, IconButton, Picture, Row, Rows, Scroll, Stack, Text, View
from mgfarm.sim.ui.widgets import action, app_bar, dialog, empty_state, page

PKG = "com.simplemobiletools.gallery.pro"
MAIN = f"{PKG}.activities.MainActivity"
MEDIA = f"{PKG}.activities.MediaActivity"
VIEWER = f"{PKG}.activities.ViewPagerActivity"
FILES_URI = "content://media/external/file"
COLUMNS = 3  # the app's default column count for folders and media in portrait
TILE = 120  # dp: a grid cell's thumbnail height


@dataclass(frozen=True)
class Medium:
    path: str  # device path, /storage/emulated/0/...
    name: str
    modified: int
    size: int

    @property
    def folder(self) -> str:
        return posixpath.dirname(self.path)


def humanize(path: str) -> str:
    """How the app's dialogs show a path: internal storage as "Internal"."""
    return "Internal" + path.removeprefix(STORAGE)


def grid(cells: Sequence[Callable[[], View]]) -> Rows:
    """Rows of COLUMNS equal cells (RecyclerView's GridLayoutManager), a row's cells made (each by
    its maker) as the list shows the row."""

    def row(i: int) -> View:
        chunk = [make() for make in cells[i * COLUMNS : (i + 1) * COLUMNS]]
        chunk += [Column(weight=1) for _ in range(COLUMNS - len(chunk))]
        return Row(spacing=2, pad=(0, 0, 0, 2), children=chunk)

    return Rows(-(-len(cells) // COLUMNS), row)


class Gallery(App):
    package = PKG
    label = "Simple Gallery"
    main_activity = MAIN
    icon = "image"
    icon_color = "#F57C00"
    version_name = "6.28.1"

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main, MEDIA: self.media_screen, VIEWER: self.viewer}

    # ---- data
    def media(self) -> list[Medium]:
        """Images and videos of shared storage, newest first, hidden files and folders left out."""
        try:
            provider, _ = self.device.services.providers.resolve(FILES_URI)
            _, rows = provider.query(
                FILES_URI,
                ["_data", "_display_name", "date_modified", "_size"],
                f"media_type IN ({IMAGE}, {VIDEO})",
                [],
                "date_modified DESC, _display_name COLLATE NOCASE",
            )
        except ProviderError:
            return []
        found = [Medium(str(p), str(n), int(m or 0), int(s or 0)) for p, n, m, s in rows]
        return [m for m in found if "/." not in m.path]

    def picture(
        self, m: Medium, crop: bool, id: str, height: float | None = None, weight: float = 0.0
    ) -> Picture:
        """The item's pixels; its file name is the ImageView's content description."""
        try:
            source = str(self.device.fs.host(m.path))
        except PathEscapeError:
            source = ""
        return Picture(
            id=id,
            height=height,
            weight=weight,
            desc=m.name,
            source=source,
            stamp=f"{m.size}:{m.modified}",
            crop=crop,
        )

    # ---- screens
    def folders(self) -> dict[str, list[Medium]]:
        """Folder path -> its items, the folder of the newest item first."""
        found: dict[str, list[Medium]] = {}
        for m in self.media():
            found.setdefault(m.folder, []).append(m)
        return found

    def folder_cell(
        self, path: str, items: list[Medium], on_click: Callable[[str], Callable[[], None]], tile: float
    ) -> View:
        """directory_item_grid: the newest item's thumbnail, the folder name and its item count."""
        return Column(
            id="dir_holder",
            weight=1,
            on_click=on_click(path),
            children=[
                self.picture(items[0], True, id="dir_thumbnail", height=tile),
                Text(id="dir_name", text=posixpath.basename(path), size=14, pad=(4, 4, 4, 0)),
                Text(
                    id="photo_cnt",
                    text=str(len(items)),
                    size=12,
                    color="on_surface_variant",
                    pad=(4, 0, 4, 4),
                ),
            ],
        )

    def folder_cells(
        self, on_click: Callable[[str], Callable[[], None]], tile: float
    ) -> list[Callable[[], View]]:
        """The folders' cells, each made as the grid shows its row."""
        return [
            partial(self.folder_cell, path, items, on_click, tile) for path, items in self.folders().items()
        ]

    def main(self, ctx: ScreenContext) -> View:
        def open_folder(path: str) -> Callable[[], None]:
            return lambda: ctx.start(MEDIA, {"directory": path})

        rows = grid(self.folder_cells(open_folder, TILE))
        return Column(
            bg="surface",
            children=[
                app_bar("Simple Gallery"),
                Scroll(
                    id="directories_grid",
                    key="folders",
                    weight=1,
                    rows=rows,
                    empty=empty_state("image", "No media files have been found"),
                ),
            ],
        )

    def media_screen(self, ctx: ScreenContext) -> View:
        folder = str(ctx.extras.get("directory", ""))
        items = [m for m in self.media() if m.folder == folder]
        selected = set(ctx.state.get("selected", []))

        def tap(m: Medium) -> Callable[[], None]:
            def run() -> None:
                if selected:
                    ctx.state["selected"] = sorted(selected ^ {m.path})
                else:
                    ctx.start(VIEWER, {"path": m.path})

            return run

        def hold(m: Medium) -> Callable[[], None]:
            return lambda: ctx.state.update(selected=sorted(selected | {m.path}))

        def cell(m: Medium) -> View:
            return Column(
                id="media_item_holder",
                weight=1,
                on_click=tap(m),
                on_long_click=hold(m),
                selected=m.path in selected,
                bg="secondary_container" if m.path in selected else None,
                children=[
                    self.picture(m, True, id="medium_thumbnail", height=TILE),
                    Text(id="medium_name", text=m.name, size=12, lines=2, pad=(4, 2, 4, 4)),
                ],
            )

        rows = grid([partial(cell, m) for m in items])
        if selected:
            ctx.on_back(lambda: ctx.state.pop("selected", None))
            bar = app_bar(
                f"{len(selected)} / {len(items)}",
                back=lambda: ctx.state.pop("selected", None),
                actions=[
                    action("delete", "Delete", lambda: ctx.state.update(dialog="delete"), id="cab_delete"),
                    action("more_vert", "More options", lambda: ctx.state.update(dialog="menu")),
                ],
                bg="secondary_container",
            )
        else:
            bar = app_bar(posixpath.basename(folder), back=ctx.finish)
        layers: list[View] = [
            page(
                bar,
                Scroll(
                    id="media_grid",
                    key="media",
                    weight=1,
                    rows=rows,
                    empty=empty_state("image", "No media files have been found"),
                ),
            )
        ]
        layers += self.dialogs(ctx, sorted(selected), lambda: ctx.state.pop("selected", None))
        return Stack(children=layers)

    def viewer(self, ctx: ScreenContext) -> View:
        """One item full screen; a swipe left or right shows the folder's next or previous (ViewPager)."""
        path = str(ctx.state.get("path") or ctx.extras.get("path", ""))
        folder = [m for m in self.media() if m.folder == posixpath.dirname(path)]
        at = next((i for i, m in enumerate(folder) if m.path == path), None)
        if at is None:
            return Column(
                bg="surface", children=[app_bar("", back=ctx.finish), empty_state("image", "Not found")]
            )
        m = folder[at]

        def swipe(direction: str) -> None:
            step = {"left": 1, "right": -1}.get(direction, 0)
            if step and 0 <= at + step < len(folder):
                ctx.state["path"] = folder[at + step].path

        ctx.on_swipe(swipe)
        bar = Row(
            id="toolbar",
            height=64,
            pad=(4, 0, 4, 0),
            children=[
                IconButton(name="arrow_back", desc="Navigate up", on_click=ctx.finish, tint="#FFFFFF"),
                Text(id="title", text=m.name, size=20, weight=1, color="#FFFFFF", pad=(4, 0, 0, 0)),
                IconButton(
                    name="more_vert",
                    desc="More options",
                    on_click=lambda: ctx.state.update(dialog="menu"),
                    tint="#FFFFFF",
                ),
            ],
        )
        layers: list[View] = [
            Column(
                bg="#000000",
                children=[
                    bar,
                    self.picture(m, False, id="gestures_view", weight=1),
                ],
            )
        ]
        layers += self.dialogs(ctx, [m.path], lambda: None)
        return Stack(bg="#000000", children=layers)

    # ---- menus and the copy / move flow
    def dialogs(self, ctx: ScreenContext, paths: list[str], done: Callable[[], None]) -> list[View]:
        kind = ctx.state.get("dialog")

        def close() -> None:
            ctx.state.pop("dialog", None)

        if kind is None or not paths:
            return []
        ctx.on_back(close)
        if kind == "menu":
            return [self.menu(ctx, close)]
        if kind == "delete":

            def delete() -> None:
                for p in paths:
                    with contextlib.suppress(OSError, PathEscapeError):
                        self.device.fs.unlink(p)
                close()
                done()
                if ctx.record.activity == VIEWER:
                    ctx.finish()

            count = "this item" if len(paths) == 1 else f"{len(paths)} items"
            return [
                dialog(
                    "Delete",
                    [],
                    [("Cancel", close), ("Delete", delete)],
                    close,
                    f"Are you sure you want to delete {count}?",
                )
            ]
        move = ctx.state.get("op") == "move"
        if kind == "destination":
            return [self.destination(ctx, paths, move, close, done)]
        return [self.picker(ctx, paths, move, close, done)]

    def menu(self, ctx: ScreenContext, close: Callable[[], None]) -> View:
        """The overflow popup, anchored at the top end."""

        def pick(op: str) -> Callable[[], None]:
            return lambda: ctx.state.update(dialog="destination", op=op)

        entries = [("Copy to", pick("copy")), ("Move to", pick("move"))]
        items: list[View] = [
            Text(id="title", text=label, size=16, pad=(16, 14, 32, 14), on_click=fn) for label, fn in entries
        ]
        card = Column(
            bg="surface_container", radius=4, width=200, align="top_end", blocks=True, children=items
        )
        return Stack(on_click=close, children=[card])

    def transfer(
        self, ctx: ScreenContext, paths: list[str], here: str, move: bool, done: Callable[[], None]
    ) -> None:
        """Copy or move the items into folder `here` under their own names, then say how it went."""
        if all(posixpath.dirname(p) == here for p in paths):
            ctx.toast("Source and destination cannot be the same")
            return
        fs = self.device.fs
        ok = True
        for p in paths:
            target = f"{here}/{posixpath.basename(p)}"
            try:
                if move:
                    fs.rename(p, target)
                else:
                    fs.copy(p, target)  # in pieces: a video can be as large as the partition
            except (OSError, PathEscapeError):
                ok = False
        ctx.state.pop("dialog", None)
        done()
        if not ok:
            ctx.toast("An error occurred")
        else:
            ctx.toast("Files moved successfully" if move else "Files copied successfully")
        if move and ctx.record.activity == VIEWER:
            ctx.finish()

    def destination(
        self,
        ctx: ScreenContext,
        paths: list[str],
        move: bool,
        close: Callable[[], None],
        done: Callable[[], None],
    ) -> View:
        """PickDirectoryDialog: the gallery's folders (a tap picks one); "Other folder" opens the
        FilePickerDialog for any folder, on the items' own folder."""

        def to(path: str) -> Callable[[], None]:
            return lambda: self.transfer(ctx, paths, path, move, done)

        def other() -> None:
            ctx.state.update(dialog="picker", browse=posixpath.dirname(paths[0]))

        body: list[View] = [
            Scroll(
                id="directories_grid",
                key="destinations",
                height=336,
                rows=grid(self.folder_cells(to, 72)),
            )
        ]
        return dialog(
            "Select destination", body, [("Other folder", other), ("Cancel", close), ("OK", close)], close
        )

    def picker(
        self,
        ctx: ScreenContext,
        paths: list[str],
        move: bool,
        close: Callable[[], None],
        done: Callable[[], None],
    ) -> View:
        """FilePickerDialog in folder mode: breadcrumbs, the folder's subfolders; OK copies or moves there."""
        here = str(ctx.state.get("browse") or STORAGE)

        def up() -> None:
            if here.rstrip("/") == STORAGE:
                close()
            else:
                ctx.state["browse"] = posixpath.dirname(here)

        def choose() -> None:
            self.transfer(ctx, paths, here, move, done)

        ctx.on_back(up)
        return folder_picker(ctx, self.device.fs, here, close, choose)
