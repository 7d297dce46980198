"""The activity manager: tasks with activity stacks, the launcher as home, truthful for `dumpsys`."""

from __future__ import annotations

import zlib
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from mgfarm.sim.system.intents import Query, resolve
from mgfarm.sim.system.logs import log
from mgfarm.sim.system.procfs import SHELL_PID

if TYPE_CHECKING:
    from mgfarm.sim.apps.base import App
    from mgfarm.sim.device import SimDevice

LAUNCHER = "com.android.launcher3"


def describe_short(action: str | None, data: str | None, component: str) -> str:
    """The intent as ActivityTaskManager logs a START: `act=... dat=... flg=0x10000000 cmp=pkg/.Act`."""
    parts = [f"act={action}"] if action else []
    parts += [f"dat={data}"] if data else []
    return " ".join([*parts, "flg=0x10000000", f"cmp={component}"])


def describe(action: str | None, data: str | None, mime_type: str | None, package: str | None = None) -> str:
    """Intent.toShortString of an implicit intent, for the error `am start` prints."""
    parts = [f"act={action}"] if action else []
    parts += [f"dat={data}"] if data else []
    parts += [f"typ={mime_type}"] if mime_type else []
    parts.append("flg=0x10000000")
    parts += [f"pkg={package}"] if package else []
    return "Intent { " + " ".join(parts) + " }"


@dataclass
class ActivityRecord:
    """One started activity: which screen, the intent extras it got, and its UI state (JSON-able)."""

    package: str
    activity: str  # fully qualified class name
    extras: dict[str, Any] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)
    serial: int = 0  # makes the record's hash distinct per launch

    @property
    def short(self) -> str:
        """`pkg/.Act` when the class is inside the package, else `pkg/full.Class`, like ComponentName."""
        if self.activity.startswith(self.package + "."):
            return f"{self.package}/{self.activity[len(self.package) :]}"
        return f"{self.package}/{self.activity}"

    @property
    def hash(self) -> str:
        return format(zlib.crc32(f"{self.short}#{self.serial}".encode()) & 0xFFFFFFF, "x")


@dataclass
class Task:
    task_id: int
    package: str
    records: list[ActivityRecord] = field(default_factory=list)


class ActivityManager:
    """Tasks in z-order (front first). The launcher task is always present, at the bottom when hidden."""

    def __init__(self, device: SimDevice) -> None:
        self.device = device
        self.stack: list[Task] = []
        self.next_task_id = 1
        self.next_serial = 1
        self.listeners: list[Any] = []  # callables(); told whenever the resumed activity changes
        # Processes: how often each app's process has ended (its next one has a new pid), and the
        # apps whose process ended while their task stayed in the background (no process until a
        # task of theirs comes to the front again).
        self.deaths: dict[str, int] = {}
        self.dead: set[str] = set()

    # ---- helpers
    def apps(self) -> dict[str, App]:
        return self.device.services.apps

    def _record(self, package: str, activity: str, extras: dict[str, Any] | None) -> ActivityRecord:
        rec = ActivityRecord(package, activity, dict(extras or {}), {}, self.next_serial)
        self.next_serial += 1
        return rec

    def _changed(self) -> None:
        if self.stack:
            self.dead.discard(self.stack[0].package)  # a task in front runs: its app starts again
        self.device.changed()
        for fn in self.listeners:
            fn()

    def _task_of(self, package: str) -> Task | None:
        return next((t for t in self.stack if t.package == package), None)

    def _bring_front(self, task: Task) -> None:
        self.stack.remove(task)
        self.stack.insert(0, task)

    @staticmethod
    def resolve_class(package: str, activity: str) -> str:
        """`.Main` -> `pkg.Main`; a bare name is taken as relative too, as `am start -n` does."""
        if activity.startswith("."):
            return package + activity
        if "." not in activity:
            return f"{package}.{activity}"
        return activity

    # ---- the service API
    def start(
        self,
        package: str | None,
        activity: str | None = None,
        action: str | None = None,
        data: str | None = None,
        extras: dict[str, Any] | None = None,
        mime_type: str | None = None,
        categories: list[str] | None = None,
    ) -> str | None:
        """Start an activity; None on success, else the error text `am start` prints.

        Without a class the intent is resolved as PackageManager does (action, categories, type, data),
        within `package` when one is given."""
        apps = self.apps()
        extras = dict(extras or {})
        if data:
            extras.setdefault("data", data)
        if mime_type:
            extras.setdefault("mime_type", mime_type)
        if activity is None and (action or mime_type or data):
            hit = resolve(apps, Query(action, data, mime_type, list(categories or [])), package)
            if hit is None:  # within a package too: am does not fall back to the package's launcher
                intent = describe(action, data, mime_type, package)
                return f"Error: Activity not started, unable to resolve {intent}"
            package, activity = hit
        if package is None or package not in apps:
            what = f"{package}/{activity}" if package else (action or "?")
            return f"Error: Activity not started, unable to resolve Intent {{ {what} }}"
        app = apps[package]
        if activity is None:
            self.launch(package)
            return None
        cls = self.resolve_class(package, activity)
        if cls not in app.activities:
            return f"Error type 3\nError: Activity class {{{package}/{cls}}} does not exist."
        if package == LAUNCHER and cls == app.main_activity:
            self.home()  # the home intent brings the launcher forward, it never stacks a second one
            return None
        shown = f"{package}/{cls[len(package) :]}" if cls.startswith(package + ".") else f"{package}/{cls}"
        log(
            self.device,
            "I",
            "ActivityTaskManager",
            f"START u0 {{{describe_short(action, data, shown)}}} from uid 2000",
        )
        task = self._task_of(package)
        if task is None:
            task = Task(self.next_task_id, package)
            self.next_task_id += 1
            self.stack.insert(0, task)
        else:
            self._bring_front(task)
        existing = [i for i, r in enumerate(task.records) if r.activity == cls]
        if existing and not extras:
            del task.records[existing[-1] + 1 :]  # clear-top: the same screen comes back, not a copy
        else:
            task.records.append(self._record(package, cls, extras))
        self._changed()
        log(self.device, "I", "ActivityTaskManager", f"Displayed {shown}: +{150 + len(cls) * 7}ms")
        return None

    def launch(self, package: str) -> str | None:
        """What tapping a launcher icon does: resume the app's task as it was, or start its main activity."""
        apps = self.apps()
        if package not in apps:
            return f"Error: Activity not started, unable to resolve Intent {{ {package} }}"
        task = self._task_of(package)
        if task is not None and task.records:
            self._bring_front(task)
            self._changed()
            return None
        return self.start(package, apps[package].main_activity)

    def force_stop(self, package: str) -> None:
        if package == LAUNCHER:
            return
        before = len(self.stack)
        log(
            self.device,
            "I",
            "ActivityManager",
            f"Force stopping {package} appid=10100 user=0: from pid {SHELL_PID}",
        )
        self.stack = [t for t in self.stack if t.package != package]
        self._process_ended(package)
        if len(self.stack) != before:
            self._ensure_home()
            self._changed()

    # ---- processes
    def pid(self, package: str) -> int:
        """The pid of the app's process: the same while it lives (a pid read once still names the app
        on the next step), another once it has ended and started again (force-stop, kill)."""
        life = self.deaths.get(package, 0)
        return 2000 + (zlib.crc32(package.encode()) + 997 * life) % 6000

    def running(self) -> list[str]:
        """Apps with a live process, front to back: each with a task but those killed in the background."""
        seen = dict.fromkeys(t.package for t in self.stack if t.package not in self.dead)
        return list(seen)

    def kill_process(self, package: str) -> None:
        """The app's process was killed (a signal, `am kill`). As ActivityManager handles an app's
        death: the activity on screen had saved no state, so it is removed, and the one below it (if
        any) starts again in a new process; activities in the background keep their saved state and
        their app starts again when one of them comes to the front. The home app starts again at once."""
        if package not in self.running():
            return
        log(self.device, "I", "ActivityManager", f"Process {package} (pid {self.pid(package)}) has died")
        task = self._task_of(package)
        self._process_ended(package)
        if task is None:
            return
        if task is not self.stack[0]:
            self.dead.add(package)
        elif package == LAUNCHER:
            task.records[0].state.pop("drawer", None)
            del task.records[1:]
        else:
            task.records.pop()
            if not task.records:
                self.stack.remove(task)
                self._ensure_home()
        self._changed()

    def _process_ended(self, package: str) -> None:
        self.deaths[package] = self.deaths.get(package, 0) + 1
        self.dead.discard(package)
        app = self.apps().get(package)
        if app is not None:
            app.stopped()

    def remove_task(self, task_id: int) -> bool:
        """`am stack remove ID`: the task and its activities go; the home task cannot be removed."""
        task = next((t for t in self.stack if t.task_id == task_id), None)
        if task is None or task.package == LAUNCHER:
            return False
        self.stack.remove(task)
        self._ensure_home()
        self._changed()
        return True

    def home(self) -> None:
        self._ensure_home()
        task = self._task_of(LAUNCHER)
        if task is not None:
            task.records[0].state.pop("drawer", None)
            del task.records[1:]
            self._bring_front(task)
        self._changed()

    def back(self) -> None:
        """Finish the top activity; a finished root activity removes its task and shows what is below."""
        if not self.stack:
            self._ensure_home()
            return
        task = self.stack[0]
        if task.package == LAUNCHER and len(task.records) <= 1:
            return
        task.records.pop()
        if not task.records:
            self.stack.pop(0)  # the task below in z-order comes to the front
            self._ensure_home()
        self._changed()

    def finish(self, record: ActivityRecord) -> None:
        for task in self.stack:
            if record in task.records:
                if task.records[-1] is record and task is self.stack[0]:
                    self.back()
                else:
                    task.records.remove(record)
                    self._changed()
                return

    def resumed_record(self) -> ActivityRecord | None:
        if not self.stack or not self.stack[0].records:
            return None
        return self.stack[0].records[-1]

    def resumed(self) -> tuple[str, str] | None:
        rec = self.resumed_record()
        return (rec.package, rec.activity) if rec else None

    def tasks(self) -> list[Task]:
        """Tasks front to back, each with its records bottom to top (what dumpsys prints)."""
        return list(self.stack)

    def recent_tasks(self) -> list[Task]:
        return [t for t in self.stack if t.package != LAUNCHER and t.records]

    def _ensure_home(self) -> Task:
        task = self._task_of(LAUNCHER)
        if task is None:
            apps = self.apps()
            main = apps[LAUNCHER].main_activity if LAUNCHER in apps else "com.android.launcher3.Launcher"
            task = Task(self.next_task_id, LAUNCHER, [self._record(LAUNCHER, main, None)])
            self.next_task_id += 1
            self.stack.append(task)
        return task

    # ---- snapshots
    def export_state(self) -> dict[str, Any]:
        return {
            "next_task_id": self.next_task_id,
            "next_serial": self.next_serial,
            "deaths": dict(self.deaths),
            "dead": sorted(self.dead),
            "tasks": [
                {"task_id": t.task_id, "package": t.package, "records": [asdict(r) for r in t.records]}
                for t in self.stack
            ],
        }

    def import_state(self, state: dict[str, Any]) -> None:
        self.next_task_id = int(state.get("next_task_id", 1))
        self.next_serial = int(state.get("next_serial", 1))
        self.deaths = {str(k): int(v) for k, v in state.get("deaths", {}).items()}
        self.dead = {str(p) for p in state.get("dead", [])}
        self.stack = [
            Task(int(t["task_id"]), str(t["package"]), [ActivityRecord(**r) for r in t["records"]])
            for t in state.get("tasks", [])
        ]
        self._ensure_home()
        self._changed()
