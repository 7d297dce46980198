"""Contacts: contacts2.db of the contacts provider (AOSP layout: raw_contacts, data, view_* views)."""

from __future__ import annotations

from mgfarm.catalog.verifiers import normalize
from mgfarm.tasks.apps import declare_app
from mgfarm.tasks.judge import CheckContext, CheckResult, check
from mgfarm.tasks.state import declare_database

DB = "/data/data/com.android.providers.contacts/databases/contacts2.db"
declare_app("contacts", "com.android.contacts", None, "Contacts")
declare_database("contacts", DB)


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
