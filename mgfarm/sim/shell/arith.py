"""Shell arithmetic `$(( ... ))`: integers, + - * / % ** << >> & | ^ ~ !, comparisons, && ||, ( )."""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Mapping

MAX_LEN = 1000  # expressions are short; this keeps `2**2**2**...` style input cheap to refuse


class ArithError(ValueError):
    """An expression mksh would reject."""


def _div(a: int, b: int) -> int:
    if b == 0:
        raise ArithError("division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q  # C truncates toward zero


def _mod(a: int, b: int) -> int:
    return a - b * _div(a, b)


def _pow(a: int, b: int) -> int:
    if b < 0 or b > 64:
        raise ArithError("exponent out of range")
    return int(a**b)


def _shift(fn: Callable[[int, int], int]) -> Callable[[int, int], int]:
    def run(a: int, b: int) -> int:
        if not 0 <= b < 64:
            raise ArithError("shift out of range")
        return fn(a, b)

    return run


BINARY: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: _div,
    ast.FloorDiv: _div,
    ast.Mod: _mod,
    ast.Pow: _pow,
    ast.LShift: _shift(operator.lshift),
    ast.RShift: _shift(operator.rshift),
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
COMPARE: dict[type, Callable[[int, int], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


def _wrap(value: int) -> int:
    """64-bit signed overflow, as the shell's integers behave."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def evaluate(expr: str, variables: Mapping[str, str]) -> int:
    """The value of a shell arithmetic expression; unset or non-numeric variables count as 0."""
    if len(expr) > MAX_LEN:
        raise ArithError("expression too long")
    text = re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", r"\1", expr)
    text = text.replace("&&", " and ").replace("||", " or ")
    text = re.sub(r"!(?!=)", " not ", text)
    text = text.replace("/", "//").replace("////", "//")
    try:
        tree = ast.parse(text.strip() or "0", mode="eval")
        return _wrap(_eval(tree.body, variables))
    except (SyntaxError, RecursionError, MemoryError) as exc:
        raise ArithError(f"{expr.strip()}: syntax error") from exc


def _eval(node: ast.AST, variables: Mapping[str, str]) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        raw = variables.get(node.id, "") or "0"
        try:
            return int(raw, 0)
        except ValueError:
            return 0
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        return _wrap(BINARY[type(node.op)](_eval(node.left, variables), _eval(node.right, variables)))
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, variables)
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return value
        if isinstance(node.op, ast.Invert):
            return ~value
        if isinstance(node.op, ast.Not):
            return int(not value)
    if isinstance(node, ast.BoolOp):
        values = (_eval(v, variables) for v in node.values)
        return int(all(values)) if isinstance(node.op, ast.And) else int(any(values))
    if isinstance(node, ast.Compare) and all(type(op) in COMPARE for op in node.ops):
        left = _eval(node.left, variables)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = _eval(comparator, variables)
            if not COMPARE[type(op)](left, right):
                return 0
            left = right
        return 1
    raise ArithError("syntax error")
