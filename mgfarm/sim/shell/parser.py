"""Parsing a shell command line into a tree: lists, and-or chains, pipelines, commands, redirections.

A subset of mksh (Android's /system/bin/sh) big enough for what adb clients send. Words keep their
quoting as parts so that expansion can tell `"$X"` (one field) from `$X` (split, globbed).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from mgfarm.sim.shell.registry import is_number


class ShellSyntaxError(Exception):
    """A command line mksh would reject (or an expansion that fails while it runs); the message is
    what mksh prints after `sh: ` (for the parser's errors it starts `syntax error: `). A
    non-interactive shell ends with `status` (1; 2 for some, as mksh's)."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


# A word part: (kind, text). kinds: "lit" quoted literal, "raw" unquoted text (globbable),
# "var" / "qvar" variable (unquoted / double-quoted), "cmd" / "qcmd" command substitution,
# "arith" / "qarith" arithmetic expansion.
Part = tuple[str, str]


@dataclass
class Word:
    parts: list[Part]


@dataclass
class HereDoc:
    """A `<<WORD` document: its body is read after the line that holds the redirection."""

    delimiter: str
    strip_tabs: bool  # `<<-`
    quoted: bool  # a quoted delimiter: the body is taken as it stands, unexpanded
    body: Word | None = None


@dataclass
class Redirect:
    fd: int  # 0, 1 or 2
    op: str  # ">", ">>", "<", ">&", "<<" (here document), "<<<" (here string)
    target: Word  # for ">&" a word holding the fd number
    here: HereDoc | None = None


@dataclass
class Simple:
    assigns: list[tuple[str, Word]]
    words: list[Word]
    redirects: list[Redirect] = field(default_factory=list)
    arrays: list[tuple[str, list[Word]]] = field(default_factory=list)  # `NAME=(a b c)`


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


@dataclass
class CondNode:
    """One node of a `[[ ... ]]` expression: op is "&&", "||", "!", "word" (non-empty test), a
    unary test ("-f") with one word, or a binary one ("==", "-lt", "<") with two."""

    op: str
    words: list[Word] = field(default_factory=list)
    kids: list[CondNode] = field(default_factory=list)


@dataclass
class Cond:
    """`[[ expression ]]`: no field splitting or globbing; the right of `==` is a pattern."""

    expr: CondNode
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class ArithCommand:
    """`(( expression ))`: status 0 when the value is not zero."""

    expr: str
    redirects: list[Redirect] = field(default_factory=list)


Command = Simple | Subshell | Group | If | While | For | Case | FuncDef | Cond | ArithCommand


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
COMPOUND_WORDS = ("if", "while", "until", "for", "case", "{", "[[")
# mksh's reserved words (`type if`: "if is a reserved word").
RESERVED = frozenset(
    {"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done"}
    | {"in", "function", "time", "{", "}", "!", "[["}
)
COND_UNARY = frozenset(
    [
        "-a",
        "-b",
        "-c",
        "-d",
        "-e",
        "-f",
        "-g",
        "-G",
        "-h",
        "-H",
        "-k",
        "-L",
        "-n",
        "-O",
        "-o",
        "-p",
        "-r",
        "-s",
        "-S",
        "-t",
        "-u",
        "-v",
        "-w",
        "-x",
        "-z",
    ]
)
COND_BINARY = frozenset(
    ["=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"]
)
MAX_HEREDOCS = 64  # pending `<<` on one line

OPERATORS = ("&&", "||", ">>", ";;", ";", "&", "|", "(", ")", "<", ">", "\n")
# A run of characters that stand for themselves in an unquoted word (the lexer takes it in one
# step instead of one character at a time: a step's `--since` digests are ~130 of them).
PLAIN_RE = re.compile(r"[^ \t\r\n;&|()<>\\'\"$`]+")
QUOTED_PLAIN_RE = re.compile(r'[^"\\$`]+')  # what a double-quoted string holds as itself
HEREDOC_PLAIN_RE = re.compile(r"[^\\$`]+")
SPECIAL_VARS = "?$#!@*-0123456789"
MAX_NESTING = 100  # ( ( ( ... deeper than any real script, and far from Python's recursion limit
# `${NAME:-word}` and friends, and `${#NAME}`; a NAME may carry an array subscript (`a[1]`, `a[@]`).
NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?"
PARAM_RE = re.compile(rf"({NAME}|[?#$@*!0-9-])(:?[-=+?])(.*)", re.S)
LENGTH_RE = re.compile(rf"#({NAME}|[?#$@*0-9])")
# `${NAME#pattern}` (##, %, %%), `${NAME/pattern/string}` (//), `${NAME:offset:length}`, as mksh.
TRIM_RE = re.compile(rf"({NAME}|[@*0-9])(##|#|%%|%)(.*)", re.S)
REPLACE_RE = re.compile(rf"({NAME}|[@*0-9])(//|/)((?:\\.|[^/\\])*)(?:/(.*))?", re.S)
SLICE_RE = re.compile(rf"({NAME}|[@*0-9]):([^-=+?].*|)", re.S)
ELEMENT_RE = re.compile(rf"!?{NAME}", re.S)  # `${a[1]}`, `${a[@]}`, `${!a[@]}` (the indices)


@dataclass
class Token:
    kind: str  # "word", "op", "redir", "arith" (`(( ))`), "eof"
    value: str = ""
    word: Word | None = None
    fd: int = -1
    here: HereDoc | None = None  # on a "<<" redir token


def _is_name_char(c: str, first: bool) -> bool:
    return c == "_" or c.isalpha() or (not first and c.isdigit())


class Lexer:
    """Splits a command line into words and operators, one token at a time (mksh reads and runs
    a script line by line, so a syntax error on a later line leaves the earlier lines run)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.pending: list[HereDoc] = []  # documents whose bodies follow the current line
        self.delimiter_for: HereDoc | None = None  # the `<<` whose delimiter word comes next

    def tokens(self) -> list[Token]:
        out: list[Token] = []
        while True:
            tok = self.next_token()
            out.append(tok)
            if tok.kind == "eof":
                return out

    def next_token(self) -> Token:
        """The next token; a newline also reads the bodies of the line's here documents."""
        tok = self._next()
        if tok.kind == "redir" and tok.here is not None:
            self.delimiter_for = tok.here
        elif self.delimiter_for is not None and tok.kind == "word" and tok.word is not None:
            here = self.delimiter_for
            self.delimiter_for = None
            here.delimiter = "".join(text for _, text in tok.word.parts)
            here.quoted = any(kind == "lit" for kind, _ in tok.word.parts)
            if len(self.pending) >= MAX_HEREDOCS:
                raise ShellSyntaxError("syntax error: too many here documents")
            self.pending.append(here)
        elif (tok.kind == "op" and tok.value == "\n") or tok.kind == "eof":
            self._read_here_documents()
        return tok

    def _read_here_documents(self) -> None:
        text = self.text
        for here in self.pending:
            lines: list[str] = []
            while True:
                if self.pos >= len(text):
                    raise ShellSyntaxError(f"here document '{here.delimiter}' unclosed")
                end = text.find("\n", self.pos)
                end = len(text) if end < 0 else end
                line = text[self.pos : end]
                self.pos = end + 1
                if here.strip_tabs:
                    line = line.lstrip("\t")
                if line == here.delimiter:
                    break
                lines.append(line + "\n")
            body = "".join(lines)
            if here.quoted:
                here.body = Word([("lit", body)])
            else:
                here.body = Word(Lexer(body)._double_quoted(heredoc=True))
        self.pending = []

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
        if text.startswith("((", self.pos):
            arith = self._arith_command()
            if arith is not None:
                return arith
        if c in "&|;()\n":  # the characters an operator starts with
            for op in OPERATORS:
                if text.startswith(op, self.pos):
                    self.pos += len(op)
                    return Token("op", op)
        return Token("word", word=self._word())

    def _arith_command(self) -> Token | None:
        """`(( expr ))` when the parentheses close as `))`; else None (two subshell parens)."""
        try:
            end = self._matching_paren(self.pos + 2)
        except ShellSyntaxError:
            return None
        if self.text[end + 1 : end + 2] != ")":
            return None
        expr = self.text[self.pos + 2 : end]
        self.pos = end + 2
        return Token("arith", expr)

    def _redir(self, fd: int) -> Token:
        text = self.text
        if text.startswith("<<<", self.pos):
            self.pos += 3
            return Token("redir", "<<<", fd=fd)
        if text.startswith("<<", self.pos):
            strip = text.startswith("<<-", self.pos)
            self.pos += 3 if strip else 2
            return Token("redir", "<<", fd=fd, here=HereDoc("", strip, False))
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
                    raise ShellSyntaxError("no closing quote")
                flush_raw()
                parts.append(("lit", text[self.pos + 1 : end]))
                self.pos = end + 1
            elif c == '"':
                flush_raw()
                self.pos += 1
                parts.extend(self._double_quoted())
            elif c == "$" and self._peek(1) == "'":
                flush_raw()
                parts.append(("lit", self._dollar_single()))
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

    def _double_quoted(self, heredoc: bool = False) -> list[Part]:
        """The parts of a double-quoted string after its `"`; a here document's body (`heredoc`)
        is read the same way to its end, where `"` stands for itself."""
        parts: list[Part] = []
        lit: list[str] = []
        text = self.text
        escapable = "$`\\\n" if heredoc else '$`"\\\n'
        while True:
            if self.pos >= len(text):
                if heredoc:
                    break
                raise ShellSyntaxError("no closing quote")
            c = text[self.pos]
            if c == '"' and not heredoc:
                self.pos += 1
                break
            if c == "\\" and self._peek(1) and self._peek(1) in escapable:
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
                run = (HEREDOC_PLAIN_RE if heredoc else QUOTED_PLAIN_RE).match(text, self.pos)
                if run is None:  # a backslash escaping nothing here: itself
                    lit.append(c)
                    self.pos += 1
                else:  # a run at a time: a character at a time was the parser's main cost
                    lit.append(run.group())
                    self.pos = run.end()
        parts.append(("lit", "".join(lit)))
        return parts

    def _dollar_single(self) -> str:
        """`$'...'` at pos: a string with C escapes (`\\n`, `\\t`, `\\x41`, `\\u00e9`, `\\'`)."""
        text = self.text
        i = self.pos + 2
        while i < len(text) and text[i] != "'":
            i += 2 if text[i] == "\\" else 1
        if i >= len(text):
            raise ShellSyntaxError("no closing quote")
        body = text[self.pos + 2 : i]
        self.pos = i + 1
        return C_ESCAPE_RE.sub(_c_escape, body)

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
            # Any other body is mksh's "bad substitution", found when it is expanded (in a
            # pipeline stage that ends only that stage).
            return ("qparam" if quoted else "param", body)
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
        raise ShellSyntaxError("no closing quote")

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
        raise ShellSyntaxError("syntax error: unmatched '('")

    def _backtick(self) -> str:
        """`cmd` at pos: the command, its backslash-escaped backquotes, dollars and backslashes unescaped."""
        text = self.text
        body: list[str] = []
        i = self.pos + 1
        while i < len(text) and text[i] != "`":
            if text[i] == "\\" and text[i + 1 : i + 2] in ("`", "$", "\\"):
                i += 1
            body.append(text[i])
            i += 1
        if i >= len(text):
            raise ShellSyntaxError("no closing quote")
        self.pos = i + 1
        return "".join(body)


class Parser:
    """Recursive descent over the lexer's tokens, taken as they are needed."""

    def __init__(self, text: str) -> None:
        self.lexer = Lexer(text)
        self.toks: list[Token] = []
        self.i = 0
        self.depth = 0  # nesting of ( ), { }, if/while/for bodies
        self.open: list[str] = []  # constructs begun and not yet ended, for "unmatched 'if'"

    def _tok(self, index: int) -> Token:
        while len(self.toks) <= index:
            if self.toks and self.toks[-1].kind == "eof":
                return self.toks[-1]
            self.toks.append(self.lexer.next_token())
        return self.toks[index]

    def _peek(self) -> Token:
        return self._tok(self.i)

    def _take(self) -> Token:
        tok = self._tok(self.i)
        if tok.kind != "eof":
            self.i += 1
        return tok

    def _is_op(self, *ops: str) -> bool:
        tok = self._peek()
        return tok.kind == "op" and tok.value in ops

    def _is_op_at(self, ahead: int, op: str) -> bool:
        tok = self._tok(self.i + ahead)
        return tok.kind == "op" and tok.value == op

    def _unexpected(self) -> ShellSyntaxError:
        tok = self._peek()
        if tok.kind == "eof":
            if self.open:
                return ShellSyntaxError(f"syntax error: unmatched '{self.open[-1]}'")
            return ShellSyntaxError("syntax error: unexpected EOF")
        shown = {"\n": "newline"}.get(tok.value, tok.value)
        if tok.kind == "word" and tok.word is not None:
            shown = "".join(text for _, text in tok.word.parts)
        elif tok.kind == "arith":
            shown = "(("
        return ShellSyntaxError(f"syntax error: unexpected '{shown}'")

    def parse(self) -> Script:
        items: list[AndOr] = []
        for line in self.lines():
            items.extend(line.items)
        return Script(items)

    def lines(self) -> Iterator[Script]:
        """The script one line at a time (commands up to a newline), each parsed just before it
        is to run: mksh runs `echo a` on line one before it finds line two's syntax error."""
        while True:
            self._skip_newlines()
            if self._peek().kind == "eof":
                return
            items: list[AndOr] = []
            while True:
                if self._keyword() in TERMINATORS or self._is_op(")", ";;"):
                    raise self._unexpected()
                items.append(self._and_or())
                if self._is_op(";", "&"):
                    self._take()
                if self._is_op("\n") or self._peek().kind == "eof":
                    break
                if self.toks[self.i - 1].value not in (";", "&"):
                    raise self._unexpected()
            yield Script(items)

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
        self.open.append(keyword)
        node: Command
        if keyword == "{":
            node = Group(self._script(top=False))
            self._expect("}")
        elif keyword == "[[":
            node = Cond(self._cond())
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
        self.open.pop()
        self._redirects(node.redirects)
        return node

    def _redirects(self, into: list[Redirect]) -> None:
        while self._peek().kind == "redir":
            into.append(self._redirect())

    def _cond(self) -> CondNode:
        """The inside of `[[ ... ]]`, after `[[`, through `]]`."""
        items: list[Word | str] = []
        while self._keyword() != "]]":
            tok = self._peek()
            if tok.kind == "word" and tok.word is not None:
                items.append(tok.word)
            elif (tok.kind == "op" and tok.value in ("&&", "||", "(", ")")) or (
                tok.kind == "redir" and tok.value in ("<", ">") and tok.fd == (0 if tok.value == "<" else 1)
            ):
                items.append(tok.value)
            elif tok.kind == "op" and tok.value == "\n":
                pass
            else:
                raise self._cond_error(tok)
            self._take()
        self._take()
        return CondParser(items).parse()

    def _cond_error(self, tok: Token) -> ShellSyntaxError:
        if tok.kind == "eof":
            return self._unexpected()
        return ShellSyntaxError(f"syntax error: unexpected operator/operand '{tok.value}'")

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
        if keyword not in COMPOUND_WORDS and not self._is_op("(") and self._peek().kind != "arith":
            raise self._unexpected()
        return FuncDef(name, self._command())

    def _for(self) -> For:
        name = self._keyword()
        if name is None or not _is_name(name):
            raise ShellSyntaxError("for: bad identifier")
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
                raise ShellSyntaxError("syntax error: too deeply nested")
            return self._command_at_depth()
        finally:
            self.depth -= 1

    def _command_at_depth(self) -> Command:
        keyword = self._keyword()
        if keyword in COMPOUND_WORDS:
            return self._compound(keyword)
        if self._peek().kind == "arith":
            arith = ArithCommand(self._take().value)
            self._redirects(arith.redirects)
            return arith
        if keyword == "function":
            self._take()
            name = self._keyword()
            if name is None or not _is_name(name):
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
            self.open.append("(")
            body = self._script(top=False)
            if not self._is_op(")"):
                raise self._unexpected()
            self._take()
            self.open.pop()
            sub = Subshell(body)
            self._redirects(sub.redirects)
            return sub
        return self._simple()

    def _simple(self) -> Simple:
        simple = Simple([], [])
        while True:
            tok = self._peek()
            if tok.kind == "redir":
                simple.redirects.append(self._redirect())
            elif tok.kind == "word" and tok.word is not None:
                self._take()
                assign = _as_assignment(tok.word) if not simple.words else None
                if assign is not None and not assign[1].parts and self._is_op("("):
                    simple.arrays.append((assign[0], self._array_words()))
                elif assign is not None:
                    simple.assigns.append(assign)
                else:
                    simple.words.append(tok.word)
            else:
                break
        if not simple.words and not simple.assigns and not simple.redirects and not simple.arrays:
            raise self._unexpected()
        return simple

    def _array_words(self) -> list[Word]:
        """The words of `NAME=(a b c)`, after `NAME=`."""
        self._take()
        words: list[Word] = []
        while True:
            self._skip_newlines()
            tok = self._peek()
            if tok.kind == "op" and tok.value == ")":
                self._take()
                return words
            if tok.kind != "word" or tok.word is None:
                raise self._unexpected()
            words.append(tok.word)
            self._take()

    def _redirect(self) -> Redirect:
        tok = self._take()
        target = self._peek()
        if target.kind != "word" or target.word is None:
            raise self._unexpected()
        self._take()
        op = tok.value
        if op == "&>":
            return Redirect(1, "&>", target.word)
        return Redirect(tok.fd, op, target.word, tok.here)


class CondParser:
    """The items of a `[[ ]]` (words and `&& || ( ) < >`) as a tree, as mksh's test parser."""

    def __init__(self, items: list[Word | str]) -> None:
        self.items = items
        self.i = 0
        self.depth = 0

    def _peek(self, ahead: int = 0) -> Word | str | None:
        i = self.i + ahead
        return self.items[i] if i < len(self.items) else None

    def _text(self, ahead: int = 0) -> str | None:
        """The item as an operator: a bare operator or an unquoted plain word."""
        item = self._peek(ahead)
        if isinstance(item, str):
            return item
        if item is not None and len(item.parts) == 1 and item.parts[0][0] == "raw":
            return item.parts[0][1]
        return None

    def _error(self) -> ShellSyntaxError:
        item = self._peek()
        if item is None:
            return ShellSyntaxError("syntax error: unexpected operator/operand ']]'")
        shown = item if isinstance(item, str) else "".join(text for _, text in item.parts)
        return ShellSyntaxError(f"syntax error: unexpected operator/operand '{shown}'")

    def parse(self) -> CondNode:
        if not self.items:
            raise ShellSyntaxError("syntax error: unexpected operator/operand ']]'")
        node = self._or()
        if self._peek() is not None:
            raise self._error()
        return node

    def _or(self) -> CondNode:
        node = self._and()
        while self._peek() == "||":
            self.i += 1
            node = CondNode("||", kids=[node, self._and()])
        return node

    def _and(self) -> CondNode:
        node = self._not()
        while self._peek() == "&&":
            self.i += 1
            node = CondNode("&&", kids=[node, self._not()])
        return node

    def _not(self) -> CondNode:
        if self._text() == "!" and self._peek(1) is not None:
            self.i += 1
            return CondNode("!", kids=[self._not()])
        return self._primary()

    def _word(self) -> Word:
        item = self._peek()
        if not isinstance(item, Word):
            raise self._error()
        self.i += 1
        return item

    def _primary(self) -> CondNode:
        if self._peek() == "(":
            self.depth += 1
            if self.depth > MAX_NESTING:
                raise ShellSyntaxError("syntax error: too deeply nested")
            self.i += 1
            node = self._or()
            if self._peek() != ")":
                raise self._error()
            self.i += 1
            self.depth -= 1
            return node
        op = self._text()
        if op in COND_UNARY and isinstance(self._peek(1), Word) and self._text(2) not in COND_BINARY:
            self.i += 1
            return CondNode(op, [self._word()])
        left = self._word()
        op = self._text()
        if op == "=~":
            raise self._error()
        if op in COND_BINARY:
            self.i += 1
            return CondNode(op, [left, self._word()])
        return CondNode("word", [left])


def _is_name(text: str) -> bool:
    return bool(text) and all(_is_name_char(c, i == 0) for i, c in enumerate(text))


ASSIGN_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?)(\+?)=")


def _as_assignment(word: Word) -> tuple[str, Word] | None:
    """`NAME=value` (also `NAME[i]=value`, `NAME+=value`) as (name, value word), else None. The
    name keeps a `+` for `+=`."""
    if not word.parts or word.parts[0][0] != "raw":
        return None
    first = word.parts[0][1]
    m = ASSIGN_RE.match(first)
    if m is None:
        return None
    rest: list[Part] = [("raw", first[m.end() :])] if first[m.end() :] else []
    return m.group(1) + m.group(2), Word(rest + word.parts[1:])


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
    """Parse a whole command line; raises ShellSyntaxError."""
    return Parser(text).parse()


C_ESCAPE_RE = re.compile(r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)", re.S)
C_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "e": "\x1b",
    "E": "\x1b",
}


def _c_escape(m: re.Match[str]) -> str:
    """One escape of a `$'...'` string."""
    code = m.group(1)
    if code[0] in "xuU" and len(code) > 1:
        value = int(code[1:], 16)
        if code[0] == "x":
            return chr(value) if value < 0x80 else chr(0xDC00 | value)  # one byte, as printf's
        return chr(value) if value < 0x110000 else "\ufffd"
    if code[0] in "01234567":
        value = int(code, 8) & 0xFF
        return chr(value) if value < 0x80 else chr(0xDC00 | value)
    if code[0] == "c" and len(code) == 2:
        return chr(ord(code[1].upper()) ^ 0x40) if code[1] != "?" else "\x7f"
    return C_ESCAPES.get(code, code)
