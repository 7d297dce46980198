"""Settings (com.android.settings): the top-level structure of Android 13 on the emulator.

Every switch and value lives in the settings-provider row Android 13 keeps it in (`settings get
global low_power`, `secure location_mode`, `system font_scale`, ...), so what the UI shows and what
a verifier reads are the same rows. Data Saver and the hotspot have no settings row on Android
(NetworkPolicyManager and the Wi-Fi service hold them), so the sim keeps them in memory only.
Apps > See all apps > App info acts on the package manager as `am force-stop` and `pm clear` do.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from mgfarm.sim.apps.base import MINUTE_MS, App, ScreenContext, ScreenFn
from mgfarm.sim.system.clock import TIMEZONE_PROP
from mgfarm.sim.ui.shade import set_airplane
from mgfarm.sim.ui.views import (
    Button,
    Column,
    EditText,
    Icon,
    IconButton,
    RadioButton,
    Row,
    Scroll,
    Slider,
    Stack,
    Text,
    Toggle,
    View,
)
from mgfarm.sim.ui.widgets import app_bar, dialog, header, list_item

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

PKG = "com.android.settings"
_S = "com.android.settings.Settings$"
MAIN = "com.android.settings.Settings"
NETWORK = _S + "NetworkDashboardActivity"
WIFI = _S + "WifiSettingsActivity"  # "Internet" on Android 13 (NetworkProviderSettings)
HOTSPOT = _S + "TetherSettingsActivity"
DATA_SAVER = _S + "DataSaverSummaryActivity"
CONNECTED = _S + "ConnectedDeviceDashboardActivity"
APPS = _S + "AppDashboardActivity"
ALL_APPS = _S + "ManageApplicationsActivity"
APP_INFO = "com.android.settings.applications.InstalledAppDetails"
APP_STORAGE = _S + "AppStorageSettingsActivity"
NOTIFICATIONS = _S + "ConfigureNotificationSettingsActivity"
BATTERY = _S + "PowerUsageSummaryActivity"
BATTERY_SAVER = _S + "BatterySaverSettingsActivity"
STORAGE = _S + "StorageDashboardActivity"
SOUND = _S + "SoundSettingsActivity"
DND = _S + "ZenModeSettingsActivity"
DISPLAY = _S + "DisplaySettingsActivity"
TEXT_READING = _S + "TextReadingSettingsActivity"
SCREEN_TIMEOUT = _S + "ScreenTimeoutActivity"
WALLPAPER = _S + "WallpaperSettingsActivity"
ACCESSIBILITY = _S + "AccessibilitySettingsActivity"
SECURITY = _S + "SecurityDashboardActivity"
LOCATION = _S + "LocationSettingsActivity"
EMERGENCY = _S + "EmergencyDashboardActivity"
ACCOUNTS = _S + "AccountDashboardActivity"
WELLBEING = _S + "WellbeingDashboardActivity"
GOOGLE = _S + "GoogleSettingsActivity"
SYSTEM = _S + "SystemDashboardActivity"
DATETIME = _S + "DateTimeSettingsActivity"
ABOUT = _S + "MyDeviceInfoActivity"

# Main list (Android 13 on the emulator): title, summary (None: computed), icon, circle colour, page.
TOP_LEVEL: tuple[tuple[str, str | None, str, str, str], ...] = (
    ("Network & internet", "Mobile, Wi\u2011Fi, hotspot", "wifi", "#1A73E8", NETWORK),
    ("Connected devices", "Bluetooth, pairing", "bluetooth", "#12A05C", CONNECTED),
    ("Apps", "Assistant, recent apps, default apps", "apps", "#E37400", APPS),
    ("Notifications", "Notification history, conversations", "note", "#E37400", NOTIFICATIONS),
    ("Battery", None, "battery", "#12A05C", BATTERY),
    ("Storage", None, "folder", "#9334E6", STORAGE),
    ("Sound & vibration", "Volume, haptics, Do Not Disturb", "volume", "#1A73E8", SOUND),
    ("Display", "Dark theme, font size, brightness", "brightness", "#E37400", DISPLAY),
    ("Wallpaper & style", "Colors, themed icons, app grid", "image", "#D01884", WALLPAPER),
    ("Accessibility", "Display, interaction, audio", "person", "#1A73E8", ACCESSIBILITY),
    ("Security & privacy", "App security, device lock, permissions", "check", "#12A05C", SECURITY),
    ("Location", None, "signal", "#1A73E8", LOCATION),
    ("Safety & emergency", "Emergency SOS, medical info, alerts", "star", "#D93025", EMERGENCY),
    ("Passwords & accounts", "Saved passwords, autofill, synced accounts", "person", "#0097A7", ACCOUNTS),
    (
        "Digital Wellbeing & parental controls",
        "Screen time, app timers, bedtime schedules",
        "timer",
        "#12A05C",
        WELLBEING,
    ),
    ("Google", "Services & preferences", "settings", "#1A73E8", GOOGLE),
    ("System", "Languages, gestures, time, backup", "info", "#5F6368", SYSTEM),
    ("About emulated device", None, "phone", "#5F6368", ABOUT),
)
VOLUMES = (  # key, label, maximum (AOSP stream maxima on the emulator)
    ("volume_music", "Media volume", 25),
    ("volume_voice", "Call volume", 5),
    ("volume_ring", "Ring & notification volume", 7),
    ("volume_alarm", "Alarm volume", 7),
)
# Screen timeout choices (system screen_off_timeout, milliseconds), as the Android 13 page lists them.
TIMEOUTS = (
    (15_000, "15 seconds"),
    (30_000, "30 seconds"),
    (60_000, "1 minute"),
    (120_000, "2 minutes"),
    (300_000, "5 minutes"),
    (600_000, "10 minutes"),
    (1_800_000, "30 minutes"),
)
# Font size steps (system font_scale) of Android 13's Display size and text page.
FONT_SCALES = ((0.85, "Small"), (1.0, "Default"), (1.15, "Large"), (1.3, "Largest"))
# Notifications on lock screen: label, secure lock_screen_show_notifications, ..._show_silent_notifications.
LOCK_SCREEN = (
    ("Show conversations, default, and silent", "1", "1"),
    ("Hide silent conversations and notifications", "1", "0"),
    ("Don\u2019t show any notifications", "0", "0"),
)
HOME = "com.android.launcher3"
STORAGE_TOTAL = 8_000_000_000  # the emulator's 8 GB userdata, counted in decimal GB as Settings does
STORAGE_SYSTEM = 3_110_000_000  # system image, apps and caches outside shared storage


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
        "android.settings.DATA_SAVER_SETTINGS": DATA_SAVER,
        "android.settings.BLUETOOTH_SETTINGS": CONNECTED,
        "android.settings.APPLICATION_SETTINGS": ALL_APPS,
        "android.settings.MANAGE_APPLICATIONS_SETTINGS": ALL_APPS,
        "android.settings.APPLICATION_DETAILS_SETTINGS": APP_INFO,
        "android.settings.NOTIFICATION_SETTINGS": NOTIFICATIONS,
        "android.intent.action.POWER_USAGE_SUMMARY": BATTERY,
        "android.settings.BATTERY_SAVER_SETTINGS": BATTERY_SAVER,
        "android.settings.INTERNAL_STORAGE_SETTINGS": STORAGE,
        "android.settings.SOUND_SETTINGS": SOUND,
        "android.settings.ZEN_MODE_SETTINGS": DND,
        "android.settings.DISPLAY_SETTINGS": DISPLAY,
        "android.settings.ACCESSIBILITY_SETTINGS": ACCESSIBILITY,
        "android.settings.SECURITY_SETTINGS": SECURITY,
        "android.settings.LOCATION_SOURCE_SETTINGS": LOCATION,
        "android.settings.SYNC_SETTINGS": ACCOUNTS,
        "android.settings.DATE_SETTINGS": DATETIME,
        "android.settings.DEVICE_INFO_SETTINGS": ABOUT,
    }

    def __init__(self, device: SimDevice) -> None:
        super().__init__(device)
        # No settings row holds these on Android (NetworkPolicyManager, the Wi-Fi service).
        self.data_saver = False
        self.hotspot = False

    def screens(self) -> dict[str, ScreenFn]:
        return {
            MAIN: self.main,
            NETWORK: self.network,
            WIFI: self.wifi,
            HOTSPOT: self.tethering,
            DATA_SAVER: self.data_saver_page,
            CONNECTED: self.connected,
            APPS: self.apps,
            ALL_APPS: self.all_apps,
            APP_INFO: self.app_info,
            APP_STORAGE: self.app_storage,
            NOTIFICATIONS: self.notifications,
            BATTERY: self.battery,
            BATTERY_SAVER: self.battery_saver,
            STORAGE: self.storage,
            SOUND: self.sound,
            DND: self.dnd,
            DISPLAY: self.display,
            TEXT_READING: self.text_reading,
            SCREEN_TIMEOUT: self.screen_timeout,
            WALLPAPER: self.wallpaper,
            ACCESSIBILITY: self.accessibility,
            SECURITY: self.security,
            LOCATION: self.location,
            EMERGENCY: self.emergency,
            ACCOUNTS: self.accounts,
            WELLBEING: self.wellbeing,
            GOOGLE: self.google,
            SYSTEM: self.system,
            DATETIME: self.datetime,
            ABOUT: self.about,
        }

    # ---- helpers
    @staticmethod
    def flag(ctx: ScreenContext, ns: str, key: str, default: str = "0") -> bool:
        return ctx.setting(ns, key, default) == "1"

    @staticmethod
    def toggler(ctx: ScreenContext, ns: str, key: str, default: str = "0") -> Callable[[], None]:
        def toggle() -> None:
            ctx.put_setting(ns, key, "0" if ctx.setting(ns, key, default) == "1" else "1")

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

    def with_dialog(self, ctx: ScreenContext, screen: View, layer: View | None) -> View:
        return screen if layer is None else Stack(bg="surface", children=[screen, layer])

    def battery_level(self) -> int:
        return int(self.device.services.telephony.power.capacity)

    def storage_used(self) -> int:
        """Bytes in use: the system's share plus every file in shared storage."""
        used = STORAGE_SYSTEM
        for folder, _dirs, files in os.walk(self.device.fs.host("/storage/emulated/0")):
            for name in files:
                try:
                    used += os.lstat(os.path.join(folder, name)).st_size
                except OSError:
                    continue
        return min(used, STORAGE_TOTAL)

    def storage_summary(self) -> str:
        used = self.storage_used()
        return f"{used * 100 // STORAGE_TOTAL}% used - {(STORAGE_TOTAL - used) / 1e9:.2f} GB free"

    @staticmethod
    def location_on(ctx: ScreenContext) -> bool:
        return ctx.setting("secure", "location_mode", "3") != "0"

    def location_summary(self, ctx: ScreenContext) -> str:
        if not self.location_on(ctx):
            return "Off"
        perms = {"android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_COARSE_LOCATION"}
        n = sum(1 for p in self.device.services.packages.all() if p.permissions & perms)
        return f"On - {n} app has access to location" if n == 1 else f"On - {n} apps have access to location"

    @staticmethod
    def timeout_label(ms: int) -> str:
        for value, label in TIMEOUTS:
            if value == ms:
                return label
        minutes = ms // 60_000
        return f"{minutes} minutes" if minutes >= 2 else f"{ms // 1000} seconds"

    @staticmethod
    def font_index(ctx: ScreenContext) -> int:
        try:
            scale = float(ctx.setting("system", "font_scale", "1.0") or 1.0)
        except ValueError:
            scale = 1.0
        return min(range(len(FONT_SCALES)), key=lambda i: abs(FONT_SCALES[i][0] - scale))

    # ---- screens
    def main(self, ctx: ScreenContext) -> View:
        query = ctx.field("search").strip().lower()
        model = ctx.device.props.get("ro.product.model") or ""
        summaries = {
            "Battery": f"{self.battery_level()}%",
            "Storage": self.storage_summary(),
            "Location": self.location_summary(ctx),
            # Android 13 shows the device name here (the model until the user renames the phone).
            "About emulated device": ctx.setting("global", "device_name", model) or model,
        }
        rows: list[View] = []
        for title, fixed, icon, color, target in TOP_LEVEL:
            summary = fixed if fixed is not None else summaries[title]
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

    # -- Network & internet
    def network(self, ctx: ScreenContext) -> View:
        airplane = self.flag(ctx, "global", "airplane_mode_on")
        wifi = self.flag(ctx, "global", "wifi_on")
        internet = "AndroidWifi" if wifi else ("Off" if airplane else "T-Mobile")
        dns = {"off": "Off", "opportunistic": "Automatic"}.get(
            ctx.setting("global", "private_dns_mode", "opportunistic") or "opportunistic",
            ctx.setting("global", "private_dns_specifier", "") or "Automatic",
        )
        return self.page(
            ctx,
            "Network & internet",
            [
                pref(
                    "Internet",
                    internet,
                    icon="wifi" if wifi else "wifi_off",
                    on_click=lambda: ctx.start(WIFI),
                ),
                pref("Calls & SMS", "T-Mobile", icon="phone"),
                pref("SIMs", "T-Mobile", icon="signal"),
                switch_pref(
                    "Airplane mode",
                    airplane,
                    lambda: set_airplane(ctx.device.services.settings, not airplane),
                    icon="airplane",
                ),
                pref(
                    "Hotspot & tethering",
                    "Hotspot on" if self.hotspot else "Off",
                    icon="wifi",
                    on_click=lambda: ctx.start(HOTSPOT),
                ),
                pref(
                    "Data Saver",
                    "On" if self.data_saver else "Off",
                    icon="download",
                    on_click=lambda: ctx.start(DATA_SAVER),
                ),
                pref("VPN", "None", icon="settings"),
                pref("Private DNS", dns, icon="settings"),
            ],
        )

    def set_airplane(self, ctx: ScreenContext, on: bool) -> None:
        """Airplane mode switches the radios off; turning it off brings Wi-Fi back, as on a phone."""
        set_airplane(ctx.device.services.settings, on)

    def wifi(self, ctx: ScreenContext) -> View:
        """Android 13's Internet page: the mobile network, the Wi-Fi switch, then the networks."""
        on = self.flag(ctx, "global", "wifi_on")
        airplane = self.flag(ctx, "global", "airplane_mode_on")
        rows: list[View] = [
            pref("T-Mobile", "Airplane mode is on" if airplane else "Connected / 5G", icon="signal"),
            switch_pref(
                "Wi-Fi", on, self.toggler(ctx, "global", "wifi_on"), icon="wifi" if on else "wifi_off"
            ),
        ]
        if on:
            rows += [
                pref("AndroidWifi", "Connected", icon="wifi"),
                pref("mgfarm-guest", "Saved", icon="wifi"),
                pref("Add network", icon="add"),
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
        rows += [
            pref("Network preferences", "Wi\u2011Fi turns back on automatically", icon="settings"),
            pref("Saved networks", icon="history"),
        ]
        return self.page(ctx, "Internet", rows)

    def tethering(self, ctx: ScreenContext) -> View:
        def toggle() -> None:
            self.hotspot = not self.hotspot
            ctx.device.changed()

        return self.page(
            ctx,
            "Hotspot & tethering",
            [
                switch_pref(
                    "Wi-Fi hotspot",
                    self.hotspot,
                    toggle,
                    subtitle="On" if self.hotspot else "Off",
                    icon="wifi",
                ),
                switch_pref(
                    "USB tethering",
                    False,
                    lambda: None,
                    subtitle="Share phone\u2019s internet connection via USB",
                ),
                switch_pref(
                    "Bluetooth tethering",
                    False,
                    lambda: None,
                    subtitle="Share phone\u2019s internet connection via Bluetooth",
                ),
            ],
        )

    def data_saver_page(self, ctx: ScreenContext) -> View:
        def toggle() -> None:
            self.data_saver = not self.data_saver
            ctx.device.changed()

        return self.page(
            ctx,
            "Data Saver",
            [
                main_switch("Use Data Saver", self.data_saver, toggle),
                pref("Unrestricted data", "0 apps allowed to use unrestricted data when Data Saver is on"),
            ],
        )

    # -- Connected devices
    def connected(self, ctx: ScreenContext) -> View:
        on = self.flag(ctx, "global", "bluetooth_on")
        return self.page(
            ctx,
            "Connected devices",
            [
                switch_pref(
                    "Bluetooth",
                    on,
                    self.toggler(ctx, "global", "bluetooth_on"),
                    icon="bluetooth",
                    subtitle="On" if on else "Off",
                ),
                pref("Pair new device", icon="add"),
                header("Other devices"),
                pref("Connection preferences", "Bluetooth, Android Auto", icon="settings"),
            ],
        )

    # -- Apps
    def installed(self) -> list[tuple[str, str]]:
        """(label, package) of the installed apps, by label (the home screen is not listed)."""
        apps = self.device.services.apps.items()
        return sorted(((a.label, p) for p, a in apps if p != HOME), key=lambda t: t[0].lower())

    def apps(self, ctx: ScreenContext) -> View:
        recent: list[View] = []
        seen: set[str] = set()
        for task in self.device.services.activities.tasks():
            app = self.device.services.apps.get(task.package)
            if app is None or task.package in seen or task.package in (PKG, HOME):
                continue
            seen.add(task.package)
            recent.append(
                pref(app.label, "Recently opened", icon=app.icon or "apps", on_click=_info(ctx, task.package))
            )
            if len(recent) == 3:
                break
        return self.page(
            ctx,
            "Apps",
            [
                header("Recently opened apps"),
                *recent,
                pref(
                    f"See all {len(self.installed())} apps",
                    icon="arrow_forward",
                    on_click=lambda: ctx.start(ALL_APPS),
                ),
                header("General"),
                pref("Default apps", "Chrome, Phone, and Messages"),
                pref("Screen time", "Today: 0 minutes"),
                pref("Unused apps", "0 unused apps"),
                pref("App battery usage"),
                pref("Special app access", "1 app can use unrestricted data"),
            ],
        )

    def all_apps(self, ctx: ScreenContext) -> View:
        rows: list[View] = [
            pref(label, _size_text(self.app_bytes(pkg)), icon="apps", on_click=_info(ctx, pkg))
            for label, pkg in self.installed()
        ]
        return self.page(ctx, "All apps", rows)

    def app_bytes(self, package: str) -> int:
        total = 0
        for folder, _dirs, files in os.walk(self.device.fs.host(f"/data/data/{package}")):
            for name in files:
                try:
                    total += os.lstat(os.path.join(folder, name)).st_size
                except OSError:
                    continue
        return total

    @staticmethod
    def info_package(ctx: ScreenContext) -> str:
        pkg = str(ctx.extras.get("package") or "")
        data = str(ctx.extras.get("data") or "")
        return pkg or (data[len("package:") :] if data.startswith("package:") else data)

    def app_info(self, ctx: ScreenContext) -> View:
        pkg = self.info_package(ctx)
        app = self.device.services.apps.get(pkg)
        info = self.device.services.packages.get(pkg)
        if app is None or info is None:
            return self.page(ctx, "App info", [Text(text="App not found", size=16, pad=(24, 16, 24, 16))])
        running = any(t.package == pkg for t in self.device.services.activities.tasks())
        asking = ctx.state.get("dialog") == "force_stop"

        def close() -> None:
            ctx.state.pop("dialog", None)

        def force_stop() -> None:
            ctx.state.pop("dialog", None)
            self.device.services.activities.force_stop(pkg)

        buttons = Row(
            pad=(16, 8, 16, 16),
            spacing=12,
            children=[
                Button(
                    id="button1", text="Open", style="tonal", weight=1, on_click=lambda: _launch(ctx, pkg)
                ),
                Button(
                    id="button2",
                    text="Disable" if _platform(pkg) else "Uninstall",
                    style="tonal",
                    weight=1,
                ),
                Button(
                    id="button3",
                    text="Force stop",
                    style="tonal",
                    weight=1,
                    enabled=running,
                    on_click=lambda: ctx.state.__setitem__("dialog", "force_stop"),
                ),
            ],
        )
        rows: list[View] = [
            Column(
                center=True,
                pad=(0, 8, 0, 8),
                spacing=8,
                children=[
                    Icon(
                        name=app.icon or "apps",
                        size=40,
                        tint="#FFFFFF",
                        circle=app.icon_color or "#5F6368",
                        width=72,
                    ),
                    Text(id="entity_header_title", text=app.label, size=24, gravity="center"),
                ],
            ),
            buttons,
            pref("Notifications", "~0 notifications per week"),
            pref("Permissions", ", ".join(_perm_names(info.permissions)) or "No permissions requested"),
            pref(
                "Storage & cache",
                f"{_size_text(self.app_bytes(pkg))} used in internal storage",
                on_click=lambda: ctx.start(APP_STORAGE, extras={"package": pkg}),
            ),
            pref("Mobile data & Wi\u2011Fi", "No data used"),
            pref("Screen time", "0 minutes today"),
            pref("App battery usage", "No battery use since last full charge"),
            pref("Open by default", "Allow app to open supported links"),
            header("Advanced"),
            pref("Version", f"version {info.version_name}"),
        ]
        layer = None
        if asking:
            ctx.on_back(close)
            layer = dialog(
                "Force stop?",
                [],
                [("Cancel", close), ("OK", force_stop)],
                close,
                message="If you force stop an app, it may misbehave.",
            )
        return self.with_dialog(ctx, self.page(ctx, "App info", rows), layer)

    def app_storage(self, ctx: ScreenContext) -> View:
        pkg = self.info_package(ctx)
        app = self.device.services.apps.get(pkg)
        if app is None:
            return self.page(ctx, "Storage", [])
        used = self.app_bytes(pkg)
        asking = ctx.state.get("dialog") == "clear"

        def close() -> None:
            ctx.state.pop("dialog", None)

        def clear() -> None:
            """What `pm clear` does: stop the app, wipe its data folder, let it re-create its schema."""
            ctx.state.pop("dialog", None)
            self.device.services.activities.force_stop(pkg)
            self.device.services.packages.clear(pkg)
            ctx.device.changed()

        rows: list[View] = [
            Text(id="entity_header_title", text=app.label, size=22, pad=(24, 8, 24, 8)),
            Row(
                pad=(16, 8, 16, 16),
                spacing=12,
                children=[
                    Button(
                        id="button1",
                        text="Clear storage",
                        style="tonal",
                        weight=1,
                        enabled=used > 0,
                        on_click=lambda: ctx.state.__setitem__("dialog", "clear"),
                    ),
                    Button(id="button2", text="Clear cache", style="tonal", weight=1, enabled=False),
                ],
            ),
            header("Space used"),
            pref("App size", "12.29 MB"),
            pref("User data", _size_text(used)),
            pref("Cache", "0 B"),
            pref("Total", _size_text(used + 12_290_000)),
        ]
        layer = None
        if asking:
            ctx.on_back(close)
            layer = dialog(
                "Delete app data?",
                [],
                [("Cancel", close), ("Delete", clear)],
                close,
                message="This app\u2019s data, including files and settings, will be permanently deleted "
                "from this device",
            )
        return self.with_dialog(ctx, self.page(ctx, "Storage", rows), layer)

    # -- Notifications
    def notifications(self, ctx: ScreenContext) -> View:
        show = ctx.setting("secure", "lock_screen_show_notifications", "1") or "1"
        silent = ctx.setting("secure", "lock_screen_show_silent_notifications", "1") or "1"
        current = next(
            (label for label, s, q in LOCK_SCREEN if s == show and (q == silent or s == "0")),
            LOCK_SCREEN[0][0],
        )
        choosing = ctx.state.get("dialog") == "lock_screen"
        dnd = (ctx.setting("global", "zen_mode", "0") or "0") != "0"

        def close() -> None:
            ctx.state.pop("dialog", None)

        def choose(show_value: str, silent_value: str) -> Callable[[], None]:
            def run() -> None:
                ctx.state.pop("dialog", None)
                ctx.put_setting("secure", "lock_screen_show_notifications", show_value)
                if show_value == "1":
                    ctx.put_setting("secure", "lock_screen_show_silent_notifications", silent_value)

            return run

        rows: list[View] = [
            pref("App notifications", "Control notifications from individual apps"),
            pref("Notification history", "Show recent and snoozed notifications"),
            header("Conversation"),
            pref("Conversations", "No priority conversations"),
            pref("Bubbles", "On / Conversations can appear as floating icons"),
            header("Privacy"),
            pref("Device & app notifications", "Control which apps and devices can read notifications"),
            pref(
                "Notifications on lock screen",
                current,
                on_click=lambda: ctx.state.__setitem__("dialog", "lock_screen"),
            ),
            header("General"),
            pref("Do Not Disturb", "On" if dnd else "Off", on_click=lambda: ctx.start(DND)),
            pref("Wireless emergency alerts"),
            switch_pref(
                "Allow notification snoozing",
                self.flag(ctx, "secure", "show_notification_snooze"),
                self.toggler(ctx, "secure", "show_notification_snooze"),
            ),
            switch_pref(
                "Notification dot on app icon",
                self.flag(ctx, "secure", "notification_badging", "1"),
                self.toggler(ctx, "secure", "notification_badging", "1"),
            ),
        ]
        layer = None
        if choosing:
            ctx.on_back(close)
            options: list[View] = [
                Row(
                    height=48,
                    on_click=choose(s, q),
                    children=[
                        RadioButton(
                            id="android:id/text1", text=label, on=label == current, on_click=choose(s, q)
                        )
                    ],
                )
                for label, s, q in LOCK_SCREEN
            ]
            layer = dialog("Notifications on lock screen", options, [("Cancel", close)], close)
        return self.with_dialog(ctx, self.page(ctx, "Notifications", rows), layer)

    # -- Battery
    def battery(self, ctx: ScreenContext) -> View:
        saver = self.flag(ctx, "global", "low_power")
        level = self.battery_level()
        return self.page(
            ctx,
            "Battery",
            [
                Text(id="battery_percent", text=f"{level}%", size=40, pad=(24, 8, 24, 0)),
                Text(
                    id="summary1",
                    text="Fully charged" if level >= 100 else "Charging",
                    size=14,
                    color="on_surface_variant",
                    pad=(24, 0, 24, 16),
                ),
                pref("Battery usage", "View usage for past 24 hours", icon="history"),
                pref(
                    "Battery Saver",
                    "On" if saver else "Off",
                    icon="battery",
                    on_click=lambda: ctx.start(BATTERY_SAVER),
                ),
                switch_pref(
                    "Battery percentage",
                    self.flag(ctx, "system", "status_bar_show_battery_percent"),
                    self.toggler(ctx, "system", "status_bar_show_battery_percent"),
                    subtitle="Show battery percentage in status bar",
                ),
            ],
        )

    def battery_saver(self, ctx: ScreenContext) -> View:
        on = self.flag(ctx, "global", "low_power")
        return self.page(
            ctx,
            "Battery Saver",
            [
                main_switch("Use Battery Saver", on, self.toggler(ctx, "global", "low_power")),
                pref("Set a schedule", "No schedule"),
                switch_pref(
                    "Turn off when charged",
                    self.flag(ctx, "global", "low_power_sticky_auto_disable_enabled", "1"),
                    self.toggler(ctx, "global", "low_power_sticky_auto_disable_enabled", "1"),
                ),
                Text(
                    text="Battery Saver turns on Dark theme and limits or turns off background activity, "
                    "some visual effects, certain features, and some network connections.",
                    size=14,
                    lines=5,
                    color="on_surface_variant",
                    pad=(24, 16, 24, 16),
                ),
            ],
        )

    # -- Storage
    def storage(self, ctx: ScreenContext) -> View:
        used = self.storage_used()
        return self.page(
            ctx,
            "Storage",
            [
                Text(id="storage_used", text=f"{used / 1e9:.2f} GB", size=40, pad=(24, 8, 24, 0)),
                Text(
                    id="storage_summary",
                    text=f"{used * 100 // STORAGE_TOTAL}% used - {(STORAGE_TOTAL - used) / 1e9:.2f} GB free",
                    size=14,
                    color="on_surface_variant",
                    pad=(24, 0, 24, 16),
                ),
                pref("Free up space", "Go to Files app to manage and free up space"),
                pref("Apps", icon="apps"),
                pref("Images", icon="image"),
                pref("Videos", icon="play"),
                pref("Audio", icon="volume"),
                pref("Documents & other", icon="file"),
                pref("Trash", icon="delete"),
                pref("System", f"{STORAGE_SYSTEM / 1e9:.2f} GB", icon="info"),
            ],
        )

    # -- Sound & vibration
    def sound(self, ctx: ScreenContext) -> View:
        rows: list[View] = []
        for key, label, high in VOLUMES:
            value = ctx.setting_int("system", key, 5)
            rows.append(pref(label, f"{value} / {high}", icon="volume"))
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
        dnd = (ctx.setting("global", "zen_mode", "0") or "0") != "0"
        rows += [
            pref("Do Not Disturb", "On" if dnd else "Off", icon="schedule", on_click=lambda: ctx.start(DND)),
            pref("Live Caption", "Automatically caption speech"),
            switch_pref(
                "Vibrate for calls",
                self.flag(ctx, "system", "vibrate_when_ringing"),
                self.toggler(ctx, "system", "vibrate_when_ringing"),
            ),
            pref("Phone ringtone", "Ring Ring"),
            pref("Default notification sound", "Pixie Dust"),
            pref("Default alarm sound", "Osmium"),
        ]
        return self.page(ctx, "Sound & vibration", rows)

    def dnd(self, ctx: ScreenContext) -> View:
        on = (ctx.setting("global", "zen_mode", "0") or "0") != "0"
        return self.page(
            ctx,
            "Do Not Disturb",
            [
                Text(
                    text="Only get notified by important people and apps",
                    size=14,
                    lines=2,
                    color="on_surface_variant",
                    pad=(24, 0, 24, 8),
                ),
                header("What can interrupt Do Not Disturb"),
                pref("People", "Calls and messages"),
                pref("Apps", "No apps can interrupt"),
                pref("Alarms & other interruptions", "Alarms, media, and touch sounds"),
                header("General"),
                pref("Schedules", "1 schedule can turn on automatically"),
                pref("Duration for Quick Settings", "Until you turn off"),
                pref("Display options for hidden notifications", "No sound from notifications"),
                Row(
                    pad=(24, 16, 24, 16),
                    children=[
                        Button(
                            id="zen_mode_settings_turn_on_button"
                            if not on
                            else "zen_mode_settings_turn_off_button",
                            text="Turn off now" if on else "Turn on now",
                            style="filled",
                            on_click=lambda: ctx.put_setting("global", "zen_mode", "0" if on else "1"),
                        )
                    ],
                ),
            ],
        )

    # -- Display
    def display(self, ctx: ScreenContext) -> View:
        brightness = ctx.setting_int("system", "screen_brightness", 102)
        dark = ctx.setting("secure", "ui_night_mode", "1") == "2"
        timeout = ctx.setting_int("system", "screen_off_timeout", 60000)

        def set_brightness(value: int) -> None:
            ctx.put_setting("system", "screen_brightness", str(max(1, min(255, value))))

        def toggle_dark() -> None:
            ctx.put_setting("secure", "ui_night_mode", "1" if dark else "2")

        return self.page(
            ctx,
            "Display",
            [
                header("Brightness"),
                pref("Brightness level", f"{round(brightness * 100 / 255)}%", icon="brightness"),
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
                switch_pref(
                    "Adaptive brightness",
                    self.flag(ctx, "system", "screen_brightness_mode"),
                    self.toggler(ctx, "system", "screen_brightness_mode"),
                ),
                header("Lock display"),
                pref("Lock screen", "Show all notification content"),
                pref(
                    "Screen timeout",
                    f"After {self.timeout_label(timeout)} of inactivity",
                    icon="schedule",
                    on_click=lambda: ctx.start(SCREEN_TIMEOUT),
                ),
                header("Appearance"),
                switch_pref("Dark theme", dark, toggle_dark, icon="dark_mode"),
                pref(
                    "Display size and text",
                    "Font size " + FONT_SCALES[self.font_index(ctx)][1].lower(),
                    on_click=lambda: ctx.start(TEXT_READING),
                ),
                header("Other display controls"),
                switch_pref(
                    "Auto-rotate screen",
                    self.flag(ctx, "system", "accelerometer_rotation"),
                    self.toggler(ctx, "system", "accelerometer_rotation"),
                ),
                pref("Screen saver", "Clock"),
            ],
        )

    def text_reading(self, ctx: ScreenContext) -> View:
        index = self.font_index(ctx)

        def set_index(i: int) -> None:
            i = max(0, min(len(FONT_SCALES) - 1, i))
            ctx.put_setting("system", "font_scale", str(FONT_SCALES[i][0]))

        return self.page(
            ctx,
            "Display size and text",
            [
                Text(
                    id="preview",
                    text="Preview: Make the text on your screen smaller or larger.",
                    size=round(16 * FONT_SCALES[index][0]),
                    lines=3,
                    pad=(24, 8, 24, 16),
                ),
                pref("Font size", FONT_SCALES[index][1]),
                Row(
                    pad=(8, 0, 8, 0),
                    children=[
                        IconButton(
                            name="chevron_left", desc="Make smaller", on_click=lambda: set_index(index - 1)
                        ),
                        Slider(
                            id="seekbar",
                            desc="Font size",
                            value=index,
                            low=0,
                            high=len(FONT_SCALES) - 1,
                            on_change=set_index,
                            weight=1,
                        ),
                        IconButton(
                            name="chevron_right", desc="Make larger", on_click=lambda: set_index(index + 1)
                        ),
                    ],
                ),
                pref("Display size", "Default"),
                switch_pref(
                    "Bold text",
                    (ctx.setting("secure", "font_weight_adjustment", "0") or "0") not in ("0", ""),
                    lambda: ctx.put_setting(
                        "secure",
                        "font_weight_adjustment",
                        "0"
                        if (ctx.setting("secure", "font_weight_adjustment", "0") or "0") != "0"
                        else "300",
                    ),
                ),
                switch_pref(
                    "High contrast text",
                    self.flag(ctx, "secure", "high_text_contrast_enabled"),
                    self.toggler(ctx, "secure", "high_text_contrast_enabled"),
                ),
            ],
        )

    def screen_timeout(self, ctx: ScreenContext) -> View:
        current = ctx.setting_int("system", "screen_off_timeout", 60000)

        def choose(ms: int) -> Callable[[], None]:
            return lambda: ctx.put_setting("system", "screen_off_timeout", str(ms))

        rows: list[View] = [
            Row(
                height=56,
                pad=(16, 0, 16, 0),
                on_click=choose(ms),
                children=[
                    RadioButton(id="android:id/title", text=label, on=ms == current, on_click=choose(ms))
                ],
            )
            for ms, label in TIMEOUTS
        ]
        return self.page(ctx, "Screen timeout", rows)

    # -- pages agents rarely need: their rows, as Android 13 names them
    def wallpaper(self, ctx: ScreenContext) -> View:
        return self.simple(
            ctx,
            "Wallpaper & style",
            (
                ("Change wallpaper", ""),
                ("Wallpaper colors", ""),
                ("Themed icons", "Off"),
                ("App grid", "5x5"),
            ),
        )

    def accessibility(self, ctx: ScreenContext) -> View:
        return self.simple(
            ctx,
            "Accessibility",
            (
                ("Display size and text", ""),
                ("Color and motion", ""),
                ("Extra dim", "Off"),
                ("Magnification", "Off"),
                ("TalkBack", "Off"),
                ("Select to Speak", "Off"),
                ("Live Caption", "Off"),
            ),
        )

    def security(self, ctx: ScreenContext) -> View:
        return self.simple(
            ctx,
            "Security & privacy",
            (
                ("App security", "Google Play Protect"),
                ("Device lock", "Screen lock"),
                ("Privacy", "Permissions, account activity, personal data"),
            ),
        )

    def location(self, ctx: ScreenContext) -> View:
        on = self.location_on(ctx)

        def toggle() -> None:
            ctx.put_setting("secure", "location_mode", "0" if on else "3")

        rows: list[View] = [main_switch("Use location", on, toggle)]
        if on:
            rows += [header("Recent access"), pref("See all", "No apps recently accessed location")]
        rows += [
            pref("App location permissions", self.location_summary(ctx)),
            pref("Location services"),
            Text(
                text="Location may use sources like GPS, Wi\u2011Fi, mobile networks, and sensors to help "
                "estimate your device\u2019s location.",
                size=14,
                lines=4,
                color="on_surface_variant",
                pad=(24, 16, 24, 16),
            ),
        ]
        return self.page(ctx, "Location", rows)

    def emergency(self, ctx: ScreenContext) -> View:
        return self.simple(
            ctx,
            "Safety & emergency",
            (
                ("Emergency SOS", "Off"),
                ("Medical information", ""),
                ("Emergency contacts", ""),
                ("Crisis alerts", ""),
            ),
        )

    def accounts(self, ctx: ScreenContext) -> View:
        return self.simple(
            ctx,
            "Passwords & accounts",
            (("Passwords", ""), ("Autofill service", "Google"), ("Add account", "")),
        )

    def wellbeing(self, ctx: ScreenContext) -> View:
        return self.simple(
            ctx,
            "Digital Wellbeing & parental controls",
            (
                ("Dashboard", "0 minutes today"),
                ("Bedtime mode", "Off"),
                ("Focus mode", "Off"),
                ("Parental controls", "Add content restrictions and set other limits"),
            ),
        )

    def google(self, ctx: ScreenContext) -> View:
        return self.simple(
            ctx,
            "Google",
            (
                ("Manage your Google Account", ""),
                ("Devices & sharing", ""),
                ("Backup", "On"),
                ("Autofill", ""),
            ),
        )

    def simple(self, ctx: ScreenContext, title: str, rows: tuple[tuple[str, str], ...]) -> View:
        return self.page(ctx, title, [pref(t, s) for t, s in rows])

    # -- System
    def system(self, ctx: ScreenContext) -> View:
        tz = ctx.device.props.get(TIMEZONE_PROP, "UTC")
        return self.page(
            ctx,
            "System",
            [
                pref("Languages", "English (United States)", icon="language"),
                pref("Keyboard", "On-screen keyboard", icon="apps"),
                pref("Gestures", icon="settings"),
                pref("Date & time", tz, icon="schedule", on_click=lambda: ctx.start(DATETIME)),
                pref("Backup", "Off", icon="download"),
                pref("System update", "Updated to Android 13", icon="info"),
                pref("Reset options", icon="history"),
            ],
        )

    def datetime(self, ctx: ScreenContext) -> View:
        from mgfarm.sim.ui.systembars import clock_text

        tz = ctx.device.props.get(TIMEZONE_PROP, "UTC")
        h24 = ctx.setting("system", "time_12_24", "12") == "24"

        def toggle_24() -> None:
            ctx.put_setting("system", "time_12_24", "12" if h24 else "24")

        return self.page(
            ctx,
            "Date & time",
            [
                switch_pref(
                    "Set time automatically",
                    self.flag(ctx, "global", "auto_time"),
                    self.toggler(ctx, "global", "auto_time"),
                ),
                pref("Time", clock_text(ctx.local_now(MINUTE_MS), h24)),
                switch_pref(
                    "Set time zone automatically",
                    self.flag(ctx, "global", "auto_time_zone"),
                    self.toggler(ctx, "global", "auto_time_zone"),
                ),
                pref("Time zone", tz),
                header("Time format"),
                switch_pref("Use 24-hour format", h24, toggle_24),
            ],
        )

    def about(self, ctx: ScreenContext) -> View:
        props = ctx.device.props
        return self.page(
            ctx,
            "About emulated device",
            [
                pref(
                    "Device name", ctx.setting("global", "device_name", props.get("ro.product.model")) or ""
                ),
                pref("Phone number", "+1 555-521-5554"),
                header("Device details"),
                pref("Model", props.get("ro.product.model")),
                pref("Android version", props.get("ro.build.version.release")),
                pref("Build number", props.get("ro.build.display.id") or props.get("ro.build.id")),
            ],
        )


def pref(
    title: str,
    summary: str = "",
    *,
    icon: str = "",
    on_click: Callable[[], None] | None = None,
    trailing: View | None = None,
) -> View:
    """A Preference row: android:id/title and android:id/summary, as AndroidX Preference lays them out."""
    return list_item(
        title,
        summary,
        icon=icon,
        on_click=on_click,
        trailing=trailing,
        title_id="android:id/title",
        subtitle_id="android:id/summary",
    )


def switch_pref(title: str, on: bool, toggle: Callable[[], None], subtitle: str = "", icon: str = "") -> View:
    """A SwitchPreference: tapping the row or the switch (android:id/switch_widget) toggles it."""
    return pref(title, subtitle, icon=icon, on_click=toggle, trailing=_switch(on, toggle))


def main_switch(title: str, on: bool, toggle: Callable[[], None]) -> View:
    """Android 13's MainSwitchBar ("Use Battery Saver"): a filled bar at the top of the page."""
    return Column(
        pad=(16, 8, 16, 16),
        children=[
            Row(
                height=72,
                radius=28,
                bg="primary_container" if on else "surface_container_high",
                pad=(24, 0, 24, 0),
                on_click=toggle,
                children=[Text(id="switch_text", text=title, size=20, weight=1), _switch(on, toggle)],
            )
        ],
    )


def _switch(on: bool, toggle: Callable[[], None]) -> View:
    return Toggle(id="android:id/switch_widget", on=on, on_click=toggle)


def _opener(ctx: ScreenContext, activity: str) -> Callable[[], None]:
    return lambda: ctx.start(activity)


def _info(ctx: ScreenContext, package: str) -> Callable[[], None]:
    return lambda: ctx.start(APP_INFO, extras={"package": package})


def _launch(ctx: ScreenContext, package: str) -> None:
    ctx.device.services.activities.launch(package)


def _setter(ctx: ScreenContext, key: str) -> Callable[[int], None]:
    return lambda value: ctx.put_setting("system", key, str(value))


def _platform(package: str) -> bool:
    """Apps that ship with the image (Settings, Google's Contacts): App info offers Disable, not Uninstall."""
    return package.startswith(("com.android.", "com.google.android."))


def _size_text(size: int) -> str:
    """Sizes as Settings prints them (decimal units): 0 B, 48 kB, 1.21 MB."""
    if size < 1000:
        return f"{size} B"
    if size < 1_000_000:
        return f"{size / 1000:.0f} kB"
    if size < 1_000_000_000:
        return f"{size / 1e6:.2f} MB"
    return f"{size / 1e9:.2f} GB"


def _perm_names(perms: set[str]) -> list[str]:
    names = {
        "android.permission.CAMERA": "Camera",
        "android.permission.RECORD_AUDIO": "Microphone",
        "android.permission.ACCESS_FINE_LOCATION": "Location",
        "android.permission.ACCESS_COARSE_LOCATION": "Location",
        "android.permission.READ_CONTACTS": "Contacts",
        "android.permission.POST_NOTIFICATIONS": "Notifications",
    }
    return sorted({names[p] for p in perms if p in names})
