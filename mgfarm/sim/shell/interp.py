"""Running a parsed command line: expansion, redirections, pipelines, builtins and exit statuses."""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import logging
import os
import posixpath
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mgfarm.sim.io import ByteSink, ByteSource, ShellIO, Writer
from mgfarm.sim.shell import patterns
from mgfarm.sim.shell.arith import ArithError, evaluate
from mgfarm.sim.shell.effects import marks_changed
from mgfarm.sim.shell.exec_limits import MKSH_BUILTINS
from mgfarm.sim.shell.exec_limits import too_long as exec_too_long
from mgfarm.sim.shell.parser import (
    LENGTH_RE,
    PARAM_RE,
    REPLACE_RE,
    SLICE_RE,
    TRIM_RE,
    AndOr,
    Case,
    Command,
    For,
    FuncDef,
    Group,
    If,
    Pipeline,
    Redirect,
    Script,
    ShellSyntaxError,
    Simple,
    Subshell,
    While,
    Word,
    parse,
    parse_word_text,
)
from mgfarm.sim.shell.registry import COMMANDS, Invocation, is_number
from mgfarm.sim.system.fs import ROOT, SHELL, DeviceFS, PathEscapeError
from mgfarm.sim.system.procfs import SHELL_PID

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

log = logging.getLogger(__name__)

SH = "/system/bin/sh"
# Where a bare command name is looked up; `/system/bin/ls` runs the same command as `ls`.
BIN_DIRS = ("/system/bin", "/system/xbin", "/vendor/bin", "/bin", "/usr/bin", "/sbin", "/product/bin")
# Bytes a pipeline stage may produce before it is ended (as SIGPIPE would): stages run one after
# another, so an endless writer (`yes | head`) is cut here, and memory stays bounded.
PIPE_LIMIT = 16 * 1024 * 1024
SIGPIPE_STATUS = 141  # 128 + SIGPIPE, what a shell reports for a writer killed by a closed pipe
MAX_DEPTH = 32  # nested `sh -c` / `$(...)`; real shells fork, we recurse
MAX_WORD = 16 * 1024 * 1024  # characters one expanded word may hold (`x=$x$x` in a loop doubles it)
MAX_SCRIPT = 16 * 1024 * 1024  # bytes of a script file `sh FILE` or `. FILE` reads
MAX_CALLS = 64  # functions calling functions (mksh: until its stack ends); within Python's recursion limit
# mksh's special builtins, found before a function of the same name (the other builtins after it).
SPECIAL_BUILTINS = frozenset(
    {"break", ":", "continue", ".", "eval", "exec", "exit", "export", "readonly", "return", "set", "shift"}
    | {"times", "trap", "unset"}
)

DEFAULT_ENV = {
    "PATH": "/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:/system_ext/bin:"
    "/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin",
    "HOME": "/",
    "SHELL": SH,
    "USER": "root",
    "LOGNAME": "root",
    "HOSTNAME": "localhost",
    "TMPDIR": "/data/local/tmp",
    "ANDROID_DATA": "/data",
    "ANDROID_ROOT": "/system",
    "ANDROID_STORAGE": "/storage",
    "EXTERNAL_STORAGE": "/sdcard",
    "ANDROID_ASSETS": "/system/app",
}


class LoopControl(Exception):
    """`break N` / `continue N` unwinding to the N-th enclosing loop."""

    def __init__(self, kind: str, levels: int) -> None:
        super().__init__(kind)
        self.kind = kind
        self.levels = levels


class PipeClosed(Exception):
    """A pipeline stage wrote more than a pipe holds: it ends, as SIGPIPE would end it."""


class PipeSink(ByteSink):
    """The write end of a pipe between stages (or of `$(...)`). Stages run one after another, so
    the reader cannot stop a writer that never ends; a cap stands in for the reader closing."""

    def __init__(self) -> None:
        super().__init__()
        self.limit = PIPE_LIMIT
        self.size = 0
        self.broken = False

    def write(self, data: bytes | str) -> None:
        if self.broken:
            raise BrokenPipeError(32, "Broken pipe")
        self.size += len(data)
        if self.size > self.limit:
            self.broken = True
            raise BrokenPipeError(32, "Broken pipe")
        super().write(data)


class FunctionReturn(Exception):
    """`return N`: ends the running function or `.` script (outside both it ends the shell)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class ExitShell(Exception):
    """`exit N`: stops the current shell (not its parent)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


@dataclass
class Shell:
    """One shell's state: variables, working directory and the last status."""

    device: SimDevice
    env: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_ENV))
    cwd: str = "/"
    status: int = 0
    depth: int = 0
    args: list[str] = field(default_factory=list)
    subst_status: int = 0  # status of the last `$(...)`, for assignment-only commands
    uid: int = -1  # who the commands run as; by default adbd's (`adb root`/`unroot`)
    functions: dict[str, Command] = field(default_factory=dict)
    # Each running function's `local` names, with the values they had before (None: unset).
    frames: list[dict[str, str | None]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.uid < 0:
            self.uid = ROOT if self.device.root_adbd else SHELL

    @property
    def fs(self) -> DeviceFS:
        """The device's files as this shell's uid may reach them."""
        return self.device.fs.as_user(self.uid)

    def child(self) -> Shell:
        """A subshell: a copy whose changes do not leak back."""
        return Shell(
            self.device,
            dict(self.env),
            self.cwd,
            self.status,
            self.depth + 1,
            list(self.args),
            uid=self.uid,
            functions=dict(self.functions),
        )

    async def run_text(self, text: str, io: ShellIO) -> int:
        """Parse and run `text`; a syntax error prints mksh's message and returns 2."""
        status, _ = await self.run_session_text(text, io)
        return status

    async def run_session_text(self, text: str, io: ShellIO) -> tuple[int, bool]:
        """Like run_text, and also tells whether `text` ran `exit` (ending an interactive session)."""
        try:
            script = parse(text)
        except ShellSyntaxError as exc:
            io.stderr.write(f"{SH}: syntax error: {exc}\n")
            await io.stderr.flush()
            self.status = 2
            return 2, False
        try:
            return await self.run_script(script, io), False
        except (ExitShell, FunctionReturn) as done:  # mksh's `return` outside a function exits
            self.status = done.status
            return done.status, True
        except LoopControl:
            return self.status, False  # `break` outside a loop: mksh ignores it
        except ShellSyntaxError as exc:  # an expansion error (bad arithmetic) aborts the script
            io.stderr.write(f"{SH}: {exc}\n")
            await io.stderr.flush()
            self.status = 1
            return 1, False
        except RecursionError:  # nesting within the limits, many times over (sh -c inside sh -c ...)
            io.stderr.write(f"{SH}: too deeply nested\n")
            await io.stderr.flush()
            self.status = 2
            return 2, False

    async def run_script(self, script: Script, io: ShellIO) -> int:
        for item in script.items:
            await self.run_and_or(item, io)
        return self.status

    async def run_and_or(self, node: AndOr, io: ShellIO) -> int:
        status = await self.run_pipeline(node.first, io)
        for op, pipeline in node.rest:
            if (op == "&&") == (status == 0):
                status = await self.run_pipeline(pipeline, io)
        return status

    async def run_pipeline(self, node: Pipeline, io: ShellIO) -> int:
        # Stages run one after another, each reading the previous one's whole output: enough for
        # `cat f | grep x | wc -l`, and no commands here produce endless output.
        stdin = io.stdin
        status = 0
        for i, cmd in enumerate(node.commands):
            last = i == len(node.commands) - 1
            out = io.stdout if last else PipeSink()
            try:
                status = await self.run_command(cmd, ShellIO(stdin, out, io.stderr))
            except PipeClosed:
                if last:
                    raise
                status = SIGPIPE_STATUS
            if not last:
                await out.flush()
                stdin = ByteSource.from_bytes(bytes(out.collected))
        if node.negate:
            status = 0 if status else 1
        self.status = status
        return status

    async def run_command(self, cmd: Command, io: ShellIO) -> int:
        if isinstance(cmd, Simple):
            return await self.run_simple(cmd, io)
        if isinstance(cmd, FuncDef):
            self.functions[cmd.name] = cmd.body
            return 0
        if isinstance(cmd, Subshell):
            sub = self.child()
            redirected = await self._redirect(cmd.redirects, io)
            if redirected is None:
                return 1
            try:
                status = await sub.run_script(cmd.body, redirected.io)
            except (ExitShell, FunctionReturn) as done:
                status = done.status
            except LoopControl:
                status = sub.status
            finally:
                await redirected.finish()
            return status
        redirected = await self._redirect(cmd.redirects, io)
        if redirected is None:
            return 1
        try:
            return await self.run_compound(cmd, redirected.io)
        finally:
            await redirected.finish()

    async def run_compound(self, cmd: Group | If | While | For | Case, io: ShellIO) -> int:
        if isinstance(cmd, Group):
            return await self.run_script(cmd.body, io)
        if isinstance(cmd, Case):
            return await self.run_case(cmd, io)
        if isinstance(cmd, If):
            for condition, body in cmd.branches:
                if await self.run_script(condition, io) == 0:
                    return await self.run_script(body, io)
            if cmd.otherwise is not None:
                return await self.run_script(cmd.otherwise, io)
            self.status = 0
            return 0
        if isinstance(cmd, While):
            return await self.run_loop(cmd, io)
        values: list[str] = []
        if cmd.words is None:
            values = self.args[1:]
        else:
            for word in cmd.words:
                values.extend(await self.expand(word, io))
        return await self.run_loop(cmd, io, values)

    async def run_case(self, cmd: Case, io: ShellIO) -> int:
        """The first item with a pattern matching the word runs; 0 when none does."""
        value = "".join(await self.expand(cmd.word, io, split=False))
        for pattern_words, body in cmd.items:
            for word in pattern_words:
                if await patterns.matches(value, await self.pattern(word, io)):
                    self.status = 0
                    return await self.run_script(body, io)
        self.status = 0
        return 0

    async def pattern(self, word: Word, io: ShellIO) -> str:
        """A word as a pattern: what was quoted matches itself, the rest keeps `* ? [`."""
        out: list[str] = []
        for kind, text in word.parts:
            if kind == "raw":
                out.append(text)
            elif kind == "lit":
                out.append(patterns.quote(text))
            else:
                value = "".join(await self.expand(Word([(kind, text)]), io, split=False))
                out.append(patterns.quote(value) if kind.startswith("q") else value)
        return "".join(out)

    async def run_function(self, body: Command, argv: list[str], io: ShellIO) -> int:
        """A function call: its arguments are the positional parameters while it runs."""
        if len(self.frames) >= MAX_CALLS:
            raise ShellSyntaxError(f"{argv[0]}: too deeply nested")
        saved = self.args
        self.args = [self.args[0] if self.args else SH, *argv[1:]]
        self.frames.append({})
        try:
            return await self.run_command(body, io)
        except FunctionReturn as done:
            self.status = done.status
            return done.status
        finally:
            self.args = saved
            self._restore(self.frames.pop())

    def _restore(self, values: dict[str, str | None]) -> None:
        """Put variables back as they were (None: unset)."""
        for name, value in values.items():
            if value is None:
                self.env.pop(name, None)
            else:
                self.env[name] = value

    async def run_loop(self, cmd: While | For, io: ShellIO, values: list[str] | None = None) -> int:
        """A while/until or for loop; yields to the event loop each turn so that a busy loop on one
        device cannot stall the other devices served by the same process."""
        status = 0
        items = iter(values or [])
        while True:
            await asyncio.sleep(0)
            if isinstance(cmd, While):
                if (await self.run_script(cmd.condition, io) == 0) == cmd.until:
                    break
            else:
                value = next(items, None)
                if value is None:
                    break
                self.env[cmd.name] = value
            try:
                status = await self.run_script(cmd.body, io)
            except LoopControl as ctl:
                if ctl.levels > 1:
                    ctl.levels -= 1
                    raise
                if ctl.kind == "break":
                    break
        self.status = status
        return status

    async def run_simple(self, cmd: Simple, io: ShellIO) -> int:
        self.subst_status = 0  # `x=$(false)` leaves the substitution's status; plain `x=1` leaves 0
        # An expansion error (`$((1/0))`, `${X:?}`) raises ShellSyntaxError: like mksh, that ends the
        # whole command line (run_session_text reports it).
        argv: list[str] = []
        for word in cmd.words:
            argv.extend(await self.expand(word, io))
        assigns = {name: "".join(await self.expand(value, io, split=False)) for name, value in cmd.assigns}
        if not argv:
            self.env.update(assigns)
            return self.subst_status
        redirected = await self._redirect(cmd.redirects, io)
        if redirected is None:
            return 1
        try:
            status = await self.call(argv, redirected.io, assigns)
        finally:
            await redirected.finish()
            if redirected.files:
                self.device.changed()  # a written file may be on screen (the Files app)
        return status

    async def call(self, argv: list[str], io: ShellIO, assigns: dict[str, str] | None = None) -> int:
        """Run one command (builtin or registered) with already expanded arguments."""
        try:
            status = await self._call(argv, io, assigns)
        except BrokenPipeError:
            status = SIGPIPE_STATUS
        except OSError as exc:  # writing its output to a file failed: the device's space is full
            io.stderr.write(f"{argv[0]}: write error: {self.fs.os_error(exc)}\n")
            with contextlib.suppress(OSError):
                await io.stderr.flush()
            status = 1
        if isinstance(io.stdout, PipeSink) and io.stdout.broken:
            raise PipeClosed  # the reader is gone: like SIGPIPE, end the whole pipeline stage
        return status

    async def _call(self, argv: list[str], io: ShellIO, assigns: dict[str, str] | None) -> int:
        name = argv[0]
        function = self.functions.get(name) if name not in SPECIAL_BUILTINS else None
        if function is not None:
            prior = {k: self.env.get(k) for k in assigns or {}}
            self.env.update(assigns or {})  # `X=1 f`: for the call only
            try:
                return await self.run_function(function, argv, io)
            finally:
                self._restore(prior)
        builtin = BUILTINS.get(name)
        if builtin is not None:
            if not assigns:
                return await builtin(self, argv, io)
            # `FOO=1 sh -c ...`: the assignment holds for this builtin only.
            saved = dict(self.env)
            self.env.update(assigns)
            try:
                return await builtin(self, argv, io)
            finally:
                self.env = saved
        fn = COMMANDS.get(_command_name(name))
        if fn is None and "/" in name and self._is_script(name):
            return await _sh(self, ["sh", *argv], io)  # `#!/system/bin/sh` scripts run as on a device
        if fn is None:
            io.stderr.write(f"{SH}: {name}: inaccessible or not found\n")
            await io.stderr.flush()
            return 127
        env = dict(self.env)
        env.update(assigns or {})
        # The environment is left out: the sim's shell does not tell exported variables from others.
        if _command_name(name) not in MKSH_BUILTINS and exec_too_long(argv):
            io.stderr.write(f"{SH}: {name}: Argument list too long\n")  # exec's E2BIG, as mksh reports it
            await io.stderr.flush()
            return 126
        inv = Invocation(self.device, [_command_name(name), *argv[1:]], io, env, self.cwd, self.uid)
        try:
            status = await fn(inv)
        except BrokenPipeError:
            status = SIGPIPE_STATUS
        except PathEscapeError:
            io.stderr.write(f"{name}: Permission denied\n")
            status = 1
        except OSError as exc:
            io.stderr.write(f"{name}: {self.fs.os_error(exc)}\n")
            status = 1
        except (ValueError, LookupError, TypeError, ArithmeticError) as exc:
            # An odd argument the command did not check: report it like a tool would.
            io.stderr.write(f"{name}: {exc}\n")
            status = 1
        except Exception as exc:
            # A bug in a command or a service must end this command, not the device's session.
            log.exception("shell command %r failed", argv)
            io.stderr.write(f"{name}: internal error: {exc.__class__.__name__}: {exc}\n")
            status = 1
        finally:
            if marks_changed(inv.argv):
                self.device.changed()
        await io.stdout.flush()
        await io.stderr.flush()
        return status

    def _is_script(self, path: str) -> bool:
        try:
            fd = self.fs.open(path, os.O_RDONLY | os.O_NONBLOCK, self.cwd)
        except (OSError, PathEscapeError):
            return False
        try:
            first = os.read(fd, 256).split(b"\n", 1)[0]
        except OSError:
            return False
        finally:
            os.close(fd)
        return first.startswith(b"#!") and first.rstrip().endswith((b"/sh", b"/bash", b"/mksh"))

    async def expand(self, word: Word, io: ShellIO, split: bool = True) -> list[str]:
        """Fields of one word after variable, command and glob expansion."""
        fields: list[str] = []
        cur: list[str] = []
        has_text = False  # quoted empty strings still make a field
        glob = False
        for kind, text in word.parts:
            if kind in ("lit", "raw"):
                cur.append(text)
                has_text = True
                glob = glob or (kind == "raw" and any(c in text for c in "*?["))
                continue
            if kind == "qvar" and text == "@":
                # "$@": one field per argument, glued to the text around it at both ends.
                params = self.args[1:]
                if params:
                    cur.append(params[0])
                    for arg in params[1:]:
                        fields.append("".join(cur))
                        cur = [arg]
                    has_text = True
                continue
            if kind in ("var", "qvar"):
                value = self.variable(text)
            elif kind in ("param", "qparam"):
                value = await self.parameter(text, io)
            elif kind in ("arith", "qarith"):
                value = str(await self.arithmetic(text, io))
            else:
                value = await self.substitute(text, io)
            if kind in ("qvar", "qcmd", "qarith", "qparam") or not split:
                cur.append(value)
                has_text = True
                continue
            pieces = value.split()
            if not pieces:
                continue
            if value[:1].isspace() and (cur or has_text):
                fields.append("".join(cur))
                cur = []
            cur.append(pieces[0])
            has_text = True
            for piece in pieces[1:]:
                fields.append("".join(cur))
                cur = [piece]
            if value[-1:].isspace():
                fields.append("".join(cur))
                cur, has_text = [], False
        if cur or has_text:
            fields.append("".join(cur))
        if sum(map(len, fields)) > MAX_WORD:
            raise ShellSyntaxError("word too long (more than 16 MiB)")
        if glob and split and len(fields) == 1:
            return self.glob(fields[0]) or fields
        return fields

    def variable(self, name: str) -> str:
        if name == "?":
            return str(self.status)
        if name == "$":
            return str(SHELL_PID)
        if name == "#":
            return str(max(len(self.args) - 1, 0))
        if name in ("@", "*"):
            return " ".join(self.args[1:])
        if is_number(name):
            idx = int(name)
            return self.args[idx] if idx < len(self.args) else (SH if idx == 0 else "")
        if name in ("!", "-"):
            return ""
        return self.env.get(name, "")

    async def parameter(self, body: str, io: ShellIO) -> str:
        """`${#NAME}`, `${NAME:-word}`, `${NAME-word}`, `:=`, `:+`, `:?` as POSIX defines them; and
        mksh's `${NAME#pat}` (## % %%), `${NAME/pat/string}` (//) and `${NAME:offset:length}`."""
        length = LENGTH_RE.fullmatch(body)
        if length:
            return str(len(self.variable(length.group(1))))
        m = PARAM_RE.fullmatch(body)
        if m is None:
            return await self.edited(body, io)
        name, op, word = m.groups()
        value = self.variable(name)
        is_set = name in self.env or not name.isidentifier()
        missing = not is_set or (op.startswith(":") and value == "")
        if op.endswith("+"):
            return "" if missing else "".join(await self.expand(parse_word_text(word), io, split=False))
        if not missing:
            return value
        text = "".join(await self.expand(parse_word_text(word), io, split=False))
        if op.endswith("="):
            self.env[name] = text
        elif op.endswith("?"):
            raise ShellSyntaxError(f"{name}: {text or 'parameter null or not set'}")
        return text

    async def edited(self, body: str, io: ShellIO) -> str:
        """A variable's value trimmed, replaced in or sliced (`parameter`'s mksh forms)."""
        if m := TRIM_RE.fullmatch(body):
            name, op, pattern = m.groups()
            return await patterns.trim(self.variable(name), await self.pattern_text(pattern, io), op)
        if m := REPLACE_RE.fullmatch(body):
            name, op, pattern, replacement = m.groups()
            text = "".join(await self.expand(parse_word_text(replacement or ""), io, split=False))
            return await patterns.replace(
                self.variable(name), await self.pattern_text(pattern, io), text, op == "//"
            )
        if m := SLICE_RE.fullmatch(body):
            name, rest = m.groups()
            value = self.variable(name)
            offset_text, has_length, length_text = rest.partition(":")
            offset = await self.arithmetic(offset_text or "0", io)
            start = max(0, len(value) + offset) if offset < 0 else min(offset, len(value))
            if not has_length:
                return value[start:]
            count = await self.arithmetic(length_text or "0", io)
            end = max(start, len(value) + count) if count < 0 else start + count
            return value[start:end]
        raise ShellSyntaxError(f"${{{body}}}: bad substitution")

    async def pattern_text(self, text: str, io: ShellIO) -> str:
        """The pattern inside `${x%...}`, as `pattern` reads a word."""
        return await self.pattern(parse_word_text(text, keep_unquoted=True), io)

    async def arithmetic(self, expr: str, io: ShellIO) -> int:
        """`$((expr))`: parameters, `$(...)` and `$1` expanded first, as POSIX says, then evaluated."""
        if "$" in expr or "`" in expr:
            expr = "".join(await self.expand(parse_word_text(expr), io, split=False))
        try:
            return evaluate(expr, self.env)
        except ArithError as exc:
            raise ShellSyntaxError(str(exc)) from exc

    async def substitute(self, text: str, io: ShellIO) -> str:
        """`$(...)`: the output of `text` run in a subshell, trailing newlines removed."""
        if self.depth >= MAX_DEPTH:
            raise ShellSyntaxError("too many nested substitutions")
        sub = self.child()
        out = PipeSink()
        try:
            self.subst_status = await sub.run_text(text, ShellIO(io.stdin, out, io.stderr))
        except PipeClosed:
            self.subst_status = SIGPIPE_STATUS
        await out.flush()
        return bytes(out.collected).decode(errors="replace").rstrip("\n")

    def glob(self, pattern: str) -> list[str]:
        """Sorted device paths matching a pattern; [] when none (the word then stays as typed)."""
        absolute = pattern.startswith("/")
        pieces = [p for p in pattern.split("/") if p]
        matches = ["/" if absolute else ""]
        for piece in pieces:
            nxt: list[str] = []
            for base in matches:
                if not any(c in piece for c in "*?["):
                    nxt.append(posixpath.join(base, piece) if base else piece)
                    continue
                try:
                    names = self.fs.listdir(base or ".", self.cwd)
                except (OSError, PathEscapeError):
                    continue
                for entry in names:
                    if entry.startswith(".") and not piece.startswith("."):
                        continue
                    if fnmatch.fnmatchcase(entry, piece):
                        nxt.append(posixpath.join(base, entry) if base else entry)
            matches = nxt
        return [m for m in matches if self.fs.exists(m, self.cwd)]

    async def _redirect(self, redirects: list[Redirect], io: ShellIO) -> Redirected | None:
        """Streams after applying redirections; None (after an error message) when a file fails."""
        red = Redirected(ShellIO(io.stdin, io.stdout, io.stderr), self.fs)
        for r in redirects:
            fields = await self.expand(r.target, io, split=False)
            target = "".join(fields)
            if r.op == ">&":
                if target == "1":
                    red.set(r.fd, red.io.stdout)
                elif target == "2":
                    red.set(r.fd, red.io.stderr)
                elif target == "-":
                    red.set(r.fd, ByteSink())
                continue
            if target == "/dev/null":
                if r.op == "<":
                    red.io.stdin = ByteSource.from_bytes(b"")
                else:
                    sink = ByteSink()
                    red.set(r.fd, sink)
                    if r.op == "&>":
                        red.set(2, sink)
                continue
            fs = self.fs
            try:
                if r.op == "<":
                    red.io.stdin = ByteSource.from_bytes(fs.read_bytes(target, self.cwd, MAX_SCRIPT * 4))
                    continue
                # Opened once, truncated now as the shell does; every write goes to this descriptor,
                # so renaming folders while the command runs cannot send the output elsewhere.
                mode = os.O_APPEND if r.op == ">>" else os.O_TRUNC
                fd = fs.open(target, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | mode, self.cwd)
            except (OSError, PathEscapeError) as exc:
                reason = "Permission denied" if isinstance(exc, PathEscapeError) else exc.strerror
                if isinstance(exc, OSError) and exc.errno == 40:  # ELOOP: a link swapped in
                    reason = "Too many symbolic links encountered"
                io.stderr.write(f"{SH}: can't {'open' if r.op == '<' else 'create'} {target}: {reason}\n")
                await io.stderr.flush()
                await red.finish()
                return None
            sink = ByteSink(_file_writer(fs, fd), seekable=True)
            red.files.append(sink)
            red.fds.append(fd)
            red.set(r.fd, sink)
            if r.op == "&>":
                red.set(2, sink)
        return red


class Redirected:
    """Streams of one command after redirection, and the file sinks to flush when it ends."""

    def __init__(self, io: ShellIO, fs: DeviceFS) -> None:
        self.io = io
        self.fs = fs  # closes the files, stamping what was written with the device clock
        self.files: list[ByteSink] = []
        self.fds: list[int] = []

    def set(self, fd: int, sink: ByteSink) -> None:
        if fd == 2:
            self.io.stderr = sink
        elif fd == 1:
            self.io.stdout = sink

    async def finish(self) -> None:
        try:
            for sink in self.files:
                with contextlib.suppress(OSError):  # a full device: the command reported it
                    await sink.flush()
        finally:
            for fd in self.fds:
                self.fs.close(fd)
            self.fds = []


def _file_writer(fs: DeviceFS, fd: int) -> Writer:
    async def write(data: bytes) -> None:
        fs.write(fd, data)

    return write


def _command_name(name: str) -> str:
    if "/" in name and posixpath.dirname(name) in BIN_DIRS:
        return posixpath.basename(name)
    return name


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


async def _export(sh: Shell, argv: list[str], io: ShellIO) -> int:
    for arg in argv[1:]:
        if "=" in arg:
            name, value = arg.split("=", 1)
            sh.env[name] = value
    return 0


async def _unset(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`unset NAME...`, `unset -f NAME...` (functions), `unset -v` (variables, the default)."""
    names = argv[1:]
    functions = names[:1] == ["-f"]
    for name in names[1:] if names[:1] in (["-f"], ["-v"]) else names:
        if functions:
            sh.functions.pop(name, None)
        else:
            sh.env.pop(name, None)
    return 0


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


async def _local(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`local NAME[=VALUE]...`: NAME is the function's own until it returns (outside one, global)."""
    for arg in argv[1:]:
        if arg.startswith("-"):
            continue  # typeset's options (-i, -r...) are not modelled
        name, eq, value = arg.partition("=")
        if sh.frames and name not in sh.frames[-1]:
            sh.frames[-1][name] = sh.env.get(name)
        if eq:
            sh.env[name] = value
        elif sh.frames:
            sh.env.pop(name, None)  # a new local starts unset, as mksh's
    return 0


async def _shift(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`shift [N]`: drops the first N positional parameters."""
    count = int(argv[1]) if len(argv) > 1 and is_number(argv[1]) else 1
    if len(argv) > 1 and not is_number(argv[1]):
        io.stderr.write(f"{SH}: shift: {argv[1]}: bad number\n")
        return 1
    params = sh.args[1:]
    if count > len(params):
        io.stderr.write(f"{SH}: shift: {count}: bad number\n")
        return 1
    sh.args = [sh.args[0] if sh.args else SH, *params[count:]]
    return 0


async def _set(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`set -- ARGS` and `set ARGS` set the positional parameters; options (-e, -x...) are not modelled."""
    args = argv[1:]
    if "--" in args:
        params = args[args.index("--") + 1 :]
    elif args and not args[0].startswith(("-", "+")):
        params = args
    else:
        return 0
    sh.args = [sh.args[0] if sh.args else SH, *params]
    return 0


async def _sh(sh: Shell, argv: list[str], io: ShellIO) -> int:
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


async def _command(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`command -v NAME` prints where NAME comes from; `command NAME ...` runs it."""
    if len(argv) > 2 and argv[1] in ("-v", "-V"):
        status = 0
        for name in argv[2:]:
            if name in BUILTINS or name in sh.functions:
                io.stdout.write(name + "\n")
            elif _command_name(name) in COMMANDS:
                io.stdout.write(f"/system/bin/{_command_name(name)}\n")
            else:
                status = 1
        return status
    return await sh.call(argv[1:], io) if len(argv) > 1 else 0


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


async def _read(sh: Shell, argv: list[str], io: ShellIO) -> int:
    """`read [-r] NAME...`: one line of stdin split over the names; 1 at end of input."""
    names = [a for a in argv[1:] if not a.startswith("-")] or ["REPLY"]
    line = await io.stdin.readline()
    if not line:
        return 1
    words = line.decode(errors="replace").rstrip("\n").split(None, len(names) - 1)
    for i, name in enumerate(names):
        sh.env[name] = words[i] if i < len(words) else ""
    return 0


async def _loop_control(sh: Shell, argv: list[str], io: ShellIO) -> int:
    levels = int(argv[1]) if len(argv) > 1 and is_number(argv[1]) and int(argv[1]) > 0 else 1
    raise LoopControl(argv[0], levels)


BUILTINS = {
    "cd": _cd,
    "exit": _exit,
    "export": _export,
    "unset": _unset,
    "sh": _sh,
    "/system/bin/sh": _sh,
    "eval": _eval,
    ":": _true,
    "set": _set,
    "shift": _shift,
    "return": _return,
    "local": _local,
    "typeset": _local,
    "trap": _true,
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


async def run_line(device: SimDevice, line: str, io: ShellIO) -> int:
    """Run one command line in a fresh shell, flushing its streams at the end."""
    shell = Shell(device)
    try:
        status = await shell.run_text(line, io)
    finally:
        await io.stdout.flush()
        await io.stderr.flush()
    return status
