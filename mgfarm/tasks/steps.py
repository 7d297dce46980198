"""Setup steps shared by task templates and snapshot recipes, executed over a device's ADB interface.

Vocabulary (one key per step):
  snapshot: NAME                          load a snapshot over the console
  settings: {global: {wifi_on: 1}, ...}   settings put NS KEY VALUE
  content_insert: {uri: U, values: {col: v}}
  content_delete: {uri: U, where: "col='x'"}
  sql: {db: NAME_OR_PATH, sql: "..." | [..]}   SQL on an app database (device sqlite3)
  push_file: {path: P, text: T | size: N}
  set_time: "2026-03-04 09:30"            device clock, in the device's own time zone
  set_timezone: "Asia/Kolkata"            persist.sys.timezone
  add_event: {title: T, day: D, start: HH:MM, end: HH:MM, location: L}   a calendar event in local time
  open_app: LABEL | home                  launch an app (or press HOME)
  home:                                   press HOME
  shell: CMD                              escape hatch for anything else
  force_stop: APP / clear_app: APP
  repeat: {times: N, steps: [...]}        run steps N times with {i} = 1..N
  add_contact: {name: N, phone: P, email: E}   a contact with its name/phone/email data rows
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mgfarm.errors import MgfarmError
from mgfarm.tasks.apps import launch_command
from mgfarm.tasks.device import TaskDevice, quote
from mgfarm.tasks.params import render

if TYPE_CHECKING:
    from mgfarm.tasks.catalog import Catalog

# A step gets the device, its (rendered) arguments, and the catalog for app and database names.
StepFn = Callable[[TaskDevice, Any, "Catalog"], None]


def _snapshot(device: TaskDevice, name: Any, catalog: Catalog) -> None:
    device.snapshot_load(str(name))


def _settings(device: TaskDevice, spec: Any, catalog: Catalog) -> None:
    commands = [
        f"settings put {quote(ns)} {quote(key)} {quote(_text(value))}"
        for ns, values in dict(spec).items()
        for key, value in dict(values).items()
    ]
    if commands:
        _checked(device, " && ".join(commands), "settings")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _content_insert(device: TaskDevice, spec: Any, catalog: Catalog) -> None:
    # The controller's encoder: AOSP `content` types (l for integers, b:true for booleans).
    try:
        device.content_insert(str(spec["uri"]), dict(spec["values"]))
    except MgfarmError as exc:
        raise MgfarmError(f"Setup step content_insert failed on the device ({exc}); fix the step.") from None


def _content_delete(device: TaskDevice, spec: Any, catalog: Catalog) -> None:
    try:
        device.content_delete(str(spec["uri"]), spec.get("where") or None)
    except MgfarmError as exc:
        raise MgfarmError(f"Setup step content_delete failed on the device ({exc}); fix the step.") from None


def _sql(device: TaskDevice, spec: Any, catalog: Catalog) -> None:
    path = catalog.state.database(str(spec["db"]), "Setup step sql", device.profile)
    statements = spec["sql"] if isinstance(spec["sql"], list) else [spec["sql"]]
    script = "; ".join(str(s).rstrip(";") for s in statements) + ";"
    _checked(device, f"sqlite3 {quote(path)} {quote(script)}", "sql")


def _push_file(device: TaskDevice, spec: Any, catalog: Catalog) -> None:
    data = str(spec["text"]).encode() if "text" in spec else b"x" * int(spec.get("size", 0))
    device.push(data, catalog.apps.path_on(str(spec["path"]), device.profile))


def _set_time(device: TaskDevice, when: Any, catalog: Catalog) -> None:
    moment = dt.datetime.fromisoformat(str(when))
    _checked(device, f"date {moment.strftime('%m%d%H%M%Y.%S')}", "set_time")


def _open_app(device: TaskDevice, name: Any, catalog: Catalog) -> None:
    if str(name).lower() == "home":
        _home(device, None, catalog)
        return
    _checked(device, launch_command(catalog.apps.find(str(name)), device.profile), "open_app")


def _home(device: TaskDevice, _: Any, catalog: Catalog) -> None:
    device.shell("input keyevent 3")


def _shell(device: TaskDevice, cmd: Any, catalog: Catalog) -> None:
    _checked(device, str(cmd), "shell")


def _force_stop(device: TaskDevice, name: Any, catalog: Catalog) -> None:
    device.shell(f"am force-stop {catalog.apps.find(str(name)).package_on(device.profile)}")


def _clear_app(device: TaskDevice, name: Any, catalog: Catalog) -> None:
    device.shell(f"pm clear {catalog.apps.find(str(name)).package_on(device.profile)}")


def _checked(device: TaskDevice, cmd: str, step: str) -> str:
    """Run a command and fail loudly when it reports an error (status or `Error:` text)."""
    result = device.shell2(cmd)
    # `content` and `sqlite3` report some failures on stdout with an `Error` line and status 0.
    if result.exit_code != 0 or re.search(r"(^|\n)\s*Error\b", result.output):
        detail = result.output.strip()[:200] or f"exit status {result.exit_code}"
        raise MgfarmError(f"Setup step {step} failed on the device ({detail}); fix the step.")
    return str(result.output)


# --- seed steps for snapshot recipes: records that take several provider calls -------------

CONTACTS_URI = "content://com.android.contacts"


def _add_contact(device: TaskDevice, spec: Any, catalog: Catalog) -> None:
    """A contact as the Contacts app stores it: a raw contact, then its name, phone and email rows."""
    _content_insert(device, {"uri": f"{CONTACTS_URI}/raw_contacts", "values": {"starred": 0}}, catalog)
    ids = [int(r["_id"] or 0) for r in device.content_query(f"{CONTACTS_URI}/raw_contacts", ["_id"])]
    if not ids:
        raise MgfarmError("Setup step add_contact could not read back the new contact; check the device.")
    rows: list[tuple[str, dict[str, Any]]] = [("vnd.android.cursor.item/name", {"data1": str(spec["name"])})]
    if spec.get("phone"):
        phone: dict[str, Any] = {"data1": str(spec["phone"]), "data2": 2}
        rows.append(("vnd.android.cursor.item/phone_v2", phone))
    if spec.get("email"):
        email: dict[str, Any] = {"data1": str(spec["email"]), "data2": 1}
        rows.append(("vnd.android.cursor.item/email_v2", email))
    for mimetype, values in rows:
        data = {"raw_contact_id": max(ids), "mimetype": mimetype, **values}
        _content_insert(device, {"uri": f"{CONTACTS_URI}/data", "values": data}, catalog)


def _set_timezone(device: TaskDevice, zone: Any, catalog: Catalog) -> None:
    _checked(device, f"setprop persist.sys.timezone {quote(zone)}", "set_timezone")


def local_ms(device: TaskDevice, day: str, hhmm: str) -> int:
    """Epoch milliseconds of a wall-clock time on a day, in the device's own time zone."""
    from zoneinfo import ZoneInfo

    zone = device.shell("getprop persist.sys.timezone").strip() or "UTC"
    try:
        tz: dt.tzinfo = ZoneInfo(zone)
    except (KeyError, ValueError):
        tz = dt.timezone.utc
    moment = dt.datetime.fromisoformat(f"{day} {hhmm}").replace(tzinfo=tz)
    return int(moment.timestamp() * 1000)


def _add_event(device: TaskDevice, spec: Any, catalog: Catalog) -> None:
    """An event in the local calendar at local wall-clock times, as the Calendar app saves one."""
    day = str(spec["day"])
    start = local_ms(device, day, str(spec["start"]))
    end = local_ms(device, day, str(spec.get("end") or spec["start"]))
    if end <= start and spec.get("end"):
        end = start + 3_600_000
    zone = device.shell("getprop persist.sys.timezone").strip() or "UTC"
    values: dict[str, Any] = {
        "calendar_id": 1,
        "title": str(spec["title"]),
        "dtstart": start,
        "dtend": end,
        "eventTimezone": zone,
    }
    if spec.get("location"):
        values["eventLocation"] = str(spec["location"])
    _content_insert(device, {"uri": "content://com.android.calendar/events", "values": values}, catalog)


STEPS: dict[str, StepFn] = {
    "snapshot": _snapshot,
    "settings": _settings,
    "content_insert": _content_insert,
    "content_delete": _content_delete,
    "sql": _sql,
    "push_file": _push_file,
    "set_time": _set_time,
    "open_app": _open_app,
    "home": _home,
    "shell": _shell,
    "force_stop": _force_stop,
    "clear_app": _clear_app,
    "add_contact": _add_contact,
    "add_event": _add_event,
    "set_timezone": _set_timezone,
}


def apply_steps(
    device: TaskDevice, steps: list[Any], catalog: Catalog, params: dict[str, Any] | None = None
) -> None:
    """Run setup steps in order, naming apps and databases of `catalog`; `params` fills `{name}`
    placeholders (None: steps are taken as is)."""
    for step in steps:
        kind, args = (step, {}) if isinstance(step, str) else next(iter(dict(step).items()))
        if kind == "repeat":
            times = int(render(args["times"], params) if params is not None else args["times"])
            for i in range(1, times + 1):
                inner: dict[str, Any] = {**(params or {}), "i": i}
                apply_steps(device, args["steps"], catalog, inner)
            continue
        if kind not in STEPS:
            raise MgfarmError(f"Unknown setup step {kind!r}; use one of: {', '.join([*STEPS, 'repeat'])}.")
        STEPS[kind](device, render(args, params) if params is not None else args, catalog)
