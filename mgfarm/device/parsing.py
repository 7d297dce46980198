"""Parsers for the AOSP text formats the controller reads (content, sqlite3, dumpsys, md5sum)."""

from __future__ import annotations

import re

_ROW_RE = re.compile(r"^Row: \d+ ?(.*)$")
_COL_START_RE = re.compile(r"(?:^|, )([A-Za-z_][A-Za-z0-9_]*)=")
_FOCUS_RE = re.compile(r"mCurrentFocus=Window\{\S+ (?:u\d+ )?([^\s/}]+)/([^\s}]+)\}")
_FOCUSED_APP_RE = re.compile(r"mFocusedApp=.*?\{\S+ (?:u\d+ )?([^\s/}]+)/([^\s}]+)")
_RESUMED_RE = re.compile(
    r"(?:mResumedActivity|ResumedActivity):? ActivityRecord\{\S+ (?:u\d+ )?([^\s/}]+)/([^\s}]+)"
)


def _split_row(body: str, projection: list[str] | None) -> dict[str, str | None]:
    """Split `a=1, b=x, y, c=NULL` into columns; known column names make values with ', ' safe."""
    if projection:
        names = projection
        starts: list[tuple[int, int, str]] = []
        pos = 0
        for name in names:
            marker = f"{name}=" if not starts else f", {name}="
            idx = body.find(marker, pos)
            if idx < 0:
                starts = []
                break
            starts.append((idx, idx + len(marker), name))
            pos = idx + len(marker)
        if starts:
            return _cut(body, starts)
    starts = [(m.start(), m.end(), m.group(1)) for m in _COL_START_RE.finditer(body)]
    return _cut(body, starts)


def _cut(body: str, starts: list[tuple[int, int, str]]) -> dict[str, str | None]:
    row: dict[str, str | None] = {}
    for i, (_, value_start, name) in enumerate(starts):
        value_end = starts[i + 1][0] if i + 1 < len(starts) else len(body)
        value = body[value_start:value_end]
        row[name] = None if value == "NULL" else value
    return row


def content_reply(output: str) -> bool:
    """Whether `output` is what `content query` prints: rows, or `No result found.`."""
    return output.rstrip("\n") == "No result found." or _ROW_RE.match(output.split("\n", 1)[0]) is not None


def parse_content_rows(output: str, projection: list[str] | None = None) -> list[dict[str, str | None]]:
    """Rows of `content query` output; `No result found.` gives an empty list.

    A value may span lines (multi-line text): continuation lines are joined to the previous row.
    """
    bodies: list[str] = []
    for line in output.splitlines():
        m = _ROW_RE.match(line)
        if m:
            bodies.append(m.group(1))
        elif bodies and line != "No result found.":
            bodies[-1] += "\n" + line
    return [_split_row(body, projection) for body in bodies]


def parse_sqlite_rows(output: str) -> list[list[str]]:
    """Rows of `sqlite3` list-mode output (`|` between columns, NULL printed as empty)."""
    return [line.split("|") for line in output.splitlines() if line != ""]


def _full_activity(package: str, activity: str) -> str:
    return package + activity if activity.startswith(".") else activity


def parse_current_focus(dumpsys_window: str) -> tuple[str, str] | None:
    """(package, activity) from `dumpsys window windows` (mCurrentFocus, then mFocusedApp)."""
    for regex in (_FOCUS_RE, _FOCUSED_APP_RE):
        m = regex.search(dumpsys_window)
        if m:
            return m.group(1), _full_activity(m.group(1), m.group(2))
    return None


def parse_resumed_activity(dumpsys_activity: str) -> tuple[str, str] | None:
    """(package, activity) from `dumpsys activity activities` (mResumedActivity)."""
    m = _RESUMED_RE.search(dumpsys_activity)
    if m:
        return m.group(1), _full_activity(m.group(1), m.group(2))
    return None


def parse_md5sum(output: str) -> str | None:
    """The hex digest from `md5sum F` output (`<32 hex>  F`)."""
    m = re.match(r"^([0-9a-f]{32})\s", output.strip() + " ")
    return m.group(1) if m else None
