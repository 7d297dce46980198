"""`awk`: the one-true-awk that Android 13 ships as /system/bin/awk, for what scripts do with it.

Patterns and actions, BEGIN and END, fields ($1, $NF, assigning them), -F and -v, the POSIX
operators and statements (if, while, do, for, for-in, break, continue, next, exit, delete), arrays,
user functions, printf and the string and arithmetic builtins. Not modelled: getline, system(),
output redirection and pipes (each a clear error). Regexes are EREs run by the bounded engine.

A program comes from an agent: it runs in a worker thread with one time budget for the whole run
(AWK_SECONDS), and its output is bounded, so a `while (1)` never holds the device's process.
"""

from __future__ import annotations

import math
import random
import re
import threading
import time
from dataclasses import dataclass
from typing import Any

from mgfarm.sim.shell.awk_parse import ESCAPES, MAX_DEPTH, AwkError, Node, Parser, Program
from mgfarm.sim.shell.basic import byte_char
from mgfarm.sim.shell.files import CommandError, read_input, report
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.safe_regex import (
    BoundedPattern,
    Limits,
    RegexError,
    RegexTimeout,
    RunStopped,
    compile_regex,
    run_stoppable,
)
from mgfarm.sim.shell.text import TooManyLines, split_lines

AWK_SECONDS = 30.0  # one run's time, loops included; a device's awk would run until killed
MAX_OUTPUT = 64 * 1024 * 1024
MAX_STRING = 16 * 1024 * 1024  # characters one value may hold (`s = s s` in a loop doubles it)
MAX_SOURCE = 65536

# ---- values -------------------------------------------------------------------------------------


class StrNum(str):
    """Input text (a field, a -v value) that looks like a number: compares as one."""

    num: float


class _Uninit:
    """A variable never assigned: "" and 0 at once."""

    def __repr__(self) -> str:
        return "UNINIT"


UNINIT = _Uninit()
Value = Any  # float | str | StrNum | _Uninit
NUMBER_RE = re.compile(r"[ \t\n]*[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)")
LOOKS_NUMERIC = re.compile(r"[ \t\n]*[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)[ \t\n]*")


def input_value(text: str) -> Value:
    """A string from input: a StrNum when it looks numeric."""
    if LOOKS_NUMERIC.fullmatch(text):
        value = StrNum(text)
        value.num = float(text)
        return value
    return text


def bounded(text: str) -> str:
    """A string value, refused past MAX_STRING characters."""
    if len(text) > MAX_STRING:
        raise AwkError("string longer than 16 MiB, stopped")
    return text


def to_num(value: Value) -> float:
    if isinstance(value, float):
        return value
    if isinstance(value, StrNum):
        return value.num
    if value is UNINIT:
        return 0.0
    m = NUMBER_RE.match(value)
    return float(m.group()) if m else 0.0


def num_text(number: float, fmt: str) -> str:
    """A number as one-true-awk prints it: an integral one whole (`%.30g`), others with
    CONVFMT/OFMT (%.6g)."""
    if math.isnan(number):
        return "+nan" if math.copysign(1, number) > 0 else "-nan"
    if math.isinf(number):
        return "+inf" if number > 0 else "-inf"
    if number == int(number):
        whole = int(number)  # as a C long long when it fits (so -0 prints 0), else %.30g
        return str(whole) if -(1 << 63) <= whole < 1 << 63 else format(number, ".30g")
    return format_printf(fmt, [number])


def to_str(value: Value, fmt: str = "%.6g") -> str:
    if isinstance(value, float):
        return num_text(value, fmt)
    if value is UNINIT:
        return ""
    return str(value)


def is_numeric(value: Value) -> bool:
    return isinstance(value, (float, StrNum)) or value is UNINIT


def to_bool(value: Value) -> bool:
    if isinstance(value, float):
        return value != 0
    if isinstance(value, StrNum):
        return value.num != 0
    return value not in ("", UNINIT)


def compare(a: Value, b: Value) -> int:
    if is_numeric(a) and is_numeric(b):
        x, y = to_num(a), to_num(b)
    else:
        x, y = to_str(a), to_str(b)  # type: ignore[assignment]
    return (x > y) - (x < y)


# ---- printf -------------------------------------------------------------------------------------

SPEC_RE = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXeEfFgGcs%])")


def format_printf(fmt: str, args: list[Value]) -> str:
    """C printf as awk applies it; a missing argument is "" or 0."""
    out: list[str] = []
    pos = 0
    used = 0

    def take() -> Value:
        nonlocal used
        used += 1
        if used > len(args):
            raise AwkError(f"not enough args in printf({fmt})")
        return args[used - 1]

    for m in SPEC_RE.finditer(fmt):
        out.append(fmt[pos : m.start()])
        pos = m.end()
        flags, width, prec, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width = str(_c_int(take()))
        if prec == "*":
            prec = str(_c_int(take()))
        if int(width or 0) > 1 << 20 or int(prec or 0) > 1 << 20:
            raise AwkError("printf: field width too large")
        spec = f"%{flags}{width or ''}{'.' + prec if prec is not None else ''}"
        value = take()
        if conv in "di":
            out.append((spec + "d") % _c_int(value))
        elif conv in "ouxX":
            number = _c_int(value)
            out.append(
                (spec + ("d" if conv == "u" else conv)) % (number % (1 << 64) if number < 0 else number)
            )
        elif conv in "eEfFgG":
            out.append((spec + conv) % to_num(value))
        elif conv == "c":
            code = _c_int(value) & 0xFF  # a number is one byte (0 ends the string: nothing)
            text = (byte_char(code) if code else "") if isinstance(value, float) else to_str(value)[:1]
            out.append((spec + "s") % text)
        else:
            out.append((spec + "s") % to_str(value))
    out.append(fmt[pos:])
    return "".join(out)


def _c_int(value: Value) -> int:
    number = to_num(value)
    if math.isnan(number) or math.isinf(number):
        return 0
    return int(number)


# ---- the run ------------------------------------------------------------------------------------


class Next(Exception):
    pass


class Exit(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class Return(Exception):
    def __init__(self, value: Value) -> None:
        super().__init__()
        self.value = value


class LoopBreak(Exception):
    pass


class LoopContinue(Exception):
    pass


@dataclass
class Unbound:
    """An uninitialised variable passed to a function: the callee may make it an array, by reference."""

    name: str
    depth: int  # the caller's frame count


class Run:
    """One awk run over its inputs: variables, fields, output, budget."""

    def __init__(
        self, prog: Program, assigns: list[tuple[str, str]], seconds: float, stop: threading.Event
    ) -> None:
        self.prog = prog
        self.limits = Limits(seconds, MAX_OUTPUT, stop)
        self.vars: dict[str, Value] = {
            "FS": " ", "OFS": " ", "ORS": "\n", "RS": "\n", "NR": 0.0, "NF": 0.0, "FNR": 0.0,
            "SUBSEP": "\x1c", "CONVFMT": "%.6g", "OFMT": "%.6g", "RSTART": 0.0, "RLENGTH": -1.0,
            "FILENAME": "",
        }  # fmt: skip
        self.arrays: dict[str, dict[str, Value]] = {"ENVIRON": {}}
        self.fields: list[Value] = [""]
        self.nf = 0
        self.out: list[str] = []
        self.err: list[str] = []  # `print > "/dev/stderr"` and warnings
        self.regexes: dict[str, BoundedPattern] = {}
        self.frames: list[dict[str, Value]] = []
        self.array_frames: list[dict[str, dict[str, Value]]] = []
        self.ranges: dict[int, bool] = {}
        self.random = random.Random(0)
        self.seed = 0.0
        self.status = 0
        for name, value in assigns:
            self.assign_var(name, value)

    # -- bookkeeping
    def tick(self) -> None:
        self.limits.tick()

    def emit(self, text: str, to: list[str] | None = None) -> None:
        self.limits.output(len(text))
        (self.out if to is None else to).append(text)

    def stream(self, target: Node | None) -> list[str] | None:
        """Where `print > TARGET` writes: standard output or error; a file is refused."""
        if target is None:
            return None
        name = to_str(self.eval(target), self.conv())
        if name in ("/dev/stdout", "-"):
            return self.out
        if name == "/dev/stderr":
            return self.err
        raise AwkError(f"output to the file {name} is not supported on this device's awk (only /dev/stderr)")

    def warn(self, message: str) -> None:
        self.emit(f"awk: {message}\n source line number 1\n", self.err)

    def regex(self, source: str) -> BoundedPattern:
        found = self.regexes.get(source)
        if found is None:
            try:
                found = compile_regex(source, budget=self.limits.budget)
            except RegexError as exc:
                raise AwkError(f"syntax error in regular expression {source}") from exc
            if len(self.regexes) < 256:
                self.regexes[source] = found
        return found

    def assign_var(self, name: str, text: str) -> None:
        value = ""
        i = 0
        while i < len(text):  # a -v value reads escape sequences, as a string literal does
            if text[i] == "\\" and i + 1 < len(text):
                value += ESCAPES.get(text[i + 1], "\\" + text[i + 1])
                i += 2
            else:
                value += text[i]
                i += 1
        self.vars[name] = input_value(value)

    # -- records and fields
    def set_record(self, text: str) -> None:
        self.fields = [input_value(text)]
        parts = self.split(text, to_str(self.vars["FS"]))
        self.fields += [input_value(p) for p in parts]
        self.nf = len(parts)
        self.vars["NF"] = float(self.nf)

    def split(self, text: str, fs: str) -> list[str]:
        if fs == " ":
            return text.split()
        if text == "":
            return []
        if len(fs) == 1 and fs != "\\":
            return text.split(fs)
        return _re_split(self.regex(fs), text)

    def get_field(self, n: int) -> Value:
        if n < 0:
            raise AwkError(f"trying to access out of range field {n}")
        self.sync_nf()
        return self.fields[n] if n <= self.nf else UNINIT

    def sync_nf(self) -> None:
        """NF assigned by the program: fields are cut or padded and $0 rebuilt."""
        nf = _c_int(self.vars["NF"])
        if nf != self.nf:
            if nf < 0 or nf > 1 << 16:
                raise AwkError(f"NF set to {nf}: out of range")
            self.fields = self.fields[: nf + 1] + [""] * max(0, nf + 1 - len(self.fields))
            self.nf = nf
            self.rebuild()

    def set_field(self, n: int, value: Value) -> None:
        if n < 0 or n > 1 << 16:
            raise AwkError(f"trying to access out of range field {n}")
        if n == 0:
            self.set_record(to_str(value, self.conv()))
            return
        self.sync_nf()
        while self.nf < n:
            self.fields.append("")
            self.nf += 1
        self.vars["NF"] = float(self.nf)
        self.fields[n] = value
        self.rebuild()

    def rebuild(self) -> None:
        ofs = to_str(self.vars["OFS"])
        self.fields[0] = ofs.join(to_str(f, self.conv()) for f in self.fields[1 : self.nf + 1])

    def conv(self) -> str:
        return to_str(self.vars["CONVFMT"])

    # -- variables
    def lookup(self, name: str) -> Value:
        if self.frames and name in self.frames[-1]:
            value = self.frames[-1][name]
            return UNINIT if isinstance(value, Unbound) else value
        if name == "NF":
            self.sync_nf()
        if name in self.arrays or (self.array_frames and name in self.array_frames[-1]):
            raise AwkError(f"can't use array {name} in scalar context")
        return self.vars.get(name, UNINIT)

    def store(self, name: str, value: Value) -> None:
        if self.frames and name in self.frames[-1]:
            self.frames[-1][name] = value
            return
        self.vars[name] = value

    def array(self, name: str) -> dict[str, Value]:
        if self.array_frames and name in self.array_frames[-1]:
            return self.array_frames[-1][name]
        if self.frames and name in self.frames[-1]:
            local = self.frames[-1][name]
            if isinstance(local, Unbound):  # the caller's variable becomes this array
                made = self.array_at(local.name, local.depth)
            elif local is UNINIT:
                made = {}
            else:
                raise AwkError(f"can't use scalar {name} as array")
            self.array_frames[-1][name] = made
            del self.frames[-1][name]
            return made
        if name in self.vars:
            raise AwkError(f"can't use scalar {name} as array")
        return self.arrays.setdefault(name, {})

    def array_at(self, name: str, depth: int) -> dict[str, Value]:
        """The array `name` as the function `depth` calls deep (0: the program's globals) sees it."""
        saved = self.frames, self.array_frames
        self.frames, self.array_frames = self.frames[:depth], self.array_frames[:depth]
        try:
            return self.array(name)
        finally:
            self.frames, self.array_frames = saved

    def subscript(self, subs: list[Node]) -> str:
        sep = to_str(self.vars["SUBSEP"])
        return sep.join(to_str(self.eval(s), self.conv()) for s in subs)

    # -- running the program
    def begin(self) -> None:
        for action in self.prog.begin:
            self.execute(action)

    def record(self, text: str) -> None:
        self.vars["NR"] = to_num(self.vars["NR"]) + 1
        self.vars["FNR"] = to_num(self.vars["FNR"]) + 1
        self.set_record(text)
        try:
            for number, (start, stop, action) in enumerate(self.prog.rules):
                self.tick()
                if stop is None:
                    hit = start is None or to_bool(self.eval(start))
                elif self.ranges.get(number):
                    hit = True
                    if to_bool(self.eval(stop)):
                        self.ranges[number] = False
                else:
                    assert start is not None  # a range has both ends
                    hit = to_bool(self.eval(start))
                    if hit and not to_bool(self.eval(stop)):
                        self.ranges[number] = True
                if hit:
                    if action is None:
                        self.emit(to_str(self.get_field(0)) + to_str(self.vars["ORS"]))
                    else:
                        self.execute(action)
        except Next:
            pass

    def end(self) -> None:
        for action in self.prog.end:
            self.execute(action)

    def execute(self, node: Node) -> None:
        self.tick()
        kind = node[0]
        if kind == "block":
            for stmt in node[1]:
                self.execute(stmt)
        elif kind == "expr":
            self.eval(node[1])
        elif kind == "print":
            values = [self.eval(a) for a in node[1]] or [self.get_field(0)]
            ofmt = to_str(self.vars["OFMT"])
            text = to_str(self.vars["OFS"]).join(to_str(v, ofmt) for v in values)
            self.emit(text + to_str(self.vars["ORS"]), self.stream(node[2]))
        elif kind == "printf":
            values = [self.eval(a) for a in node[1]]
            self.emit(format_printf(to_str(values[0]), values[1:]), self.stream(node[2]))
        elif kind == "if":
            if to_bool(self.eval(node[1])):
                self.execute(node[2])
            elif node[3] is not None:
                self.execute(node[3])
        elif kind in ("while", "do", "for"):
            self.loop(node)
        elif kind == "forin":
            _, var, name, body = node
            for key in list(self.array(name)):
                self.tick()
                self.store(var, input_value(key))
                try:
                    self.execute(body)
                except LoopBreak:
                    break
                except LoopContinue:
                    continue
        elif kind in ("next", "nextfile"):
            raise Next
        elif kind == "exit":
            raise Exit(_c_int(self.eval(node[1])) & 0xFF if node[1] is not None else self.status)
        elif kind == "return":
            raise Return(self.eval(node[1]) if node[1] is not None else UNINIT)
        elif kind == "break":
            raise LoopBreak
        elif kind == "continue":
            raise LoopContinue
        elif kind == "delete":
            array = self.array(node[1])
            if node[2] is None:
                array.clear()
            else:
                array.pop(self.subscript(node[2]), None)

    def loop(self, node: Node) -> None:
        kind = node[0]
        if kind == "for" and node[1] is not None:
            self.execute(node[1])
        first = True
        while True:
            self.tick()
            if kind == "while" and not to_bool(self.eval(node[1])):
                break
            if kind == "for" and node[2] is not None and not to_bool(self.eval(node[2])):
                break
            if kind == "do" and not first and not to_bool(self.eval(node[2])):
                break
            first = False
            body = node[1] if kind == "do" else node[-1]
            try:
                self.execute(body)
            except LoopBreak:
                break
            except LoopContinue:
                pass
            if kind == "for" and node[3] is not None:
                self.execute(node[3])

    # -- expressions
    def eval(self, node: Node) -> Value:
        kind = node[0]
        if kind == "num":
            return node[1]
        if kind == "str":
            return node[1]
        if kind == "ere":
            return float(self.regex(node[1]).search(to_str(self.get_field(0))) is not None)
        if kind == "var":
            return self.lookup(node[1])
        if kind == "field":
            return self.get_field(_c_int(self.eval(node[1])))
        if kind == "index":
            array = self.array(node[1])
            key = self.subscript(node[2])
            if key not in array:
                array[key] = UNINIT
            return array[key]
        if kind == "group":
            return self.eval(node[1][-1])
        if kind == "assign":
            return self.assign(node)
        if kind == "incr":
            _, op, target, prefix = node
            old = to_num(self.eval(target))
            new = old + (1 if op == "++" else -1)
            self.set(target, new)
            return new if prefix else old
        if kind == "?":
            return self.eval(node[2]) if to_bool(self.eval(node[1])) else self.eval(node[3])
        if kind == "||":
            return float(to_bool(self.eval(node[1])) or to_bool(self.eval(node[2])))
        if kind == "&&":
            return float(to_bool(self.eval(node[1])) and to_bool(self.eval(node[2])))
        if kind == "in":
            return float(self.subscript(node[1]) in self.array(node[2]))
        if kind in ("~", "!~"):
            hit = self.match_node(node[2], to_str(self.eval(node[1]), self.conv()))
            return float(hit if kind == "~" else not hit)
        if kind == "cmp":
            result = compare(self.eval(node[2]), self.eval(node[3]))
            op = node[1]
            return float(
                {
                    "<": result < 0,
                    "<=": result <= 0,
                    "==": result == 0,
                    "!=": result != 0,
                    ">": result > 0,
                    ">=": result >= 0,
                }[op]
            )
        if kind == "concat":
            return bounded(to_str(self.eval(node[1]), self.conv()) + to_str(self.eval(node[2]), self.conv()))
        if kind == "arith":
            return self.arith(node[1], to_num(self.eval(node[2])), to_num(self.eval(node[3])))
        if kind == "neg":
            return -to_num(self.eval(node[1]))
        if kind == "plus":
            return to_num(self.eval(node[1]))
        if kind == "not":
            return float(not to_bool(self.eval(node[1])))
        if kind == "builtin":
            return self.builtin(node[1], node[2])
        if kind == "call":
            return self.call(node[1], node[2])
        raise AwkError(f"internal: {kind}")

    def match_node(self, node: Node, text: str) -> bool:
        source = node[1] if node[0] == "ere" else to_str(self.eval(node), self.conv())
        return self.regex(source).search(text) is not None

    def arith(self, op: str, a: float, b: float) -> float:
        try:
            if op == "+":
                return a + b
            if op == "-":
                return a - b
            if op == "*":
                return a * b
            if op == "/":
                if b == 0:
                    raise AwkError("division by zero")
                return a / b
            if op == "%":
                if b == 0:
                    raise AwkError("division by zero in %")
                return math.fmod(a, b)
            return float(a**b) if not (a == 0 and b < 0) else math.inf
        except OverflowError:
            return math.inf
        except (ValueError, TypeError):  # a negative number to a fractional power
            return math.nan

    def assign(self, node: Node) -> Value:
        _, op, target, expr = node
        value = self.eval(expr)
        if op != "=":
            value = self.arith(op.rstrip("=").replace("**", "^"), to_num(self.eval(target)), to_num(value))
        self.set(target, value)
        return value

    def set(self, target: Node, value: Value) -> None:
        kind = target[0]
        if kind == "var":
            self.store(target[1], value)
            if target[1] == "NF":
                self.sync_nf()
        elif kind == "field":
            self.set_field(_c_int(self.eval(target[1])), value)
        elif kind == "index":
            self.array(target[1])[self.subscript(target[2])] = value

    # -- functions
    def builtin(self, name: str, args: list[Node]) -> Value:
        count = len(args)
        if name == "length":
            if count == 0:
                return float(len(to_str(self.get_field(0))))
            if args[0][0] == "var" and self._is_array(args[0][1]):
                return float(len(self.array(args[0][1])))
            return float(len(to_str(self.eval(args[0]), self.conv())))
        if name in ("sub", "gsub"):
            return self.substitute(args, name == "gsub")
        if name == "split":
            if count < 2 or args[1][0] != "var":
                raise AwkError("split: needs a string and an array")
            text = to_str(self.eval(args[0]), self.conv())
            fs = to_str(self.eval(args[2])) if count > 2 else to_str(self.vars["FS"])
            if count > 2 and args[2][0] == "ere":
                fs = args[2][1]
            array = self.array(args[1][1])
            array.clear()
            parts = self.split(text, fs)
            for i, part in enumerate(parts, 1):
                array[str(i)] = input_value(part)
            return float(len(parts))
        values = [self.eval(a) for a in args]
        if name == "substr":
            if count < 2:
                raise AwkError("substr: needs 2 or 3 arguments")
            text = to_str(values[0], self.conv())
            size = len(text) + 1  # one-true-awk's positions: truncated, the start clamped to 1..size
            start = min(max(_c_int(values[1]), 1), size)
            length = _c_int(values[2]) if count > 2 else size - 1
            length = min(max(length, 0), size - start)
            return text[start - 1 : start - 1 + length]
        if name == "index":
            return float(to_str(values[0], self.conv()).find(to_str(values[1], self.conv())) + 1)
        if name == "match":
            text = to_str(values[0], self.conv())
            source = args[1][1] if args[1][0] == "ere" else to_str(values[1])
            m = self.regex(source).search(text)
            self.vars["RSTART"] = float(m.start() + 1) if m else 0.0
            self.vars["RLENGTH"] = float(m.end() - m.start()) if m else -1.0
            return self.vars["RSTART"]
        if name == "sprintf":
            if not values:
                raise AwkError("sprintf: no format")
            return bounded(format_printf(to_str(values[0]), values[1:]))
        if name == "tolower":
            return to_str(values[0], self.conv()).lower() if values else ""
        if name == "toupper":
            return to_str(values[0], self.conv()).upper() if values else ""
        if name == "system":
            raise AwkError("system() is not supported on this device's awk")
        if name in ("close", "fflush"):
            return 0.0
        if name == "rand":
            return self.random.random()
        if name == "srand":
            old = self.seed
            self.seed = to_num(values[0]) if values else float(int(time.time()))
            self.random.seed(self.seed)
            return old
        numbers = [to_num(v) for v in values]
        if name == "atan2":
            return math.atan2(numbers[0], numbers[1]) if len(numbers) > 1 else 0.0
        x = numbers[0] if numbers else to_num(self.get_field(0))
        if name == "int":
            return float(math.trunc(x)) if math.isfinite(x) else x
        math_fn = {"sqrt": math.sqrt, "exp": math.exp, "log": math.log, "sin": math.sin, "cos": math.cos}
        try:
            return math_fn[name](x)
        except ValueError:  # one-true-awk's errcheck: a warning, and 1
            self.warn(f"{name} argument out of domain")
        except OverflowError:
            self.warn(f"{name} result out of range")
        return 1.0

    def _is_array(self, name: str) -> bool:
        if self.array_frames and name in self.array_frames[-1]:
            return True
        if self.frames and name in self.frames[-1]:
            return False
        return name in self.arrays

    def substitute(self, args: list[Node], every: bool) -> Value:
        if len(args) < 2:
            raise AwkError("sub/gsub: needs a regex and a replacement")
        source = args[0][1] if args[0][0] == "ere" else to_str(self.eval(args[0]))
        replacement = to_str(self.eval(args[1]), self.conv())
        target = args[2] if len(args) > 2 else ("field", ("num", 0.0))
        if target[0] not in ("var", "field", "index"):
            raise AwkError("sub/gsub: third argument is not a variable")
        text = to_str(self.eval(target), self.conv())
        regex = self.regex(source)
        count = 0
        out: list[str] = []
        pos = 0
        for m in regex.posix_matches(text):
            if not every and count:
                break
            out.append(text[pos : m.start()])
            out.append(_replacement(replacement, m.group()))
            pos = m.end()
            count += 1
        if count:
            out.append(text[pos:])
            self.set(target, bounded("".join(out)))
        return float(count)

    def call(self, name: str, args: list[Node]) -> Value:
        found = self.prog.functions.get(name)
        if found is None:
            raise AwkError(f"calling undefined function {name}")
        params, body = found
        if len(args) > len(params):
            raise AwkError(f"function {name} called with {len(args)} args, accepts only {len(params)}")
        if len(self.frames) >= MAX_DEPTH:
            raise AwkError(f"function {name} calls itself too deep")
        frame: dict[str, Value] = {}
        arrays: dict[str, dict[str, Value]] = {}
        for param, arg in zip(params, args, strict=False):
            if arg[0] == "var" and self._is_array(arg[1]):
                arrays[param] = self.array(arg[1])  # arrays go by reference
            elif arg[0] == "var" and self.lookup(arg[1]) is UNINIT:
                frame[param] = Unbound(arg[1], len(self.frames))  # an array if the callee makes one
            else:
                frame[param] = self.eval(arg)
        for param in params[len(args) :]:
            frame[param] = UNINIT
        self.frames.append(frame)
        self.array_frames.append(arrays)
        try:
            self.execute(body)
        except Return as done:
            return done.value
        finally:
            self.frames.pop()
            self.array_frames.pop()
        return UNINIT


def _replacement(template: str, matched: str) -> str:
    """sub/gsub's replacement: `&` is the matched text, `\\&` a literal `&`."""
    out: list[str] = []
    i = 0
    while i < len(template):
        c = template[i]
        if c == "\\" and template[i + 1 : i + 2] == "&":
            out.append("&")
            i += 2
            continue
        out.append(matched if c == "&" else c)
        i += 1
    return "".join(out)


def _re_split(regex: BoundedPattern, text: str) -> list[str]:
    parts: list[str] = []
    pos = 0
    for m in regex.posix_matches(text):
        if m.end() == m.start():
            continue
        parts.append(text[pos : m.start()])
        pos = m.end()
    parts.append(text[pos:])
    return parts


def records(data: str, rs: str) -> list[str]:
    """Input split into records by RS: a newline, another character, or "" (paragraphs: runs of
    lines between empty ones)."""
    if rs:
        return split_lines(data, rs[0])
    paragraphs: list[str] = []
    lines: list[str] = []
    for line in [*split_lines(data, "\n"), ""]:
        if line:
            lines.append(line)
        elif lines:
            paragraphs.append("\n".join(lines))
            lines = []
    return paragraphs


def run_program(
    prog: Program,
    inputs: list[tuple[str, str | None]],
    assigns: list[tuple[str, str]],
    seconds: float,
    stop: threading.Event,
) -> tuple[str, int, str]:
    """Run over the inputs ((name, text) or (NAME=value, None) operands): (output, status, error)."""
    run = Run(prog, assigns, seconds, stop)
    error = ""
    try:
        try:
            run.begin()
            if prog.rules or prog.end:
                for name, text in inputs:
                    if text is None:
                        var, _, value = name.partition("=")
                        run.assign_var(var, value)
                        continue
                    run.vars["FILENAME"] = name if name != "-" else ""
                    run.vars["FNR"] = 0.0
                    for record in records(text, to_str(run.vars["RS"])):
                        run.record(record)
        except Exit as done:
            run.status = done.status
        try:
            run.end()
        except Exit as done:
            run.status = done.status
    except (AwkError, RegexTimeout, RunStopped, TooManyLines) as exc:
        error = f"awk: {exc}\n"
        run.status = 2
    except (LoopBreak, LoopContinue, Return, Next):
        pass
    except RecursionError:
        error = "awk: nesting too deep\n"
        run.status = 2
    return "".join(run.out), run.status, "".join(run.err) + error


@command("awk")
async def awk(inv: Invocation) -> int:
    """`awk [-F FS] [-v NAME=VALUE]... [-f FILE | 'PROGRAM'] [FILE | NAME=VALUE]...`."""
    args = list(inv.argv[1:])
    assigns: list[tuple[str, str]] = []
    source: str | None = None
    while args and args[0].startswith("-") and args[0] != "-":
        opt = args.pop(0)
        if opt == "--":
            break
        if opt == "--version" or opt == "-version":
            inv.out("awk version 20220122\n")
            return 0
        if opt.startswith("-F"):
            fs = opt[2:] or (args.pop(0) if args else "")
            assigns.append(("FS", "\t" if fs == "t" else fs))
        elif opt.startswith("-v"):
            pair = opt[2:] or (args.pop(0) if args else "")
            name, eq, value = pair.partition("=")
            if not eq or not re.fullmatch(r"[A-Za-z_]\w*", name):
                inv.err(f"awk: invalid -v argument: {pair}\n")
                return 2
            assigns.append((name, value))
        elif opt.startswith("-f"):
            path = opt[2:] or (args.pop(0) if args else "")
            try:
                source = (source or "") + (await read_input(inv, path)).decode(errors="replace") + "\n"
            except CommandError as exc:
                return report(inv, exc) + 1
        else:
            inv.err(f"awk: unknown option {opt} ignored\n")
    if source is None:
        if not args:
            inv.err("usage: awk [-F fs][-v var=value][-safe][-V] [prog | -f progfile][file ...]\n")
            return 2
        source = args.pop(0)
    if len(source) > MAX_SOURCE:
        inv.err("awk: program too long\n")
        return 2
    try:
        prog = Parser(source).program()
    except AwkError as exc:
        inv.err(f"awk: {exc}\n")
        return 2
    except RecursionError:
        inv.err("awk: program nested too deep\n")
        return 2
    inputs: list[tuple[str, str | None]] = []
    for operand in args or ["-"]:
        if re.fullmatch(r"[A-Za-z_]\w*=.*", operand, re.S):
            inputs.append((operand, None))
            continue
        try:
            inputs.append((operand, (await read_input(inv, operand)).decode(errors="surrogateescape")))
        except CommandError:
            inv.err(f"awk: can't open file {operand}\n source line number 1\n")
            return 2
    if not any(text is not None for _, text in inputs) and (prog.rules or prog.end) and args:
        inputs.append(("-", (await inv.io.stdin.read()).decode(errors="surrogateescape")))
    out, status, error = await run_stoppable(run_program, prog, inputs, assigns, AWK_SECONDS)
    inv.out(out.encode("utf-8", "surrogateescape"))
    if error:
        inv.err(error)
    return status
