"""System UI: the status bar (clock, Wi-Fi, Bluetooth, airplane, battery) and the 3-button navigation bar."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mgfarm.sim.ui.views import Column, Icon, IconButton, Row, Spacer, Text, View

if TYPE_CHECKING:
    from datetime import datetime

SYSTEMUI = "com.android.systemui"


def clock_text(t: datetime, h24: bool = False) -> str:
    """The status bar clock at local time `t`: 12-hour without AM/PM as in en-US, or 24-hour when
    the user chose it."""
    if h24:
        return f"{t.hour:02d}:{t.minute:02d}"
    hour = t.hour % 12 or 12
    return f"{hour}:{t.minute:02d}"


def status_bar(clock: str, wifi: bool, bluetooth: bool, airplane: bool, light_icons: bool) -> View:
    fg = "#FFFFFF" if light_icons else "on_surface"
    icons: list[View] = []
    if bluetooth:
        icons.append(Icon(name="bluetooth", size=16, tint=fg, desc="Bluetooth on."))
    if airplane:
        icons.append(Icon(name="airplane", size=16, tint=fg, desc="Airplane mode."))
    elif wifi:
        icons.append(Icon(name="wifi", size=17, tint=fg, desc="Wifi signal full."))
    if not airplane:
        icons.append(Icon(name="signal", size=15, tint=fg, desc="Phone signal full."))
    icons.append(Icon(name="battery", size=17, tint=fg, desc="Battery 100 percent."))
    return Row(
        id=f"{SYSTEMUI}:id/status_bar",
        pad=(20, 0, 16, 0),
        spacing=5,
        children=[
            Text(id=f"{SYSTEMUI}:id/clock", text=clock, size=14, medium=True, color=fg),
            Spacer(weight=1),
            *icons,
        ],
    )


def nav_bar(
    on_back: Callable[[], None],
    on_home: Callable[[], None],
    on_recents: Callable[[], None],
    light_icons: bool,
    bg: str | None,
    side: str = "bottom",
) -> View:
    """The 3-button bar. In landscape a phone's bar keeps to the device's physical bottom edge, so it
    stands on the display's right side (rotation 90, back at the bottom) or left side (rotation 270,
    back at the top), its buttons stacked."""
    fg = "#FFFFFF" if light_icons else "on_surface"
    # 64 dp along the bar: wide buttons in a row, tall ones in a column.
    width, height = (64.0, None) if side == "bottom" else (None, 64.0)
    buttons: list[View] = [
        IconButton(
            id=f"{SYSTEMUI}:id/back",
            name="nav_back",
            size=20,
            tint=fg,
            desc="Back",
            on_click=on_back,
            width=width,
            height=height,
        ),
        IconButton(
            id=f"{SYSTEMUI}:id/home",
            name="nav_home",
            size=22,
            tint=fg,
            desc="Home",
            on_click=on_home,
            width=width,
            height=height,
        ),
        IconButton(
            id=f"{SYSTEMUI}:id/recent_apps",
            name="nav_recents",
            size=18,
            tint=fg,
            desc="Overview",
            on_click=on_recents,
            width=width,
            height=height,
        ),
    ]
    if side == "bottom":
        return Row(
            id=f"{SYSTEMUI}:id/navigation_bar_frame", bg=bg, justify="center", spacing=64, children=buttons
        )
    if side == "right":
        buttons.reverse()
    return Column(
        id=f"{SYSTEMUI}:id/navigation_bar_frame",
        bg=bg,
        center=True,
        children=[
            Spacer(weight=1),
            buttons[0],
            Spacer(height=48),
            buttons[1],
            Spacer(height=48),
            buttons[2],
            Spacer(weight=1),
        ],
    )
