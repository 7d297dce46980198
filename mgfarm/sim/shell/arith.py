"""Shell arithmetic as mksh R59c evaluates it (its expr.c): `$(( ))`, `(( ))`, `let`, `typeset -i`.

mksh's integers are 32-bit and wrap; `010` is decimal, `0x1f` hex, `base#digits` any base to 36,
`1#c` a character's code; there is no `**`. A variable's value that is not a number is itself
evaluated as an expression (`x=1+2; $((x*2))` is 6). Errors read as mksh's: `1/0: zero divisor`,
`1 +: unexpected 'end of expression'`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mgfarm.sim.shell import toyargs

MAX_LEN = 1000  # expressions are short; this keeps hostile input cheap to refuse
MAX_NESTING = 20  # parentheses (each level is ~14 Python frames)
MAX_RECURSION = 8  # variables whose values are expressions naming other variables

# Operators, longest first where one is a prefix of another (exprtok.h's order).
OPERATORS = [
    "++",
    "--",
    "==",
    "!=",
    "*=",
    "/=",
    "%=",
    "+=",
    "-=",
    "^<=",
    "^>=",
    "<<=",
    ">>=",
    "&=",
    "^=",
    "|=",
    "^<",
    "^>",
    "<<",
    ">>",
    "<=",
    ">=",
    "&&",
    "||",
    "=",
    "<",
    ">",
    "*",
    "/",
    "%",
    "+",
    "-",
    "&",
    "^",
    "|",
    "?",
    ",",
    "~",
    "!",
    "(",
    ")",
    ":",
]
ASSIGN_OPS = {"=", "*=", "/=", "%=", "+=", "-=", "^<=", "^>=", "<<=", ">>=", "&=", "^=", "|="}
# Binary operators by precedence level (1 binds tightest), as expr.c's P_ levels.
PRECEDENCE = {
    "*": 1, "/": 1, "%": 1,
    "+": 2, "-": 2,
    "^<": 3, "^>": 3, "<<": 3, ">>": 3,
    "<": 4, "<=": 4, ">": 4, ">=": 4,
    "==": 5, "!=": 5,
    "&": 6, "^": 7, "|": 8, "&&": 9, "||": 10, "?": 11,
    **dict.fromkeys(ASSIGN_OPS, 12),
    ",": 13,
}  # fmt: skip
MAX_PREC = 13
TERN, ASSIGN = 11, 12


class ArithError(ValueError):
    """An expression mksh would reject; the message is what mksh prints after `sh: `."""


def wrap(value: int) -> int:
    """32-bit signed overflow, as mksh's integers behave."""
    return toyargs.wrap(value, 32)


def parse_number(text: str, hex_ok: bool = True) -> int | None:
    """A variable's value as mksh's getint reads it, else None; `0x` is hex only in arithmetic
    proper (`$((...))`, `let`), not where test's `-eq` reads a number."""
    s = text.lstrip(" \t\n")
    neg = s[:1] == "-"
    if s[:1] in "+-" and s:
        s = s[1:]
    base, num, have_base = 10, 0, False
    if s[:2].lower() == "0x" and hex_ok:
        base, have_base, s = 16, True, s[2:]
        if not s:
            return None
    if not s:
        return None
    i = 0
    while i < len(s):
        c = s[i]
        if c == "#":
            if have_base or num < 1:
                return None
            if num == 1:
                return wrap(ord(s[i + 1])) if i + 1 < len(s) else 0
            base = num if num <= 36 else 10
            num, have_base = 0, True
            i += 1
            continue
        if c.isascii() and c.isdigit():
            digit = ord(c) - 48
        elif c.isascii() and c.isalpha():
            digit = ord(c.lower()) - 87
        else:
            return None
        if digit >= base:
            return None
        num = (num * base + digit) & 0xFFFFFFFF
        i += 1
    return wrap(-num if neg else num)


Getter = Callable[[str], "str | None"]
Setter = Callable[[str, int], None]


@dataclass
class Value:
    """An operand: its integer value, and the variable it came from (an lvalue) if any."""

    value: int
    name: str = ""


class Evaluator:
    """One expression, evaluated while it is read (expr.c's recursive descent)."""

    def __init__(self, expr: str, get: Getter, put: Setter, depth: int = 0, hex_ok: bool = True) -> None:
        self.hex_ok = hex_ok
        self.expr = expr
        self.pos = 0
        self.get = get
        self.put = put
        self.depth = depth
        self.noassign = 0
        self.nesting = 0  # open parentheses
        self.tok = ""  # an operator, "var", "lit", "end" or "bad"
        self.val = Value(0)

    def fail(self, message: str) -> ArithError:
        return ArithError(f"{self.expr}: {message}")

    def unexpected(self) -> ArithError:
        shown = {"var": self.val.name, "lit": self.text, "end": "end of expression"}.get(self.tok, self.tok)
        if self.tok == "bad":
            shown = self.expr[self.pos]
        return self.fail(f"unexpected '{shown}'")

    def next(self) -> None:
        expr = self.expr
        while self.pos < len(expr) and expr[self.pos] in " \t\n":
            self.pos += 1
        start = self.pos
        if start >= len(expr):
            self.tok = "end"
            return
        c = expr[start]
        if c == "_" or (c.isascii() and c.isalpha()):
            end = start
            while end < len(expr) and (expr[end] == "_" or (expr[end].isascii() and expr[end].isalnum())):
                end += 1
            if expr[end : end + 1] == "[":
                close = expr.find("]", end)
                if close < 0:
                    raise self.fail("missing ]")
                end = close + 1
            self.tok, self.val, self.pos = "var", Value(0, expr[start:end]), end
            return
        if c.isascii() and c.isdigit():
            end = start
            while end < len(expr) and (expr[end] == "#" or (expr[end].isascii() and expr[end].isalnum())):
                end += 1
            if c == "1" and expr[start + 1 : start + 2] == "#":  # `1#x`: a character's code
                end = min(start + 3, len(expr))
            self.text = expr[start:end]
            number = parse_number(self.text, self.hex_ok)
            if number is None:
                raise self.fail(f"bad number '{self.text}'")
            self.tok, self.val, self.pos = "lit", Value(number), end
            return
        if c == "'":
            if expr[start + 2 : start + 3] != "'":
                raise self.fail("multi-character character constant")
            self.text = expr[start : start + 3]
            self.tok, self.val, self.pos = "lit", Value(ord(expr[start + 1])), start + 3
            return
        for op in OPERATORS:
            if expr.startswith(op, start):
                self.tok, self.pos = op, start + len(op)
                return
        self.tok = "bad"

    text = ""

    def intvalue(self, operand: Value) -> int:
        """An operand's integer: a variable's value is a number or else an expression itself."""
        if not operand.name or self.noassign:
            return operand.value
        raw = self.get(operand.name)
        if raw is None:
            return 0
        number = parse_number(raw, self.hex_ok)
        if number is not None:
            return number
        if self.depth >= MAX_RECURSION:
            raise self.fail(f"expression recurses on parameter '{operand.name}'")
        return Evaluator(raw, self.get, self.put, self.depth + 1, self.hex_ok).run(operand.name)

    def assign(self, op: str, target: Value, value: int) -> None:
        if not self.noassign:
            self.put(target.name, value)

    def check_lvalue(self, op: str, target: Value) -> None:
        if self.tok == "end" or not target.name:
            raise self.fail(f"{op} requires lvalue")

    def run(self, evaluating: str = "") -> int:
        self.next()
        if self.tok == "end":
            return 0
        result = self.intvalue(self.expression(MAX_PREC))
        if self.tok != "end":
            if self.tok == "var" and self.val.name == evaluating:
                raise self.fail(f"expression recurses on parameter '{evaluating}'")
            raise self.unexpected()
        return result

    def primary(self) -> Value:
        op = self.tok
        if op in ("~", "!", "-", "+"):
            self.nesting += 1
            if self.nesting > MAX_NESTING * 4:
                raise self.fail("expression too deeply nested")
            self.next()
            value = self.intvalue(self.primary())
            self.nesting -= 1
            result = {"~": ~value, "!": int(not value), "-": -value, "+": value}[op]
            operand = Value(wrap(result))
        elif op == "(":
            self.nesting += 1
            if self.nesting > MAX_NESTING:
                raise self.fail("expression too deeply nested")
            self.next()
            operand = self.expression(MAX_PREC)
            self.nesting -= 1
            if self.tok != ")":
                raise self.fail("missing )")
            self.next()
        elif op in ("++", "--"):
            self.next()
            operand = self.step(op, self.val, prefix=True)
            self.next()
        elif op in ("var", "lit"):
            operand = self.val
            self.next()
        else:
            raise self.unexpected()
        if self.tok in ("++", "--"):
            operand = self.step(self.tok, operand, prefix=False)
            self.next()
        return operand

    def step(self, op: str, target: Value, prefix: bool) -> Value:
        """`++x`, `x--` and friends."""
        self.check_lvalue(op, target)
        old = self.intvalue(target)
        new = wrap(old + (1 if op == "++" else -1))
        self.assign(op, target, new)
        return Value(new if prefix else old)

    def expression(self, prec: int) -> Value:
        if prec == 0:
            return self.primary()
        left = self.expression(prec - 1)
        while self.tok in PRECEDENCE and PRECEDENCE[self.tok] == prec:
            op = self.tok
            if op not in ("?", "&&", "||"):
                self.next()
            target = left
            lvalue = self.intvalue(left) if op != "=" else 0
            if op in ASSIGN_OPS:
                if not self.noassign:
                    self.check_lvalue(op, target)
                right = self.intvalue(self.expression(ASSIGN))
                result = right if op == "=" else self.binary(op[:-1], lvalue, right)
                self.assign(op, target, result)
                left = Value(result)
            elif op == "?":
                left = Value(self.ternary(lvalue))
            elif op in ("&&", "||"):
                skip = (not lvalue) if op == "&&" else bool(lvalue)
                self.noassign += skip
                self.next()
                right = self.intvalue(self.expression(prec - 1))
                self.noassign -= skip
                left = Value(
                    int(bool(lvalue) and bool(right)) if op == "&&" else int(bool(lvalue) or bool(right))
                )
            else:
                right = self.intvalue(self.expression(prec - 1))
                left = Value(self.binary(op, lvalue, right))
        return left

    def ternary(self, condition: int) -> int:
        self.noassign += not condition
        self.next()
        yes = self.intvalue(self.expression(MAX_PREC))
        self.noassign -= not condition
        if self.tok != ":":
            raise self.fail("missing :")
        self.noassign += bool(condition)
        self.next()
        no = self.intvalue(self.expression(TERN))
        self.noassign -= bool(condition)
        return yes if condition else no

    def binary(self, op: str, a: int, b: int) -> int:
        if op in ("/", "%"):
            if b == 0:
                if not self.noassign:
                    raise self.fail("zero divisor")
                b = 1
            quotient = abs(a) // abs(b)
            quotient = -quotient if (a < 0) != (b < 0) else quotient
            return wrap(quotient if op == "/" else a - quotient * b)
        if op in ("<<", ">>", "^<", "^>"):
            shift = b & 31
            unsigned = a & 0xFFFFFFFF
            if op == "<<":
                return wrap(unsigned << shift)
            if op == ">>":
                return a >> shift  # arithmetic shift, as mksh's ~(~a >> n) for negatives
            if op == "^<":
                return wrap((unsigned << shift) | (unsigned >> (32 - shift)))
            return wrap((unsigned >> shift) | (unsigned << (32 - shift)))
        table: dict[str, Callable[[int, int], int]] = {
            "*": lambda x, y: x * y,
            "+": lambda x, y: x + y,
            "-": lambda x, y: x - y,
            "<": lambda x, y: int(x < y),
            "<=": lambda x, y: int(x <= y),
            ">": lambda x, y: int(x > y),
            ">=": lambda x, y: int(x >= y),
            "==": lambda x, y: int(x == y),
            "!=": lambda x, y: int(x != y),
            "&": lambda x, y: x & y,
            "^": lambda x, y: x ^ y,
            "|": lambda x, y: x | y,
            ",": lambda x, y: y,
        }
        return wrap(table[op](a, b))


def evaluate(expr: str, get: Getter, put: Setter | None = None, hex_ok: bool = True) -> int:
    """The value of an arithmetic expression; `get` reads a variable (None: unset), `put` sets one;
    `hex_ok` False as test's `-eq` reads its operands (mksh's evaluate with arith false)."""
    if len(expr) > MAX_LEN:
        raise ArithError(f"{expr[:40]}...: expression too long")

    def refuse(name: str, value: int) -> None:
        raise ArithError(f"{expr}: {name}: assignment not allowed")

    try:
        return Evaluator(expr, get, put or refuse, hex_ok=hex_ok).run()
    except RecursionError as exc:
        raise ArithError(f"{expr}: expression too deeply nested") from exc
