"""What parity compares: commands whose output agents and verifiers parse, and how each output is
reduced to a shape (the format and the names, not the device's changing values).

Android 13 on the google_apis x86_64 emulator is the reference; a recording made there replaces
what the simulated device printed (see tests/parity/README.md).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass

Shape = object  # JSON-serialisable: str, list of str, dict of str


@dataclass(frozen=True)
class Check:
    """One command (`shell` over adb, or `console` to the emulator console) and its shape."""

    name: str
    kind: str  # shell or console
    command: str
    shape: Callable[[str], Shape]


def numbers(text: str) -> str:
    """The text with every run of digits as N (sizes, ids and times change; the format must not)."""
    return re.sub(r"\d+", "N", text.strip())


def lines_shape(text: str) -> list[str]:
    return [numbers(line) for line in text.strip().splitlines() if line.strip()]


def date_shape(text: str) -> str:
    """`date`: digits as N, day and month names as DAY and MON, padding kept (it is the format)."""
    days = r"\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun)\b"
    months = r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b"
    return re.sub(months, "MON", re.sub(days, "DAY", numbers(text)))


def value(text: str) -> str:
    return text.strip()


# The task catalog's apps (mgfarm/catalog/verifiers): their packages and launcher activities, as
# AndroidWorld's google_apis image names them (Google's Clock, Contacts, Phone and Files).
PACKAGES = (
    "com.google.android.contacts",
    "com.google.android.dialer",
    "com.android.messaging",
    "com.android.settings",
    "com.google.android.deskclock",
    "com.android.calendar",
    "com.google.android.documentsui",
)


def packages_shape(text: str) -> dict[str, object]:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return {
        "format": sorted(
            {"package:NAME" if line.startswith("package:") else numbers(line) for line in lines}
        ),
        "present": sorted(p for p in PACKAGES if f"package:{p}" in lines),
    }


def component(text: str) -> str:
    """The last line of `cmd package resolve-activity --brief`: package/activity, or what it said."""
    last = text.strip().splitlines()[-1:] or [""]
    return last[0].strip()


def focus_shape(text: str) -> str:
    """`mCurrentFocus=Window{2d1f3a u0 com.pkg/com.pkg.Activity}` -> ids replaced, names kept."""
    line = next((raw.strip() for raw in text.splitlines() if "mCurrentFocus" in raw), "")
    return re.sub(r"Window\{[0-9a-f]+ u\d+ ", "Window{HEX uN ", line)


def columns(text: str) -> dict[str, object]:
    """`content query` rows: the column names in order (values vary), or the no-result line."""
    rows = [line for line in text.splitlines() if line.startswith("Row: ")]
    if not rows:
        return {"rows": 0, "text": text.strip()}
    names = re.findall(r"(?:^Row: \d+ |, )([A-Za-z_][A-Za-z0-9_]*)=", rows[0])
    return {"rows": "N", "row_format": numbers(rows[0].split(" ", 2)[0] + " N"), "columns": names}


def dump_reply(text: str) -> str:
    return text.strip()


def hierarchy_shape(text: str) -> dict[str, object]:
    """uiautomator's window dump: the root's attributes and every attribute name a node carries."""
    start = text.find("<?xml")
    try:
        root = ET.fromstring(text[start if start >= 0 else 0 :].strip())
    except ET.ParseError as exc:
        return {"error": f"not XML: {exc}"}
    attributes: set[str] = set()
    tags: set[str] = set()
    for node in root.iter():
        tags.add(node.tag)
        if node.tag == "node":
            attributes.update(node.attrib)
    return {
        "root": root.tag,
        "root_attributes": sorted(root.attrib),
        "tags": sorted(tags),
        "node_attributes": sorted(attributes),
    }


def console_shape(text: str) -> list[str]:
    return lines_shape(text)


CHECKS: tuple[Check, ...] = (
    Check("sdk", "shell", "getprop ro.build.version.sdk", value),
    Check("release", "shell", "getprop ro.build.version.release", value),
    Check("abi", "shell", "getprop ro.product.cpu.abi", value),
    Check("wm_size", "shell", "wm size", numbers),
    Check("wm_density", "shell", "wm density", numbers),
    Check("date_format", "shell", "date", date_shape),
    Check("packages", "shell", "pm list packages", packages_shape),
    *(
        Check(
            f"launcher_{package.rsplit('.', 1)[-1]}",
            "shell",
            f"cmd package resolve-activity --brief -a android.intent.action.MAIN "
            f"-c android.intent.category.LAUNCHER {package}",
            component,
        )
        for package in PACKAGES
    ),
    Check("focus_format", "shell", "dumpsys window | grep mCurrentFocus", focus_shape),
    Check(
        "settings_columns",
        "shell",
        "content query --uri content://settings/global --where \"name='airplane_mode_on'\"",
        columns,
    ),
    Check("system_settings_columns", "shell", "content query --uri content://settings/system", columns),
    Check(
        "phones_columns",
        "shell",
        "content query --uri content://contacts/phones --projection display_name:number",
        columns,
    ),
    Check(
        "sms_columns",
        "shell",
        "content query --uri content://sms --projection address:body:type:read",
        columns,
    ),
    Check(
        "calls_columns",
        "shell",
        "content query --uri content://call_log/calls --projection number:type:duration",
        columns,
    ),
    Check("uiautomator_reply", "shell", "uiautomator dump /sdcard/window_dump.xml", dump_reply),
    Check("uiautomator_dump", "shell", "cat /sdcard/window_dump.xml", hierarchy_shape),
    Check("console_avd_status", "console", "avd status", console_shape),
    Check("console_snapshot_list_header", "console", "avd snapshot list", lambda t: lines_shape(t)[:2]),
    Check("console_power_display", "console", "power display", console_shape),
    Check("console_bad_command", "console", "no-such-command", console_shape),
)
