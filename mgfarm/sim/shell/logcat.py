"""`logcat` (dump, clear, follow, formats, filters) and `log`, over the device's log buffers.

android_env clears with `logcat -b all -c`, then follows `logcat -v epoch TAG:LEVEL ... *:S` for the
whole episode and reads rewards and events from the messages; the follow ends when the client hangs up.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re

from mgfarm.sim.shell.registry import Invocation, command, is_number
from mgfarm.sim.shell.system import local_zone
from mgfarm.sim.system.logs import BUFFERS, Entry
from mgfarm.sim.system.procfs import SHELL_PID

LEVELS = "VDIWEFS"
FORMATS = ("threadtime", "brief", "time", "epoch", "raw", "tag", "process", "long", "monotonic")
FOLLOW_POLL = 0.1  # seconds between looks at the buffer while following
USAGE = "Usage: logcat [options] [filterspecs]\n"


class LogcatError(Exception):
    """A bad option; the message is what logcat prints before exiting 1."""


def parse_filters(specs: list[str]) -> list[tuple[str, str]]:
    """`TAG:LEVEL` specs in order; a bare TAG means TAG:V."""
    out = []
    for spec in specs:
        tag, _, level = spec.partition(":")
        level = (level or "V").upper()[:1]
        if level not in LEVELS or not tag:
            raise LogcatError(f"Invalid filter expression '{spec}'")
        out.append((tag, level))
    return out


def visible(entry: Entry, filters: list[tuple[str, str]]) -> bool:
    """liblog's rule: the entry's own tag spec decides, else `*`'s, else everything (V) shows."""
    threshold = "V"
    for tag, level in filters:
        if tag == "*":
            threshold = level
    for tag, level in filters:
        if tag == entry.tag:
            threshold = level
    return threshold != "S" and LEVELS.index(entry.level) >= LEVELS.index(threshold)


def render(entry: Entry, fmt: str, inv: Invocation) -> str:
    sec, ms = divmod(entry.time_ms, 1000)
    if fmt == "epoch":
        stamp = f"{sec:>19}.{ms:03d}"
    elif fmt == "monotonic":
        stamp = f"{sec % 100000:>6}.{ms:03d}"
    else:
        moment = dt.datetime.fromtimestamp(sec, local_zone(inv, False))
        stamp = f"{moment:%m-%d %H:%M:%S}.{ms:03d}"
    tag = f"{entry.tag:<8}"
    if fmt == "raw":
        return entry.message
    if fmt == "brief":
        return f"{entry.level}/{tag}({entry.pid:5}): {entry.message}"
    if fmt == "tag":
        return f"{entry.level}/{tag}: {entry.message}"
    if fmt == "process":
        return f"{entry.level}({entry.pid:5}) {entry.message}  ({entry.tag})"
    if fmt == "time":
        return f"{stamp} {entry.level}/{tag}({entry.pid:5}): {entry.message}"
    if fmt == "long":
        return f"[ {stamp} {entry.pid:5}:{entry.tid:5} {entry.level}/{entry.tag} ]\n{entry.message}\n"
    return f"{stamp} {entry.pid:5} {entry.tid:5} {entry.level} {tag}: {entry.message}"


@command("logcat")
async def logcat(inv: Invocation) -> int:
    try:
        return await run_logcat(inv, inv.argv[1:])
    except LogcatError as exc:
        inv.err(f"logcat: {exc}\n{USAGE}")
        return 1


def _value(args: list[str], i: int, opt: str) -> str:
    if i + 1 >= len(args):
        raise LogcatError(f"option requires an argument -- '{opt.lstrip('-')}'")
    return args[i + 1]


async def run_logcat(inv: Invocation, args: list[str]) -> int:
    fmt, dump, clear, count, tail, pid = "threadtime", False, False, 0, 0, 0
    buffers: set[str] = set()
    pattern: re.Pattern[str] | None = None
    specs: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-d",):
            dump = True
        elif arg in ("-c", "--clear"):
            clear = True
        elif arg in ("-g", "--buffer-size"):
            logs = inv.device.services.logs
            for name in sorted(buffers or {"main", "system", "crash"}):
                inv.out(
                    f"{name}: ring buffer is 256 KiB ({logs.used_bytes(name)} B consumed), "
                    "max entry is 5120 B, max payload is 4068 B\n"
                )
            return 0
        elif arg == "-s":
            specs.append("*:S")
        elif arg in ("-v", "-b", "-t", "-T", "-m", "-e", "--regex", "--pid", "-f", "--format", "--buffer"):
            value = _value(args, i, arg)
            i += 1
            if arg in ("-v", "--format"):
                if value not in FORMATS and value not in (
                    "color",
                    "uid",
                    "usec",
                    "year",
                    "zone",
                    "printable",
                ):
                    raise LogcatError(f'Invalid parameter "{value}" to -v')
                fmt = value if value in FORMATS else fmt
            elif arg in ("-b", "--buffer"):
                for name in value.split(","):
                    if name == "all":
                        buffers |= set(BUFFERS)
                    elif name in BUFFERS or name == "default":
                        buffers |= {"main", "system", "crash"} if name == "default" else {name}
                    else:
                        raise LogcatError(f"unknown buffer {name}")
            elif arg in ("-t", "-T", "-m"):
                if not is_number(value):
                    raise LogcatError(f"{arg} needs a count, e.g. {arg} 100")
                if arg == "-m":
                    count = int(value)
                else:
                    tail = int(value)
                    dump = dump or arg == "-t"
            elif arg in ("-e", "--regex"):
                try:
                    pattern = re.compile(value)
                except re.error as exc:
                    raise LogcatError(f"bad regex '{value}': {exc}") from exc
            elif arg == "--pid":
                if not is_number(value):
                    raise LogcatError(f"--pid needs a number, e.g. --pid {SHELL_PID}")
                pid = int(value)
        elif arg.startswith("--pid="):
            pid = int(arg[6:]) if is_number(arg[6:]) else 0
        elif arg.startswith("-v") and len(arg) > 2:
            fmt = arg[2:] if arg[2:] in FORMATS else fmt
        elif arg.startswith("-") and len(arg) > 1:
            raise LogcatError(f"unknown option -- {arg.lstrip('-')}")
        else:
            specs.append(arg)
        i += 1
    filters = parse_filters(specs)
    logs = inv.device.services.logs
    wanted = buffers or {"main", "system", "crash"}
    if clear:
        logs.clear(wanted)
        return 0

    def keep(e: Entry) -> bool:
        return (
            e.buffer in wanted
            and visible(e, filters)
            and (pattern is None or bool(pattern.search(e.message)))
            and (not pid or e.pid == pid)
        )

    entries = [e for e in logs.since(0) if keep(e)]
    if tail:
        entries = entries[-tail:]
    printed = 0
    last = logs.next_seq - 1
    for e in entries:
        inv.out(render(e, fmt, inv) + "\n")
        printed += 1
        if count and printed >= count:
            return 0
    if dump:
        return 0
    while True:  # follow until the reader hangs up (the shell task is cancelled then)
        await inv.io.stdout.flush()
        await asyncio.sleep(FOLLOW_POLL)
        for e in logs.since(last):
            last = e.seq
            if keep(e):
                inv.out(render(e, fmt, inv) + "\n")
                printed += 1
                if count and printed >= count:
                    return 0


@command("log")
async def log_cmd(inv: Invocation) -> int:
    """`log [-p PRIORITY] [-t TAG] MESSAGE...`: one entry in the main buffer."""
    args = inv.argv[1:]
    level, tag = "I", "log"
    while args and args[0].startswith("-") and len(args) > 1:
        opt, value = args[0], args[1]
        if opt == "-p" and value[:1].upper() in LEVELS[:-1]:
            level = value[:1].upper()
        elif opt == "-t":
            tag = value
        else:
            inv.err(f"log: bad option {opt}: use -p PRIORITY (v d i w e f) and -t TAG\n")
            return 1
        args = args[2:]
    inv.device.services.logs.write(level, tag, " ".join(args), pid=SHELL_PID)
    return 0
