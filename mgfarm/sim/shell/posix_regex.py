"""POSIX regexes (BRE and ERE, as grep and sed read them) in the regex module's syntax.

One conversion for every command that takes a POSIX regex. What differs from Python's reading:
in a BRE `\\( \\) \\{ \\} \\| \\+ \\?` are the operators and the bare characters literals; `^` anchors
only at the start of the regex or of a group or branch and `*` there is literal; `$` anchors only
at the end (of the regex, a group or a branch) and elsewhere is a dollar, in both dialects only at the
very end of the text (`\\Z`: Python's `$` also matches before a last newline); a backslash in a
bracket expression is itself; `\\<` `\\>` (and `[[:<:]]` `[[:>:]]`) are word starts and ends.
"""

from __future__ import annotations

import re

from mgfarm.sim.shell.safe_regex import RegexError

OPERATORS = "(){}|+?"
WORD_EDGES = {"[[:<:]]": r"\m", "[[:>:]]": r"\M"}
INTERVAL = re.compile(r"(\d*)(,(\d*))?")


def interval(regex: str, start: int, extended: bool) -> tuple[str, int]:
    """The interval `{m,n}` (ERE) or `\\{m,n\\}` (BRE) whose body starts at `start`: (its Python
    text, the index after it). An unclosed or malformed one is an error, as regcomp makes it
    (Python would read it as literal text)."""
    close = "}" if extended else "\\}"
    end = regex.find(close, start)
    if end < 0:
        raise RegexError("Unmatched \\{")
    m = INTERVAL.fullmatch(regex, start, end)
    low, high = (m.group(1), m.group(3)) if m else ("", None)
    if m is None or (not low and not m.group(2)) or (low and high and int(low) > int(high)):
        raise RegexError("Invalid content of \\{\\}")
    return "{" + regex[start:end] + "}", end + len(close)


def bracket_end(text: str, start: int) -> int:
    """The index after the `]` closing the bracket expression at `start` (or the end)."""
    i = start + 1
    if text[i : i + 1] == "^":
        i += 1
    if text[i : i + 1] == "]":
        i += 1
    while i < len(text):
        if text.startswith(("[:", "[.", "[="), i):
            close = text.find(text[i + 1] + "]", i + 2)
            if close > 0:
                i = close + 2
                continue
        if text[i] == "]":
            return i + 1
        i += 1
    return len(text)


def to_python(regex: str, extended: bool) -> str:
    """A POSIX BRE (or ERE) as the regex module reads it."""
    out: list[str] = []
    i = 0
    while i < len(regex):
        c = regex[i]
        starts = not out or out[-1] in ("(", "|", "^")  # a place a BRE's `*` is literal
        if c == "[":
            end = bracket_end(regex, i)
            body = regex[i:end]
            out.append(WORD_EDGES.get(body) or body.replace("\\", "\\\\"))
            i = end
            continue
        if c == "\\" and i + 1 < len(regex):
            nxt = regex[i + 1]
            if nxt in "<>":
                out.append(r"\m" if nxt == "<" else r"\M")
            elif nxt == "{" and not extended:
                if starts:
                    raise RegexError("Invalid preceding regular expression")
                text, i = interval(regex, i + 2, extended)
                out.append(text)
                continue
            elif nxt in OPERATORS and not extended:
                out.append(nxt)
            else:
                out.append("\\" + nxt)
            i += 2
            continue
        if c == "$":
            rest = regex[i + 1 :]
            anchor = extended or not rest or rest.startswith(("\\)", "\\|"))
            out.append(r"\Z" if anchor else r"\$")
        elif c == "^" and not extended:
            out.append("^" if not out or out[-1] in ("(", "|") else r"\^")
        elif c == "{" and extended:
            if starts:
                raise RegexError("Invalid preceding regular expression")
            text, i = interval(regex, i + 1, extended)
            out.append(text)
            continue
        elif c in OPERATORS and not extended:
            out.append("\\" + c)
        elif c == "*" and starts and (not extended or not out):
            out.append(r"\*")
        else:
            out.append(c)
        i += 1
    return "".join(out)
