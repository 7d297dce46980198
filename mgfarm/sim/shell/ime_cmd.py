"""Input methods: `ime list/enable/disable/set`, and the ADB keyboard's broadcasts (uiautomator2's IME).

Which IMEs exist follows the installed packages; which are enabled and selected lives where Android
keeps it (secure settings `enabled_input_methods`, `default_input_method`).
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.ui_cmd import KEYCODES

LATIN_IME = "com.android.inputmethod.latin/.LatinIME"
ADB_KEYBOARD = "com.github.uiautomator/.AdbKeyboard"
IMES = {"com.android.inputmethod.latin": LATIN_IME, "com.github.uiautomator": ADB_KEYBOARD}
RESULT_OK = -1  # Activity.RESULT_OK, what a receiver that handled the broadcast reports
RESULT_NONE = 0
FOCUSED_FIELD = re.compile(
    r'<node [^>]*text="([^"]*)"[^>]*class="android\.widget\.EditText"[^>]*focused="true"'
)


def available(inv: Invocation) -> list[str]:
    packages = inv.device.services.packages
    return [ime for pkg, ime in IMES.items() if packages.get(pkg) is not None]


def enabled(inv: Invocation) -> list[str]:
    raw = inv.device.services.settings.get("secure", "enabled_input_methods") or ""
    ids = [part.split(";", 1)[0] for part in raw.split(":") if part]
    return [ime for ime in ids if ime in available(inv)]


def _set_enabled(inv: Invocation, ids: list[str]) -> None:
    inv.device.services.settings.put("secure", "enabled_input_methods", ":".join(ids))


def _describe(ime: str) -> str:
    package, cls = ime.split("/", 1)
    return (
        f"{ime}:\n  mId={ime} mSettingsActivityName=null\n  mIsDefaultResId=0x0\n"
        f"  Service:\n    packageName={package}\n    name={package + cls}\n"
    )


async def run_ime(inv: Invocation, args: list[str]) -> int:
    verb, rest = (args[0], args[1:]) if args else ("", [])
    ids = [a for a in rest if not a.startswith("-")]
    if verb == "list":
        shown = available(inv) if "-a" in rest else enabled(inv)
        inv.out(
            "".join(ime + "\n" for ime in shown) if "-s" in rest else "".join(_describe(i) for i in shown)
        )
        return 0
    if verb in ("enable", "disable") and ids:
        ime = ids[-1]
        if ime not in available(inv):
            inv.err(f"Unknown input method {ime} cannot be {verb}d for user #0\n")
            return 1
        current = enabled(inv)
        was = ime in current
        if verb == "enable" and not was:
            _set_enabled(inv, [*current, ime])
        elif verb == "disable" and was:
            _set_enabled(inv, [i for i in current if i != ime])
            settings = inv.device.services.settings
            if settings.get("secure", "default_input_method") == ime:
                settings.put("secure", "default_input_method", next(iter(enabled(inv)), ""))
        state = "already" if was == (verb == "enable") else "now"
        inv.out(f"Input method {ime}: {state} {verb}d for user #0\n")
        return 0
    if verb == "set" and ids:
        ime = ids[-1]
        if ime not in enabled(inv):
            inv.err(f"Unknown input method {ime} cannot be selected for user #0\n")
            return 1
        inv.device.services.settings.put("secure", "default_input_method", ime)
        inv.out(f"Input method {ime} selected for user #0\n")
        return 0
    inv.err(
        "ime <command>:\n  list [-a] [-s]\n  enable [--user <USER_ID>] <ID>\n  disable <ID>\n  set <ID>\n"
    )
    return 1


@command("ime")
async def ime(inv: Invocation) -> int:
    return await run_ime(inv, inv.argv[1:])


def adb_keyboard_broadcast(inv: Invocation, action: str, extras: dict[str, Any]) -> int:
    """The ADB keyboard's receiver: RESULT_OK when it is the selected IME and knows the action."""
    if not action.startswith("ADB_KEYBOARD_"):
        return RESULT_NONE
    if inv.device.services.settings.get("secure", "default_input_method") != ADB_KEYBOARD:
        return RESULT_NONE
    window = inv.device.services.window
    if action == "ADB_KEYBOARD_INPUT_TEXT":
        try:
            text = base64.b64decode(str(extras.get("text", "")), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return RESULT_NONE
        window.text(text)
    elif action == "ADB_KEYBOARD_CLEAR_TEXT":
        m = FOCUSED_FIELD.search(window.dump_xml())
        if m and m.group(1):
            window.key(KEYCODES["MOVE_END"])
            for _ in range(len(m.group(1))):
                window.key(KEYCODES["DEL"])
    elif action in ("ADB_KEYBOARD_SMART_ENTER", "ADB_KEYBOARD_EDITOR_CODE"):
        window.key(KEYCODES["ENTER"])
    elif action == "ADB_KEYBOARD_INPUT_KEYCODE":
        window.key(int(extras.get("code", 0)))
    elif action != "ADB_KEYBOARD_HIDE":
        return RESULT_NONE
    return RESULT_OK
