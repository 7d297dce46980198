"""The shell's builtins as mksh runs them: cd, exit, return, export, typeset, let, print, whence,
command, trap, shift, set, read, getopts, sh, eval, exec, `.`, break and continue."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mgfarm.sim.io import ShellIO
from mgfarm.sim.shell import basic
from mgfarm.sim.shell.control import (
    MAX_DEPTH,
    MAX_SCRIPT,
    OPTION_LETTERS,
    OPTION_ORDER,
    SH,
    ExitShell,
    FunctionReturn,
    LoopControl,
)
from mgfarm.sim.shell.parser import RESERVED, ShellSyntaxError, parse
from mgfarm.sim.shell.registry import COMMANDS, is_number
from mgfarm.sim.shell.words import field_split, trace_quote
from mgfarm.sim.system.fs import PathEscapeError

if TYPE_CHECKING:
    from mgfarm.sim.shell.interp import Shell


async def _cd(sh: Shell, argv: list[str], io: ShellIO) -> int:
    target = argv[1] if len(argv) > 1 else sh.env.get("HOME", "/")
    path = sh.fs.normalize(target, sh.cwd, aliases=False)  # the logical path: `cd /sdcard; pwd`
    if not sh.fs.is_dir(path):
        io.stderr.write(f"{SH}: cd: {path}: No such file or directory\n")
        await io.stderr.flush()
        return 2
    try:
        sh.fs.access(path, "x")
    except OSError:
        io.stderr.write(f"{SH}: cd: {path}: Permission denied\n")
        await io.stderr.flush()
        return 2
    sh.cwd = path
    sh.env["PWD"] = path
    return 0


async def _exit(sh: Shell, argv: list[str], io: ShellIO) -> int:
    status = sh.status
    if len(argv) > 1:
        try:
            status = int(argv[1]) & 0xFF
        except ValueError:
            io.stderr.write(f"{SH}: exit: {argv[1]}: bad number\n")
            status = 2
    await io.stdout.flush()
    raise ExitShell(status)


async def _return(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`return [N]`: ends the running function with N (the last status by default)."""
    status = sh.status
    if len(argv) > 1:
        if not is_number(argv[1].removeprefix("-")):
            io.stderr.write(f"{SH}: return: {argv[1]}: bad number\n")
            status = 2
        else:
            status = int(argv[1]) & 0xFF
    raise FunctionReturn(status)


# Names mksh itself runs (`type echo`: "echo is a shell builtin"), the sim's commands among them.
MKSH_BUILTIN_NAMES = frozenset(
    {"alias", "bg", "bind", "builtin", "cat", "cd", "command", "echo", "eval", "exec", "exit", "export"}
    | {"false", "fc", "fg", "getopts", "jobs", "kill", "let", "print", "printf", "pwd", "read"}
    | {"readonly", "realpath", "rename", "return", "set", "shift", "sleep", "source", "test", "[", "trap"}
    | {"true", "type", "typeset", "local", "ulimit", "umask", "unalias", "unset", "wait", "whence"}
    | {".", ":", "break", "continue", "times"}
)
# Signal names `trap` takes, by number (`trap` lists them in this order).
SIGNALS = {"EXIT": 0, "HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "BUS": 7, "FPE": 8}
SIGNALS |= {"KILL": 9, "USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15, "ERR": 65}
MAX_READ = 16 * 1024 * 1024  # bytes one `read` takes


async def _fail(io: ShellIO, message: str, status: int = 1) -> int:
    """A builtin's error: `sh: message` on stderr, and its status."""
    io.stderr.write(f"{SH}: {message}\n")
    await io.stderr.flush()
    return status


async def _export(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`export NAME[=VALUE]...`; `export -p` lists the exported variables."""
    return await _declare(sh, [argv[0], "-x", *argv[1:]], io, local=False)


async def _readonly(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`readonly NAME[=VALUE]...`; `readonly -p` lists them."""
    return await _declare(sh, [argv[0], "-r", *argv[1:]], io, local=False)


async def _typeset(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`typeset`/`local [-irxul] [-p] [-f] NAME[=VALUE]...`: attributes, and in a function a
    variable of its own."""
    return await _declare(sh, argv, io, local=True)


def _quote_value(value: str) -> str:
    return value if value and trace_quote(value) == value else "'" + value.replace("'", "'\\''") + "'"


async def _declare(sh: Shell, argv: list[str], io: ShellIO, local: bool) -> int:
    """typeset, export and readonly: flags to set (-) or clear (+) on each NAME."""
    add: set[str] = set()
    remove: set[str] = set()
    show = functions = False
    args = argv[1:]
    while args and args[0][:1] in "-+" and len(args[0]) > 1 and args[0] != "--":
        for flag in args[0][1:]:
            if flag == "p":
                show = True
            elif flag == "f":
                functions = True
            elif flag in "iulrxtUZLR":
                (add if args[0][0] == "-" else remove).add(flag)
            else:
                return await _fail(io, f"{argv[0]}: -{flag}: unknown option", 1)
        args = args[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if functions:
        missing = [name for name in args if name not in sh.functions]
        return 1 if missing else 0
    if not args:
        _list_variables(sh, argv[0], add, io)
        return 0
    status = 0
    for arg in args:
        name, eq, value = arg.partition("=")
        if not _is_identifier(name.partition("[")[0]):
            status = await _fail(io, f"{argv[0]}: {name}: is not an identifier")
            continue
        if show:
            if name in sh.env:
                shown = "".join(f" -{f}" for f in sorted(sh.attrs.get(name, set())))
                io.stdout.write(f"typeset{shown} {name}={_quote_value(sh.env[name])}\n")
            continue
        if local and sh.frames and name not in sh.frames[-1]:
            sh.frames[-1][name] = sh.env.get(name)
            sh.attr_frames[-1][name] = set(sh.attrs[name]) if name in sh.attrs else None
            if not eq:
                sh.env.pop(name, None)  # a new local starts unset, as mksh's
        flags = sh.attrs.setdefault(name, set())
        if "r" in flags and (eq or add - flags):
            status = await _fail(io, f"{argv[0]}: read-only: {name}", 2)
            continue
        flags -= remove
        flags |= add - {"r"}
        if "u" in add:
            flags.discard("l")
        elif "l" in add:
            flags.discard("u")
        try:
            if eq:
                sh.assign(name, value)
            elif name in sh.env and add & {"i", "u", "l"}:
                sh.assign(name, sh.env[name])
        except ShellSyntaxError as exc:
            status = await _fail(io, f"{argv[0]}: {exc}")
        if "r" in add:
            flags.add("r")
        if not flags:
            sh.attrs.pop(name, None)
    return status


def _list_variables(sh: Shell, command: str, flags: set[str], io: ShellIO) -> None:
    """`export -p`, `readonly -p`, `typeset -i`...: the variables with these attributes."""
    for name in sorted(sh.env):
        have = sh.attrs.get(name, set())
        if command == "export" and "x" not in have:
            continue
        if (flags - {"x"} and not (flags - {"x"}) <= have) or (command == "readonly" and "r" not in have):
            continue
        if command in ("export", "readonly"):
            io.stdout.write(f"{command} {name}={_quote_value(sh.env[name])}\n")
        else:
            io.stdout.write(f"{name}={_quote_value(sh.env[name])}\n")


def _is_identifier(name: str) -> bool:
    return bool(name) and (name[0] == "_" or name[0].isalpha()) and all(c == "_" or c.isalnum() for c in name)


async def _unset(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`unset NAME...`, `unset -f NAME...` (functions), `unset -v` (variables, the default)."""
    names = argv[1:]
    functions = names[:1] == ["-f"]
    status = 0
    for name in names[1:] if names[:1] in (["-f"], ["-v"]) else names:
        if functions:
            sh.functions.pop(name, None)
        elif "r" in sh.attrs.get(name.partition("[")[0], set()):
            status = await _fail(io, f"read-only: {name}")
        else:
            sh.unset(name)
    return status


async def _let(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`let EXPR...`: 0 when the last value is not zero; an error gives 2."""
    if len(argv) < 2:
        return await _fail(io, "let: missing argument")
    value = 0
    for expr in argv[1:]:
        try:
            value = sh.evaluate(expr)
        except ShellSyntaxError as exc:
            return await _fail(io, str(exc), 2)
    return 0 if value else 1


async def _print(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """mksh's `print [-nrRe] [-u FD] ARGS`: escapes are read unless -r; -u2 writes on stderr."""
    args = argv[1:]
    newline, escapes, fd = True, True, 1
    while args and args[0].startswith("-") and len(args[0]) > 1:
        flags = args.pop(0)
        if flags == "--":
            break
        if flags == "-R":
            escapes = False
            if args[:1] == ["-n"]:
                newline = False
                args.pop(0)
            break
        for i, flag in enumerate(flags[1:], 1):
            if flag == "n":
                newline = False
            elif flag == "r":
                escapes = False
            elif flag == "e":
                escapes = True
            elif flag == "u":
                rest = flags[i + 1 :] or (args.pop(0) if args else "1")
                fd = int(rest) if is_number(rest) else 1
                break
            elif flag not in "sp":
                return await _fail(io, f"print: -{flag}: unknown option")
    text = " ".join(args)
    if escapes:
        text, stop = basic.unescape(text)
        newline = newline and not stop
    out = io.stderr if fd == 2 else io.stdout
    out.write(text.encode("utf-8", "surrogateescape") + (b"\n" if newline else b""))
    await out.flush()
    return 0


def _which_path(sh: Shell, name: str) -> str | None:
    """Where a command not built in is found, as `command -v` prints it."""
    if "/" in name:
        return name if sh.fs.exists(name, sh.cwd) else None
    if name in COMMANDS:
        return f"/system/bin/{name}"
    return None


def _describe(sh: Shell, name: str, verbose: bool) -> str | None:
    """What `whence [-v]` says of NAME; None when it is not found."""
    if name in RESERVED:
        return f"{name} is a reserved word" if verbose else name
    if name in sh.functions:
        return f"{name} is a function" if verbose else name
    if name in MKSH_BUILTIN_NAMES or (name in BUILTINS and "/" not in name):
        return f"{name} is a shell builtin" if verbose else name
    path = _which_path(sh, name)
    if path is None:
        return None
    if not verbose:
        return path
    return f"{name} is {path}" if "/" in name else f"{name} is a tracked alias for {path}"


async def _whence(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`whence [-v] NAME...`, `type NAME...` (whence -v): how each NAME would run."""
    args = argv[1:]
    verbose = argv[0] == "type"
    while args and args[0].startswith("-") and len(args[0]) > 1:
        verbose = verbose or "v" in args[0]
        args = args[1:]
    status = 0
    for name in args:
        text = _describe(sh, name, verbose)
        if text is None:
            status = 1
            if not verbose:
                break  # as mksh's whence: the first name not found ends the list
            io.stdout.write(f"{name} not found\n")
            continue
        io.stdout.write(text + "\n")
    return status


async def _command(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`command -v NAME` prints where NAME comes from (-V in words); `command NAME ...` runs it,
    skipping functions."""
    if len(argv) > 1 and argv[1] in ("-v", "-V"):
        if argv[1] == "-V":
            return await _whence(sh, ["type", *argv[2:]], io)
        return await _whence(sh, ["whence", *argv[2:]], io)
    args = argv[1:]
    if args[:1] == ["-p"]:
        args = args[1:]
    if not args:
        return 0
    saved = sh.functions
    sh.functions = {}
    try:
        return await sh.call(args, io)
    finally:
        sh.functions = saved


def _signal_name(text: str) -> str | None:
    name = text.upper().removeprefix("SIG")
    if is_number(name):
        return next((key for key, num in SIGNALS.items() if num == int(name)), None)
    return name if name in SIGNALS else None


async def _trap(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`trap CMD SIGNAL...` (EXIT runs when the shell ends, ERR after a failing command; the
    others are kept, as nothing here sends signals); `trap - SIGNAL` resets; `trap` lists."""
    args = argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args or args == ["-p"]:
        for name in sorted(sh.traps, key=lambda key: SIGNALS[key]):
            io.stdout.write(
                f"trap -- {_quote_value(sh.traps[name]) if sh.traps[name] else repr('')} {name}\n"
            )
        return 0
    action, signals = args[0], args[1:]
    if _signal_name(action) is not None and not signals:
        action, signals = "-", args
    status = 0
    for text in signals:
        found = _signal_name(text)
        if found is None:
            status = await _fail(io, f"trap: bad signal '{text}'")
            continue
        if action == "-":
            sh.traps.pop(found, None)
        else:
            sh.traps[found] = action
    return status


async def _shift(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`shift [N]`: drops the first N positional parameters; too few ends the shell (a special
    builtin's error)."""
    count = 1
    if len(argv) > 1:
        try:
            count = sh.evaluate(argv[1])
        except ShellSyntaxError as exc:
            raise ShellSyntaxError(f"shift: {exc}") from exc
    params = sh.args[1:]
    if count < 0:
        raise ShellSyntaxError(f"shift: {count}: bad number")
    if count > len(params):
        raise ShellSyntaxError("shift: nothing to shift")
    sh.args = [sh.args[0] if sh.args else SH, *params[count:]]
    return 0


async def _set(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`set [-+euxfaCv] [-o NAME] [-A NAME] [--] [ARGS]`: options, an array, or the positional
    parameters."""
    args = argv[1:]
    params: list[str] | None = None
    array: str | None = None
    while args:
        arg = args.pop(0)
        if arg in ("--", "-"):
            params = args
            break
        if arg[:1] not in "-+" or len(arg) < 2:
            params = [arg, *args]
            break
        on = arg[0] == "-"
        for i, flag in enumerate(arg[1:], 1):
            if flag == "o":
                name = arg[i + 1 :] or (args.pop(0) if args else "")
                if not name:
                    return 0  # `set -o` lists the options: not modelled
                letter = OPTION_LETTERS.get(name)
                if letter is None:
                    raise ShellSyntaxError(f"set: {name}: bad option")
                (sh.options.add if on else sh.options.discard)(letter)
                break
            if flag == "A":
                array = arg[i + 1 :] or (args.pop(0) if args else "")
                break
            if flag not in "aCefuvxhmnbkp":
                raise ShellSyntaxError(f"set: {arg[0]}{flag}: unknown option")
            if flag in OPTION_ORDER:
                (sh.options.add if on else sh.options.discard)(flag)
    if array is not None:
        sh.assign_array(array, params if params is not None else args)
        return 0
    if params is not None:
        sh.args = [sh.args[0] if sh.args else SH, *params]
    return 0


async def _read_record(io: ShellIO, delimiter: str, count: int, raw: bool) -> tuple[str, bool]:
    """Input up to the delimiter (or `count` characters): (text, whether the delimiter or the
    count ended it before the input did). Without -r a backslash quotes the next character and
    a backslash-newline goes on to the next line."""
    data = bytearray()
    ended = False
    while len(data) < MAX_READ:
        byte = await io.stdin.read(1)
        if not byte:
            break
        if not raw and byte == b"\\":
            nxt = await io.stdin.read(1)
            if nxt == b"\n" or not nxt:
                continue
            data += b"\\" + nxt  # kept escaped until the split: `\ ` does not split
            continue
        if delimiter and byte == delimiter.encode()[:1]:
            ended = True
            break
        data += byte
        if count and len(data) >= count:
            ended = True
            break
    return data.decode("utf-8", "surrogateescape"), ended


def _read_split(text: str, names: int, ifs: str, raw: bool) -> list[str]:
    """A line over `names` variables: IFS splits it, the last takes the rest (outer IFS white
    space removed); escaped characters never split."""
    if names <= 1:
        value = text.strip(" \t\n" if ifs == " \t\n" else "".join(c for c in ifs if c in " \t\n"))
        return [value if raw else re.sub(r"\\(.)", r"\1", value)]
    white = "".join(c for c in ifs if c in " \t\n")
    text = text.lstrip(white)
    fields: list[str] = []
    i = 0
    cur: list[str] = []
    while i < len(text) and len(fields) < names - 1:
        c = text[i]
        if c == "\\" and not raw and i + 1 < len(text):
            cur.append(text[i + 1])
            i += 2
            continue
        if c in ifs:
            fields.append("".join(cur))
            cur = []
            while i < len(text) and text[i] in white:
                i += 1
            if i < len(text) and text[i] in ifs and text[i] not in white:
                i += 1
                while i < len(text) and text[i] in white:
                    i += 1
            continue
        cur.append(c)
        i += 1
    rest = "".join(cur) + text[i:]
    rest = rest.rstrip(white)
    fields.append(rest if raw else re.sub(r"\\(.)", r"\1", rest))
    return fields


async def _read(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`read [-r] [-A NAME] [-d DELIM] [-n N] [-t SECONDS] [NAME[?PROMPT]...]`: one line of
    stdin split at IFS over the names (REPLY by default); 1 at end of input."""
    args = argv[1:]
    raw, array, delimiter, count = False, "", "\n", 0
    while args and args[0].startswith("-") and len(args[0]) > 1:
        flags = args.pop(0)
        if flags == "--":
            break
        for i, flag in enumerate(flags[1:], 1):
            if flag in "rs":
                raw = raw or flag == "r"
                continue
            if flag not in "AadnNtu":
                return await _fail(io, f"read: -{flag}: unknown option", 2)
            value = flags[i + 1 :] or (args.pop(0) if args else "")
            if flag in "Aa":
                array = value
            elif flag == "d":
                delimiter = value[:1]
            elif flag in "nN":
                count = int(value) if is_number(value) else 0
            break
    names = args or ([] if array else ["REPLY"])
    if names and "?" in names[0]:
        names[0], prompt = names[0].split("?", 1)
        io.stderr.write(prompt)
        await io.stderr.flush()
    text, ended = await _read_record(io, delimiter, count, raw)
    ifs = sh.ifs()
    if array:
        values, _, _ = field_split(text, ifs)
        sh.assign_array(array, values)
    elif names == ["REPLY"] and not args:
        sh.assign("REPLY", text if raw else re.sub(r"\\(.)", r"\1", text))
    else:
        values = _read_split(text, len(names), ifs, raw)
        for i, name in enumerate(names):
            sh.assign(name, values[i] if i < len(values) else "")
    return 0 if ended else 1


async def _getopts(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`getopts OPTSTRING NAME [ARGS]`: the next option in NAME, its argument in OPTARG; OPTIND is
    the index of the next argument (mksh moves it on at an option grouped in `-ab` too); 1 when
    the options end."""
    if len(argv) < 3:
        return await _fail(io, "getopts: missing argument", 1)
    spec, name = argv[1], argv[2]
    args = argv[3:] if len(argv) > 3 else sh.args[1:]
    silent = spec.startswith(":")
    optind_text = sh.env.get("OPTIND", "1")
    optind = int(optind_text) if is_number(optind_text) and int(optind_text) > 0 else 1
    at, pos = sh.getopts_at
    index = optind - 2 if at == optind and pos > 0 else optind - 1  # the word being read
    pos = pos if at == optind and pos > 0 else 1
    sh.env.pop("OPTARG", None)
    word = args[index] if index < len(args) else ""
    if pos == 1 and (not word.startswith("-") or word in ("-", "--")):
        sh.env["OPTIND"] = str(index + 2 if word == "--" else index + 1)
        sh.getopts_at = (0, 0)
        sh.assign(name, "?")
        return 1
    letter = word[pos]
    rest = word[pos + 1 :]
    next_index, next_pos = (index + 1, pos + 1) if rest else (index + 1, 0)
    found = spec.find(letter, 1 if silent else 0)
    if letter == ":" or found < 0:
        sh.assign(name, "?")
        if silent:
            sh.env["OPTARG"] = letter
        else:
            await _fail(io, f"getopts: -{letter}: unknown option", 0)
    elif spec[found + 1 : found + 2] != ":":
        sh.assign(name, letter)
    elif rest or index + 1 < len(args):
        sh.env["OPTARG"] = rest or args[index + 1]
        next_index, next_pos = (next_index if rest else next_index + 1), 0
        sh.assign(name, letter)
    else:  # its argument is missing
        sh.assign(name, ":" if silent else "?")
        if silent:
            sh.env["OPTARG"] = letter
        else:
            await _fail(io, f"-{letter}: requires an argument", 0)
    sh.env["OPTIND"] = str(next_index + 1)
    sh.getopts_at = (next_index + 1, next_pos)
    return 0


async def run_script(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`sh -c 'cmd' [arg0 args...]`, `sh FILE`, or `sh` reading commands from stdin."""
    if sh.depth >= MAX_DEPTH:
        io.stderr.write(f"{SH}: too deeply nested\n")
        return 2
    sub = sh.child()
    sub.functions = {}  # a new process: functions are not inherited
    args = argv[1:]
    if args and args[0] == "-c":
        if len(args) < 2:
            io.stderr.write(f"{SH}: -c: option requires an argument\n")
            await io.stderr.flush()
            return 2
        sub.args = args[2:] if len(args) > 2 else [SH]
        return await sub.run_text(args[1], io)
    if args:
        try:
            text = sh.fs.read_bytes(args[0], sh.cwd, MAX_SCRIPT).decode(errors="replace")
        except (OSError, PathEscapeError):
            io.stderr.write(f"{SH}: {args[0]}: No such file or directory\n")
            await io.stderr.flush()
            return 127
        sub.args = args
        return await sub.run_text(text, io)
    text = (await io.stdin.read()).decode(errors="replace")
    return await sub.run_text(text, io)


async def _eval(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`eval ARGS`: runs in this shell; nesting counts toward MAX_DEPTH like `sh -c`."""
    if sh.depth >= MAX_DEPTH:
        io.stderr.write(f"{SH}: eval: too deeply nested\n")
        return 2
    sh.depth += 1
    try:
        return await sh.run_text(" ".join(argv[1:]), io)
    finally:
        sh.depth -= 1


async def _true(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`:` and the builtins whose effects are not modelled (set, trap, umask, wait)."""
    return 0


async def _exec(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`exec CMD ...` runs CMD and then ends the shell with its status."""
    if len(argv) < 2:
        return 0
    raise ExitShell(await sh.call(argv[1:], io))


async def _source(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`. FILE` / `source FILE`: runs FILE in this shell, so its variables and cd stay."""
    if len(argv) < 2:
        io.stderr.write(f"{SH}: {argv[0]}: filename argument required\n")
        return 2
    if sh.depth >= MAX_DEPTH:
        io.stderr.write(f"{SH}: {argv[0]}: too deeply nested\n")
        return 2
    try:
        text = sh.fs.read_bytes(argv[1], sh.cwd, MAX_SCRIPT).decode(errors="replace")
    except (OSError, PathEscapeError):
        io.stderr.write(f"{SH}: {argv[1]}: not found\n")
        return 1
    sh.depth += 1
    try:
        script = parse(text)
    except ShellSyntaxError as exc:
        io.stderr.write(f"{SH}: syntax error: {exc}\n")
        sh.depth -= 1
        return 2
    try:
        return await sh.run_script(script, io)
    except FunctionReturn as done:  # `return` in a dot script ends the script
        sh.status = done.status
        return done.status
    finally:
        sh.depth -= 1


async def _loop_control(sh: Shell, argv: list[str], io: ShellIO) -> int:
    levels = int(argv[1]) if len(argv) > 1 and is_number(argv[1]) and int(argv[1]) > 0 else 1
    raise LoopControl(argv[0], levels)


BUILTINS = {
    "cd": _cd,
    "exit": _exit,
    "export": _export,
    "readonly": _readonly,
    "unset": _unset,
    "sh": run_script,
    "/system/bin/sh": run_script,
    "eval": _eval,
    ":": _true,
    "set": _set,
    "shift": _shift,
    "return": _return,
    "local": _typeset,
    "typeset": _typeset,
    "let": _let,
    "print": _print,
    "whence": _whence,
    "type": _whence,
    "getopts": _getopts,
    "trap": _trap,
    "umask": _true,
    "wait": _true,
    "exec": _exec,
    "command": _command,
    ".": _source,
    "source": _source,
    "read": _read,
    "break": _loop_control,
    "continue": _loop_control,
}
