"""System commands that read the device's clock and processes: date, uptime, ps."""

from __future__ import annotations

import asyncio
import datetime as dt
import re
import zlib

from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.system.clock import device_zone, zone_named
from mgfarm.sim.system.fs import USER_NAMES
from mgfarm.sim.system.procfs import CORES, KERNEL_RELEASE, KERNEL_VERSION, SHELL_PID, uptime_seconds

DEFAULT_FORMAT = "%a %b %e %H:%M:%S %Z %Y"
CHILD_PID = 4244  # what `timeout -v` names as the command's pid
DURATION_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}  # seconds a unit of sleep and timeout


def local_zone(inv: Invocation, utc: bool) -> dt.tzinfo:
    """localtime(3)'s zone for a command: UTC with -u, else TZ, else the device's."""
    if utc:
        return dt.timezone.utc
    named = inv.env.get("TZ")
    return zone_named(named) if named else device_zone(inv.device.props)


def parse_date(text: str, zone: dt.tzinfo, now: dt.datetime) -> dt.datetime:
    """The date forms toybox's `date -s`/`-d` accept: @EPOCH, ISO-like, and MMDDhhmm[[CC]YY][.ss]."""
    text = text.strip()
    if text.startswith("@"):
        return dt.datetime.fromtimestamp(float(text[1:]), zone)
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d", "%H:%M:%S", "%H:%M"):
        try:
            parsed = dt.datetime.strptime(text, fmt)
        except ValueError:
            continue
        if fmt.startswith("%H"):
            parsed = parsed.replace(year=now.year, month=now.month, day=now.day)
        return parsed.replace(tzinfo=zone)
    m = re.fullmatch(r"(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)?(\d\d)?(?:\.(\d\d))?", text)
    if m:
        month, day, hour, minute = (int(m.group(i)) for i in range(1, 5))
        year = now.year
        if m.group(6):
            year = int(m.group(5) + m.group(6))
        elif m.group(5):
            year = 2000 + int(m.group(5))
        second = int(m.group(7) or 0)
        return dt.datetime(year, month, day, hour, minute, second, tzinfo=zone)
    raise ValueError(f"bad date '{text}'")


def strftime(moment: dt.datetime, fmt: str) -> str:
    """strftime plus the toybox extras Python lacks (%N nanoseconds, %s epoch seconds)."""
    fmt = fmt.replace("%N", f"{moment.microsecond * 1000:09d}").replace("%s", str(int(moment.timestamp())))
    fmt = fmt.replace("%e", f"{moment.day:2d}")
    return moment.strftime(fmt)


@command("date")
async def date(inv: Invocation) -> int:
    clock = inv.device.services.clock
    args = inv.argv[1:]
    utc = False
    set_to: str | None = None
    show: str | None = None
    fmt = DEFAULT_FORMAT
    while args:
        arg = args.pop(0)
        if arg == "-u":
            utc = True
        elif arg in ("-s", "-d", "-D") and args:
            value = args.pop(0)
            if arg == "-s":
                set_to = value
            elif arg == "-d":
                show = value
        elif arg.startswith("+"):
            fmt = arg[1:]
        elif re.fullmatch(r"\d{8}(\d{2}|\d{4})?(\.\d\d)?", arg):
            set_to = arg
        else:
            inv.err(f"date: bad date '{arg}'\n")
            return 1
    zone = local_zone(inv, utc)
    now = dt.datetime.fromtimestamp(clock.now_ms() / 1000, zone)
    try:
        if set_to is not None:
            moment = parse_date(set_to, zone, now)
            clock.set_ms(int(moment.timestamp() * 1000))
            now = moment
        elif show is not None:
            now = parse_date(show, zone, now)
    except ValueError as exc:
        inv.err(f"date: {exc}\n")
        return 1
    inv.out(strftime(now, fmt) + "\n")
    return 0


@command("uptime")
async def uptime(inv: Invocation) -> int:
    up = uptime_seconds(inv.device)
    if "-s" in inv.argv[1:]:
        since = dt.datetime.fromtimestamp(inv.device.services.clock.now() - up, local_zone(inv, False))
        inv.out(since.strftime("%Y-%m-%d %H:%M:%S") + "\n")
        return 0
    now = dt.datetime.fromtimestamp(inv.device.services.clock.now(), local_zone(inv, False))
    hours, minutes = int(up // 3600), int(up % 3600 // 60)
    span = f"{hours}:{minutes:02d}" if hours else f"{minutes} min"
    inv.out(f" {now:%H:%M:%S} up {span},  0 users,  load average: 0.00, 0.00, 0.00\n")
    return 0


# Processes every emulator image runs: (user, pid, ppid, name); apps with a live task are added after them.
BASE_PROCESSES = (
    ("root", 1, 0, "init"),
    ("root", 2, 0, "[kthreadd]"),
    ("logd", 180, 1, "logd"),
    ("system", 210, 1, "servicemanager"),
    ("root", 300, 1, "zygote64"),
    ("root", 320, 1, "adbd"),
    ("system", 560, 300, "system_server"),
    ("radio", 700, 300, "com.android.phone"),
    ("u0_a120", 900, 300, "com.android.systemui"),
    ("u0_a121", 950, 300, "com.google.android.inputmethod.latin"),
)
# toybox ps -o field -> (header, width, right aligned)
PS_FIELDS = {
    "USER": ("USER", 12, False),
    "UID": ("UID", 5, True),
    "PID": ("PID", 5, True),
    "PPID": ("PPID", 5, True),
    "VSZ": ("VSZ", 10, True),
    "VSIZE": ("VSZ", 10, True),
    "RSS": ("RSS", 6, True),
    "WCHAN": ("WCHAN", 16, False),
    "ADDR": ("ADDR", 4, True),
    "S": ("S", 1, False),
    "STAT": ("S", 1, False),
    "PRI": ("PRI", 3, True),
    "NI": ("NI", 3, True),
    "TIME": ("TIME", 8, True),
    "%CPU": ("%CPU", 4, True),
    "NAME": ("NAME", 0, False),
    "CMD": ("CMD", 0, False),
    "COMM": ("COMM", 0, False),
    "ARGS": ("ARGS", 0, False),
    "CMDLINE": ("CMDLINE", 0, False),
}
DEFAULT_PS = ("USER", "PID", "PPID", "VSZ", "RSS", "WCHAN", "ADDR", "S", "NAME")


def app_uid(package: str) -> int:
    """A stable app uid (10000 + app id) per package: the same in `ps`, dumpsys and `pm list -U`."""
    return 10100 + zlib.crc32(package.encode()) % 400


def app_pid(inv: Invocation, package: str) -> int:
    """The pid of an app's process: a system one's from the table, else the activity manager's."""
    base = next((row[1] for row in BASE_PROCESSES if row[3] == package), None)
    return base if base is not None else inv.device.services.activities.pid(package)


def processes(inv: Invocation) -> list[tuple[str, int, int, str]]:
    """(user, pid, ppid, name) of every process: the system's, then each app with a live process."""
    # adbd drops to the shell user unless `adb root` keeps it root
    adbd = "root" if inv.device.root_adbd else "shell"
    rows = [(adbd, *row[1:]) if row[3] == "adbd" else row for row in BASE_PROCESSES]
    activities = inv.device.services.activities
    for package in activities.running():
        rows.append((f"u0_a{app_uid(package) - 10000}", activities.pid(package), 300, package))
    return rows


# The uids of the users `ps` names; an app's user is u0_aN, uid 10000 + N.
USER_IDS = {name: uid for uid, name in USER_NAMES.items()} | {"radio": 1001, "logd": 1036}


def user_id(user: str) -> int:
    if user.startswith("u0_a") and user[4:].isdigit():
        return 10000 + int(user[4:])
    return USER_IDS.get(user, -1)


def ps_value(field: str, row: tuple[str, int, int, str]) -> str:
    user, pid, ppid, name = row
    values = {
        "USER": user,
        "UID": str(user_id(user)),
        "PID": str(pid),
        "PPID": str(ppid),
        "VSZ": "12000000",
        "RSS": "9000",
        "WCHAN": "0",
        "ADDR": "0",
        "S": "S",
        "PRI": "19",
        "NI": "0",
        "TIME": "00:00:01",
        "%CPU": "0.0",
    }
    return values.get(PS_FIELDS[field][0], name)


def ps_columns(args: list[str]) -> list[str] | str:
    """The -o fields (comma or space separated, `FIELD=` renames are read as FIELD), or an error."""
    fields: list[str] = []
    for i, arg in enumerate(args):
        if arg == "-o" and i + 1 < len(args):
            fields += [f.split("=", 1)[0].upper() for f in args[i + 1].replace(" ", ",").split(",") if f]
    for f in fields:
        if f not in PS_FIELDS:
            return f"ps: bad -o {f}"
    return fields or list(DEFAULT_PS)


@command("ps")
async def ps(inv: Invocation) -> int:
    args = inv.argv[1:]
    columns = ps_columns(args)
    if isinstance(columns, str):
        inv.err(columns + "\n")
        return 1
    everything = any(a in ("-A", "-e", "-ef") for a in args)
    with_value = {"-o", "-p", "-u", "-U", "-k"}
    names = [
        a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] not in with_value)
    ]
    pids = {p for i, a in enumerate(args) if i and args[i - 1] == "-p" for p in a.split(",")}
    rows = processes(inv)
    if pids:
        rows = [r for r in rows if str(r[1]) in pids]
    elif names:
        rows = [r for r in rows if r[3] in names or str(r[1]) in names]
    elif not everything:
        user = USER_NAMES.get(inv.uid, str(inv.uid))  # the shell and ps run as the caller
        rows = [r for r in rows if r[3] == "adbd"] + [
            (user, SHELL_PID, 320, "sh"),
            (user, SHELL_PID + 1, SHELL_PID, "ps"),
        ]
    header = []
    for f in columns:
        title, width, right = PS_FIELDS[f]
        header.append(title.rjust(width) if right else title.ljust(width))
    inv.out(" ".join(header).rstrip() + "\n")
    for row in rows:
        cells = []
        for f in columns:
            _, width, right = PS_FIELDS[f]
            value = ps_value(f, row)
            cells.append(value.rjust(width) if right else value.ljust(width))
        inv.out(" ".join(cells).rstrip() + "\n")
    return 0 if rows or not (names or pids) else 1


@command("pidof")
async def pidof(inv: Invocation) -> int:
    pids = [str(pid) for _, pid, _, name in processes(inv) if name in inv.argv[1:]]
    if not pids:
        return 1
    inv.out(" ".join(pids) + "\n")
    return 0


@command("uname")
async def uname(inv: Invocation) -> int:
    fields = {
        "s": "Linux",
        "n": "localhost",
        "r": KERNEL_RELEASE,
        "v": KERNEL_VERSION,
        "m": "x86_64",
        "o": "Toybox",
    }
    flags = "".join(a[1:] for a in inv.argv[1:] if a.startswith("-"))
    keys = "snrvmo" if "a" in flags else [k for k in "snrvmo" if k in flags] or ["s"]
    inv.out(" ".join(fields[k] for k in keys) + "\n")
    return 0


@command("env", "printenv")
async def env(inv: Invocation) -> int:
    names = [a for a in inv.argv[1:] if not a.startswith("-")]
    if inv.argv[0] == "printenv" and names:
        values = [inv.env[n] for n in names if n in inv.env]
        inv.out("".join(v + "\n" for v in values))
        return 0 if len(values) == len(names) else 1
    inv.out("".join(f"{k}={v}\n" for k, v in sorted(inv.env.items())))
    return 0


@command("run-as")
async def run_as(inv: Invocation) -> int:
    """`run-as PKG CMD...`: CMD runs in the app's data folder, as the caller (the sim has no app uids)."""
    from mgfarm.sim.shell.interp import Shell

    if len(inv.argv) < 2:
        inv.err("usage: run-as <package-name> [--user <uid>] <command> [<args>]\n")
        return 1
    package = inv.argv[1]
    if inv.device.services.packages.get(package) is None:
        inv.err(f"run-as: unknown package: {package}\n")
        return 1
    argv = inv.argv[2:]
    if argv[:1] == ["--user"]:
        argv = argv[2:]
    shell = Shell(inv.device, dict(inv.env), f"/data/data/{package}", uid=inv.uid)
    return await shell.call(argv or ["sh"], inv.io)


@command("getenforce")
async def getenforce(inv: Invocation) -> int:
    inv.out("Enforcing\n")  # the emulator image's SELinux
    return 0


@command("nproc")
async def nproc(inv: Invocation) -> int:
    inv.out(f"{CORES}\n")
    return 0


@command("hostname")
async def hostname(inv: Invocation) -> int:
    """The host name (Android leaves the kernel's `localhost`); setting it is not modelled."""
    args = [a for a in inv.argv[1:] if a != "-s"]
    if args:
        inv.err("hostname: setting the host name is not supported on this device\n")
        return 1
    inv.out("localhost\n")
    return 0


@command("timeout")
async def timeout(inv: Invocation) -> int:
    """`timeout [-s SIGNAL] [-k DURATION] [-v] [--preserve-status] DURATION COMMAND...`: COMMAND
    is ended when DURATION (seconds; s m h d suffixes) passes: status 124, or 137 for KILL (128 +
    the signal with --preserve-status). Bad arguments exit 125, as toybox's."""
    from mgfarm.sim.shell.interp import Shell
    from mgfarm.sim.shell.signals import SIGNALS, signal_number

    args = list(inv.argv[1:])
    signal, verbose, preserve = SIGNALS["TERM"], False, False
    while args and args[0].startswith("-") and args[0] != "-":
        opt = args.pop(0)
        if opt == "--":
            break
        if opt in ("-s", "--signal") or opt.startswith("--signal="):
            name = opt.partition("=")[2] if "=" in opt else (args.pop(0) if args else "")
            number = signal_number(name)
            if number is None or not 0 < number < 65:
                inv.err(f"timeout: bad -s: '{name}'\n")
                return 125
            signal = number
        elif opt == "-k":
            if args:
                args.pop(0)  # the sim's commands end at the first signal: there is no second
        elif opt == "-v":
            verbose = True
        elif opt == "--preserve-status":
            preserve = True
        elif opt != "--foreground":
            inv.err(f"timeout: Unknown option '{opt}'\n")
            return 125
    if len(args) < 2:
        inv.err("timeout: Need 2 arguments\n")
        return 125
    try:
        seconds = parse_duration(args[0])
    except ValueError as exc:
        inv.err(f"timeout: {exc}\n")
        return 125
    shell = Shell(inv.device, dict(inv.env), inv.cwd, uid=inv.uid)
    if not seconds:  # a zero duration sets no timer
        return await shell.call(args[1:], inv.io)
    try:
        return await asyncio.wait_for(shell.call(args[1:], inv.io), seconds)
    except asyncio.TimeoutError:
        if verbose:
            inv.err(f"timeout pid {CHILD_PID} signal {signal}\n")
        if preserve:
            return 128 + signal
        return 137 if signal == SIGNALS["KILL"] else 124


def parse_duration(text: str) -> float:
    """Seconds in toybox's form: a decimal number and one of s m h d; ValueError with its words."""
    m = re.fullmatch(r"(\d*)(?:\.(\d*))?(.*)", text)
    if not text or not (text[0].isdigit() or text[0] == ".") or m is None:
        raise ValueError(f"Not a number '{text}'")
    whole, frac, suffix = m.group(1), m.group(2) or "", m.group(3)
    if suffix not in DURATION_UNITS:
        raise ValueError(f"Unknown suffix '{suffix}'")
    value = float(f"{whole or 0}.{frac or 0}")
    return value * DURATION_UNITS[suffix]
