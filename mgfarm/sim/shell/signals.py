"""Signals to the device's processes: `kill` (mksh's builtin), and toybox's `pgrep`, `pkill`, `killall`.

A signal that ends an app's process does what the app's death does on a device (the activity
manager's side: `ActivityManager.kill_process`). The system's own processes accept what root sends
them and go on: a device would restart the framework, which the sim does not model. Only root may
signal another user's process (EPERM otherwise), as the kernel decides.
"""

from __future__ import annotations

import errno
import os

from mgfarm.sim.shell.control import SH
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.safe_regex import BoundedPattern, RegexError, RegexTimeout, compile_regex
from mgfarm.sim.shell.system import processes, user_id
from mgfarm.sim.system.fs import ROOT, USER_NAMES
from mgfarm.sim.system.procfs import SHELL_PID

# Linux's signals on x86_64, by number (the names toybox and mksh print, without SIG).
# fmt: off
SIGNAL_NAMES = (
    "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV",
    "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU",
    "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
)
# fmt: on
SIGNALS = {name: number for number, name in enumerate(SIGNAL_NAMES, 1)} | {"IOT": 6, "POLL": 29}
NSIG = 65  # signals are 1..64
TERM = SIGNALS["TERM"]
# What an app's process survives: ignored by default, stops (the sim keeps it running), and the two
# ART's signal catcher handles (QUIT dumps the threads, USR1 runs a collection).
SURVIVED = frozenset(
    SIGNALS[n] for n in ("CHLD", "CONT", "URG", "WINCH", "STOP", "TSTP", "TTIN", "TTOU", "QUIT", "USR1")
)


def signal_number(text: str) -> int | None:
    """A signal as toybox's sig_to_num reads it: a number, or a name with or without SIG, any case."""
    if text.isascii() and text.isdigit():
        return int(text)
    name = text.upper().removeprefix("SIG")
    return SIGNALS.get(name)


def signal_name(number: int) -> str:
    return SIGNAL_NAMES[number - 1] if 0 < number <= len(SIGNAL_NAMES) else str(number)


def comm(name: str) -> str:
    """The kernel's name of a process (/proc/PID/comm, 15 bytes): a kernel thread's without brackets;
    an app's is the end of its process name, as ART sets it (`[...]android.phone`), a program's the start."""
    if name.startswith("[") and name.endswith("]"):
        return name[1:-1][:15]
    if len(name) < 15 or "@" in name or "." not in name:
        return name[:15]
    return name[-15:]


def process_table(inv: Invocation) -> list[tuple[str, int, int, str]]:
    """Every process a signal may reach, by pid: the system's, the apps', and the caller's shell."""
    user = USER_NAMES.get(inv.uid, str(inv.uid))
    return sorted([*processes(inv), (user, SHELL_PID, 320, "sh")], key=lambda row: row[1])


def deliver(inv: Invocation, pid: int, signal: int) -> int:
    """Send `signal` to process `pid` as the caller: 0, or the errno kill(2) would set."""
    row = next((r for r in process_table(inv) if r[1] == pid), None)
    return signal_row(inv, row, signal) if row is not None else errno.ESRCH


def signal_row(inv: Invocation, row: tuple[str, int, int, str], signal: int) -> int:
    """`deliver` for a process already found in the table (pkill, killall walk it)."""
    if not 0 <= signal < NSIG:
        return errno.EINVAL
    if inv.uid != ROOT and user_id(row[0]) != inv.uid:
        return errno.EPERM
    package = row[3]
    if signal and signal not in SURVIVED and package in inv.device.services.activities.running():
        inv.device.services.activities.kill_process(package)
    return 0


@command("kill")
async def kill(inv: Invocation) -> int:
    """mksh's `kill [-s SIG | -SIG] PID...` and `kill -l [STATUS...]`, with its messages."""
    args = inv.argv[1:]
    signal, listing = TERM, False
    if (
        args
        and args[0].startswith("-")
        and args[0][1:2].isascii()
        and (args[0][1:2].isdigit() or args[0][1:2].isupper())
    ):
        number = signal_number(args[0][1:])
        if number is None:
            return _kill_error(inv, f"bad signal '{args[0][1:]}'")
        signal, args = number, args[1:]
        if args[:1] == ["--"]:
            args = args[1:]
    else:
        while args and args[0].startswith("-") and args[0] != "-":
            opt = args.pop(0)
            if opt == "--":
                break
            if opt == "-l":
                listing = True
            elif opt.startswith("-s"):
                name = opt[2:] or (args.pop(0) if args else "")
                number = signal_number(name) if name else None
                if number is None:
                    return _kill_error(inv, f"bad signal '{name}'" if name else "-s: argument expected")
                signal = number
            else:
                return _kill_error(inv, f"{opt[:2]}: unknown option")
    if listing:
        return _list(inv, args)
    if not args:
        inv.err(
            "usage:\tkill [-s signame | -signum | -signame] { job | pid | pgrp } ...\n"
            "\tkill -l [exit_status ...]\n"
        )
        return 1
    status = 0
    for arg in args:
        digits = arg.removeprefix("-")
        if not (digits.isascii() and digits.isdigit()):
            status = _kill_error(inv, f"{arg}: arguments must be jobs or process IDs")
            continue
        pid = abs(int(digits))  # -PID is its process group: an app's is its own process alone
        failed = deliver(inv, pid, signal) if pid else 0  # 0 is the shell's own group: it goes on
        if failed:
            status = _kill_error(inv, f"{arg}: {os.strerror(failed)}")
    return status


def _kill_error(inv: Invocation, message: str) -> int:
    inv.err(f"{SH}: kill: {message}\n")
    return 1


def _list(inv: Invocation, args: list[str]) -> int:
    """`kill -l STATUS...`: each signal's name (an exit status over 128 names 128 less)."""
    if not args:  # mksh's table of numbers, names and descriptions is not modelled: the names
        inv.out(" ".join(SIGNAL_NAMES) + "\n")
        return 0
    for arg in args:
        if not (arg.isascii() and arg.isdigit()):
            return _kill_error(inv, f"{arg}: bad number")
        n = int(arg)
        n = n - 128 if 128 < n < 128 + NSIG else n
        inv.out((signal_name(n) if 0 < n < NSIG else str(n)) + "\n")
    return 0


@command("pgrep", "pkill")
async def pgrep(inv: Invocation) -> int:
    """toybox's `pgrep [-clfnovx] [-d DELIM] [-L SIG] [-u|-U USER,] [-P PPID,] PATTERN...` and
    `pkill [-fnovx] [-SIG|-l SIG] ...`: PATTERN is an extended regex matched in the process's
    kernel name (or its command line with -f); pkill signals what matches."""
    name = inv.argv[0]
    args = list(inv.argv[1:])
    killing = name == "pkill"
    signal = TERM if killing else 0
    values: dict[str, str] = {}
    takes = "lUuP" if killing else "dLUuP"
    operands: list[str] = []
    flags: set[str] = set()
    while args:
        arg = args.pop(0)
        if arg == "--":
            operands += args
            break
        leading = (
            signal_number(arg[1:]) if killing and arg[:1] == "-" and not operands and not flags else None
        )
        if leading is not None and len(arg) > 1:  # pkill -SIG, before anything else
            signal = leading
            continue
        if not arg.startswith("-") or arg == "-":
            operands.append(arg)
            continue
        for i, letter in enumerate(arg[1:], 1):
            if letter in takes:
                values[letter] = arg[i + 1 :] or (args.pop(0) if args else "")
                break
            if letter not in ("fnovxV" if killing else "clfnovx"):
                inv.err(f"{name}: Unknown option '{letter}' (see \"{name} --help\")\n")
                return 1
            flags.add(letter)
    if {"n", "o"} <= flags:
        inv.err(f"{name}: No '-n' with '-o' (see \"{name} --help\")\n")
        return 1
    named = values.get("L" if not killing else "l")
    if named is not None:
        number = signal_number(named)
        if number is None or number < 1:
            inv.err(f"{name}: bad -L '{named}'\n" if not killing else f"{name}: Invalid signal\n")
            return 1
        signal = number
    filters = {k: values[k].split(",") for k in "uUP" if k in values}
    if not operands and (flags & {"x", "f"} or not filters):
        inv.err(f'{name}: No PATTERN (see "{name} --help")\n')
        return 1
    try:
        patterns = [compile_regex(p) for p in operands]
        rows = [r for r in process_table(inv) if _selected(r, filters)]
        matched = [r for r in rows if _matches(r, patterns, flags) != ("v" in flags)]
    except RegexError as exc:
        inv.err(f"{name}: bad regex: {exc}\n")
        return 1
    except RegexTimeout as exc:
        inv.err(f"{name}: {exc}\n")
        return 1
    if matched and flags & {"n", "o"}:
        matched = [matched[-1] if "n" in flags else matched[0]]
    if "c" in flags:
        inv.out(f"{len(matched)}\n")
    status = 1
    for row in matched:
        status = 0
        if signal:
            failed = signal_row(inv, row, signal)
            if failed:
                inv.err(f"{name}: {signal_name(signal)}->{row[1]}: {os.strerror(failed)}\n")
                status = 1
        if "c" not in flags and (not signal or "V" in flags):
            shown = (
                f" {_command_line(row) if 'f' in flags else comm(row[3])}"
                if "l" in flags and not killing
                else ""
            )
            inv.out(f"{row[1]}{shown}{values.get('d', chr(10))}")
    if "d" in values and "c" not in flags:
        inv.out("\n")
    return status


def _command_line(row: tuple[str, int, int, str]) -> str:
    return "" if row[3].startswith("[") else row[3]


def _selected(row: tuple[str, int, int, str], filters: dict[str, list[str]]) -> bool:
    """The -u/-U (user names or uids) and -P (parent pids) filters."""
    for key, wanted in filters.items():
        if key == "P":
            if str(row[2]) not in wanted:
                return False
        elif row[0] not in wanted and str(user_id(row[0])) not in wanted:
            return False
    return True


def _matches(row: tuple[str, int, int, str], patterns: list[BoundedPattern], flags: set[str]) -> bool:
    if not patterns:
        return True
    text = _command_line(row) if "f" in flags else comm(row[3])
    for pattern in patterns:
        hit = pattern.search(text)
        if hit is not None and ("x" not in flags or (hit.start() == 0 and hit.end() == len(text))):
            return True
    return False


@command("killall")
async def killall(inv: Invocation) -> int:
    """toybox's `killall [-l] [-qv] [-SIG|-s SIG] NAME...`: every process named NAME (its command's
    name, or the kernel's) gets the signal; a NAME that matched none is reported."""
    args = list(inv.argv[1:])
    flags: set[str] = set()
    names: list[str] = []
    given: str | None = None
    while args:
        arg = args.pop(0)
        if arg == "-s" or (arg.startswith("-s") and given is None and not names):
            given = arg[2:] or (args.pop(0) if args else "")
        elif arg.startswith("-") and len(arg) > 1 and set(arg[1:]) <= set("lqvi"):
            flags |= set(arg[1:])
        else:
            names.append(arg)
    signal = TERM
    if given is None and names and names[0].startswith("-") and names[0] != "-":
        given, names = names[0][1:], names[1:]
    if given is not None:
        number = signal_number(given)
        if number is None:
            if "q" not in flags:
                inv.err("killall: Invalid signal\n")
            return 1
        signal = number
    if "l" in flags:
        cells = [f"{n:2d}) SIG{name:<9}" for n, name in enumerate(SIGNAL_NAMES, 1)]
        inv.out("".join(cell + ("\n" if i % 5 == 4 else "") for i, cell in enumerate(cells)) + "\n")
        return 0
    if not names:
        inv.err('killall: no name (see "killall --help")\n')
        return 1
    status = 0
    for wanted in names:
        result = errno.ESRCH  # the last kill's errno, as toybox keeps it
        for row in process_table(inv):
            if wanted in (row[3], comm(row[3])):
                result = signal_row(inv, row, signal)
                if result and "q" not in flags:
                    inv.err(f"killall: pid {row[1]}: {os.strerror(result)}\n")
                elif not result and "v" in flags:
                    inv.out(f"Killed {wanted}({row[1]}) with signal {signal}\n")
        if result:
            status = 1
            if "q" not in flags:
                inv.err(f"killall: {wanted}: {os.strerror(result)}\n")
    return status
