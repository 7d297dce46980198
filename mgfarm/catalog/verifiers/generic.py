"""Checks that work for any app: SQL, content providers, files, the screen and typed answers.

Every check reads the device over ADB only and says what it saw, so a failed episode explains itself.
"""

from __future__ import annotations

import fnmatch
from typing import Any

from mgfarm.catalog.verifiers import normalize
from mgfarm.tasks import answers
from mgfarm.tasks.device import quote
from mgfarm.tasks.judge import CheckContext, CheckResult, check
from mgfarm.tasks.state import UnreadableData


def _compare(actual: Any, expected: Any, how: str) -> bool:
    if how == "number":
        a, b = normalize.number(actual), normalize.number(expected)
        return a is not None and b is not None and abs(a - b) < 1e-6
    if how == "phone":
        return normalize.same_number(actual, expected)
    if how == "exact":
        return str(actual) == str(expected)
    return normalize.text(actual) == normalize.text(expected)


@check("sql.count")
def sql_count(
    ctx: CheckContext, *, db: str, sql: str, equals: int | None = None, at_least: int | None = None
) -> CheckResult:
    """Number of rows a query returns on a pulled copy of the database."""
    n = len(ctx.query(db, sql))
    ok = (equals is None or n == int(equals)) and (at_least is None or n >= int(at_least))
    want = f"== {equals}" if equals is not None else f">= {at_least}"
    return CheckResult(ok, f"{n} rows from {db} (want {want})")


@check("sql.value")
def sql_value(ctx: CheckContext, *, db: str, sql: str, equals: Any, compare: str = "text") -> CheckResult:
    """First column of the first row equals a value (text, number, phone or exact comparison)."""
    rows = ctx.query(db, sql)
    if not rows:
        return CheckResult(False, f"query on {db} returned no rows")
    value = rows[0][0]
    return CheckResult(_compare(value, equals, compare), f"{db}: got {value!r}, want {equals!r}")


@check("content.has_row")
def content_has_row(
    ctx: CheckContext, *, uri: str, match: dict[str, Any], compare: str = "text"
) -> CheckResult:
    """Some row of `content query URI` matches every column given (normalised comparison)."""
    rows = ctx.device.content_query(uri)
    found = any(all(_compare(row.get(col), want, compare) for col, want in match.items()) for row in rows)
    return CheckResult(found, f"{len(rows)} rows at {uri}; looking for {match}")


@check("content.count")
def content_count(ctx: CheckContext, *, uri: str, equals: int, where: str | None = None) -> CheckResult:
    """Number of rows of a content URI (optionally filtered by --where)."""
    n = len(ctx.device.content_query(uri, where=where))
    return CheckResult(n == int(equals), f"{n} rows at {uri} (want {equals})")


@check("files.exists")
def file_exists(ctx: CheckContext, *, path: str) -> CheckResult:
    """A file exists at the path."""
    path = ctx.path(path)
    out = ctx.device.shell(f"ls {quote(path)} >/dev/null 2>&1 && echo yes || echo no").strip()
    if out not in ("yes", "no"):  # a shell that did not run: no answer, never "missing"
        raise UnreadableData(f"{path}: the device answered {out[:80]!r} to whether it exists")
    return CheckResult(out == "yes", f"{path}: {'exists' if out == 'yes' else 'missing'}")


@check("files.missing")
def file_missing(ctx: CheckContext, *, path: str) -> CheckResult:
    """No file exists at the path."""
    present = file_exists(ctx, path=path)
    return CheckResult(not present.ok, present.detail)


@check("files.contains")
def file_contains(ctx: CheckContext, *, path: str, text: str) -> CheckResult:
    """The file's contents include a text (normalised)."""
    path = ctx.path(path)
    body = _text_of(ctx, path)
    if body is None:
        return CheckResult(False, f"{path}: missing")
    found = normalize.text(text) in normalize.text(body)
    return CheckResult(found, f"{path}: {len(body)} chars; looking for {text!r}")


@check("files.occurrences")
def file_occurrences(ctx: CheckContext, *, path: str, text: str, equals: int) -> CheckResult:
    """How often a text occurs in a file (exact, case-sensitive): records in a file an app appends to."""
    path = ctx.path(path)
    body = _text_of(ctx, path)
    if body is None:
        return CheckResult(False, f"{path}: missing")
    n = body.count(text)
    return CheckResult(n == int(equals), f"{path}: {text!r} {n} times (want {equals})")


def _text_of(ctx: CheckContext, path: str) -> str | None:
    """A device file as text (None when it does not exist); bytes that are not UTF-8 read as U+FFFD."""
    data = ctx.read_file(path)
    return None if data is None else data.decode("utf-8", "replace")


LISTED = "LISTED"  # printed after a listing: the shell ran to its end


@check("files.count")
def file_count(ctx: CheckContext, *, folder: str, equals: int, pattern: str = "*") -> CheckResult:
    """Number of files in a folder (not in its subfolders, not the folders) whose names match a glob.
    Listed NUL-separated: a name may hold spaces or line breaks, never a NUL."""
    folder = ctx.path(folder)
    listing = ctx.device.shell(f"find {quote(folder)} -maxdepth 1 -type f -print0 2>/dev/null; echo {LISTED}")
    if not listing.endswith(LISTED + "\n"):  # the shell did not get to the end: no count, never 0
        raise UnreadableData(f"{folder}: the listing of its files stopped early")
    names = [path.rsplit("/", 1)[-1] for path in listing[: -len(LISTED) - 1].split("\0") if path]
    matching = [n for n in names if fnmatch.fnmatchcase(n, pattern)]
    return CheckResult(len(matching) == int(equals), f"{folder}: {len(matching)} files match {pattern}")


@check("ui.current_app")
def current_app(ctx: CheckContext, *, package: str, activity: str | None = None) -> CheckResult:
    """The app (and optionally the activity) in front."""
    front = ctx.device.current_app()
    if front is None:
        return CheckResult(False, "no app in front")
    ok = front[0] == package and (activity is None or front[1].endswith(activity))
    return CheckResult(ok, f"in front: {front[0]}/{front[1]}")


@check("ui.element_visible")
def element_visible(
    ctx: CheckContext, *, text: str | None = None, desc: str | None = None, resource_id: str | None = None
) -> CheckResult:
    """An element with this text / content-desc / resource-id is on screen."""
    elements = ctx.device.ui_elements()
    for el in elements:
        if text is not None and normalize.text(el.text) != normalize.text(text):
            continue
        if desc is not None and el.content_desc != desc:
            continue
        if resource_id is not None and el.resource_id != resource_id:
            continue
        return CheckResult(True, f"found element {el.index} among {len(elements)}")
    return CheckResult(False, f"none of {len(elements)} elements match")


@check("answer.equals")
def answer_equals(
    ctx: CheckContext, *, field: str, value: Any, tolerance: float = 0.0, compare: str | None = None
) -> CheckResult:
    """The agent's typed answer for a field, read by meaning for the field's type (or `compare`).

    Numbers in words or digits, 12/24 h times, the usual dates, money, phone numbers by digits,
    free text up to case, spacing, quotes and a lead-in; an answer that hedges between several
    values is wrong (`mgfarm.tasks.answers`).
    """
    if field not in ctx.answer:
        return CheckResult(False, f"no answer for {field!r}")
    kind = compare or ctx.answer_fields.get(field, "text")
    ok, why = answers.verdict(kind, ctx.answer[field], value, float(tolerance))
    return CheckResult(ok, f"answer {field}: {why}")
