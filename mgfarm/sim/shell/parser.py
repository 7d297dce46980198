"""Parsing a shell command line into a tree: lists, and-or chains, pipelines, commands, redirections.

A subset of mksh (Android's /system/bin/sh) big enough for what adb clients send. Words keep their
quoting as parts so that expansion can tell `"$X"` (one field) from `$X` (split, globbed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mgfarm.sim.shell.registry import is_number


class ShellSyntaxError(Exception):
    """A command line mksh would reject; the message is the text after `syntax error: `."""


# A word part: (kind, text). kinds: "lit" quoted literal, "raw" unquoted text (globbable),
# "var" / "qvar" variable (unquoted / double-quoted), "cmd" / "qcmd" command substitution,
# "arith" / "qarith" arithmetic expansion.
Part = tuple[str, str]


@dataclass
class Word:
    parts: list[Part]


@dataclass
class Redirect:
    fd: int  # 0, 1 or 2
    op: str  # ">", ">>", "<", ">&"
    target: Word  # for ">&" a word holding the fd number


@dataclass
class Simple:
    assigns: list[tuple[str, Word]]
    words: list[Word]
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Subshell:
    body: Script
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Group:
    """`{ list; }`: runs in the current shell."""

    body: Script
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class If:
    branches: list[tuple[Script, Script]]  # (condition, body), for `if` then each `elif`
    otherwise: Script | None = None
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class While:
    condition: Script
    body: Script
    until: bool = False
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class For:
    name: str
    words: list[Word] | None  # None: `for x; do` iterates over "$@"
    body: Script
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Case:
    """`case WORD in PATTERN|PATTERN) LIST ;; ... esac`."""

    word: Word
    items: list[tuple[list[Word], Script]]
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class FuncDef:
    """`NAME() COMPOUND` or `function NAME COMPOUND`: defines NAME when run."""

    name: str
    body: Command  # its redirections are the body's: `f() { ...; } >file` writes on every call


Command = Simple | Subshell | Group | If | While | For | Case | FuncDef


@dataclass
class Pipeline:
    commands: list[Command]
    negate: bool = False


@dataclass
class AndOr:
    first: Pipeline
    rest: list[tuple[str, Pipeline]]  # ("&&" | "||", pipeline)


@dataclass
class Script:
    items: list[AndOr]


# Words that end a list when they stand where a command would start.
TERMINATORS = {"then", "elif", "else", "fi", "do", "done", "}", "esac"}
COMPOUND_WORDS = ("if", "while", "until", "for", "case", "{")
OPERATORS = ("&&", "||", ">>", ";;", ";", "&", "|", "(", ")", "<", ">", "\n")
# A run of characters that stand for themselves in an unquoted word (the lexer takes it in one
# step instead of one character at a time: a step's `--since` digests are ~130 of them).
PLAIN_RE = re.compile(r"[^ \t\r\n;&|()<>\\'\"$`]+")
SPECIAL_VARS = "?$#!@*-0123456789"
MAX_NESTING = 100  # ( ( ( ... deeper than any real script, and far from Python's recursion limit
# `${NAME:-word}` and friends, and `${#NAME}`.
PARAM_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|[?#$@*!0-9-])(:?[-=+?])(.*)", re.S)
LENGTH_RE = re.compile(r"#([A-Za-z_][A-Za-z0-9_]*|[?#$@*0-9])")
# `${NAME#pattern}` (##, %, %%), `${NAME/pattern/string}` (//), `${NAME:offset:length}`, as mksh.
TRIM_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|[@*0-9])(##|#|%%|%)(.*)", re.S)
REPLACE_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|[@*0-9])(//|/)((?:\\.|[^/\\])*)(?:/(.*))?", re.S)
SLICE_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|[@*0-9]):([^-=+?].*|)", re.S)
EXPANSIONS = (PARAM_RE, LENGTH_RE, TRIM_RE, REPLACE_RE, SLICE_RE)


@dataclass
class Token:
    kind: str  # "word", "op", "redir", "eof"
    value: str = ""
    word: Word | None = None
    fd: int = -1


def _is_name_char(c: str, first: bool) -> bool:
    return c == "_" or c.isalpha() or (not first and c.isdigit())


class Lexer:
    """Splits a command line into words and operators."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def tokens(self) -> list[Token]:
        out: list[Token] = []
        while True:
            tok = self._next()
            out.append(tok)
            if tok.kind == "eof":
                return out

    def _peek(self, n: int = 0) -> str:
        i = self.pos + n
        return self.text[i] if i < len(self.text) else ""

    def _next(self) -> Token:
        text = self.text
        while self.pos < len(text) and text[self.pos] in " \t\r":
            self.pos += 1
        if self.pos < len(text) and text[self.pos] == "\\" and self._peek(1) == "\n":
            self.pos += 2
            return self._next()
        if self.pos < len(text) and text[self.pos] == "#":
            while self.pos < len(text) and text[self.pos] != "\n":
                self.pos += 1
        if self.pos >= len(text):
            return Token("eof")
        # Redirections with an explicit fd: 2>, 2>>, 2>&1, 1>, 0<.
        c = text[self.pos]
        if is_number(c) and self._peek(1) in "<>" and self._peek(1):
            fd = int(c)
            self.pos += 1
            return self._redir(fd)
        if c == "&" and self._peek(1) == ">":
            self.pos += 1
            tok = self._redir(1)
            tok.value = "&" + tok.value
            return tok
        if c in "<>":
            return self._redir(0 if c == "<" else 1)
        if c in "&|;()\n":  # the characters an operator starts with
            for op in OPERATORS:
                if text.startswith(op, self.pos):
                    self.pos += len(op)
                    return Token("op", op)
        return Token("word", word=self._word())

    def _redir(self, fd: int) -> Token:
        text = self.text
        if text.startswith(">>", self.pos):
            op = ">>"
        elif text.startswith(">&", self.pos) or text.startswith("<&", self.pos):
            op = ">&"
        elif text.startswith(">|", self.pos):
            op = ">"
            self.pos += 1
        else:
            op = text[self.pos]
        self.pos += len(op) if op != ">&" else 2
        return Token("redir", op, fd=fd)

    def _word(self) -> Word:
        parts: list[Part] = []
        raw: list[str] = []

        def flush_raw() -> None:
            if raw:
                parts.append(("raw", "".join(raw)))
                raw.clear()

        text = self.text
        while self.pos < len(text):
            c = text[self.pos]
            if c in " \t\r\n;&|()<>":
                break
            if c == "\\":
                nxt = self._peek(1)
                self.pos += 2
                if nxt == "\n":
                    continue
                flush_raw()
                parts.append(("lit", nxt))
            elif c == "'":
                end = text.find("'", self.pos + 1)
                if end < 0:
                    raise ShellSyntaxError("unterminated quoted string")
                flush_raw()
                parts.append(("lit", text[self.pos + 1 : end]))
                self.pos = end + 1
            elif c == '"':
                flush_raw()
                self.pos += 1
                parts.extend(self._double_quoted())
            elif c == "$":
                part = self._dollar(quoted=False)
                if part is None:
                    raw.append("$")
                else:
                    flush_raw()
                    parts.append(part)
            elif c == "`":
                flush_raw()
                parts.append(("cmd", self._backtick()))
            else:
                plain = PLAIN_RE.match(text, self.pos)
                assert plain is not None  # c itself is plain
                raw.append(plain.group())
                self.pos = plain.end()
        flush_raw()
        return Word(parts)

    def _double_quoted(self) -> list[Part]:
        parts: list[Part] = []
        lit: list[str] = []
        text = self.text
        while True:
            if self.pos >= len(text):
                raise ShellSyntaxError("unterminated quoted string")
            c = text[self.pos]
            if c == '"':
                self.pos += 1
                break
            if c == "\\" and self._peek(1) in '$`"\\\n':
                if self._peek(1) != "\n":
                    lit.append(self._peek(1))
                self.pos += 2
            elif c == "$":
                part = self._dollar(quoted=True)
                if part is None:
                    lit.append("$")
                else:
                    parts.append(("lit", "".join(lit)))
                    lit.clear()
                    parts.append(part)
            elif c == "`":
                parts.append(("lit", "".join(lit)))
                lit.clear()
                parts.append(("qcmd", self._backtick()))
            else:
                lit.append(c)
                self.pos += 1
        parts.append(("lit", "".join(lit)))
        return parts

    def _dollar(self, quoted: bool) -> Part | None:
        """Parses `$NAME`, `${NAME}`, `$?`, `$(cmd)` at pos; None for a lone `$`."""
        text = self.text
        nxt = self._peek(1)
        var_kind = "qvar" if quoted else "var"
        if nxt == "(" and text.startswith("$((", self.pos):
            start = self.pos + 3
            end = self._matching_paren(start)
            if text[end + 1 : end + 2] == ")":
                self.pos = end + 2
                return ("qarith" if quoted else "arith", text[start:end])
        if nxt == "(":
            start = self.pos + 2
            end = self._matching_paren(start)
            self.pos = end + 1
            return ("qcmd" if quoted else "cmd", text[start:end])
        if nxt == "{":
            end = self._matching_brace(self.pos + 2)
            body = text[self.pos + 2 : end]
            self.pos = end + 1
            if body in SPECIAL_VARS or (body and all(_is_name_char(ch, False) for ch in body)):
                return (var_kind, body)
            if any(form.fullmatch(body) for form in EXPANSIONS):
                return ("qparam" if quoted else "param", body)
            raise ShellSyntaxError(f"${{{body}}}: bad substitution")
        if nxt and nxt in SPECIAL_VARS:
            self.pos += 2
            return (var_kind, nxt)
        if nxt and _is_name_char(nxt, True):
            end = self.pos + 1
            while end < len(text) and _is_name_char(text[end], False):
                end += 1
            name = text[self.pos + 1 : end]
            self.pos = end
            return (var_kind, name)
        self.pos += 1
        return None

    def _matching_brace(self, start: int) -> int:
        """Index of the `}` closing a `${` whose body starts at `start` (nested `${...}` allowed)."""
        depth = 1
        i = start
        text = self.text
        while i < len(text):
            if text.startswith("${", i):
                depth += 1
                i += 2
                continue
            if text[i] == "\\":
                i += 2
                continue
            if text[i] == "}":
                depth -= 1
                if depth == 0:
                    return i
            i += 1
        raise ShellSyntaxError("missing '}'")

    def _matching_paren(self, start: int) -> int:
        depth = 1
        i = start
        text = self.text
        quote = ""
        while i < len(text):
            c = text[i]
            if quote:
                if c == quote:
                    quote = ""
                elif c == "\\" and quote == '"':
                    i += 1
            elif c in "'\"":
                quote = c
            elif c == "\\":
                i += 1
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    return i
            i += 1
        raise ShellSyntaxError("unterminated command substitution")

    def _backtick(self) -> str:
        end = self.text.find("`", self.pos + 1)
        if end < 0:
            raise ShellSyntaxError("unterminated command substitution")
        body = self.text[self.pos + 1 : end]
        self.pos = end + 1
        return body


class Parser:
    """Recursive descent over the lexer's tokens."""

    def __init__(self, text: str) -> None:
        self.toks = Lexer(text).tokens()
        self.i = 0
        self.depth = 0  # nesting of ( ), { }, if/while/for bodies

    def _peek(self) -> Token:
        return self.toks[self.i]

    def _take(self) -> Token:
        tok = self.toks[self.i]
        if tok.kind != "eof":
            self.i += 1
        return tok

    def _is_op(self, *ops: str) -> bool:
        tok = self._peek()
        return tok.kind == "op" and tok.value in ops

    def _is_op_at(self, ahead: int, op: str) -> bool:
        tok = self.toks[min(self.i + ahead, len(self.toks) - 1)]
        return tok.kind == "op" and tok.value == op

    def _unexpected(self) -> ShellSyntaxError:
        tok = self._peek()
        if tok.kind == "eof":
            return ShellSyntaxError("unexpected EOF")
        shown = {"\n": "newline"}.get(tok.value, tok.value)
        if tok.kind == "word" and tok.word is not None:
            shown = "".join(text for _, text in tok.word.parts)
        return ShellSyntaxError(f"'{shown}' unexpected")

    def parse(self) -> Script:
        script = self._script(top=True)
        if self._peek().kind != "eof":
            raise self._unexpected()
        return script

    def _skip_newlines(self) -> None:
        while self._is_op("\n"):
            self._take()

    def _script(self, top: bool) -> Script:
        items: list[AndOr] = []
        self._skip_newlines()
        while True:
            tok = self._peek()
            if tok.kind == "eof" or (tok.kind == "op" and tok.value in (")", ";;")):
                break
            if self._keyword() in TERMINATORS:
                break
            items.append(self._and_or())
            if self._is_op(";", "&", "\n"):
                self._take()
                self._skip_newlines()
                continue
            break
        if not top and not items:
            raise self._unexpected()
        return Script(items)

    def _and_or(self) -> AndOr:
        first = self._pipeline()
        rest: list[tuple[str, Pipeline]] = []
        while self._is_op("&&", "||"):
            op = self._take().value
            self._skip_newlines()
            rest.append((op, self._pipeline()))
        return AndOr(first, rest)

    def _pipeline(self) -> Pipeline:
        negate = False
        tok = self._peek()
        if tok.kind == "word" and tok.word is not None and tok.word.parts == [("raw", "!")]:
            self._take()
            negate = True
        commands = [self._command()]
        while self._is_op("|"):
            self._take()
            self._skip_newlines()
            commands.append(self._command())
        return Pipeline(commands, negate)

    def _keyword(self) -> str | None:
        """The text of the next token when it is a plain unquoted word (a possible reserved word)."""
        tok = self._peek()
        if tok.kind == "word" and tok.word is not None and len(tok.word.parts) == 1:
            kind, text = tok.word.parts[0]
            if kind == "raw":
                return text
        return None

    def _expect(self, word: str) -> None:
        if self._keyword() != word:
            raise self._unexpected()
        self._take()

    def _compound(self, keyword: str) -> Command:
        self._take()
        node: Command
        if keyword == "{":
            node = Group(self._script(top=False))
            self._expect("}")
        elif keyword == "if":
            branches = [(self._script(top=False), self._then())]
            otherwise = None
            while self._keyword() == "elif":
                self._take()
                branches.append((self._script(top=False), self._then()))
            if self._keyword() == "else":
                self._take()
                otherwise = self._script(top=False)
            self._expect("fi")
            node = If(branches, otherwise)
        elif keyword in ("while", "until"):
            condition = self._script(top=False)
            node = While(condition, self._do_done(), until=keyword == "until")
        elif keyword == "case":
            node = self._case()
        else:
            node = self._for()
        while self._peek().kind == "redir":
            node.redirects.append(self._redirect())
        return node

    def _then(self) -> Script:
        self._expect("then")
        return self._script(top=False)

    def _do_done(self) -> Script:
        self._skip_newlines()
        self._expect("do")
        body = self._script(top=False)
        self._expect("done")
        return body

    def _case(self) -> Case:
        tok = self._take()
        if tok.kind != "word" or tok.word is None:
            raise self._unexpected()
        self._skip_newlines()
        self._expect("in")
        self._skip_newlines()
        items: list[tuple[list[Word], Script]] = []
        while self._keyword() != "esac":
            if self._is_op("("):
                self._take()
            patterns = [self._pattern()]
            while self._is_op("|"):
                self._take()
                patterns.append(self._pattern())
            if not self._is_op(")"):
                raise self._unexpected()
            self._take()
            self._skip_newlines()
            empty = self._is_op(";;") or self._keyword() == "esac"
            items.append((patterns, Script([]) if empty else self._script(top=False)))
            if self._is_op(";;"):
                self._take()
                self._skip_newlines()
            elif self._keyword() != "esac":
                raise self._unexpected()
        self._take()
        return Case(tok.word, items)

    def _pattern(self) -> Word:
        tok = self._take()
        if tok.kind != "word" or tok.word is None:
            raise self._unexpected()
        return tok.word

    def _function(self, name: str) -> FuncDef:
        """The body of a function definition, a compound command, after its name (and `()`)."""
        self._skip_newlines()
        keyword = self._keyword()
        if keyword not in COMPOUND_WORDS and not self._is_op("("):
            raise self._unexpected()
        return FuncDef(name, self._command())

    def _for(self) -> For:
        name = self._keyword()
        if name is None or not name.isidentifier():
            raise self._unexpected()
        self._take()
        self._skip_newlines()
        words: list[Word] | None = None
        if self._keyword() == "in":
            self._take()
            words = []
            while self._peek().kind == "word" and self._peek().word is not None:
                word = self._take().word
                assert word is not None
                words.append(word)
        if self._is_op(";", "\n"):
            self._take()
        return For(name, words, self._do_done())

    def _command(self) -> Command:
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise ShellSyntaxError("too deeply nested")
            return self._command_at_depth()
        finally:
            self.depth -= 1

    def _command_at_depth(self) -> Command:
        keyword = self._keyword()
        if keyword in COMPOUND_WORDS:
            return self._compound(keyword)
        if keyword == "function":
            self._take()
            name = self._keyword()
            if name is None or not name.isidentifier():
                raise self._unexpected()
            self._take()
            if self._is_op("(") and self._is_op_at(1, ")"):
                self._take()
                self._take()
            return self._function(name)
        if keyword is not None and _is_name(keyword) and self._is_op_at(1, "(") and self._is_op_at(2, ")"):
            self._take()
            self._take()
            self._take()
            return self._function(keyword)
        if self._is_op("("):
            self._take()
            body = self._script(top=False)
            if not self._is_op(")"):
                raise self._unexpected()
            self._take()
            sub = Subshell(body)
            while self._peek().kind == "redir":
                sub.redirects.append(self._redirect())
            return sub
        simple = Simple([], [])
        while True:
            tok = self._peek()
            if tok.kind == "redir":
                simple.redirects.append(self._redirect())
            elif tok.kind == "word" and tok.word is not None:
                self._take()
                assign = _as_assignment(tok.word) if not simple.words else None
                if assign is not None:
                    simple.assigns.append(assign)
                else:
                    simple.words.append(tok.word)
            else:
                break
        if not simple.words and not simple.assigns and not simple.redirects:
            raise self._unexpected()
        return simple

    def _redirect(self) -> Redirect:
        tok = self._take()
        target = self._peek()
        if target.kind != "word" or target.word is None:
            raise self._unexpected()
        self._take()
        op = tok.value
        if op == "&>":
            return Redirect(1, "&>", target.word)
        return Redirect(tok.fd, op, target.word)


def _is_name(text: str) -> bool:
    return bool(text) and all(_is_name_char(c, i == 0) for i, c in enumerate(text))


def _as_assignment(word: Word) -> tuple[str, Word] | None:
    """`NAME=value` as (name, value word), else None."""
    if not word.parts or word.parts[0][0] != "raw":
        return None
    first = word.parts[0][1]
    eq = first.find("=")
    if eq <= 0:
        return None
    name = first[:eq]
    if not all(_is_name_char(c, i == 0) for i, c in enumerate(name)):
        return None
    rest: list[Part] = [("raw", first[eq + 1 :])] if first[eq + 1 :] else []
    return name, Word(rest + word.parts[1:])


def parse_word_text(text: str, keep_unquoted: bool = False) -> Word:
    """The word inside `${NAME:-word}`: quotes are removed, expansions kept, nothing is split. With
    `keep_unquoted`, what stood outside quotes keeps the unquoted kinds ("raw", "var"...), for a
    pattern (`${NAME%pattern}`), where only quoted characters match themselves."""
    parts: list[Part] = []
    i = 0
    while i < len(text):
        if text[i] == "'":
            end = text.find("'", i + 1)
            end = len(text) if end < 0 else end
            parts.append(("lit", text[i + 1 : end]))
            i = end + 1
            continue
        quoted = text[i] == '"'
        if quoted:
            end = i + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            segment, i = text[i + 1 : end], end + 1
        else:
            end = i
            while end < len(text) and text[end] not in "'\"":
                end += 2 if text[end] == "\\" else 1
            segment, i = text[i:end], end
        found = Lexer(segment + '"')._double_quoted()
        if keep_unquoted and not quoted:
            found = [(UNQUOTED.get(kind, kind), value) for kind, value in found]
        parts.extend(found)
    return Word(parts)


# A part's kind outside quotes, for the kind `_double_quoted` gives it.
UNQUOTED = {"lit": "raw", "qvar": "var", "qcmd": "cmd", "qarith": "arith", "qparam": "param"}


def parse(text: str) -> Script:
    """Parse a command line; raises ShellSyntaxError."""
    return Parser(text).parse()
