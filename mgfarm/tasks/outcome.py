"""Exact outcomes: what a template requires to change, matched against the state diff.

A template lists required changes under `outcome:` and by-products it allows under
`incidental:`. Success means every required change is present exactly once and no other change
happened, except incidental ones (the template's list plus the app-wide ones the verifier
modules declare). Items (values are templated with the parameters before evaluation):

    insert:  {table: T, match: {col: M, ...}}
    delete:  {table: T, where: {col: M, ...}}
    update:  {table: T, where: {...}, set: {col: M, ...}, recreate: false}
    setting: {key: NS.KEY, value: M}
    file:    {path: P, exists: true|false, text: T}   (P may be a glob within a folder: IMG_*.jpg)

`recreate: true` also accepts the row deleted and inserted again with the new values (what a
content-provider client or "delete and add again" does). A matcher M is a plain value (text
compares case- and space-insensitively, numbers as numbers), a list (a multiset of matchers, for
entity columns such as a contact's phones) or one operator: `{phone: N}` (same number by
digits), `{approx: X, tol: T}`, `{local_time: "YYYY-MM-DD HH:MM", tol_minutes: M}` (epoch
milliseconds read in the device's time zone), `{exact: S}`, `{contains: S}`, `{any: true}`,
`{in: [M, ...]}`, `{not: M}`.

Incidental patterns: `TABLE` (any change there, globs allowed), `TABLE[KEY]`, `TABLE:col1,col2`
(updates that touch only these columns), and `settings.NS[KEY]=VALUE` (a setting that ends at VALUE).
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import hashlib
import math
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any
from zoneinfo import ZoneInfo

from mgfarm.tasks.state import Change, shared_path

KINDS = ("insert", "delete", "update", "setting", "file")
OPERATORS = ("phone", "approx", "local_time", "exact", "contains", "any", "in", "not")
ITEM_KEYS = {
    "insert": ({"table", "match"}, set()),
    "delete": ({"table", "where"}, set()),
    "update": ({"table", "where", "set"}, {"recreate"}),
    "setting": ({"key", "value"}, set()),
    "file": ({"path", "exists"}, {"text"}),
}


def item_problem(item: Any) -> str | None:
    """Why an outcome item is malformed (None when fine), in words a template author can act on."""
    if not isinstance(item, dict) or len(item) != 1:
        return f"each outcome item is a mapping with one key, one of: {', '.join(KINDS)}"
    kind, body = next(iter(item.items()))
    if kind not in KINDS:
        return f"unknown outcome item {kind!r}; known: {', '.join(KINDS)}"
    required, optional = ITEM_KEYS[kind]
    if not isinstance(body, dict):
        return f"{kind} takes a mapping of {', '.join(sorted(required))}"
    missing = required - set(body)
    unknown = set(body) - required - optional
    if missing:
        return f"{kind} needs {', '.join(sorted(missing))}"
    if unknown:
        return (
            f"{kind} has no field {sorted(unknown)[0]!r}; it takes {', '.join(sorted(required | optional))}"
        )
    for name in ("match", "where", "set"):
        if name in body and not isinstance(body[name], dict):
            return f"{kind}.{name} is a mapping of column to value"
    return None


def incidental_problem(pattern: Any) -> str | None:
    """Why an incidental pattern is malformed."""
    if not isinstance(pattern, str) or not pattern:
        return "each incidental entry is a string: TABLE, TABLE[KEY] or TABLE:col1,col2"
    return None


# ---- matchers


@dataclass(frozen=True)
class MatchContext:
    """What matchers need beyond the values: the device's time zone."""

    timezone: str = "UTC"

    def zone(self) -> dt.tzinfo:
        try:
            return ZoneInfo(self.timezone)
        except (KeyError, ValueError):
            return dt.timezone.utc


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+(\.\d+)?\s*", value):
        return float(value)
    return None


def _text(value: Any) -> str:
    return re.sub(r"\s+", " ", str(value)).strip().casefold()


def _digits(value: Any) -> str:
    return re.sub(r"\D", "", str(value or ""))


def matches(want: Any, got: Any, ctx: MatchContext) -> bool:
    """Whether a stored value satisfies a matcher (see the module docstring)."""
    if isinstance(want, dict) and len(want) >= 1 and next(iter(want)) in OPERATORS:
        return _operator(want, got, ctx)
    if isinstance(want, list):
        return _multiset(want, got, ctx)
    if want is None:
        return got is None
    if got is None:
        return False
    a, b = _number(want), _number(got)
    if a is not None and b is not None:
        return math.isclose(a, b, abs_tol=1e-9)
    return _text(want) == _text(got)


def _multiset(want: list[Any], got: Any, ctx: MatchContext) -> bool:
    values = list(got) if isinstance(got, (list, tuple)) else [got]
    if len(values) != len(want):
        return False
    free = list(values)
    for w in want:
        for i, g in enumerate(free):
            if matches(w, g, ctx):
                free.pop(i)
                break
        else:
            return False
    return True


def _operator(want: dict[str, Any], got: Any, ctx: MatchContext) -> bool:
    op, arg = next(iter(want.items()))
    if op == "any":
        return bool(arg) or got is None
    if op == "not":
        return not matches(arg, got, ctx)
    if op == "in":
        return any(matches(w, got, ctx) for w in arg)
    if got is None:
        return False
    if op == "phone":
        want_digits, got_digits = _digits(arg), _digits(got)
        return bool(want_digits) and want_digits[-10:] == got_digits[-10:]
    if op == "exact":
        return str(got) == str(arg)
    if op == "contains":
        return _text(arg) in _text(got)
    if op == "approx":
        x, y = _number(arg), _number(got)
        return x is not None and y is not None and abs(x - y) <= float(want.get("tol", 0))
    if op == "local_time":
        moment = dt.datetime.fromisoformat(str(arg)).replace(tzinfo=ctx.zone())
        stamp = _number(got)
        tol = float(want.get("tol_minutes", 0)) * 60_000
        return stamp is not None and abs(stamp - moment.timestamp() * 1000) <= tol
    raise ValueError(f"unknown matcher {op!r}")


def row_matches(want: dict[str, Any], row: dict[str, Any] | None, ctx: MatchContext) -> bool:
    """Every column named in `want` matches the row."""
    return row is not None and all(col in row and matches(m, row[col], ctx) for col, m in want.items())


# ---- requirements


@dataclass
class Requirement:
    """One rendered outcome item and the change(s) it was matched with."""

    kind: str
    spec: dict[str, Any]
    matched: list[Change] = field(default_factory=list)

    @property
    def where(self) -> str:
        if self.kind == "setting":
            return "settings." + str(self.spec["key"]).rsplit(".", 1)[0]
        if self.kind == "file":
            return "files"
        return str(self.spec["table"])

    def describe(self) -> str:
        body = ", ".join(f"{k}: {v}" for k, v in self.spec.items())
        return f"{self.kind} {{{body}}}"

    def accepts(self, change: Change, ctx: MatchContext, incidental: list[str]) -> bool:
        """Whether one change fulfils this requirement on its own."""
        if change.where != self.where:
            return False
        s = self.spec
        if self.kind == "insert":
            return change.kind == "insert" and row_matches(s["match"], change.after, ctx)
        if self.kind == "delete":
            return change.kind == "delete" and row_matches(s["where"], change.before, ctx)
        if self.kind == "update":
            if change.kind != "update" or not row_matches(s["where"], change.before, ctx):
                return False
            if not row_matches(s["set"], change.after, ctx):
                return False
            extra = set(change.columns()) - set(s["set"])
            return not extra or all(_column_allowed(change.where, c, incidental) for c in extra)
        if self.kind == "setting":
            key = str(s["key"]).rsplit(".", 1)[1]
            return change.key == key and change.kind != "delete" and matches(s["value"], _value(change), ctx)
        if self.kind == "file":
            if not file_path_matches(str(s["path"]), change.key):
                return False
            if not s["exists"]:
                return change.kind == "delete"
            if change.kind == "delete":
                return False
            if "text" in s:
                return (change.after or {}).get("sha1") == hashlib.sha1(str(s["text"]).encode()).hexdigest()
            return True
        return False

    def accepts_pair(self, gone: Change, added: Change, ctx: MatchContext, incidental: list[str]) -> bool:
        """Delete-and-recreate for an update with `recreate: true`: the same row with the new values."""
        s = self.spec
        if self.kind != "update" or not s.get("recreate"):
            return False
        if gone.kind != "delete" or added.kind != "insert" or self.where not in (gone.where, added.where):
            return False
        if gone.where != added.where or not row_matches(s["where"], gone.before, ctx):
            return False
        if not row_matches(s["set"], added.after, ctx):
            return False
        old, new = gone.before or {}, added.after or {}
        changed = {c for c in set(old) | set(new) if old.get(c) != new.get(c)} - set(s["set"])
        return all(_column_allowed(gone.where, c, incidental) or c in KEY_COLUMNS for c in changed)


KEY_COLUMNS = {"_id", "expense_id", "contact_id", "lookup"}


def file_path_matches(pattern: str, path: str) -> bool:
    """A `file` item's path against a changed file: the same path, or a glob (`*`, `?`, `[...]`) whose
    wildcards stay within one folder level (`Pictures/IMG_*.jpg`: a photo whose name the app stamps)."""
    wanted = shared_path(pattern)
    if not any(c in wanted for c in "*?["):
        return path == wanted
    return PurePosixPath(path).match(wanted)


def _value(change: Change) -> Any:
    return (change.after or {}).get("value")


def _column_allowed(where: str, column: str, incidental: list[str]) -> bool:
    for pattern in incidental:
        table, _, cols = pattern.partition(":")
        if cols and fnmatch.fnmatchcase(where, table) and column in cols.split(","):
            return True
    return False


def incidental_match(change: Change, patterns: list[str]) -> bool:
    """Whether a change is an allowed by-product (`TABLE`, `TABLE[KEY]`, `TABLE:cols` for updates)."""
    for pattern in patterns:
        pattern, _, value = pattern.partition("=")
        if value and str((change.after or {}).get("value")) != value:
            continue
        table, _, cols = pattern.partition(":")
        key = None
        if table.endswith("]") and "[" in table:
            table, key = table[:-1].split("[", 1)
        if not fnmatch.fnmatchcase(change.where, table):
            continue
        if key is not None and not fnmatch.fnmatchcase(change.key, key):
            continue
        if cols:
            if change.kind == "update" and set(change.columns()) <= set(cols.split(",")):
                return True
            continue
        return True
    return False


@dataclass
class OutcomeResult:
    """The verdict on the state diff: requirements met, unexpected changes, progress."""

    requirements: list[Requirement]
    unexpected: list[Change]
    incidental: list[Change]

    @property
    def met(self) -> int:
        return sum(1 for r in self.requirements if r.matched)

    @property
    def success(self) -> bool:
        return self.met == len(self.requirements) and not self.unexpected

    @property
    def progress(self) -> float:
        """Required changes made minus unexpected ones over the number required, in [0, 1)."""
        if self.success:
            return 1.0
        if not self.requirements:
            return 0.0
        score = (self.met - len(self.unexpected)) / len(self.requirements)
        return min(max(score, 0.0), 0.99)


def evaluate(
    items: list[dict[str, Any]], changes: list[Change], incidental: list[str], ctx: MatchContext
) -> OutcomeResult:
    """Match every required item to its own change (a maximum matching), the rest is unexpected.

    `incidental`: the template's by-products and the catalog's app-wide ones (`StateSpec.incidental`).
    """
    allow = list(incidental)
    reqs = [Requirement(*next(iter(item.items()))) for item in items]
    candidates = [[i for i, c in enumerate(changes) if r.accepts(c, ctx, allow)] for r in reqs]
    owner: dict[int, int] = {}  # change index -> requirement index

    def augment(r: int, seen: set[int]) -> bool:
        for c in candidates[r]:
            if c in seen:
                continue
            seen.add(c)
            if c not in owner or augment(owner[c], seen):
                owner[c] = r
                return True
        return False

    for r in range(len(reqs)):
        augment(r, set())
    for c, r in owner.items():
        reqs[r].matched = [changes[c]]
    used = set(owner)
    for req in reqs:  # delete-and-recreate pairs for updates that allow it
        if req.matched:
            continue
        free = [i for i in range(len(changes)) if i not in used]
        pair = next(
            ((d, a) for d in free for a in free if req.accepts_pair(changes[d], changes[a], ctx, allow)),
            None,
        )
        if pair:
            req.matched = [changes[pair[0]], changes[pair[1]]]
            used.update(pair)
    rest = [c for i, c in enumerate(changes) if i not in used]
    unexpected = [c for c in rest if not incidental_match(c, allow)]
    return OutcomeResult(reqs, unexpected, [c for c in rest if c not in unexpected])
