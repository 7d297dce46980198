"""Settings (com.android.settings): Wi-Fi, airplane mode, Bluetooth, display, sound, date and time.

All state lives in the settings provider (`settings get global wifi_on` etc.), so what the UI shows
and what a verifier reads are the same rows.
"""

from __future__ import annotations

from collections.abc import Callable

from mgfarm.sim.apps.base import App, ScreenContext, ScreenFn
from mgfarm.sim.ui.shade import set_airplane
from mgfarm.sim.ui.views import Column, EditText, Icon, Row, Scroll, Slider, Text, View
from mgfarm.sim.ui.widgets import app_bar, header, list_item, switch_item

PKG = "com.android.settings"
MAIN = "com.android.settings.Settings"
NETWORK = "com.android.settings.Settings$NetworkDashboardActivity"
WIFI = "com.android.settings.Settings$WifiSettingsActivity"
CONNECTED = "com.android.settings.Settings$ConnectedDeviceDashboardActivity"
DISPLAY = "com.android.settings.Settings$DisplaySettingsActivity"
SOUND = "com.android.settings.Settings$SoundSettingsActivity"
SYSTEM = "com.android.settings.Settings$SystemDashboardActivity"
DATETIME = "com.android.settings.Settings$DateTimeSettingsActivity"
ABOUT = "com.android.settings.Settings$MyDeviceInfoActivity"

# Main list: title, summary, icon, circle colour, target activity.
TOP_LEVEL = (
    ("Network & internet", "Wi‑Fi, airplane mode", "wifi", "#1A73E8", NETWORK),
    ("Connected devices", "Bluetooth, pairing", "bluetooth", "#12A05C", CONNECTED),
    ("Display", "Dark theme, brightness", "brightness", "#E37400", DISPLAY),
    ("Sound & vibration", "Volume, vibration", "volume", "#9334E6", SOUND),
    ("System", "Languages, date & time", "info", "#5F6368", SYSTEM),
    ("About emulated device", "mgfarm_sim", "person", "#0097A7", ABOUT),
)
VOLUMES = (  # key, label, maximum (AOSP stream maxima on the emulator)
    ("volume_music", "Media volume", 25),
    ("volume_voice", "Call volume", 5),
    ("volume_ring", "Ring volume", 7),
    ("volume_alarm", "Alarm volume", 7),
)


class Settings(App):
    package = PKG
    label = "Settings"
    main_activity = MAIN
    icon = "settings"
    icon_color = "#5F6368"
    intent_actions = {
        "android.settings.SETTINGS": MAIN,
        "android.settings.WIFI_SETTINGS": WIFI,
        "android.settings.WIRELESS_SETTINGS": NETWORK,
        "android.settings.AIRPLANE_MODE_SETTINGS": NETWORK,
        "android.settings.BLUETOOTH_SETTINGS": CONNECTED,
        "android.settings.DISPLAY_SETTINGS": DISPLAY,
        "android.settings.SOUND_SETTINGS": SOUND,
        "android.settings.DATE_SETTINGS": DATETIME,
        "android.settings.DEVICE_INFO_SETTINGS": ABOUT,
    }

    def screens(self) -> dict[str, ScreenFn]:
        return {
            MAIN: self.main,
            NETWORK: self.network,
            WIFI: self.wifi,
            CONNECTED: self.connected,
            DISPLAY: self.display,
            SOUND: self.sound,
            SYSTEM: self.system,
            DATETIME: self.datetime,
            ABOUT: self.about,
        }

    # ---- helpers
    @staticmethod
    def flag(ctx: ScreenContext, ns: str, key: str) -> bool:
        return ctx.setting(ns, key, "0") == "1"

    @staticmethod
    def toggler(ctx: ScreenContext, ns: str, key: str) -> Callable[[], None]:
        def toggle() -> None:
            ctx.put_setting(ns, key, "0" if ctx.setting(ns, key, "0") == "1" else "1")

        return toggle

    @staticmethod
    def page(ctx: ScreenContext, title: str, rows: list[View]) -> View:
        return Column(
            bg="surface",
            children=[
                app_bar(title, back=ctx.finish, large=True),
                Scroll(id="recycler_view", key="list", weight=1, children=rows),
            ],
        )

    # ---- screens
    def main(self, ctx: ScreenContext) -> View:
        query = ctx.field("search").strip().lower()
        rows: list[View] = []
        for title, summary, icon, color, target in TOP_LEVEL:
            if query and query not in f"{title} {summary}".lower():
                continue
            rows.append(
                Row(
                    height=80,
                    pad=(24, 0, 16, 0),
                    spacing=20,
                    on_click=_opener(ctx, target),
                    children=[
                        Icon(name=icon, size=22, tint="#FFFFFF", circle=color, width=40),
                        Column(
                            weight=1,
                            children=[
                                Text(id="android:id/title", text=title, size=18),
                                Text(
                                    id="android:id/summary", text=summary, size=14, color="on_surface_variant"
                                ),
                            ],
                        ),
                    ],
                )
            )
        return Column(
            bg="surface",
            children=[
                Text(id="homepage_title", text="Settings", size=36, pad=(24, 56, 24, 24)),
                Column(
                    pad=(16, 0, 16, 16),
                    children=[
                        EditText(
                            id="search_action_bar",
                            key="search",
                            hint="Search Settings",
                            style="search",
                            text=ctx.field("search"),
                        )
                    ],
                ),
                Scroll(id="recycler_view", key="list", weight=1, children=rows),
            ],
        )

    def network(self, ctx: ScreenContext) -> View:
        airplane = self.flag(ctx, "global", "airplane_mode_on")
        wifi = self.flag(ctx, "global", "wifi_on")
        return self.page(
            ctx,
            "Network & internet",
            [
                list_item(
                    "Wi-Fi",
                    "AndroidWifi" if wifi else "Off",
                    icon="wifi" if wifi else "wifi_off",
                    on_click=lambda: ctx.start(WIFI),
                ),
                list_item("SIMs", "T-Mobile", icon="signal"),
                switch_item(
                    "Airplane mode", airplane, lambda: self.set_airplane(ctx, not airplane), icon="airplane"
                ),
                list_item("Hotspot & tethering", "Off", icon="wifi"),
                list_item("Data Saver", "Off", icon="download"),
            ],
        )

    def set_airplane(self, ctx: ScreenContext, on: bool) -> None:
        """Airplane mode switches the radios off; turning it off brings Wi-Fi back, as on a phone."""
        set_airplane(ctx.device.services.settings, on)

    def wifi(self, ctx: ScreenContext) -> View:
        on = self.flag(ctx, "global", "wifi_on")
        toggle = self.toggler(ctx, "global", "wifi_on")
        rows: list[View] = [
            Column(
                pad=(16, 8, 16, 16),
                children=[
                    Row(
                        height=72,
                        radius=28,
                        bg="primary_container" if on else "surface_container_high",
                        pad=(24, 0, 24, 0),
                        on_click=toggle,
                        children=[
                            Text(id="switch_text", text="Use Wi-Fi", size=20, weight=1),
                            _switch(on, toggle),
                        ],
                    )
                ],
            )
        ]
        if on:
            rows += [
                list_item("AndroidWifi", "Connected", icon="wifi"),
                list_item("mgfarm-guest", "Saved", icon="wifi"),
                list_item("Add network", icon="add"),
            ]
        else:
            rows.append(
                Text(
                    text="To see available networks, turn Wi-Fi on.",
                    size=14,
                    lines=3,
                    color="on_surface_variant",
                    pad=(24, 16, 24, 16),
                )
            )
        return self.page(ctx, "Wi-Fi", rows)

    def connected(self, ctx: ScreenContext) -> View:
        on = self.flag(ctx, "global", "bluetooth_on")
        return self.page(
            ctx,
            "Connected devices",
            [
                switch_item(
                    "Bluetooth",
                    on,
                    self.toggler(ctx, "global", "bluetooth_on"),
                    icon="bluetooth",
                    subtitle="On" if on else "Off",
                ),
                list_item("Pair new device", icon="add"),
                header("Other devices"),
                list_item("Connection preferences", "Bluetooth, Android Auto", icon="settings"),
            ],
        )

    def display(self, ctx: ScreenContext) -> View:
        brightness = int(ctx.setting("system", "screen_brightness", "102") or 102)
        dark = ctx.setting("secure", "ui_night_mode", "1") == "2"

        def set_brightness(value: int) -> None:
            ctx.put_setting("system", "screen_brightness", str(max(1, min(255, value))))

        def toggle_dark() -> None:
            ctx.put_setting("secure", "ui_night_mode", "1" if dark else "2")

        return self.page(
            ctx,
            "Display",
            [
                header("Brightness"),
                list_item("Brightness level", f"{round(brightness * 100 / 255)}%", icon="brightness"),
                Column(
                    pad=(16, 0, 16, 0),
                    children=[
                        Slider(
                            id="slider",
                            desc="Brightness level",
                            value=brightness,
                            low=1,
                            high=255,
                            on_change=set_brightness,
                        )
                    ],
                ),
                switch_item(
                    "Adaptive brightness",
                    self.flag(ctx, "system", "screen_brightness_mode"),
                    self.toggler(ctx, "system", "screen_brightness_mode"),
                ),
                header("Lock display"),
                list_item("Screen timeout", "After 1 minute of inactivity", icon="schedule"),
                header("Appearance"),
                switch_item("Dark theme", dark, toggle_dark, icon="dark_mode"),
            ],
        )

    def sound(self, ctx: ScreenContext) -> View:
        rows: list[View] = []
        for key, label, high in VOLUMES:
            value = int(ctx.setting("system", key, "5") or 5)
            rows.append(list_item(label, f"{value} / {high}", icon="volume"))
            rows.append(
                Column(
                    pad=(16, 0, 16, 0),
                    children=[
                        Slider(
                            id=f"{key}_slider",
                            desc=label,
                            value=value,
                            low=0,
                            high=high,
                            on_change=_setter(ctx, key),
                        )
                    ],
                )
            )
        rows.append(
            switch_item(
                "Vibrate for calls",
                self.flag(ctx, "system", "vibrate_when_ringing"),
                self.toggler(ctx, "system", "vibrate_when_ringing"),
            )
        )
        return self.page(ctx, "Sound & vibration", rows)

    def system(self, ctx: ScreenContext) -> View:
        return self.page(
            ctx,
            "System",
            [
                list_item("Languages", "English (United States)", icon="language"),
                list_item("Keyboard", "On-screen keyboard", icon="apps"),
                list_item("Date & time", "GMT+00:00", icon="schedule", on_click=lambda: ctx.start(DATETIME)),
                list_item("Reset options", icon="history"),
            ],
        )

    def datetime(self, ctx: ScreenContext) -> View:
        from mgfarm.sim.ui.systembars import clock_text

        tz = ctx.device.props.get("persist.sys.timezone", "UTC")
        h24 = ctx.setting("system", "time_12_24", "12") == "24"

        def toggle_24() -> None:
            ctx.put_setting("system", "time_12_24", "12" if h24 else "24")

        return self.page(
            ctx,
            "Date & time",
            [
                switch_item(
                    "Set time automatically",
                    self.flag(ctx, "global", "auto_time"),
                    self.toggler(ctx, "global", "auto_time"),
                ),
                list_item("Time", clock_text(ctx.now_ms(), tz)),
                switch_item(
                    "Set time zone automatically",
                    self.flag(ctx, "global", "auto_time_zone"),
                    self.toggler(ctx, "global", "auto_time_zone"),
                ),
                list_item("Time zone", tz),
                header("Time format"),
                switch_item("Use 24-hour format", h24, toggle_24),
            ],
        )

    def about(self, ctx: ScreenContext) -> View:
        props = ctx.device.props
        return self.page(
            ctx,
            "About emulated device",
            [
                list_item("Device name", ctx.setting("global", "device_name", "mgfarm_sim") or ""),
                list_item("Model", props.get("ro.product.model")),
                list_item("Android version", props.get("ro.build.version.release")),
                list_item("Build number", props.get("ro.build.id")),
            ],
        )


def _switch(on: bool, toggle: Callable[[], None]) -> View:
    from mgfarm.sim.ui.views import Toggle

    return Toggle(id="android:id/switch_widget", on=on, on_click=toggle)


def _opener(ctx: ScreenContext, activity: str) -> Callable[[], None]:
    return lambda: ctx.start(activity)


def _setter(ctx: ScreenContext, key: str) -> Callable[[int], None]:
    return lambda value: ctx.put_setting("system", key, str(value))
