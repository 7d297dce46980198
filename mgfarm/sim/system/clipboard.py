"""The device clipboard (ClipboardManager's primary clip): one text that apps set and fields paste, and
the floating text toolbar (Cut, Copy, Paste, Select all) a long press on a field opens."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mgfarm.sim.ui.views import Button, Row, View

if TYPE_CHECKING:
    from mgfarm.sim.apps.base import ScreenContext
    from mgfarm.sim.device import SimDevice

SELECTION = "text_selection"  # screen state: {"key": the field's key, "all": Select all was tapped}


@dataclass
class Clipboard:
    """The primary clip; saved in snapshots, so a snapshot load also restores (or empties) it."""

    text: str = ""

    def export_state(self) -> dict[str, Any]:
        return {"text": self.text}

    def import_state(self, state: dict[str, Any]) -> None:
        self.text = str(state.get("text", ""))


def paste(device: SimDevice, fields: dict[str, str], key: str) -> None:
    """Paste the clip at the end of a field (fields have no cursor: typing appends there too)."""
    fields[key] = fields.get(key, "") + device.services.clipboard.text


def select_word(ctx: ScreenContext, key: str) -> Callable[[], None]:
    """A field's long-press handler: select the word at its caret and open the text toolbar."""
    return lambda: ctx.state.update({SELECTION: {"key": key, "all": False}})


def selected_span(value: str, whole: bool) -> tuple[int, int]:
    """What a long press selects: the word at the caret, which in the simulated fields (no caret
    positions; typing appends) is the last word; the whole text after Select all."""
    if whole:
        return 0, len(value)
    end = len(value.rstrip())
    start = end
    while start > 0 and not value[start - 1].isspace():
        start -= 1
    return start, end


def text_toolbar(ctx: ScreenContext, key: str, editable: bool = True) -> View | None:
    """Android's floating toolbar over field `key` once it was long-pressed: Cut and Copy when text
    is selected, Paste when the clipboard holds text, Select all until everything is; None when
    the field is not selected or nothing applies. BACK dismisses it, as it does on a device."""
    sel = ctx.state.get(SELECTION)
    if not isinstance(sel, dict) or sel.get("key") != key:
        return None
    fields = ctx.state.setdefault("fields", {})
    value = str(fields.get(key, ""))
    board = ctx.device.services.clipboard
    start, end = selected_span(value, bool(sel.get("all")))

    def close() -> None:
        ctx.state.pop(SELECTION, None)

    def copy() -> None:
        board.text = value[start:end]
        close()

    def cut() -> None:
        board.text = value[start:end]
        fields[key] = value[:start] + value[end:]
        close()

    def run_paste() -> None:  # replaces the selection, or appends at the caret when none
        fields[key] = value[:start] + board.text + value[end:] if start < end else value + board.text
        close()

    def select_all() -> None:
        ctx.state[SELECTION] = {"key": key, "all": True}

    items: list[tuple[str, str, Callable[[], None]]] = []
    if start < end:
        if editable:
            items.append(("Cut", "android:id/cut", cut))
        items.append(("Copy", "android:id/copy", copy))
    if board.text and editable:
        items.append(("Paste", "android:id/paste", run_paste))
    if value and (start, end) != (0, len(value)):
        items.append(("Select all", "android:id/selectAll", select_all))
    if not items:
        close()
        return None
    ctx.on_back(close)
    return Row(
        id="floating_toolbar",
        pad=(16, 0, 16, 0),
        spacing=4,
        children=[Button(id=rid, text=label, style="tonal", on_click=fn) for label, rid, fn in items],
    )
