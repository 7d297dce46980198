"""Word helpers of the shell as mksh has them: brace expansion, IFS field splitting, glob quoting
and the quoting of `set -x` traces."""

from __future__ import annotations

import itertools
import re

from mgfarm.sim.shell.parser import Part, ShellSyntaxError, Word

MAX_BRACE_WORDS = 4096  # words one brace expansion may make (mksh has no limit but memory)
MAX_BRACE_GROUPS = 64  # groups expanded within one another (each is a level of recursion)
MAX_BRACE_UNITS = 10_000  # a longer word is left as typed: finding groups is quadratic
MAX_BRACE_WORK = 1_000_000  # characters scanned and made by one expansion, all its words together
DEFAULT_IFS = " \t\n"
SAFE_TRACE = re.compile(r"[A-Za-z0-9_./:=@%+,^-]+")

# A word flattened for brace expansion: each unquoted character alone, every other part whole.
Unit = tuple[str, str]


def brace_expand(word: Word) -> list[Word]:
    """`a{b,c}d` as `abd acd` (nested, any number); quoted braces and `{x}` stay as typed. mksh
    has no `{1..3}` sequences."""
    if not any(kind == "raw" and "{" in text for kind, text in word.parts):
        return [word]
    units: list[Unit] = []
    for kind, text in word.parts:
        if kind == "raw":
            units.extend(("raw", c) for c in text)
        else:
            units.append((kind, text))
    if len(units) > MAX_BRACE_UNITS:
        return [word]
    results: list[list[Unit]] = []
    _expand(units, results, 0, [0])
    return [_regroup(found) for found in results]


def _expand(units: list[Unit], out: list[list[Unit]], depth: int, work: list[int]) -> None:
    # `work` counts every unit scanned or copied: a hostile word may not hold the event loop (or
    # fill memory) however its groups multiply
    work[0] += len(units)
    if depth > MAX_BRACE_GROUPS or work[0] > MAX_BRACE_WORK:
        raise ShellSyntaxError("brace expansion too large")
    found = _find_group(units)
    if found is None:
        if len(out) >= MAX_BRACE_WORDS:
            raise ShellSyntaxError("brace expansion too large")
        out.append(units)
        return
    start, commas, end = found
    prefix, suffix = units[:start], units[end + 1 :]
    bounds = [start, *commas, end]
    for left, right in itertools.pairwise(bounds):
        _expand(prefix + units[left + 1 : right] + suffix, out, depth + 1, work)


def _find_group(units: list[Unit]) -> tuple[int, list[int], int] | None:
    """The first `{...}` with a comma at its own level: (its `{`, its commas, its `}`)."""
    for start, unit in enumerate(units):
        if unit != ("raw", "{"):
            continue
        depth, commas = 0, list[int]()
        for i in range(start + 1, len(units)):
            if units[i] == ("raw", "{"):
                depth += 1
            elif units[i] == ("raw", "}"):
                if depth == 0:
                    if commas:
                        return start, commas, i
                    break
                depth -= 1
            elif units[i] == ("raw", ",") and depth == 0:
                commas.append(i)
    return None


def _regroup(units: list[Unit]) -> Word:
    parts: list[Part] = []
    for kind, text in units:
        if kind == "raw" and parts and parts[-1][0] == "raw":
            parts[-1] = ("raw", parts[-1][1] + text)
        else:
            parts.append((kind, text))
    return Word(parts)


def field_split(value: str, ifs: str) -> tuple[list[str], bool, bool]:
    """`value` split at IFS characters, as POSIX: (fields, started with IFS white space, ended at a
    delimiter). Runs of IFS white space are one delimiter; each other IFS character is one (so
    `a::b` with IFS=: is `a`, ``, `b`)."""
    if not ifs:
        return ([value] if value else []), False, False
    white = {c for c in ifs if c in DEFAULT_IFS}
    i, n = 0, len(value)
    while i < n and value[i] in white:
        i += 1
    lead = i > 0
    fields: list[str] = []
    cur: list[str] = []
    ended = False
    while i < n:
        c = value[i]
        if c not in ifs:
            cur.append(c)
            i += 1
            ended = False
            continue
        while i < n and value[i] in white:
            i += 1
        if i < n and value[i] in ifs and value[i] not in white:
            i += 1
            while i < n and value[i] in white:
                i += 1
        fields.append("".join(cur))
        cur = []
        ended = True
    if not ended and (cur or fields):
        fields.append("".join(cur))
    return fields, lead, ended


def glob_escape(text: str) -> str:
    """`text` as an fnmatch pattern matching only itself (quoted characters of a glob word)."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def trace_quote(text: str) -> str:
    """A word as `set -x` shows it: plain, or in single quotes."""
    if SAFE_TRACE.fullmatch(text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"
