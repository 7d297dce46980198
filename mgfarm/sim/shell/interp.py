"""Running a parsed command line: expansion, redirections, pipelines, builtins and exit statuses."""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import logging
import os
import posixpath
import random
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mgfarm.sim.io import ByteSink, ByteSource, ShellIO, Writer
from mgfarm.sim.shell import patterns, test_cmd
from mgfarm.sim.shell.arith import ArithError, evaluate
from mgfarm.sim.shell.builtins import BUILTINS, run_script
from mgfarm.sim.shell.control import (
    MAX_DEPTH,
    MAX_SCRIPT,
    OPTION_LETTERS,
    OPTION_ORDER,
    SH,
    ExitShell,
    FunctionReturn,
    LoopControl,
    command_name,
)
from mgfarm.sim.shell.effects import marks_changed
from mgfarm.sim.shell.exec_limits import MKSH_BUILTINS
from mgfarm.sim.shell.exec_limits import too_long as exec_too_long
from mgfarm.sim.shell.parser import (
    ELEMENT_RE,
    LENGTH_RE,
    PARAM_RE,
    REPLACE_RE,
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
    parse_word_text,
)
from mgfarm.sim.shell.registry import COMMANDS, Invocation, is_number
from mgfarm.sim.shell.words import brace_expand, field_split, glob_escape, trace_quote
from mgfarm.sim.system.fs import ROOT, SHELL, DeviceFS, PathEscapeError
from mgfarm.sim.system.procfs import SHELL_PID

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

log = logging.getLogger(__name__)

# Bytes a pipeline stage may produce before it is ended (as SIGPIPE would): stages run one after
# another, so an endless writer (`yes | head`) is cut here, and memory stays bounded.
PIPE_LIMIT = 16 * 1024 * 1024
SIGPIPE_STATUS = 141  # 128 + SIGPIPE, what a shell reports for a writer killed by a closed pipe
MAX_WORD = 16 * 1024 * 1024  # characters one expanded word may hold (`x=$x$x` in a loop doubles it)
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


MAX_CACHED = 512  # characters of a command line whose parse may be kept
MAX_CACHED_TOKENS = 64  # and its tokens: 256 kept parses stay a few MiB, whoever sends the lines
PARSED: OrderedDict[str, tuple[tuple[Script, ...], ShellSyntaxError | None]] = OrderedDict()


def parsed_lines(text: str) -> tuple[tuple[Script, ...], ShellSyntaxError | None]:
    """`text`'s lines parsed, and the syntax error that ends them (if any). Controllers send the
    same lines again and again (`dumpsys window`, `getprop`, a task's checks), and running never
    changes a parsed tree, so one parse of a short line serves every device (LRU, 256)."""
    found = PARSED.get(text)
    if found is not None:
        PARSED.move_to_end(text)
        return found
    parser = Parser(text)
    lines: list[Script] = []
    error: ShellSyntaxError | None = None
    try:
        for line in parser.lines():
            lines.append(line)
    except ShellSyntaxError as exc:
        error = exc
    result = (tuple(lines), error)
    if len(parser.toks) <= MAX_CACHED_TOKENS:
        PARSED[text] = result
        if len(PARSED) > 256:
            PARSED.popitem(last=False)
    return result


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
        if len(text) > MAX_CACHED:
            for line in Parser(text).lines():
                await self.run_script(line, io)
            return self.status
        lines, error = parsed_lines(text)
        for line in lines:
            await self.run_script(line, io)
        if error is not None:
            raise error
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
        fn = COMMANDS.get(command_name(name))
        if fn is None and "/" in name and self._is_script(name):
            return await run_script(self, ["sh", *argv], io)  # `#!/system/bin/sh` scripts run as on a device
        if fn is None:
            io.stderr.write(f"{SH}: {name}: inaccessible or not found\n")
            await io.stderr.flush()
            return 127
        env = dict(self.env)
        env.update(assigns or {})
        # The environment is left out: the sim's shell does not tell exported variables from others.
        if command_name(name) not in MKSH_BUILTINS and exec_too_long(argv):
            io.stderr.write(f"{SH}: {name}: Argument list too long\n")  # exec's E2BIG, as mksh reports it
            await io.stderr.flush()
            return 126
        inv = Invocation(self.device, [command_name(name), *argv[1:]], io, env, self.cwd, self.uid)
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
                red.io.stdin = ByteSource.from_bytes(body.encode("utf-8", "surrogateescape"), seekable=True)
                continue
            fields = await self.expand(r.target, io, split=False)
            target = "".join(fields)
            if r.op == "<<<":
                red.io.stdin = ByteSource.from_bytes(
                    (target + "\n").encode("utf-8", "surrogateescape"), seekable=True
                )
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
                    red.io.stdin = ByteSource.from_bytes(b"", seekable=True)
                else:
                    sink = ByteSink()
                    red.set(r.fd, sink)
                    if r.op == "&>":
                        red.set(2, sink)
                continue
            fs = self.fs
            try:
                if r.op == "<":
                    red.io.stdin = ByteSource.from_bytes(
                        fs.read_bytes(target, self.cwd, MAX_SCRIPT * 4), seekable=True
                    )
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


async def run_line(device: SimDevice, line: str, io: ShellIO) -> int:
    """Run one command line in a fresh shell, flushing its streams at the end."""
    shell = Shell(device)
    try:
        status = await shell.run_text(line, io)
    finally:
        await io.stdout.flush()
        await io.stderr.flush()
    return status
