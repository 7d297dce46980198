"""Setup steps shared by task templates and snapshot recipes, executed over a device's ADB interface.

Vocabulary (one key per step):
  snapshot: NAME                          load a snapshot over the console
  settings: {global: {wifi_on: 1}, ...}   settings put NS KEY VALUE
  content_insert: {uri: U, values: {col: v}}
  content_delete: {uri: U, where: "col='x'"}
  sql: {db: NAME_OR_PATH, sql: "..." | [..]}   SQL on an app database (device sqlite3)
  push_file: {path: P, text: T | size: N}
  preferences: {app: APP, values: {k: v}}   the app's default SharedPreferences file, replaced
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
import secrets
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from mgfarm.errors import MgfarmError
from mgfarm.shellwords import content_delete_command, content_insert_command
from mgfarm.tasks.apps import launch_command
from mgfarm.tasks.device import TaskDevice, quote
from mgfarm.tasks.params import render

if TYPE_CHECKING:
    from mgfarm.tasks.catalog import Catalog

SCRIPT_LIMIT = 32 * 1024  # bytes of queued commands sent as one script (adb requests stay < 64 KiB)
Check = Literal["status", "quiet", ""]


@dataclass
class _Command:
    cmd: str
    step: str  # the step named in an error
    # status: exit status 0 and no `Error` line (`content` and `sqlite3` print some failures with
    # status 0); quiet: status 0 and no output at all (a `content` write); "": not checked.
    check: Check


@dataclass
class SetupShell:
    """The device as setup steps write to it: their shell commands queue up and go in one round trip.

    A run of steps that only write (settings, SQL, provider rows, the clock, the time zone, app
    launches) is one shell script, each command followed by a marker line with its exit status, so
    every step is still checked on its own output and status. A step that reads the device (the new
    contact's id) or uses another service (a push, a snapshot load) sends what is queued first, so
    commands reach the device in the steps' order; consecutive pushes share one sync session. A
    failed step raises after the script ran (the
    steps after it ran too; the reset fails either way).
    """

    device: TaskDevice
    queue: list[_Command] = field(default_factory=list)
    pushes: list[tuple[bytes, str]] = field(default_factory=list)  # files for the next sync session
    zone: str | None = None  # the device's time zone when known (add_event reads it once)
    _marker: str = ""

    def push(self, data: bytes, path: str) -> None:
        """Queue a file for the next sync session: the commands queued before it run first, and
        consecutive pushes share one session."""
        if self.queue:  # (files queued before those commands were sent when they were queued)
            self.flush()
        self.pushes.append((data, path))

    def send_pushes(self) -> None:
        """Write the queued files (one sync session)."""
        if self.pushes:
            files, self.pushes = self.pushes, []
            self.device.push_many(files)

    def run(self, cmd: str, step: str, check: Check = "status") -> None:
        """Queue a command for the next round trip (after the files queued before it)."""
        self.send_pushes()
        if self.queue and sum(len(c.cmd) + 64 for c in self.queue) + len(cmd) > SCRIPT_LIMIT:
            self.flush()
        self.queue.append(_Command(cmd, step, check))

    def read(self, cmd: str, step: str) -> str:
        """Send the queue with `cmd` last, in one round trip; `cmd`'s output (not checked)."""
        self.run(cmd, step, "")
        return self.flush()[-1]

    def flush(self) -> list[str]:
        """Write the queued files, run the queued commands and check each; their outputs, in order."""
        self.send_pushes()
        if len(self.queue) == 1:  # as one command always ran: its status from the shell protocol
            command = self.queue.pop()
            result = self.device.shell2(command.cmd)
            _check(command, str(result.output), int(result.exit_code))
            return [str(result.output)]
        if not self.queue:
            return []
        return self.check(str(self.device.shell2(self.script()).output))

    def script(self) -> str:
        """The queued commands as one script, each followed by a line with its exit status ("" when
        nothing is queued); `check` reads its output. The capture runs it ahead of its own reads."""
        # The marker holds a nonce no command's output can contain (a file or row an app wrote).
        self._marker = f"##mgfarm-{secrets.token_hex(8)}"
        return "\n".join(f'{c.cmd}\necho "{self._marker} $?"' for c in self.queue)

    def check(self, output: str) -> list[str]:
        """Check each queued command on its part of `output` (of `script`) and empty the queue;
        their outputs, in order."""
        queue, self.queue = self.queue, []
        parts = re.split(rf"{self._marker} (\d+)\n?", output)
        replies = [(parts[i].rstrip(), int(parts[i + 1])) for i in range(0, len(parts) - 1, 2)]
        if len(replies) != len(queue):  # the device stopped part-way: the step it reached failed
            failed = queue[len(replies)] if len(replies) < len(queue) else queue[-1]
            detail = parts[-1].strip()[:200] or "no reply"
            raise MgfarmError(f"Setup step {failed.step} failed on the device ({detail}); fix the step.")
        for command, (text, status) in zip(queue, replies, strict=True):
            _check(command, text, status)
        return [text for text, _ in replies]


def _check(command: _Command, output: str, status: int) -> None:
    """Fail loudly when a command reported an error (status, `Error:` text, or any output for a write)."""
    if command.check == "status":
        failed = status != 0 or re.search(r"(^|\n)\s*Error\b", output) is not None
    elif command.check == "quiet":
        failed = status != 0 or bool(output.strip())
    else:
        return
    if failed:
        detail = output.strip()[:200] or f"exit status {status}"
        if command.check == "quiet":
            detail = f"`{command.cmd[:120]}`: {detail}"
        raise MgfarmError(f"Setup step {command.step} failed on the device ({detail}); fix the step.")


# A step gets the device's setup shell, its (rendered) arguments, and the catalog for app and
# database names.
StepFn = Callable[[SetupShell, Any, "Catalog"], None]


def _snapshot(shell: SetupShell, name: Any, catalog: Catalog) -> None:
    shell.flush()
    shell.zone = None
    shell.device.snapshot_load(str(name))


def _settings(shell: SetupShell, spec: Any, catalog: Catalog) -> None:
    commands = [
        f"settings put {quote(ns)} {quote(key)} {quote(_text(value))}"
        for ns, values in dict(spec).items()
        for key, value in dict(values).items()
    ]
    if commands:
        shell.run(" && ".join(commands), "settings")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _content_insert(shell: SetupShell, spec: Any, catalog: Catalog) -> None:
    shell.run(content_insert_command(str(spec["uri"]), dict(spec["values"])), "content_insert", "quiet")


def _content_delete(shell: SetupShell, spec: Any, catalog: Catalog) -> None:
    command = content_delete_command(str(spec["uri"]), spec.get("where") or None)
    shell.run(command, "content_delete", "quiet")


def _sql(shell: SetupShell, spec: Any, catalog: Catalog) -> None:
    path = catalog.state.database(str(spec["db"]), "Setup step sql", shell.device.profile)
    statements = spec["sql"] if isinstance(spec["sql"], list) else [spec["sql"]]
    script = "; ".join(str(s).rstrip(";") for s in statements) + ";"
    shell.run(f"sqlite3 {quote(path)} {quote(script)}", "sql")


def _push_file(shell: SetupShell, spec: Any, catalog: Catalog) -> None:
    data = str(spec["text"]).encode() if "text" in spec else b"x" * int(spec.get("size", 0))
    shell.push(data, catalog.apps.path_on(str(spec["path"]), shell.device.profile))


def _preferences(shell: SetupShell, spec: Any, catalog: Catalog) -> None:
    """Replace the app's default SharedPreferences file (`PKG_preferences.xml`) with `values`. The
    app is stopped first (a running app keeps its preferences in memory and writes them back), and
    the folder is given to the app's user, as the app's own commit would leave it."""
    package = catalog.apps.find(str(spec["app"])).package_on(shell.device.profile)
    folder = f"/data/data/{package}/shared_prefs"
    xml = _prefs_xml(dict(spec["values"]))
    shell.run(
        f"am force-stop {quote(package)} && mkdir -p {quote(folder)}"
        f" && printf %s {quote(xml)} > {quote(f'{folder}/{package}_preferences.xml')}"
        f" && chown -R $(stat -c %u:%g {quote(f'/data/data/{package}')}) {quote(folder)}"
        f" && restorecon -R {quote(folder)}",
        "preferences",
    )


def _prefs_xml(values: dict[str, Any]) -> str:
    """A SharedPreferences file as Android writes it: `<boolean>` and `<int>` for those values,
    `<string>` for the rest."""
    root = ET.Element("map")
    for name, value in values.items():
        if isinstance(value, bool):
            ET.SubElement(root, "boolean", name=str(name), value="true" if value else "false")
        elif isinstance(value, int):
            ET.SubElement(root, "int", name=str(name), value=str(value))
        else:
            ET.SubElement(root, "string", name=str(name)).text = str(value)
    return (
        "<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n"
        + ET.tostring(root, encoding="unicode")
        + "\n"
    )


def _set_time(shell: SetupShell, when: Any, catalog: Catalog) -> None:
    moment = dt.datetime.fromisoformat(str(when))
    shell.run(f"date {moment.strftime('%m%d%H%M%Y.%S')}", "set_time")


def _open_app(shell: SetupShell, name: Any, catalog: Catalog) -> None:
    if str(name).lower() == "home":
        _home(shell, None, catalog)
        return
    shell.run(launch_command(catalog.apps.find(str(name)), shell.device.profile), "open_app")


def _home(shell: SetupShell, _: Any, catalog: Catalog) -> None:
    shell.run("input keyevent 3", "home", "")


def _shell(shell: SetupShell, cmd: Any, catalog: Catalog) -> None:
    shell.run(str(cmd), "shell")
    shell.zone = None  # it may have set the time zone


def _force_stop(shell: SetupShell, name: Any, catalog: Catalog) -> None:
    shell.run(
        f"am force-stop {catalog.apps.find(str(name)).package_on(shell.device.profile)}", "force_stop", ""
    )


def _clear_app(shell: SetupShell, name: Any, catalog: Catalog) -> None:
    shell.run(f"pm clear {catalog.apps.find(str(name)).package_on(shell.device.profile)}", "clear_app", "")


# --- seed steps for snapshot recipes: records that take several provider calls -------------

CONTACTS_URI = "content://com.android.contacts"
ROW_ID = re.compile(r"^Row: \d+ _id=(\d+)\s*$", re.MULTILINE)


def _add_contact(shell: SetupShell, spec: Any, catalog: Catalog) -> None:
    """A contact as the Contacts app stores it: a raw contact, then its name, phone and email rows.

    The raw contact and the read-back of its id go in one round trip (with what was queued before);
    the data rows join the next one."""
    _content_insert(shell, {"uri": f"{CONTACTS_URI}/raw_contacts", "values": {"starred": 0}}, catalog)
    reply = shell.read(
        f"content query --uri {quote(CONTACTS_URI + '/raw_contacts')} --projection _id", "add_contact"
    )
    ids = [int(found) for found in ROW_ID.findall(reply)]
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
        _content_insert(shell, {"uri": f"{CONTACTS_URI}/data", "values": data}, catalog)


def _set_timezone(shell: SetupShell, zone: Any, catalog: Catalog) -> None:
    shell.run(f"setprop persist.sys.timezone {quote(zone)}", "set_timezone")
    shell.zone = str(zone)


def local_ms(zone: str, day: str, hhmm: str) -> int:
    """Epoch milliseconds of a wall-clock time on a day in time zone `zone` (UTC when unknown)."""
    from zoneinfo import ZoneInfo

    try:
        tz: dt.tzinfo = ZoneInfo(zone)
    except (KeyError, ValueError):
        tz = dt.timezone.utc
    moment = dt.datetime.fromisoformat(f"{day} {hhmm}").replace(tzinfo=tz)
    return int(moment.timestamp() * 1000)


def _device_zone(shell: SetupShell) -> str:
    """The device's time zone: read once (with what was queued) and kept until a step may change it."""
    if shell.zone is None:
        shell.zone = shell.read("getprop persist.sys.timezone", "add_event").strip() or "UTC"
    return shell.zone


def _add_event(shell: SetupShell, spec: Any, catalog: Catalog) -> None:
    """An event in the local calendar at local wall-clock times, as the Calendar app saves one."""
    day = str(spec["day"])
    zone = _device_zone(shell)
    start = local_ms(zone, day, str(spec["start"]))
    end = local_ms(zone, day, str(spec.get("end") or spec["start"]))
    if end <= start and spec.get("end"):
        end = start + 3_600_000
    values: dict[str, Any] = {
        "calendar_id": 1,
        "title": str(spec["title"]),
        "dtstart": start,
        "dtend": end,
        "eventTimezone": zone,
    }
    if spec.get("location"):
        values["eventLocation"] = str(spec["location"])
    _content_insert(shell, {"uri": "content://com.android.calendar/events", "values": values}, catalog)


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
    "preferences": _preferences,
    "clear_app": _clear_app,
    "add_contact": _add_contact,
    "add_event": _add_event,
    "set_timezone": _set_timezone,
}


def apply_steps(
    device: TaskDevice, steps: list[Any], catalog: Catalog, params: dict[str, Any] | None = None
) -> None:
    """Run setup steps in order, naming apps and databases of `catalog`; `params` fills `{name}`
    placeholders (None: steps are taken as is). Shell commands of consecutive steps reach the device
    in one round trip (`SetupShell`)."""
    queue_steps(device, steps, catalog, params).flush()


def queue_steps(
    device: TaskDevice,
    steps: list[Any],
    catalog: Catalog,
    params: dict[str, Any] | None = None,
    timezone: str | None = None,
) -> SetupShell:
    """Run setup steps as `apply_steps` does but leave the last shell commands queued: the caller
    sends them (`flush`, or ahead of a state capture: `capture(..., before=...)`). `timezone`, when
    given, is set before the first step (as a `set_timezone` step, never rendered with `params`)."""
    shell = SetupShell(device)
    if timezone:
        _set_timezone(shell, timezone, catalog)
    _apply(shell, steps, catalog, params)
    shell.send_pushes()  # files are not shell commands: they go now, the commands stay queued
    return shell


def _apply(shell: SetupShell, steps: list[Any], catalog: Catalog, params: dict[str, Any] | None) -> None:
    for step in steps:
        kind, args = (step, {}) if isinstance(step, str) else next(iter(dict(step).items()))
        if kind == "repeat":
            times = int(render(args["times"], params) if params is not None else args["times"])
            for i in range(1, times + 1):
                inner: dict[str, Any] = {**(params or {}), "i": i}
                _apply(shell, args["steps"], catalog, inner)
            continue
        if kind not in STEPS:
            raise MgfarmError(f"Unknown setup step {kind!r}; use one of: {', '.join([*STEPS, 'repeat'])}.")
        STEPS[kind](shell, render(args, params) if params is not None else args, catalog)
