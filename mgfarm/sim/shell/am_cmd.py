"""`am` (start, force-stop, broadcast) and `monkey -p PKG 1`, calling the activity manager service."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mgfarm.sim.shell.ime_cmd import RESULT_NONE, adb_keyboard_broadcast
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.system import a11y
from mgfarm.sim.system.activities import LAUNCHER

# Options taking one value that `am start` accepts and the simulator does not use.
IGNORED_WITH_VALUE = {
    "-i",
    "--user",
    "-P",
    "--start-profiler",
    "--sampling",
    "--display",
    "--windowingMode",
}
IGNORED_FLAGS = {
    "-D",
    "-N",
    "-R",
    "-S",
    "--streaming",
    "--track-allocation",
    "--activity-clear-top",
    "--activity-new-task",
    "--activity-single-top",
    "--activity-clear-task",
    "--activity-no-history",
    "--receiver-foreground",
    "--grant-read-uri-permission",
    "--grant-write-uri-permission",
}
EXTRA_TYPES = {"--es": str, "-e": str, "--ei": int, "--el": int, "--ef": float, "--ed": float, "--eu": str}


class IntentError(Exception):
    """Arguments `am` cannot turn into an intent."""


@dataclass
class Intent:
    action: str | None = None
    data: str | None = None
    mime_type: str | None = None
    categories: list[str] = field(default_factory=list)
    package: str | None = None
    activity: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    flags: int = 0

    def short(self) -> str:
        """Intent.toShortString: `act=... cat=[...] dat=... flg=0x... cmp=pkg/.Act (has extras)`."""
        parts = []
        if self.action:
            parts.append(f"act={self.action}")
        if self.categories:
            parts.append(f"cat=[{','.join(self.categories)}]")
        if self.data:
            parts.append(f"dat={self.data}")
        if self.mime_type:
            parts.append(f"typ={self.mime_type}")
        if self.flags:
            parts.append(f"flg=0x{self.flags:x}")
        if self.package and self.activity:
            cls = self.activity
            full = self.package + cls if cls.startswith(".") else cls
            shown = full[len(self.package) :] if full.startswith(self.package + ".") else full
            parts.append(f"cmp={self.package}/{shown}")
        elif self.package:
            parts.append(f"pkg={self.package}")
        text = " ".join(parts)
        if self.extras:
            text += " (has extras)"
        return f"Intent {{ {text} }}"


def _take(args: list[str], opt: str) -> str:
    if not args:
        raise IntentError(f'Argument expected after "{opt}"')
    return args.pop(0)


def _set_component(intent: Intent, value: str) -> None:
    if "/" not in value:
        raise IntentError(f"Bad component name: {value}")
    intent.package, intent.activity = value.split("/", 1)


def _extra(opt: str, raw: str) -> Any:
    if opt == "--ez":
        return raw.lower() in ("true", "t", "1")
    return EXTRA_TYPES[opt](raw)


def _bare_argument(intent: Intent, arg: str) -> None:
    """A bare argument is a component, a URI or a package, as Intent.parseCommandArgs reads it."""
    if "/" in arg and intent.package is None and ":" not in arg:
        _set_component(intent, arg)
    elif ":" in arg and intent.data is None:
        intent.data = arg
    elif intent.package is None:
        intent.package = arg


def parse_intent(args: list[str]) -> Intent:
    """The intent `am start`/`am broadcast` arguments describe (Intent.parseCommandArgs' subset)."""
    intent = Intent()
    setters = {
        "-a": lambda v: setattr(intent, "action", v),
        "-d": lambda v: setattr(intent, "data", v),
        "-t": lambda v: setattr(intent, "mime_type", v),
        "-c": intent.categories.append,
        "-p": lambda v: setattr(intent, "package", v),
        "-n": lambda v: _set_component(intent, v),
        "-f": lambda v: setattr(intent, "flags", int(v, 0)),
        "--esn": lambda v: intent.extras.__setitem__(v, None),
    }
    while args:
        opt = args.pop(0)
        if opt in IGNORED_FLAGS or opt == "-W":
            continue
        if opt in setters:
            setters[opt](_take(args, opt))
        elif opt in EXTRA_TYPES or opt == "--ez":
            key = _take(args, opt)
            intent.extras[key] = _extra(opt, _take(args, opt))
        elif opt in IGNORED_WITH_VALUE:
            _take(args, opt)
        elif opt.startswith("-"):
            raise IntentError(f"Unknown option: {opt}")
        else:
            _bare_argument(intent, opt)
    return intent


async def start(inv: Invocation, args: list[str]) -> int:
    wait = "-W" in args
    try:
        intent = parse_intent(list(args))
    except (IntentError, ValueError) as exc:
        inv.err(f"Error: {exc}\n")
        return 1
    inv.out(f"Starting: {intent.short()}\n")
    activities = inv.device.services.activities
    error = activities.start(
        intent.package,
        intent.activity,
        intent.action,
        intent.data,
        intent.extras or None,
        mime_type=intent.mime_type,
        categories=intent.categories,
    )
    if error:
        inv.err(error.rstrip("\n") + "\n")
        return 1
    if wait:
        resumed = activities.resumed()
        shown = ""
        if resumed:
            pkg, cls = resumed
            shown = f"{pkg}/{cls[len(pkg) :] if cls.startswith(pkg + '.') else cls}"
        inv.out(f"Status: ok\nLaunchState: COLD\nActivity: {shown}\nTotalTime: 42\nWaitTime: 45\nComplete\n")
    return 0


async def run_am(inv: Invocation, args: list[str]) -> int:
    if not args:
        inv.err("usage: am [start|force-stop|broadcast|kill|get-current-user] ...\n")
        return 1
    verb, rest = args[0], args[1:]
    if verb in ("start", "start-activity"):
        return await start(inv, rest)
    activities = inv.device.services.activities
    if verb in ("force-stop", "kill", "stop-app"):
        words = [a for a in rest if not a.startswith("-")]
        if "--user" in rest and words:
            words = words[1:]
        if words and verb == "kill":
            # only a process in the background: the app on screen is left running, as ActivityManager does
            resumed = activities.resumed()
            if resumed is None or resumed[0] != words[0]:
                activities.kill_process(words[0])
        elif words:
            activities.force_stop(words[0])
        return 0
    if verb == "kill-all":  # every cached process: the apps in the background, not home
        front = activities.resumed()
        for package in activities.running():
            if package != LAUNCHER and (front is None or package != front[0]):
                activities.kill_process(package)
        return 0
    if verb == "broadcast":
        try:
            intent = parse_intent(list(rest))
        except (IntentError, ValueError) as exc:
            inv.err(f"Error: {exc}\n")
            return 1
        intent.flags |= 0x400000  # FLAG_RECEIVER_INCLUDE_BACKGROUND, as am adds it
        inv.out(f"Broadcasting: {intent.short()}\n")
        result = adb_keyboard_broadcast(inv, intent.action or "", intent.extras)
        if result == RESULT_NONE:  # android_env's accessibility forwarder, if installed (sets no result)
            a11y.broadcast(inv.device, intent.action or "", intent.package, intent.extras)
        data = None
        # Apps with a receiver (Clipper's clipper.set/get) answer with a result code and data.
        for app in inv.device.services.apps.values() if result == RESULT_NONE else ():
            receive = getattr(app, "receive", None)
            answer = receive(intent.action or "", intent.extras) if receive is not None else None
            if answer is not None:
                result, data = answer
                break
        tail = f', data="{data}"' if data is not None else ""
        inv.out(f"Broadcast completed: result={result}{tail}\n")
        return 0
    if verb in ("stack", "task"):
        from mgfarm.sim.shell.stack_cmd import run_stack  # late: stack_cmd reads dumpsys, which imports am

        return run_stack(inv, verb, rest)
    if verb == "get-current-user":
        inv.out("0\n")
        return 0
    if verb in ("start-service", "startservice", "start-foreground-service"):
        intent = parse_intent(list(rest))
        inv.out(f"Starting service: {intent.short()}\n")
        return 0
    inv.err(f"Unknown command: {verb}\n")
    return 255


@command("am")
async def am(inv: Invocation) -> int:
    return await run_am(inv, inv.argv[1:])


@command("monkey")
async def monkey(inv: Invocation) -> int:
    """Only the launcher form tools use: `monkey -p PKG [-c CATEGORY] [-v] 1`."""
    args = inv.argv[1:]
    package = None
    while args:
        opt = args.pop(0)
        if opt == "-p" and args:
            package = args.pop(0)
        elif opt in ("-c", "-s", "--throttle", "--pct-syskeys") and args:
            args.pop(0)
    activities = inv.device.services.activities
    if package is None or package not in inv.device.services.apps:
        inv.err("** No activities found to run, monkey aborted.\n")
        return 252
    error = activities.start(package)
    if error:
        inv.err("** No activities found to run, monkey aborted.\n")
        return 252
    inv.out(
        "Events injected: 1\n## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n"
    )
    return 0
