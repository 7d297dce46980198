"""The notification shade with Quick Settings, pulled down from the status bar (a System UI window).

Tiles change the same settings rows as the Settings app, so a task can be solved either way:
Internet (global wifi_on), Bluetooth (global bluetooth_on), Airplane mode, Dark theme (secure
ui_night_mode), Do Not Disturb (global zen_mode), Auto-rotate (system accelerometer_rotation),
Battery Saver (global low_power) and Location (secure location_mode).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mgfarm.sim.ui.systembars import SYSTEMUI
from mgfarm.sim.ui.views import Column, Icon, IconButton, Row, Slider, Spacer, Text, View

Settings = Any  # the settings service: get(ns, key) / put(ns, key, value)


def set_airplane(settings: Settings, on: bool) -> None:
    """Airplane mode switches the radios off; turning it off brings Wi-Fi back, as on a phone."""
    settings.put("global", "airplane_mode_on", "1" if on else "0")
    if on:
        settings.put("global", "wifi_on", "0")
        settings.put("global", "bluetooth_on", "0")
    else:
        settings.put("global", "wifi_on", "1")


def _flag(settings: Settings, ns: str, key: str, on_value: str = "1") -> bool:
    return bool(settings.get(ns, key) == on_value)


def _toggle(settings: Settings, ns: str, key: str) -> Callable[[], None]:
    def run() -> None:
        settings.put(ns, key, "0" if settings.get(ns, key) == "1" else "1")

    return run


def tile(label: str, icon: str, on: bool, toggle: Callable[[], None], state: str = "") -> View:
    """A Quick Settings tile: rounded, filled when on; its description names it, as TalkBack reads it."""
    return Row(
        id=f"{SYSTEMUI}:id/qs_tile",
        desc=label,
        selected=on,
        weight=1,
        height=72,
        radius=36,
        pad=(16, 0, 12, 0),
        spacing=12,
        bg="primary" if on else "surface_container_high",
        on_click=toggle,
        children=[
            Icon(name=icon, size=24, tint="on_primary" if on else "on_surface_variant"),
            Column(
                weight=1,
                children=[
                    Text(
                        id=f"{SYSTEMUI}:id/tile_label",
                        text=label,
                        size=15,
                        medium=True,
                        color="on_primary" if on else "on_surface",
                    ),
                    Text(
                        id=f"{SYSTEMUI}:id/app_label",
                        text=state or ("On" if on else "Off"),
                        size=13,
                        color="on_primary" if on else "on_surface_variant",
                    ),
                ],
            ),
        ],
    )


def quick_settings(settings: Settings, open_settings: Callable[[], None], close: Callable[[], None]) -> View:
    wifi = _flag(settings, "global", "wifi_on")
    bluetooth = _flag(settings, "global", "bluetooth_on")
    airplane = _flag(settings, "global", "airplane_mode_on")
    dark = _flag(settings, "secure", "ui_night_mode", "2")
    dnd = (settings.get("global", "zen_mode") or "0") != "0"
    rotate = _flag(settings, "system", "accelerometer_rotation")
    saver = _flag(settings, "global", "low_power")
    location = (settings.get("secure", "location_mode") or "3") != "0"
    brightness = settings.get_int("system", "screen_brightness", 102)

    def toggle_dark() -> None:
        settings.put("secure", "ui_night_mode", "1" if dark else "2")

    def toggle_dnd() -> None:  # the tile turns on "priority only" (ZEN_MODE_IMPORTANT_INTERRUPTIONS)
        settings.put("global", "zen_mode", "0" if dnd else "1")

    def toggle_location() -> None:  # LOCATION_MODE_ON is 3, as LocationManager writes it
        settings.put("secure", "location_mode", "0" if location else "3")

    def set_brightness(value: int) -> None:
        settings.put("system", "screen_brightness", str(max(1, min(255, value))))

    return Column(
        id=f"{SYSTEMUI}:id/quick_settings_panel",
        bg="surface_container",
        pad=(16, 36, 16, 16),
        spacing=12,
        children=[
            Row(
                children=[
                    Spacer(weight=1),
                    IconButton(
                        id=f"{SYSTEMUI}:id/settings_button_container",
                        name="settings",
                        desc="Open settings",
                        on_click=open_settings,
                    ),
                ]
            ),
            Slider(
                id=f"{SYSTEMUI}:id/slider",
                desc="Display brightness",
                value=brightness,
                low=1,
                high=255,
                on_change=set_brightness,
            ),
            Row(
                spacing=12,
                children=[
                    tile(
                        "Internet",
                        "wifi" if wifi else "wifi_off",
                        wifi,
                        _toggle(settings, "global", "wifi_on"),
                        "AndroidWifi" if wifi else "Off",
                    ),
                    tile("Bluetooth", "bluetooth", bluetooth, _toggle(settings, "global", "bluetooth_on")),
                ],
            ),
            Row(
                spacing=12,
                children=[
                    tile("Airplane mode", "airplane", airplane, lambda: set_airplane(settings, not airplane)),
                    tile("Dark theme", "dark_mode", dark, toggle_dark),
                ],
            ),
            Row(
                spacing=12,
                children=[
                    tile("Do Not Disturb", "schedule", dnd, toggle_dnd),
                    tile(
                        "Auto-rotate", "phone", rotate, _toggle(settings, "system", "accelerometer_rotation")
                    ),
                ],
            ),
            Row(
                spacing=12,
                children=[
                    tile("Battery Saver", "battery", saver, _toggle(settings, "global", "low_power")),
                    tile("Location", "signal", location, toggle_location),
                ],
            ),
            Spacer(weight=1),
            Text(text="No notifications", size=16, color="on_surface_variant", gravity="center", height=120),
            Row(
                id=f"{SYSTEMUI}:id/handle",
                desc="Close",
                height=48,
                justify="center",
                on_click=close,
                children=[View(width=36, height=4, radius=2, bg="outline")],
            ),
        ],
    )
