"""`dumpsys` sections, reduced to the lines tools parse, laid out as AOSP prints them; and `cmd`."""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable

from mgfarm.sim.shell.am_cmd import run_am
from mgfarm.sim.shell.dumpsys_system import (
    battery_section,
    display_section,
    input_section,
    logical_size,
    rotation,
    telephony_registry_section,
)
from mgfarm.sim.shell.ime_cmd import run_ime
from mgfarm.sim.shell.pm_cmd import run_pm
from mgfarm.sim.shell.registry import COMMANDS, Invocation, command
from mgfarm.sim.shell.settings_cmd import airplane_mode, wifi_cmd
from mgfarm.sim.shell.system import app_pid, app_uid
from mgfarm.sim.shell.ui_cmd import physical_density, physical_size, run_wm
from mgfarm.sim.system.activities import LAUNCHER

ROTATIONS = ("ROTATION_0", "ROTATION_90", "ROTATION_180", "ROTATION_270")

SERVICES = (
    "SurfaceFlinger",
    "activity",
    "battery",
    "display",
    "input",
    "input_method",
    "package",
    "power",
    "telephony.registry",
    "window",
)


def short_hash(text: str) -> str:
    return format(zlib.crc32(text.encode()) & 0xFFFFFFF, "x")


def component(package: str, cls: str) -> str:
    """ComponentName.flattenToShortString."""
    return f"{package}/{cls[len(package) :]}" if cls.startswith(package + ".") else f"{package}/{cls}"


def task_rows(inv: Invocation) -> list[tuple[int, str, list[tuple[str, str, str]]]]:
    """(task id, package, [(hash, package, class)] bottom to top), front task first."""
    rows = []
    for task in inv.device.services.activities.tasks():
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


def record_text(h: str, pkg: str, cls: str, task_id: int) -> str:
    return f"ActivityRecord{{{h} u0 {component(pkg, cls)} t{task_id}}}"


def window_token(h: str, pkg: str, cls: str) -> str:
    return f"Window{{{short_hash(h)} u0 {pkg}/{cls}}}"


def sdk(inv: Invocation) -> int:
    value = inv.device.props.get("ro.build.version.sdk", "33")
    return int(value) if value.isdigit() else 33


def is_home(pkg: str) -> bool:
    return pkg == LAUNCHER


# System windows every Android 13 emulator shows, top to bottom: (title, owner package, window type).
SYSTEM_WINDOWS = (
    ("ScreenDecorOverlayBottom", "com.android.systemui", "SCREEN_DECOR_OVERLAY"),
    ("ScreenDecorOverlay", "com.android.systemui", "SCREEN_DECOR_OVERLAY"),
    ("NavigationBar0", "com.android.systemui", "NAVIGATION_BAR"),
    ("NotificationShade", "com.android.systemui", "NOTIFICATION_SHADE"),
    ("StatusBar", "com.android.systemui", "STATUS_BAR"),
    ("InputMethod", "com.google.android.inputmethod.latin", "INPUT_METHOD"),
)


def _window_block(
    inv: Invocation, number: int, token: str, task_id: int, package: str, kind: str, visible: bool
) -> list[str]:
    uid = 1000 if package == "android" else app_uid(package)
    return [
        f"  Window #{number} {token}:",
        f"    mDisplayId=0 rootTaskId={task_id} "
        f"mSession=Session{{{short_hash(token)} {app_pid(inv, package)}:u0a{uid - 10000}}} "
        f"mClient=android.os.BinderProxy@{short_hash(token + 'c')}",
        f"    mOwnerUid={uid} showForAllUsers={str(task_id == 1).lower()} package={package} appop=NONE",
        f"    mAttrs={{(0,0)(fillxfill) sim={{adjust=pan}} ty={kind} fmt=TRANSLUCENT}}",
        f"    isOnScreen={str(visible).lower()}",
        f"    isVisible={str(visible).lower()}",
    ]


def windows_section(inv: Invocation) -> str:
    """`dumpsys window windows`: system windows over the app windows, then focus and IME targets."""
    top = resumed(inv)
    ime = keyboard_shown(inv)
    lines = ["WINDOW MANAGER WINDOWS (dumpsys window windows)"]
    number = 0
    for title, pkg, kind in SYSTEM_WINDOWS:
        visible = ime if kind == "INPUT_METHOD" else kind != "NOTIFICATION_SHADE"
        lines += _window_block(
            inv, number, f"Window{{{short_hash(title)} u0 {title}}}", 1, pkg, kind, visible
        )
        number += 1
    front = True
    for task_id, _, records in task_rows(inv):
        for i, (h, pkg, cls) in enumerate(reversed(records)):
            lines += _window_block(
                inv, number, window_token(h, pkg, cls), task_id, pkg, "BASE_APPLICATION", front and i == 0
            )
            number += 1
        front = False
    lines += _window_block(
        inv,
        number,
        "Window{8c1a6f3 u0 com.android.systemui.wallpapers.ImageWallpaper}",
        1,
        "com.android.systemui",
        "WALLPAPER",
        top is not None and is_home(top[1]),
    )
    lines += ["", global_configuration(inv)]
    lines += [
        "  mHasPermanentDpad=false",
        "  mTopFocusedDisplayId=0",
    ]
    if top is not None:
        h, pkg, cls, task_id = top
        target = window_token(h, pkg, cls)
        lines += [
            f"  mInputMethodTarget in display# 0 {target}",
            f"  mInputMethodInputTarget in display# 0 {target}",
            f"  inputMethodControlTarget in display# 0 {target}",
        ]
    lines += ["  mInTouchMode=true", "  mBlurEnabled=true", *focus_lines(inv)]
    return "\n".join(lines) + "\n"


def global_configuration(inv: Invocation) -> str:
    """mGlobalConfiguration: sizes in dp and `port`/`land` follow the display's rotation."""
    lw, lh = logical_size(inv)
    d = physical_density(inv)
    rot = ROTATIONS[rotation(inv)]
    wdp, hdp = round(lw * 160 / d), round(lh * 160 / d)
    return (
        f"  mGlobalConfiguration={{1.0 310mcc260mnc [en_US] ldltr sw{min(wdp, hdp)}dp w{wdp}dp h{hdp}dp "
        f"{d}dpi nrml long {'land' if lw > lh else 'port'} finger qwerty/v/v -nav/h winConfig={{ "
        f"mBounds=Rect(0, 0 - {lw}, {lh}) mAppBounds=Rect(0, 0 - {lw}, {lh}) "
        f"mMaxBounds=Rect(0, 0 - {lw}, {lh}) mDisplayRotation={rot} mWindowingMode=fullscreen "
        "mDisplayWindowingMode=fullscreen mActivityType=undefined mAlwaysOnTop=undefined "
        f"mRotation={rot}}} s.6 fontWeightAdjustment=0}}"
    )


def focus_lines(inv: Invocation) -> list[str]:
    top = resumed(inv)
    if top is None:
        return ["  mCurrentFocus=null", "  mFocusedApp=null"]
    h, pkg, cls, task_id = top
    return [
        f"  mCurrentFocus={window_token(h, pkg, cls)}",
        f"  mFocusedApp={record_text(h, pkg, cls, task_id)}",
    ]


def displays_section(inv: Invocation) -> str:
    """`dumpsys window displays`: sizes (`init=`/`cur=`), the rotation and the focused window."""
    w, h = physical_size(inv)
    lw, lh = logical_size(inv)
    d = physical_density(inv)
    rot = rotation(inv)
    names = ROTATIONS
    settings = inv.device.services.settings
    free = (settings.get("system", "accelerometer_rotation") or "0") not in ("0", "")
    user = settings.get("system", "user_rotation") or "0"
    user_rot = int(user) if user in ("0", "1", "2", "3") else 0
    top = resumed(inv)
    home = top is not None and is_home(top[1])
    app_orientation = "SCREEN_ORIENTATION_" + ("NOSENSOR" if home else "UNSPECIFIED")
    roots = len({task_id for task_id, _, _ in task_rows(inv)})
    return "\n".join(
        [
            "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)",
            f"  Display: mDisplayId=0 rootTasks={roots}",
            f"    init={w}x{h} {d}dpi cur={lw}x{lh} app={lw}x{lh} "
            f"rng={min(w, h)}x{min(w, h) - 126}-{max(w, h)}x{max(w, h) - 126}",
            f"    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,{lw},{lh}))",
            "",
            "  mLayoutSeq=212",
            f"  mCurrentRotation={names[rot]}",
            "  mDeferredRotationPauseCount=0",
            "  DisplayRotation",
            f"    mCurrentAppOrientation={app_orientation}",
            "    mLastOrientation=-1",
            f"    mRotation={rot} mDeferredRotationPauseCount=0",
            "    mLandscapeRotation=ROTATION_90 mSeascapeRotation=ROTATION_270",
            "    mPortraitRotation=ROTATION_0 mUpsideDownRotation=ROTATION_180",
            f"    mUserRotationMode=USER_ROTATION_{'FREE' if free else 'LOCKED'} "
            f"mUserRotation={names[user_rot]} mCameraRotationMode=0 "
            "mAllowAllRotations=unknown",
            f"  DisplayFrames w={lw} h={lh} r={rot}",
            *focus_lines(inv),
            "",
        ]
    )


def window_section(inv: Invocation) -> str:
    """Plain `dumpsys window`: the displays and the windows, as the real one holds both."""
    return displays_section(inv) + "\n" + windows_section(inv)


def _task_line(task_id: int, pkg: str, records: list[tuple[str, str, str]], visible: bool) -> str:
    flag = str(visible).lower()
    if is_home(pkg):
        root = component(pkg, records[0][2]) if records else pkg
        return (
            f"Task{{{short_hash(str(task_id))} #{task_id} type=home I={root} U=0 visible={flag} "
            f"visibleRequested={flag} mode=fullscreen translucent=false sz={len(records)}}}"
        )
    return (
        f"Task{{{short_hash(str(task_id))} #{task_id} type=standard A={app_uid(pkg)}:{pkg} U=0 "
        f"visible={flag} visibleRequested={flag} mode=fullscreen translucent=false sz={len(records)}}}"
    )


def activity_section(inv: Invocation) -> str:
    """`dumpsys activity activities` (Android 13): tasks front to back, `* Hist  #N:` records top down."""
    lines = [
        "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
        "Display #0 (activities from top to bottom):",
    ]
    for i, (task_id, pkg, records) in enumerate(task_rows(inv)):
        lines.append(f"  * {_task_line(task_id, pkg, records, i == 0)}")
        if i == 0 and records:
            # Android 14 names the task's resumed activity topResumedActivity= (13: mResumedActivity:).
            label = "topResumedActivity=" if sdk(inv) >= 34 else "mResumedActivity: "
            lines.append(f"    {label}{record_text(*records[-1], task_id)}")
        lines.append("    isSleeping=false")
        for n, (h, rpkg, cls) in reversed(list(enumerate(records))):
            lines.append(f"    * Hist  #{n}: {record_text(h, rpkg, cls, task_id)}")
            lines.append(f"      packageName={rpkg} processName={rpkg}")
            lines.append("      launchedFromUid=2000 launchedFromPackage=com.android.shell userId=0")
            lines.append(
                f"      app=ProcessRecord{{{short_hash(rpkg)} "
                f"{app_pid(inv, rpkg)}:{rpkg}/u0a{app_uid(rpkg) - 10000}}}"
            )
            lines.append(f"      state={'RESUMED' if i == 0 and n == len(records) - 1 else 'STOPPED'}")
        lines.append("")
    top = resumed(inv)
    if top is not None:
        record = record_text(*top)
        lines.append(f"  ResumedActivity: {record}")
        lines.append(f"  mFocusedApp={record}")
    lines += ["", "  mCurrentUser=0", "  mFocusedRootTaskId=" + (str(top[3]) if top else "-1")]
    return "\n".join(lines) + "\n"


def recents_section(inv: Invocation) -> str:
    """`dumpsys activity recents`: the recent tasks and their RecentTaskInfo (`id=` is what tools read)."""
    recent = inv.device.services.activities.recent_tasks()
    lines = [
        "ACTIVITY MANAGER RECENT TASKS (dumpsys activity recents)",
        f"  mRecentsUid={app_uid(LAUNCHER)}",
        f"  mRecentsComponent=ComponentInfo{{{LAUNCHER}/com.android.quickstep.RecentsActivity}}",
        "  mFreezeTaskListReordering=false",
        "  mFreezeTaskListReorderingPendingTimeout=false",
    ]
    lines.append("  Recent tasks:")
    for i, task in enumerate(recent):
        recs = [(r.hash, r.package, r.activity) for r in task.records]
        lines.append(f"  * Recent #{i}: {_task_line(task.task_id, task.package, recs, i == 0)}")
        lines.append(
            f"    userId=0 effectiveUid=u0a{app_uid(task.package) - 10000} mCallingUid=2000 "
            "mUserSetupComplete=true mCallingPackage=com.android.shell mCallingFeatureId=null"
        )
        lines.append(f"    affinity={app_uid(task.package)}:{task.package}")
    lines += ["", "  Visible recent tasks (most recent first):"]
    for i, task in enumerate(recent):
        base, top = task.records[0], task.records[-1]
        lines += [
            f"    * RecentTaskInfo #{i}:",
            f"      id={task.task_id} userId=0 hasTask=true lastActiveTime={1000 * (len(recent) - i)}",
            "      baseIntent=Intent { act=android.intent.action.MAIN "
            "cat=[android.intent.category.LAUNCHER] "
            f"flg=0x10000000 cmp={component(base.package, base.activity)} }}",
            f"      baseActivity=ComponentInfo{{{base.package}/{base.activity}}}",
            f"      topActivity=ComponentInfo{{{top.package}/{top.activity}}}",
            f"      realActivity=ComponentInfo{{{base.package}/{base.activity}}}",
            f"      isExcluded=false isVisible={str(i == 0).lower()} isTopActivityTransparent=false",
        ]
    return "\n".join(lines) + "\n"


def activity_top(inv: Invocation) -> str:
    top = resumed(inv)
    if top is None:
        return "TASK null\n"
    h, pkg, cls, task_id = top
    return (
        f"TASK {app_uid(pkg)}:{pkg} id={task_id} userId=0\n"
        f"  ACTIVITY {component(pkg, cls)} {h} pid={app_pid(inv, pkg)}\n"
    )


def package_section(inv: Invocation, names: list[str]) -> str:
    pm = inv.device.services.packages
    infos = [pm.get(n) for n in names] if names else pm.all()
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(inv.device.services.clock.now()))
    lines = ["Packages:"]
    for info in infos:
        if info is None:
            continue
        flags = "SYSTEM HAS_CODE ALLOW_CLEAR_USER_DATA" if info.system else "HAS_CODE ALLOW_CLEAR_USER_DATA"
        lines += [
            f"  Package [{info.package}] ({short_hash(info.package)}):",
            f"    userId={app_uid(info.package)}",
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


def keyboard_shown(inv: Invocation) -> bool:
    """Whether the soft keyboard is on screen, as the window manager composes it."""
    return inv.device.services.window.keyboard_shown()


def power_section(inv: Invocation) -> str:
    return "POWER MANAGER (dumpsys power)\n  mWakefulness=Awake\n  mHoldingDisplaySuspendBlocker=true\n"


def input_method_section(inv: Invocation) -> str:
    """InputMethodManagerService.dump (Android 13), then the client's and the IME service's parts,
    reduced to the lines tools read: mInputShown (Appium, scripts), mIsInputViewShown (Appium's
    canCloseKeyboard), mServedInputConnection, mCurMethodId. All follow the keyboard on screen."""
    shown = keyboard_shown(inv)
    state = str(shown).lower()
    ime = inv.device.services.settings.get("secure", "default_input_method") or ""
    package, _, cls = ime.partition("/")
    full = package + cls if cls.startswith(".") else cls
    top = resumed(inv)
    focused = window_token(*top[:3]) if top is not None else "null"
    served = f"RemoteInputConnectionImpl{{{short_hash(focused)}}}" if shown else "null"
    binder = f"android.os.BinderProxy@{short_hash(ime)}"
    return "\n".join(
        [
            "Current Input Method Manager state:",
            f"  mCurMethodId={ime}",
            f"  mCurFocusedWindow={focused} softInputMode=STATE_UNSPECIFIED|ADJUST_PAN",
            f"  mCurId={ime} mHaveConnection=true mBoundToMethod=true mVisibleBound={state}",
            f"  mCurIntent=Intent {{ act=android.view.InputMethod cmp={package}/{full} }}",
            f"  mShowRequested={state} mShowExplicitlyRequested=false mShowForced=false mInputShown={state}",
            "  mInFullscreenMode=false",
            "  mSystemReady=true mInteractive=true",
            "  Client:",
            "    mHasBeenInactive=false",
            f"    mServedInputConnection={served}",
            f"  Input method service: {package}/{full}",
            f"    mToken={binder}",
            f"    mInputStarted={state} mInputViewStarted={state} mCandidatesViewStarted=false",
            f"    mShowInputRequested={state} mLastShowInputRequested={state} mShowInputFlags=0x0",
            f"    mWindowVisible={state} mInShowWindow=false",
            f"    mIsInputViewShown={state}",
            "",
        ]
    )


@command("dumpsys")
async def dumpsys(inv: Invocation) -> int:
    args = inv.argv[1:]
    if not args:
        inv.out("".join(f"DUMP OF SERVICE {s}:\n" for s in SERVICES))
        return 0
    if args[0] == "-l":
        inv.out("Currently running services:\n" + "".join(f"  {s}\n" for s in SERVICES))
        return 0
    service, rest = args[0], [a for a in args[1:] if not a.startswith("-")]
    sections: dict[str, Callable[[], str]] = {
        "window": lambda: WINDOW_PARTS.get(rest[0] if rest else "", window_section)(inv),
        "activity": lambda: ACTIVITY_PARTS.get(rest[0] if rest else "", activity_section)(inv),
        "input": lambda: input_section(inv),
        "display": lambda: display_section(inv),
        "battery": lambda: battery_section(inv),
        "telephony.registry": lambda: telephony_registry_section(inv),
        "power": lambda: power_section(inv),
        "input_method": lambda: input_method_section(inv),
        "package": lambda: package_section(inv, rest),
        "SurfaceFlinger": lambda: SURFACE_FLINGER,
    }
    if service not in sections:
        inv.err(f"Can't find service: {service}\n")
        return 0
    inv.out(sections[service]())
    return 0


SURFACE_FLINGER = (
    'Display 4619827259835644672 (HWC display 0): port=0 pnpId=GGL displayName="EMU_display_0"\n'
)
WINDOW_PARTS: dict[str, Callable[[Invocation], str]] = {
    "windows": windows_section,
    "w": windows_section,
    "displays": displays_section,
    "d": displays_section,
}
ACTIVITY_PARTS: dict[str, Callable[[Invocation], str]] = {
    "activities": activity_section,
    "a": activity_section,
    "recents": recents_section,
    "r": recents_section,
    "top": activity_top,
}


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
