"""`pm` (and `cmd package`): list, path, clear, install, uninstall, grant, as PackageManagerShellCommand."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from mgfarm.sim.shell.files import CommandError, host_path
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.system.apk import apk_package
from mgfarm.sim.system.packages import PackageInfo

PACKAGE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$")


# What the Android 13 emulator image declares (a subset: the features apps and tools query).
FEATURES = (
    "reqGlEsVersion=0x30001",
    "android.hardware.audio.output",
    "android.hardware.bluetooth",
    "android.hardware.camera",
    "android.hardware.camera.any",
    "android.hardware.faketouch",
    "android.hardware.location",
    "android.hardware.location.gps",
    "android.hardware.location.network",
    "android.hardware.microphone",
    "android.hardware.ram.normal",
    "android.hardware.screen.landscape",
    "android.hardware.screen.portrait",
    "android.hardware.sensor.accelerometer",
    "android.hardware.telephony",
    "android.hardware.telephony.gsm",
    "android.hardware.touchscreen",
    "android.hardware.touchscreen.multitouch",
    "android.hardware.wifi",
    "android.software.app_widgets",
    "android.software.home_screen",
    "android.software.input_methods",
    "android.software.webview",
)
LIBRARIES = (
    "android.test.base",
    "android.test.mock",
    "android.test.runner",
    "javax.obex",
    "org.apache.http.legacy",
)


def unknown_package(inv: Invocation, verb: str, package: str) -> int:
    inv.err(
        f"Exception occurred while executing '{verb}':\n"
        f"java.lang.IllegalArgumentException: Unknown package: {package}\n"
    )
    return 255


def list_packages(inv: Invocation, args: list[str]) -> int:
    flags = {a for a in args if a.startswith("-")}
    words = [a for a in args if not a.startswith("-")]
    if "--user" in args:
        words = words[1:]
    needle = words[0] if words else ""
    for info in inv.device.services.packages.all():
        if ("-3" in flags and info.system) or ("-s" in flags and not info.system):
            continue
        if needle and needle not in info.package:
            continue
        line = f"package:{info.apk_path}={info.package}" if "-f" in flags else f"package:{info.package}"
        if "--show-versioncode" in flags:
            line += f" versionCode:{info.version_code}"
        inv.out(line + "\n")
    return 0


def package_of(apk: Path) -> str | None:
    """The package an APK declares (binary or text manifest), else a `<package>.apk` file name."""
    declared = apk_package(apk)
    if declared:
        return declared
    stem = apk.name[: -len(".apk")] if apk.name.endswith(".apk") else ""
    return stem if PACKAGE_RE.match(stem) else None


# `pm install` options that take a value (PackageManagerShellCommand.makeInstallParams).
INSTALL_VALUE_OPTIONS = {
    "-i",
    "-p",
    "-S",
    "--user",
    "--install-location",
    "--originating-uri",
    "--referrer",
    "--abi",
    "--pkg",
    "--install-reason",
    "--force-uuid",
    "--staged-ready-timeout",
}


def install_paths(args: list[str]) -> tuple[list[str], str | None]:
    """The APK paths of `pm install` arguments and the `-S SIZE` value (None when absent)."""
    paths: list[str] = []
    size: str | None = None
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg in INSTALL_VALUE_OPTIONS:
            value = rest.pop(0) if rest else ""
            if arg == "-S":
                size = value
        elif not arg.startswith("-"):
            paths.append(arg)
    return paths, size


# What PackageManager says when /data cannot hold the APK.
NO_SPACE = "INSTALL_FAILED_INSUFFICIENT_STORAGE: Failed to override installation location"


async def streamed_apk(inv: Invocation, size: str) -> Path | None:
    """`pm install -S SIZE` (adb's streamed install): the APK's bytes come on stdin, into a session."""
    if not size.isdigit():
        inv.err(f"Error: invalid size: {size}\n")
        return None
    staging = inv.device.fs.host("/data/app/vmdl1.tmp")
    staging.mkdir(parents=True, exist_ok=True)
    apk = staging / "base.apk"
    left = int(size)
    try:
        inv.device.fs.space.reserve(left)
    except OSError:
        inv.out(f"Failure [{NO_SPACE}]\n")
        return None
    with apk.open("wb") as out:  # in pieces, so a large APK never sits whole in memory
        while left > 0:
            data = await inv.io.stdin.read(min(left, 1 << 20))
            if not data:
                break
            out.write(data)
            left -= len(data)
    if left > 0:
        shutil.rmtree(staging, ignore_errors=True)
        inv.out("Failure [INSTALL_FAILED_INVALID_APK: the APK ended before its -S size]\n")
        return None
    return apk


async def install(inv: Invocation, args: list[str]) -> int:
    paths, size = install_paths(args)
    if size is not None:
        streamed = await streamed_apk(inv, size)
        if streamed is None:
            return 1
        try:
            return install_file(inv, args, streamed)
        finally:
            shutil.rmtree(streamed.parent, ignore_errors=True)
            inv.device.fs.space.freed()
    if not paths:
        inv.err("Error: must either specify a package size or an APK file\n")
        return 1
    try:
        apk = host_path(inv, paths[-1])
    except CommandError:
        apk = Path("/nonexistent")
    if not apk.is_file():
        inv.out(f"Failure [INSTALL_FAILED_INVALID_URI: Can't open file: {paths[-1]}]\n")
        return 1
    return install_file(inv, args, apk)


def install_file(inv: Invocation, args: list[str], apk: Path) -> int:
    package = package_of(apk)
    if package is None:
        inv.out("Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse: not an APK with a package name]\n")
        return 1
    pm = inv.device.services.packages
    old = pm.get(package)
    if old is not None and "-r" not in args and old.system:
        inv.out(
            f"Failure [INSTALL_FAILED_ALREADY_EXISTS: Attempt to re-install {package} "
            "without first uninstalling.]\n"
        )
        return 1
    info = old or PackageInfo(package)
    dest = inv.device.fs.host(info.apk_path)
    if dest != apk:
        try:
            inv.device.fs.space.reserve(apk.stat().st_size, 2)
        except OSError:
            inv.out(f"Failure [{NO_SPACE}]\n")
            return 1
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(apk, dest)
    pm.add(info)
    inv.out("Success\n")
    return 0


def grant(inv: Invocation, args: list[str], verb: str) -> int:
    words = [a for a in args if not a.startswith("--")]
    if "--user" in args:
        words = words[1:]
    if len(words) < 2:
        inv.err("Error: no package or permission specified\n")
        return 1
    info = inv.device.services.packages.get(words[0])
    if info is None:
        return unknown_package(inv, verb, words[0])
    if verb == "grant":
        info.permissions.add(words[1])
    else:
        info.permissions.discard(words[1])
    return 0


async def run_pm(inv: Invocation, args: list[str]) -> int:
    if not args:
        inv.err("usage: pm [list|path|install|uninstall|clear|grant|revoke] ...\n")
        return 1
    verb, rest = args[0], args[1:]
    pm = inv.device.services.packages
    words = [a for a in rest if not a.startswith("-")]
    if "--user" in rest and words:
        words = words[1:]
    # PackageManagerShellCommand accepts the singular too (`pm list package`), as devices do.
    if verb == "list" and rest[:1] in (["packages"], ["package"]):
        return list_packages(inv, rest[1:])
    if verb == "path":
        path = pm.path(words[0]) if words else None
        if path is None:
            return 1
        inv.out(f"package:{path}\n")
        return 0
    if verb == "clear":
        # Android kills the package before wiping its data: its activities go, and with them what
        # lives only in the UI (a running stopwatch, a typed timer); AndroidWorld's clock tasks rely on it.
        if words and pm.get(words[0]) is not None:
            inv.device.services.activities.force_stop(words[0])
        ok = bool(words) and pm.clear(words[0])
        inv.out("Success\n" if ok else "Failed\n")
        return 0 if ok else 1
    if verb == "install":
        return await install(inv, rest)
    if verb == "uninstall":
        info = pm.get(words[0]) if words else None
        if info is None or info.system:
            inv.out("Failure [DELETE_FAILED_INTERNAL_ERROR]\n")
            return 1
        inv.device.services.activities.force_stop(info.package)
        pm.remove(info.package)
        inv.out("Success\n")
        return 0
    if verb in ("grant", "revoke"):
        return grant(inv, rest, verb)
    if verb == "list" and rest[:1] in (["permissions"], ["permission"]):
        return 0
    if verb == "list" and rest[:1] in (["features"], ["libraries"]):
        kind, names = ("feature", FEATURES) if rest[0] == "features" else ("library", LIBRARIES)
        inv.out("".join(f"{kind}:{name}\n" for name in names))
        return 0
    inv.err(f"Unknown command: {verb}\n")
    return 255


@command("pm")
async def pm(inv: Invocation) -> int:
    return await run_pm(inv, inv.argv[1:])
