"""`settings`, `svc` and the settings-backed parts of `cmd`, with SettingsService's output formats."""

from __future__ import annotations

import sqlite3

from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.system.settings import NAMESPACES

SETTINGS_USAGE = """Settings provider (settings) commands:
  help
      Print this help text.
  get [--user <USER_ID> | current] NAMESPACE KEY
      Retrieve the current value of KEY.
  put [--user <USER_ID> | current] NAMESPACE KEY VALUE [TAG] [default]
      Change the contents of KEY to VALUE.
  delete [--user <USER_ID> | current] NAMESPACE KEY
      Delete the entry for KEY.
  list [--user <USER_ID> | current] NAMESPACE
      Print all defined keys.
      NAMESPACE is one of {system, secure, global}, case-insensitive
"""

# `svc X enable|disable` and the global setting it flips.
SVC_SETTINGS = {"wifi": "wifi_on", "bluetooth": "bluetooth_on", "data": "mobile_data"}


@command("settings")
async def settings(inv: Invocation) -> int:
    args = [a for a in inv.argv[1:]]
    while len(args) > 1 and args[0] == "--user":
        args = args[2:]
    if len(args) > 1 and args[1] == "--user":
        args = [args[0], *args[3:]]
    if not args or args[0] in ("help", "-h"):
        inv.out(SETTINGS_USAGE)
        return 0
    verb, rest = args[0], args[1:]
    if not rest or rest[0].lower() not in NAMESPACES:
        inv.err("Invalid namespace\n" if rest else "Bad arguments\n")
        return 255
    ns = rest[0].lower()
    need = {"get": 2, "put": 3, "delete": 2, "list": 1, "reset": 2}.get(verb)
    if need is None or len(rest) < need:
        inv.err("Bad arguments\n")
        return 255
    s = inv.device.services.settings
    if verb == "get":
        value = s.get(ns, rest[1])
        inv.out(("null" if value is None else value) + "\n")
    elif verb in ("put", "delete"):
        try:
            if verb == "put":
                s.put(ns, rest[1], rest[2])
            else:
                inv.out(f"Deleted {s.delete(ns, rest[1])} rows\n")
        except sqlite3.OperationalError as exc:  # the device's space is full, as `cmd settings` says it
            inv.err(
                f"Exception occurred while executing '{verb}':\n"
                f"android.database.sqlite.SQLiteFullException: {exc} (code 13 SQLITE_FULL)\n"
            )
            return 255
    elif verb == "list":
        inv.out("".join(f"{k}={v}\n" for k, v in s.items(ns)))
    return 0


@command("svc")
async def svc(inv: Invocation) -> int:
    args = inv.argv[1:]
    if len(args) >= 2 and args[0] in SVC_SETTINGS and args[1] in ("enable", "disable"):
        inv.device.services.settings.put("global", SVC_SETTINGS[args[0]], "1" if args[1] == "enable" else "0")
        return 0
    if len(args) >= 2 and args[0] == "power" and args[1] == "stayon":
        return 0
    inv.out(
        "Available commands:\n    help     Show information about the subcommands\n"
        "    power    Control the power manager\n    data     Control mobile data connectivity\n"
        "    wifi     Control the Wi-Fi manager\n    bluetooth Control Bluetooth service\n"
    )
    return 0 if not args or args[0] == "help" else 1


async def airplane_mode(inv: Invocation, args: list[str]) -> int:
    """`cmd connectivity airplane-mode [enable|disable]`."""
    s = inv.device.services.settings
    if not args:
        inv.out("enabled\n" if s.get("global", "airplane_mode_on") == "1" else "disabled\n")
        return 0
    if args[0] not in ("enable", "disable"):
        inv.err(f"Unsupported argument: {args[0]}\n")
        return 255
    s.put("global", "airplane_mode_on", "1" if args[0] == "enable" else "0")
    return 0


async def wifi_cmd(inv: Invocation, args: list[str]) -> int:
    """`cmd wifi set-wifi-enabled enabled|disabled` and `cmd wifi status`."""
    s = inv.device.services.settings
    if args[:1] == ["set-wifi-enabled"] and len(args) > 1 and args[1] in ("enabled", "disabled"):
        s.put("global", "wifi_on", "1" if args[1] == "enabled" else "0")
        return 0
    if args[:1] == ["status"]:
        on = s.get("global", "wifi_on") == "1"
        inv.out("Wifi is enabled\n" if on else "Wifi is disabled\n")
        return 0
    inv.err("Invalid command\n")
    return 255
