"""`service list|check|call`: Android 13's binder services, and the call tools make (set the time zone)."""

from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mgfarm.sim.shell.registry import Invocation, command, is_number
from mgfarm.sim.system.clock import TIMEZONE_PROP

# (name, interface) as `service list` prints them on the Android 13 emulator, a representative subset.
SERVICES = (
    ("DockObserver", ""),
    ("SurfaceFlinger", "android.ui.ISurfaceComposer"),
    ("accessibility", "android.view.accessibility.IAccessibilityManager"),
    ("account", "android.accounts.IAccountManager"),
    ("activity", "android.app.IActivityManager"),
    ("activity_task", "android.app.IActivityTaskManager"),
    ("alarm", "android.app.IAlarmManager"),
    ("appops", "com.android.internal.app.IAppOpsService"),
    ("audio", "android.media.IAudioService"),
    ("battery", ""),
    ("batteryproperties", "android.os.IBatteryPropertiesRegistrar"),
    ("batterystats", "com.android.internal.app.IBatteryStats"),
    ("bluetooth_manager", "android.bluetooth.IBluetoothManager"),
    ("clipboard", "android.content.IClipboard"),
    ("connectivity", "android.net.IConnectivityManager"),
    ("content", "android.content.IContentService"),
    ("device_policy", "android.app.admin.IDevicePolicyManager"),
    ("deviceidle", "android.os.IDeviceIdleController"),
    ("display", "android.hardware.display.IDisplayManager"),
    ("dropbox", "com.android.internal.os.IDropBoxManagerService"),
    ("input", "android.hardware.input.IInputManager"),
    ("input_method", "com.android.internal.view.IInputMethodManager"),
    ("isms", "com.android.internal.telephony.ISms"),
    ("jobscheduler", "android.app.job.IJobScheduler"),
    ("location", "android.location.ILocationManager"),
    ("media_session", "android.media.session.ISessionManager"),
    ("mount", "android.os.storage.IStorageManager"),
    ("notification", "android.app.INotificationManager"),
    ("package", "android.content.pm.IPackageManager"),
    ("permission", "android.os.IPermissionController"),
    ("phone", "com.android.internal.telephony.ITelephony"),
    ("power", "android.os.IPowerManager"),
    ("settings", ""),
    ("statusbar", "com.android.internal.statusbar.IStatusBarService"),
    ("telecom", "com.android.internal.telecom.ITelecomService"),
    ("telephony.registry", "com.android.internal.telephony.ITelephonyRegistry"),
    ("uimode", "android.app.IUiModeManager"),
    ("usagestats", "android.app.usage.IUsageStatsManager"),
    ("user", "android.os.IUserManager"),
    ("vibrator_manager", "android.os.IVibratorManagerService"),
    ("wallpaper", "android.app.IWallpaperManager"),
    ("wifi", "android.net.wifi.IWifiManager"),
    ("window", "android.view.IWindowManager"),
)
NAMES = {name for name, _ in SERVICES}
# IAlarmManager's transaction codes on Android 13: 3 is setTimeZone(String).
ALARM_SET_TIME_ZONE = 3
EMPTY_REPLY = "Result: Parcel(00000000    '....')\n"
USAGE = (
    "Usage: service [-h|-?]\n"
    "       service list\n"
    "       service check SERVICE\n"
    "       service call SERVICE CODE [i32 N | i64 N | f N | d N | s16 STR | null | fd f] ...\n"
)
ARG_TYPES = {"i32", "i64", "f", "d", "s16", "fd", "nfd", "afd"}


def exception_reply(message: str) -> str:
    """The Parcel a call that threw prints: the exception code (-1, IllegalArgumentException) and text."""
    return f"Result: Parcel(ffffffff 00000000 '........') {message}\n"


def parse_call_args(args: list[str]) -> list[str | int | float | None] | str:
    """The typed arguments of `service call`; a string is the error message service prints."""
    values: list[str | int | float | None] = []
    while args:
        kind = args.pop(0)
        if kind == "null":
            values.append(None)
            continue
        if kind not in ARG_TYPES:
            return f"service: unknown option {kind}"
        if not args:
            return f"service: no value for {kind}"
        raw = args.pop(0)
        try:
            if kind in ("i32", "i64", "fd", "nfd"):
                values.append(int(raw, 0))
            elif kind in ("f", "d"):
                values.append(float(raw))
            else:
                values.append(raw)
        except ValueError:
            return f"service: bad {kind} value {raw}"
    return values


def set_time_zone(inv: Invocation, zone: str) -> str:
    """AlarmManagerService.setTimeZone: an unknown id throws, a known one becomes persist.sys.timezone."""
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        return exception_reply(f"Timezone id is invalid: {zone}")
    inv.device.props.set(TIMEZONE_PROP, zone)
    inv.device.changed()  # the status bar clock and the Clock app show the new zone
    return EMPTY_REPLY


@command("service")
async def service(inv: Invocation) -> int:
    args = inv.argv[1:]
    if not args or args[0] in ("-h", "-?"):
        inv.out(USAGE)
        return 0
    verb, rest = args[0], args[1:]
    if verb == "list":
        inv.out(f"Found {len(SERVICES)} services:\n")
        inv.out("".join(f"{i}\t{name}: [{iface}]\n" for i, (name, iface) in enumerate(SERVICES)))
        return 0
    if verb == "check":
        for name in rest:
            inv.out(f"Service {name}: {'found' if name in NAMES else 'not found'}\n")
        return 0
    if verb == "call":
        return call(inv, rest)
    inv.err(f"service: Unknown command {verb}\n")
    inv.out(USAGE)
    return 10


def call(inv: Invocation, args: list[str]) -> int:
    if len(args) < 2:
        inv.err("service: No service specified\n" if not args else "service: No code specified for call\n")
        inv.out(USAGE)
        return 10
    name, code = args[0], args[1]
    if name not in NAMES:
        inv.err(f"service: Service {name} does not exist\n")
        return 10
    if not is_number(code):
        inv.err(f"service: invalid code {code}\n")
        return 10
    values = parse_call_args(args[2:])
    if isinstance(values, str):
        inv.err(values + "\n")
        inv.out(USAGE)
        return 10
    if name == "alarm" and int(code) == ALARM_SET_TIME_ZONE:
        zone = values[0] if values and isinstance(values[0], str) else None
        inv.out(set_time_zone(inv, zone) if zone else exception_reply("Attempt to invoke on a null string"))
        return 0
    # Other transactions are accepted without effect: the reply is what a void method returns.
    inv.out(EMPTY_REPLY)
    return 0
