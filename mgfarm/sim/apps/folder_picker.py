"""The Simple Mobile Tools FilePickerDialog in folder mode, shared by Simple Gallery and Simple Draw."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from mgfarm.sim.apps.base import ScreenContext
from mgfarm.sim.system.fs import DeviceFS, PathEscapeError
from mgfarm.sim.system.media import STORAGE
from mgfarm.sim.ui.views import Row, Scroll, Text, View
from mgfarm.sim.ui.widgets import dialog, list_item


def folder_picker(
    ctx: ScreenContext, fs: DeviceFS, here: str, cancel: Callable[[], None], choose: Callable[[], None]
) -> View:
    """Breadcrumbs and the subfolders of `here`; a tap browses (state "browse"), OK calls `choose`."""
    names: list[str] = []
    with contextlib.suppress(OSError, PathEscapeError):
        names = [n for n in fs.listdir(here) if not n.startswith(".") and fs.is_dir(f"{here}/{n}")]

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
    rows: list[View] = [
        list_item(n, icon="folder", on_click=go(f"{here}/{n}"), id="list_item", title_id="list_item_name")
        for n in sorted(names, key=str.lower)
    ]
    body: list[View] = [
        Row(id="filepicker_breadcrumbs", spacing=4, children=crumbs),
        Scroll(id="filepicker_list", key="picker", height=336, children=rows),
    ]
    return dialog("Select a folder", body, [("Cancel", cancel), ("OK", choose)], cancel)
