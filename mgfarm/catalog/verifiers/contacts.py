"""Contacts: contacts2.db of the contacts provider (AOSP layout: raw_contacts, data, view_* views)."""

from __future__ import annotations

import sqlite3

from mgfarm.catalog.verifiers import normalize
from mgfarm.tasks.judge import CheckContext, CheckResult, check
from mgfarm.tasks.state import DatabaseDecl, EntityDecl, Table

DB = "/data/data/com.android.providers.contacts/databases/contacts2.db"
PHONE = "vnd.android.cursor.item/phone_v2"
EMAIL = "vnd.android.cursor.item/email_v2"
NAME = "vnd.android.cursor.item/name"
# Columns the provider derives from others (aggregation, sort keys, sync bookkeeping).
DERIVED = {"_id", "contact_id", "version", "dirty", "display_name_alt", "sort_key", "display_name_source"}
DATABASES = (
    DatabaseDecl(
        "contacts",
        DB,
        app="contacts",
        main="raw_contacts",
        edit="display_name = display_name || ' Jr'",
        extra="INSERT INTO raw_contacts (display_name) VALUES ('Eve Intruder')",
    ),
)


def read_contacts(conn: sqlite3.Connection) -> Table:
    """One row per raw contact: its own columns, its aggregate's, and its data rows by kind.

    A contact is one logical record over raw_contacts + contacts + data (+ mimetypes), so adding
    one is one insert and changing a number is one update, whichever path the agent took.
    """
    conn.row_factory = sqlite3.Row
    try:
        people: Table = {}
        for r in conn.execute("SELECT * FROM raw_contacts"):
            row = {k: r[k] for k in r.keys() if k not in DERIVED}  # noqa: SIM118 (a Row iterates values)
            row.update(phones=(), emails=(), names=(), other=())
            people[str(r["_id"])] = row
        for c in conn.execute(
            "SELECT raw_contacts._id AS rid, contacts.photo_id, contacts.pinned AS contact_pinned "
            "FROM raw_contacts JOIN contacts ON contacts._id = raw_contacts.contact_id"
        ):
            people[str(c["rid"])].update(photo_id=c["photo_id"], contact_pinned=c["contact_pinned"])
        for d in conn.execute(
            "SELECT data.*, mimetypes.mimetype AS mimetype FROM data "
            "LEFT JOIN mimetypes ON mimetypes._id = data.mimetype_id ORDER BY data._id"
        ):
            person = people.get(str(d["raw_contact_id"]))
            if person is None:  # a data row without its contact is a change of its own
                person = people.setdefault(f"orphan-{d['raw_contact_id']}", {"other": ()})
            if d["mimetype"] == PHONE:
                person["phones"] = tuple(sorted((*person["phones"], str(d["data1"] or ""))))
            elif d["mimetype"] == EMAIL:
                person["emails"] = tuple(sorted((*person["emails"], str(d["data1"] or ""))))
            else:
                keep = tuple(
                    f"{k}={d[k]}"
                    for k in d.keys()  # noqa: SIM118 (a Row iterates values)
                    if d[k] is not None and k not in ("_id", "raw_contact_id", "mimetype_id", "data_version")
                )
                key = "names" if d["mimetype"] == NAME else "other"
                person[key] = tuple(sorted((*person.get(key, ()), "|".join(keep))))
        return people
    finally:
        conn.row_factory = None


ENTITIES = (EntityDecl("contacts.contact", "contacts", ("raw_contacts", "contacts", "data"), read_contacts),)
# The structured-name row mirrors display_name; the provider rewrites it on every name edit.
INCIDENTAL = ("contacts.contact:names,contact_last_updated_timestamp,times_contacted,last_time_contacted",)


def _names(ctx: CheckContext) -> list[tuple[int, str, int]]:
    """(contact id, display name, starred) of every contact."""
    rows = ctx.query("contacts", "SELECT _id, coalesce(display_name, ''), starred FROM view_contacts")
    return [(int(r[0]), str(r[1]), int(r[2] or 0)) for r in rows]


def _matching(ctx: CheckContext, name: str) -> list[tuple[int, str, int]]:
    return [c for c in _names(ctx) if normalize.text(c[1]) == normalize.text(name)]


@check("contacts.has_contact")
def has_contact(
    ctx: CheckContext, *, name: str, phone: str | None = None, email: str | None = None
) -> CheckResult:
    """A contact with this name exists (and, when given, has this phone number and email)."""
    people = _matching(ctx, name)
    if not people:
        return CheckResult(False, f"{len(_names(ctx))} contacts; none named {name!r}")
    for cid, _, _ in people:
        rows = ctx.query("contacts", "SELECT mimetype, data1 FROM view_data WHERE contact_id = ?", (cid,))
        phones = [r[1] for r in rows if str(r[0]).endswith("phone_v2")]
        emails = [r[1] for r in rows if str(r[0]).endswith("email_v2")]
        phone_ok = phone is None or any(normalize.same_number(p, phone) for p in phones)
        email_ok = email is None or any(normalize.text(e) == normalize.text(email) for e in emails)
        if phone_ok and email_ok:
            return CheckResult(True, f"{name}: phones {phones}, emails {emails}")
    return CheckResult(False, f"{name} found but not with phone {phone!r} / email {email!r}")


@check("contacts.missing")
def missing(ctx: CheckContext, *, name: str) -> CheckResult:
    """No contact has this name."""
    people = _matching(ctx, name)
    return CheckResult(not people, f"{len(people)} contacts named {name!r}")


@check("contacts.starred")
def starred(ctx: CheckContext, *, name: str, value: bool = True) -> CheckResult:
    """The contact with this name is (or is not) a favourite."""
    people = _matching(ctx, name)
    if not people:
        return CheckResult(False, f"no contact named {name!r}")
    ok = all(bool(s) == bool(value) for _, _, s in people)
    return CheckResult(ok, f"{name}: starred={[s for _, _, s in people]}")


@check("contacts.count")
def count(ctx: CheckContext, *, equals: int) -> CheckResult:
    """Number of contacts."""
    n = len(_names(ctx))
    return CheckResult(n == int(equals), f"{n} contacts (want {equals})")
