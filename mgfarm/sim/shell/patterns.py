"""Shell patterns as mksh matches them in `case` and in `${x#pat}`, `${x%pat}`, `${x/pat/rep}`.

A pattern is glob syntax (`*`, `?`, `[...]`, `[!...]`, a backslash quoting the next character), matched
against the whole text (`*` crosses `/`). It becomes a regex run by the bounded engine in a worker
thread: a pattern comes from an agent, and a value may hold 16 MiB.
"""

from __future__ import annotations

from mgfarm.sim.shell.safe_regex import BoundedPattern, compile_regex, run_bounded

SPECIAL = "*?[\\"


def quote(text: str) -> str:
    """`text` as a pattern that matches only itself (a quoted part of a pattern word)."""
    return "".join("\\" + c if c in SPECIAL else c for c in text)


def units(pattern: str) -> list[str]:
    """The pattern as regex pieces, one per thing it matches in turn (so they can be reversed)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append("*")
        elif c == "?":
            out.append(".")
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(_literal(pattern[i]))
        elif c == "[":
            end, piece = _bracket(pattern, i)
            if piece is not None:
                out.append(piece)
                i = end
            else:
                out.append(_literal("["))
        else:
            out.append(_literal(c))
        i += 1
    return out


def _literal(c: str) -> str:
    return "\\" + c if not c.isalnum() else c


def _bracket(pattern: str, start: int) -> tuple[int, str | None]:
    """`[...]` at `start` as a regex class and the index of its `]`; None when it never closes."""
    i = start + 1
    negate = i < len(pattern) and pattern[i] in "!^"
    i += negate
    body: list[str] = []
    first = True
    while i < len(pattern):
        c = pattern[i]
        if c == "]" and not first:
            return i, "[" + ("^" if negate else "") + "".join(body) + "]"
        if c == "[" and pattern.startswith("[:", i):
            close = pattern.find(":]", i + 2)
            if close > 0:
                body.append(pattern[i : close + 2])  # [:alpha:] and friends
                i = close + 2
                first = False
                continue
        if c == "\\" and i + 1 < len(pattern):
            i += 1
            c = pattern[i]
        body.append("-" if c == "-" and not first and pattern[i + 1 : i + 2] != "]" else _literal(c))
        first = False
        i += 1
    return start, None


def _compile(pieces: list[str], lazy: bool, anchored_end: bool) -> BoundedPattern:
    star = ".*?" if lazy else ".*"
    text = "".join(star if p == "*" else p for p in pieces)
    return compile_regex(f"(?s:{text})" + ("\\Z" if anchored_end else ""))


async def matches(value: str, pattern: str) -> bool:
    """Whether `pattern` matches the whole of `value` (`case`)."""
    regex = _compile(units(pattern), False, True)
    return bool(await run_bounded(regex.match, value))


async def trim(value: str, pattern: str, op: str) -> str:
    """`${x#p}` (shortest prefix matching p removed), `##` (longest), `%` and `%%` (suffixes)."""
    pieces = units(pattern)
    suffix = op.startswith("%")
    if suffix:  # a suffix of the text is a prefix of it reversed, for the pattern reversed
        value, pieces = value[::-1], pieces[::-1]
    regex = _compile(pieces, len(op) == 1, False)
    hit = await run_bounded(regex.match, value)
    rest = value[hit.end() :] if hit is not None else value
    return rest[::-1] if suffix else rest


async def replace(value: str, pattern: str, replacement: str, every: bool) -> str:
    """`${x/p/r}`: the first longest match of p replaced by r; `${x//p/r}` every one."""
    if not pattern:
        return value
    regex = _compile(units(pattern), False, False)
    text, _ = await run_bounded(regex.subn, replacement.replace("\\", "\\\\"), value, 0 if every else 1)
    return text
