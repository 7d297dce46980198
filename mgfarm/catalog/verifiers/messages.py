"""Messages: SMS in the telephony provider (mmssms.db, `content://sms/sent`, `content://sms/inbox`);
checks read the database itself."""

from __future__ import annotations

from mgfarm.catalog.verifiers import normalize
from mgfarm.tasks.judge import CheckContext, CheckResult, check
from mgfarm.tasks.state import DatabaseDecl

DATABASES = (
    DatabaseDecl(
        "sms",
        "/data/data/com.android.providers.telephony/databases/mmssms.db",
        app="messages",
        main="sms",
        edit="body = body || '!'",
        extra="INSERT INTO sms (address, body, date, type, read, seen) "
        "VALUES ('5550009999', 'I quit', 1772600000000, 2, 1, 1)",
    ),
)
# Threads and canonical addresses are derived from the messages by the provider's triggers;
# opening a conversation marks it read and seen, as on a real phone.
INCIDENTAL = ("sms.threads", "sms.canonical_addresses", "sms.sms:read,seen")


SENT = 2  # Telephony.Sms.MESSAGE_TYPE_SENT: what `content://sms/sent` lists


@check("messages.sent")
def sent(ctx: CheckContext, *, to: str, body: str | None = None) -> CheckResult:
    """A sent SMS to this number (with this text, compared case- and space-insensitively). Read from
    the provider's database, not `content query`, whose output a message holding a line break and
    a made-up `Row:` line could add to."""
    rows = ctx.query("sms", "SELECT address, body FROM sms WHERE type = ?", (SENT,))
    to_them = [r for r in rows if normalize.same_number(r[0], to)]
    ok = bool(to_them) and (
        body is None or any(normalize.text(r[1]) == normalize.text(body) for r in to_them)
    )
    bodies = [r[1] for r in to_them]
    return CheckResult(ok, f"{len(rows)} sent SMS, {len(to_them)} to {to}: {bodies[-3:]}")


@check("messages.sent_count")
def sent_count(ctx: CheckContext, *, equals: int) -> CheckResult:
    """Number of sent SMS."""
    n = len(ctx.query("sms", "SELECT _id FROM sms WHERE type = ?", (SENT,)))
    return CheckResult(n == int(equals), f"{n} sent SMS (want {equals})")
