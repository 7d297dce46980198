"""The Simple Mobile Tools FilePickerDialog in folder mode, shared by Simple Gallery and Simple Draw."""

from __future__ import annotations

import contextlib
import stat
from collections.abc import Callable
from functools import partial

from mgfarm.sim.apps.base import ScreenContext
from mgfarm.sim.system.fs import DeviceFS, PathEscapeError
from mgfarm.sim.system.media import STORAGE
from mgfarm.sim.ui.views import Row, Rows, Scroll, Text, View
from mgfarm.sim.ui.widgets import dialog, list_item


def folder_picker(
    ctx: ScreenContext, fs: DeviceFS, here: str, cancel: Callable[[], None], choose: Callable[[], None]
) -> View:
    """Breadcrumbs and the subfolders of `here`; a tap browses (state "browse"), OK calls `choose`."""
    names: list[str] = []
    with contextlib.suppress(OSError, PathEscapeError):
        # One lstat an entry, links alone followed (in device terms): a folder of 5,000 folders
        # cost ~0.5 s a frame with a path lookup for each entry and a row made for each.
        names = [
            n
            for n, st in fs.entries(here)
            if not n.startswith(".")
            and (stat.S_ISDIR(st.st_mode) or (stat.S_ISLNK(st.st_mode) and fs.is_dir(f"{here}/{n}")))
        ]

    def go(path: str) -> Callable[[], None]:
        return lambda: ctx.state.update(browse=path)

    crumbs: list[View] = []
    path = STORAGE
    for i, part in enumerate(["Internal", *here.removeprefix(STORAGE).strip("/").split("/")]):
        if not part:
            continue
        if i:
            path = f"{path}/{part}"
        crumbs.append(Text(id="breadcrumb_text", text=f"{part} >", color="primary", on_click=go(path)))
    rows = [
        partial(
            list_item, n, icon="folder", on_click=go(f"{here}/{n}"), id="list_item", title_id="list_item_name"
        )
        for n in sorted(names, key=str.lower)
    ]
    body: list[View] = [
        Row(id="filepicker_breadcrumbs", spacing=4, children=crumbs),
        Scroll(id="filepicker_list", key="picker", height=336, rows=Rows.of(rows)),
    ]
    return dialog("Select a folder", body, [("Cancel", cancel), ("OK", choose)], cancel)
