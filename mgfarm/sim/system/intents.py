"""Implicit intent resolution as PackageManager does it: action, categories, then MIME type and data.

An app declares `intent_filters` (IntentFilter rows, like its manifest); an app that only has the older
`intent_actions` table gets one loose filter per action that accepts any data, ranked below every
filter that names a type or scheme, so a precise filter of another app wins (INSERT of a contact goes
to Contacts, not to the Calendar's event editor).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

DEFAULT = "android.intent.category.DEFAULT"
# IntentFilter.MATCH_CATEGORY_* : how specific a data match was; the best one wins.
MATCH_EMPTY, MATCH_SCHEME, MATCH_HOST, MATCH_TYPE = 0x100000, 0x200000, 0x300000, 0x600000
LOOSE = 0x0FFFFF  # below MATCH_EMPTY: an intent_actions filter that names no data


@dataclass(frozen=True)
class IntentFilter:
    """One `<intent-filter>` of an activity."""

    activity: str  # fully qualified class name
    actions: tuple[str, ...]
    categories: tuple[str, ...] = (DEFAULT,)
    mime_types: tuple[str, ...] = ()  # "vnd.android.cursor.dir/contact", "image/*", "*/*"
    schemes: tuple[str, ...] = ()  # "tel", "content", "https"
    hosts: tuple[str, ...] = ()  # authorities, with schemes only
    priority: int = 0
    loose: bool = False  # derived from intent_actions: any data and type match, at the lowest rank


@dataclass
class Query:
    """What an implicit intent asks for."""

    action: str | None
    data: str | None = None
    mime_type: str | None = None
    categories: list[str] = field(default_factory=list)


def type_matches(pattern: str, mime: str) -> bool:
    """MIME match with `*` wildcards on either side, case-insensitive, as IntentFilter.findMimeType."""
    pattern, mime = pattern.lower(), mime.lower()
    if pattern in ("*", "*/*") or pattern == mime:
        return True
    p_main, _, p_sub = pattern.partition("/")
    m_main, _, m_sub = mime.partition("/")
    return p_main == m_main and (p_sub == "*" or m_sub == "*")


def match_data(f: IntentFilter, query: Query) -> int:
    """The match category of `query`'s type and data against `f`, or 0 when they do not match."""
    if f.loose:
        return LOOSE
    parts = urlsplit(query.data) if query.data else None
    scheme = parts.scheme.lower() if parts else ""
    if not f.mime_types and not f.schemes:
        return MATCH_EMPTY if not query.data and not query.mime_type else 0
    score = MATCH_EMPTY
    if f.schemes:
        if scheme not in f.schemes:
            return 0
        score = MATCH_SCHEME
        if f.hosts:
            host = (parts.hostname or "") if parts else ""
            if host not in f.hosts:
                return 0
            score = MATCH_HOST
    elif scheme not in ("", "content", "file"):
        return 0  # a filter with types only takes content:, file: or no data
    if f.mime_types:
        if not query.mime_type or not any(type_matches(t, query.mime_type) for t in f.mime_types):
            return 0
        score = MATCH_TYPE
    elif query.mime_type:
        return 0
    return score


def match(f: IntentFilter, query: Query) -> int:
    if query.action is not None and query.action not in f.actions:
        return 0
    if query.action is None and not f.actions:
        return 0
    if not f.loose and any(c not in f.categories for c in query.categories or [DEFAULT]):
        return 0
    return match_data(f, query)


def filters_of(app: Any) -> list[IntentFilter]:
    declared: Iterable[IntentFilter] = getattr(app, "intent_filters", ())
    filters = list(declared)
    covered = {a for f in filters for a in f.actions}
    for action, activity in getattr(app, "intent_actions", {}).items():
        if action not in covered:
            filters.append(IntentFilter(activity, (action,), (DEFAULT,), loose=True))
    return filters


def resolve(apps: dict[str, Any], query: Query, package: str | None = None) -> tuple[str, str] | None:
    """(package, activity class) of the best matching filter, optionally within one package."""
    best: tuple[int, int, str, str] | None = None
    for name in sorted(apps):
        if package is not None and name != package:
            continue
        for f in filters_of(apps[name]):
            score = match(f, query)
            if score and (best is None or (f.priority, score) > (best[0], best[1])):
                best = (f.priority, score, name, f.activity)
    return (best[2], best[3]) if best else None
