"""Running a parsed command line: expansion, redirections, pipelines, builtins and exit statuses."""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import logging
import os
import posixpath
import random
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mgfarm.sim.io import ByteSink, ByteSource, ShellIO, Writer
from mgfarm.sim.shell import basic, patterns, test_cmd
from mgfarm.sim.shell.arith import ArithError, evaluate
from mgfarm.sim.shell.effects import marks_changed
from mgfarm.sim.shell.exec_limits import MKSH_BUILTINS
from mgfarm.sim.shell.exec_limits import too_long as exec_too_long
from mgfarm.sim.shell.parser import (
    ELEMENT_RE,
    LENGTH_RE,
    PARAM_RE,
    REPLACE_RE,
    RESERVED,
    SLICE_RE,
    TRIM_RE,
    AndOr,
    ArithCommand,
    Case,
    Command,
    Cond,
    CondNode,
    For,
    FuncDef,
    Group,
    If,
    Parser,
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
from mgfarm.sim.shell.words import brace_expand, field_split, glob_escape, trace_quote
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


MAX_ARRAY = 100_000  # elements of one array, and its largest index + 1
# `set -o NAME` and the letters `$-` shows, in mksh's order.
OPTION_LETTERS = {"allexport": "a", "errexit": "e", "noglob": "f", "nounset": "u", "verbose": "v"}
OPTION_LETTERS |= {"xtrace": "x", "noclobber": "C", "pipefail": "P"}
OPTION_ORDER = "aCefuvx"


class Fields:
    """The fields one word expands to, built a piece at a time. Each keeps its text and the
    pattern it is as a glob (quoted characters escaped), and whether it holds a live `* ? [`."""

    def __init__(self) -> None:
        self.done: list[tuple[str, str, bool]] = []
        self.text: list[str] = []
        self.pattern: list[str] = []
        self.globbed = False
        self.started = False  # a quoted empty string still makes a field

    def add(self, text: str, quoted: bool) -> None:
        self.text.append(text)
        self.pattern.append(glob_escape(text) if quoted else text)
        self.globbed = self.globbed or (not quoted and any(c in text for c in "*?["))
        self.started = True

    def end(self) -> None:
        if self.started:
            self.done.append(("".join(self.text), "".join(self.pattern), self.globbed))
        self.text, self.pattern, self.globbed, self.started = [], [], False, False

    def add_split(self, value: str, ifs: str) -> None:
        """An unquoted expansion: split at IFS, its first piece glued to what came before."""
        pieces, lead, ended = field_split(value, ifs)
        if lead:
            self.end()
        for i, piece in enumerate(pieces):
            if i:
                self.end()
            self.add(piece, False)
        if ended:
            self.end()

    def finish(self) -> list[tuple[str, str, bool]]:
        self.end()
        return self.done


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


class CondError(Exception):
    """An operand of `[[ -eq ]]` that is no number: mksh reports it and the test is status 2."""


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
    attrs: dict[str, set[str]] = field(default_factory=dict)  # typeset's: i u l r x
    arrays: dict[str, dict[int, str]] = field(default_factory=dict)  # element 0 is also in env
    options: set[str] = field(default_factory=set)  # set -e -u -x -f, as their letters
    traps: dict[str, str] = field(default_factory=dict)  # `trap CMD EXIT` and the signals'
    errexit_off: int = 0  # inside a condition (if, while, && ||, !): `set -e` does not apply
    attr_frames: list[dict[str, set[str] | None]] = field(default_factory=list)  # as `frames`
    getopts_at: tuple[int, int] = (0, 1)  # OPTIND and the letter within its word getopts is at

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
            attrs={name: set(flags) for name, flags in self.attrs.items()},
            arrays={name: dict(values) for name, values in self.arrays.items()},
            options=set(self.options),
        )

    async def run_text(self, text: str, io: ShellIO) -> int:
        """Run `text` as a whole shell (`sh -c`): a syntax error prints mksh's message and
        returns 1; the EXIT trap runs at the end."""
        status, _ = await self.run_session_text(text, io)
        return await self.finish(io, status)

    async def finish(self, io: ShellIO, status: int) -> int:
        """The shell ends: run its EXIT trap (once); `exit N` in the trap sets the status."""
        action = self.traps.pop("EXIT", "")
        if not action:
            return status
        self.status = status
        with contextlib.suppress(LoopControl):
            try:
                await self.run_lines(action, io)
            except (ExitShell, FunctionReturn) as done:
                status = done.status
            except ShellSyntaxError as exc:
                io.stderr.write(f"{SH}: {exc}\n")
                await io.stderr.flush()
        return status

    async def run_session_text(self, text: str, io: ShellIO) -> tuple[int, bool]:
        """Like run_text without the EXIT trap, and also tells whether `text` ran `exit` (ending
        an interactive session)."""
        try:
            return await self.run_lines(text, io), False
        except (ExitShell, FunctionReturn) as done:  # mksh's `return` outside a function exits
            self.status = done.status
            return done.status, True
        except LoopControl:
            return self.status, False  # `break` outside a loop: mksh ignores it
        except ShellSyntaxError as exc:  # a syntax or expansion error aborts the script
            io.stderr.write(f"{SH}: {exc}\n")
            await io.stderr.flush()
            self.status = exc.status
            return exc.status, False
        except RecursionError:  # nesting within the limits, many times over (sh -c inside sh -c ...)
            io.stderr.write(f"{SH}: too deeply nested\n")
            await io.stderr.flush()
            self.status = 2
            return 2, False

    async def run_lines(self, text: str, io: ShellIO) -> int:
        """Parse and run `text` a line at a time, as mksh does: lines before a syntax error run."""
        for line in Parser(text).lines():
            await self.run_script(line, io)
        return self.status

    async def run_script(self, script: Script, io: ShellIO) -> int:
        for item in script.items:
            await self.run_and_or(item, io)
        return self.status

    async def condition(self, script: Script, io: ShellIO) -> int:
        """A condition (if, while): its failures do not end the shell under `set -e`."""
        self.errexit_off += 1
        try:
            return await self.run_script(script, io)
        finally:
            self.errexit_off -= 1

    async def run_and_or(self, node: AndOr, io: ShellIO) -> int:
        pipelines = [("", node.first), *node.rest]
        status = 0
        for i, (op, pipeline) in enumerate(pipelines):
            if op and (op == "&&") != (status == 0):
                continue
            last = i == len(pipelines) - 1
            self.errexit_off += not last or pipeline.negate
            try:
                status = await self.run_pipeline(pipeline, io)
            finally:
                self.errexit_off -= not last or pipeline.negate
            if last and status and not pipeline.negate and not self.errexit_off:
                await self.failed(status, io)
        return status

    async def failed(self, status: int, io: ShellIO) -> None:
        """A command failed outside a condition: the ERR trap runs, and `set -e` ends the shell."""
        action = self.traps.get("ERR")
        if action:
            self.errexit_off += 1  # the trap's own failures do not trigger it again
            try:
                await self.run_lines(action, io)
            finally:
                self.errexit_off -= 1
            self.status = status
        if "e" in self.options:
            raise ExitShell(status)

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
            except ShellSyntaxError as exc:
                if len(node.commands) == 1:
                    raise
                # Each stage of a real pipeline is a process of its own: an error ends only it.
                io.stderr.write(f"{SH}: {exc}\n")
                status = exc.status
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
            except ShellSyntaxError as exc:  # ends the subshell (a process of its own), not this shell
                redirected.io.stderr.write(f"{SH}: {exc}\n")
                status = exc.status
            try:
                status = await sub.finish(redirected.io, status)
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

    async def run_compound(
        self, cmd: Group | If | While | For | Case | Cond | ArithCommand, io: ShellIO
    ) -> int:
        if isinstance(cmd, Group):
            return await self.run_script(cmd.body, io)
        if isinstance(cmd, Cond):
            return await self.run_cond(cmd, io)
        if isinstance(cmd, ArithCommand):
            return await self.run_arith_command(cmd.expr, io)
        if isinstance(cmd, Case):
            return await self.run_case(cmd, io)
        if isinstance(cmd, If):
            for condition, body in cmd.branches:
                if await self.condition(condition, io) == 0:
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
        self.attr_frames.append({})
        try:
            return await self.run_command(body, io)
        except FunctionReturn as done:
            self.status = done.status
            return done.status
        finally:
            self.args = saved
            self._restore(self.frames.pop())
            for name, flags in self.attr_frames.pop().items():
                if flags is None:
                    self.attrs.pop(name, None)
                else:
                    self.attrs[name] = flags

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
                if (await self.condition(cmd.condition, io) == 0) == cmd.until:
                    break
            else:
                value = next(items, None)
                if value is None:
                    break
                self.assign(cmd.name, value)
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
        assigns: dict[str, str] = {}
        for name, word in cmd.assigns:
            assigns[name] = "".join(await self.expand(_tilde_assignment(word), io, split=False))
        arrays = [(name, await self.expand_all(words, io)) for name, words in cmd.arrays]
        if "x" in self.options:
            await self.trace(assigns, arrays, argv, io)
        if not argv:
            for name, value in assigns.items():
                self.assign(name, value)
            for name, values in arrays:
                self.assign_array(name, values)
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

    async def expand_all(self, words: list[Word], io: ShellIO) -> list[str]:
        values: list[str] = []
        for word in words:
            values.extend(await self.expand(word, io))
        return values

    async def trace(
        self, assigns: dict[str, str], arrays: list[tuple[str, list[str]]], argv: list[str], io: ShellIO
    ) -> None:
        """`set -x`: the command as it will run, on stderr after `+ `."""
        shown = [f"{name}={trace_quote(value)}" for name, value in assigns.items()]
        shown += [f"set -A {name} {' '.join(map(trace_quote, values))}".rstrip() for name, values in arrays]
        shown += [trace_quote(arg) for arg in argv]
        io.stderr.write("+ " + " ".join(shown) + ("" if argv else " ") + "\n")
        await io.stderr.flush()

    async def run_arith_command(self, expr: str, io: ShellIO) -> int:
        """`(( expr ))`: 0 when the value is not zero; an error is reported and gives 2."""
        try:
            return 0 if await self.arithmetic(expr, io) else 1
        except ShellSyntaxError as exc:
            io.stderr.write(f"{SH}: {exc}\n")
            await io.stderr.flush()
            return 2

    async def run_cond(self, cmd: Cond, io: ShellIO) -> int:
        try:
            return 0 if await self.cond(cmd.expr, io) else 1
        except CondError as exc:  # mksh: the message, status 2, and the script goes on
            io.stderr.write(f"{SH}: {exc}\n")
            return 2

    async def cond(self, node: CondNode, io: ShellIO) -> bool:
        """One `[[ ]]` expression: words are expanded without splitting or globbing."""
        op = node.op
        if op == "&&":
            return await self.cond(node.kids[0], io) and await self.cond(node.kids[1], io)
        if op == "||":
            return await self.cond(node.kids[0], io) or await self.cond(node.kids[1], io)
        if op == "!":
            return not await self.cond(node.kids[0], io)
        left = "".join(await self.expand(node.words[0], io, split=False))
        if op == "word":
            return left != ""
        if len(node.words) == 1:
            return self.unary_test(op, left, io)
        if op in ("=", "==", "!="):
            matched = await patterns.matches(left, await self.pattern(node.words[1], io))
            return matched == (op != "!=")
        right = "".join(await self.expand(node.words[1], io, split=False))
        if op in ("<", ">"):
            return left < right if op == "<" else left > right
        if op in ("-nt", "-ot", "-ef"):
            return self.file_compare(op, left, right)
        try:
            a, b = self.evaluate(left, hex_ok=False), self.evaluate(right, hex_ok=False)  # expanded
        except ShellSyntaxError as exc:
            raise CondError(str(exc)) from exc
        return {"-eq": a == b, "-ne": a != b, "-lt": a < b, "-le": a <= b, "-gt": a > b, "-ge": a >= b}[op]

    def unary_test(self, op: str, value: str, io: ShellIO) -> bool:
        if op == "-n":
            return value != ""
        if op == "-z":
            return value == ""
        if op == "-v":
            return value in self.env or value in self.arrays
        if op == "-o":
            return OPTION_LETTERS.get(value, "") in self.options if value in OPTION_LETTERS else False
        if op == "-t":
            return False  # adb's streams are pipes, not terminals
        if op == "-a":
            op = "-e"
        inv = Invocation(self.device, ["[["], io, self.env, self.cwd, self.uid)
        return test_cmd.file_test(inv, op, value)

    def file_compare(self, op: str, left: str, right: str) -> bool:
        try:
            a, b = self.fs.stat(left, self.cwd), self.fs.stat(right, self.cwd)
        except (OSError, PathEscapeError):
            return False
        if op == "-ef":
            return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
        return a.st_mtime > b.st_mtime if op == "-nt" else a.st_mtime < b.st_mtime

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
            prior = {k: self.env.get(k) for k in assigns}
            self.env.update(assigns)
            try:
                return await builtin(self, argv, io)
            finally:
                self._restore(prior)
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
        """Fields of one word after brace, tilde, variable, command, arithmetic and glob expansion;
        with `split` False (assignments, `case`, `[[ ]]`) one field, neither split nor globbed."""
        fields: list[str] = []
        for one in brace_expand(word) if split else [word]:
            fields.extend(await self._expand_word(_tilde(one), io, split))
        if sum(map(len, fields)) > MAX_WORD:
            raise ShellSyntaxError("word too long (more than 16 MiB)")
        return fields

    async def _expand_word(self, word: Word, io: ShellIO, split: bool) -> list[str]:
        out = Fields()
        # `"$@"` with no parameters is no field at all: its quotes' empty text does not count.
        at = any(kind in ("qvar", "qparam") and text.endswith(("@", "@]")) for kind, text in word.parts)
        for kind, text in word.parts:
            quoted = kind.startswith("q") or kind == "lit"
            if kind in ("lit", "raw"):
                if text or not at:
                    out.add(text, quoted)
                continue
            params = await self.param_list(kind, text, io)
            if params is not None:
                await self._add_params(out, params, quoted, text, split)
                continue
            if kind in ("var", "qvar"):
                value = self.variable(text)
            elif kind in ("param", "qparam"):
                value = await self.parameter(text, io)
            elif kind in ("arith", "qarith"):
                value = str(await self.arithmetic(text, io))
            else:
                value = await self.substitute(text, io)
            if quoted or not split:
                out.add(value, True)
            else:
                out.add_split(value, self.ifs())
        if not split:
            return ["".join(text for text, _, _ in out.finish())]
        result: list[str] = []
        for text, pattern, globbed in out.finish():
            matched = self.glob(pattern) if globbed and "f" not in self.options else []
            result.extend(matched or [text])
        return result

    async def _add_params(self, out: Fields, params: list[str], quoted: bool, text: str, split: bool) -> None:
        """`$@`, `$*`, `${a[@]}`, `${a[*]}`: quoted `@` makes a field of each; quoted `*` joins them with
        IFS's first character; unquoted, each is split on its own."""
        star = text.endswith("*") or text.endswith("*]")
        if (quoted and star) or not split:
            ifs = self.ifs()
            out.add((ifs[:1] if star else " ").join(params), True)
            return
        for i, param in enumerate(params):
            if i:
                out.end()
            if quoted:
                out.add(param, True)
            else:
                out.add_split(param, self.ifs())

    async def param_list(self, kind: str, text: str, io: ShellIO) -> list[str] | None:
        """The values `$@`, `$*`, `${a[@]}` and `${!a[@]}` stand for; None for other expansions."""
        if kind in ("var", "qvar") and text in ("@", "*"):
            return self.args[1:]
        if (
            kind not in ("param", "qparam")
            or not ELEMENT_RE.fullmatch(text)
            or not text.endswith(("[@]", "[*]"))
        ):
            return None
        name = text[:-3]
        if name.startswith("!"):
            return [str(i) for i in sorted(self.array(name[1:]))]
        values = self.array(name)
        return [values[i] for i in sorted(values)]

    def ifs(self) -> str:
        return self.env.get("IFS", " \t\n")

    def array(self, name: str) -> dict[int, str]:
        """A variable's elements by index (a plain variable is element 0)."""
        if name in self.arrays:
            return self.arrays[name]
        return {0: self.env[name]} if name in self.env else {}

    def variable(self, name: str) -> str:
        if name == "?":
            return str(self.status)
        if name == "$":
            return str(SHELL_PID)
        if name == "#":
            return str(max(len(self.args) - 1, 0))
        if name in ("@", "*"):
            return " ".join(self.args[1:])
        if name == "-":
            return "".join(c for c in OPTION_ORDER if c in self.options) + "hc"
        if name == "!":
            return ""
        if name == "RANDOM" and "RANDOM" not in self.env:
            return str(random.randrange(32768))  # a new number each time, as mksh's
        if is_number(name):
            idx = int(name)
            if idx >= len(self.args) and idx and "u" in self.options:
                raise ShellSyntaxError(f"{name}: parameter not set")
            return self.args[idx] if idx < len(self.args) else (SH if idx == 0 else "")
        if "[" in name:
            base, index = self.subscript(name)
            return self.array(base).get(index, "")
        if name not in self.env and "u" in self.options:
            raise ShellSyntaxError(f"{name}: parameter not set")
        return self.env.get(name, "")

    def subscript(self, name: str) -> tuple[str, int]:
        """`a[expr]` as ("a", the index); a plain name is index 0."""
        base, _, rest = name.partition("[")
        if not rest:
            return name, 0
        index = self.evaluate(rest[:-1] if rest.endswith("]") else rest)
        if not 0 <= index < MAX_ARRAY:
            raise ShellSyntaxError(f"{base}[{index}]: subscript out of range")
        return base, index

    def evaluate(self, expr: str, hex_ok: bool = True) -> int:
        """An arithmetic expression whose `$` expansions are done; variables read and set here
        (`hex_ok` False for the operands of `[[ -eq ]]`, where mksh reads no `0x`)."""
        try:
            return evaluate(expr, self._arith_get, self._arith_put, hex_ok)
        except ArithError as exc:
            raise ShellSyntaxError(str(exc)) from exc

    def _arith_get(self, name: str) -> str | None:
        if "[" in name:
            base, index = self.subscript(name)
            return self.array(base).get(index)
        return self.env.get(name)

    def _arith_put(self, name: str, value: int) -> None:
        self.assign(name, str(value))

    def assign(self, name: str, value: str) -> None:
        """Set a variable (`NAME`, `NAME[i]`, `NAME+` for +=) as its attributes say: integer,
        upper or lower case; a read-only one refuses."""
        append = name.endswith("+")
        base, index = self.subscript(name.removesuffix("+"))
        flags = self.attrs.get(base, set())
        if "r" in flags:
            raise ShellSyntaxError(f"read-only: {base}", 2)
        if append:  # `+=` appends text, for an integer too (mksh: n=1; n+=2 is 12)
            value = self.array(base).get(index, "") + value
        if "i" in flags:
            value = str(self.evaluate(value or "0"))
        if "u" in flags:
            value = value.upper()
        elif "l" in flags:
            value = value.lower()
        if len(value) > MAX_WORD:
            raise ShellSyntaxError("word too long (more than 16 MiB)")
        if index == 0:
            self.env[base] = value
        if base in self.arrays or index:
            elements = self.arrays.setdefault(base, self.array(base).copy())
            if index not in elements and len(elements) >= MAX_ARRAY:
                raise ShellSyntaxError(f"{base}: too many elements")
            elements[index] = value

    def assign_array(self, name: str, values: list[str]) -> None:
        """`NAME=(a b c)` and `set -A NAME a b c`; `NAME+=(d)` appends."""
        append = name.endswith("+")
        name = name.removesuffix("+")
        if "r" in self.attrs.get(name, set()):
            raise ShellSyntaxError(f"read-only: {name}", 2)
        if len(values) > MAX_ARRAY:
            raise ShellSyntaxError(f"{name}: too many elements")
        start = 0
        if append:
            start = max(self.array(name), default=-1) + 1
        else:
            self.arrays.pop(name, None)
            self.env.pop(name, None)
        for offset, value in enumerate(values):
            self.assign(f"{name}[{start + offset}]", value)
        if not values and not append:
            self.arrays[name] = {}

    def unset(self, name: str) -> None:
        """`unset NAME` or `unset NAME[i]`; a read-only variable stays."""
        if "[" in name:
            base, index = self.subscript(name)
            self.array(base)  # a plain variable as an array of one
            elements = self.arrays.setdefault(base, self.array(base).copy())
            elements.pop(index, None)
            if index == 0:
                self.env.pop(base, None)
            return
        self.env.pop(name, None)
        self.arrays.pop(name, None)
        self.attrs.pop(name, None)

    async def lookup(self, name: str, io: ShellIO) -> str:
        """A variable's value, its subscript (`a[$i]`) expanded first."""
        if "[" in name and "$" in name:
            base, _, rest = name.partition("[")
            index = await self.arithmetic(rest.removesuffix("]"), io)
            return self.array(base).get(index, "")
        if name.endswith(("[@]", "[*]")):
            values = self.array(name[:-3])
            return " ".join(values[i] for i in sorted(values))
        return self.variable(name)

    def is_set(self, name: str) -> bool:
        if "[" in name:
            if name.endswith(("[@]", "[*]")):
                return bool(self.array(name[:-3]))
            base, index = self.subscript(name)
            return index in self.array(base)
        if is_number(name):
            return int(name) < len(self.args)
        return name in self.env or not name.isidentifier()

    async def parameter(self, body: str, io: ShellIO) -> str:
        """`${#NAME}`, `${NAME:-word}`, `${NAME-word}`, `:=`, `:+`, `:?` as POSIX defines them; and
        mksh's `${NAME#pat}` (## % %%), `${NAME/pat/string}` (//), `${NAME:offset:length}` and
        arrays (`${a[i]}`, `${#a[@]}`, `${!a[@]}`)."""
        length = LENGTH_RE.fullmatch(body)
        if length:
            name = length.group(1)
            if name in ("@", "*"):
                return str(len(self.args) - 1 if self.args else 0)
            if name.endswith(("[@]", "[*]")):
                return str(len(self.array(name[:-3])))
            return str(len(await self.lookup(name, io)))
        if ELEMENT_RE.fullmatch(body):
            if body.startswith("!"):
                return " ".join(str(i) for i in sorted(self.array(body[1:].partition("[")[0])))
            return await self.lookup(body, io)
        m = PARAM_RE.fullmatch(body)
        if m is None:
            return await self.edited(body, io)
        name, op, word = m.groups()
        is_set = self.is_set(name)
        value = await self.lookup(name, io) if is_set or not name.isidentifier() else ""
        missing = not is_set or (op.startswith(":") and value == "")
        if op.endswith("+"):
            return "" if missing else "".join(await self.expand(parse_word_text(word), io, split=False))
        if not missing:
            return value
        text = "".join(await self.expand(parse_word_text(word), io, split=False))
        if op.endswith("="):
            self.assign(name, text)
        elif op.endswith("?"):
            raise ShellSyntaxError(f"{name}: {text or 'parameter null or not set'}")
        return text

    async def edited(self, body: str, io: ShellIO) -> str:
        """A variable's value trimmed, replaced in or sliced (`parameter`'s mksh forms)."""
        if m := TRIM_RE.fullmatch(body):
            name, op, pattern = m.groups()
            return await patterns.trim(await self.lookup(name, io), await self.pattern_text(pattern, io), op)
        if m := REPLACE_RE.fullmatch(body):
            name, op, pattern, replacement = m.groups()
            text = "".join(await self.expand(parse_word_text(replacement or ""), io, split=False))
            value = await self.lookup(name, io)
            if op == "/" and pattern[:1] in ("#", "%") and len(pattern) > 1:
                # `${x/#p/r}` and `${x/%p/r}`: the longest match at the start or the end only
                anchor = pattern[0]
                rest = await patterns.trim(value, await self.pattern_text(pattern[1:], io), anchor * 2)
                if rest == value:
                    return value
                return text + rest if anchor == "#" else rest + text
            return await patterns.replace(value, await self.pattern_text(pattern, io), text, op == "//")
        if m := SLICE_RE.fullmatch(body):
            name, rest = m.groups()
            value = await self.lookup(name, io)
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
        return self.evaluate(expr)

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
            if r.op == "<<" and r.here is not None and r.here.body is not None:
                body = "".join(await self.expand(r.here.body, io, split=False))
                red.io.stdin = ByteSource.from_bytes(body.encode("utf-8", "surrogateescape"))
                continue
            fields = await self.expand(r.target, io, split=False)
            target = "".join(fields)
            if r.op == "<<<":
                red.io.stdin = ByteSource.from_bytes((target + "\n").encode("utf-8", "surrogateescape"))
                continue
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


def _tilde(word: Word) -> Word:
    """`~` and `~/x` at the start of a word: the home directory (`~user` stays as typed)."""
    if not word.parts or word.parts[0][0] != "raw" or not word.parts[0][1].startswith("~"):
        return word
    text = word.parts[0][1]
    head, slash, rest = text.partition("/")
    if head != "~":
        return word
    return Word([("qvar", "HOME"), ("raw", slash + rest), *word.parts[1:]])


def _tilde_assignment(word: Word) -> Word:
    """An assignment's value: `~` after `=` (and after each `:`) is the home directory."""
    if not word.parts or word.parts[0][0] != "raw" or "~" not in word.parts[0][1]:
        return word
    pieces = word.parts[0][1].split(":")
    parts: list[tuple[str, str]] = []
    for i, piece in enumerate(pieces):
        if i:
            parts.append(("raw", ":"))
        if piece == "~" or piece.startswith("~/"):
            parts += [("qvar", "HOME"), ("raw", piece[1:])]
        else:
            parts.append(("raw", piece))
    return Word(parts + word.parts[1:])


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
    "sh": _sh,
    "/system/bin/sh": _sh,
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


async def run_line(device: SimDevice, line: str, io: ShellIO) -> int:
    """Run one command line in a fresh shell, flushing its streams at the end."""
    shell = Shell(device)
    try:
        status = await shell.run_text(line, io)
    finally:
        await io.stdout.flush()
        await io.stderr.flush()
    return status
