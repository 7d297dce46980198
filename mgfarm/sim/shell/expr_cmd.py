"""`expr` as toybox 0.8.6 evaluates it (toys/pending/expr.c, which Android builds).

Precedence from high to low: `( )`, `:`, `* / %`, `+ -`, the comparisons, `&`, `|`; each operator
and operand its own argument. Values are strings that read as 64-bit integers where strtoll reads
all of them (the empty string is 0). `:` matches a BRE anchored at the start: the first group's text,
or the match's length. Exit status 0 for a true (non-empty, non-zero) result, 1 for false, 2 for an
error. The regex comes from an agent: it runs through the bounded engine in a worker thread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mgfarm.sim.shell.posix_regex import to_python
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.shell.safe_regex import RegexError, RegexTimeout, compile_regex, run_bounded
from mgfarm.sim.shell.toyargs import wrap

# (precedence, kind) per operator: strings/ints in and out, a comparison, integers only, the match
OPERATORS = {
    "|": (1, "logic"), "&": (2, "logic"),
    "=": (3, "compare"), "==": (3, "compare"), "!=": (3, "compare"),
    ">": (3, "compare"), ">=": (3, "compare"), "<": (3, "compare"), "<=": (3, "compare"),
    "+": (4, "int"), "-": (4, "int"), "*": (5, "int"), "/": (5, "int"), "%": (5, "int"),
    ":": (6, "match"),
}  # fmt: skip
STRTOLL = re.compile(r"[ \t\n\v\f\r]*([+-]?)([0-9]+)")
MAX_DEPTH = 200  # nested ( ) or operators: toybox recurses on its C stack, here a bound


class ExprError(Exception):
    """What expr prints after `expr: `; status 2."""


@dataclass
class Value:
    text: str | None = None  # a string, or None when the value is the integer `number`
    number: int = 0

    def as_text(self) -> str:
        return self.text if self.text is not None else str(self.number)

    def as_int(self) -> int | None:
        """The value as strtoll reads it, when it reads all of it (toybox's get_int)."""
        if self.text is None:
            return self.number
        if not self.text:
            return 0  # strtoll reads nothing and stops at the end: toybox takes it as 0
        m = STRTOLL.match(self.text)
        if m is None or not m.group(2) or m.end() != len(self.text):
            return None  # strtoll stops before the end ("-" or blanks alone: at the start)
        value = int(m.group(1) + m.group(2))
        return max(-(1 << 63), min(value, (1 << 63) - 1))  # strtoll clamps

    def false(self) -> bool:
        return self.as_int() == 0


class Evaluator:
    """Precedence climbing over the arguments, as toybox's eval_expr."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def expression(self, min_prec: int, depth: int = 0) -> Value:
        if depth > MAX_DEPTH:
            raise ExprError("expression nested too deeply")
        token = self.peek()
        if token is None:
            raise ExprError("Unexpected end of input")
        if token == "(":
            self.i += 1
            value = self.expression(1, depth + 1)
            if value.text == ")":
                raise ExprError("empty ( )")
            if self.peek() is None:
                raise ExprError("Expected )")
            if self.peek() != ")":
                raise ExprError(f"Expected ) but got {self.peek()}")
        else:
            value = Value(token)
        self.i += 1
        while (op := self.peek()) is not None and op in OPERATORS:
            prec, kind = OPERATORS[op]
            if prec < min_prec:
                break
            self.i += 1
            rhs = self.expression(prec + 1, depth + 1)
            value = self.apply(op, kind, value, rhs)
        return value

    def apply(self, op: str, kind: str, lhs: Value, rhs: Value) -> Value:
        if kind == "logic":
            if op == "|":
                return rhs if lhs.false() else lhs
            return Value(number=0) if lhs.false() or rhs.false() else lhs
        if kind == "compare":
            a, b = lhs.as_int(), rhs.as_int()
            if a is not None and b is not None:
                cmp = wrap(a - b, 32)  # toybox keeps a - b in an int: 2**32 compares equal to 0
            else:
                x, y = lhs.as_text().encode(), rhs.as_text().encode()
                cmp = (x > y) - (x < y)
            return Value(number=int(COMPARE[op](cmp)))
        if kind == "int":
            a, b = lhs.as_int(), rhs.as_int()
            if a is None or b is None:
                raise ExprError("non-integer argument")
            if op in "/%" and b == 0:
                raise ExprError("division by zero")
            return Value(number=wrap(arith(op, a, b)))
        return self.match(lhs.as_text(), rhs.as_text())

    def match(self, text: str, bre: str) -> Value:
        try:
            pattern = compile_regex(to_python(bre, extended=False))
        except RegexError as exc:
            raise ExprError(f"bad regex '{bre}': {exc}") from exc
        found = pattern.match(text)
        if pattern.groups:
            return Value((found.group(1) or "") if found else "")
        return Value(number=found.end() if found else 0)


COMPARE = {
    "=": lambda c: c == 0, "==": lambda c: c == 0, "!=": lambda c: c != 0,
    ">": lambda c: c > 0, ">=": lambda c: c >= 0, "<": lambda c: c < 0, "<=": lambda c: c <= 0,
}  # fmt: skip


def arith(op: str, a: int, b: int) -> int:
    """C's integer arithmetic: division truncates toward zero, the remainder has a's sign."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    return quotient if op == "/" else a - quotient * b


def evaluate(tokens: list[str]) -> Value:
    """The value of an expr command line (ExprError on a bad one)."""
    evaluator = Evaluator(tokens)
    value = evaluator.expression(1)
    if evaluator.peek() is not None:
        # toybox's message ends with its own newline and error_exit adds one
        raise ExprError(f"Unexpected extra input '{evaluator.peek()}'\n")
    return value


@command("expr")
async def expr(inv: Invocation) -> int:
    try:
        value = await run_bounded(evaluate, inv.argv[1:])
    except ExprError as exc:
        inv.err(f"expr: {exc}\n")
        return 2
    except RegexTimeout as exc:
        inv.err(f"expr: {exc}\n")
        return 2
    inv.out(value.as_text() + "\n")
    return 1 if value.false() else 0
