"""Clipper (ca.zgrs.clipper): sets and reads the clipboard from `am broadcast`, as AndroidWorld uses it.

`am broadcast -a clipper.set -e text TEXT` copies TEXT; `am broadcast -a clipper.get` answers with the
clipboard's text as the broadcast's data. Its one screen says what the clipboard holds.
"""

from __future__ import annotations

from typing import Any

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn
from mgfarm.sim.ui.views import Column, Text, View
from mgfarm.sim.ui.widgets import app_bar

PKG = "ca.zgrs.clipper"
MAIN = "ca.zgrs.clipper.Main"
RESULT_OK = -1  # Activity.RESULT_OK
COPIED = "Text is copied into clipboard."


class Clipper(App):
    package = PKG
    label = "Clipper"
    main_activity = MAIN
    icon = "label"
    icon_color = "#6D4C41"
    version_name = "1.2.1"

    def screens(self) -> dict[str, ScreenFn]:
        return {MAIN: self.main}

    def receive(self, action: str, extras: dict[str, Any]) -> tuple[int, str] | None:
        """The app's broadcast receiver: (result code, data) for its actions, None for others."""
        board = self.device.services.clipboard
        if action == "clipper.set":
            board.text = str(extras.get("text", ""))
            return RESULT_OK, COPIED
        if action == "clipper.get":
            return RESULT_OK, board.text
        return None

    def main(self, ctx: ScreenContext) -> View:
        text = self.device.services.clipboard.text
        return Column(
            bg="surface",
            children=[
                app_bar("Clipper"),
                Text(text="Clipboard", size=14, medium=True, color="primary", pad=(16, 8, 16, 8)),
                Text(
                    id="clipboard_text",
                    text=text or "The clipboard is empty",
                    size=16,
                    lines=12,
                    pad=(16, 0, 16, 0),
                    color="on_surface" if text else "on_surface_variant",
                ),
            ],
        )
