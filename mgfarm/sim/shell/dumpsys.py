"""`dumpsys` sections, reduced to the lines tools parse, laid out as AOSP prints them; and `cmd`."""

from __future__ import annotations

import time
import zlib
from typing import Any

from mgfarm.sim.shell.am_cmd import run_am
from mgfarm.sim.shell.ime_cmd import run_ime
from mgfarm.sim.shell.pm_cmd import run_pm
from mgfarm.sim.shell.registry import COMMANDS, Invocation, command
from mgfarm.sim.shell.settings_cmd import airplane_mode, wifi_cmd
from mgfarm.sim.shell.ui_cmd import physical_density, physical_size, run_wm

SERVICES = ("activity", "battery", "display", "input_method", "package", "power", "SurfaceFlinger", "window")


def short_hash(text: str) -> str:
    return format(zlib.crc32(text.encode()) & 0xFFFFFFF, "x")


def component(package: str, cls: str) -> str:
    """ComponentName.flattenToShortString."""
    return f"{package}/{cls[len(package) :]}" if cls.startswith(package + ".") else f"{package}/{cls}"


def task_rows(inv: Invocation) -> list[tuple[int, str, list[tuple[str, str, str]]]]:
    """(task id, package, [(hash, package, class)] bottom to top), front task first."""
    activities = inv.device.services.get("activities")
    if activities is None:
        return []
    rows = []
    for task in activities.tasks():
        records = [
            (getattr(r, "hash", short_hash(r.activity)), r.package, r.activity)
            for r in getattr(task, "records", [])
        ]
        rows.append((getattr(task, "task_id", 1), task.package, records))
    return rows


def resumed(inv: Invocation) -> tuple[str, str, str, int] | None:
    """(hash, package, class, task id) of the resumed activity."""
    for task_id, _, records in task_rows(inv):
        if records:
            h, pkg, cls = records[-1]
            return h, pkg, cls, task_id
    return None


def window_section(inv: Invocation) -> str:
    top = resumed(inv)
    lines = ["WINDOW MANAGER WINDOWS (dumpsys window windows)"]
    number = 0
    for task_id, _, records in task_rows(inv):
        for h, pkg, cls in reversed(records):
            lines.append(f"  Window #{number} Window{{{short_hash(h)} u0 {pkg}/{cls}}}:")
            lines.append(f"    mDisplayId=0 rootTaskId={task_id} mSession=Session{{{h} 2000:u0a10100}}")
            lines.append(f"    mOwnerUid=10100 showForAllUsers=false package={pkg} appop=NONE")
            number += 1
    lines.append("")
    if top is None:
        lines += ["  mCurrentFocus=null", "  mFocusedApp=null"]
    else:
        h, pkg, cls, task_id = top
        lines.append(f"  mCurrentFocus=Window{{{short_hash(h)} u0 {pkg}/{cls}}}")
        lines.append(f"  mFocusedApp=ActivityRecord{{{h} u0 {component(pkg, cls)} t{task_id}}}")
    return "\n".join(lines) + "\n" + displays_section(inv)


def displays_section(inv: Invocation) -> str:
    """The `dumpsys window displays` lines older tools read the screen size from (`init=` / `cur=`)."""
    w, h = physical_size(inv)
    d = physical_density(inv)
    return (
        "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
        f"  Display: mDisplayId=0 rootTasks=1\n    init={w}x{h} {d}dpi cur={w}x{h} app={w}x{h} "
        f"rng={w}x{w}-{h}x{h}\n"
    )


def activity_section(inv: Invocation) -> str:
    lines = [
        "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
        "Display #0 (activities from top to bottom):",
    ]
    for task_id, pkg, records in task_rows(inv):
        lines.append(
            f"  * Task{{{short_hash(str(task_id))} #{task_id} type=standard A=10100:{pkg} U=0 "
            f"visible=true mode=fullscreen translucent=false sz={len(records)}}}"
        )
        for i, (h, rpkg, cls) in enumerate(reversed(records)):
            lines.append(
                f"    * Hist #{len(records) - 1 - i}: "
                f"ActivityRecord{{{h} u0 {component(rpkg, cls)} t{task_id}}}"
            )
    top = resumed(inv)
    lines.append("")
    if top is not None:
        h, pkg, cls, task_id = top
        record = f"ActivityRecord{{{h} u0 {component(pkg, cls)} t{task_id}}}"
        lines.append(f"  ResumedActivity: {record}")
        lines.append(f"  mResumedActivity: {record}")
        lines.append(f"  topResumedActivity={record}")
    return "\n".join(lines) + "\n"


def activity_top(inv: Invocation) -> str:
    top = resumed(inv)
    if top is None:
        return "TASK null\n"
    h, pkg, cls, task_id = top
    return f"TASK 10100:{pkg} id={task_id} userId=0\n  ACTIVITY {component(pkg, cls)} {h} pid=2000\n"


def display_section(inv: Invocation) -> str:
    w, h = physical_size(inv)
    density = physical_density(inv)
    return (
        "DISPLAY MANAGER (dumpsys display)\n"
        f"  mViewports=[DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, "
        "uniqueId='local:4619827259835644672', physicalPort=0, orientation=0, "
        f"logicalFrame=Rect(0, 0 - {w}, {h}), "
        f"physicalFrame=Rect(0, 0 - {w}, {h}), deviceWidth={w}, deviceHeight={h}}}]\n"
        f'  mBaseDisplayInfo=DisplayInfo{{"Built-in Screen", displayId 0, type INTERNAL, real {w} x {h}, '
        f"largest app {w} x {h}, smallest app {w} x {h}, density {density} ({density}.0 x {density}.0) dpi, "
        "rotation 0, state ON}\n"
        "  Display Devices: size=1\n"
        f'    DisplayDeviceInfo{{"Built-in Screen": uniqueId="local:4619827259835644672", {w} x {h}, '
        f"density {density}, orientation=0, state ON}}\n"
    )


BATTERY = """Current Battery Service state:
  AC powered: true
  USB powered: false
  Wireless powered: false
  Dock powered: false
  Max charging current: 0
  Max charging voltage: 0
  Charge counter: 10000
  status: 2
  health: 2
  present: true
  level: 100
  scale: 100
  voltage: 5000
  temperature: 250
  technology: Li-ion
"""


def package_section(inv: Invocation, names: list[str]) -> str:
    pm = inv.device.services["packages"]
    infos = [pm.get(n) for n in names] if names else pm.all()
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(inv.device.services["clock"].now()))
    lines = ["Packages:"]
    for info in infos:
        if info is None:
            continue
        flags = "SYSTEM HAS_CODE ALLOW_CLEAR_USER_DATA" if info.system else "HAS_CODE ALLOW_CLEAR_USER_DATA"
        lines += [
            f"  Package [{info.package}] ({short_hash(info.package)}):",
            "    userId=10100",
            f"    codePath={info.apk_path.rsplit('/', 1)[0]}",
            f"    versionCode={info.version_code} minSdk=29 targetSdk=34",
            f"    versionName={info.version_name}",
            f"    pkgFlags=[ {flags} ]",
            f"    firstInstallTime={stamp}",
            f"    lastUpdateTime={stamp}",
            f"    PackageSignatures{{{short_hash(info.package + 's')} version:3, signatures:[a1b2c3d4], "
            "past signatures:[]}",
            "    runtime permissions:",
        ]
        lines += [f"      {perm}: granted=true" for perm in sorted(info.permissions)]
    return "\n".join(lines) + "\n"


def power_section(inv: Invocation) -> str:
    return "POWER MANAGER (dumpsys power)\n  mWakefulness=Awake\n  mHoldingDisplaySuspendBlocker=true\n"


def input_method_section(inv: Invocation) -> str:
    win = inv.device.services.get("window")
    shown = bool(getattr(win, "keyboard_shown", False))
    state = "true" if shown else "false"
    return f"  mInputShown={state}\n  mCurSelectedId=com.android.inputmethod.latin/.LatinIME\n"


@command("dumpsys")
async def dumpsys(inv: Invocation) -> int:
    args = inv.argv[1:]
    if not args:
        inv.out("".join(f"DUMP OF SERVICE {s}:\n" for s in SERVICES))
        return 0
    if args[0] == "-l":
        inv.out("Currently running services:\n" + "".join(f"  {s}\n" for s in SERVICES))
        return 0
    service, rest = args[0], args[1:]
    sections: dict[str, Any] = {
        "window": lambda: window_section(inv),
        "display": lambda: display_section(inv),
        "battery": lambda: BATTERY,
        "power": lambda: power_section(inv),
        "input_method": lambda: input_method_section(inv),
        "package": lambda: package_section(inv, [a for a in rest if not a.startswith("-")]),
    }
    if service == "activity":
        inv.out(activity_top(inv) if rest[:1] == ["top"] else activity_section(inv))
        return 0
    if service == "SurfaceFlinger":
        inv.out('Display 4619827259835644672 (HWC display 0): port=0 pnpId=GGL displayName="EMU_display_0"\n')
        return 0
    if service not in sections:
        inv.err(f"Can't find service: {service}\n")
        return 0
    inv.out(sections[service]())
    return 0


async def _forward(inv: Invocation, name: str, args: list[str]) -> int:
    inv.argv = [name, *args]
    return await COMMANDS[name](inv)


@command("cmd")
async def cmd(inv: Invocation) -> int:
    args = inv.argv[1:]
    if not args or args[0] == "-l":
        inv.out(
            "".join(
                s + "\n"
                for s in (
                    "activity",
                    "connectivity",
                    "input_method",
                    "package",
                    "settings",
                    "statusbar",
                    "wifi",
                    "window",
                )
            )
        )
        return 0
    service, rest = args[0], args[1:]
    if service == "package":
        return await run_pm(inv, rest)
    if service == "activity":
        return await run_am(inv, rest)
    if service == "window":
        return await run_wm(inv, rest)
    if service == "input_method":
        return await run_ime(inv, rest)
    if service == "settings":
        return await _forward(inv, "settings", rest)
    if service == "connectivity" and rest[:1] == ["airplane-mode"]:
        return await airplane_mode(inv, rest[1:])
    if service == "wifi":
        return await wifi_cmd(inv, rest)
    if service == "statusbar":
        return 0  # expand-notifications / collapse: the shade is not simulated
    inv.err(f"cmd: Can't find service: {service}\n")
    return 20
