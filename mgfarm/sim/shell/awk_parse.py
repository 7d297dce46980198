"""awk programs read into trees: the one-true-awk grammar (POSIX awk) that `awk.py` runs.

Nodes are tuples `(kind, ...)`, expressions and statements alike; a rule is (pattern, range end,
action). Nesting is bounded (MAX_DEPTH), so a hostile program ends in a syntax error, not a crash.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MAX_DEPTH = 200  # statements, expressions and function calls deep
GETLINE = "getline is not supported on this device's awk"
DIGITS = "0123456789"
NUMBER_TOKEN = re.compile(r"[0-9]*\.?[0-9]*(?:[eE][-+]?[0-9]+)?")  # no hex: `0x10` is 0 then x10
NAME_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

KEYWORDS = {
    "BEGIN", "END", "function", "func", "if", "else", "while", "for", "do", "break", "continue",
    "next", "nextfile", "exit", "return", "delete", "in", "getline", "print", "printf",
}  # fmt: skip
BUILTINS = {
    "length", "substr", "index", "split", "sub", "gsub", "match", "sprintf", "tolower", "toupper",
    "int", "sqrt", "exp", "log", "sin", "cos", "atan2", "rand", "srand", "system", "close", "fflush",
}  # fmt: skip
# Two- and three-character operators, longest first.
OPERATORS = ("**=", "&&", "||", "==", "<=", ">=", "!=", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "**",
             ">>", "!~")  # fmt: skip
ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "^=", "**="}
# Tokens after which `/` starts a regex rather than dividing.
OPERAND_END = {"NUMBER", "STRING", "ERE", "NAME", "BUILTIN", ")", "]", "$", "++", "--"}


class AwkError(Exception):
    """A program or a run one-true-awk refuses; the message follows `awk: `."""


class AwkSyntaxError(AwkError):
    pass


# ---- lexer --------------------------------------------------------------------------------------


@dataclass
class Token:
    kind: str  # NUMBER STRING ERE NAME FUNC_NAME BUILTIN NEWLINE EOF, a keyword, or the operator itself
    value: str
    line: int


ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "/": "/", "a": "\a", "b": "\b", "f": "\f",
           "v": "\v"}  # fmt: skip


def tokenize(source: str) -> list[Token]:
    out: list[Token] = []
    i, line = 0, 1
    n = len(source)
    while i < n:
        c = source[i]
        if c in " \t\r":
            i += 1
        elif c == "\\" and source[i + 1 : i + 2] == "\n":
            i, line = i + 2, line + 1
        elif c == "#":
            while i < n and source[i] != "\n":
                i += 1
        elif c == "\n":
            out.append(Token("NEWLINE", "\n", line))
            i, line = i + 1, line + 1
        elif c == '"':
            text, i = _string(source, i + 1, '"', line)
            out.append(Token("STRING", text, line))
        elif c == "/" and (not out or out[-1].kind not in OPERAND_END):
            text, i = _regex(source, i + 1, line)
            out.append(Token("ERE", text, line))
        elif c in DIGITS or (c == "." and source[i + 1 : i + 2] in DIGITS and i + 1 < n):
            m = NUMBER_TOKEN.match(source, i)
            assert m is not None
            out.append(Token("NUMBER", m.group(), line))
            i = m.end()
        elif c.isascii() and (c.isalpha() or c == "_"):
            m = NAME_TOKEN.match(source, i)
            assert m is not None
            word = m.group()
            i = m.end()
            if word in KEYWORDS:
                out.append(Token(word, word, line))
            elif word in BUILTINS:
                out.append(Token("BUILTIN", word, line))
            elif source[i : i + 1] == "(":
                out.append(Token("FUNC_NAME", word, line))
            else:
                out.append(Token("NAME", word, line))
        else:
            op = next((o for o in OPERATORS if source.startswith(o, i)), c)
            if op not in OPERATORS and c not in "{}()[];,+-*/%^!><|?:~$=":
                raise AwkSyntaxError(f"syntax error at source line {line}")
            out.append(Token(op, op, line))
            i += len(op)
    out.append(Token("EOF", "", line))
    return out


def _string(source: str, i: int, end: str, line: int) -> tuple[str, int]:
    out: list[str] = []
    while i < len(source) and source[i] != end:
        c = source[i]
        if c == "\n":
            raise AwkSyntaxError(f"non-terminated string at source line {line}")
        if c == "\\" and i + 1 < len(source):
            nxt = source[i + 1]
            octal = re.compile(r"[0-7]{1,3}").match(source, i + 1)
            if octal:
                out.append(chr(int(octal.group(), 8)))
                i = octal.end()
                continue
            out.append(ESCAPES.get(nxt, "\\" + nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    if i >= len(source):
        raise AwkSyntaxError(f"non-terminated string at source line {line}")
    return "".join(out), i + 1


def _regex(source: str, i: int, line: int) -> tuple[str, int]:
    out: list[str] = []
    in_class = False
    while i < len(source):
        c = source[i]
        if c == "\n":
            break
        if c == "\\" and i + 1 < len(source):
            out.append("/" if source[i + 1] == "/" else source[i : i + 2])
            i += 2
            continue
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            return "".join(out), i + 1
        out.append(c)
        i += 1
    raise AwkSyntaxError(f"non-terminated regular expression at source line {line}")


# ---- parser -------------------------------------------------------------------------------------
# Nodes are tuples: (kind, ...). Expressions and statements alike.

Node = tuple[Any, ...]


@dataclass
class Program:
    begin: list[Node] = field(default_factory=list)
    rules: list[tuple[Node | None, Node | None, Node | None]] = field(
        default_factory=list
    )  # from, to, action
    end: list[Node] = field(default_factory=list)
    functions: dict[str, tuple[list[str], Node]] = field(default_factory=dict)


class Parser:
    def __init__(self, source: str) -> None:
        self.toks = tokenize(source)
        self.i = 0
        self.depth = 0

    # -- helpers
    def peek(self, ahead: int = 0) -> Token:
        return self.toks[min(self.i + ahead, len(self.toks) - 1)]

    def take(self, kind: str | None = None) -> Token:
        tok = self.peek()
        if kind is not None and tok.kind != kind:
            raise self.error()
        if tok.kind != "EOF":
            self.i += 1
        return tok

    def at(self, *kinds: str) -> bool:
        return self.peek().kind in kinds

    def error(self) -> AwkSyntaxError:
        return AwkSyntaxError(f"syntax error at source line {self.peek().line}")

    def newlines(self) -> None:
        while self.at("NEWLINE"):
            self.take()

    def terminators(self) -> None:
        while self.at("NEWLINE", ";"):
            self.take()

    # -- program
    def program(self) -> Program:
        prog = Program()
        self.terminators()
        while not self.at("EOF"):
            if self.at("BEGIN", "END"):
                which = self.take().kind
                self.newlines()
                (prog.begin if which == "BEGIN" else prog.end).append(self.block())
            elif self.at("function", "func"):
                self.take()
                name = self.take().value
                if name in prog.functions or not re.fullmatch(r"[A-Za-z_]\w*", name):
                    raise self.error()
                self.take("(")
                params: list[str] = []
                while not self.at(")"):
                    params.append(self.take("NAME").value)
                    if self.at(","):
                        self.take()
                        self.newlines()
                self.take(")")
                self.newlines()
                prog.functions[name] = (params, self.block())
            else:
                start = None if self.at("{") else self.expr()
                stop = None
                if self.at(","):
                    self.take()
                    self.newlines()
                    stop = self.expr()
                action = self.block() if self.at("{") else None
                prog.rules.append((start, stop, action))
            self.terminators()
        return prog

    def block(self) -> Node:
        self.take("{")
        body: list[Node] = []
        self.terminators()
        while not self.at("}"):
            body.append(self.statement())
            self.terminators()
        self.take("}")
        return ("block", body)

    def nested(self) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise AwkSyntaxError(f"nesting too deep at source line {self.peek().line}")
        try:
            return self.statement()
        finally:
            self.depth -= 1

    def simple_end(self) -> None:
        if self.at(";", "NEWLINE"):
            self.take()
        elif not self.at("}", "EOF"):
            raise self.error()

    def statement(self) -> Node:
        tok = self.peek()
        kind = tok.kind
        if kind == "{":
            return self.block()
        if kind == ";":
            self.take()
            return ("block", [])
        if kind == "if":
            self.take()
            self.take("(")
            cond = self.expr()
            self.take(")")
            self.newlines()
            then = self.nested()
            if self._else_follows():
                self.terminators()
            other = None
            if self.at("else"):
                self.take()
                self.newlines()
                other = self.nested()
            return ("if", cond, then, other)
        if kind == "while":
            self.take()
            self.take("(")
            cond = self.expr()
            self.take(")")
            if self.at(";"):
                self.take()
                return ("while", cond, ("block", []))
            self.newlines()
            return ("while", cond, self.nested())
        if kind == "do":
            self.take()
            self.newlines()
            body = self.nested()
            self.terminators()
            self.take("while")
            self.take("(")
            cond = self.expr()
            self.take(")")
            self.simple_end()
            return ("do", body, cond)
        if kind == "for":
            return self.for_statement()
        node = self.simple_statement()
        self.simple_end()
        return node

    def _else_follows(self) -> bool:
        """Whether `else` comes after the `if` branch's newlines and semicolons (which it may skip)."""
        j = self.i
        while self.toks[j].kind in ("NEWLINE", ";"):
            j += 1
        return self.toks[j].kind == "else"

    def for_statement(self) -> Node:
        self.take()
        self.take("(")
        if (
            self.at("NAME")
            and self.peek(1).kind == "in"
            and self.peek(2).kind == "NAME"
            and self.peek(3).kind == ")"
        ):
            var = self.take().value
            self.take()
            array = self.take().value
            self.take(")")
            self.newlines()
            return ("forin", var, array, self.nested())
        init = None if self.at(";") else self.simple_statement()
        self.take(";")
        self.newlines()
        cond = None if self.at(";") else self.expr()
        self.take(";")
        self.newlines()
        step = None if self.at(")") else self.simple_statement()
        self.take(")")
        if self.at(";"):
            self.take()
            return ("for", init, cond, step, ("block", []))
        self.newlines()
        return ("for", init, cond, step, self.nested())

    def simple_statement(self) -> Node:
        kind = self.peek().kind
        if kind in ("print", "printf"):
            self.take()
            args: list[Node] = []
            if not self.at(";", "NEWLINE", "}", ">", ">>", "|", "EOF"):
                args = self.expr_list(no_gt=True)
            if len(args) == 1 and args[0][0] == "group":
                args = list(args[0][1])
            target = None
            if self.at(">", ">>"):  # only to the standard streams (STREAMS): the device's files stay out
                self.take()
                target = self.concat_expr(no_gt=True)
            elif self.at("|"):
                raise AwkError("output to a command (|) is not supported on this device's awk")
            if kind == "printf" and not args:
                raise self.error()
            return (kind, args, target)
        if kind in ("next", "nextfile", "break", "continue"):
            self.take()
            return (kind,)
        if kind in ("exit", "return"):
            self.take()
            value = None if self.at(";", "NEWLINE", "}", "EOF") else self.expr()
            return (kind, value)
        if kind == "delete":
            self.take()
            name = self.take("NAME").value
            if self.at("["):
                self.take()
                subs = self.expr_list()
                self.take("]")
                return ("delete", name, subs)
            return ("delete", name, None)
        if kind == "getline":
            raise AwkError(GETLINE)
        return ("expr", self.expr())

    def expr_list(self, no_gt: bool = False) -> list[Node]:
        items = [self.expr(no_gt)]
        while self.at(","):
            self.take()
            self.newlines()
            items.append(self.expr(no_gt))
        return items

    # -- expressions, lowest precedence first
    def expr(self, no_gt: bool = False) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise AwkSyntaxError(f"expression too deep at source line {self.peek().line}")
        try:
            node = self.ternary(no_gt)
        finally:
            self.depth -= 1
        if self.at("|") and self.peek(1).kind == "getline":  # `"cmd" | getline`
            raise AwkError(GETLINE)
        return node

    def ternary(self, no_gt: bool) -> Node:
        cond = self.or_expr(no_gt)
        if self.at("?"):
            self.take()
            self.newlines()
            yes = self.ternary(no_gt)
            self.newlines()
            self.take(":")
            self.newlines()
            return ("?", cond, yes, self.ternary(no_gt))
        if self.at(*ASSIGN_OPS) and cond[0] in ("var", "index", "field"):
            op = self.take().kind
            self.newlines()
            return ("assign", op, cond, self.ternary(no_gt))
        return cond

    def or_expr(self, no_gt: bool) -> Node:
        return self.logical("||", lambda: self.and_expr(no_gt))

    def and_expr(self, no_gt: bool) -> Node:
        return self.logical("&&", lambda: self.in_expr(no_gt))

    def logical(self, op: str, operand: Callable[[], Node]) -> Node:
        """`a || b || c` (or &&), left to right; a newline may follow the operator."""
        left = operand()
        while self.at(op):
            self.take()
            self.newlines()
            left = (op, left, operand())
        return left

    def in_expr(self, no_gt: bool) -> Node:
        left = self.match_expr(no_gt)
        while self.at("in"):
            self.take()
            name = self.take("NAME").value
            subs = list(left[1]) if left[0] == "group" else [left]
            left = ("in", subs, name)
        return left

    def match_expr(self, no_gt: bool) -> Node:
        left = self.compare_expr(no_gt)
        while self.at("~", "!~"):
            op = self.take().kind
            left = (op, left, self.compare_expr(no_gt))
        return left

    def compare_expr(self, no_gt: bool) -> Node:
        left = self.concat_expr(no_gt)
        ops = ("<", "<=", "!=", "==", ">=") if no_gt else ("<", "<=", "!=", "==", ">", ">=")
        if self.at(*ops):
            op = self.take().kind
            return ("cmp", op, left, self.concat_expr(no_gt))
        return left

    def concat_expr(self, no_gt: bool) -> Node:
        left = self.additive()
        while self.at("NUMBER", "STRING", "ERE", "NAME", "FUNC_NAME", "BUILTIN", "$", "(", "!", "++", "--"):
            if self.at("!") and self.peek(1).kind in ("=", "~"):
                break
            left = ("concat", left, self.additive())
        return left

    def additive(self) -> Node:
        return self.arith(("+", "-"), self.multiplicative)

    def multiplicative(self) -> Node:
        return self.arith(("*", "/", "%"), self.unary)

    def arith(self, ops: tuple[str, ...], operand: Callable[[], Node]) -> Node:
        left = operand()
        while self.at(*ops):
            op = self.take().kind
            left = ("arith", op, left, operand())
        return left

    def unary(self) -> Node:
        if self.at("!"):
            self.take()
            return ("not", self.unary())
        if self.at("-", "+"):
            op = self.take().kind
            return ("neg" if op == "-" else "plus", self.unary())
        return self.power()

    def power(self) -> Node:
        base = self.postfix()
        if self.at("^", "**"):
            self.take()
            return ("arith", "^", base, self.unary_power())
        return base

    def unary_power(self) -> Node:
        """The exponent: right associative, and it may carry its own sign (`2^-1`)."""
        if self.at("-", "+", "!"):
            op = self.take().kind
            inner = self.unary_power()
            return ("neg", inner) if op == "-" else ("not", inner) if op == "!" else ("plus", inner)
        return self.power()

    def postfix(self) -> Node:
        if self.at("++", "--"):
            op = self.take().kind
            target = self.postfix()
            if target[0] not in ("var", "index", "field"):
                raise self.error()
            return ("incr", op, target, True)
        node = self.primary()
        if self.at("++", "--") and node[0] in ("var", "index", "field"):
            op = self.take().kind
            return ("incr", op, node, False)
        return node

    def primary(self) -> Node:
        tok = self.take()
        kind = tok.kind
        if kind == "NUMBER":
            text = tok.value
            return ("num", float(text or 0))
        if kind == "STRING":
            return ("str", tok.value)
        if kind == "ERE":
            return ("ere", tok.value)
        if kind == "$":
            return ("field", self.field_operand())
        if kind == "(":
            self.newlines()
            items = self.expr_list()
            self.newlines()
            self.take(")")
            return items[0] if len(items) == 1 else ("group", items)
        if kind == "NAME":
            if self.at("["):
                self.take()
                subs = self.expr_list()
                self.take("]")
                return ("index", tok.value, subs)
            return ("var", tok.value)
        if kind == "FUNC_NAME":
            self.take("(")
            args = [] if self.at(")") else self.expr_list()
            self.take(")")
            return ("call", tok.value, args)
        if kind == "BUILTIN":
            if not self.at("("):
                if tok.value == "length":
                    return ("builtin", "length", [])
                raise self.error()
            self.take()
            args = [] if self.at(")") else self.expr_list()
            self.take(")")
            return ("builtin", tok.value, args)
        if kind in ("-", "+", "!"):
            inner = self.unary()
            return ("neg", inner) if kind == "-" else ("not", inner) if kind == "!" else ("plus", inner)
        if kind == "getline":
            raise AwkError(GETLINE)
        raise AwkSyntaxError(f"syntax error at source line {tok.line}")

    def field_operand(self) -> Node:
        """What follows `$`: a primary, with ++/-- and a sign allowed (`$NF`, `$(i+1)`, `$i++`)."""
        if self.at("-"):
            self.take()
            return ("neg", self.field_operand())
        if self.at("++", "--"):
            op = self.take().kind
            return ("incr", op, self.primary(), True)
        return self.primary()
